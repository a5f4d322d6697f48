"""``gpassk calc``: the metric card's numbers, clean one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpassk_opencompass.cli import main
from metric_card import METRIC_CARD


def test_calc_reproduces_the_metric_card(capsys):
    assert main(["calc", "--n", "16", "--c", "8", "--k", "4", "8", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    for key, value in METRIC_CARD.items():
        assert printed[key] == pytest.approx(value, abs=1e-12), key


def test_calc_table_shows_every_threshold_and_k(capsys):
    assert main(["calc", "--n", "16", "--c", "8", "--k", "4", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "n=16 generations, c=8 correct"
    assert lines[1].split() == ["metric", "k=4", "k=8"]
    table = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert table["G-Pass@k_0.5"] == ["0.715385", "0.690365"]
    assert table["G-Pass@k_1.0"] == ["0.038462", "0.000078"]
    assert table["mG-Pass@k"] == ["0.161538", "0.095183"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--n", "16", "--c", "18", "--k", "4"],
            "--c must satisfy --c <= --n (more correct generations than generations); got --c 18 with --n 16",
        ),
        (["--n", "16", "--c", "8", "--k", "20"], "--k must satisfy --k <= --n; got --k 20 with --n 16"),
        (["--n", "16", "--c", "8", "--k", "0"], "--k must satisfy --k >= 1; got --k 0"),
        (
            ["--n", "16", "--c", "8", "--k", "4", "--thresholds", "1.5"],
            "--thresholds must be in [0, 1]; got --thresholds 1.5",
        ),
        (["--n", "16", "--c", "x", "--k", "4"], "argument --c: invalid int value: 'x'"),
    ],
)
def test_calc_bad_values_exit_2_with_one_line(argv, message, capsys):
    try:
        code = main(["calc", *argv])
    except SystemExit as exit:  # argparse's own errors
        code = exit.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.err.strip().splitlines()[-1].startswith("gpassk calc: error:")


def test_the_console_entry_point_exits_2_with_one_line():
    # One real process: the exit code and stderr as a shell sees them (the rest run in-process).
    completed = subprocess.run(
        [sys.executable, "-m", "gpassk_opencompass.cli", "calc", "--n", "16", "--c", "18", "--k", "4"],
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 2 and completed.stdout == ""
    assert completed.stderr.strip().splitlines() == [
        "gpassk calc: error: --c must satisfy --c <= --n (more correct generations than generations); got --c 18 with --n 16"
    ]


def test_gpassk_without_a_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "calc" in capsys.readouterr().out


def test_calc_under_a_curtailed_design_gives_the_path_count_not_the_fixed_n_formula(capsys):
    from exact import exact_curtailed_tail

    assert (
        main(["calc", "--n", "48", "--c", "5", "--k", "16", "--thresholds", "0.25", "--curtail", "16:48", "--json"])
        == 0
    )
    value = json.loads(capsys.readouterr().out)["G-Pass@16_0.25"]
    assert value == pytest.approx(float(exact_curtailed_tail(16, 48, frozenset({0}), 48, 5, 16, 4)), abs=1e-12)
    assert main(["calc", "--n", "16", "--c", "3", "--k", "16", "--curtail", "16:48"]) == 2
    assert "3 correct of 16 cannot come from curtailment at 16 of 48" in capsys.readouterr().err
