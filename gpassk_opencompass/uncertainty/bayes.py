r"""Bayesian credible intervals for G-Pass@k_tau and mG-Pass@k (Beta-Binomial posterior per question).

Question :math:`i` has :math:`p_i \sim \mathrm{Beta}(\alpha_0 + c_i, \beta_0 + n_i - c_i)`; the latent metric
:math:`\theta_i = P(\mathrm{Bin}(k, p_i) \ge \max(\lceil \tau k \rceil, 1))` (what the hypergeometric estimator
of :mod:`gpassk_opencompass.metrics` estimates without bias) has exact posterior moments (Beta-Binomial mean,
hypergeometric split of :math:`\mathrm{Bin}(2k, p)` for the variance), and the interval is ``normal`` (mean +- z
std, clipped) or ``beta`` (moment-matched). Unresolved verdicts are left out of :math:`n_i`; ``k`` may exceed
:math:`n_i`. The model, the derivation and its validation: docs/uncertainty.md, "Bayesian intervals".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil

import numpy as np
from scipy import stats

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import open_unit, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import (
    DEFAULT_K,
    DEFAULT_THRESHOLDS,
    metric_key,
    mg_metric_key,
    required_correct,
)
from gpassk_opencompass.uncertainty.numerics import beta_binomial_pmf, check_counts, check_prior

__all__ = [
    "BayesEstimate",
    "PosteriorMoments",
    "bayes_interval",
    "bayes_interval_counts",
    "counts_from_matrix",
    "posterior_moments",
    "score_vector",
]

#: The interval constructions :func:`bayes_interval` knows.
METHODS: tuple[str, ...] = ("normal", "beta")


@dataclass(frozen=True)
class BayesEstimate:
    """Posterior summary of one benchmark metric, all x 100.

    Attributes:
        mean: posterior mean of the benchmark metric (shrunk toward the prior,
            so it differs from :func:`~gpassk_opencompass.metrics.summarize`'s
            point estimate by O(1/n)).
        std: posterior standard deviation (exact).
        low: lower end of the central credible interval.
        high: upper end of the central credible interval.
        level: the interval's posterior mass, e.g. 0.95.
        prior: ``(alpha0, beta0)`` of the Beta prior on each question's p.
        method: how the interval was built from the exact moments
            (``"normal"`` or ``"beta"``).
    """

    mean: float
    std: float
    low: float
    high: float
    level: float
    prior: tuple[float, float]
    method: str


@dataclass(frozen=True)
class PosteriorMoments:
    """Per-question posterior mean and variance of a latent metric, in [0, 1] units.

    Attributes:
        mean: one posterior mean per question.
        variance: one posterior variance per question.
    """

    mean: np.ndarray
    variance: np.ndarray


# --------------------------------------------------------------------------
# verdict matrices


def counts_from_matrix(correct) -> tuple[np.ndarray, np.ndarray]:
    """Per-question correct counts and resolved counts from a verdict matrix.

    Args:
        correct: questions x generations; ``True``/``1`` correct,
            ``False``/``0`` wrong, ``None``/``NaN`` unresolved.

    Returns:
        ``(c, n)``: correct verdicts and resolved verdicts per question.

    >>> c, n = counts_from_matrix([[1, 0, None], [True, True, False]])
    >>> c.tolist(), n.tolist()
    ([1, 2], [2, 3])
    >>> counts_from_matrix([[1, 2]])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: correct must hold 0/1 (or True/False) verdicts and None/NaN for unresolved; got 2.0
    """
    array = np.asarray(correct, dtype=object if _has_none(correct) else None)
    if array.ndim != 2:
        raise InputError(f"correct must be a questions x generations matrix (2-D); got shape {array.shape}")
    if array.dtype == object:
        array = np.where(array == None, np.nan, array)  # noqa: E711 (elementwise)
    try:
        values = array.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError("correct must hold 0/1 (or True/False) verdicts and None/NaN for unresolved") from None
    resolved = ~np.isnan(values)
    bad = resolved & (values != 0) & (values != 1)
    if bad.any():
        raise InputError(
            f"correct must hold 0/1 (or True/False) verdicts and None/NaN for unresolved; got {values[bad][0]!r}"
        )
    if values.shape[0] == 0:
        raise InputError("correct has no questions")
    return np.where(resolved, values, 0).sum(axis=1).astype(np.int64), resolved.sum(axis=1).astype(np.int64)


def _has_none(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype == object
    try:
        return any(item is None for row in value for item in row)
    except TypeError:
        return False


# --------------------------------------------------------------------------
# the exact moments


def score_vector(k: int, tau) -> np.ndarray:
    r"""The per-count score :math:`v_j`, ``j = 0..k``, whose Binomial average is the metric.

    ``tau`` is a threshold in [0, 1] for G-Pass@k_tau, or ``"mG"`` for mG-Pass@k.

    >>> score_vector(4, 0.5).tolist(), score_vector(4, "mG").tolist()
    ([0.0, 0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.5, 1.0])
    """
    k = positive_int(k, "k")
    j = np.arange(k + 1)
    if isinstance(tau, str):
        if tau != "mG":
            raise InputError(f"tau must be a threshold in [0, 1] or 'mG'; got tau={tau!r}")
        return (2.0 / k) * np.maximum(j - ceil(k / 2), 0).astype(np.float64)
    return (j >= required_correct(k, tau)).astype(np.float64)


def _pair_hypergeometric(k: int) -> np.ndarray:
    """``H[t, j] = P(J1 = j | J1 + J2 = t)`` for two i.i.d. Bin(k, p): Hypergeometric(2k, t, k)."""
    t = np.arange(2 * k + 1)[:, None]
    j = np.arange(k + 1)[None, :]
    return stats.hypergeom.pmf(j, 2 * k, t, k)


def _state_moments(a: np.ndarray, b: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance of ``sum_j v_j Bin(j; k, p)`` for ``p ~ Beta(a, b)``, per state."""
    k = v.size - 1
    a, b = a[:, None], b[:, None]
    if np.all(v == v[0]):
        return np.full(a.shape[0], v[0]), np.zeros(a.shape[0])
    mean = beta_binomial_pmf(k, a[:, 0], b[:, 0]) @ v
    u = v[None, :] - mean[:, None]  # centred scores, states x (k + 1)
    hyper = _pair_hypergeometric(k)
    inner = np.zeros((a.shape[0], 2 * k + 1))
    for j in range(k + 1):  # loop over the k + 1 counts of one draw, vectorised over states and the other
        inner[:, j : j + k + 1] += u[:, [j]] * u * hyper[j : j + k + 1, j][None, :]
    weights = beta_binomial_pmf(2 * k, a[:, 0], b[:, 0])
    variance = np.maximum((weights * inner).sum(axis=1), 0.0)
    return np.clip(mean, 0.0, 1.0), variance


