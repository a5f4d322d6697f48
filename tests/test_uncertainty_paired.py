"""Paired comparison, rank intervals and adjacent-pair tests against independent oracles.

Oracles: brute-force enumeration of every sign vector with exact ``Fraction``
arithmetic (``tests/exact.py`` for the metric values), seeded simulation with
tolerances from the Monte-Carlo standard error, a naive loop bootstrap, and
scorio's ``rank`` module (test-only peer implementation).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_g_pass, exact_mean, exact_mg_pass  # the independent oracle
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.uncertainty.paired import accuracy_key, align_runs, metric_values, paired_comparison
from gpassk_opencompass.uncertainty.ranks import adjacent_significance, rank_intervals
from gpassk_opencompass.uncertainty.resampling import sign_flip_test

#: z for a two-sided MC check that fails by chance about once in 2000 runs (seeded anyway).
Z = 3.5


def brute_force_p(differences) -> Fraction:
    """P(|sum s_i d_i| >= |sum d_i|) over all 2**M sign vectors, exactly (zeros included)."""
    observed = abs(sum(differences, Fraction(0)))
    hits = sum(
        abs(sum((s * d for s, d in zip(signs, differences)), Fraction(0))) >= observed
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    return Fraction(hits, 2 ** len(differences))


def exact_metric(n: int, c: int, key: str) -> Fraction:
    if key.startswith("accuracy"):
        return Fraction(c, n)
    if key.startswith("mG-Pass@"):
        return exact_mg_pass(n, c, int(key.split("@")[1]))
    k, tau = key.removeprefix("G-Pass@").split("_")
    return exact_g_pass(n, c, int(k), Fraction(tau))


# ------------------------------------------------------------ exact sign-flip test


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_exact_p_value_equals_brute_force_enumeration_for_every_metric(data):
    n = data.draw(st.integers(2, 8), label="n")
    questions = data.draw(st.integers(1, 9), label="M")
    counts = st.lists(st.integers(0, n), min_size=questions, max_size=questions)
    a, b = data.draw(counts, label="a"), data.draw(counts, label="b")
    k = data.draw(st.integers(1, n), label="k")
    result = paired_comparison(a, b, n, k=[k], thresholds=["0", "0.5", "1"], n_boot=10)
    for key, value in result.items():
        differences = [exact_metric(n, x, key) - exact_metric(n, y, key) for x, y in zip(a, b)]
        assert value.test == "exact"
        assert value.p_value == pytest.approx(float(brute_force_p(differences)), abs=1e-15), key
        assert value.difference == pytest.approx(float(100 * sum(differences) / questions), abs=1e-10)
        assert value.questions_differing == sum(d != 0 for d in differences)


def test_rounding_level_differences_are_ties_not_differing_questions():
    """pass@3 with 2 and 3 of 4 correct is exactly 1 for both; floating point gives 1 - 1e-16 for one."""
    result = paired_comparison([0, 2, 0], [0, 3, 0], 4, k=[3], thresholds=[0.0])["G-Pass@3_0.0"]
    assert (result.questions_differing, result.p_value, result.difference) == (0, 1.0, 0.0)


def test_meet_in_the_middle_equals_numpy_brute_force_on_18_integer_differences():
    rng = np.random.default_rng(7)
    for _ in range(3):
        d = rng.integers(-3, 4, size=18)
        d[d == 0] = 1
        bits = (np.arange(2**18)[:, None] >> np.arange(18)) & 1
        sums = np.abs((1 - 2 * bits) @ d)
        expected = (sums >= abs(d.sum())).mean()
        result = sign_flip_test(d.astype(float), exact_max=18)
        assert (result.test, result.permutations) == ("exact", 2**18)
        assert result.p_value == expected


def test_zero_differences_are_not_flipped_and_all_zero_gives_p_one():
    assert sign_flip_test([0.0] * 50).p_value == 1.0
    with_zeros = sign_flip_test([0.0] * 30 + [0.5, 0.25, -0.125])
    assert (with_zeros.test, with_zeros.nonzero, with_zeros.permutations) == ("exact", 3, 8)
    assert with_zeros.p_value == float(brute_force_p([Fraction(1, 2), Fraction(1, 4), Fraction(-1, 8)]))


def test_monte_carlo_p_value_agrees_with_exact_within_its_standard_error():
    d = np.random.default_rng(3).normal(0.15, 1.0, size=22)
    exact = sign_flip_test(d, exact_max=22)
    n_perm = 20_000
    mc = sign_flip_test(d, exact_max=0, n_perm=n_perm, seed=5)
    assert (exact.test, mc.test) == ("exact", "monte-carlo")
    assert 0.05 < exact.p_value < 0.95  # an informative case
    se = math.sqrt(exact.p_value * (1 - exact.p_value) / n_perm)
    assert abs(mc.p_value - exact.p_value) <= Z * se + 1 / n_perm


def test_monte_carlo_p_value_has_the_plus_one_correction_and_is_seeded():
    strong = sign_flip_test(np.full(60, 0.3), n_perm=999)
    assert strong.p_value == 1 / 1000
    assert sign_flip_test(np.linspace(-1, 1.2, 50), seed=4) == sign_flip_test(np.linspace(-1, 1.2, 50), seed=4)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=40), st.integers(0, 3))
def test_swapping_the_models_negates_the_difference_and_mirrors_the_interval(pairs, seed):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    forward = paired_comparison(a, b, 6, k=[3], thresholds=[0.5], n_boot=200, n_perm=200, seed=seed)
    backward = paired_comparison(b, a, 6, k=[3], thresholds=[0.5], n_boot=200, n_perm=200, seed=seed)
    for key in forward:
        f, r = forward[key], backward[key]
        assert r.difference == pytest.approx(-f.difference, abs=1e-9)
        assert (r.ci_low, r.ci_high) == pytest.approx((-f.ci_high, -f.ci_low), abs=1e-9)
        assert (r.p_value, r.test, r.questions_differing) == (f.p_value, f.test, f.questions_differing)
        assert 0 < f.p_value <= 1 and f.ci_low <= f.ci_high


def test_exact_up_to_exact_max_then_monte_carlo():
    d = np.linspace(0.1, 1.0, 12) * np.resize([1, -1, 1], 12)
    assert sign_flip_test(d, exact_max=12).test == "exact"
    assert sign_flip_test(d, exact_max=11, n_perm=500).test == "monte-carlo"
    assert sign_flip_test(d, exact_max=11, n_perm=500).permutations == 500


# ------------------------------------------------------------ null distribution and power


def _rejection_rates(p_values: np.ndarray, alphas=(0.05, 0.1, 0.25, 0.5)):
    return {alpha: float((p_values <= alpha).mean()) for alpha in alphas}


def test_p_values_are_uniform_under_h0_exact_and_monte_carlo():
    rng = np.random.default_rng(11)
    replicates = 400
    exact = np.array([sign_flip_test(rng.normal(size=12)).p_value for _ in range(replicates)])
    mc = np.array([sign_flip_test(rng.normal(size=40), n_perm=199, seed=i).p_value for i in range(replicates)])
    for p_values in (exact, mc):
        for alpha, rate in _rejection_rates(p_values).items():
            se = math.sqrt(alpha * (1 - alpha) / replicates)
            assert abs(rate - alpha) <= Z * se, (alpha, rate)


def test_paired_comparison_is_valid_under_h0_on_discrete_counts():
    """Exchangeable A and B (same per-question success rate): P(p <= alpha) <= alpha (+ MC error)."""
    rng = np.random.default_rng(12)
    replicates, questions, n = 300, 30, 8
    p_values = []
    for i in range(replicates):
        rate = rng.beta(2, 2, size=questions)
        a, b = rng.binomial(n, rate), rng.binomial(n, rate)
        result = paired_comparison(a, b, n, k=[4], thresholds=[0.5], n_boot=1, n_perm=499, seed=i)
        p_values.append([r.p_value for r in result.values()])
    p_values = np.array(p_values)
    for column in range(p_values.shape[1]):
        for alpha, rate in _rejection_rates(p_values[:, column]).items():
            assert rate <= alpha + Z * math.sqrt(alpha * (1 - alpha) / replicates), (column, alpha, rate)


def test_power_under_a_large_effect():
    rng = np.random.default_rng(13)
    a, b = rng.binomial(16, 0.8, size=40), rng.binomial(16, 0.3, size=40)
    for key, result in paired_comparison(a, b, 16, k=[4, 8]).items():
        assert result.p_value < 1e-3, key
        assert 0 < result.ci_low <= result.difference <= result.ci_high, key


def test_bootstrap_interval_covers_the_population_difference():
    """Coverage of the 95% paired bootstrap interval of G-Pass@4_0.5 (truth from the exact oracle)."""
    n, k, tau = 8, 4, Fraction(1, 2)
    rates_a, rates_b = (
        [Fraction(3, 10), Fraction(6, 10), Fraction(9, 10)],
        [Fraction(2, 10), Fraction(5, 10), Fraction(7, 10)],
    )

    def expected_metric(rate: Fraction) -> Fraction:
        return sum(
            (math.comb(n, c) * rate**c * (1 - rate) ** (n - c) * exact_g_pass(n, c, k, tau) for c in range(n + 1)),
            Fraction(0),
        )

    truth = 100 * float(sum(expected_metric(a) - expected_metric(b) for a, b in zip(rates_a, rates_b)) / 3)
    rng = np.random.default_rng(14)
    replicates, questions = 300, 60
    covered = 0
    for i in range(replicates):
        kind = rng.integers(0, 3, size=questions)
        a = rng.binomial(n, np.array(rates_a, dtype=float)[kind])
        b = rng.binomial(n, np.array(rates_b, dtype=float)[kind])
        result = paired_comparison(
            a, b, n, k=[k], thresholds=[0.5], accuracy=False, n_boot=1000, n_perm=1, exact_max=0, seed=i
        )["G-Pass@4_0.5"]
        covered += result.ci_low <= truth <= result.ci_high
    coverage = covered / replicates
    se = math.sqrt(0.95 * 0.05 / replicates)
    assert abs(coverage - 0.95) <= Z * se, coverage


# ------------------------------------------------------------ scores and keys


def test_difference_is_the_difference_of_the_exact_scores():
    a, b = [0, 3, 7, 16, 12, 9], [2, 3, 5, 15, 16, 1]
    result = paired_comparison(a, b, 16, k=[4, 16], thresholds=["0.25", "1"])
    assert list(result) == [
        "accuracy (16 runs average)",
        "G-Pass@4_0.25",
        "G-Pass@4_1.0",
        "mG-Pass@4",
        "G-Pass@16_0.25",
        "G-Pass@16_1.0",
        "mG-Pass@16",
    ]
    for k in (4, 16):
        for tau, key in (("0.25", f"G-Pass@{k}_0.25"), ("1", f"G-Pass@{k}_1.0"), (None, f"mG-Pass@{k}")):
            tau_fraction = None if tau is None else Fraction(tau)
            assert result[key].mean_a == pytest.approx(exact_mean(a, 16, k, tau_fraction), abs=1e-10)
            assert result[key].mean_b == pytest.approx(exact_mean(b, 16, k, tau_fraction), abs=1e-10)
            assert result[key].difference == pytest.approx(result[key].mean_a - result[key].mean_b, abs=1e-10)


def test_binary_matrices_give_the_same_answer_as_counts():
    rng = np.random.default_rng(15)
    a, b = rng.random((25, 8)) < 0.6, rng.random((25, 8)) < 0.4
    from_matrix = paired_comparison(a, b, k=[4], seed=2)
    from_counts = paired_comparison(a.sum(axis=1), b.sum(axis=1), 8, k=[4], seed=2)
    assert from_matrix == from_counts


def test_accuracy_key_matches_the_results_files():
    from gpassk_opencompass.scoring.compute import accuracy_key as report_key

    for n in (1, 4, 48):
        assert accuracy_key(n) == report_key(n)
    assert accuracy_key([4, 8]) == report_key(None)


def test_metric_values_match_the_exact_oracle():
    counts = np.array([[0, 3, 8], [5, 6, 1]])
    for key in ("G-Pass@4_0.75", "mG-Pass@8", "accuracy (8 runs average)", "G-Pass@8_0.07"):
        expected = [[float(exact_metric(8, int(c), key)) for c in row] for row in counts]
        assert metric_values(counts, 8, key) == pytest.approx(np.array(expected), abs=1e-12)


# ------------------------------------------------------------ aligning runs and refusals


def test_align_runs_reorders_b_to_a_and_intersects_on_request():
    aligned = align_runs(
        ["x", "y", "z"],
        [1, 2, 3],
        ["z", "y", "x", "w"],
        [30, 20, 10, 0],
        n_a=4 * 1,
        n_b=4,
        ks_a=[2, 4],
        ks_b=(4, 2),
        intersect=True,
    )
    assert aligned.question_ids == ("x", "y", "z")
    assert aligned.counts_a.tolist() == [1, 2, 3] and aligned.counts_b.tolist() == [10, 20, 30]
    assert (aligned.n, aligned.ks, aligned.only_a, aligned.only_b) == (4, (2, 4), (), ("w",))
    with pytest.raises(ValueError):
        aligned.counts_a[0] = 5  # read-only


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(ids_a=["a", "b", "c", "d", "e"], ids_b=["a"]),
            "the runs do not share their questions: 4 only in A ('b', 'c', 'd', ...), 0 only in B (); "
            "compare runs of the same questions (or pass intersect=True to keep the 1 shared)",
        ),
        (dict(ids_a=["a", "b"], ids_b=["c", "d"]), "the runs share no question ids (A: 'a', 'b'; B: 'c', 'd')"),
        (dict(n_b=8), "n differs: run A has n=4, run B has n=8 generations per question"),
        (dict(n_b=[4, 8, 4]), "n differs on 1 shared questions (e.g. 'q2': run A n=4, run B n=8)"),
        (dict(ks_a=[4, 8], ks_b=[4]), "k differs: run A reports k=(4, 8), run B reports k=(4,)"),
        (dict(ks_a=[4]), "k is given for one run only (ks_a=[4], ks_b=None); give both or neither"),
        (dict(ids_a=["q1", "q2", "q1"]), "run A repeats question ids ('q1'); ids must be unique"),
        (dict(counts_b=[1, 2]), "run B has 3 question ids but counts of shape (2,); expected one count per id"),
    ],
)
def test_align_runs_refuses_with_one_line_naming_what_differs(kwargs, message):
    arguments = dict(ids_a=["q1", "q2", "q3"], counts_a=None, ids_b=["q1", "q2", "q3"], counts_b=None, n_a=4, n_b=4)
    arguments.update(kwargs)
    arguments["counts_a"] = arguments["counts_a"] or [1] * len(arguments["ids_a"])
    arguments["counts_b"] = arguments["counts_b"] or [1] * len(arguments["ids_b"])
    with pytest.raises(InputError) as error:
        align_runs(**arguments)
    assert str(error.value) == message
    assert "\n" not in message


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: paired_comparison([1, 2], [1, 2, 3], 4), "got 2 and 3 questions (align the runs with align_runs)"),
        (lambda: paired_comparison(np.ones((3, 4), bool), np.ones((3, 5), bool)), "got (3, 4) and (3, 5)"),
        (lambda: paired_comparison([1], [1], 4, ci=1.0), "ci must be in (0, 1), got 1.0"),
        (lambda: paired_comparison([1], [1], 4, n_boot=0), "n_boot must be a positive integer, got 0"),
        (lambda: paired_comparison([1], [5], 4, k=[2]), "c must satisfy c <= n"),
        (lambda: paired_comparison([1], [1], 4, k=[8]), "ks must satisfy k <= n; got k=8 with n=4"),
        (lambda: paired_comparison([1], [1], 4, k=[], accuracy=False), "no metric asked for"),
        (lambda: sign_flip_test([1.0, float("nan")]), "differences must be finite; got nan"),
        (lambda: rank_intervals([1, 2], 4, "accuracy"), "counts must be models x questions (2-D, non-empty)"),
        (lambda: rank_intervals([[1, 2]], 4, "accuracy", names=["a", "b"]), "names has 2 entries for 1 models"),
        (lambda: adjacent_significance([[1, 2]], 4, "accuracy"), "at least two rows to compare; got 1"),
        (
            lambda: adjacent_significance([[1], [2]], 4, "accuracy", correction="bonferroni"),
            "correction must be 'none' or 'holm'",
        ),
    ],
)
def test_bad_input_raises_a_one_line_input_error(call, message):
    with pytest.raises(InputError) as error:
        call()
    assert message in str(error.value) and "\n" not in str(error.value)


# ------------------------------------------------------------ ranks


def _clear_order_tensor(rng, questions=30, n=8, rates=(0.9, 0.65, 0.35, 0.1)):
    return np.stack([rng.random((questions, n)) < rate for rate in rates]).astype(int)


@pytest.mark.parametrize(
    "metric, scorio_call",
    [
        ("accuracy", lambda rank, R: rank.avg(R, return_scores=True)),
        ("G-Pass@4_0.5", lambda rank, R: rank.g_pass_at_k_tau(R, 4, 0.5, return_scores=True)),
        ("G-Pass@2_1.0", lambda rank, R: rank.g_pass_at_k_tau(R, 2, 1.0, return_scores=True)),
        ("mG-Pass@4", lambda rank, R: rank.mg_pass_at_k(R, 4, return_scores=True)),
    ],
)
def test_ranks_and_scores_agree_with_scorio_on_a_clear_order(metric, scorio_call):
    rank = pytest.importorskip("scorio.rank")
    R = _clear_order_tensor(np.random.default_rng(21))[[2, 0, 3, 1]]  # shuffled rows
    expected_ranks, expected_scores = scorio_call(rank, R)
    result = rank_intervals(R.sum(axis=2), 8, metric, names=list("wxyz"), n_boot=500, seed=1)
    assert [m.rank for m in result.models] == expected_ranks.tolist() == [3, 1, 4, 2]
    assert [m.score for m in result.models] == pytest.approx(100 * expected_scores, abs=1e-10)
    for model in result.models:  # the order is clear: every resample agrees
        assert model.rank_low == model.rank == model.rank_high
        assert model.rank_probabilities[model.rank - 1] == 1.0


def test_tied_models_share_the_best_rank_like_scorio_competition():
    rank = pytest.importorskip("scorio.rank")
    R = _clear_order_tensor(np.random.default_rng(22), rates=(0.8, 0.5, 0.2))
    R = np.concatenate([R, R[1:2]])  # model 3 is a copy of model 1
    expected = rank.g_pass_at_k_tau(R, 4, 0.5, method="competition")
    result = rank_intervals(R.sum(axis=2), 8, "G-Pass@4_0.5", n_boot=200)
    assert [m.rank for m in result.models] == expected.tolist() == [1, 2, 4, 2]
    tied = result.models[1], result.models[3]
    assert tied[0].rank_probabilities == tied[1].rank_probabilities  # identical in every resample
    assert result.ties == "competition"


def test_rank_probabilities_match_a_naive_loop_bootstrap():
    """Two close models: P(model 0 ranks first) vs a plain resample-with-choice loop (MC tolerance)."""
    rng = np.random.default_rng(23)
    counts = np.stack([rng.binomial(8, 0.55, size=40), rng.binomial(8, 0.5, size=40), rng.binomial(8, 0.2, size=40)])
    values = np.array([[float(exact_g_pass(8, int(c), 4, Fraction(1, 2))) for c in row] for row in counts])
    loop = np.random.default_rng(99)
    draws = 4000
    first = 0
    for _ in range(draws):
        means = values[:, loop.integers(0, 40, size=40)].mean(axis=1)
        first += means[0] > means[1] + 1e-12 and means[0] > means[2] + 1e-12
        first += 0
    naive = first / draws
    result = rank_intervals(counts, 8, "G-Pass@4_0.5", n_boot=4000, seed=3)
    ours = result.models[0].rank_probabilities[0]
    assert 0.2 < naive < 0.98  # informative
    se = math.sqrt(naive * (1 - naive) * (1 / draws + 1 / 4000))
    assert abs(ours - naive) <= Z * se
    for model in result.models:
        assert sum(model.rank_probabilities) == pytest.approx(1.0)
        assert 1 <= model.rank_low <= model.rank_high <= 3
    cumulative = np.cumsum(result.models[0].rank_probabilities)
    assert result.models[0].rank_high == 1 + int(np.searchsorted(cumulative, 0.975 - 1e-12))


# ------------------------------------------------------------ adjacent pairs


def test_adjacent_pairs_are_sign_flip_tests_of_the_row_differences_with_holm():
    rng = np.random.default_rng(24)
    counts = np.stack([rng.binomial(8, rate, size=15) for rate in (0.9, 0.85, 0.3, 0.29)])
    pairs = adjacent_significance(counts, 8, "mG-Pass@4", names=["a", "b", "c", "d"], correction="holm")
    values = metric_values(counts, 8, "mG-Pass@4")
    raw = [sign_flip_test(values[i] - values[i + 1]).p_value for i in range(3)]
    assert [p.p_value for p in pairs] == raw
    # Holm by hand: sort, multiply by (m - rank + 1), running max, cap at 1
    order = np.argsort(raw)
    holm = {}
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (3 - position) * raw[index]))
        holm[index] = running
    assert [p.p_adjusted for p in pairs] == [holm[i] for i in range(3)]
    assert [p.significant for p in pairs] == [holm[i] < 0.05 for i in range(3)]
    assert [(p.upper, p.lower) for p in pairs] == [("a", "b"), ("b", "c"), ("c", "d")]
    assert pairs[1].significant and not pairs[0].significant and not pairs[2].significant
