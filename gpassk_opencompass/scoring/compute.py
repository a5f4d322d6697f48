"""Computing a results document: the metrics of judged questions, their intervals, and the document itself.

:func:`gpassk_results` computes accuracy, G-Pass@k_tau and mG-Pass@k overall and per subset (with the
bootstrap intervals of the overall ones); :func:`results_document` builds the
:class:`~gpassk_opencompass.scoring.results.ResultsFile` of a scoring from them, the judge's report and the
:class:`~gpassk_opencompass.scoring.details.CompactDetails`, with the ranges of an incomplete one
(:func:`unresolved_bounds`) and its most frequent unresolved reasons.

>>> results = gpassk_results([2, 4], 4, ks=[2], thresholds=[1.0], subsets={"language": ["en", "cn"]})
>>> {key: round(value, 4) for key, value in results.metrics.items()}
{'accuracy (4 runs average)': 75.0, 'G-Pass@2_1.0': 58.3333, 'mG-Pass@2': 58.3333, 'en/accuracy (4 runs average)': 50.0, 'en/G-Pass@2_1.0': 16.6667, 'en/mG-Pass@2': 16.6667, 'cn/accuracy (4 runs average)': 100.0, 'cn/G-Pass@2_1.0': 100.0, 'cn/mG-Pass@2': 100.0}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from gpassk_opencompass.checks import open_unit
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.defaults import CI, N_BOOT
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import Judge, JudgeReport
from gpassk_opencompass.log import logger
from gpassk_opencompass.metrics import (
    DEFAULT_THRESHOLDS,
    accuracy_key,
    check_arguments,
    summarize,
    summarize_uncertainty,
)
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.scoring.cut import Ends
from gpassk_opencompass.scoring.details import CompactDetails
from gpassk_opencompass.scoring.results import (
    SCHEMA_VERSION,
    CacheUse,
    Curtailment,
    CutGenerations,
    GPassKBlock,
    Interval,
    ResultsFile,
)
from gpassk_opencompass.uncertainty.bayes import BayesEstimate

#: Warn when at least this share of questions got n byte-identical generations.
IDENTICAL_SHARE_WARNING = 0.5
#: How many of the most frequent unresolved reasons are recorded and shown.
TOP_REASONS = 5


@dataclass(frozen=True)
class GPassKResults:
    """The metrics of one set of judged questions.

    Attributes:
        metrics: ordered ``{key: value x 100}``: accuracy, G-Pass@k_tau and
            mG-Pass@k overall, then ``{subset}/{key}`` per subset label.
        uncertainty: per overall key, its bootstrap :class:`Interval` (x 100).
        n: generations per question, ``None`` when it varies.
    """

    metrics: dict[str, float]
    uncertainty: dict[str, Interval]
    n: int | None


def gpassk_results(
    counts: ArrayLike,
    n,
    ks: Sequence[int],
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    subsets: Mapping[str, Sequence[str]] | None = None,
    *,
    ci: float = CI,
    n_boot: int = N_BOOT,
    seed: int = 0,
    bootstrap: bool = True,
    design: Curtailed | None = None,
    validate_args: bool = True,
) -> GPassKResults:
    """Accuracy, G-Pass@k_tau and mG-Pass@k overall and per subset, OpenCompass keys.

    Args:
        counts: correct generations per question.
        n: generations per question (one int, or one per question).
        ks: the k values (each <= every n).
        thresholds: the tau values.
        subsets: ``{column: one label per question}`` (e.g. split, language);
            each label gets its own ``{label}/{key}`` metrics, and with two or
            more columns each combination of labels too (``CNMO_en``).
        ci, n_boot, seed: the bootstrap interval of the overall metrics.
        bootstrap: compute the bootstrap intervals (else ``uncertainty`` is empty).
        design: the curtailed design the generations were drawn under (``None``: a fixed n); every value,
            accuracy too, is then its unbiased estimate, and accuracy keeps the key of its ``n``.
        validate_args: ``False`` where the caller checked them where they entered (the flow: the
            :class:`~gpassk_opencompass.scoring.request.ScoringRequest` and ``check_questions``); else they are
            checked once, here (:func:`~gpassk_opencompass.metrics.check_arguments`), and every metric below trusts them.

    Raises:
        InputError: naming the bad value (from :mod:`~gpassk_opencompass.metrics`).
    """
    if validate_args:  # checked once; every call below takes them as checked
        ci = open_unit(ci, "ci") if bootstrap else ci
        counts, n, ks, thresholds = check_arguments(counts, n, ks, thresholds, n_boot=n_boot if bootstrap else None)
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    uniform = _uniform(n_array)
    key = accuracy_key(uniform if design is None else design.n)
    subsets = dict(subsets or {})
    for column, labels in subsets.items():
        if len(labels) != len(counts):
            raise InputError(f"subset column {column!r} has {len(labels)} labels for {len(counts)} questions")

    if bootstrap:  # the estimates' means are the metrics: each mean computed once
        options: dict[str, Any] = dict(ci=ci, n_boot=n_boot, seed=seed, design=design, validate_args=False)
        accuracy = summarize_uncertainty(counts, n_array, [1], [1.0], **options)["G-Pass@1_1.0"]
        estimates = summarize_uncertainty(counts, n_array, ks, thresholds, **options)
        metrics = {key: _accuracy(counts, n_array, design)}
        metrics.update((key, estimate.mean) for key, estimate in estimates.items())
        uncertainty = {key: Interval.from_estimate(accuracy)}
        uncertainty.update((key, Interval.from_estimate(estimate)) for key, estimate in estimates.items())
    else:
        metrics, uncertainty = overall_metrics(counts, n_array, ks, thresholds, design, validate_args=False), {}
    for label, members in _subset_members(subsets).items():
        subset = (counts[members], n_array[members], ks, thresholds, design)
        for key, value in overall_metrics(*subset, validate_args=False).items():
            metrics[f"{label}/{key}"] = value
    return GPassKResults(metrics=metrics, uncertainty=uncertainty, n=uniform)


def overall_metrics(
    counts: ArrayLike,
    n,
    ks: Sequence[int],
    thresholds: Sequence,
    design: Curtailed | None = None,
    *,
    validate_args: bool = True,
) -> dict[str, float]:
    """Accuracy, then every requested G-Pass@k_tau and mG-Pass@k (also for k = 1), x 100, one set of questions
    (under ``design``: its unbiased estimates, :func:`gpassk_results`; ``validate_args`` as there).

    >>> overall_metrics([1, 2], 2, ks=[1], thresholds=[1.0])
    {'accuracy (2 runs average)': 75.0, 'G-Pass@1_1.0': 75.0, 'mG-Pass@1': 0.0}
    """
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    if validate_args:
        counts, n_array, ks, thresholds = check_arguments(counts, n_array, ks, thresholds)
    values = {accuracy_key(_uniform(n_array) if design is None else design.n): _accuracy(counts, n_array, design)}
    values.update(summarize(counts, n_array, ks, thresholds, design, validate_args=False))
    return values


def _uniform(n_array: np.ndarray) -> int | None:
    """The one n of every question, ``None`` when it varies (or there are none)."""
    return int(n_array[0]) if n_array.size and (n_array == n_array[0]).all() else None


def _accuracy(counts: np.ndarray, n_array: np.ndarray, design: Curtailed | None = None) -> float:
    """Mean c/n, x 100; under a curtailed design pass@1's unbiased estimate (c/N after its stop is biased)."""
    if design is None:
        return float(100 * np.mean(counts / n_array))
    return summarize(counts, n_array, [1], [1.0], design, validate_args=False)["G-Pass@1_1.0"]


