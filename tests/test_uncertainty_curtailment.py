"""The curtailed design's planning math against exact rationals and against a simulation of the design.

Oracles: ``tests/exact.py``'s integer path counts (``curtailed_paths``, ``exact_curtailed_tail``) with
``Fraction`` probabilities, and the outcome law written as the sum over stage-1 counts the planner's docstring
states; and seeded Monte Carlo runs of the design itself (Bernoulli draws per question, the stop rule applied
after stage 1, the package's curtailed estimator on the resulting (N, C)).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from exact import curtailed_paths, exact_curtailed_tail, exact_m
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import g_pass_at_k, mg_pass_at_k
from gpassk_opencompass.uncertainty.curtailment import (
    curtailed_plan,
    curtailed_variance,
    estimates,
    expected_draws,
    noise_ratio,
    outcomes,
    stop_probability,
)
from gpassk_opencompass.uncertainty.planner import latent_value, within_question_variance

RULES = ("all-wrong", "all-wrong-or-right")


def binomial(n: int, c: int, p: Fraction) -> Fraction:
    return math.comb(n, c) * p**c * (1 - p) ** (n - c)


def exact_law(design: Curtailed, p: Fraction) -> dict[tuple[int, int], Fraction]:
    """P(N, C) written as the design's definition: stopped Bin(c1; n1, p), drawn on the stage-1 sum."""
    n1, n, stop = design.n1, design.n, design.stop_set
    law = {(n1, s): binomial(n1, s, p) for s in sorted(stop)}
    for total in range(n + 1):
        mass = sum(
            (
                binomial(n1, c1, p) * binomial(n - n1, total - c1, p)
                for c1 in range(max(0, total - (n - n1)), min(n1, total) + 1)
                if c1 not in stop
            ),
            Fraction(0),
        )
        if mass:
            law[n, total] = mass
    return law


def exact_estimate(design: Curtailed, drawn: int, correct: int, k: int, tau) -> Fraction:
    """The curtailed estimator by integer path counting; ``tau = "mG"``: the paper's mG-Pass@k."""
    args = (design.n1, design.n, design.stop_set, drawn, correct, k)
    if tau == "mG":
        first = (k + 1) // 2 + 1
        return Fraction(2, k) * sum((exact_curtailed_tail(*args, i) for i in range(first, k + 1)), Fraction(0))
    return exact_curtailed_tail(*args, exact_m(k, tau))


