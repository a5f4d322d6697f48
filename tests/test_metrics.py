"""G-Pass@k metrics against an independent exact computation (Fraction + math.comb)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_g_pass, exact_integral, exact_m, exact_mg_pass  # the independent oracle
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import (
    DEFAULT_THRESHOLDS,
    METRIC_KEY,
    accuracy_key,
    g_pass_at_k,
    metric_key,
    mg_metric_key,
    mg_pass_at_k,
    mg_pass_at_k_integral,
    pass_at_k,
    required_correct,
    summarize,
    summarize_uncertainty,
)
from metric_card import METRIC_CARD

TOLERANCE = 1e-12


# ------------------------------------------------------------ golden values

GOLDEN_CASES = [
    (n, c, k, tau)
    for n, cs, ks in [
        (1, [0, 1], [1]),
        (5, [0, 3, 4, 5], [1, 2, 3, 5]),
        (16, [0, 1, 7, 8, 15, 16], [1, 4, 8, 16]),
        (48, [0, 1, 5, 24, 30, 47, 48], [4, 8, 16, 48]),
        (100, [3, 50, 97], [7, 100]),
    ]
    for c in cs
    for k in ks
    if k <= n
    for tau in ["0", "0.07", "0.25", "1/3", "0.5", "0.75", "1"]
]


@pytest.mark.parametrize("n, c, k, tau", GOLDEN_CASES)
def test_g_pass_at_k_matches_exact_rational(n, c, k, tau):
    expected = exact_g_pass(n, c, k, Fraction(tau))
    assert abs(float(g_pass_at_k(n, c, k, Fraction(tau))) - float(expected)) <= TOLERANCE


@pytest.mark.parametrize("n, c, k", sorted({(n, c, k) for n, c, k, _ in GOLDEN_CASES}))
def test_mg_pass_and_pass_at_k_match_exact_rational(n, c, k):
    assert abs(float(mg_pass_at_k(n, c, k)) - float(exact_mg_pass(n, c, k))) <= TOLERANCE
    assert abs(float(mg_pass_at_k_integral(n, c, k)) - float(exact_integral(n, c, k))) <= TOLERANCE
    pass_k = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert abs(float(pass_at_k(n, c, k)) - float(pass_k)) <= TOLERANCE


def test_integral_equals_paper_formula_for_even_k_only():
    for k in (2, 4, 8, 16):
        assert exact_integral(16, 9, k) == exact_mg_pass(16, 9, k)
        assert float(mg_pass_at_k_integral(16, 9, k)) == pytest.approx(float(mg_pass_at_k(16, 9, k)), abs=1e-15)
    for k in (3, 5, 15):
        assert exact_integral(16, 9, k) != exact_mg_pass(16, 9, k)


def test_metric_card_worked_example():
    predictions = ["a", "b", "a", "a", "b", "a", "b", "c", "a", "c", "b", "a", "a", "b", "a", "b"]
    c = sum(p == "a" for p in predictions)
    assert c == 8
    result = summarize([c], len(predictions), k=[4, 8], thresholds=[0.25, 0.5, 0.75, 1.0])
    assert set(result) == set(METRIC_CARD)
    for key, value in METRIC_CARD.items():
        assert result[key] / 100 == pytest.approx(value, abs=TOLERANCE), key


def test_scorio_docstring_examples():
    """scorio's pass-family docstring example: R = [[0,1,1,0,1],[1,1,0,1,1]] -> G-Pass@1 0.7, @2 0.45, @2_0.5 0.95, mG@2 0.45, mG@3 1/6."""
    matrix = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    result = summarize(matrix, k=[1, 2, 3], thresholds=[0.5, 1.0])
    assert result["G-Pass@1_1.0"] == pytest.approx(70.0, abs=1e-10)
    assert result["G-Pass@2_1.0"] == pytest.approx(45.0, abs=1e-10)
    assert result["G-Pass@2_0.5"] == pytest.approx(95.0, abs=1e-10)
    assert result["mG-Pass@2"] == pytest.approx(45.0, abs=1e-10)
    assert result["mG-Pass@3"] == pytest.approx(100 / 6, abs=1e-10)


