r"""Two judges on the same generations: agreement, Cohen's kappa, the 2x2 table, metric shifts.

Verdicts are aligned arrays (questions x generations) of ``True``/``False``/``None``-or-``NaN`` (unresolved);
only items both judges resolved enter the table and kappa. Kappa is computed from the integer counts (``None``
when both judges are constant, 0 when one is), its standard error is Fleiss, Cohen & Everitt's (1969) delta
method with a Wald interval clipped to [-1, 1], generations taken as independent items. The formulas and edge
cases: docs/uncertainty.md, "Judge agreement".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import open_unit
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import DEFAULT_K, DEFAULT_THRESHOLDS
from gpassk_opencompass.uncertainty.paired import metric_table

__all__ = [
    "JudgeAgreement",
    "MetricShift",
    "disagreements",
    "judge_agreement",
    "metric_shift",
    "verdict_counts",
]


# --------------------------------------------------------------------------
# verdict arrays


def _verdicts(name: str, verdicts) -> tuple[np.ndarray, np.ndarray]:
    """``(correct, resolved)`` boolean arrays from True/False/None/NaN (or 1/0) verdicts."""
    array = np.asarray(verdicts, dtype=object) if not isinstance(verdicts, np.ndarray) else verdicts
    if array.dtype.kind == "b":
        return array.astype(bool), np.ones(array.shape, dtype=bool)
    if array.dtype.kind in "iuf":
        resolved = ~np.isnan(array) if array.dtype.kind == "f" else np.ones(array.shape, dtype=bool)
        bad = resolved & ~np.isin(array, (0, 1))
        if bad.any():
            raise InputError(
                f"{name} must hold True, False or None (unresolved); got "
                f"{array[bad].ravel()[0]!r} at {tuple(int(i) for i in np.argwhere(bad)[0])}"
            )
        return np.where(resolved, array == 1, False), resolved
    if array.dtype != object:
        raise InputError(f"{name} must hold True, False or None (unresolved); got dtype {array.dtype}")
    flat = array.ravel()
    correct = np.zeros(flat.shape, dtype=bool)
    resolved = np.zeros(flat.shape, dtype=bool)
    for index, value in enumerate(flat.tolist()):  # object arrays: one pass of Python values
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Real) and value in (0, 1)):
            correct[index], resolved[index] = bool(value), True
        else:
            position = tuple(int(i) for i in np.unravel_index(index, array.shape))
            raise InputError(f"{name} must hold True, False or None (unresolved); got {value!r} at {position}")
    return correct.reshape(array.shape), resolved.reshape(array.shape)


def _pair(verdicts_a, verdicts_b):
    correct_a, resolved_a = _verdicts("verdicts_a", verdicts_a)
    correct_b, resolved_b = _verdicts("verdicts_b", verdicts_b)
    if correct_a.shape != correct_b.shape:
        raise InputError(
            "verdicts_a and verdicts_b must be aligned (the same generations in the same order); "
            f"got shapes {correct_a.shape} and {correct_b.shape}"
        )
    return correct_a, resolved_a, correct_b, resolved_b


def verdict_counts(verdicts) -> tuple[np.ndarray, np.ndarray]:
    """Per question (row): correct verdicts and unresolved ones, from a questions x generations array.

    Unresolved verdicts are not correct (as in the results files' ``c``).

    >>> correct, unresolved = verdict_counts([[True, None, False], [True, True, float("nan")]])
    >>> correct.tolist(), unresolved.tolist()
    ([1, 2], [1, 1])
    """
    correct, resolved = _verdicts("verdicts", verdicts)
    if correct.ndim != 2:
        raise InputError(f"verdicts must be questions x generations (2-D); got shape {correct.shape}")
    return correct.sum(axis=1), (~resolved).sum(axis=1)


# --------------------------------------------------------------------------
# agreement and kappa


@dataclass(frozen=True)
class JudgeAgreement:
    """How two judges agree on the same generations.

    Attributes:
        items: aligned items (generations) in all.
        compared: items both judges resolved (the table's total ``N``).
        unresolved_a: items judge A left unresolved.
        unresolved_b: items judge B left unresolved.
        unresolved_both: items neither resolved.
        table: ``((both correct, A correct & B wrong), (A wrong & B correct, both wrong))``
            (rows: judge A, columns: judge B).
        agreement: observed agreement ``p_o`` in [0, 1]; ``None`` when ``compared == 0``.
        expected_agreement: chance agreement ``p_e``; ``None`` when ``compared == 0``.
        kappa: Cohen's kappa; ``None`` when undefined (``compared == 0``, or
            ``p_e = 1``: both judges constant and equal).
        kappa_stderr: its large-sample standard error (Fleiss, Cohen & Everitt 1969).
        kappa_ci_low: lower end of the Wald interval, clipped to [-1, 1].
        kappa_ci_high: upper end.
        ci: the interval's level.
    """

    items: int
    compared: int
    unresolved_a: int
    unresolved_b: int
    unresolved_both: int
    table: tuple[tuple[int, int], tuple[int, int]]
    agreement: float | None
    expected_agreement: float | None
    kappa: float | None
    kappa_stderr: float | None
    kappa_ci_low: float | None
    kappa_ci_high: float | None
    ci: float


def _kappa_stderr(table: np.ndarray, kappa: float, expected: float) -> float:
    """Fleiss, Cohen & Everitt's (1969) large-sample standard error of kappa."""
    total = table.sum()
    p = table / total
    rows, columns = p.sum(axis=1), p.sum(axis=0)
    diagonal = sum(p[i, i] * (1 - (rows[i] + columns[i]) * (1 - kappa)) ** 2 for i in range(2))
    off = sum(p[i, j] * (columns[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j)
    variance = (diagonal + (1 - kappa) ** 2 * off - (kappa - expected * (1 - kappa)) ** 2) / (
        total * (1 - expected) ** 2
    )
    return float(math.sqrt(max(variance, 0.0)))


def judge_agreement(verdicts_a, verdicts_b, *, ci: float = defaults.CI) -> JudgeAgreement:
    """Agreement, Cohen's kappa (with SE and Wald interval) and the 2x2 table of two judges.

    Args:
        verdicts_a: judge A's verdicts, any shape (e.g. questions x
            generations): True, False, or None / NaN for unresolved.
        verdicts_b: judge B's, aligned with A's (same shape, same items).
        ci: the level of kappa's interval.

    Returns:
        :class:`JudgeAgreement`; unresolved items are left out of the table
        and kappa and counted per side.

    Raises:
        InputError: shapes differ, a verdict is not True/False/None, or ``ci`` is outside (0, 1).

    >>> a = [[True, True, False, None], [True, False, False, True]]
    >>> b = [[True, False, False, True], [True, False, None, True]]
    >>> result = judge_agreement(a, b)
    >>> result.table, result.compared, result.unresolved_a, result.unresolved_b
    (((3, 1), (0, 2)), 6, 1, 1)
    >>> round(result.agreement, 4), round(result.kappa, 4)  # p_o = 5/6, p_e = 18/36, kappa = 2/3
    (0.8333, 0.6667)
    >>> judge_agreement([True, True], [True, True]).kappa is None  # both constant and equal: 0/0
    True
    >>> judge_agreement([True, True, True], [True, False, True]).kappa  # one constant judge
    0.0
    """
    ci = open_unit(ci, "ci")
    correct_a, resolved_a, correct_b, resolved_b = _pair(verdicts_a, verdicts_b)
    both = resolved_a & resolved_b
    a, b = correct_a[both], correct_b[both]
    table = np.array(
        [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]], dtype=np.int64
    )
    total = int(table.sum())
    agreement = expected = kappa = stderr = low = high = None
    if total:
        rows, columns = table.sum(axis=1).tolist(), table.sum(axis=0).tolist()
        agree = int(table[0, 0] + table[1, 1])
        chance = rows[0] * columns[0] + rows[1] * columns[1]  # integers: exact
        agreement, expected = agree / total, chance / total**2
        if chance != total**2:
            kappa = (total * agree - chance) / (total**2 - chance)
            stderr = _kappa_stderr(table.astype(float), kappa, expected)
            half = NormalDist().inv_cdf((1 + ci) / 2) * stderr
            low, high = max(-1.0, kappa - half), min(1.0, kappa + half)
    return JudgeAgreement(
        items=int(correct_a.size),
        compared=total,
        unresolved_a=int((~resolved_a).sum()),
        unresolved_b=int((~resolved_b).sum()),
        unresolved_both=int((~resolved_a & ~resolved_b).sum()),
        table=((int(table[0, 0]), int(table[0, 1])), (int(table[1, 0]), int(table[1, 1]))),
        agreement=agreement,
        expected_agreement=expected,
        kappa=kappa,
        kappa_stderr=stderr,
        kappa_ci_low=low,
        kappa_ci_high=high,
        ci=float(ci),
    )


def disagreements(verdicts_a, verdicts_b, *, unresolved: bool = False) -> np.ndarray:
    """Indices of the items the judges disagree on, for the caller to attach ids, answers and reasons.

    Args:
        verdicts_a: judge A's verdicts (True/False/None), any shape.
        verdicts_b: judge B's, aligned.
        unresolved: also return items exactly one judge left unresolved.

    Returns:
        An int array of shape ``(D, ndim)`` (like :func:`numpy.argwhere`), in
        row-major order: for questions x generations, rows of ``(question, generation)``.

    >>> disagreements([[True, False], [None, True]], [[True, True], [False, True]]).tolist()
    [[0, 1]]
    >>> disagreements([[True, False], [None, True]], [[True, True], [False, True]], unresolved=True).tolist()
    [[0, 1], [1, 0]]
    """
    correct_a, resolved_a, correct_b, resolved_b = _pair(verdicts_a, verdicts_b)
    selected = resolved_a & resolved_b & (correct_a != correct_b)
    if unresolved:
        selected |= resolved_a != resolved_b
    return np.argwhere(selected)


# --------------------------------------------------------------------------
# how the metrics move


@dataclass(frozen=True)
class MetricShift:
    """One metric under judge A and judge B, x 100.

    Attributes:
        metric: the results key.
        under_a: the score with judge A's verdicts.
        under_b: the score with judge B's verdicts.
        difference: ``under_b - under_a`` (how far switching from A to B moves it).
    """

    metric: str
    under_a: float
    under_b: float
    difference: float


def metric_shift(
    counts_a,
    counts_b,
    n=None,
    k: Sequence[int] = DEFAULT_K,
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    *,
    accuracy: bool = True,
) -> dict[str, MetricShift]:
    """Every metric computed from judge A's counts and from judge B's, and the shift.

    Args:
        counts_a: correct generations per question under judge A (1-D), or a
            binary questions x generations matrix (use :func:`verdict_counts`
            on verdicts with unresolved entries).
        counts_b: the same questions under judge B.
        n: generations per question (int or one per question).
        k: the k values; empty for accuracy only.
        thresholds: the tau values.
        accuracy: include mean accuracy (first).

    Returns:
        ``{key: MetricShift}`` in the results file's order.

    >>> shift = metric_shift([8, 4], [8, 6], n=8, k=[4], thresholds=[1.0])
    >>> {key: (round(s.under_a, 4), round(s.under_b, 4)) for key, s in shift.items()}
    {'accuracy (8 runs average)': (75.0, 87.5), 'G-Pass@4_1.0': (50.7143, 60.7143), 'mG-Pass@4': (56.4286, 75.0)}
    """
    if np.shape(counts_a) != np.shape(counts_b):
        raise InputError(
            "counts_a and counts_b must be the same questions (and generations) in the same order; "
            f"got shapes {np.shape(counts_a)} and {np.shape(counts_b)}"
        )
    keys, values_a, _, _ = metric_table(counts_a, n, k, thresholds, accuracy)
    _, values_b, _, _ = metric_table(counts_b, n, k, thresholds, accuracy)
    means_a, means_b = 100 * values_a.mean(axis=0), 100 * values_b.mean(axis=0)
    return {
        key: MetricShift(
            metric=key, under_a=float(means_a[i]), under_b=float(means_b[i]), difference=float(means_b[i] - means_a[i])
        )
        for i, key in enumerate(keys)
    }
