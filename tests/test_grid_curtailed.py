"""A curtailed grid end to end: the real ``opencompass`` against a loopback model server, round 2 only where due.

The generator writes a self-served grid with ``curtail = dict(first=4)`` (n = 8, k = [2, 4]) and a greedy run;
the scripted model answers the i-th request for a question by that question's outcome string (``1`` right, ``0``
wrong), so what each round draws is known exactly. ``gpassk grid run`` (a real process) is stopped by SIGTERM
while round 2's first requests are held by the server, after ``gpassk grid status`` said "round 1 done, round 2
running"; the next ``gpassk grid run`` resumes: round 1 is not launched again, round 2 draws its questions once,
the rounds are combined. Round 2's predictions hold only the questions round 1 did not stop, n - n1 each; every
request the server answered is counted (no generation drawn twice); the combined results and the leaderboard
(CSV, Markdown, the HTML page) equal the exact ``Fraction`` path count of ``tests/exact.py`` on the verdicts both
rounds saved. A second test runs round 1 and round 2 through OpenCompass's ``SlurmRunner`` with an ``srun`` on
PATH that records each job and runs it here, as the grid's other Slurm tests drive the real runner.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from exact import exact_curtailed_tail, exact_m
from generated_configs import REPO, generate_configs
from gpassk_opencompass.cli import main
from loopback_openai import Fault, Reply, last_user_message
from opencompass_e2e import TinyQuestion, write_livemathbench

pytestmark = pytest.mark.e2e

N1, N, KS = 4, 8, (2, 4)
THRESHOLDS = ("0.0", "0.25", "0.5", "0.75", "1.0")
#: Per question, the verdict of each draw in order: round 1 draws the first N1, round 2 the rest where due.
OUTCOMES = ["00001111", "10000000", "11111111", "00000000", "01101001", "00110000", "00000001", "11110000"]
STOP = frozenset({0})  # all-wrong
WRONG = "-1"


def drawn(outcome: str) -> str:
    """What the design draws of a question's outcomes: round 1's, and round 2's unless round 1 stops it."""
    return outcome[:N1] if outcome[:N1].count("1") in STOP else outcome


class Scripted:
    """The model: draw i of a question (at the sampled temperature) is right iff its outcome string says so; the
    greedy request is right. With ``hold`` set, round 2's requests wait until ``release`` and are not answered
    (nor counted): the grid is stopped while they wait."""

    def __init__(self, questions: list[TinyQuestion]):
        self.questions = questions
        self.answered: dict[tuple[int, float], int] = {}
        self.lock = threading.Lock()
        self.hold = threading.Event()
        self.held = threading.Event()
        self.release = threading.Event()

    def __call__(self, body: dict):
        prompt = last_user_message(body)
        index = next(i for i, question in enumerate(self.questions) if question.question in prompt)
        temperature = float(body.get("temperature") or 0.0)
        with self.lock:
            draw = self.answered.get((index, temperature), 0)
            holding = temperature > 0 and draw >= N1 and self.hold.is_set()
            if holding:
                self.held.set()
            else:
                self.answered[(index, temperature)] = draw + 1
        if holding:
            self.release.wait(300)
            return Fault(drop=True)
        assert draw < (N if temperature > 0 else 1), f"question {index} drawn {draw + 1} times"
        right = OUTCOMES[index][draw] == "1" if temperature > 0 else True
        question = self.questions[index]
        text = f"Attempt {draw}.\nThe final answer is $\\boxed{{{question.answer if right else WRONG}}}$."
        return Reply(text, finish_reason="stop" if right else "length")  # a wrong answer: stopped at the limit


@pytest.fixture
def grid(tmp_path, offline_env, loopback_openai):
    """The tiny LiveMathBench (4 splits x 2 languages), the scripted server, the generated curtailed grid."""
    places = [(split, language) for split in ("CNMO", "CCEE", "AMC", "WLPMC") for language in ("cn", "en")]
    questions = [
        TinyQuestion(split, language, f"{split} {language}: what is {i} + 10?", str(i + 10), {})
        for i, (split, language) in enumerate(places)
    ]
    write_livemathbench(offline_env, questions)
    model = Scripted(questions)
    server = loopback_openai(model, model_name="scripted")
    configs = tmp_path / "configs"
    runs = generate_configs(
        "self_served.py",
        configs,
        f"model_url={server.url}",
        "models=[{'path': 'scripted', 'batch_size': 8}]",
        "benchmarks=[LiveMathBench-202412]",
        f"n={N}",
        f"k={list(KS)}",
        "greedy=True",
        "judge=rule",
        "retry=1",
        "max_out_len=64",
        f"curtail={{'first': {N1}}}",
    )
    greedy, sampled = sorted(runs, key=lambda run: not run["greedy"])
    return configs, greedy, sampled, model, questions


def folder_of(work: Path, run: dict) -> Path:
    (folder,) = (work / Path(run["file"]).stem).iterdir()
    return folder


