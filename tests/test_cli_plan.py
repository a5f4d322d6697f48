"""``gpassk plan``: the table, the target, the calibration plot, one-line errors."""

from __future__ import annotations

import json

import pytest

from analysis_docs import write
from gpassk_opencompass.cli import main

T, F = True, False


def pilot(tmp_path):
    return write(
        tmp_path / "pilot.json",
        [[bool(g < c) for g in range(4)] for c in (0, 1, 2, 3, 4, 2)],
        ks=(2,),
        thresholds=(1.0,),
    )


def test_plan_prints_the_table_and_the_smallest_n(tmp_path, capsys):
    assert (
        main(
            [
                "plan",
                str(pilot(tmp_path)),
                "--n",
                "4",
                "16",
                "--questions",
                "6",
                "600",
                "--target",
                "5",
                "--calibration-plot",
                str(tmp_path / "cal.png"),
                "--replications",
                "200",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "## 600 questions" in out and "| G-Pass@2_1.0 | ±" in out and "Smallest n for ±5 points" in out
    assert (tmp_path / "cal.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--n", "0"], "--n must be positive integers"),
        (["--n", "4", "--target", "0"], "--target must be a half-width > 0"),
        (["--n", "4", "--replications", "0"], "--replications must be positive integers"),
        (["--n", "4", "--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--n", "4", "--calibration-plot", "/nonexistent-dir/c.png"], "folder /nonexistent-dir does not exist"),
    ],
)
def test_bad_input_exits_2_in_one_line(tmp_path, capsys, extra, message):
    assert main(["plan", str(pilot(tmp_path)), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_help_carries_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    assert "example: gpassk plan" in capsys.readouterr().out


@pytest.mark.parametrize(
    "verdict, said",
    [
        (False, "no answer of the pilot is correct (0 of 22 judged), so it cannot inform the plan"),
        (True, "every answer of the pilot is correct (22 of 22 judged), so it cannot inform the plan"),
    ],
    ids=["none-correct", "all-correct"],
)
def test_a_pilot_that_tells_no_question_apart_is_said_to_inform_nothing(tmp_path, capsys, verdict, said):
    """A first run of a small model (no answer correct): the plan is the prior's, and both outputs say so."""
    matrix = [[verdict] * 4 for _ in range(5)] + [[verdict, verdict, None, None]]  # unresolved left out of n
    path = write(tmp_path / "pilot.json", matrix, ks=(2,), thresholds=(1.0,))
    assert main(["plan", str(path), "--n", "8", "16", "--target", "2", "--json", str(tmp_path / "plan.json")]) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert line.startswith(f"warning: {said}: every question looks equally")
    assert "not this model's; pilot " in line
    (warning,) = json.loads((tmp_path / "plan.json").read_text())["warnings"]
    assert line == f"warning: {warning}"


def test_a_pilot_with_right_and_wrong_answers_has_no_warning(tmp_path, capsys):
    assert main(["plan", str(pilot(tmp_path)), "--n", "8", "--json", str(tmp_path / "plan.json")]) == 0
    assert "warning" not in capsys.readouterr().out
    assert json.loads((tmp_path / "plan.json").read_text())["warnings"] == []
