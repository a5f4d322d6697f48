"""LiveMathBench-Hard-202412: the hard split of the December 2024 release (21 English + 24 Chinese questions)."""

from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset

with read_base():
    from .livemathbench_common import livemathbench_evaluator, livemathbench_infer_cfg, livemathbench_reader_cfg

livemathbench_hard_202412_datasets = [
    dict(
        type=LiveMathBenchDataset,
        abbr='LiveMathBench-Hard-202412',
        path='opencompass/LiveMathBench',
        version='202412',
        dataset_splits=['hard'],
        dataset_languages=['cn', 'en'],
        cot=True,
        k=[4, 8, 16],
        n=48,
        reader_cfg=livemathbench_reader_cfg,
        infer_cfg=livemathbench_infer_cfg,
        eval_cfg=dict(evaluator=dict(livemathbench_evaluator, benchmark='LiveMathBench-Hard-202412')),
    )
]
