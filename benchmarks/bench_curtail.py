"""Curtailed sampling against a fixed n: the generations each rule draws and what it costs each metric's variance.

For fixed n = N and each rule of ``gpassk_opencompass.curtailed.RULES`` (stage 1 N1 generations per question), it
prints side by side the expected generations per question, the share saved, and per metric (G-Pass@k_tau for tau in
0, .25, .5, .75, 1 and mG-Pass@k) the ratio of the design's within-question variance to the fixed n's -- all from
the exact planning math of ``gpassk_opencompass.uncertainty.curtailment`` (no simulation), on three kinds of
difficulty profile:

1. U-shaped, p ~ Beta(0.3, 0.3): integrated by Gauss-Jacobi quadrature on the Beta weight (``NODES`` nodes, exact
   for polynomials in p of degree < 2 NODES; every quantity here is one, of degree at most N + 2k), checked
   against the closed form with Beta-binomial weights (the largest relative difference is printed);
2. the published leaderboard (``gpassk_opencompass/data/published_leaderboard.json``): for each model and
   benchmark, the Beta(a, b) whose Beta-binomial G-Pass@16_{0.5, 0.75, 1.0} and mG-Pass@16 are nearest the
   published four (least squares, in points; Greedy is left out: it is no function of p under sampling), then
   integrated as in 1; a cell whose published G-Pass@16_0.5 is 0 holds no spread to fit and is left out;
3. real per-question counts: the NeMo-Skills seed files in tests/data/nemo-skills (its own ``symbolic_correct``
   verdicts, 20 questions x 3 seeds) and the OpenCompass 0.5.4 run in tests/data/opencompass-details (its
   LiveMathBench evaluator's verdicts, 8 questions x 8; the answers come from a scripted loopback model), each
   question's p its posterior mean (c + 1)/(n + 2) as ``gpassk plan`` takes it, and its raw c/n.

    python benchmarks/bench_curtail.py [--n1 16] [--n 48] [--k 16] [--per-model]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize, special

from gpassk_opencompass.curtailed import RULES, Curtailed
from gpassk_opencompass.leaderboard.published import load_published
from gpassk_opencompass.metrics import g_pass_at_k, mg_pass_at_k
from gpassk_opencompass.scoring.readers import read_questions
from gpassk_opencompass.uncertainty.bayes import score_vector
from gpassk_opencompass.uncertainty.curtailment import curtailed_variance, estimates, expected_draws, outcomes
from gpassk_opencompass.uncertainty.numerics import beta_binomial_pmf
from gpassk_opencompass.uncertainty.planner import metric_key_of, within_question_variance

TAUS: tuple = (0.0, 0.25, 0.5, 0.75, 1.0, "mG")
#: Gauss-Jacobi nodes: exact for polynomials of degree < 2 * NODES (here at most n + 2k = 80).
NODES = 96
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
#: The published figures fitted, with the tau each is the Beta-binomial mean of.
PUBLISHED = {"G-Pass@16-0.5": 0.5, "G-Pass@16-0.75": 0.75, "G-Pass@16-1.0": 1.0, "mG-Pass@16": "mG"}


@dataclass(frozen=True)
class Profile:
    """Questions' success probabilities with weights summing to 1 (a quadrature or equal weights)."""

    name: str
    p: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True)
class Row:
    """One design on one profile: generations per question and, per metric, the variance ratio to the fixed n."""

    design: str
    draws: float
    ratios: dict
    #: For the fixed n: each metric's per-question generation noise, sqrt(E[V]) x 100 (points), the ratios' scale.
    sd: dict | None = None


def beta_profile(name: str, a: float, b: float) -> Profile:
    """p ~ Beta(a, b) as Gauss-Jacobi nodes and weights on [0, 1]."""
    x, w = special.roots_jacobi(NODES, b - 1.0, a - 1.0)  # weight (1 - x)^(b - 1) (1 + x)^(a - 1) on [-1, 1]
    return Profile(name, (1.0 + x) / 2.0, w / w.sum())


def rows(profile: Profile, n1: int, n: int, k: int) -> list[Row]:
    """Fixed n, then each rule: expected draws and variance ratios, weighted over the profile."""
    fixed = {tau: float(within_question_variance(profile.p, n, k, tau) @ profile.weights) for tau in TAUS}
    sd = {tau: 100 * math.sqrt(fixed[tau]) for tau in TAUS}
    out = [Row(f"fixed n = {n}", float(n), dict.fromkeys(TAUS, 1.0), sd)]
    for rule in RULES:
        design = Curtailed(n1, n, rule)
        law = outcomes(profile.p, design)
        ratios = {}
        for tau in TAUS:
            noise = float(curtailed_variance(profile.p, design, k, tau, law) @ profile.weights)
            ratios[tau] = noise / fixed[tau] if fixed[tau] > 0 else (1.0 if noise == 0 else math.inf)
        out.append(Row(str(design), float(expected_draws(profile.p, design) @ profile.weights), ratios))
    return out


