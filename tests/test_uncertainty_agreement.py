"""Judge agreement: kappa by hand with Fractions, scikit-learn (when installed), the delta method and simulation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_mean  # the independent oracle
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.uncertainty.agreement import (
    disagreements,
    judge_agreement,
    metric_shift,
    verdict_counts,
)

Z = 3.5


def verdicts_from_table(both_true: int, a_only: int, b_only: int, both_false: int):
    """Aligned verdict lists with the given 2x2 table (rows: A, columns: B)."""
    a = [True] * both_true + [True] * a_only + [False] * b_only + [False] * both_false
    b = [True] * both_true + [False] * a_only + [True] * b_only + [False] * both_false
    return a, b


def hand_kappa(table) -> Fraction | None:
    """Cohen's kappa by the textbook definition, in exact rationals."""
    (n11, n10), (n01, n00) = table
    total = n11 + n10 + n01 + n00
    p_o = Fraction(n11 + n00, total)
    p_e = Fraction(n11 + n10, total) * Fraction(n11 + n01, total) + Fraction(n01 + n00, total) * Fraction(
        n10 + n00, total
    )
    return None if p_e == 1 else (p_o - p_e) / (1 - p_e)


tables = st.tuples(*[st.integers(0, 25)] * 4).filter(lambda t: sum(t) > 0)


@settings(max_examples=200, deadline=None)
@given(tables)
def test_kappa_and_agreement_equal_the_fraction_hand_computation(cells):
    a, b = verdicts_from_table(*cells)
    result = judge_agreement(a, b)
    table = ((cells[0], cells[1]), (cells[2], cells[3]))
    assert result.table == table and result.compared == sum(cells)
    assert result.agreement == pytest.approx(float(Fraction(cells[0] + cells[3], sum(cells))), abs=1e-15)
    expected = hand_kappa(table)
    if expected is None:
        assert result.kappa is None and result.kappa_stderr is None
    else:
        assert result.kappa == pytest.approx(float(expected), abs=1e-14)


@settings(max_examples=200, deadline=None)
@given(tables, st.booleans())
def test_properties_symmetry_ranges_and_interval(cells, swap_rows):
    a, b = verdicts_from_table(*cells)
    if swap_rows:  # relabel correct/wrong: kappa is invariant
        a, b = [not x for x in a], [not x for x in b]
    forward, backward = judge_agreement(a, b), judge_agreement(b, a)
    assert forward.kappa == backward.kappa and forward.agreement == backward.agreement
    if forward.kappa is not None:
        assert forward.kappa_stderr == pytest.approx(backward.kappa_stderr, abs=1e-15)
    (x11, x10), (x01, x00) = forward.table
    assert backward.table == ((x11, x01), (x10, x00))
    assert 0 <= forward.agreement <= 1
    if forward.kappa is not None:
        assert -1 <= forward.kappa <= 1 + 1e-15
        assert forward.kappa_ci_low <= forward.kappa <= forward.kappa_ci_high
        assert forward.kappa_ci_low >= -1 and forward.kappa_ci_high <= 1
        assert (forward.kappa == pytest.approx(1.0)) == (forward.agreement == 1.0)


def test_kappa_equals_scikit_learn_when_it_is_installed():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(31)
    for _ in range(20):
        size = int(rng.integers(5, 60))
        a = rng.random(size) < rng.random()
        b = np.where(rng.random(size) < 0.7, a, rng.random(size) < 0.5)
        if len(set(a.tolist()) | set(b.tolist())) < 2:
            continue
        assert judge_agreement(a, b).kappa == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)
    # one constant judge: both give 0
    assert judge_agreement([True] * 3, [True, False, True]).kappa == metrics.cohen_kappa_score([1, 1, 1], [1, 0, 1])


def test_edge_cases_are_stated_values():
    perfect = judge_agreement([True, False, True, False], [True, False, True, False])
    assert (perfect.agreement, perfect.kappa, perfect.kappa_stderr) == (1.0, 1.0, 0.0)
    assert (perfect.kappa_ci_low, perfect.kappa_ci_high) == (1.0, 1.0)
    constant_equal = judge_agreement([False] * 5, [False] * 5)  # p_e = 1: kappa is 0/0
    assert (constant_equal.agreement, constant_equal.expected_agreement, constant_equal.kappa) == (1.0, 1.0, None)
    one_constant = judge_agreement([True] * 4, [True, True, False, True])
    assert one_constant.kappa == 0.0 and one_constant.agreement == 0.75
    opposite_constants = judge_agreement([True] * 4, [False] * 4)  # p_o = p_e = 0
    assert (opposite_constants.agreement, opposite_constants.kappa) == (0.0, 0.0)
    full_disagreement = judge_agreement([True, False], [False, True])
    assert full_disagreement.kappa == -1.0
    nothing = judge_agreement([None, True], [False, None])
    assert (nothing.compared, nothing.agreement, nothing.kappa, nothing.unresolved_a, nothing.unresolved_b) == (
        0,
        None,
        None,
        1,
        1,
    )


def test_unresolved_are_counted_per_side_and_left_out():
    a = np.array([[True, None, False, None], [True, True, float("nan"), False]], dtype=object)
    b = np.array([[True, False, None, None], [False, True, True, False]], dtype=object)
    result = judge_agreement(a, b)
    assert (result.items, result.compared) == (8, 4)
    assert (result.unresolved_a, result.unresolved_b, result.unresolved_both) == (3, 2, 1)
    assert result.table == ((2, 1), (0, 1))
    # float arrays with NaN and int 1/0 arrays are read the same way
    as_float = np.array([[1, np.nan, 0, np.nan], [1, 1, np.nan, 0]])
    as_float_b = np.array([[1, 0, np.nan, np.nan], [0, 1, 1, 0]])
    assert judge_agreement(as_float, as_float_b) == result


