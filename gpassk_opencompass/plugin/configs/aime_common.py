"""Reader and inference settings shared by the AIME configs."""

from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

aime_reader_cfg = dict(input_columns=['question'], output_column='answer')

# OpenCompass's AIME chain-of-thought prompt (configs/datasets/aime2024/aime2024_gen_17d799.py).
aime_infer_cfg = dict(
    prompt_template=dict(
        type=PromptTemplate,
        template=dict(round=[
            dict(role='HUMAN', prompt='{question}\nPlease reason step by step, and put your final answer within \\boxed{}.'),
        ]),
    ),
    retriever=dict(type=ZeroRetriever),
    inferencer=dict(type=GenInferencer, max_out_len=8192),
)

aime_evaluator = dict(type=GPassKEvaluator, question_column='question', subset_columns=[])