def saved_verdicts(folder: Path, run: dict, number: int) -> dict[str, list[bool]]:
    """Each question's verdicts as round ``number``'s evaluation saved them, in replica (draw) order."""
    path = folder / f"round{number}" / "results" / run["model_abbr"] / f"{run['dataset_abbr']}_r{number}.json"
    return {
        detail["id"]: [v["correct"] for v in detail["verdicts"]] for detail in json.loads(path.read_text())["details"]
    }


def oracle(counts: list[tuple[int, int]]) -> dict[str, float]:
    """Every metric of the combined results, by exact path counting (tests/exact.py) on (N, C) per question."""

    def mean(values) -> float:
        return float(100 * sum(values, Fraction(0)) / len(values))

    def tail(k: int, m: int):
        return [exact_curtailed_tail(N1, N, STOP, drawn_n, correct, k, m) for drawn_n, correct in counts]

    expected = {f"accuracy ({N} runs average)": mean(tail(1, 1))}
    for k in KS:
        for tau in THRESHOLDS:
            expected[f"G-Pass@{k}_{tau}"] = mean(tail(k, exact_m(k, tau)))
        first = (k + 1) // 2 + 1
        per_question = zip(*(tail(k, m) for m in range(first, k + 1)))
        expected[f"mG-Pass@{k}"] = mean([Fraction(2, k) * sum(values, Fraction(0)) for values in per_question])
    return expected


