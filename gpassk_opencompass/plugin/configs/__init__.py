"""OpenCompass dataset configs for the leaderboard benchmarks, one module per benchmark.

Each module ``<name>`` defines ``<name>_datasets`` (a one-element list) scored
by :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` with the benchmark's
canonical name.  Use them from your own OpenCompass config::

    from mmengine.config import read_base

    with read_base():
        from gpassk_opencompass.plugin.configs.livemathbench_202412 import livemathbench_202412_datasets

    datasets = livemathbench_202412_datasets

The ``*_common`` modules hold the parts several benchmarks share.
"""
