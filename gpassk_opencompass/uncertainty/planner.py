r"""Sample-size planning: the interval half-width to expect at n generations, and the smallest n for a target.

:math:`\mathrm{Var}[\hat G] = (\overline{V(n)} + \sigma^2_\theta)/M`: the within-question variance of the exact
estimator, summed over ``c = 0..n`` with binomial weights (non-increasing in ``n``, which :func:`smallest_n`
relies on), plus the spread of the pilot's latent values (dropped for a fixed question set); the half-width is
:math:`z\sqrt{\mathrm{Var}}` x 100. :func:`pilot_probabilities` takes the Beta posterior mean of each pilot
question (``prior=None``: the raw fractions). The model: docs/uncertainty.md, "Sample-size planner".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import is_int, is_number, open_unit, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import (
    DEFAULT_K,
    DEFAULT_THRESHOLDS,
    g_pass_at_k,
    metric_key,
    mg_metric_key,
    mg_pass_at_k,
)
from gpassk_opencompass.uncertainty.bayes import counts_from_matrix, score_vector
from gpassk_opencompass.uncertainty.numerics import binomial_pmf, check_counts, check_prior

__all__ = [
    "PlannedWidth",
    "check_probabilities",
    "expected_half_width",
    "latent_value",
    "metric_key_of",
    "pilot_probabilities",
    "plan_table",
    "smallest_n",
    "uninformative_pilot",
    "width_from_noise",
    "within_question_variance",
]


@dataclass(frozen=True)
class PlannedWidth:
    """The planned uncertainty of one metric at ``n`` generations and ``questions`` questions.

    Attributes:
        key: the metric, keyed like :func:`~gpassk_opencompass.metrics.summarize`.
        n: generations per question.
        questions: number of questions M.
        std: planned standard deviation of the benchmark estimate, x 100.
        half_width: ``z * std``, x 100 (percentage points).
        level: the interval's level.
        include_question_sampling: whether the between-question part is included.
    """

    key: str
    n: int
    questions: int
    std: float
    half_width: float
    level: float
    include_question_sampling: bool


# --------------------------------------------------------------------------
# inputs


def pilot_probabilities(counts, n=None, *, prior=defaults.PRIOR) -> np.ndarray:
    r"""Per-question success probabilities from a pilot, shrunk by a Beta prior.

    Args:
        counts: correct generations per question (1-D, with ``n``), or a
            questions x generations verdict matrix (None/NaN unresolved).
        n: generations per question with 1-D counts (int or one per question).
        prior: ``(alpha0, beta0)``; ``p_i = (c_i + alpha0) / (n_i + alpha0 + beta0)``,
            the posterior mean. ``None`` gives the raw ``c_i / n_i``.

    >>> pilot_probabilities([0, 4, 8], 8).tolist()
    [0.1, 0.5, 0.9]
    >>> pilot_probabilities([[1, 0, None], [1, 1, 1]], prior=None).tolist()
    [0.5, 1.0]
    """
    if np.ndim(counts) == 2:
        if n is not None:
            raise InputError("n must be omitted with a verdict matrix (each row's resolved count is its n)")
        c, n_array = counts_from_matrix(counts)
    else:
        if n is None:
            raise InputError("n (generations per question) is required with 1-D counts")
        c, n_array = check_counts(counts, n)
    if prior is None:
        if (n_array == 0).any():
            raise InputError("a question has no resolved generations; its raw c/n is undefined (use a prior)")
        return c / n_array
    alpha0, beta0 = check_prior(prior)
    return (c + alpha0) / (n_array + alpha0 + beta0)


def uninformative_pilot(counts, n) -> str | None:
    """Why a pilot cannot inform a plan, in one sentence; ``None`` when it can.

    A pilot whose resolved answers are all wrong (a first run of a small model) or all right tells no
    question from another: each one's probability is the prior's guess, the same for every question, so
    widths planned from it say nothing about this model (they come out near zero). The one home of this
    warning: ``gpassk plan`` shows it, and so may anything else planned from a pilot.

    Args:
        counts: correct generations per question.
        n: *resolved* generations per question (an int, or one per question).

    >>> print(uninformative_pilot([0, 0, 0], 8).split(": every")[0])
    no answer of the pilot is correct (0 of 24 judged), so it cannot inform the plan
    >>> print(uninformative_pilot([4, 4], 4).split(": every")[0])
    every answer of the pilot is correct (8 of 8 judged), so it cannot inform the plan
    >>> uninformative_pilot([0, 3, 8], 8) is None
    True
    """
    c, resolved = check_counts(counts, n)
    total, correct = int(resolved.sum()), int(c.sum())
    if correct == 0:
        what, looks = "no answer of the pilot is correct", "equally unsolvable"
        fix = "pilot a stronger model, or more questions and a larger n, until some answers are correct"
    elif correct == total:
        what, looks = "every answer of the pilot is correct", "equally easy"
        fix = "pilot more (or harder) questions and a larger n, until some answers are wrong"
    else:
        return None
    return (
        f"{what} ({correct} of {total} judged), so it cannot inform the plan: every question looks {looks} "
        f"and the planned widths are the prior's guess, not this model's; {fix}"
    )


def check_probabilities(p) -> np.ndarray:
    """``p`` as a non-empty 1-D float array of probabilities in [0, 1], else one :class:`InputError` line."""
    array = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if array.ndim != 1 or array.size == 0:
        raise InputError(f"p must be one success probability per question (1-D, non-empty); got shape {array.shape}")
    bad = ~np.isfinite(array) | (array < 0) | (array > 1)
    if bad.any():
        raise InputError(f"p must be probabilities in [0, 1]; got p={array[bad][0]!r}")
    return array


def _validated_n(n, k: int) -> int:
    if not is_int(n):
        raise InputError(f"n must be an integer; got n={n!r}")
    if n < k:
        raise InputError(f"n must satisfy n >= k (cannot draw more generations than there are); got n={n} with k={k}")
    return int(n)


def _validated_questions(questions, default: int) -> int:
    return default if questions is None else positive_int(questions, "questions")


def metric_key_of(k: int, tau) -> str:
    """The results key of ``(k, tau)``; ``tau = "mG"``: mG-Pass@k."""
    return mg_metric_key(k) if isinstance(tau, str) else metric_key(k, tau)


# --------------------------------------------------------------------------
# the variance


def _estimator_values(n: int, k: int, tau) -> np.ndarray:
    """``G(n, c, k, tau)`` for ``c = 0..n``."""
    counts = np.arange(n + 1)
    if isinstance(tau, str):
        return np.asarray(mg_pass_at_k(n, counts, k), dtype=np.float64)
    return np.asarray(g_pass_at_k(n, counts, k, tau), dtype=np.float64)


def latent_value(p: np.ndarray, k: int, tau) -> np.ndarray:
    r"""``theta(p) = sum_j v_j Bin(j; k, p)``: the latent value the estimator is unbiased for, per question."""
    return binomial_pmf(k, p) @ score_vector(k, tau)


def within_question_variance(p, n: int, k: int, tau) -> np.ndarray:
    r"""Exact :math:`\mathrm{Var}_{c \sim \mathrm{Bin}(n, p_i)}[G(n, c, k, \tau)]` per question ([0, 1]^2 units).

    Args:
        p: per-question success probabilities.
        n: generations per question, ``n >= k``.
        k: draws.
        tau: threshold in [0, 1], or ``"mG"`` for mG-Pass@k.

    At n = k = 2 and tau = 1 the estimator is the indicator that both are
    correct, a Bernoulli(p^2): variance p^2 (1 - p^2) = 0.1875 at p = 1/2.

    >>> within_question_variance([0.5, 1.0], 2, 2, 1.0).tolist()
    [0.1875, 0.0]
    """
    k = positive_int(k, "k")
    p = check_probabilities(p)
    n = _validated_n(n, k)
    score_vector(k, tau)  # validates tau
    values = _estimator_values(n, k, tau)
    weights = binomial_pmf(n, p)
    mean = weights @ values  # = theta(p): the estimator is unbiased
    return np.maximum((weights * (values[None, :] - mean[:, None]) ** 2).sum(axis=1), 0.0)


def expected_half_width(
    p,
    n: int,
    k: int,
    tau,
    *,
    questions: int | None = None,
    level: float = defaults.CI,
    include_question_sampling: bool = True,
) -> PlannedWidth:
    r"""The planned std and interval half-width of one metric at ``n`` generations, x 100.

    :math:`\mathrm{Var} = (\overline{V(n)} + \sigma^2_\theta [\text{if include\_question\_sampling}]) / M`,
    half-width :math:`= z_{(1+\text{level})/2} \sqrt{\mathrm{Var}}` (see the module docstring).

    Args:
        p: per-question success probabilities (e.g. :func:`pilot_probabilities`).
        n: generations per question in the planned run, ``n >= k``.
        k: draws.
        tau: threshold in [0, 1], or ``"mG"``.
        questions: planned number of questions M (default: as many as ``p``).
        level: the interval's level.
        include_question_sampling: add the between-question variance (the
            bootstrap's view); ``False`` is the fixed-question view of the
            Bayesian interval.

    Thirty questions at p = 0.5, G-Pass@4_0.5, n = 16, fixed questions (the exact
    variance of the estimator over c ~ Bin(16, 1/2), / 30):

    >>> plan = expected_half_width([0.5] * 30, 16, 4, 0.5, include_question_sampling=False)
    >>> print(plan.key, round(plan.std, 6), round(plan.half_width, 6))
    G-Pass@4_0.5 3.486118 6.832665
    >>> expected_half_width([0.5], 2, 4, 0.5)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: n must satisfy n >= k (cannot draw more generations than there are); got n=2 with k=4
    """
    p = check_probabilities(p)
    k = positive_int(k, "k")
    n = _validated_n(n, k)
    return width_from_noise(
        float(within_question_variance(p, n, k, tau).mean()),
        p,
        n,
        k,
        tau,
        questions=questions,
        level=level,
        include_question_sampling=include_question_sampling,
    )


def width_from_noise(
    noise: float,
    p,
    n: int,
    k: int,
    tau,
    *,
    questions: int | None = None,
    level: float = defaults.CI,
    include_question_sampling: bool = True,
) -> PlannedWidth:
    r"""The planned width from the mean within-question variance ``noise`` ([0, 1]^2 units): the one home of
    :math:`z\sqrt{(\text{noise} + \sigma^2_\theta)/M}` x 100, for a fixed n (:func:`expected_half_width`) and for
    any design that changes only the noise (:mod:`~gpassk_opencompass.uncertainty.curtailment`).

    >>> round(width_from_noise(0.0, [0.5], 16, 4, 1.0, questions=25).half_width, 6)  # sigma_theta = 0: no width
    0.0
    """
    p = check_probabilities(p)
    level = open_unit(level, "level")
    m = _validated_questions(questions, p.size)
    variance = float(noise)
    if include_question_sampling:
        variance += float(latent_value(p, k, tau).var())
    std = math.sqrt(max(variance, 0.0) / m)
    z = float(stats.norm.ppf(0.5 + level / 2))
    return PlannedWidth(
        key=metric_key_of(k, tau),
        n=n,
        questions=m,
        std=100 * std,
        half_width=100 * z * std,
        level=level,
        include_question_sampling=bool(include_question_sampling),
    )


def smallest_n(
    p,
    k: int,
    tau,
    target_half_width: float,
    *,
    questions: int | None = None,
    level: float = defaults.CI,
    include_question_sampling: bool = True,
    n_max: int = 4096,
) -> int | None:
    """The smallest ``n`` in ``[k, n_max]`` whose planned half-width (x 100) is at most the target.

    Binary search, valid because the within-question variance is non-increasing
    in ``n``. Returns ``None`` when even ``n_max`` does not reach the target --
    with question sampling the half-width never falls below
    ``z * sigma_theta / sqrt(M)``, whatever ``n``; more questions are then the
    only way down.

    Args:
        p, k, tau, questions, level, include_question_sampling: as
            :func:`expected_half_width`.
        target_half_width: in percentage points (the x 100 scale), > 0.
        n_max: the largest n considered.

    >>> smallest_n([0.5] * 30, 4, 0.5, 6.9, include_question_sampling=False)  # 6.83 at n = 16
    16
    >>> smallest_n([0.5] * 30, 4, 0.5, 4.0, include_question_sampling=False)
    46
    >>> print(smallest_n([0.1, 0.9] * 15, 4, 0.5, 1.0))  # the question spread alone is wider
    None
    """
    if not is_number(target_half_width) or target_half_width <= 0:
        raise InputError(f"target_half_width must be a positive number (percentage points); got {target_half_width!r}")
    k = positive_int(k, "k")
    n_max = _validated_n(n_max, k)

    def width(n: int) -> float:
        plan = expected_half_width(
            p,
            n,
            k,
            tau,
            questions=questions,
            level=level,
            include_question_sampling=include_question_sampling,
        )
        return plan.half_width

    if width(n_max) > target_half_width:
        return None
    low, high = k, n_max  # invariant: width(high) <= target
    if width(low) <= target_half_width:
        return low
    while high - low > 1:  # width(low) > target
        middle = (low + high) // 2
        if width(middle) <= target_half_width:
            high = middle
        else:
            low = middle
    return high


def plan_table(
    p,
    ns: Sequence[int],
    k: Sequence[int] = DEFAULT_K,
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    *,
    questions: Sequence[int | None] = (None,),
    level: float = defaults.CI,
    include_question_sampling: bool = True,
) -> list[PlannedWidth]:
    """:func:`expected_half_width` for every metric, ``n`` and question count: the planning table.

    Rows are ordered by question count, then ``n``, then metric in
    :func:`~gpassk_opencompass.metrics.summarize`'s order. Pairs with ``k > n``
    are skipped (that k cannot be computed from n generations).

    >>> rows = plan_table([0.2, 0.5, 0.9] * 10, ns=[8, 32], k=[4], thresholds=[1.0], questions=[30, 120])
    >>> [(row.questions, row.n, row.key, round(row.half_width, 2)) for row in rows]
    [(30, 8, 'G-Pass@4_1.0', 12.71), (30, 8, 'mG-Pass@4', 13.44),
     (30, 32, 'G-Pass@4_1.0', 11.09), (30, 32, 'mG-Pass@4', 12.42),
     (120, 8, 'G-Pass@4_1.0', 6.35), (120, 8, 'mG-Pass@4', 6.72),
     (120, 32, 'G-Pass@4_1.0', 5.54), (120, 32, 'mG-Pass@4', 6.21)]
    """
    p = check_probabilities(p)
    ks = [positive_int(value, "k") for value in k]
    if not ks:
        raise InputError("ks must name at least one k")
    ns = list(ns)
    if not ns:
        raise InputError("ns must name at least one n")
    rows = []
    for m in questions:
        for n in ns:
            _validated_n(n, 1)
            for draws in ks:
                if draws > n:
                    continue
                for tau in [*list(thresholds), "mG"]:
                    rows.append(
                        expected_half_width(
                            p,
                            n,
                            draws,
                            tau,
                            questions=m,
                            level=level,
                            include_question_sampling=include_question_sampling,
                        )
                    )
    return rows
