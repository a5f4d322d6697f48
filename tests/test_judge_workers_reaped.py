"""Judge workers reaped: a user judge's workers and everything they start end with the run, whatever ends it.

Each case runs the real ``gpassk score`` as a subprocess on the metric card's question (predictions a, b, a, c,
reference a) with a judge module written for it, and checks on ``/proc`` that no process of the worker's
process group survives (``test_grid_signals.group_members``, polled with a bounded wait). The judge writes its
process group and its child's pid to a file, so the test knows whom to look for; its output goes to files, not
pipes (a surviving child holding a pipe would hang the test instead of failing it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import JudgeItem, PythonJudge
from gpassk_opencompass.judges.cache import VerdictCache
from test_grid_signals import group_members, wait_for

ROOT = Path(__file__).resolve().parents[1]
QUESTION = {"id": "card", "question": "", "answer": "a", "predictions": ["a", "b", "a", "c"]}
#: What ``gpassk score --k 2`` reports for a, b, a, c judged by equality with "a".
REPORT_HEAD = "1 questions, n=4, python:"
MG_PASS_2 = "mG-Pass@2                    16.67"

#: A judge that, on "c" while the file ``spin`` exists, starts a child (``sleep``), says where it is, and
#: spins at full CPU (or, with ``wait``, waits for its child).
STUCK = """
import os, subprocess

def same(prediction, reference):
    if prediction == "c" and os.path.exists("spin"):
        child = subprocess.Popen(["sleep", "1000"])
        with open("where.tmp", "w") as file:
            file.write(f"{os.getpgid(0)} {child.pid}")
        os.replace("where.tmp", "where")
        if os.path.exists("wait"):
            child.wait()
        while True:
            pass
    return prediction == reference
