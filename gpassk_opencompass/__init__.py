"""G-Pass@k for OpenCompass: exact metrics, judges, evaluator plugin, config generator, leaderboard.

The metric card's interface (Hugging Face ``evaluate``'s "gpassk"): :func:`~gpassk_opencompass.card.compute`
takes each question's generations and its reference, judges them (by the rule judge, or the card's
``check_correct_fn``) and returns the card's dict, on the 0-1 scale; :data:`EVALUATE_SCRIPT` is the same
as an ``evaluate`` metric script (``evaluate.load(EVALUATE_SCRIPT)``):

>>> from gpassk_opencompass import compute
>>> compute([["a", "b", "a", "a"]], ["a"], k=[2], thresholds=[1.0], check_correct_fn=lambda pred, ref: pred == ref)
{'G-Pass@2_1.0': 0.5, 'mG-Pass@2': 0.5}

The metric functions are importable from the top level and need only numpy:

>>> from gpassk_opencompass import g_pass_at_k, mg_pass_at_k
>>> round(float(g_pass_at_k(n=48, c=30, k=16, tau=0.5)), 6), round(float(mg_pass_at_k(48, 30, 16)), 6)
(0.942327, 0.259245)

The rest is imported on first access (``dir()`` lists it), so ``import gpassk_opencompass`` stays cheap
and works without OpenCompass installed (the core install: ``pip install gpassk-opencompass``; the
plugin: ``pip install 'gpassk-opencompass[opencompass]'``): the card's ``compute``, the OpenCompass
plugin (:class:`GPassKEvaluator`, the LiveMathBench dataset), the Python API of ``gpassk score``
(:func:`~gpassk_opencompass.scoring.flow.score`, :func:`~gpassk_opencompass.scoring.flow.score_file`,
:func:`~gpassk_opencompass.judges.registry.judge_settings`) and its types
(:class:`~gpassk_opencompass.scoring.questions.Question`,
:class:`~gpassk_opencompass.scoring.results.ResultsFile`, :class:`~gpassk_opencompass.judges.Judge`,
:class:`~gpassk_opencompass.judges.JudgeSettings`, :class:`~gpassk_opencompass.scoring.request.ScoringRequest`).
The library logs nothing until its caller turns its records on
(:func:`~gpassk_opencompass.log.enable_logging`; the ``gpassk`` CLI does):

>>> from gpassk_opencompass import score
>>> results = score([{"id": "q", "question": "", "answer": "a", "predictions": ["a", "b", "a", "a"]}], k=[2],
...                 judge=lambda pred, ref: pred == ref, thresholds=[1.0], progress=False)
>>> results.complete, round(results.metrics["G-Pass@2_1.0"], 4)
(True, 50.0)
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:  # the lazy names below, as type checkers see them
    from gpassk_opencompass.card import EVALUATE_SCRIPT, compute
    from gpassk_opencompass.judges import Judge, JudgeSettings
    from gpassk_opencompass.judges.registry import judge_settings
    from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
    from gpassk_opencompass.plugin.evaluator import GPassKEvaluator
    from gpassk_opencompass.scoring.flow import score, score_file
    from gpassk_opencompass.scoring.questions import Question
    from gpassk_opencompass.scoring.request import ScoringRequest
    from gpassk_opencompass.scoring.results import ResultsFile

__version__ = "0.1.0"

# public name -> module that defines it (imported on first access only: they import OpenCompass, or the judges)
_LAZY = {
    "EVALUATE_SCRIPT": ".card",
    "compute": ".card",
    "GPassKEvaluator": ".plugin.evaluator",
    "LiveMathBenchDataset": ".plugin.datasets.livemathbench",
    "Judge": ".judges",
    "JudgeSettings": ".judges",
    "Question": ".scoring.questions",
    "ResultsFile": ".scoring.results",
    "ScoringRequest": ".scoring.request",
    "judge_settings": ".judges.registry",
    "score": ".scoring.flow",
    "score_file": ".scoring.flow",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpassk_opencompass' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


def __dir__() -> list[str]:
    """The public names (``__all__``, the lazy ones included) and the module's own dunders, not its imports."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


__all__ = [
    "DEFAULT_THRESHOLDS",
    "EVALUATE_SCRIPT",
    "GPassKEvaluator",
    "Judge",
    "JudgeSettings",
    "LiveMathBenchDataset",
    "Question",
    "ResultsFile",
    "ScoringRequest",
    "compute",
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