def posterior_moments(c, n, k: int, tau, *, prior=defaults.PRIOR) -> PosteriorMoments:
    r"""Exact per-question posterior mean and variance of the latent G-Pass@k_tau (or mG-Pass@k).

    Args:
        c: correct generations per question (1-D ints).
        n: resolved generations per question (int or 1-D ints); ``n = 0`` keeps the prior.
        k: draws of the latent metric, ``>= 1`` (may exceed ``n``).
        tau: threshold in [0, 1], or ``"mG"`` for mG-Pass@k.
        prior: ``(alpha0, beta0)`` of the Beta prior on each question's p.

    Returns:
        :class:`PosteriorMoments` in [0, 1] units (not x 100).

    With a uniform prior and all 4 of 4 correct, p ~ Beta(5, 1) and the latent
    G-Pass@2_1.0 = p^2 has mean 5/7 and variance 5/9 - (5/7)^2 = 20/441:

    >>> moments = posterior_moments([4], 4, 2, 1.0)
    >>> print(round(float(moments.mean[0]), 12), round(float(moments.variance[0]), 12))
    0.714285714286 0.045351473923
    >>> posterior_moments([1], 4, 2, 1.0, prior=(0, 1))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: prior alpha0 must be a finite number > 0; got 0
    """
    alpha0, beta0 = check_prior(prior)
    c, n = check_counts(c, n)
    v = score_vector(k, tau)
    states, inverse = np.unique(np.stack([c, n - c], axis=1), axis=0, return_inverse=True)
    mean, variance = _state_moments(alpha0 + states[:, 0], beta0 + states[:, 1], v)
    inverse = inverse.reshape(-1)
    return PosteriorMoments(mean=mean[inverse], variance=variance[inverse])


# --------------------------------------------------------------------------
# the benchmark interval


def _interval(mean: float, std: float, level: float, method: str) -> tuple[float, float]:
    """Central interval in [0, 1] units from the exact mean and std."""
    if std == 0.0:
        return mean, mean
    if method == "normal":
        z = stats.norm.ppf(0.5 + level / 2)
        return min(max(mean - z * std, 0.0), 1.0), min(max(mean + z * std, 0.0), 1.0)
    # method == "beta": the Beta on [0, 1] with this mean and variance
    concentration = mean * (1.0 - mean) / std**2 - 1.0
    if concentration <= 0.0:  # all mass at 0 and 1 (cannot happen for a proper posterior)
        return 0.0, 1.0
    tails = [0.5 - level / 2, 0.5 + level / 2]
    low, high = stats.beta.ppf(tails, mean * concentration, (1 - mean) * concentration)
    return float(low), float(high)


