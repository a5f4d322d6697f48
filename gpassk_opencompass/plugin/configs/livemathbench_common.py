"""Reader, inference and evaluator settings shared by the LiveMathBench configs."""

from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

# The loader builds the full prompt (OpenCompass's EN/CN LiveMathBench prompts, `cot` switch).
livemathbench_reader_cfg = dict(input_columns=['prompt'], output_column='answer')

livemathbench_infer_cfg = dict(
    prompt_template=dict(type=PromptTemplate, template=dict(round=[dict(role='HUMAN', prompt='{prompt}')])),
    retriever=dict(type=ZeroRetriever),
    inferencer=dict(type=GenInferencer, max_out_len=8192),
)

# Results per split and per language come from these real columns of the dataset.
livemathbench_evaluator = dict(type=GPassKEvaluator, question_column='question', subset_columns=['split', 'language'])
