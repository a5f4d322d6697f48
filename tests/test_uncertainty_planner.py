"""Sample-size planner: exact variance against rationals, planned against realised width by simulation.

Oracles: ``tests/exact.py`` (Fraction + math.comb) for the estimator at each c, binomial weights
as exact rationals; and Monte Carlo runs of the benchmark (c_i ~ Bin(n, p_i), optionally
questions resampled) scored by ``gpassk_opencompass.metrics`` -- the estimator whose spread
the planner predicts.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import g_pass_at_k, mg_pass_at_k
from gpassk_opencompass.uncertainty.planner import (
    expected_half_width,
    pilot_probabilities,
    plan_table,
    smallest_n,
    within_question_variance,
)
from tests.exact import exact_g_pass, exact_mg_pass


def exact_within_variance(p: Fraction, n: int, k: int, tau) -> Fraction:
    weights = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    values = [exact_mg_pass(n, c, k) if tau == "mG" else exact_g_pass(n, c, k, tau) for c in range(n + 1)]
    mean = sum((w * v for w, v in zip(weights, values)), Fraction(0))
    return sum((w * (v - mean) ** 2 for w, v in zip(weights, values)), Fraction(0))


@pytest.mark.parametrize(
    "p, n, k, tau",
    [
        (Fraction(1, 2), 16, 4, "0.5"),
        (Fraction(1, 3), 8, 8, "1.0"),
        (Fraction(7, 10), 20, 16, "mG"),
        (Fraction(1, 20), 48, 16, "0.0"),
        (Fraction(9, 10), 33, 5, "0.75"),
        (Fraction(2, 5), 64, 3, "mG"),
        (Fraction(0), 10, 4, "0.25"),
    ],
)
def test_within_variance_matches_exact_rationals(p, n, k, tau):
    got = within_question_variance([float(p)], n, k, tau if tau == "mG" else float(tau))[0]
    assert got == pytest.approx(float(exact_within_variance(p, n, k, tau)), rel=1e-12, abs=1e-17)


def _simulate(p, n, k, tau, questions, repetitions, seed, resample):
    """Realised benchmark estimates (in [0, 1]) over repeated runs."""
    rng = np.random.default_rng(seed)
    if resample:
        p = p[rng.integers(0, p.size, size=(repetitions, questions))]
    else:
        p = np.broadcast_to(p, (repetitions, p.size))
    counts = rng.binomial(n, p)
    values = mg_pass_at_k(n, counts, k) if tau == "mG" else g_pass_at_k(n, counts, k, tau)
    return values.mean(axis=1)


PILOT = np.random.default_rng(2).beta(0.6, 0.6, size=40)  # a heterogeneous pilot: easy, hard and mixed questions


@pytest.mark.parametrize(
    "n, k, tau, questions, resample, normal_shape",
    [
        (16, 4, 0.5, None, False, True),
        # k = n, tau = 1: each question's estimate is 0 or 1 and only the few easiest questions
        # ever score, so the average is lattice-valued and skewed: the std is still exact, but
        # +- z std covers ~98%, not 95% (a limit of any normal-approximation width; documented)
        (16, 16, 1.0, None, False, False),
        (48, 8, "mG", None, False, True),
        (8, 4, 0.25, None, True, True),
        (32, 16, "mG", 100, True, True),
        (12, 8, 0.75, 25, True, True),
    ],
)
def test_planned_std_matches_realised_spread(n, k, tau, questions, resample, normal_shape):
    """Planned std within 4 standard errors of the sample std of the simulated estimates
    (SE of a sample std: std * sqrt((kurtosis - 1) / (4 R)))."""
    repetitions = 4000
    plan = expected_half_width(PILOT, n, k, tau, questions=questions, include_question_sampling=resample)
    realised = _simulate(PILOT, n, k, tau, questions or PILOT.size, repetitions, seed=n * 100 + k, resample=resample)
    std = realised.std(ddof=1)
    kurtosis = stats.kurtosis(realised, fisher=False)
    assert abs(plan.std / 100 - std) <= 4 * std * math.sqrt((kurtosis - 1) / (4 * repetitions))
    # and the planned half-width is a `level` interval around the truth: the realised estimates
    # fall inside mean +- half_width in about 95% of runs (4 binomial SE; the normal shape of
    # the average of >= 25 questions is good to well under that here).
    if not normal_shape:
        return
    truth = realised.mean()
    inside = np.mean(np.abs(realised - truth) <= plan.half_width / 100)
    assert abs(inside - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / repetitions) + 0.005


def test_question_sampling_adds_the_population_variance_of_theta():
    p = np.array([0.05, 0.5, 0.95, 0.3])
    fixed = expected_half_width(p, 16, 4, 1.0, include_question_sampling=False)
    sampled = expected_half_width(p, 16, 4, 1.0, include_question_sampling=True)
    theta = p**4
    assert (sampled.std / 100) ** 2 - (fixed.std / 100) ** 2 == pytest.approx(theta.var() / 4, rel=1e-12)
    assert sampled.half_width / sampled.std == pytest.approx(stats.norm.ppf(0.975))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=10),
    st.integers(1, 8),
    st.sampled_from([0.0, 0.5, 1.0, "mG"]),
    st.booleans(),
)
def test_width_shrinks_with_n_and_with_questions(p, k, tau, sampled):
    widths = [
        expected_half_width(p, n, k, tau, include_question_sampling=sampled).std for n in (k, k + 1, 2 * k, 5 * k)
    ]
    assert all(later <= earlier + 1e-9 for earlier, later in itertools.pairwise(widths))
    one = expected_half_width(p, 3 * k, k, tau, questions=10, include_question_sampling=sampled)
    four = expected_half_width(p, 3 * k, k, tau, questions=40, include_question_sampling=sampled)
    assert four.half_width == pytest.approx(one.half_width / 2, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(0.02, 0.98), min_size=1, max_size=8),
    st.integers(1, 6),
    st.sampled_from([0.25, 1.0, "mG"]),
    st.floats(0.5, 40),
    st.booleans(),
)
def test_smallest_n_is_the_smallest(p, k, tau, target, sampled):
    n_max = 200
    found = smallest_n(p, k, tau, target, include_question_sampling=sampled, n_max=n_max)

    def width(n):
        return expected_half_width(p, n, k, tau, include_question_sampling=sampled).half_width

    if found is None:
        assert width(n_max) > target
    else:
        assert k <= found <= n_max and width(found) <= target
        assert found == k or width(found - 1) > target


def test_pilot_probabilities():
    matrix = [[1, 1, 0, None], [0, 0, 0, 0], [1, 1, 1, 1]]
    assert pilot_probabilities(matrix).tolist() == pytest.approx([3 / 5, 1 / 6, 5 / 6])
    assert pilot_probabilities([2, 0, 4], [3, 4, 4], prior=None).tolist() == pytest.approx([2 / 3, 0, 1])
    assert pilot_probabilities([2, 0], 4, prior=(0.5, 0.5)).tolist() == pytest.approx([0.5, 0.1])


def test_plan_table_rows():
    rows = plan_table(PILOT, ns=[4, 16], k=[4, 8], thresholds=[0.5], questions=[None, 80])
    # k = 8 > n = 4 is skipped; per (questions, n): per k, the thresholds then mG
    assert [(r.questions, r.n, r.key) for r in rows[:6]] == [
        (40, 4, "G-Pass@4_0.5"),
        (40, 4, "mG-Pass@4"),
        (40, 16, "G-Pass@4_0.5"),
        (40, 16, "mG-Pass@4"),
        (40, 16, "G-Pass@8_0.5"),
        (40, 16, "mG-Pass@8"),
    ]
    assert len(rows) == 12
    assert rows[2] == expected_half_width(PILOT, 16, 4, 0.5)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: expected_half_width([0.5, 1.2], 8, 4, 0.5), "p must be probabilities in [0, 1]; got p=1.2"),
        (lambda: expected_half_width([0.5], 3, 4, 0.5), "n must satisfy n >= k"),
        (lambda: expected_half_width([0.5], 8, 4, 0.5, questions=0), "questions must be a positive integer"),
        (lambda: expected_half_width([0.5], 8, 4, 0.5, level=95), "level must be in (0, 1)"),
        (lambda: expected_half_width([0.5], 8, 4, "avg"), "tau must be a threshold in [0, 1] or 'mG'"),
        (lambda: expected_half_width([], 8, 4, 0.5), "p must be one success probability per question"),
        (lambda: smallest_n([0.5], 4, 0.5, 0), "target_half_width must be a positive number"),
        (lambda: pilot_probabilities([1, 2]), "n (generations per question) is required"),
        (lambda: pilot_probabilities([[None, None]], prior=None), "raw c/n is undefined"),
        (lambda: plan_table([0.5], ns=[]), "ns must name at least one n"),
    ],
)
def test_bad_input_raises_one_line_input_error(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_docs_worked_example():
    counts = [0, 0, 1, 3, 5, 8, 8, 10, 12, 14, 15, 16, 16, 16, 2, 6, 9, 11, 13, 16]
    p = pilot_probabilities(counts, 16)
    fixed = expected_half_width(p, 16, 4, 0.5, include_question_sampling=False)
    sampled = expected_half_width(p, 16, 4, 0.5)
    exact_p = [Fraction(c + 1, 18) for c in counts]
    within = sum(exact_within_variance(q, 16, 4, "0.5") for q in exact_p) / len(counts)
    theta = [1 - (1 - q) ** 4 - 4 * q * (1 - q) ** 3 for q in exact_p]  # P(Bin(4, q) >= 2)
    between = sum((t - sum(theta) / len(theta)) ** 2 for t in theta) / len(theta)
    assert fixed.std == pytest.approx(100 * math.sqrt(float(within) / 20), rel=1e-12)
    assert sampled.std == pytest.approx(100 * math.sqrt(float(within + between) / 20), rel=1e-12)
    assert [round(x, 2) for x in (fixed.std, fixed.half_width, sampled.std, sampled.half_width)] == [
        2.71,
        5.31,
        8.63,
        16.91,
    ]
    assert smallest_n(p, 4, 0.5, 3.0, include_question_sampling=False) == 49
    assert smallest_n(p, 4, 0.5, 3.0) is None  # 20 questions cannot give +-3 points
