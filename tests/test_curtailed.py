"""The curtailed two-stage estimator against path counting in integers (tests/exact.py), a brute-force listing of
every outcome sequence, and exact enumeration of its expectation: unbiased for every p, bias 0 in Fractions."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import (
    brute_force_curtailed_tail,
    curtailed_paths,
    exact_curtailed_tail,
    exact_g_pass,
    exact_m,
    exact_stage1_tails,
)
from gpassk_opencompass import curtailed
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import g_pass_at_k, mg_pass_at_k, pass_at_k, summarize

RULES = ("all-wrong", "all-wrong-or-right")
TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")


def outcomes(design: Curtailed) -> list[tuple[int, int]]:
    """Every (N, C) the design can produce."""
    stopped = [(design.n1, c) for c in sorted(design.stop_set)]
    return stopped + [(design.n, c) for c in range(design.n + 1) if design.admissible(design.n, c)]


def exact_mg(design: Curtailed, drawn: int, correct: int, k: int) -> Fraction:
    first = (k + 1) // 2 + 1
    return Fraction(2, k) * sum(
        (exact_curtailed_tail(design.n1, design.n, design.stop_set, drawn, correct, k, i) for i in range(first, k + 1)),
        Fraction(0),
    )


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("n1", "n", "k"), [(1, 2, 1), (4, 8, 4), (4, 8, 2), (8, 12, 3), (16, 48, 16), (16, 48, 4)])
def test_every_outcome_matches_path_counting(n1, n, k, rule):
    design = Curtailed(n1, n, rule)
    drawn, correct = np.array(outcomes(design)).T
    for tau in TAUS:
        m = exact_m(k, tau)
        expected = [float(exact_curtailed_tail(n1, n, design.stop_set, d, c, k, m)) for d, c in zip(drawn, correct)]
        assert g_pass_at_k(drawn, correct, k, tau, design) == pytest.approx(expected, abs=1e-13)
    expected = [float(exact_mg(design, d, c, k)) for d, c in zip(drawn, correct)]
    assert mg_pass_at_k(drawn, correct, k, design) == pytest.approx(expected, abs=1e-13)
    expected = [float(exact_curtailed_tail(n1, n, design.stop_set, d, c, k, 1)) for d, c in zip(drawn, correct)]
    assert pass_at_k(drawn, correct, k, design) == pytest.approx(expected, abs=1e-13)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("n1", "n", "k"), [(2, 5, 2), (3, 7, 2), (4, 10, 3), (5, 12, 5)])
def test_path_counting_is_the_share_of_listed_sequences(n1, n, k, rule):
    """The integer path count (the oracle) against listing all 2^n outcome sequences: equal as Fractions."""
    design = Curtailed(n1, n, rule)
    for drawn, correct in outcomes(design):
        for m in range(1, k + 1):
            listed = brute_force_curtailed_tail(n1, n, design.stop_set, drawn, correct, k, m)
            assert exact_curtailed_tail(n1, n, design.stop_set, drawn, correct, k, m) == listed


def expectation(design: Curtailed, k: int, p: Fraction, estimate) -> list:
    """E_p[estimate(N, C)] per m in 0..k+1, summing over every (N, C) with its exact probability."""
    q = 1 - p
    total = [0] * (k + 2)
    for drawn, correct in outcomes(design):
        paths = sum(curtailed_paths(design.n1, design.n, design.stop_set, drawn, correct).values())
        probability = paths * p**correct * q ** (drawn - correct)
        for m, value in enumerate(estimate(drawn, correct)):
            total[m] += probability * value
    return total


def binomial_tail(k: int, p: Fraction, m: int) -> Fraction:
    return sum((math.comb(k, j) * p**j * (1 - p) ** (k - j) for j in range(max(m, 0), k + 1)), Fraction(0))


CASES = [(1, 1, 2), (4, 8, 16), (16, 16, 48), (16, 32, 48), (8, 40, 128), (64, 64, 128)]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("k", "n1", "n"), CASES)
def test_unbiased_exactly_in_fractions_and_to_1e12_in_floats(k, n1, n, rule):
    design = Curtailed(n1, n, rule)
    tails = exact_stage1_tails(n1, k)
    scale = math.comb(n1, k)

    def exact(drawn, correct):
        paths = curtailed_paths(n1, n, design.stop_set, drawn, correct)
        total = sum(paths.values()) * scale
        return [Fraction(sum(count * tails[c1][m] for c1, count in paths.items()), total) for m in range(k + 2)]

    drawn, correct = np.array(outcomes(design)).T  # the package's estimate of every column, for every outcome
    columns = [g_pass_at_k(drawn, correct, k, Fraction(m, k), design) for m in range(1, k + 1)]
    table = {
        (d, c): [1.0, *(float(column[i]) for column in columns), 0.0] for i, (d, c) in enumerate(zip(drawn, correct))
    }

    def computed(drawn, correct):
        return table[drawn, correct]

    for p in (Fraction(1, 7), Fraction(1, 2), Fraction(9, 10), Fraction(49, 50)):
        target = [binomial_tail(k, p, m) for m in range(k + 2)]
        assert expectation(design, k, p, exact) == target  # bias exactly 0
        floats = expectation(design, k, p, computed)
        assert max(abs(float(value - goal)) for value, goal in zip(floats, target)) < 1e-12


def test_the_plug_in_is_biased_as_docs_metrics_says():
    """The fixed-n formula on (N, C) after 'stop after 16 if all right or all wrong' overstates G-Pass@16_1.0."""
    design = Curtailed(16, 48, "all-wrong-or-right")

    def plug_in(drawn, correct):
        return [exact_g_pass(drawn, correct, 16, Fraction(m, 16)) if m else Fraction(1) for m in range(18)]

    for p, bias in ((Fraction(9, 10), "0.12"), (Fraction(49, 50), "0.14")):
        over = expectation(design, 16, p, plug_in)[16] - binomial_tail(16, p, 16)
        assert f"{float(over):.2f}" == bias


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_an_empty_stop_set_is_the_fixed_n_formula(monkeypatch_rules, data):
    n = data.draw(st.integers(1, 60))
    n1 = data.draw(st.integers(1, n))
    k = data.draw(st.integers(1, n1))
    c = data.draw(st.lists(st.integers(0, n), min_size=1, max_size=8))
    tau = data.draw(st.sampled_from(TAUS))
    design = Curtailed(n1, n, "never")
    assert g_pass_at_k(n, c, k, tau, design) == pytest.approx(g_pass_at_k(n, c, k, tau), abs=1e-13)
    assert mg_pass_at_k(n, c, k, design) == pytest.approx(mg_pass_at_k(n, c, k), abs=1e-13)


@pytest.fixture(scope="module")
def monkeypatch_rules():
    """A rule that never stops, registered as any new rule is: one entry of RULES."""
    rules = dict(curtailed.RULES)
    curtailed.RULES = {**rules, "never": lambda n1: frozenset()}  # type: ignore[misc]
    yield
    curtailed.RULES = rules  # type: ignore[misc]


def test_accuracy_is_pass_at_1_by_the_path_count_not_c_over_n():
    """A question stopped at 0 of 16 and one drawn on with 1 of 48: c/N is biased, the path count is not."""
    design = Curtailed(16, 48)
    estimate = pass_at_k([16, 48], [0, 1], 1, design)
    assert estimate.tolist() == pytest.approx([0.0, float(exact_curtailed_tail(16, 48, frozenset({0}), 48, 1, 1, 1))])
    # drawn on, its one success lies among the first 16 (else stage 1 would have stopped): 1/16, where c/N says 1/48
    assert estimate[1] == pytest.approx(1 / 16)


def test_summarize_takes_the_design():
    design = Curtailed(4, 8)
    got = summarize([0, 3], [4, 8], k=[4], thresholds=["0.5"], design=design)
    expected = (
        exact_curtailed_tail(4, 8, frozenset({0}), 4, 0, 4, 2) + exact_curtailed_tail(4, 8, frozenset({0}), 8, 3, 4, 2)
    ) / 2
    assert got["G-Pass@4_0.5"] == pytest.approx(100 * float(expected), abs=1e-11)


@pytest.mark.parametrize(
    ("drawn", "correct", "k", "message"),
    [
        ([16, 30], [0, 3], 4, "question 1 has 30 generations; curtailed at 16 of 48 each has 16 (stopped) or 48"),
        ([16, 48], [2, 3], 4, "question 0: 2 correct of 16 cannot come from curtailment at 16 of 48 (all-wrong"),
        ([48], [0], 4, "question 0: 0 correct of 48 cannot come from curtailment"),
        ([48], [5], 20, "k must be at most n1=16"),
    ],
)
def test_what_the_design_cannot_produce_is_refused(drawn, correct, k, message):
    with pytest.raises(InputError, match=re.escape(message)):
        g_pass_at_k(drawn, correct, k, 0.5, Curtailed(16, 48))


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("16", "--curtail must be N1:N or N1:N:RULE"),
        ("48:16", "1 <= n1 <= n <= 2048"),
        ("16:48:all-right", "unknown curtailment rule 'all-right'"),
        ("0:4", "1 <= n1 <= n"),
    ],
)
def test_a_bad_design_is_one_line(given, message):
    with pytest.raises(InputError, match=message):
        Curtailed.parse(given)
