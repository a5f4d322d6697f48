r"""Planning a curtailed two-stage design exactly: its outcomes, the generations it draws, its estimator's variance.

For a question with success probability ``p`` and a design ``Curtailed(n1, n, rule)`` with stop set ``S``
(:mod:`gpassk_opencompass.curtailed`), the outcome ``(N, C)`` is

* stopped, ``N = n1``, ``C = s`` in ``S``, with probability :math:`\mathrm{Bin}(s; n_1, p)`;
* drawn on, ``N = n``, with probability
  :math:`\sum_{c_1 \notin S} \mathrm{Bin}(c_1; n_1, p)\,\mathrm{Bin}(C - c_1; n - n_1, p)
  = \mathrm{Bin}(C; n, p) \sum_{c_1 \notin S} H(c_1 | C)`, where :math:`H(c_1 | C)` is the hypergeometric law
  of stage 1's count given ``(n, C)`` (free of ``p``: one table per design, not a convolution per question);

so a question draws :math:`n_1 + (n - n_1)\,P(c_1 \notin S)` generations on average, and the within-question
variance of the curtailed estimator :math:`\hat g(N, C)` (every metric of :mod:`gpassk_opencompass.metrics`
with ``design=``) is :math:`\sum_{(N, C)} P(N, C)\,(\hat g(N, C) - \theta(p))^2`, with :math:`\theta(p)` the
latent value the fixed-n planner uses (:func:`~gpassk_opencompass.uncertainty.planner.latent_value`). The
estimator is unbiased, :math:`\sum P(N, C)\,\hat g(N, C) = \theta(p)`, so that is its variance. The design
changes only this generation noise; :func:`~gpassk_opencompass.uncertainty.planner.width_from_noise` turns it
into a half-width as for a fixed n. docs/uncertainty.md, "Curtailed designs", has the model and its checks.

>>> from gpassk_opencompass.curtailed import Curtailed
>>> design = Curtailed(16, 48, "all-wrong-or-right")
>>> expected_draws([0.0, 0.5, 1.0], design).round(3).tolist()  # 0 and 1 always stop; 1/2 almost never does
[16.0, 47.999, 16.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import positive_int
from gpassk_opencompass.curtailed import RULES, Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import DEFAULT_K, DEFAULT_THRESHOLDS, g_pass_at_k, hypergeometric_pmf, mg_pass_at_k
from gpassk_opencompass.uncertainty.bayes import score_vector
from gpassk_opencompass.uncertainty.numerics import binomial_pmf
from gpassk_opencompass.uncertainty.planner import (
    PlannedWidth,
    check_probabilities,
    latent_value,
    width_from_noise,
    within_question_variance,
)

__all__ = [
    "CurtailedPlan",
    "CurtailedWidth",
    "Outcomes",
    "check_k",
    "curtailed_plan",
    "curtailed_variance",
    "estimates",
    "expected_draws",
    "noise_ratio",
    "other_rules",
    "outcomes",
    "stop_probability",
]


@dataclass(frozen=True)
class Outcomes:
    """Every ``(N, C)`` a design can produce, and its probability per question.

    Attributes:
        drawn: ``N`` of each outcome: the stopped ones (``n1``, ``C`` in the stop set) first, then the drawn-on ones.
        correct: ``C`` of each outcome.
        probability: questions x outcomes; each row sums to 1.
    """

    drawn: np.ndarray
    correct: np.ndarray
    probability: np.ndarray


def _check(design: Curtailed) -> Curtailed:
    if not isinstance(design, Curtailed):
        raise InputError(f"design must be a Curtailed design (e.g. Curtailed.parse('16:48')); got {design!r}")
    return design


def check_k(design: Curtailed, ks: Sequence[int]) -> list[int]:
    """``ks`` as positive ints, each at most the design's ``n1``, else one :class:`InputError` line."""
    ks = [positive_int(value, "k") for value in ks]
    if not ks:
        raise InputError("ks must name at least one k")
    if max(ks) > _check(design).n1:
        raise InputError(
            f"k must be at most n1={design.n1}, the generations every question draws before {design.rule} may stop "
            f"it; got k={max(ks)} (plan a larger n1, or a smaller k)"
        )
    return ks


