"""The G-Pass@k metric card's interface: ``compute(predictions, references, k, thresholds, check_correct_fn)``.

The metric card (Hugging Face ``evaluate``'s "gpassk", Liu et al., 2024, https://arxiv.org/abs/2412.13147)
takes each question's generations and its reference, and returns G-Pass@k_tau for every k and tau and
mG-Pass@k for every k, as a dict on the 0-1 scale. :func:`compute` takes the same arguments and returns the
same keys in the same order; :data:`EVALUATE_SCRIPT` is it as an ``evaluate`` metric script, so
``evaluate.load(EVALUATE_SCRIPT)`` stands in for the card's ``evaluate.load("gpassk")``.

It is :func:`~gpassk_opencompass.scoring.flow.score` on questions held in memory (each generation judged
once, by the rule judge unless ``check_correct_fn`` is given), then the means of
:mod:`~gpassk_opencompass.metrics` over the questions' counts. May import: :mod:`~gpassk_opencompass.scoring`,
:mod:`~gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.errors` (the judges' types in annotations only);
the script also imports ``evaluate``
and ``datasets`` (the ``evaluate`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpassk_opencompass import metrics
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.flow import score

if TYPE_CHECKING:
    from gpassk_opencompass.judges import CheckCorrectFn
    from gpassk_opencompass.scoring.details import QuestionRecord

#: The card's thresholds: OpenCompass's (:data:`~gpassk_opencompass.metrics.DEFAULT_THRESHOLDS`) without 0.
THRESHOLDS: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)

#: The Hugging Face ``evaluate`` metric script shipped in the package (``evaluate.load`` takes its path).
EVALUATE_SCRIPT: str = str(Path(__file__).with_name("gpassk.py"))

__all__ = ["EVALUATE_SCRIPT", "THRESHOLDS", "compute"]


def compute(
    predictions: Sequence[Sequence[str]],
    references: Sequence[str],
    k: int | Sequence[int] | None = None,
    thresholds: Sequence[float] = THRESHOLDS,
    check_correct_fn: CheckCorrectFn | None = None,
) -> dict[str, float]:
    """G-Pass@k_tau and mG-Pass@k, averaged over questions, as the metric card computes them.

    Args:
        predictions: per question, its generations (n of them; n may differ between questions).
        references: per question, its correct answer.
        k: the k value(s), each at most every question's n. By default the card's (4, 8, 16), less any
            above the fewest generations of a question (the card would report those as 0;
            :func:`~gpassk_opencompass.metrics.k_or_default`).
        thresholds: the tau values, each in [0, 1].
        check_correct_fn: ``check_correct_fn(pred, ref) -> bool``; by default the rule judge
            (:mod:`~gpassk_opencompass.judges.rule`: the final answer, compared by math-verify). Any
            judge :func:`~gpassk_opencompass.scoring.flow.score` takes works too (``"llm"``, a ``Judge``).

    Returns:
        ``{"G-Pass@{k}_{tau}": ..., "mG-Pass@{k}": ...}`` on the 0-1 scale: every G-Pass key (per k, per tau)
        first, then every mG-Pass key, as the card orders them.

    Raises:
        InputError: a bad input (before anything is judged), or a prediction that could not be judged
            (``check_correct_fn`` raised or returned something else than ``True``/``False``; the rule
            judge could not decide): it names the question, and no number is given over unjudged predictions.

    The card's worked example gives the card's published output, each value within a relative 2e-15 of
    the card's (its values are scipy's sums, these the package's; both are within 3e-16 of the exact
    rationals):

    >>> predictions = [["a", "b", "a", "a", "b", "a", "b", "c", "a", "c", "b", "a", "a", "b", "a", "b"]]
    >>> references = ["a"]
    >>> check_correct_fn = lambda pred, ref: pred == ref
    >>> g_pass_at_k = compute(predictions=predictions, references=references, k=[4, 8], check_correct_fn=check_correct_fn)
    >>> print(g_pass_at_k)
    {'G-Pass@4_0.25': 0.9615384615384616, 'G-Pass@4_0.5': 0.7153846153846154, 'G-Pass@4_0.75': 0.2846153846153846, 'G-Pass@4_1.0': 0.03846153846153846, 'G-Pass@8_0.25': 0.9949494949494948, 'G-Pass@8_0.5': 0.6903651903651903, 'G-Pass@8_0.75': 0.06596736596736595, 'G-Pass@8_1.0': 7.770007770007778e-05, 'mG-Pass@4': 0.16153846153846152, 'mG-Pass@8': 0.09518259518259517}

    A prediction nobody could judge is an error naming it, never a silent number:

    >>> def strict(pred, ref):
    ...     if pred == "c":
    ...         raise ValueError("no rule for c")
    ...     return pred == ref
    >>> compute(predictions, references, k=[4], check_correct_fn=strict)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: predictions[0][7] could not be judged: python:...strict raised ValueError: no rule for c (2 of the 16 predictions of question 0); compute gives no number over unjudged predictions: give a check_correct_fn that returns True or False for each prediction
    """
    if len(predictions) != len(references):
        raise InputError(
            f"predictions and references must pair up (one list of predictions per reference); "
            f"got {len(predictions)} lists of predictions and {len(references)} references"
        )
    # the default k needs n; a question whose predictions are not a list is refused by score() just after
    n = [len(generations) for generations in predictions if isinstance(generations, (list, tuple))]
    k = metrics.k_or_default(k, n or metrics.DEFAULT_K)
    results = score(
        [
            {"id": str(index), "question": "", "answer": reference, "predictions": generations}
            for index, (generations, reference) in enumerate(zip(predictions, references))
        ],
        k=k,
        thresholds=thresholds,
        judge="rule" if check_correct_fn is None else check_correct_fn,
        cache=False,
        progress=False,
    )
    records = tuple(results.details)
    _check_judged(records)
    counts, n = [record.c for record in records], [record.n for record in records]
    # k and the thresholds were checked by score() (its request), the counts are its own: not checked again
    keys, values, _, _ = metrics.per_question_values(counts, n, results.gpassk.k, thresholds, validate_args=False)
    means = dict(zip(keys, values.mean(axis=0).tolist()))
    return {key: means[key] for key in sorted(means, key=lambda key: key.startswith("mG-"))}


def _check_judged(records: Sequence[QuestionRecord]) -> None:
    """Raise :class:`InputError` naming the first prediction that could not be judged, if any."""
    for question, record in enumerate(records):
        if record.unresolved:
            position, verdict = next(
                (position, verdict) for position, verdict in enumerate(record.verdicts) if verdict.correct is None
            )
            raise InputError(
                f"predictions[{question}][{position}] could not be judged: {verdict.reason} ({record.unresolved} "
                f"of the {record.n} predictions of question {question}); compute gives no number over unjudged "
                "predictions: give a check_correct_fn that returns True or False for each prediction"
            )
