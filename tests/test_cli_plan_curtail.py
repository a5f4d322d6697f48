"""``gpassk plan --curtail``: the generations a curtailed design saves and what it costs each metric, through the
real CLI; expected draws against exact rationals, widths and ratios against the planner's functions."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from analysis_docs import write
from gpassk_opencompass.analysis.planning import CURTAIL_NOISIER
from gpassk_opencompass.cli import main
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.uncertainty.curtailment import curtailed_variance
from gpassk_opencompass.uncertainty.planner import within_question_variance

#: A U-shaped pilot: 30 questions x 16 generations, most never or always right (counts per question).
COUNTS = [0] * 9 + [16] * 7 + [1, 2, 15, 14, 3, 13, 8, 5, 11, 0, 16, 0, 16, 1]
THRESHOLDS = (0.0, 0.5, 1.0)


def u_pilot(tmp_path, counts=COUNTS, n=16):
    matrix = [[g < c for g in range(n)] for c in counts]
    return write(tmp_path / "pilot.json", matrix, ks=(16,), thresholds=THRESHOLDS)


def plan(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["plan", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def pilot_p(counts=COUNTS, n=16) -> list[Fraction]:
    return [Fraction(c + 1, n + 2) for c in counts]  # the uniform prior's posterior mean, as gpassk plan takes it


def exact_draws(design: Curtailed, p: list[Fraction]) -> Fraction:
    stop = [
        sum((math.comb(design.n1, s) * q**s * (1 - q) ** (design.n1 - s) for s in design.stop_set), Fraction(0))
        for q in p
    ]
    return sum((design.n1 + (design.n - design.n1) * (1 - s) for s in stop), Fraction(0)) / len(p)


@pytest.mark.parametrize("rule", ["all-wrong", "all-wrong-or-right"])
def test_the_plan_says_the_generations_saved_and_each_metrics_width_against_a_fixed_n(tmp_path, capsys, rule):
    design = Curtailed(16, 48, rule)
    out_json = tmp_path / "plan.json"
    code, out, err = plan(
        capsys, str(u_pilot(tmp_path)), "--curtail", str(design), "--questions", "30", "400", "--json", str(out_json)
    )
    assert code == 0, err
    document = json.loads(out_json.read_text())
    curtailed = document["curtailed"]
    draws = exact_draws(design, pilot_p())
    assert curtailed["expected_draws"] == pytest.approx(float(draws), rel=1e-13)
    assert curtailed["saved"] == pytest.approx(float(1 - draws / 48), rel=1e-12)
    assert (
        f"Expected generations: {float(draws):.2f} per question against 48 ({float(1 - draws / 48):.1%} saved)" in out
    )
    assert f"## Curtailed 16:48:{rule} against a fixed n = 48" in out
    p = np.array([float(q) for q in pilot_p()])
    rows = curtailed["rows"]
    assert [(row["questions"], row["key"]) for row in rows] == [
        (m, key) for m in (30, 400) for key in ("G-Pass@16_0.0", "G-Pass@16_0.5", "G-Pass@16_1.0", "mG-Pass@16")
    ]
    for row in rows:
        tau = "mG" if row["key"].startswith("mG") else float(row["key"].split("_")[1])
        fixed = within_question_variance(p, 48, 16, tau).mean()
        noise = curtailed_variance(p, design, 16, tau).mean()
        assert row["ratio"] == pytest.approx(noise / fixed, rel=1e-12)
        assert row["fixed"]["n"] == row["curtailed"]["n"] == 48 and row["fixed"]["questions"] == row["questions"]
        line = f"| {row['key']} | ±{row['fixed']['half_width']:.2f} | ±{row['curtailed']['half_width']:.2f} | "
        assert line + f"{row['ratio']:.2f}× |" in out
    fixed_table = {m["key"]: m["half_width"] for m in document["rows"] if m["questions"] == 400 and m["n"] == 48}
    for row in rows:
        if row["questions"] == 400:  # the fixed n's width in the curtailed table is the plan table's
            assert row["fixed"]["half_width"] == pytest.approx(fixed_table[row["key"]], rel=1e-12)


def warning_lines(out: str) -> list[str]:
    return [line.removeprefix("warning: ") for line in out.splitlines() if line.startswith("warning: ")]


def test_a_rule_that_costs_precision_is_one_warning_line_per_metric_naming_the_rule_that_keeps_it(tmp_path, capsys):
    out_json = tmp_path / "plan.json"
    code, out, err = plan(
        capsys, str(u_pilot(tmp_path)), "--curtail", "16:48:all-wrong-or-right", "--json", str(out_json)
    )
    assert code == 0, err
    document = json.loads(out_json.read_text())
    ratios = {row["key"]: row["ratio"] for row in document["curtailed"]["rows"]}
    noisier = [key for key, ratio in ratios.items() if ratio > CURTAIL_NOISIER]
    assert set(noisier) == {"G-Pass@16_0.0", "G-Pass@16_1.0", "mG-Pass@16"}, ratios  # G-Pass@16_0.5 keeps it
    lines = warning_lines(out)
    assert lines == document["warnings"]
    assert lines == [
        f"all-wrong-or-right makes G-Pass@16_0.0 {ratios['G-Pass@16_0.0']:.1f}× noisier here and no rule keeps it; "
        "draw a fixed n = 48 for τ = 0 (pass@k)",
        f"all-wrong-or-right makes G-Pass@16_1.0 {ratios['G-Pass@16_1.0']:.1f}× noisier here; use all-wrong for τ = 1",
        f"all-wrong-or-right makes mG-Pass@16 {ratios['mG-Pass@16']:.1f}× noisier here; use all-wrong for mG-Pass@16",
    ]
    assert 3 < ratios["G-Pass@16_1.0"] < 6  # the U-shaped pilot: a few times noisier, as docs/metrics.md says


def test_all_wrong_costs_only_pass_at_k_and_says_so(tmp_path, capsys):
    code, out, err = plan(
        capsys, str(u_pilot(tmp_path)), "--curtail", "16:48", "--k", "16", "--thresholds", "0", "0.5", "1"
    )
    assert code == 0, err
    (line,) = warning_lines(out)
    assert re.fullmatch(
        r"all-wrong makes G-Pass@16_0\.0 \d\.\d× noisier here and no rule keeps it; draw a fixed n = 48 for τ = 0 "
        r"\(pass@k\)",
        line,
    )


def test_a_pilot_with_no_correct_answer_cannot_inform_the_curtailed_plan_either(tmp_path, capsys):
    code, out, err = plan(capsys, str(u_pilot(tmp_path, counts=[0] * 12)), "--curtail", "16:48")
    assert code == 0, err
    lines = warning_lines(out)
    assert lines[0].startswith("no answer of the pilot is correct (0 of 192 judged), so it cannot inform the plan")
    assert "## Curtailed 16:48:all-wrong against a fixed n = 48" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--curtail", "16-48"], "--curtail must be N1:N or N1:N:RULE (e.g. 16:48:all-wrong); got '16-48'"),
        (["--curtail", "16:48:all-rihgt"], "unknown curtailment rule 'all-rihgt'; did you mean 'all-wrong'?"),
        (["--curtail", "48:16"], "curtailment must satisfy 1 <= n1 <= n <= 2048"),
        (["--curtail", "8:48", "--k", "4", "16"], "k must be at most n1=8, the generations every question draws"),
        (["--curtail", "8:48"], "k must be at most n1=8"),  # the pilot's k = 16
        ([], "--n must name the planned generations per question (or give --curtail N1:N)"),
    ],
)
def test_a_bad_curtail_is_one_line_exit_2_before_any_work(tmp_path, capsys, extra, message):
    out_json = tmp_path / "plan.json"
    code, out, err = plan(capsys, str(u_pilot(tmp_path)), *extra, "--json", str(out_json))
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1, err
    assert not out_json.exists()


def test_the_gpassk_console_script_plans_a_curtailed_design(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpassk_opencompass.cli",
            "plan",
            str(u_pilot(tmp_path)),
            "--curtail",
            "16:48:all-wrong-or-right",
            "--fixed-questions",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "generation noise only" in done.stdout and "| noise ratio |" in done.stdout
    assert "use all-wrong for τ = 1" in done.stdout
