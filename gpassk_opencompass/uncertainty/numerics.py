r"""The numerics and input checks shared by the modules of :mod:`gpassk_opencompass.uncertainty`.

* :func:`check_prior` -- the Beta prior ``(alpha0, beta0)``, checked once for every caller
  (``gpassk score --prior``, :class:`~gpassk_opencompass.scoring.request.ScoringRequest`, the
  Bayesian intervals, the planner);
* :func:`check_counts` -- per-question correct and resolved counts;
* :func:`binomial_pmf`, :func:`beta_binomial_pmf` -- whole probability rows, vectorised
  over questions, from the one log-space recurrence of the package,
  :func:`gpassk_opencompass.metrics.pmf_from_log_ratios`.

Why not ``scipy.stats.binom`` / ``betabinom``: measured against ``fractions.Fraction``
(``benchmarks/bench_numerics.py``), ``binom.pmf`` is as exact but 2 to 20 times slower on
these tables (the planner builds one row of up to 4097 entries per question, at every
step of its search), and ``betabinom.pmf`` is both slower (4 to 35 times) and less
exact (about 1e-12 against 1e-16, from differences of large ``betaln``).

>>> binomial_pmf(2, [0.5, 1.0]).tolist()
[[0.25, 0.5, 0.25], [0.0, 0.0, 1.0]]
>>> check_prior((1, 0))
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: prior beta0 must be a finite number > 0; got 0
"""

from __future__ import annotations

import numpy as np

from gpassk_opencompass.checks import is_number
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import pmf_from_log_ratios

__all__ = ["beta_binomial_pmf", "binomial_pmf", "check_counts", "check_prior"]


def check_prior(prior) -> tuple[float, float]:
    """``(alpha0, beta0)`` of a Beta prior as two positive floats, else one :class:`InputError` line.

    >>> check_prior([0.5, 2])
    (0.5, 2.0)
    >>> check_prior(1)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: prior must be a pair (alpha0, beta0) of positive numbers, the Beta prior's A B; got 1
    """
    try:
        alpha0, beta0 = prior
    except (TypeError, ValueError):
        raise InputError(
            f"prior must be a pair (alpha0, beta0) of positive numbers, the Beta prior's A B; got {prior!r}"
        ) from None
    for name, value in (("alpha0", alpha0), ("beta0", beta0)):
        if not is_number(value) or value <= 0:
            raise InputError(f"prior {name} must be a finite number > 0; got {value!r}")
    return float(alpha0), float(beta0)


def _int_vector(name: str, value) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf" or array.ndim > 1:
        raise InputError(f"{name} must be integers, one per question (1-D); got {value!r}")
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            raise InputError(f"{name} must be integers; got {name}={array[bad].ravel()[0]!r}")
    return np.atleast_1d(array.astype(np.int64))


def check_counts(c, n) -> tuple[np.ndarray, np.ndarray]:
    """``(c, n)`` as int64 vectors of one value per question, with ``n >= 0`` and ``0 <= c <= n``.

    ``n`` counts the *resolved* generations, so ``n = 0`` (nothing resolved) is allowed.

    >>> c, n = check_counts([1, 0], 4)
    >>> c.tolist(), n.tolist()
    ([1, 0], [4, 4])
    >>> check_counts([5], 4)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: c must satisfy 0 <= c <= n; got c=5 with n=4
    """
    c = _int_vector("c", c)
    n = _int_vector("n", n)
    try:
        c, n = np.broadcast_arrays(c, n)
    except ValueError:
        raise InputError(f"c and n must have one value per question; got shapes {c.shape} and {n.shape}") from None
    if c.size == 0:
        raise InputError("c is empty: there are no questions")
    if (n < 0).any():
        raise InputError(f"n must be >= 0 (resolved generations per question); got n={int(n[n < 0][0])}")
    if (c < 0).any() or (c > n).any():
        bad = (c < 0) | (c > n)
        raise InputError(f"c must satisfy 0 <= c <= n; got c={int(c[bad][0])} with n={int(n[bad][0])}")
    return c, n


def beta_binomial_pmf(trials: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Beta-Binomial(trials, a, b) probabilities of ``0..trials``, one row per (a, b) (``a, b > 0``).

    Ratio recurrence ``P(j+1)/P(j) = (trials-j)(a+j) / ((j+1)(b+trials-j-1))``.

    >>> beta_binomial_pmf(2, np.array([1.0]), np.array([1.0])).round(12).tolist()  # uniform
    [[0.333333333333, 0.333333333333, 0.333333333333]]
    """
    a, b = np.asarray(a, dtype=np.float64)[:, None], np.asarray(b, dtype=np.float64)[:, None]
    j = np.arange(trials, dtype=np.float64)[None, :]
    return pmf_from_log_ratios(np.log((trials - j) * (a + j)) - np.log((j + 1) * (b + trials - j - 1)))


def binomial_pmf(trials: int, p) -> np.ndarray:
    """Binomial(trials, p) probabilities of ``0..trials``, one row per p (p = 0 and 1 exact)."""
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    inner = (p > 0) & (p < 1)
    out = np.zeros((p.size, trials + 1))
    out[p <= 0, 0] = 1.0
    out[p >= 1, trials] = 1.0
    if inner.any():
        q = p[inner][:, None]
        j = np.arange(trials, dtype=np.float64)[None, :]
        out[inner] = pmf_from_log_ratios(np.log(trials - j) - np.log(j + 1) + np.log(q) - np.log1p(-q))
    return out