def exact_theta(k: int, tau, p: Fraction) -> Fraction:
    if tau == "mG":
        return Fraction(2, k) * sum((binomial(k, j, p) * max(j - (k + 1) // 2, 0) for j in range(k + 1)), Fraction(0))
    return sum((binomial(k, j, p) for j in range(exact_m(k, tau), k + 1)), Fraction(0))


DESIGNS = [(1, 2, 1), (4, 8, 2), (4, 10, 4), (6, 9, 3), (16, 48, 16)]
PS = (Fraction(0), Fraction(1, 50), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(1))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("n1", "n", "k"), DESIGNS)
def test_the_outcome_law_and_the_draws_match_exact_rationals(n1, n, k, rule):
    design = Curtailed(n1, n, rule)
    law = outcomes([float(p) for p in PS], design)
    assert law.probability.sum(axis=1) == pytest.approx(1.0, abs=1e-14)
    for row, p in enumerate(PS):
        exact = exact_law(design, p)
        by_paths = {  # the same law from tests/exact.py's path counts: paths x p^C (1 - p)^(N - C)
            (d, c): count * p**c * (1 - p) ** (d - c)
            for (d, c) in exact
            for count in [sum(curtailed_paths(n1, n, design.stop_set, d, c).values())]
        }
        assert by_paths == exact
        got = dict(zip(zip(law.drawn.tolist(), law.correct.tolist()), law.probability[row].tolist()))
        assert set(exact) <= set(got) and all(got[o] == 0 for o in set(got) - set(exact))
        for outcome, mass in exact.items():
            assert got[outcome] == pytest.approx(float(mass), rel=1e-12, abs=1e-16), outcome
        stopped = sum((binomial(n1, s, p) for s in design.stop_set), Fraction(0))
        assert stop_probability([float(p)], design)[0] == pytest.approx(float(stopped), abs=1e-15)
        draws = n1 + (n - n1) * (1 - stopped)
        assert expected_draws([float(p)], design)[0] == pytest.approx(float(draws), rel=1e-14)
        assert float(draws) == pytest.approx(float(sum(d * m for (d, _), m in exact.items())), rel=1e-14)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("n1", "n", "k"), DESIGNS)
def test_the_variance_is_the_exact_sum_over_outcomes_and_the_estimator_is_unbiased(n1, n, k, rule):
    design = Curtailed(n1, n, rule)
    p_float = [float(p) for p in PS]
    law = outcomes(p_float, design)
    for tau in ("0.0", "0.5", "1.0", "mG"):
        planner_tau = tau if tau == "mG" else float(tau)
        values = estimates(design, k, planner_tau, law)
        variance = curtailed_variance(p_float, design, k, planner_tau)
        theta = latent_value(np.array(p_float), k, planner_tau)
        assert law.probability @ values == pytest.approx(theta, abs=1e-13)  # unbiased: the mean is theta
        for row, p in enumerate(PS):
            exact = exact_law(design, p)
            goal = exact_theta(k, tau, p)
            assert sum(m * exact_estimate(design, d, c, k, tau) for (d, c), m in exact.items()) == goal
            exact_variance = sum(
                (m * (exact_estimate(design, d, c, k, tau) - goal) ** 2 for (d, c), m in exact.items()), Fraction(0)
            )
            assert variance[row] == pytest.approx(float(exact_variance), rel=1e-10, abs=1e-15), (p, tau)


def test_without_a_stop_the_design_is_the_fixed_n():
    p = np.linspace(0, 1, 11)
    for tau in (0.0, 0.25, 0.75, 1.0, "mG"):
        assert curtailed_variance(p, Curtailed(12, 12), 5, tau) == pytest.approx(
            within_question_variance(p, 12, 5, tau), abs=1e-14
        )
    assert expected_draws(p, Curtailed(12, 12, "all-wrong-or-right")).tolist() == [12.0] * 11


def simulate(design: Curtailed, p: np.ndarray, replications: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(N, C) of each question in each simulated run: n Bernoulli(p) draws in order, stopped after n1 by the rule."""
    draws = rng.random((replications, p.size, design.n)) < p[None, :, None]
    stage1 = draws[..., : design.n1].sum(axis=-1)
    stopped = design.stops(stage1)
    return np.where(stopped, design.n1, design.n), np.where(stopped, stage1, draws.sum(axis=-1))


def within_errors(got: float, planned: float, error: float, how_many: float = 4.0) -> bool:
    return abs(got - planned) <= how_many * error


@pytest.mark.parametrize("rule", RULES)
def test_the_plan_matches_a_simulation_of_the_design(rule):
    """Mean draws, mean estimate and per-question variance within 4 Monte Carlo standard errors of 20,000 simulated
    runs (each error is that of the simulated average, from the exact law: a rare outcome a run may never see)."""
    design = Curtailed(16, 48, rule)
    p = np.array([0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99])
    replications = 20_000
    drawn, correct = simulate(design, p, replications, np.random.default_rng(29))
    planned_draws = expected_draws(p, design)
    stopped = stop_probability(p, design)
    for i in range(p.size):
        error = (design.n - design.n1) * math.sqrt(stopped[i] * (1 - stopped[i]) / replications)
        assert within_errors(drawn[:, i].mean(), planned_draws[i], error + 1e-12), (p[i], drawn[:, i].mean())
    law = outcomes(p, design)
    for tau in (0.0, 0.5, 0.75, 1.0, "mG"):
        if tau == "mG":
            values = mg_pass_at_k(drawn.ravel(), correct.ravel(), 16, design).reshape(drawn.shape)
        else:
            values = g_pass_at_k(drawn.ravel(), correct.ravel(), 16, tau, design).reshape(drawn.shape)
        planned = curtailed_variance(p, design, 16, tau)
        theta = latent_value(p, 16, tau)
        fourth = (law.probability * (estimates(design, 16, tau, law)[None, :] - theta[:, None]) ** 4).sum(axis=1)
        for i in range(p.size):
            column = values[:, i]
            mean_error = math.sqrt(planned[i] / replications)
            assert within_errors(column.mean(), theta[i], mean_error + 1e-12), (tau, p[i])
            centred = (column - theta[i]) ** 2  # theta is known: the variance is the mean of these
            variance_error = math.sqrt(max(fourth[i] - planned[i] ** 2, 0.0) / replications)
            assert within_errors(centred.mean(), planned[i], variance_error + 1e-12), (tau, p[i])


def test_the_planned_width_of_a_benchmark_matches_its_simulation():
    """40 fixed questions, the benchmark's mean under the design: planned std vs the simulated one (4 SE)."""
    rng = np.random.default_rng(7)
    p = rng.beta(0.3, 0.3, size=40)
    design = Curtailed(16, 48, "all-wrong-or-right")
    plan = curtailed_plan(p, design, [16], [0.5, 1.0], include_question_sampling=False)
    replications = 4000
    drawn, correct = simulate(design, p, replications, rng)
    for row in plan.rows:
        tau = "mG" if row.key.startswith("mG") else float(row.key.split("_")[1])
        if tau == "mG":
            values = mg_pass_at_k(drawn.ravel(), correct.ravel(), 16, design)
        else:
            values = g_pass_at_k(drawn.ravel(), correct.ravel(), 16, tau, design)
        scores = 100 * values.reshape(drawn.shape).mean(axis=1)
        realised = scores.std(ddof=1)
        assert realised == pytest.approx(row.curtailed.std, rel=4 / math.sqrt(2 * replications)), row.key


@pytest.mark.parametrize("rule", RULES)
def test_the_ratio_the_plan_reports_is_against_the_fixed_n_planner(rule):
    p = np.random.default_rng(3).beta(0.3, 0.3, size=60)
    design = Curtailed(16, 48, rule)
    plan = curtailed_plan(p, design, [8, 16], [0.0, 0.5, 1.0], questions=[None, 500])
    assert [row.questions for row in plan.rows] == [60] * 8 + [500] * 8
    for row in plan.rows:
        k = int(row.key.split("@")[1].split("_")[0])
        tau = "mG" if row.key.startswith("mG") else float(row.key.split("_")[1])
        fixed = within_question_variance(p, 48, k, tau).mean()
        curtailed = curtailed_variance(p, design, k, tau).mean()
        assert row.fixed_noise == pytest.approx(fixed, rel=1e-15)
        assert row.curtailed_noise == pytest.approx(curtailed, rel=1e-15)
        assert row.ratio == pytest.approx(curtailed / fixed, rel=1e-14)
        assert row.ratio == pytest.approx(noise_ratio(p, design, k, tau), rel=1e-14)
        assert row.fixed.n == row.curtailed.n == 48
    assert plan.expected_draws == pytest.approx(expected_draws(p, design).mean())
    assert plan.saved == pytest.approx(1 - plan.expected_draws / 48)


def test_k_above_n1_is_refused_in_one_line():
    message = "k must be at most n1=8, the generations every question draws before all-wrong may stop it; got k=16"
    with pytest.raises(InputError, match=re.escape(message)):
        curtailed_plan([0.5], Curtailed(8, 48), [4, 16], [0.5])
    with pytest.raises(InputError, match="k must be at most n1=8"):
        curtailed_variance([0.5], Curtailed(8, 48), 16, 0.5)
    with pytest.raises(InputError, match="design must be a Curtailed design"):
        expected_draws([0.5], "16:48")  # type: ignore[arg-type]