def closed_form(a: float, b: float, n1: int, n: int, k: int) -> list[Row]:
    """The same rows for Beta(a, b) from Beta-binomial weights: E[V] = sum_o E[P(o)] g(o)^2 - E[theta^2]."""

    def bb(trials: int) -> np.ndarray:
        return beta_binomial_pmf(trials, np.array([a]), np.array([b]))[0]

    pair = bb(2 * k)  # E[theta^2] = sum_{j1, j2} v v C(k, j1) C(k, j2) / C(2k, j1 + j2) BB(j1 + j2; 2k)
    square = {}
    for tau in TAUS:
        v = score_vector(k, tau)
        square[tau] = sum(
            v[i] * v[j] * math.comb(k, i) * math.comb(k, j) / math.comb(2 * k, i + j) * pair[i + j]
            for i in range(k + 1)
            for j in range(k + 1)
        )
    counts = np.arange(n + 1)
    fixed = {}
    for tau in TAUS:
        values = mg_pass_at_k(n, counts, k) if tau == "mG" else g_pass_at_k(n, counts, k, tau)
        fixed[tau] = float(bb(n) @ np.asarray(values) ** 2) - square[tau]
    out = [Row(f"fixed n = {n}", float(n), dict.fromkeys(TAUS, 1.0))]
    for rule in RULES:
        design = Curtailed(n1, n, rule)
        law = outcomes([0.5], design)  # only its (N, C) list
        weights = []
        for drawn, correct in zip(law.drawn.tolist(), law.correct.tolist()):
            if drawn == n1 and n1 < n:
                weights.append(bb(n1)[correct])
            else:
                share = sum(
                    math.comb(n1, c1) * math.comb(n - n1, correct - c1)
                    for c1 in range(max(0, correct - (n - n1)), min(n1, correct) + 1)
                    if c1 not in design.stop_set
                ) / math.comb(n, correct)
                weights.append(bb(n)[correct] * share)
        weight = np.array(weights)
        stopped = sum(bb(n1)[s] for s in design.stop_set)
        ratios = {tau: (weight @ estimates(design, k, tau, law) ** 2 - square[tau]) / fixed[tau] for tau in TAUS}
        out.append(Row(str(design), n1 + (n - n1) * (1 - stopped), ratios))
    return out


def published_profiles(k: int) -> tuple[list[tuple[str, str, Profile, float]], list[str]]:
    """Per (model, benchmark): the fitted Beta profile and the fit's RMS residual (points); and the cells left out."""
    published = load_published()
    fitted, skipped = [], []
    vectors = {tau: score_vector(k, tau) for tau in PUBLISHED.values()}

    def model_values(log_ab: np.ndarray) -> np.ndarray:
        a, b = np.exp(log_ab)
        law = beta_binomial_pmf(k, np.array([a]), np.array([b]))[0]
        return np.array([100 * law @ vectors[tau] for tau in PUBLISHED.values()])

    for model in published.values:
        for benchmark in published.values[model]["mG-Pass@16"]:
            target = np.array([published.value(model, metric, benchmark) for metric in PUBLISHED], dtype=float)
            if not target[0] > 0:
                skipped.append(f"{model} on {benchmark}")
                continue
            best = min(
                (
                    optimize.least_squares(
                        lambda x: model_values(x) - target, start, bounds=(np.log(0.01), np.log(100.0))
                    )
                    for start in ([0.0, 0.0], [-2.0, -2.0], [-2.0, 1.0], [1.0, -2.0])
                ),
                key=lambda fit: fit.cost,
            )
            a, b = np.exp(best.x)
            rms = float(np.sqrt(np.mean(best.fun**2)))
            fitted.append((model, benchmark, beta_profile(f"{model} / {benchmark}", a, b), rms))
    return fitted, skipped


def real_profiles() -> list[tuple[Profile, Profile]]:
    """(posterior-mean profile, raw c/n profile) of each real run in tests/data."""
    runs = [
        ("NeMo-Skills MATH, 20 questions x 3 seeds", DATA / "nemo-skills" / "math"),
        (
            "OpenCompass 0.5.4 run, LiveMathBenchEvaluator, 8 questions x 8",
            DATA / "opencompass-details" / "results" / "strong_t0-7" / "oc_livemath.json",
        ),
    ]
    out = []
    for name, path in runs:
        questions = read_questions(path)
        c = np.array([sum(v is True for v in q.source_verdicts or ()) for q in questions], dtype=float)
        resolved = np.array([sum(v is not None for v in q.source_verdicts or ()) for q in questions], dtype=float)
        weights = np.full(c.size, 1.0 / c.size)
        out.append(
            (
                Profile(f"{name}, p = (c + 1)/(n + 2)", (c + 1) / (resolved + 2), weights),
                Profile(f"{name}, p = c/n", c / resolved, weights),
            )
        )
    return out