@pytest.mark.parametrize("n", [256, 1024, 4096])
def test_large_n_is_exact_without_overflow(n):
    rng = np.random.default_rng(n)
    for k in (1, 16, 64, min(n // 2, 512)):
        counts = np.unique(np.concatenate([[0, 1, n // 2, n - 1, n], rng.integers(0, n + 1, 6)]))
        for tau in (Fraction(0), Fraction(1, 2), Fraction(3, 4), Fraction(1)):
            got = g_pass_at_k(n, counts, k, tau)
            assert np.isfinite(got).all()
            for c, value in zip(counts.tolist(), got.tolist()):
                assert abs(value - float(exact_g_pass(n, c, k, tau))) <= TOLERANCE, (n, c, k, tau)


def test_huge_table_is_built_row_wise_and_still_exact():
    n, k = 4096, 4000  # (n + 1) * (k + 2) is past the full-table size
    for c in (3999, 4000, 4050):
        assert abs(float(g_pass_at_k(n, c, k, 0.99)) - float(exact_g_pass(n, c, k, Fraction(99, 100)))) <= TOLERANCE


# -------------------------------------------------------------- broadcasting


def test_scalar_call_gives_a_float_and_array_call_an_array():
    scalar = g_pass_at_k(16, 8, 4, 0.5)
    assert np.ndim(scalar) == 0 and isinstance(float(scalar), float)
    array = g_pass_at_k(16, np.array([[0, 8], [12, 16]]), 4, 0.5)
    assert isinstance(array, np.ndarray) and array.shape == (2, 2)
    assert array[0, 1] == scalar


def test_broadcasting_mixed_n_and_k_per_question():
    n = np.array([16, 48, 48, 5])
    c = np.array([8, 30, 30, 3])
    k = np.array([4, 16, 8, 2])
    got = g_pass_at_k(n, c, k, 0.75)
    expected = [float(exact_g_pass(*args, Fraction(3, 4))) for args in zip(n.tolist(), c.tolist(), k.tolist())]
    np.testing.assert_allclose(got, expected, rtol=0, atol=TOLERANCE)


def test_integral_floats_are_accepted_as_integers():
    assert g_pass_at_k(16.0, np.array([8.0]), 4.0, 0.5)[0] == g_pass_at_k(16, 8, 4, 0.5)


# ---------------------------------------------------------- the threshold m


@pytest.mark.parametrize(
    "k, tau, m",
    [
        (100, 0.07, 7),
        (100, "0.07", 7),
        (10, 0.3, 3),
        (10, 0.7, 7),
        (3, 1 / 3, 1),
        (16, 0.0, 1),
        (16, 0.01, 1),
        (16, 1.0, 16),
        (4, 0.25, 1),
        (4, 0.26, 2),
        (48, 0.5, 24),
        (3, Fraction(2, 3), 2),
        (7, 0.29, 3),
    ],
)
def test_required_correct_uses_the_decimal_value_of_tau(k, tau, m):
    assert required_correct(k, tau) == m


def test_float_ceil_would_be_wrong_at_the_documented_boundary():
    assert math.ceil(100 * 0.07) == 8  # the trap the exact computation avoids
    assert float(g_pass_at_k(100, 7, 100, 0.07)) == 1.0  # all 7 correct drawn: at least 7 of 100


# ---------------------------------------------------------------- bad input

BAD_INPUTS = [
    (dict(n=16, c=8, k=0, tau=0.5), "k must satisfy k >= 1; got k=0"),
    (
        dict(n=16, c=8, k=17, tau=0.5),
        "k must satisfy k <= n (cannot draw more generations than there are); got k=17 with n=16",
    ),
    (dict(n=16, c=-1, k=4, tau=0.5), "c must satisfy c >= 0; got c=-1"),
    (
        dict(n=16, c=17, k=4, tau=0.5),
        "c must satisfy c <= n (more correct generations than generations); got c=17 with n=16",
    ),
    (dict(n=16, c=[8, 9, 20], k=4, tau=0.5), "got c=20 (question 2) with n=16"),
    (dict(n=0, c=0, k=1, tau=0.5), "n must satisfy n >= 1"),
    (dict(n=16, c=8.5, k=4, tau=0.5), "c must be integers; got c=8.5"),
    (dict(n=16.5, c=8, k=4, tau=0.5), "n must be integers; got n=16.5"),
    (dict(n=16, c=8, k=4.2, tau=0.5), "k must be integers; got k=4.2"),
    (dict(n=16, c=float("nan"), k=4, tau=0.5), "c must be integers; got c=nan"),
    (dict(n=16, c=[1, float("nan")], k=4, tau=0.5), "c must be integers; got c=nan (question 1)"),
    (dict(n=16, c="8", k=4, tau=0.5), "c must be integers"),
    (dict(n=16, c=True, k=4, tau=0.5), "c must be integers, not booleans"),
    (dict(n=16, c=8, k=4, tau=1.5), "tau must be in [0, 1]; got tau=1.5"),
    (dict(n=16, c=8, k=4, tau=-0.1), "tau must be in [0, 1]; got tau=-0.1"),
    (dict(n=16, c=8, k=4, tau=float("nan")), "tau must be a real number in [0, 1]; got nan"),
    (dict(n=16, c=8, k=4, tau="half"), "tau must be a real number in [0, 1]; got 'half'"),
    (dict(n=[16, 16], c=[1, 2, 3], k=4, tau=0.5), "n, c and k must broadcast to one shape"),
]


@pytest.mark.parametrize("kwargs, message", BAD_INPUTS)
def test_bad_input_names_the_value_and_the_rule(kwargs, message):
    with pytest.raises(InputError) as error:
        g_pass_at_k(**kwargs)
    assert message in str(error.value)


@pytest.mark.parametrize("function", [pass_at_k, mg_pass_at_k, mg_pass_at_k_integral])
def test_every_metric_validates(function):
    with pytest.raises(InputError, match="k <= n"):
        function(4, 2, 5)
    with pytest.raises(InputError, match="c must be integers"):
        function(4, 2.5, 2)


# ---------------------------------------------------------------- properties

# 100 examples each: the exact values are checked against the oracle above; these are sanity properties.
questions = st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n)))
taus = st.fractions(0, 1, max_denominator=20)


@settings(max_examples=100, deadline=None)
@given(questions, taus)
def test_values_are_probabilities(question, tau):
    n, c, k = question
    for value in (g_pass_at_k(n, c, k, tau), mg_pass_at_k(n, c, k), pass_at_k(n, c, k), mg_pass_at_k_integral(n, c, k)):
        assert 0.0 <= float(value) <= 1.0


@settings(max_examples=100, deadline=None)
@given(questions, taus)
def test_non_decreasing_in_c(question, tau):
    n, _, k = question
    values = g_pass_at_k(n, np.arange(n + 1), k, tau)
    assert np.all(np.diff(values) >= -1e-15)
    assert np.all(np.diff(mg_pass_at_k(n, np.arange(n + 1), k)) >= -1e-15)


@settings(max_examples=100, deadline=None)
@given(questions, taus, taus)
def test_non_increasing_in_tau(question, tau_a, tau_b):
    n, c, k = question
    low, high = sorted((tau_a, tau_b))
    assert float(g_pass_at_k(n, c, k, low)) >= float(g_pass_at_k(n, c, k, high)) - 1e-15


@settings(max_examples=100, deadline=None)
@given(questions)
def test_tau_zero_is_pass_at_k_and_tau_one_is_the_all_correct_ratio(question):
    n, c, k = question
    assert float(g_pass_at_k(n, c, k, 0)) == float(pass_at_k(n, c, k))
    expected = Fraction(math.comb(c, k), math.comb(n, k))
    assert abs(float(g_pass_at_k(n, c, k, 1)) - float(expected)) <= TOLERANCE


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), taus)
def test_k_equal_n_is_a_step_function(n, tau):
    m = exact_m(n, tau)
    values = g_pass_at_k(n, np.arange(n + 1), n, tau)
    np.testing.assert_array_equal(values, (np.arange(n + 1) >= m).astype(float))


# ----------------------------------------------------------------- summarize


def test_summarize_keys_and_order_match_opencompass():
    result = summarize([3, 4], 5, k=[2, 4])
    assert list(result) == [
        "G-Pass@2_0.0",
        "G-Pass@2_0.25",
        "G-Pass@2_0.5",
        "G-Pass@2_0.75",
        "G-Pass@2_1.0",
        "mG-Pass@2",
        "G-Pass@4_0.0",
        "G-Pass@4_0.25",
        "G-Pass@4_0.5",
        "G-Pass@4_0.75",
        "G-Pass@4_1.0",
        "mG-Pass@4",
    ]
    assert DEFAULT_THRESHOLDS == (0.0, 0.25, 0.5, 0.75, 1.0)


def test_summarize_means_times_100():
    counts = [0, 5, 17, 30, 48]
    result = summarize(counts, 48, k=[16], thresholds=[0.5])
    expected = sum(exact_g_pass(48, c, 16, Fraction(1, 2)) for c in counts) / len(counts) * 100
    assert result["G-Pass@16_0.5"] == pytest.approx(float(expected), abs=1e-10)


def test_summarize_binary_matrix_equals_counts():
    rng = np.random.default_rng(7)
    matrix = rng.random((50, 16)) < 0.6
    assert summarize(matrix, k=[4, 8]) == summarize(matrix.sum(axis=1), 16, k=[4, 8])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: summarize([], 16, k=[4]), "no questions"),
        (lambda: summarize([1, 2], None, k=[4]), "n (generations per question) is required"),
        (lambda: summarize([[0, 2], [1, 1]], k=[1]), "must be binary"),
        (lambda: summarize([[0, 1], [1, 1]], 3, k=[1]), "does not match the 2 columns"),
        (lambda: summarize([4, 9], 8, k=[4]), "c=9 (question 1) with n=8"),
        (lambda: summarize([4], 8, k=[16]), "ks must satisfy k <= n; got k=16 with n=8"),
        (lambda: summarize([4], 8, k=[]), "at least one k"),
        (lambda: summarize([4], 8, k=[4], thresholds=[2]), "tau must be in [0, 1]"),
        (lambda: summarize(np.zeros((2, 2, 2)), 8, k=[4]), "shape (2, 2, 2)"),
    ],
)
def test_summarize_rejects_bad_input(call, message):
    with pytest.raises(InputError) as error:
        call()
    assert message in str(error.value)


