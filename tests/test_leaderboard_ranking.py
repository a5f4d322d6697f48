"""``gpassk leaderboard --significance``: ranks, rank intervals and adjacent-row marks.

The expected values are computed here independently: per-question mG-Pass@k
as exact rationals (``exact.py``), the bootstrap rank distribution by
enumerating every resample of a few questions, and the sign-flip p-values by
enumerating every sign vector, Holm's correction written out.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

from exact import exact_mg_pass
from gpassk_opencompass.cli import main
from leaderboard_workdirs import (
    dataset_cfg,
    details,
    exact_results,
    gpassk_block,
    model_cfg,
    write_config,
    write_results,
)

TS = "20250213_101500"
N, K = 4, 2


def write_models(work_dir: Path, counts_by_model: dict[str, list[int]], ids=None, with_details=True) -> Path:
    """One run dir: a sampled run (n = 4, k = 2) per model, with the exact metrics of its counts."""
    run_dir = work_dir / TS
    models, datasets = [], []
    for name, counts in counts_by_model.items():
        abbr, dataset = f"{name}_t0-7", "AIME2025_k2_n4"
        models.append(model_cfg(abbr, f"acme/{name}", 0.7))
        datasets.append(dataset_cfg(dataset, "AIME2025", (K,), N))
        results = exact_results(counts, N, (K,))
        results["gpassk"] = {**gpassk_block("AIME2025", (K,), N), "questions": len(counts)}
        if with_details:
            results["details"] = details(counts, N, None if ids is None else ids.get(name))
        write_results(run_dir, abbr, dataset, results)
    write_config(run_dir, f"{TS}_1", models, datasets[:1])
    return run_dir


def mg(c: int) -> Fraction:
    return exact_mg_pass(N, c, K)


def exact_rank_distribution(counts_by_model: dict[str, list[int]]) -> dict[str, dict[int, Fraction]]:
    """P(rank = r) per model over every ordered resample of the questions (competition ranks)."""
    names = list(counts_by_model)
    questions = len(next(iter(counts_by_model.values())))
    tally = {name: {} for name in names}
    for draw in itertools.product(range(questions), repeat=questions):
        means = {name: sum(mg(counts_by_model[name][q]) for q in draw) for name in names}
        for name in names:
            rank = 1 + sum(means[other] > means[name] for other in names)
            tally[name][rank] = tally[name].get(rank, 0) + 1
    total = questions**questions
    return {name: {rank: Fraction(count, total) for rank, count in ranks.items()} for name, ranks in tally.items()}


def quantile_rank(distribution: dict[int, Fraction], q: float) -> tuple[int, float]:
    """The smallest rank whose CDF reaches q, and how far the nearest CDF value is from q."""
    cdf, chosen = Fraction(0), None
    gaps = []
    for rank in sorted(distribution):
        cdf += distribution[rank]
        gaps.append(abs(float(cdf) - q))
        if chosen is None and cdf >= Fraction(q).limit_denominator(1000):
            chosen = rank
    return chosen, min(gaps)


def sign_flip_p(a: list[int], b: list[int]) -> Fraction:
    """Two-sided exact sign-flip p-value of the per-question mG-Pass differences."""
    differences = [mg(x) - mg(y) for x, y in zip(a, b) if mg(x) != mg(y)]
    observed = abs(sum(differences))
    extreme = sum(
        abs(sum(s * d for s, d in zip(signs, differences))) >= observed
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    return Fraction(extreme, 2 ** len(differences))


def holm(p_values: list[Fraction]) -> list[Fraction]:
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [Fraction(0)] * len(p_values), Fraction(0)
    for position, index in enumerate(order):
        running = max(running, min(Fraction(1), (len(p_values) - position) * p_values[index]))
        adjusted[index] = running
    return adjusted


SMALL = {"alpha": [4, 3, 2, 0], "beta": [3, 3, 3, 1], "gamma": [0, 2, 4, 1]}


def test_rank_intervals_match_every_resample_enumerated(tmp_path, capsys):
    write_models(tmp_path / "outputs", SMALL)
    level = 0.8
    assert (
        main(
            [
                "leaderboard",
                str(tmp_path / "outputs"),
                "--significance",
                str(level),
                "--resamples",
                "20000",
                "--format",
                "json",
            ]
        )
        == 0
    )
    ranking = json.loads(capsys.readouterr().out)["ranking"]
    assert (ranking["metric"], ranking["level"], ranking["correction"]) == ("mG-Pass@2", 0.8, "holm")
    distribution = exact_rank_distribution(SMALL)
    means = {name: sum(map(mg, counts)) for name, counts in SMALL.items()}
    expected = {}
    for name in SMALL:
        low, gap_low = quantile_rank(distribution[name], (1 - level) / 2)
        high, gap_high = quantile_rank(distribution[name], (1 + level) / 2)
        assert min(gap_low, gap_high) > 0.02  # the fixture keeps Monte Carlo noise (sd < 0.004) off the edges
        expected[name] = (1 + sum(means[other] > means[name] for other in SMALL), low, high)
    got = {row["model"]: (row["rank"], row["rank_low"], row["rank_high"]) for row in ranking["rows"]}
    assert got == expected
    assert len({interval[1:] for interval in expected.values()}) > 1  # not every interval is the same
    assert [row["model"] for row in ranking["rows"]] == sorted(SMALL, key=lambda name: means[name])  # table order


# B < C < D < E by mG-Pass@2: (B, C) differ on 12 questions, (C, D) and (D, E) on 6 each.
LADDER = {"b": [0] * 12, "c": [3] * 12, "d": [4] * 6 + [3] * 6, "e": [4] * 12}


@pytest.mark.parametrize("correction", ["holm", "none"])
def test_adjacent_marks_follow_the_exact_sign_flip_test(tmp_path, capsys, correction):
    write_models(tmp_path / "outputs", LADDER)
    assert (
        main(
            ["leaderboard", str(tmp_path / "outputs"), "--significance", "--correction", correction, "--format", "csv"]
        )
        == 0
    )
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    names = [row["model"] for row in rows]
    assert names == ["b", "c", "d", "e"]
    p_values = [sign_flip_p(LADDER[upper], LADDER[lower]) for lower, upper in itertools.pairwise(names)]
    assert p_values == [Fraction(2, 4096), Fraction(2, 64), Fraction(2, 64)]
    adjusted = holm(p_values) if correction == "holm" else p_values
    expected = [str(p >= Fraction(5, 100)).lower() for p in adjusted] + ["false"]
    assert [row["order_uncertain"] for row in rows] == expected
    assert expected[:3] == (["false", "true", "true"] if correction == "holm" else ["false", "false", "false"])
    assert [row["rank"] for row in rows] == ["4", "3", "2", "1"]


def test_markdown_shows_the_rank_column_the_marks_and_the_legend(tmp_path, capsys):
    write_models(tmp_path / "outputs", LADDER)
    assert main(["leaderboard", str(tmp_path / "outputs"), "--significance"]) == 0
    out = capsys.readouterr().out
    assert "| LLMs | Rank | Greedy | G-Pass@2_0.5 |" in out
    lines = [line for line in out.splitlines() if line.startswith("| c |") or line.startswith("| d |")]
    assert lines[0].startswith("| c | 3 [3, 3] ≈ |") or lines[0].startswith("| c | 3 [")
    assert " ≈ |" in lines[0] and " ≈ |" in lines[1]
    assert "Rank by mG-Pass@2 (1 = best) [its 95% interval" in out
    assert "p ≥ 0.05, Holm-corrected" in out


@pytest.mark.parametrize(
    "case, reason",
    [
        ("ids", "do not share their questions"),
        ("details", "has no per-question details"),
        ("tampered", "cannot be believed (mG-Pass@2 = 76 but its per-question details give 75)"),
    ],
)
def test_a_table_whose_rows_cannot_be_compared_gets_no_marks_and_says_why(tmp_path, capsys, case, reason):
    counts = dict(LADDER)
    if case == "ids":
        run_dir = write_models(tmp_path / "outputs", counts, ids={"c": [f"other{i}" for i in range(12)]})
    else:
        run_dir = write_models(tmp_path / "outputs", counts, with_details=case != "details")
    if case == "tampered":
        path = run_dir / "results" / "d_t0-7" / "AIME2025_k2_n4.json"
        document = json.loads(path.read_text(encoding="utf-8"))
        document["mG-Pass@2"] += 1.0
        path.write_text(json.dumps(document), encoding="utf-8")
    allow = ["--allow-inconsistent"] if case == "tampered" else []  # else a tampered run is left out
    assert main(["leaderboard", str(tmp_path / "outputs"), "--significance", *allow]) == 0
    captured = capsys.readouterr()
    warning = [line for line in captured.err.splitlines() if "no ranks or significance marks for AIME2025" in line]
    assert len(warning) == 1 and reason in warning[0]
    assert "≈" not in captured.out.split("Rank by")[0]
    assert all(
        line.split(" | ")[1] == "-"
        for line in captured.out.splitlines()
        if line.startswith("| ") and not line.startswith("| LLMs")
    )


def test_sort_by_another_column_ranks_by_it(tmp_path, capsys):
    write_models(tmp_path / "outputs", SMALL)
    assert (
        main(
            [
                "leaderboard",
                str(tmp_path / "outputs"),
                "--sort-by",
                "G-Pass@2_0.5",
                "--significance",
                "--format",
                "json",
            ]
        )
        == 0
    )
    ranking = json.loads(capsys.readouterr().out)["ranking"]
    assert ranking["metric"] == "G-Pass@2_0.5"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--significance", "95"], "--significance (a confidence such as 0.95) must be in (0, 1), got 95.0"),
        (["--significance", "--resamples", "0"], "--resamples must be a positive integer, got 0"),
        (["--significance", "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        # without --significance too: a mistake in an option is never accepted silently
        (["--resamples", "0"], "--resamples must be a positive integer, got 0"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--significance", "--sort-by", "Greedy"], "cannot rank by 'Greedy': rank by one of the sampled columns"),
        (["--sort-by", "mG-Pass@16"], "cannot sort by 'mG-Pass@16': the columns are Greedy, G-Pass@2_0.5"),
    ],
)
def test_bad_ranking_options_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    write_models(tmp_path / "outputs", SMALL)
    assert main(["leaderboard", str(tmp_path / "outputs"), *extra]) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("gpassk leaderboard: error:")]
    assert len(errors) == 1 and message in errors[0], captured.err
    assert captured.out == "" and "Traceback" not in captured.err