"""


def start_score(folder: Path, module: str, body: str, *options: str) -> subprocess.Popen:
    """``gpassk score card.jsonl --k 2 --judge MODULE:same`` in ``folder``, its stdout and stderr in files there."""
    (folder / f"{module}.py").write_text(textwrap.dedent(body))
    (folder / "card.jsonl").write_text(json.dumps(QUESTION) + "\n")
    return start_gpassk(folder, "score", "card.jsonl", "--k", "2", "--quiet", "--judge", f"{module}:same", *options)


def start_gpassk(folder: Path, *arguments: str, **environment: str) -> subprocess.Popen:
    """``gpassk ARGUMENTS`` in ``folder`` (``environment`` set, or unset where empty), its output in files there."""
    variables = {**os.environ, "PYTHONPATH": str(ROOT), **environment}
    with open(folder / "out.txt", "w") as out, open(folder / "err.txt", "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "gpassk_opencompass.cli", *arguments],
            cwd=folder,
            env={name: value for name, value in variables.items() if value},
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            # A shell's background job ignores SIGINT and its children inherit that: give ours the default back.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )


def finish(process: subprocess.Popen, folder: Path) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of a ``start_score`` process (killed if it does not end in 300 s)."""
    try:
        returncode = process.wait(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    return returncode, (folder / "out.txt").read_text(), (folder / "err.txt").read_text()


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def stuck_judges():
    """The (process group, child pid) of each stuck judge met: whatever of them is alive at the end is killed."""
    found: list[tuple[int, int]] = []
    yield found
    for group, child in found:
        for pid in {*group_members(group), child}:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def where(folder: Path, stuck_judges: list[tuple[int, int]]) -> tuple[int, int]:
    """The stuck judge's process group and its child's pid, once it has written them."""
    path = folder / "where"
    wait_for(path.exists, "the judge to start its child")
    group, child = (int(number) for number in path.read_text().split())
    stuck_judges.append((group, child))
    return group, child


def check_gone(group: int, child: int) -> None:
    """Nothing of the worker's process group is left (polled, with a bound)."""
    wait_for(lambda: not group_members(group) and not alive(child), "the worker's group to end", tries=100)


@pytest.mark.e2e  # real gpassk and worker processes; a 3 s limit on purpose
def test_a_judges_subprocess_is_killed_with_its_worker_at_the_judge_timeout(tmp_path, stuck_judges):
    (tmp_path / "spin").touch()
    (tmp_path / "wait").touch()
    process = start_score(tmp_path, "waiting_checks", STUCK, "--judge-timeout", "3")
    group, child = where(tmp_path, stuck_judges)
    returncode, _, err = finish(process, tmp_path)
    assert returncode == 3, err
    assert "1 x python:waiting_checks:same gave no verdict within 3 s" in err
    check_gone(group, child)


@pytest.mark.e2e  # real gpassk and worker processes, stopped by a signal
@pytest.mark.parametrize(
    "signum, code, said",
    [
        (signal.SIGTERM, 143, "terminated by SIGTERM"),
        (signal.SIGHUP, 129, "terminated by SIGHUP"),
        (signal.SIGINT, 130, "interrupted"),
    ],
)
def test_a_stopped_score_kills_its_busy_workers_keeps_the_verdicts_and_resumes(
    tmp_path, stuck_judges, signum, code, said
):
    (tmp_path / "spin").touch()
    options = ("--cache", "verdicts.jsonl")
    process = start_score(tmp_path, "spinning_checks", STUCK, *options)
    group, child = where(tmp_path, stuck_judges)
    process.send_signal(signum)
    returncode, out, err = finish(process, tmp_path)
    assert returncode == code, err
    assert f"gpassk score: {said}; every verdict that arrived is kept in verdicts.jsonl" in err
    assert "Traceback" not in err and out == ""
    check_gone(group, child)
    with VerdictCache(tmp_path / "verdicts.jsonl") as cache:
        assert len(cache) == 2  # "a" and "b", judged before "c"
    if signum == signal.SIGTERM:  # the same command resumes: only "c" is judged again
        (tmp_path / "spin").unlink()
        returncode, out, err = finish(start_score(tmp_path, "spinning_checks", STUCK, *options), tmp_path)
        assert returncode == 0, err
        assert "judged 4 generations: 3 distinct, 2 from cache" in out and MG_PASS_2 in out


@pytest.mark.e2e  # the real opencompass, a real gpassk process stopped by a signal
def test_a_terminated_rejudge_kills_its_busy_workers(tiny_opencompass_run, tmp_path, stuck_judges):
    """``gpassk rejudge`` through OpenCompass's own eval task, a user judge stuck on its first answer."""
    run = tiny_opencompass_run
    (tmp_path / "spin").touch()
    (tmp_path / "stuck_checks.py").write_text(textwrap.dedent(STUCK.replace('prediction == "c" and ', "")))
    part = sorted((run.run_dir / "predictions" / "strong_t0-7").glob("tiny_rule*.json"))[0]
    output = tmp_path / "rejudged"
    command = ("rejudge", str(part), "--judge", "stuck_checks:same", "--output", str(output), "--quiet")
    process = start_gpassk(tmp_path, *command, COMPASS_DATA_CACHE=str(run.data_root), DATASET_SOURCE="")
    group, child = where(tmp_path, stuck_judges)
    process.send_signal(signal.SIGTERM)
    returncode, out, err = finish(process, tmp_path)
    assert returncode == 143, err
    assert "gpassk rejudge: terminated by SIGTERM; every verdict that arrived is kept" in err
    assert "Traceback" not in err and out == ""
    check_gone(group, child)


FORKS = """
import os

def same(prediction, reference):
    os.fork()  # the copy returns too, into the worker's loop
    return prediction == reference
"""

PRINTS = """
import subprocess
print("judge module imported")

def same(prediction, reference):
    print("judge sees", prediction)
    subprocess.run(["echo", "judge child says", prediction])
    return prediction == reference
"""

SLOW_IMPORT = """
import time
time.sleep(3)  # a heavy import (torch, a tokenizer): the worker's start-up, not an answer's time

def same(prediction, reference):
    return prediction == reference
"""


@pytest.mark.e2e  # real gpassk and worker processes
@pytest.mark.parametrize(
    "module, body, options",
    [
        ("forking_checks", FORKS, ()),
        ("printing_checks", PRINTS, ()),
        ("heavy_checks", SLOW_IMPORT, ("--judge-timeout", "1")),
    ],
    ids=["a judge that forks", "a judge that prints", "a judge slower to import than its time limit"],
)
def test_a_module_judges_verdicts_and_nothing_else_reach_the_report(tmp_path, module, body, options):
    returncode, out, err = finish(start_score(tmp_path, module, body, *options), tmp_path)
    assert returncode == 0, err
    assert out.startswith(f"{REPORT_HEAD}{module}:same judge\n") and MG_PASS_2 in out
    assert "Traceback" not in err
    for said in ("judge module imported", "judge sees c", "judge child says c"):
        assert said not in out
        assert body is not PRINTS or said in err


def test_a_python_function_that_forks_gives_its_verdicts(tmp_path):
    def forks(prediction, reference):  # a closure: its workers are forked copies of this process
        os.fork()
        return prediction == reference

    items = [JudgeItem("q", "a", prediction) for prediction in ("a", "b", "a", "c")]
    assert [verdict.correct for verdict in PythonJudge(forks).judge(items, progress=False).verdicts] == [
        True,
        False,
        True,
        False,
    ]


def test_what_a_python_function_prints_goes_to_stderr(capfd):
    def prints(prediction, reference):
        print("judge sees", prediction)
        return prediction == reference

    items = [JudgeItem("q", "a", prediction) for prediction in ("a", "b")]
    assert [verdict.correct for verdict in PythonJudge(prints).judge(items, progress=False).verdicts] == [True, False]
    out, err = capfd.readouterr()
    assert out == "" and "judge sees a" in err and "judge sees b" in err


@pytest.mark.parametrize("judge, name", [(".checks:same", "'.checks'"), ("checks:same.", "'same.'")])
def test_a_judge_name_that_is_no_python_name_is_one_line_exit_2(tmp_path, capsys, judge, name):
    (tmp_path / "card.jsonl").write_text(json.dumps(QUESTION) + "\n")
    assert main(["score", str(tmp_path / "card.jsonl"), "--k", "2", "--judge", judge, "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert f"--judge {judge}: {name} is not a dotted name of Python identifiers" in error
    assert "no leading dot" in error and "e.g. my_checks:same_answer" in error
