"""AIME2024-45 on OpenCompass's AIME 2024 file (``opencompass/aime2024``, 30 questions).

The published column has 45 questions of undocumented origin (README,
"Benchmark composition"); point ``path`` at a JSONL of those 45 if you have it.
"""

from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.aime import AIMEDataset

with read_base():
    from .aime_common import aime_evaluator, aime_infer_cfg, aime_reader_cfg

aime2024_45_datasets = [
    dict(
        type=AIMEDataset,
        abbr='AIME2024-45',
        path='opencompass/aime2024',
        benchmark='AIME2024-45',
        k=[4, 8, 16],
        n=48,
        reader_cfg=aime_reader_cfg,
        infer_cfg=aime_infer_cfg,
        eval_cfg=dict(evaluator=dict(aime_evaluator, benchmark='AIME2024-45')),
    )
]