def unresolved_bounds(
    details: CompactDetails, ks: Sequence[int], thresholds: Sequence, design: Curtailed | None = None
) -> dict[str, tuple[float, float]]:
    """Per overall metric, ``[value if every unresolved verdict is wrong, value if every one is right]``.

    Both ends are exact (the same metric functions on the counts ``c`` and
    ``c + unresolved`` per question); every metric is non-decreasing in ``c``,
    so the true value lies between them. Under a curtailed ``design`` the ends are the least and the most count
    it can have produced (:meth:`~gpassk_opencompass.curtailed.Curtailed.resolutions`). ``ks`` and ``thresholds``
    are the flow's, checked where they entered, and not checked again.

    >>> from gpassk_opencompass.judges.types import Verdict
    >>> verdicts = [Verdict(True, "1", "ok", "rule"), Verdict(None, None, "timed out", "rule"), Verdict(False)]
    >>> unresolved_bounds(CompactDetails(["a", "b"], {}, verdicts, [0, 1, 1, 2, 0, 0, 0, 0], [0, 4, 8]), [4], [1.0])
    {'accuracy (4 runs average)': (62.5, 87.5), 'G-Pass@4_1.0': (50.0, 50.0), 'mG-Pass@4': (50.0, 75.0)}
    """
    low, high = resolved_counts(details, design)
    lows = overall_metrics(low, details.n, ks, thresholds, design, validate_args=False)  # checked by the flow
    highs = overall_metrics(high, details.n, ks, thresholds, design, validate_args=False)
    return {key: (lows[key], highs[key]) for key in lows}