# --------------------------------------------------------------- uncertainty


def test_uncertainty_mean_and_stderr_are_the_textbook_ones():
    counts = np.array([0, 3, 8, 8, 12, 16, 16, 5])
    estimates = summarize_uncertainty(counts, 16, k=[4], thresholds=[0.5])
    values = np.array([float(exact_g_pass(16, int(c), 4, Fraction(1, 2))) for c in counts])
    estimate = estimates["G-Pass@4_0.5"]
    assert estimate.mean == pytest.approx(100 * values.mean(), abs=1e-10)
    assert estimate.stderr == pytest.approx(100 * values.std(ddof=1) / math.sqrt(len(values)), abs=1e-10)
    assert estimate.ci == 0.95
    assert estimate.ci_low <= estimate.mean <= estimate.ci_high


def test_bootstrap_is_seeded_and_matches_the_normal_width_for_many_questions():
    rng = np.random.default_rng(3)
    counts = rng.binomial(48, rng.random(2000))
    a = summarize_uncertainty(counts, 48, k=[16], thresholds=[0.75], n_boot=2000, seed=11)
    b = summarize_uncertainty(counts, 48, k=[16], thresholds=[0.75], n_boot=2000, seed=11)
    c = summarize_uncertainty(counts, 48, k=[16], thresholds=[0.75], n_boot=2000, seed=12)
    assert a == b and a != c
    estimate = a["mG-Pass@16"]
    width = estimate.ci_high - estimate.ci_low
    assert width == pytest.approx(2 * 1.959964 * estimate.stderr, rel=0.1)