def outcomes(p, design: Curtailed) -> Outcomes:
    """The law of ``(N, C)`` under ``design`` for each question's success probability ``p`` (exact).

    >>> law = outcomes([0.5], Curtailed(1, 2))  # stop after one wrong draw; else draw a second
    >>> list(zip(law.drawn.tolist(), law.correct.tolist(), law.probability[0].tolist()))
    [(1, 0, 0.5), (2, 1, 0.25), (2, 2, 0.25)]
    """
    p = check_probabilities(p)
    design = _check(design)
    stops = sorted(design.stop_set)
    counts = np.arange(design.n + 1)
    on = design.admissible(design.n, counts)  # C reachable by a path that does not stop
    share = np.ones(design.n + 1)
    if stops:  # the share of (n, C)'s paths whose stage-1 count is outside S: sum, never 1 - sum (no cancellation)
        stage1 = hypergeometric_pmf(design.n, design.n1, counts)
        stage1[:, stops] = 0.0
        share = stage1.sum(axis=1)
    probability = np.concatenate(
        [binomial_pmf(design.n1, p)[:, stops], binomial_pmf(design.n, p)[:, on] * share[on]], axis=1
    )
    return Outcomes(
        drawn=np.array([design.n1] * len(stops) + [design.n] * int(on.sum()), dtype=np.int64),
        correct=np.concatenate([np.array(stops, dtype=np.int64), counts[on]]),
        probability=probability,
    )


def stop_probability(p, design: Curtailed) -> np.ndarray:
    """``P(c1 in S)`` per question: the chance it stops after stage 1."""
    p = check_probabilities(p)
    stops = sorted(_check(design).stop_set)
    return binomial_pmf(design.n1, p)[:, stops].sum(axis=1)


def expected_draws(p, design: Curtailed) -> np.ndarray:
    """Generations a question draws on average, ``n1 + (n - n1) P(c1 not in S)``, per question."""
    stopped = stop_probability(p, design)
    return design.n1 + (design.n - design.n1) * (1.0 - stopped)


def estimates(design: Curtailed, k: int, tau, law: Outcomes | None = None) -> np.ndarray:
    """The curtailed estimator at every outcome of ``design`` (in :func:`outcomes`' order); ``tau = "mG"``: mG-Pass@k.

    ``k`` above ``n1`` is refused in one line (every question draws ``n1``; the estimator needs ``k`` of them).
    """
    (k,) = check_k(design, [k])
    score_vector(k, tau)  # validates tau ("mG" or a threshold)
    law = law if law is not None else outcomes([0.5], design)
    if isinstance(tau, str):
        return np.asarray(mg_pass_at_k(law.drawn, law.correct, k, design), dtype=np.float64)
    return np.asarray(g_pass_at_k(law.drawn, law.correct, k, tau, design), dtype=np.float64)


def curtailed_variance(p, design: Curtailed, k: int, tau, law: Outcomes | None = None) -> np.ndarray:
    r"""Exact :math:`\sum_{(N, C)} P(N, C)\,(\hat g(N, C) - \theta(p))^2` per question ([0, 1]^2 units).

    ``law``: :func:`outcomes` of the same ``p`` and design, when already computed.

    With ``n1 == n`` nothing stops and this is the fixed-n variance:

    >>> from gpassk_opencompass.uncertainty.planner import within_question_variance
    >>> curtailed_variance([0.3], Curtailed(8, 8), 4, 0.5).round(12) == within_question_variance([0.3], 8, 4, 0.5).round(12)
    array([ True])
    """
    p = check_probabilities(p)
    law = law if law is not None else outcomes(p, design)
    values = estimates(design, k, tau, law)
    theta = latent_value(p, k, tau)
    return np.maximum((law.probability * (values[None, :] - theta[:, None]) ** 2).sum(axis=1), 0.0)


def noise_ratio(p, design: Curtailed, k: int, tau) -> float:
    """Mean within-question variance under ``design`` over that of a fixed ``n = design.n``: how much noisier.

    ``1.0`` when both are 0 (every question certain), ``inf`` when only the fixed n's is.
    """
    p = check_probabilities(p)
    return _ratio(
        float(curtailed_variance(p, design, k, tau).mean()),
        float(within_question_variance(p, design.n, k, tau).mean()),
    )


def _ratio(curtailed: float, fixed: float) -> float:
    if fixed > 0:
        return curtailed / fixed
    return 1.0 if curtailed <= 0 else math.inf