def bayes_interval_counts(
    c,
    n,
    k: Sequence[int] = DEFAULT_K,
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    *,
    prior=defaults.PRIOR,
    level: float = defaults.CI,
    method: str = "normal",
) -> dict[str, BayesEstimate]:
    r"""Posterior mean, std and credible interval of every G-Pass@k_tau and mG-Pass@k, x 100.

    The benchmark metric is :math:`\bar\theta = \frac1M \sum_i \theta_i` with independent
    per-question posteriors (see the module docstring): its mean and variance are
    exact; the interval is ``method`` applied to them.

    Args:
        c: correct generations per question (1-D ints).
        n: resolved generations per question (int or 1-D ints).
        k: the k values (any k >= 1; the latent metric needs no k <= n).
        thresholds: the tau values in [0, 1].
        prior: ``(alpha0, beta0)``, the Beta prior on each question's p
            (default uniform, as scorio's).
        level: posterior mass of the central interval.
        method: ``"normal"`` (mean +- z std, clipped to [0, 100]) or ``"beta"``
            (moment-matched Beta).

    Returns:
        A dict keyed like :func:`~gpassk_opencompass.metrics.summarize`: per k,
        ``G-Pass@{k}_{tau}`` per threshold then ``mG-Pass@{k}``.

    Three questions, 16 generations each, 0, 8 and 16 correct:

    >>> result = bayes_interval_counts([0, 8, 16], 16, k=[4], thresholds=[0.5])
    >>> estimate = result["G-Pass@4_0.5"]
    >>> print(*(round(x, 6) for x in (estimate.mean, estimate.std, estimate.low, estimate.high)))
    56.491228 5.763629 45.194723 67.787733
    >>> list(result)
    ['G-Pass@4_0.5', 'mG-Pass@4']
    >>> bayes_interval_counts([1], 4, k=[2], method="exact")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: method must be one of ('normal', 'beta'); got method='exact'
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}; got method={method!r}")
    level = open_unit(level, "level")
    prior = check_prior(prior)
    c, n = check_counts(c, n)
    ks = [positive_int(value, "k") for value in k]
    if not ks:
        raise InputError("ks must name at least one k")
    thresholds = list(thresholds)
    out: dict[str, BayesEstimate] = {}
    for draws in ks:
        for key, tau in [(metric_key(draws, tau), tau) for tau in thresholds] + [(mg_metric_key(draws), "mG")]:
            moments = posterior_moments(c, n, draws, tau, prior=prior)
            mean = float(moments.mean.mean())
            std = float(math.sqrt(moments.variance.sum()) / c.size)
            low, high = _interval(mean, std, level, method)
            out[key] = BayesEstimate(
                mean=100 * mean,
                std=100 * std,
                low=100 * low,
                high=100 * high,
                level=level,
                prior=prior,
                method=method,
            )
    return out


def bayes_interval(
    correct,
    k: Sequence[int] = DEFAULT_K,
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    *,
    prior=defaults.PRIOR,
    level: float = defaults.CI,
    method: str = "normal",
) -> dict[str, BayesEstimate]:
    """:func:`bayes_interval_counts` on a questions x generations verdict matrix.

    Args:
        correct: questions x generations; ``True``/``1`` correct, ``False``/``0``
            wrong, ``None``/``NaN`` unresolved (left out of that question's n).
        k, thresholds, prior, level, method: as :func:`bayes_interval_counts`.

    Posteriors Beta(4, 3) and Beta(5, 2); G-Pass@2_1.0 = p^2 has means 20/56 and 30/56:

    >>> matrix = [[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]
    >>> estimate = bayes_interval(matrix, k=[2], thresholds=[1.0])["G-Pass@2_1.0"]
    >>> print(round(estimate.mean, 6), round(estimate.std, 6))
    44.642857 14.616701

    An unresolved verdict shrinks that question's n (Beta(3, 3) and Beta(4, 2): 12/42 and 20/42):

    >>> with_gap = bayes_interval([[0, 1, None, 0, 1], [1, 1, 0, float("nan"), 1]], k=[2], thresholds=[1.0])
    >>> print(round(with_gap["G-Pass@2_1.0"].mean, 6))
    38.095238
    """
    c, n = counts_from_matrix(correct)
    return bayes_interval_counts(c, n, k, thresholds, prior=prior, level=level, method=method)
