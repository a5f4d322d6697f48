"""G-Pass@k for OpenCompass: exact metrics, judges, evaluator plugin, configs.

The pure math lives in :mod:`gpassk_opencompass.metrics` and imports neither
OpenCompass nor torch.  The OpenCompass glue (evaluator, dataset) is exposed
lazily so ``import gpassk_opencompass`` stays cheap.
"""

from importlib import import_module

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access only)
_LAZY = {
    "GPassKEvaluator": ".evaluator",
    "LiveMathBenchDataset": ".datasets.livemathbench",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpassk_opencompass' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


__all__ = sorted(_LAZY)
