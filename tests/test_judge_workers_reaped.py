"""Judge workers reaped: a user judge's workers and everything they start end with the run, whatever ends it.

Each case runs the real ``gpassk score`` as a subprocess on the metric card's question (predictions a, b, a, c,
reference a) with a judge module written for it, and checks on ``/proc`` that no process of the worker's
process group survives (``test_grid_signals.group_members``, polled with a bounded wait). The judge writes its
process group and its child's pid to a file, so the test knows whom to look for; its output goes to files, not
pipes (a surviving child holding a pipe would hang the test instead of failing it).
"""

from __future__ import annotations

import json

import pytest

from gpassk_opencompass.cli import main

QUESTION = {"id": "card", "question": "", "answer": "a", "predictions": ["a", "b", "a", "c"]}


@pytest.mark.parametrize("judge, name", [(".checks:same", "'.checks'"), ("checks:same.", "'same.'")])
def test_a_judge_name_that_is_no_python_name_is_one_line_exit_2(tmp_path, capsys, judge, name):
    (tmp_path / "card.jsonl").write_text(json.dumps(QUESTION) + "\n")
    assert main(["score", str(tmp_path / "card.jsonl"), "--k", "2", "--judge", judge, "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert f"--judge {judge}: {name} is not a dotted name of Python identifiers" in error
    assert "no leading dot" in error and "e.g. my_checks:same_answer" in error
