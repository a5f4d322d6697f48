"""Bayesian intervals: golden values from exact rational moments, scorio as the peer oracle, Monte Carlo.

Oracles, none of them the code under test:

* exact: for p ~ Beta(a, b), E[p^j (1-p)^(k-j)] = prod_{i<j}(a+i) prod_{i<k-j}(b+i) / prod_{i<k}(a+b+i),
  so the posterior mean and variance of theta(p) = sum_j v_j C(k,j) p^j (1-p)^(k-j) are exact
  rationals for rational priors (expanding theta^2 as a degree-2k polynomial -- a different
  route from the code's Beta-Binomial / Hypergeometric one);
* scorio 0.2.3's ``g_pass_at_k_tau_ci`` / ``mg_pass_at_k_ci`` on the same matrix and prior;
* Monte Carlo: p_i drawn from the Beta posteriors, theta_i by scipy's binomial tail.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import summarize_uncertainty
from gpassk_opencompass.uncertainty.bayes import (
    bayes_interval,
    bayes_interval_counts,
    counts_from_matrix,
    posterior_moments,
)
from tests.exact import exact_m

scorio_gpass = pytest.importorskip("scorio.eval.gpass")


# --------------------------------------------------------------------------
# the exact rational oracle


def _rising(x: Fraction, count: int) -> Fraction:
    out = Fraction(1)
    for i in range(count):
        out *= x + i
    return out


def _beta_mixed_moment(a: Fraction, b: Fraction, j: int, r: int) -> Fraction:
    """E[p^j (1-p)^r] for p ~ Beta(a, b)."""
    return _rising(a, j) * _rising(b, r) / _rising(a + b, j + r)


def _scores(k: int, tau) -> list[Fraction]:
    if tau == "mG":
        half = (k + 1) // 2
        return [Fraction(2, k) * max(j - half, 0) for j in range(k + 1)]
    m = exact_m(k, tau)
    return [Fraction(int(j >= m)) for j in range(k + 1)]


def exact_posterior(c: int, n: int, k: int, tau, prior=(1, 1)) -> tuple[Fraction, Fraction]:
    """Exact posterior mean and variance of the latent metric for one question."""
    a, b = Fraction(prior[0]) + c, Fraction(prior[1]) + n - c
    v = _scores(k, tau)
    coef = [v[j] * math.comb(k, j) for j in range(k + 1)]
    mean = sum((coef[j] * _beta_mixed_moment(a, b, j, k - j) for j in range(k + 1)), Fraction(0))
    second = sum(
        (
            coef[i] * coef[j] * _beta_mixed_moment(a, b, i + j, 2 * k - i - j)
            for i in range(k + 1)
            if coef[i]
            for j in range(k + 1)
            if coef[j]
        ),
        Fraction(0),
    )
    return mean, second - mean * mean


CASES = [  # (c, n, k, tau, prior)
    (8, 16, 4, "0.5", (1, 1)),
    (0, 16, 16, "0.0", (1, 1)),
    (16, 16, 16, "1.0", (1, 1)),
    (5, 16, 8, "0.75", (Fraction(1, 2), Fraction(1, 2))),
    (3, 5, 3, "mG", (1, 1)),
    (7, 12, 16, "mG", (2, 3)),  # k > n is allowed for the latent metric
    (0, 0, 4, "0.25", (1, 1)),  # nothing resolved: the prior
    (1, 2, 7, "0.5", (Fraction(3, 10), 5)),
    (29, 48, 16, "0.25", (1, 1)),
    (1999, 2000, 32, "1.0", (1, 1)),  # large n, tiny variance
    (1000, 2000, 32, "mG", (1, 1)),
]


@pytest.mark.parametrize("c, n, k, tau, prior", CASES)
def test_moments_match_exact_rationals(c, n, k, tau, prior):
    moments = posterior_moments([c], n, k, tau if tau == "mG" else float(tau), prior=tuple(float(x) for x in prior))
    mean, variance = exact_posterior(c, n, k, tau, prior)
    assert moments.mean[0] == pytest.approx(float(mean), abs=1e-14)
    assert moments.variance[0] == pytest.approx(float(variance), abs=1e-17, rel=1e-12)


def test_benchmark_interval_is_exact_mean_and_variance_of_the_average():
    counts, n, k = [0, 3, 9, 16, 16, 12], 16, 8
    result = bayes_interval_counts(counts, n, k=[k], thresholds=[0.5], prior=(0.5, 0.5))
    exact = [exact_posterior(c, n, k, "0.5", (Fraction(1, 2), Fraction(1, 2))) for c in counts]
    mean = sum(m for m, _ in exact) / len(counts)
    std = math.sqrt(sum(v for _, v in exact) / len(counts) ** 2)
    estimate = result["G-Pass@8_0.5"]
    assert estimate.mean == pytest.approx(100 * float(mean), abs=1e-11)
    assert estimate.std == pytest.approx(100 * std, abs=1e-11)
    z = stats.norm.ppf(0.975)
    assert estimate.low == pytest.approx(max(100 * float(mean) - z * 100 * std, 0), abs=1e-10)
    assert (estimate.level, estimate.prior, estimate.method) == (0.95, (0.5, 0.5), "normal")


def test_pass_at_k_closed_form():
    # tau = 0: theta = 1 - (1-p)^k, E = 1 - prod_{i<k} (b+i)/(a+b+i)
    c, n, k, (a0, b0) = np.array([0, 2, 7, 10]), 10, 6, (0.7, 1.9)
    a, b = a0 + c, b0 + n - c
    expected = 1 - np.prod([(b + i) / (a + b + i) for i in range(k)], axis=0)
    assert np.allclose(posterior_moments(c, n, k, 0.0, prior=(a0, b0)).mean, expected, atol=1e-14)


# --------------------------------------------------------------------------
# scorio, the peer implementation


def _random_matrix(seed: int, questions: int, generations: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.4, 0.4, questions)
    return (rng.random((questions, generations)) < p[:, None]).astype(int)


@pytest.mark.parametrize(
    "seed, questions, generations, prior, level",
    [
        (0, 30, 16, (1.0, 1.0), 0.95),
        (1, 45, 8, (0.5, 0.5), 0.9),
        (2, 7, 48, (2.0, 5.0), 0.99),
        (3, 3, 4, (1.0, 1.0), 0.95),
    ],
)
def test_agrees_with_scorio(seed, questions, generations, prior, level):
    """Same model (Beta posterior, latent i.i.d. metric, exact moments, clipped normal interval).

    Both compute exact moments in double precision, so they agree to rounding: 1e-9
    percentage points leaves five orders of magnitude over the ~1e-13 seen.
    """
    matrix = _random_matrix(seed, questions, generations)
    ks = sorted({1, 3, 4, min(8, generations), generations})
    thresholds = [0.0, 0.25, 0.5, 0.75, 1.0]
    ours = bayes_interval(matrix, k=ks, thresholds=thresholds, prior=prior, level=level)
    for k in ks:
        for tau in thresholds:
            peer = scorio_gpass.g_pass_at_k_tau_ci(matrix, k, tau, confidence=level, alpha0=prior[0], beta0=prior[1])
            estimate = ours[f"G-Pass@{k}_{tau}"]
            assert [estimate.mean, estimate.std, estimate.low, estimate.high] == pytest.approx(
                [100 * x for x in peer], abs=1e-9
            ), (k, tau)
        peer = scorio_gpass.mg_pass_at_k_ci(matrix, k, confidence=level, alpha0=prior[0], beta0=prior[1])
        estimate = ours[f"mG-Pass@{k}"]
        assert [estimate.mean, estimate.std, estimate.low, estimate.high] == pytest.approx(
            [100 * x for x in peer], abs=1e-9
        ), k


# --------------------------------------------------------------------------
# Monte Carlo: the posterior itself


def _posterior_sample(c, n, k, m, prior, draws, seed):
    """Draws of the benchmark G-Pass@k (threshold m) from the posterior, in [0, 1]."""
    rng = np.random.default_rng(seed)
    c = np.asarray(c)
    p = rng.beta(prior[0] + c[:, None], prior[1] + n - c[:, None], size=(c.size, draws))
    return stats.binom.sf(m - 1, k, p).mean(axis=0)


MC_CASES = [  # (counts, n, k, tau): a mixed benchmark, and two small skewed ones
    (list(range(0, 17)) * 2, 16, 8, 0.5),
    ([16, 16, 15], 16, 16, 1.0),
    ([0, 0, 1, 2], 16, 16, 0.0),
]


@pytest.mark.parametrize("counts, n, k, tau", MC_CASES)
@pytest.mark.parametrize("method", ["normal", "beta"])
def test_against_posterior_simulation(counts, n, k, tau, method):
    """Mean and std are exact: within 4 MC standard errors. The interval is an approximation:
    its posterior mass is within 1.5 points of the nominal level (plus 4 MC standard errors),
    and each tail holds at most 1.5 points more than (1 - level) / 2."""
    draws, level = 50_000, 0.95
    sample = _posterior_sample(counts, n, k, exact_m(k, str(tau)), (1.0, 1.0), draws, seed=11)
    estimate = bayes_interval_counts(counts, n, k=[k], thresholds=[tau], method=method)[f"G-Pass@{k}_{tau}"]
    mc_mean, mc_std = sample.mean(), sample.std(ddof=1)
    assert abs(estimate.mean / 100 - mc_mean) <= 4 * mc_std / math.sqrt(draws)
    # the standard error of a sample std is about std * sqrt((kurtosis - 1) / (4 draws))
    kurtosis = stats.kurtosis(sample, fisher=False)
    assert abs(estimate.std / 100 - mc_std) <= 4 * mc_std * math.sqrt((kurtosis - 1) / (4 * draws))
    inside = np.mean((sample >= estimate.low / 100) & (sample <= estimate.high / 100))
    mc_error = 4 * math.sqrt(level * (1 - level) / draws)
    assert abs(inside - level) <= 0.015 + mc_error
    for tail in (np.mean(sample < estimate.low / 100), np.mean(sample > estimate.high / 100)):
        assert tail <= (1 - level) / 2 + 0.015 + mc_error


@pytest.mark.parametrize("method", ["normal", "beta"])
def test_frequentist_coverage_when_the_prior_is_true(method):
    """Draw p_i from the prior, c_i ~ Bin(n, p_i): the credible interval should hold the true
    benchmark G-Pass@k_tau in about `level` of the repetitions (a calibrated posterior); the
    allowance is 4 binomial standard errors plus the 1.5-point approximation allowance above."""
    rng = np.random.default_rng(5)
    repetitions, questions, n, k, tau, level = 300, 20, 8, 4, 0.5, 0.9
    m = exact_m(k, str(tau))
    hits = 0
    for _ in range(repetitions):
        p = rng.beta(1.0, 1.0, questions)
        counts = rng.binomial(n, p)
        truth = 100 * stats.binom.sf(m - 1, k, p).mean()
        estimate = bayes_interval_counts(counts, n, k=[k], thresholds=[tau], level=level, method=method)
        e = estimate[f"G-Pass@{k}_{tau}"]
        hits += e.low <= truth <= e.high
    assert abs(hits / repetitions - level) <= 0.015 + 4 * math.sqrt(level * (1 - level) / repetitions)


# --------------------------------------------------------------------------
# properties


counts_strategy = st.integers(1, 24).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, n), min_size=1, max_size=12))
)
prior_strategy = st.tuples(st.floats(0.05, 20), st.floats(0.05, 20))


@settings(max_examples=40, deadline=None)
@given(counts_strategy, st.integers(1, 20), prior_strategy, st.sampled_from(["normal", "beta"]))
def test_intervals_are_well_formed(n_counts, k, prior, method):
    n, counts = n_counts
    for key, e in bayes_interval_counts(counts, n, k=[k], prior=prior, method=method).items():
        assert 0 <= e.low <= e.high <= 100, key
        assert 0 <= e.mean <= 100 and e.std >= 0, key
        if method == "normal":
            assert e.low <= e.mean + 1e-9 and e.mean <= e.high + 1e-9


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 16), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, "mG"]), prior_strategy)
def test_more_correct_means_higher_posterior_mean(n, k, tau, prior):
    # theta(p) is non-decreasing in p, and Beta(a + c, b + n - c) increases stochastically in c
    means = posterior_moments(np.arange(n + 1), n, k, tau, prior=prior).mean
    assert np.all(np.diff(means) >= -1e-12)


@settings(max_examples=30, deadline=None)
@given(counts_strategy, st.integers(1, 12), st.randoms(use_true_random=False))
def test_order_and_duplication(n_counts, k, random):
    n, counts = n_counts
    base = bayes_interval_counts(counts, n, k=[k], thresholds=[0.5])
    shuffled = list(counts)
    random.shuffle(shuffled)
    doubled = bayes_interval_counts(shuffled * 2, n, k=[k], thresholds=[0.5])
    for key, e in base.items():
        assert doubled[key].mean == pytest.approx(e.mean, abs=1e-10)
        assert doubled[key].std == pytest.approx(e.std / math.sqrt(2), abs=1e-10)  # variance / 2


def test_unresolved_verdicts_are_left_out():
    with_gaps = [[1, None, 0, 1], [np.nan, np.nan, np.nan, np.nan], [True, True, False, None]]
    c, n = counts_from_matrix(with_gaps)
    assert c.tolist() == [2, 0, 2] and n.tolist() == [3, 0, 3]
    as_matrix = bayes_interval(with_gaps, k=[2, 5])
    as_counts = bayes_interval_counts([2, 0, 2], [3, 0, 3], k=[2, 5])
    assert as_matrix == as_counts
    # a question with nothing resolved is the prior: uniform p, pass@1 = E[p] = 1/2
    prior_only = bayes_interval_counts([0], [0], k=[1], thresholds=[0.0])["G-Pass@1_0.0"]
    assert prior_only.mean == pytest.approx(50.0) and prior_only.std == pytest.approx(100 / math.sqrt(12))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bayes_interval_counts([1], 4, prior=(1, 0)), "prior beta0 must be a finite number > 0; got 0"),
        (lambda: bayes_interval_counts([1], 4, prior=(1,)), "prior must be a pair"),
        (lambda: bayes_interval_counts([1], 4, level=1.0), "level must be in (0, 1), got 1.0"),
        (lambda: bayes_interval_counts([5], 4), "c must satisfy 0 <= c <= n; got c=5 with n=4"),
        (lambda: bayes_interval_counts([1, 2], [4, 4, 4]), "c and n must have one value per question"),
        (lambda: bayes_interval_counts([1], 4, k=[0]), "k must be a positive integer, got 0"),
        (lambda: bayes_interval_counts([1], 4, k=[2], thresholds=[1.5]), "tau must be in [0, 1]; got tau=1.5"),
        (lambda: bayes_interval_counts([], 4), "c is empty"),
        (lambda: bayes_interval([1, 0, 1]), "correct must be a questions x generations matrix (2-D)"),
        (lambda: bayes_interval([[1, 0.5]]), "got 0.5"),
        (lambda: posterior_moments([1], 4, 2, "mean"), "tau must be a threshold in [0, 1] or 'mG'"),
    ],
)
def test_bad_input_raises_one_line_input_error(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


# the worked example of docs/uncertainty.md
DOC_COUNTS = [0, 0, 1, 3, 5, 8, 8, 10, 12, 14, 15, 16, 16, 16, 2, 6, 9, 11, 13, 16]


def test_docs_worked_example():
    estimate = bayes_interval_counts(DOC_COUNTS, 16, k=[4], thresholds=[0.5])["G-Pass@4_0.5"]
    exact = [exact_posterior(c, 16, 4, "0.5") for c in DOC_COUNTS]
    mean = 100 * float(sum(m for m, _ in exact) / len(exact))
    std = 100 * math.sqrt(float(sum(v for _, v in exact))) / len(exact)
    assert (estimate.mean, estimate.std) == pytest.approx((mean, std), abs=1e-11)
    assert [round(x, 2) for x in (estimate.mean, estimate.std, estimate.low, estimate.high)] == [
        64.93,
        2.41,
        60.21,
        69.66,
    ]
    beta = bayes_interval_counts(DOC_COUNTS, 16, k=[4], thresholds=[0.5], method="beta")["G-Pass@4_0.5"]
    assert [round(beta.low, 2), round(beta.high, 2)] == [60.14, 69.58]
    # the bootstrap row of the table (metrics.summarize_uncertainty, not this module)
    boot = summarize_uncertainty(DOC_COUNTS, 16, k=[4], thresholds=[0.5], n_boot=4000, seed=0)["G-Pass@4_0.5"]
    assert [round(x, 2) for x in (boot.mean, boot.stderr, boot.ci_low, boot.ci_high)] == [65.32, 9.07, 47.17, 81.3]
