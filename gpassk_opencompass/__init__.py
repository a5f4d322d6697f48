"""G-Pass@k for OpenCompass: exact metrics, judges, evaluator plugin, config generator, leaderboard.

The metric functions are importable from the top level and need only numpy:

>>> from gpassk_opencompass import g_pass_at_k, mg_pass_at_k
>>> round(float(g_pass_at_k(n=48, c=30, k=16, tau=0.5)), 6), round(float(mg_pass_at_k(48, 30, 16)), 6)
(0.942327, 0.259245)

The OpenCompass plugin (:class:`GPassKEvaluator`, the LiveMathBench dataset)
is exposed lazily: it is imported on first access, so ``import
gpassk_opencompass`` stays cheap and works without OpenCompass installed (the
core install: ``pip install gpassk-opencompass``; the plugin:
``pip install 'gpassk-opencompass[opencompass]'``).
"""

from importlib import import_module

from gpassk_opencompass.metrics import (
    DEFAULT_THRESHOLDS,
    g_pass_at_k,
    mg_pass_at_k,
    mg_pass_at_k_integral,
    pass_at_k,
    required_correct,
    summarize,
    summarize_uncertainty,
)

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access only: they import OpenCompass)
_LAZY = {
    "GPassKEvaluator": ".plugin.evaluator",
    "LiveMathBenchDataset": ".plugin.datasets.livemathbench",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpassk_opencompass' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


__all__ = [
    "DEFAULT_THRESHOLDS",
    "GPassKEvaluator",
    "LiveMathBenchDataset",
    "g_pass_at_k",
    "mg_pass_at_k",
    "mg_pass_at_k_integral",
    "pass_at_k",
    "required_correct",
    "summarize",
    "summarize_uncertainty",
]