def test_bootstrap_over_groups_has_the_distribution_of_resampling_questions():
    """Multinomial-over-groups draws equal, in law, naive index resampling: compare quantiles."""
    counts = np.array([0, 0, 1, 4, 4, 4, 7, 8] * 5)
    ours = summarize_uncertainty(counts, 8, k=[4], thresholds=[1.0], n_boot=20000, seed=5)["G-Pass@4_1.0"]
    values = np.array([float(exact_g_pass(8, int(c), 4, Fraction(1))) for c in counts])
    rng = np.random.default_rng(99)
    naive = values[rng.integers(0, len(values), size=(20000, len(values)))].mean(axis=1) * 100
    low, high = np.quantile(naive, [0.025, 0.975])
    assert ours.ci_low == pytest.approx(low, abs=0.6)
    assert ours.ci_high == pytest.approx(high, abs=0.6)


def test_single_question_has_no_stderr_and_a_degenerate_interval():
    estimate = summarize_uncertainty([8], 16, k=[4], thresholds=[0.5])["G-Pass@4_0.5"]
    assert estimate.stderr is None
    assert estimate.ci_low == estimate.ci_high == pytest.approx(estimate.mean)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(ci=1.0), "ci must be in (0, 1), got 1.0"),
        (dict(ci=0), "ci must be in (0, 1), got 0"),
        (dict(n_boot=0), "n_boot must be a positive integer; got n_boot=0"),
        (dict(n_boot=10.5), "got n_boot=10.5"),
    ],
)
def test_uncertainty_rejects_bad_parameters(kwargs, message):
    with pytest.raises(InputError) as error:
        summarize_uncertainty([1, 2], 4, k=[2], **kwargs)
    assert message in str(error.value)


