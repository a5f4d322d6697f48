"""A user mistake is an ``InputError``, which is not a ``ValueError``; anything else is a bug with its traceback.

The one mapper from exception to exit code (``cli.ending``), applied by ``cli.main`` to every command, and the
paths that used to turn any ``ValueError`` into the user's mistake: ``gpassk score`` (an internal error in the
metrics) and ``gpassk rejudge`` (an internal error while building the evaluator).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_JUDGE_FAILED,
    EXIT_USAGE,
    EXIT_WRITE_FAILED,
    Resumable,
    Terminated,
    ending,
)
from gpassk_opencompass.errors import IncompleteResults, InputError, WriteError
from gpassk_opencompass.judges import JudgeError
from scoring_fixtures import generations, write_jsonl

REPOSITORY = Path(__file__).resolve().parent.parent
KEPT = Resumable("every verdict that arrived is kept in c.jsonl", store="c.jsonl")
FULL = "out.json: cannot write (No space left on device); nothing was written there: free some space, then run again"
RESUME = "run the same command again to resume"


def test_an_input_error_is_not_a_value_error():
    assert not issubclass(InputError, ValueError)
    with pytest.raises(ValueError):  # a ValueError handler never catches the user's mistake
        try:
            raise ValueError("an internal invariant broke")
        except InputError:
            pytest.fail("an InputError handler caught a ValueError")


@pytest.mark.parametrize(
    "error, resumable, code, line",
    [
        (InputError("--k 16: k must be <= n = 8"), KEPT, EXIT_USAGE, "error: --k 16: k must be <= n = 8"),
        (
            IncompleteResults("a.json has 1 unresolved verdict"),
            None,
            EXIT_INCOMPLETE,
            "a.json has 1 unresolved verdict",
        ),
        (
            JudgeError("cannot reach the judge."),
            KEPT,
            EXIT_JUDGE_FAILED,
            f"the judge failed: cannot reach the judge; {KEPT.left}; {RESUME}",
        ),
        (
            JudgeError("stopped answering; kept in c.jsonl", arrived=3),
            KEPT,
            EXIT_JUDGE_FAILED,
            "the judge failed: stopped answering; kept in c.jsonl",
        ),
        (WriteError(FULL, "out.json"), KEPT, EXIT_WRITE_FAILED, f"error: {FULL}; {KEPT.left}"),
        (WriteError(FULL, "c.jsonl"), KEPT, EXIT_WRITE_FAILED, f"error: {FULL}"),  # the store says what it kept
        (WriteError(FULL, "out.json"), Resumable("kept", after_write=False), EXIT_WRITE_FAILED, f"error: {FULL}"),
        (WriteError(FULL, "out.json"), None, EXIT_WRITE_FAILED, f"error: {FULL}"),
        (KeyboardInterrupt(), KEPT, EXIT_INTERRUPTED, f"interrupted; {KEPT.left}; {RESUME}"),
        (KeyboardInterrupt(), None, EXIT_INTERRUPTED, "interrupted"),
        (Terminated(signal.SIGHUP), None, 129, "terminated by SIGHUP"),
    ],
)
def test_one_mapper_gives_each_ending_its_code_and_line(error, resumable, code, line):
    assert ending(error, resumable) == (code, line)


@pytest.mark.parametrize("error", [ValueError("boom"), KeyError("boom"), RuntimeError("boom"), TypeError("boom")])
def test_anything_else_is_a_bug(error):
    assert ending(error, KEPT) is None


def test_an_internal_error_in_scoring_exits_1_with_its_traceback(tmp_path):
    """A ``ValueError`` inside the metrics during ``gpassk score`` is a bug: not ``error: boom`` and exit 2."""
    source = write_jsonl(tmp_path / "gens.jsonl", generations([2, 4], n=4))
    broken_metrics = (
        "import sys\n"
        "from gpassk_opencompass import metrics\n"
        "from gpassk_opencompass.cli import main\n"
        "def broken(*args, **kwargs):\n"
        "    raise ValueError('boom')\n"
        "metrics._gather = broken  # every G-Pass@k computation gathers its tail table here\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", broken_metrics, "score", str(source), "--k", "4", "--quiet"],
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        timeout=300,
    )
    assert completed.returncode == 1
    assert "Traceback (most recent call last)" in completed.stderr
    assert completed.stderr.rstrip().endswith("ValueError: boom")
    assert "gpassk score: error" not in completed.stderr


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_an_internal_error_building_the_rejudge_evaluator_is_not_the_users(monkeypatch):
    """``gpassk rejudge`` builds the evaluator before judging; a ``ValueError`` inside is a bug, not bad input."""
    from gpassk_opencompass.plugin import evaluator, rejudge

    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(evaluator, "resolve_judge", broken)
    with pytest.raises(ValueError, match="boom") as error:
        rejudge._instantiate_evaluator({"eval_cfg": {"evaluator": {"type": evaluator.GPassKEvaluator}}})
    assert type(error.value) is ValueError
