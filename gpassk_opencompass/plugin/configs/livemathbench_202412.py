"""LiveMathBench-202412: all four splits of the December 2024 release, Chinese and English (119 x 2 questions)."""

from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset

with read_base():
    from .livemathbench_common import livemathbench_evaluator, livemathbench_infer_cfg, livemathbench_reader_cfg

livemathbench_202412_datasets = [
    dict(
        type=LiveMathBenchDataset,
        abbr='LiveMathBench-202412',
        path='opencompass/LiveMathBench',
        version='202412',
        dataset_splits=['CNMO', 'CCEE', 'AMC', 'WLPMC'],
        dataset_languages=['cn', 'en'],
        cot=True,
        k=[4, 8, 16],
        n=48,
        reader_cfg=livemathbench_reader_cfg,
        infer_cfg=livemathbench_infer_cfg,
        eval_cfg=dict(evaluator=dict(livemathbench_evaluator, benchmark='LiveMathBench-202412')),
    )
]