# ------------------------------------------------- agreement with OpenCompass


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_agrees_with_opencompass_own_implementation():
    from opencompass.openicl.icl_evaluator.icl_base_evaluator import (
        compute_g_pass_at_k,
        compute_mg_pass_at_k,
    )

    n = 48
    counts = np.arange(n + 1)
    for k in (1, 4, 8, 16, 48):
        for tau in DEFAULT_THRESHOLDS:
            ours = g_pass_at_k(n, counts, k, tau)
            theirs = [compute_g_pass_at_k(n=n, c=int(c), k=k, t=tau) for c in counts]
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOLERANCE)
        theirs = [compute_mg_pass_at_k(n=n, c=int(c), k=k) for c in counts]
        np.testing.assert_allclose(mg_pass_at_k(n, counts, k), theirs, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("subset", [None, "en", "level 5/algebra"])
@pytest.mark.parametrize("tau", [0, 0.25, 1, 1e-05, 1.5e-07, Fraction(1, 3)])
def test_the_one_key_parser_reads_every_key_the_metrics_write(subset, tau):
    prefix = "" if subset is None else f"{subset}/"
    for key, k, written_tau in [
        (metric_key(16, tau), "16", metric_key(16, tau).split("_", 1)[1]),
        (mg_metric_key(8), "8", None),
        (accuracy_key(48), None, None),
        (accuracy_key(1), None, None),
    ]:
        match = METRIC_KEY.fullmatch(prefix + key)
        assert match is not None, key
        assert (match["subset"], match["k"], match["tau"]) == (subset, k, written_tau)
        assert match["tau"] is None or float(match["tau"]) == float(tau)


@pytest.mark.parametrize("key", ["G-Pass@4", "mG-Pass@4_0.5", "G-Pass@4_abc", "accuracy (x)", "pass@4", "bleu"])
def test_the_one_key_parser_refuses_what_is_not_a_metric_key(key):
    assert METRIC_KEY.fullmatch(key) is None