def check_combined(work: Path, configs: Path, run: dict, questions: list[TinyQuestion], capsys) -> None:
    """Round 2 drew only the questions round 1 did not stop; the results and the leaderboard are the oracle's."""
    folder = folder_of(work, run)
    first, second = saved_verdicts(folder, run, 1), saved_verdicts(folder, run, 2)
    ids = list(first)
    going = [name for name, verdicts in first.items() if sum(verdicts) not in STOP]
    assert list(second) == going and all(len(verdicts) == N - N1 for verdicts in second.values())
    for name, outcome in zip(ids, OUTCOMES):  # the saved verdicts are the scripted draws, in draw order
        assert "".join("1" if v else "0" for v in first[name] + second.get(name, [])) == drawn(outcome)

    predictions = json.loads(
        (folder / "round2" / "predictions" / run["model_abbr"] / f"{run['dataset_abbr']}_r2.json").read_text()
    )
    continuing = [q.question for q, name in zip(questions, ids) if name in going]
    asked = [next(q for q in continuing if q in str(row["origin_prompt"])) for row in predictions.values()]
    assert len(asked) == len(going) * (N - N1) and sorted(set(asked)) == sorted(continuing)
    assert all(asked.count(question) == N - N1 for question in continuing)

    counts = [
        (len(first[name]) + len(second.get(name, [])), sum(first[name]) + sum(second.get(name, []))) for name in ids
    ]
    expected = oracle(counts)
    results = json.loads((folder / "results" / run["model_abbr"] / f"{run['dataset_abbr']}.json").read_text())
    for key, value in expected.items():
        assert results[key] == pytest.approx(value, abs=1e-9), key
    # both rounds' recorded finish reasons, joined in draw order: every wrong draw stopped at the limit
    generations = sum(len(drawn(outcome)) for outcome in OUTCOMES)
    cut = sum(drawn(outcome).count("0") for outcome in OUTCOMES)
    assert results["gpassk"]["cut"] == dict(
        generations=generations, cut=cut, no_answer=0, recorded=generations, source="finish_reason"
    )
    generations = sum(drawn_n for drawn_n, _ in counts)
    assert results["gpassk"]["curtail"] == {
        "n1": N1,
        "n": N,
        "rule": "all-wrong",
        "stopped": len(ids) - len(going),
        "generations": generations,
        "fixed_n_generations": N * len(ids),
    }
    assert results["gpassk"]["judge"] == "rule" and results["gpassk"]["complete"] is True
    assert [detail["id"] for detail in results["details"]] == ids

    assert main(["leaderboard", str(work), "--k", "4", "--format", "csv"]) == 0  # the manifest found by itself
    (row,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    for column in ("G-Pass@4_0.5", "G-Pass@4_0.75", "G-Pass@4_1.0", "mG-Pass@4"):
        assert float(row[column]) == pytest.approx(expected[column], abs=1e-9), column
    assert (row["n"], row["curtail"], row["generations"]) == (str(N), f"{N1}:{N}:all-wrong", str(generations))
    assert row["Greedy"] == "100.0"
    said = f"generations: {generations} of {N * len(ids)}"
    assert main(["leaderboard", str(work), "--manifest", str(configs / "manifest.json"), "--k", "4"]) == 0
    assert said in capsys.readouterr().out
    page = work.parent / "board.html"
    assert main(["leaderboard", str(work), "--k", "4", "-o", str(page)]) == 0
    assert said in page.read_text(encoding="utf-8")


def test_round_two_draws_only_what_round_one_did_not_stop_and_a_kill_between_rounds_redraws_nothing(
    tmp_path, grid, capsys
):
    configs, greedy, sampled, model, questions = grid
    work = tmp_path / "outputs"
    model.hold.set()
    process = subprocess.Popen(
        [sys.executable, "-m", "gpassk_opencompass.cli", "grid", "run", str(configs), "-w", str(work), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    try:
        assert model.held.wait(600), "round 2 never started"
        # Round 1 is done and round 2 running: grid status says so, per round.
        assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
        (line, summary) = capsys.readouterr().out.splitlines()
        assert line.startswith("running") and Path(sampled["file"]).stem in line, line
        assert "round 1 done, round 2 running" in line and summary == "2 configs: 1 done, 1 running"
        answered = dict(model.answered)
        process.send_signal(signal.SIGTERM)
        err = process.communicate(timeout=120)[1]
    finally:
        model.release.set()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    folder = folder_of(work, sampled)
    assert not list(folder.rglob("gpassk_launch.pid"))
    # Round 1 drew N1 of every question, round 2 nothing yet (its first requests were held, never answered).
    assert {key: count for key, count in answered.items() if key[1] > 0} == {(i, 1.0): N1 for i in range(8)}
    assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
    assert "round 1 done, round 2 failed" in capsys.readouterr().out

    model.hold.clear()
    assert main(["grid", "run", str(configs), "-w", str(work), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 configs: 2 done"
    assert len(list((folder / "round1").glob("gpassk_launch_*.log"))) == 1  # round 1 was not launched again
    assert len(list((folder / "round2").glob("gpassk_launch_*.log"))) == 2  # round 2 resumed in its folder
    sampled_requests = {index: count for (index, temperature), count in model.answered.items() if temperature > 0}
    assert sampled_requests == {index: len(drawn(outcome)) for index, outcome in enumerate(OUTCOMES)}
    assert {key: count for key, count in model.answered.items() if key[1] == 0} == {(i, 0.0): 1 for i in range(8)}
    check_combined(work, configs, sampled, questions, capsys)

    # The greedy config ran as any config: its own run folder, n = 1, no rounds.
    (greedy_run,) = (work / Path(greedy["file"]).stem).iterdir()
    assert not (greedy_run / "round1").exists()
    assert json.loads(next(greedy_run.glob("results/*/*.json")).read_text())["gpassk"]["n"] == 1

    # Done is done: nothing launched, nothing asked; combining again gives the same bytes.
    combined = folder / "results" / sampled["model_abbr"] / f"{sampled['dataset_abbr']}.json"
    before, asked = combined.read_bytes(), dict(model.answered)
    assert main(["grid", "run", str(configs), "-w", str(work), "--no-progress"]) == 0
    assert combined.read_bytes() == before and model.answered == asked
    combined.unlink()  # as if stopped after round 2 and before combining
    assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
    assert "round 1 done, round 2 done; not combined yet" in capsys.readouterr().out
    assert main(["grid", "run", str(configs), "-w", str(work), "--no-progress"]) == 0
    assert combined.read_bytes() == before and model.answered == asked
    assert len(list((folder / "round2").glob("gpassk_launch_*.log"))) == 2

    # A curtailed run is scored with the verdicts that decided its stops: rejudge says what it can do instead.
    capsys.readouterr()
    assert main(["rejudge", str(folder), "--judge", "rule"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"gpassk rejudge {folder / 'round1'} judges round 1 again" in err, err


def test_both_rounds_go_through_opencompass_slurm_runner(tmp_path, grid, capsys, monkeypatch):
    configs, _, sampled, model, questions = grid
    bin_dir, record = tmp_path / "bin", tmp_path / "srun.calls"
    bin_dir.mkdir()
    (bin_dir / "srun").write_text(  # records the job, then runs its command here (no cluster in the test)
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> {str(record)!r}\n'
        'while [ "$#" -gt 0 ] && [ "$1" != "-J" ]; do shift; done\nshift 2\nexec "$@"\n'
    )
    (bin_dir / "srun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    work = tmp_path / "outputs"
    code = main(["grid", "run", str(configs), "-w", str(work), "--no-progress", "--slurm", "-p", "cpu", "--retry", "0"])
    assert code == 0, capsys.readouterr()
    calls = record.read_text().splitlines()
    for number in (1, 2):  # each round's infer and eval task was a job of its own
        jobs = [call for call in calls if f"{sampled['dataset_abbr']}_r{number}" in call]
        assert len(jobs) == 2 and all(call.startswith("-p cpu ") for call in jobs), calls
    folder = folder_of(work, sampled)
    assert (folder / "round2" / "logs" / "infer").is_dir()
    sampled_requests = {index: count for (index, temperature), count in model.answered.items() if temperature > 0}
    assert sampled_requests == {index: len(drawn(outcome)) for index, outcome in enumerate(OUTCOMES)}
    capsys.readouterr()
    check_combined(work, configs, sampled, questions, capsys)