def _kappa_of_probabilities(p: np.ndarray) -> float:
    p = p.reshape(2, 2) / p.sum()
    p_o, p_e = p[0, 0] + p[1, 1], p.sum(axis=1) @ p.sum(axis=0)
    return (p_o - p_e) / (1 - p_e)


@pytest.mark.parametrize("cells", [(40, 5, 10, 45), (70, 3, 12, 15), (20, 20, 20, 40), (9, 1, 2, 3)])
def test_standard_error_equals_the_delta_method_by_numerical_differentiation(cells):
    counts = np.array(cells, dtype=float)
    total = counts.sum()
    p = counts / total
    step = 1e-6
    gradient = np.array(
        [
            (_kappa_of_probabilities(p + step * e) - _kappa_of_probabilities(p - step * e)) / (2 * step)
            for e in np.eye(4)
        ]
    )
    covariance = (np.diag(p) - np.outer(p, p)) / total
    expected = math.sqrt(gradient @ covariance @ gradient)
    a, b = verdicts_from_table(*cells)
    assert judge_agreement(a, b).kappa_stderr == pytest.approx(expected, rel=1e-6)


def test_standard_error_and_wald_coverage_by_simulation():
    p = np.array([0.45, 0.08, 0.12, 0.35])
    kappa_true = _kappa_of_probabilities(p)
    rng = np.random.default_rng(32)
    replicates, items = 2000, 300
    kappas, covered, stderrs = [], 0, []
    for cells in rng.multinomial(items, p, size=replicates):
        result = judge_agreement(*verdicts_from_table(*cells.tolist()))
        kappas.append(result.kappa)
        stderrs.append(result.kappa_stderr)
        covered += result.kappa_ci_low <= kappa_true <= result.kappa_ci_high
    spread = float(np.std(kappas, ddof=1))
    # relative MC error of a standard deviation is about 1 / sqrt(2 R); allow 3% for O(1/N) terms
    assert float(np.mean(stderrs)) == pytest.approx(spread, rel=Z / math.sqrt(2 * replicates) + 0.03)
    coverage = covered / replicates
    assert abs(coverage - 0.95) <= Z * math.sqrt(0.95 * 0.05 / replicates), coverage


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: judge_agreement([True], [True, False]), "must be aligned"),
        (
            lambda: judge_agreement(["yes", True], [True, True]),
            "verdicts_a must hold True, False or None (unresolved); got 'yes' at (0,)",
        ),
        (lambda: judge_agreement([True, True], np.array([1.0, 2.0])), "got 2.0 at (1,)"),
        (lambda: judge_agreement([True], [True], ci=0), "ci must be in (0, 1), got 0"),
        (lambda: metric_shift([1, 2], [1, 2, 3], 4), "got shapes (2,) and (3,)"),
        (lambda: verdict_counts([True, False]), "questions x generations (2-D)"),
    ],
)
def test_bad_input_raises_a_one_line_input_error(call, message):
    with pytest.raises(InputError) as error:
        call()
    assert message in str(error.value) and "\n" not in str(error.value)


def test_disagreements_equal_a_plain_loop():
    rng = np.random.default_rng(33)
    choices = np.array([True, False, None], dtype=object)
    a, b = choices[rng.integers(0, 3, (6, 5))], choices[rng.integers(0, 3, (6, 5))]
    expected = [
        [i, j]
        for i, j in itertools.product(range(6), range(5))
        if a[i, j] is not None and b[i, j] is not None and a[i, j] != b[i, j]
    ]
    assert disagreements(a, b).tolist() == expected
    with_unresolved = [
        [i, j]
        for i, j in itertools.product(range(6), range(5))
        if [i, j] in expected or ((a[i, j] is None) != (b[i, j] is None))
    ]
    assert disagreements(a, b, unresolved=True).tolist() == with_unresolved
    assert len(expected) == sum(judge_agreement(a, b).table[i][1 - i] for i in range(2))


def test_metric_shift_matches_the_exact_oracle_and_verdict_counts():
    rng = np.random.default_rng(34)
    choices = np.array([True, False, None], dtype=object)
    a = choices[rng.choice(3, size=(12, 8), p=[0.6, 0.3, 0.1])]
    b = np.where(rng.random((12, 8)) < 0.8, a, choices[rng.integers(0, 2, (12, 8))])
    counts_a, unresolved_a = verdict_counts(a)
    counts_b, _ = verdict_counts(b)
    assert counts_a.tolist() == [sum(v is True for v in row) for row in a]
    assert unresolved_a.tolist() == [sum(v is None for v in row) for row in a]
    shift = metric_shift(counts_a, counts_b, 8, k=[4, 8], thresholds=["0.5", "1"])
    for k in (4, 8):
        for tau, key in ((Fraction(1, 2), f"G-Pass@{k}_0.5"), (Fraction(1), f"G-Pass@{k}_1.0"), (None, f"mG-Pass@{k}")):
            assert shift[key].under_a == pytest.approx(exact_mean(counts_a.tolist(), 8, k, tau), abs=1e-10)
            assert shift[key].under_b == pytest.approx(exact_mean(counts_b.tolist(), 8, k, tau), abs=1e-10)
            assert shift[key].difference == pytest.approx(shift[key].under_b - shift[key].under_a, abs=1e-12)
    accuracy = shift["accuracy (8 runs average)"]
    assert accuracy.under_a == pytest.approx(100 * float(Fraction(int(counts_a.sum()), 96)), abs=1e-12)
