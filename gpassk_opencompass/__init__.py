"""G-Pass@k for OpenCompass: exact metrics, judges, evaluator plugin, config generator, leaderboard.

The metric functions are importable from the top level and need only numpy:

>>> from gpassk_opencompass import g_pass_at_k, mg_pass_at_k
>>> round(float(g_pass_at_k(n=48, c=30, k=16, tau=0.5)), 6), round(float(mg_pass_at_k(48, 30, 16)), 6)
(0.942327, 0.259245)

The OpenCompass plugin (:class:`GPassKEvaluator`, the LiveMathBench dataset)
is exposed lazily: it is imported on first access, so ``import
gpassk_opencompass`` stays cheap and works without OpenCompass installed (the
core install: ``pip install gpassk-opencompass``; the plugin:
``pip install 'gpassk-opencompass[opencompass]'``). So are the Python API of
``gpassk score`` (:func:`~gpassk_opencompass.scoring.flow.score`,
:func:`~gpassk_opencompass.scoring.flow.score_file`,
:func:`~gpassk_opencompass.scoring.flow.judge_settings`) and its types
(:class:`~gpassk_opencompass.judges.Judge`,
:class:`~gpassk_opencompass.judges.JudgeSettings`,
:class:`~gpassk_opencompass.scoring.request.ScoringRequest`): the metric card's
``check_correct_fn`` works as it does there (see docs/scoring.md):

>>> from gpassk_opencompass import score
>>> results = score([{"id": "q", "question": "", "answer": "a", "predictions": ["a", "b", "a", "a"]}], k=[2],
...                 judge=lambda pred, ref: pred == ref, thresholds=[1.0], progress=False)
>>> results.complete, round(results.metrics["G-Pass@2_1.0"], 4)
(True, 50.0)
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

# public name -> module that defines it (imported on first access only: they import OpenCompass, or the judges)
_LAZY = {
    "GPassKEvaluator": ".plugin.evaluator",
    "LiveMathBenchDataset": ".plugin.datasets.livemathbench",
    "Judge": ".judges",
    "JudgeSettings": ".judges",
    "ScoringRequest": ".scoring.request",
    "judge_settings": ".scoring.flow",
    "score": ".scoring.flow",
    "score_file": ".scoring.flow",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpassk_opencompass' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


__all__ = [
    "DEFAULT_THRESHOLDS",
    "GPassKEvaluator",
    "Judge",
    "JudgeSettings",
    "LiveMathBenchDataset",
    "ScoringRequest",
    "g_pass_at_k",
    "judge_settings",
    "mg_pass_at_k",
    "mg_pass_at_k_integral",
    "pass_at_k",
    "required_correct",
    "score",
    "score_file",
    "summarize",
    "summarize_uncertainty",
]