@dataclass(frozen=True)
class CurtailedWidth:
    """One metric under a curtailed design against a fixed ``n`` (the design's ``n``).

    Attributes:
        key: the metric.
        questions: planned question count M.
        fixed: the planned width at a fixed ``n`` (:class:`~gpassk_opencompass.uncertainty.planner.PlannedWidth`).
        curtailed: the planned width under the design (its ``n``: the design's, the most a question draws).
        fixed_noise: mean within-question variance at the fixed ``n``, [0, 1]^2 units.
        curtailed_noise: the same under the design.
        ratio: ``curtailed_noise / fixed_noise``: how much noisier the design makes the metric.
    """

    key: str
    questions: int
    fixed: PlannedWidth
    curtailed: PlannedWidth
    fixed_noise: float
    curtailed_noise: float
    ratio: float


@dataclass(frozen=True)
class CurtailedPlan:
    """A curtailed design planned from per-question probabilities, against a fixed ``n``.

    Attributes:
        design: ``N1:N:RULE``.
        n1, n, rule: the design.
        stop_set: the stage-1 counts that stop a question under it.
        expected_draws: generations per question on average (over the questions of ``p``).
        saved: ``1 - expected_draws / n``: the share of a fixed n's generations the design saves.
        stopped: the expected share of questions stopped after stage 1.
        rows: per question count and metric, the widths and the noise ratio.
    """

    design: str
    n1: int
    n: int
    rule: str
    stop_set: tuple[int, ...]
    expected_draws: float
    saved: float
    stopped: float
    rows: tuple[CurtailedWidth, ...]


def curtailed_plan(
    p,
    design: Curtailed,
    k: Sequence[int] = DEFAULT_K,
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    *,
    questions: Sequence[int | None] = (None,),
    level: float = defaults.CI,
    include_question_sampling: bool = True,
) -> CurtailedPlan:
    """The expected generations of ``design`` and, per metric and question count, its width against a fixed n.

    A ``k`` above ``n1`` is refused in one line before any work.

    Easy, hard and even questions: stopping the all-wrong ones saves 16 % and costs only pass@k (tau = 0) precision,
    stopping the all-right ones too saves twice that and costs tau = 1's as well:

    >>> p = [0.02, 0.5, 0.98] * 10
    >>> for rule in ("all-wrong", "all-wrong-or-right"):
    ...     plan = curtailed_plan(p, Curtailed(16, 48, rule), [16], [0.0, 0.5, 1.0])
    ...     print(f"{plan.saved:.1%}", [f"{row.key} {row.ratio:.2f}x" for row in plan.rows])
    16.1% ['G-Pass@16_0.0 3.34x', 'G-Pass@16_0.5 1.00x', 'G-Pass@16_1.0 1.00x', 'mG-Pass@16 1.00x']
    32.2% ['G-Pass@16_0.0 3.34x', 'G-Pass@16_0.5 1.00x', 'G-Pass@16_1.0 3.34x', 'mG-Pass@16 1.37x']
    """
    p = check_probabilities(p)
    design = _check(design)
    ks = check_k(design, k)
    law = outcomes(p, design)
    draws = expected_draws(p, design)
    rows = []
    for draws_k in ks:
        for tau in [*list(thresholds), "mG"]:
            fixed_noise = float(within_question_variance(p, design.n, draws_k, tau).mean())
            noise = float(curtailed_variance(p, design, draws_k, tau, law).mean())
            for m in questions:
                widths = [
                    width_from_noise(
                        value,
                        p,
                        design.n,
                        draws_k,
                        tau,
                        questions=m,
                        level=level,
                        include_question_sampling=include_question_sampling,
                    )
                    for value in (fixed_noise, noise)
                ]
                rows.append(
                    CurtailedWidth(
                        key=widths[0].key,
                        questions=widths[0].questions,
                        fixed=widths[0],
                        curtailed=widths[1],
                        fixed_noise=fixed_noise,
                        curtailed_noise=noise,
                        ratio=_ratio(noise, fixed_noise),
                    )
                )
    rows.sort(key=lambda row: row.questions)  # stable: by question count, then metric as summarize orders them
    return CurtailedPlan(
        design=str(design),
        n1=design.n1,
        n=design.n,
        rule=design.rule,
        stop_set=tuple(sorted(design.stop_set)),
        expected_draws=float(draws.mean()),
        saved=float(1.0 - draws.mean() / design.n),
        stopped=float(stop_probability(p, design).mean()),
        rows=tuple(rows),
    )


def other_rules(design: Curtailed) -> list[Curtailed]:
    """The same ``n1`` and ``n`` under every other rule of :data:`gpassk_opencompass.curtailed.RULES`."""
    return [replace(design, rule=rule) for rule in RULES if rule != design.rule]
