"""LiveMathBench-Hard-202505: the hard split of the May 2025 release (English only)."""

from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset

with read_base():
    from .livemathbench_common import livemathbench_evaluator, livemathbench_infer_cfg, livemathbench_reader_cfg

livemathbench_hard_202505_datasets = [
    dict(
        type=LiveMathBenchDataset,
        abbr='LiveMathBench-Hard-202505',
        path='opencompass/LiveMathBench',
        version='202505',
        dataset_splits=['hard'],
        dataset_languages=['en'],
        cot=True,
        k=[4, 8, 16],
        n=48,
        reader_cfg=livemathbench_reader_cfg,
        infer_cfg=livemathbench_infer_cfg,
        eval_cfg=dict(evaluator=dict(livemathbench_evaluator, benchmark='LiveMathBench-Hard-202505')),
    )
]