def table(rows_: list[Row], n: int, k: int) -> list[str]:
    header = "| design | generations/question | saved | " + " | ".join(metric_key_of(k, t) for t in TAUS) + " |"
    lines = [header, "|---|---:|---:|" + "---:|" * len(TAUS)]
    for row in rows_:
        cells = " | ".join(f"sd {row.sd[t]:.2f}" if row.sd else f"{row.ratios[t]:.3f}×" for t in TAUS)
        lines.append(f"| {row.design} | {row.draws:.2f} | {1 - row.draws / n:.1%} | {cells} |")
    return lines


def spread(values: list[float], percent: bool = False) -> str:
    text = (lambda v: f"{v:.1%}") if percent else (lambda v: f"{v:.3f}×")
    return f"{text(statistics.median(values))} ({text(min(values))}–{text(max(values))})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n1", type=int, default=16)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--per-model", action="store_true", help="one table row per published model and benchmark")
    args = parser.parse_args(argv)
    n1, n, k = args.n1, args.n, args.k
    started = time.perf_counter()
    print(f"Curtailed at n1 = {n1} of n = {n} against a fixed n = {n}; k = {k}. Cells: the design's within-question")
    print("variance over the fixed n's (1.000× = no precision lost), from the exact planning math; the fixed n's row")
    print("gives the scale, its per-question generation noise sqrt(E[V]) in points.\n")

    print("## 1. U-shaped difficulty, p ~ Beta(0.3, 0.3)\n")
    quadrature = rows(beta_profile("Beta(0.3, 0.3)", 0.3, 0.3), n1, n, k)
    print("\n".join(table(quadrature, n, k)))
    exact = closed_form(0.3, 0.3, n1, n, k)
    worst = max(
        max(abs(q.draws - e.draws) / e.draws, *(abs(q.ratios[t] - e.ratios[t]) / e.ratios[t] for t in TAUS))
        for q, e in zip(quadrature, exact)
    )
    print(
        f"\n(Gauss-Jacobi, {NODES} nodes; against the Beta-binomial closed form: largest relative difference "
        f"{worst:.1e}.)\n"
    )

    print("## 2. Profiles fitted to the published leaderboard (GPassK README tables)\n")
    fitted, skipped = published_profiles(k)
    results = [(model, benchmark, rows(profile, n1, n, k), rms) for model, benchmark, profile, rms in fitted]
    print(
        f"{len(fitted)} (model, benchmark) cells fitted, each a Beta(a, b) matching the published "
        f"G-Pass@16_0.5/0.75/1.0 and mG-Pass@16 to an RMS of {spread([r for *_, r in fitted]).replace('×', '')} "
        f"points (median, range); {len(skipped)} left out (published G-Pass@16_0.5 = 0: "
        f"{', '.join(skipped) if skipped else 'none'}). Median (min–max) over the cells:\n"
    )
    print("| design | saved | " + " | ".join(metric_key_of(k, t) for t in TAUS) + " |")
    print("|---|---:|" + "---:|" * len(TAUS))
    for index, rule in enumerate(RULES, start=1):
        saved = [1 - found[index].draws / n for _, _, found, _ in results]
        cells = " | ".join(spread([found[index].ratios[t] for _, _, found, _ in results]) for t in TAUS)
        print(f"| {n1}:{n}:{rule} | {spread(saved, percent=True)} | {cells} |")
    top = max(
        (
            (found[i].ratios[t], t, i, model, benchmark, found[0].sd[t])
            for model, benchmark, found, _ in results
            for i in range(1, len(found))
            for t in TAUS
        ),
        key=lambda item: item[0],
    )
    ratio, tau, index, model, benchmark, sd = top
    print(
        f"\nThe largest ratio, {ratio:,.0f}× ({metric_key_of(k, tau)}, {n1}:{n}:{list(RULES)[index - 1]}, {model} on "
        f"{benchmark}), multiplies a fixed-n noise of sd {sd:.4f} points per question."
    )
    if args.per_model:
        print(
            "\n| model | benchmark | fit RMS | design | saved | " + " | ".join(metric_key_of(k, t) for t in TAUS) + " |"
        )
        print("|---|---|---:|---|---:|" + "---:|" * len(TAUS))
        for model, benchmark, found, rms in results:
            for row in found[1:]:
                cells = " | ".join(f"{row.ratios[t]:.3f}×" for t in TAUS)
                print(f"| {model} | {benchmark} | {rms:.2f} | {row.design} | {1 - row.draws / n:.1%} | {cells} |")
    print()

    print("## 3. Real per-question counts (tests/data)\n")
    for posterior, raw in real_profiles():
        for profile in (posterior, raw):
            print(f"{profile.name}:\n")
            print("\n".join(table(rows(profile, n1, n, k), n, k)))
            print()
    print(f"({time.perf_counter() - started:.1f} s in all.)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