def resolved_counts(details: CompactDetails, design: Curtailed | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per question the correct count with every unresolved verdict wrong, and with every one right (under a
    curtailed ``design``: as far as it allows). The metrics are computed on the first."""
    if design is None:
        return details.c, details.c + details.unresolved
    return design.resolutions(details.n, details.c, details.unresolved)


def unresolved_reasons(details: CompactDetails, top: int = TOP_REASONS) -> list[tuple[str, int]]:
    """The most frequent reasons of unresolved verdicts, ``[(reason, count), ...]`` (redacted), counted per generation.

    >>> from gpassk_opencompass.judges.types import Verdict
    >>> unknown = Verdict(None, None, "timed out", "rule")
    >>> unresolved_reasons(CompactDetails(["q1"], {}, [unknown, Verdict(True, "1", "ok", "rule")], [0, 1, 0], [0, 3]))
    [('timed out', 2)]
    """
    uses = np.bincount(details.slot_array(), minlength=len(details.verdicts)).tolist()
    counted: Counter[str] = Counter()
    for verdict, count in zip(details.verdicts, uses):
        if verdict.correct is None and count:
            counted[redact(verdict.reason)] += count
    return counted.most_common(top)


def _subset_members(subsets: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
    """``{label: boolean mask over questions}``, single columns first, then their combinations."""
    members: dict[str, np.ndarray] = {}
    columns = [np.asarray([str(label) for label in labels]) for labels in subsets.values()]
    for column, labels in zip(subsets, columns):
        for label in dict.fromkeys(labels.tolist()):
            name = label if label not in members else f"{column}={label}"  # two columns share a label
            members[name] = labels == label
    if len(columns) > 1:
        combined = list(zip(*(labels.tolist() for labels in columns)))
        for combination in dict.fromkeys(combined):
            members["_".join(combination)] = np.array([row == combination for row in combined])
    return members


def warn_if_identical(share: float, threshold: float = IDENTICAL_SHARE_WARNING) -> None:
    """Log a loud warning when replicas look like copies of each other."""
    if share >= threshold and share > 0:
        logger.warning(
            f"{share:.0%} of questions got byte-identical generations: the samples were probably "
            "drawn with one fixed seed, which collapses every G-Pass@k_tau to accuracy. Give each "
            "replica its own seed (or none) and sample with temperature > 0."
        )


def results_document(
    results: GPassKResults,
    judged: JudgeReport,
    judge: Judge,
    *,
    ks: Sequence[int],
    thresholds: Sequence,
    benchmark: str | None,
    identical: float,
    details: CompactDetails,
    allow_unresolved: bool = False,
    bayes: Mapping[str, BayesEstimate] | None = None,
    ends: Ends | None = None,
    curtail: Curtailment | None = None,
) -> ResultsFile:
    """The whole result: metric keys (when trustworthy), ``unresolved``, the ``gpassk`` block, then ``details``.

    Args:
        results: the metrics, computed on the resolved-correct counts.
        judged: the judge's report (its ``stats.unresolved`` decides completeness).
        judge: the judge (recorded as its :meth:`~gpassk_opencompass.judges.Judge.identity`).
        ks, thresholds, benchmark, identical, details: recorded as given.
        allow_unresolved: keep the metric keys (and intervals) even with
            unresolved verdicts; they then count those as wrong, and
            ``gpassk.complete`` is false and ``gpassk.bounds`` gives the range.
        bayes: the ``gpassk.bayes`` block
            (:func:`~gpassk_opencompass.uncertainty.bayes.bayes_interval_counts`), when asked for;
            left out, as the metrics, when they are withheld.
        ends: the cut generations (:func:`~gpassk_opencompass.scoring.cut.count_ends`), recorded as ``gpassk.cut``.
        curtail: the curtailed design and what it saved, recorded as ``gpassk.curtail``.

    The judge's verdict cache, when it kept one, is recorded as ``gpassk.cache`` (its file, the verdicts it gave).

    What is written is redacted (:func:`~gpassk_opencompass.scoring.results_io.json_document`).
    """
    unresolved = int(judged.stats.unresolved)
    complete = unresolved == 0
    keep_metrics = complete or allow_unresolved
    # The fields written only when they apply (one never set is left out, not null); the model checks their values.
    when_apply: dict[str, Any] = dict(judge.identity())  # rule_checker, judge_hosts: per judge kind
    if bayes is not None and keep_metrics:
        when_apply["bayes"] = dict(bayes)
    if not complete:
        when_apply["bounds"] = unresolved_bounds(details, ks, thresholds, None if curtail is None else curtail.design)
    if curtail is not None:
        when_apply["curtail"] = curtail
    if judge.cache_path is not None:  # which cache answered, and how much of the run it answered
        when_apply["cache"] = CacheUse(file=str(judge.cache_path), verdicts=judged.stats.cached)
    if ends is not None:
        when_apply["cut"] = CutGenerations(
            generations=ends.generations,
            cut=int(ends.cut.sum()),
            no_answer=int(ends.no_answer.sum()),
            recorded=ends.recorded,
            source=ends.source,
        )
    info = GPassKBlock(
        benchmark=benchmark,
        k=[int(k) for k in ks],
        n=results.n,
        questions=len(details),
        thresholds=[float(tau) for tau in thresholds],
        prompt_version=judged.prompt_version,
        uncertainty=dict(results.uncertainty) if keep_metrics else {},
        judge_stats=judged.stats.as_dict(),
        identical_replicas_share=identical,
        schema_version=SCHEMA_VERSION,
        complete=complete,
        unresolved=unresolved,
        allow_unresolved=bool(allow_unresolved),
        unresolved_reasons=unresolved_reasons(details),
        **when_apply,
    )
    header = ResultsFile(**(results.metrics if keep_metrics else {}), unresolved=unresolved, gpassk=info, details=())
    return header.model_copy(update={"details": details})  # validated: each record is built when read
