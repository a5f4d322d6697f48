"""MATH500-L5: the 134 difficulty-5 questions of MATH500 (paper, appendix F.2)."""

from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

from gpassk_opencompass.plugin.datasets.math500 import Math500Level5Dataset
from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

math500_l5_datasets = [
    dict(
        type=Math500Level5Dataset,
        abbr='MATH500-L5',
        path='opencompass/math',
        file_name='test_prm800k_500.json',
        level=5,
        k=[4, 8, 16],
        n=48,
        reader_cfg=dict(input_columns=['problem'], output_column='answer'),
        # OpenCompass's MATH500 chain-of-thought prompt (math_prm800k_500_0shot_cot_gen_11c4b5.py).
        infer_cfg=dict(
            prompt_template=dict(
                type=PromptTemplate,
                template=dict(round=[
                    dict(role='HUMAN',
                         prompt='{problem}\nPlease reason step by step, and put your final answer within \\boxed{}.'),
                ]),
            ),
            retriever=dict(type=ZeroRetriever),
            inferencer=dict(type=GenInferencer, max_out_len=8192),
        ),
        eval_cfg=dict(evaluator=dict(type=GPassKEvaluator, benchmark='MATH500-L5', question_column='problem',
                                     subset_columns=[])),
    )
]
