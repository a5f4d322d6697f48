r"""The two resampling tests of paired data: the sign-flip permutation test and the bootstrap over questions.

Both take per-question differences (or values) in [0, 1], questions x columns, with one seeded generator.
:func:`sign_flip_test` is the two-sided paired sign-flip p-value, exact over all :math:`2^m` sign vectors of
the ``m`` non-tied questions when ``m <= exact_max`` (meet in the middle), else :math:`(1 + b)/(1 + n_\text{perm})`
from seeded random signs; ties within 1e-12 are snapped (:func:`snap_ties`) and "as extreme" has a 1e-9
relative tolerance. :func:`bootstrap_means` resamples questions jointly for every column.
See docs/uncertainty.md, "Paired comparison of two runs".

>>> sign_flip_test([0.5, -0.25, 0.5, 0.25])  # 6 of the 16 sign vectors reach |sum| >= 1
SignFlipTest(mean=0.25, p_value=0.375, test='exact', permutations=16, nonzero=4)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpassk_opencompass.checks import non_negative_int, positive_int
from gpassk_opencompass.defaults import EXACT_MAX, N_PERM
from gpassk_opencompass.errors import InputError

#: Sums within this relative distance of the observed one count as "at least as extreme".
_RELATIVE_TIE = 1e-9
#: Per-question differences of metric values (in [0, 1], exact to ~1e-14) below this are zero:
#: e.g. pass@3 of 2/4 and of 3/4 correct are both exactly 1, one of them 1 - 1e-16 in floating point.
_VALUE_TIE = 1e-12
#: Cells of one chunk of random signs or bootstrap weights.
CHUNK_CELLS = 1 << 21


def seeded_rng(seed) -> np.random.Generator:
    return np.random.default_rng(non_negative_int(seed, "seed"))


# --------------------------------------------------------------------------
# the sign-flip test


@dataclass(frozen=True)
class SignFlipTest:
    """A paired sign-flip permutation test of "mean difference = 0" (two-sided).

    Attributes:
        mean: the observed mean difference (in the units of the input).
        p_value: :math:`P(|\\sum s_i d_i| \\ge |\\sum d_i|)` under random signs;
            exact, or ``(1 + b) / (1 + permutations)`` by Monte Carlo.
        test: ``"exact"`` (all sign vectors) or ``"monte-carlo"``.
        permutations: sign vectors evaluated: ``2**nonzero`` when exact,
            else the number of random ones.
        nonzero: questions with a nonzero difference (the only ones flipped).
    """

    mean: float
    p_value: float
    test: str
    permutations: int
    nonzero: int


def _as_differences(differences) -> np.ndarray:
    try:
        array = np.asarray(differences, dtype=float) if not isinstance(differences, np.ndarray) else differences
    except (TypeError, ValueError):
        raise InputError(f"differences must be a 1-D array of numbers; got {differences!r}") from None
    if array.dtype.kind not in "iuf" or array.ndim != 1:
        raise InputError(
            f"differences must be a 1-D array of numbers; got shape {np.shape(array)}, dtype {array.dtype}"
        )
    if array.size == 0:
        raise InputError("differences is empty: there are no questions to test")
    array = array.astype(float)
    if not np.isfinite(array).all():
        raise InputError(f"differences must be finite; got {array[~np.isfinite(array)][0]!r}")
    return array


def _exact_tail(nonzero: np.ndarray, observed: float, tolerance: float) -> int:
    """How many of the ``2**m`` sign vectors give ``|sum| >= observed - tolerance`` (meet in the middle)."""
    half = nonzero.size // 2

    def all_sums(values: np.ndarray) -> np.ndarray:
        sums = np.zeros(1)
        for value in values:  # 2**len(values) partial sums, doubling per value
            sums = np.concatenate([sums + value, sums - value])
        return sums

    left, right = all_sums(nonzero[:half]), np.sort(all_sums(nonzero[half:]))
    # |l + r| >= t  <=>  r >= t - l  or  r <= -t - l  (disjoint since t > 0)
    high = right.size - np.searchsorted(right, observed - tolerance - left, side="left")
    low = np.searchsorted(right, -observed + tolerance - left, side="right")
    return int(high.sum() + low.sum())


def sign_flip_columns(
    differences: np.ndarray, n_perm: int, exact_max: int, rng: np.random.Generator
) -> list[SignFlipTest]:
    """One :class:`SignFlipTest` per column of ``differences`` (questions x metrics).

    Monte Carlo columns share the random sign vectors (each column's test is valid on its own).
    """
    questions, metrics = differences.shape
    observed = np.abs(differences.sum(axis=0))
    tolerance = _RELATIVE_TIE * np.abs(differences).sum(axis=0)
    nonzero = (differences != 0).sum(axis=0)
    results: list[SignFlipTest | None] = [None] * metrics
    monte_carlo = []
    for column in range(metrics):
        mean = float(differences[:, column].mean())
        if observed[column] <= tolerance[column]:  # every sign vector is at least as extreme
            results[column] = SignFlipTest(mean, 1.0, "exact", 2 ** int(nonzero[column]), int(nonzero[column]))
        elif nonzero[column] <= exact_max:
            values = differences[differences[:, column] != 0, column]
            extreme = _exact_tail(values, observed[column], tolerance[column])
            total = 2 ** int(nonzero[column])
            results[column] = SignFlipTest(mean, extreme / total, "exact", total, int(nonzero[column]))
        else:
            monte_carlo.append(column)
    if monte_carlo:
        subset = differences[:, monte_carlo]
        hits = np.zeros(len(monte_carlo), dtype=np.int64)
        rows = max(1, CHUNK_CELLS // max(questions, 1))
        for start in range(0, n_perm, rows):
            size = min(rows, n_perm - start)
            signs = rng.integers(0, 2, size=(size, questions), dtype=np.int8) * 2 - 1
            sums = np.abs(signs.astype(float) @ subset)
            hits += (sums >= observed[monte_carlo] - tolerance[monte_carlo]).sum(axis=0)
        for position, column in enumerate(monte_carlo):
            results[column] = SignFlipTest(
                float(differences[:, column].mean()),
                float((1 + hits[position]) / (1 + n_perm)),
                "monte-carlo",
                n_perm,
                int(nonzero[column]),
            )
    return results  # type: ignore[return-value]


def sign_flip_test(differences, *, n_perm: int = N_PERM, exact_max: int = EXACT_MAX, seed: int = 0) -> SignFlipTest:
    """Two-sided paired sign-flip permutation test of "the mean of ``differences`` is 0".

    Args:
        differences: one paired difference per question, ``d_i = v^A_i - v^B_i``.
        n_perm: random sign vectors when not exact (the p-value is then
            ``(1 + b) / (1 + n_perm)``, never 0).
        exact_max: enumerate all ``2**m`` sign vectors when at most this many
            differences are nonzero (exact and deterministic).
        seed: seeds the random sign vectors.

    Returns:
        :class:`SignFlipTest`.

    >>> sign_flip_test([0.5, 0.25, 0.25, 0.0])  # 8 sign vectors, 2 as extreme: +-(.5 + .25 + .25)
    SignFlipTest(mean=0.25, p_value=0.25, test='exact', permutations=8, nonzero=3)
    >>> test = sign_flip_test(np.full(40, 0.1), seed=1)  # 40 nonzero: Monte Carlo
    >>> test.test, test.p_value == 1 / 10_001
    ('monte-carlo', True)
    >>> sign_flip_test([])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: differences is empty: there are no questions to test
    """
    array = _as_differences(differences)
    n_perm = positive_int(n_perm, "n_perm")
    exact_max = non_negative_int(exact_max, "exact_max")
    return sign_flip_columns(array[:, None], n_perm, exact_max, seeded_rng(seed))[0]


# --------------------------------------------------------------------------
# bootstrap over questions


def bootstrap_means(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` means of ``values`` (questions x columns) over questions resampled with replacement.

    Identical rows are one group and a resample is drawn as multinomial counts
    over the groups, the same distribution as resampling questions. Groups are
    taken in order of first appearance, so the draws depend only on which
    questions tie, not on their values: swapping A and B (negating every
    difference) mirrors the interval exactly for the same seed.
    """
    questions = values.shape[0]
    groups, first, group_size = np.unique(values, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    groups, group_size = groups[order], group_size[order]
    means = np.empty((n_boot, values.shape[1]))
    rows = max(1, CHUNK_CELLS // len(groups))
    for start in range(0, n_boot, rows):
        size = min(rows, n_boot - start)
        draws = rng.multinomial(questions, group_size / questions, size=size)
        means[start : start + size] = draws @ groups / questions
    return means


def snap_ties(differences: np.ndarray) -> np.ndarray:
    """Differences of per-question metric values within rounding (1e-12) of 0 become exactly 0."""
    return np.where(np.abs(differences) <= _VALUE_TIE, 0.0, differences)
