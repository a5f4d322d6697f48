"""AIME2025 on OpenCompass's AIME 2025 file (``opencompass/aime2025``).

The published column is AIME 2025 Part I only (15 questions); the loader warns
when the file holds a different number (docs/generator.md, "Benchmark composition").
"""

from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.aime import AIMEDataset

with read_base():
    from .aime_common import aime_evaluator, aime_infer_cfg, aime_reader_cfg

aime2025_datasets = [
    dict(
        type=AIMEDataset,
        abbr='AIME2025',
        path='opencompass/aime2025',
        benchmark='AIME2025',
        k=[4, 8, 16],
        n=48,
        reader_cfg=aime_reader_cfg,
        infer_cfg=aime_infer_cfg,
        eval_cfg=dict(evaluator=dict(aime_evaluator, benchmark='AIME2025')),
    )
]
