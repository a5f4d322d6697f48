"""A curtailed config's rounds on hand-made run folders: status per round, round 2's config, the combination.

Each round folder is what OpenCompass leaves (``predictions/<model>/<dataset>.json``, replica by replica) with the
results GPassKEvaluator returns (the one scoring flow, rule judge) and the ``questions.jsonl`` it keeps; the
config is the generator's own. The real launches are in tests/test_grid_curtailed.py.
"""

from __future__ import annotations

import json
import os
import socket
from fractions import Fraction
from pathlib import Path

import pytest

from exact import exact_curtailed_tail, exact_m
from generated_configs import generate_configs
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid import rounds
from gpassk_opencompass.grid.launch import LaunchOptions, dry_run_lines, plan
from gpassk_opencompass.grid.status import (
    DONE,
    FAILED,
    MISSING,
    NOT_NEEDED,
    PID_FILE,
    RUNNING,
    config_status,
    load_grid,
)
from gpassk_opencompass.judges import JudgeSettings
from gpassk_opencompass.judges.recorded import RecordedJudge
from gpassk_opencompass.judges.types import JudgeItem
from gpassk_opencompass.render.console import grid_status_line
from gpassk_opencompass.scoring.flow import score_questions
from gpassk_opencompass.scoring.questions import QUESTIONS_FILE, Question, question_lines, read_questions_file
from gpassk_opencompass.scoring.request import ScoringRequest

N1, N, KS = 2, 5, (1, 2)
STOP = frozenset({0})
TIMESTAMP = "20250101_120000"


@pytest.fixture
def grid(tmp_path):
    configs = tmp_path / "configs"
    generate_configs(
        "self_served.py",
        configs,
        "model_url=http://127.0.0.1:9/v1",
        "benchmarks=[AIME2025]",
        "greedy=False",
        f"n={N}",
        f"k={list(KS)}",
        f"curtail={{'first': {N1}}}",
    )
    (run,) = load_grid(configs).runs
    return run, tmp_path / "outputs", tmp_path / "outputs" / run.stem / TIMESTAMP


def questions_of(count: int) -> list[Question]:
    return [Question(f"AIME2025/{i}", f"what is {i} + 1?", str(i + 1), ()) for i in range(count)]


def write_round(run, folder: Path, number: int, asked: list[Question], outcomes: list[str]) -> Path:
    """Round ``number`` as OpenCompass and GPassKEvaluator leave it: predictions replica by replica, the results of
    the one scoring flow (rule judge), the questions as judged. ``outcomes[i]`` says which draws are right."""
    abbr, model = f"{run.dataset_abbr}_r{number}", run.model_abbr
    draws = len(outcomes[0])
    judged = [
        Question(
            question.id,
            question.question,
            question.reference,
            tuple(f"draw {d}: \\boxed{{{question.reference if right == '1' else -1}}}" for d, right in enumerate(got)),
        )
        for question, got in zip(asked, outcomes)
    ]
    round_dir = folder / f"round{number}"
    rows = {
        str(replica * len(judged) + index): {
            "origin_prompt": question.question,
            "prediction": question.predictions[replica],
            "gold": question.reference,
        }
        for replica in range(draws)
        for index, question in enumerate(judged)
    }
    (round_dir / "predictions" / model).mkdir(parents=True)
    (round_dir / "predictions" / model / f"{abbr}.json").write_text(json.dumps(rows))
    (round_dir / "results" / model / abbr).mkdir(parents=True)
    document = score_questions(
        judged, ScoringRequest(ks=KS if number == 1 else (1,)), JudgeSettings(kind="rule"), progress=False
    )
    (round_dir / "results" / model / f"{abbr}.json").write_text(json.dumps(document))
    (round_dir / "results" / model / abbr / QUESTIONS_FILE).write_text("".join(question_lines(judged)))
    (round_dir / "configs").mkdir()
    (round_dir / "configs" / f"{TIMESTAMP}_{number}.py").write_text(f"models = []\ndatasets = [dict(abbr={abbr!r})]\n")
    return round_dir


def expected(outcomes: list[str]) -> dict[str, float]:
    """The design's estimates from (N, C) per question by exact path counting (tests/exact.py)."""
    counts = [(N1, o[:N1].count("1")) if o[:N1].count("1") in STOP else (N, o.count("1")) for o in outcomes]

    def mean(k: int, m: int) -> float:
        values = [exact_curtailed_tail(N1, N, STOP, drawn, correct, k, m) for drawn, correct in counts]
        return float(100 * sum(values, Fraction(0)) / len(values))

    return {f"G-Pass@{k}_{tau}": mean(k, exact_m(k, tau)) for k in KS for tau in ("0.5", "1.0")} | {
        f"accuracy ({N} runs average)": mean(1, 1)
    }


OUTCOMES = ["00111", "10000", "01011", "00000"]  # questions 1 and 2 go on; 0 and 3 stop (all-wrong)


def test_each_round_has_its_state_then_round_two_is_written_and_both_are_combined(grid):
    run, work, folder = grid
    assert config_status(run, work).state == MISSING
    rounds.start_folder(folder, f"opencompass {run.config} -w {folder} -r round1", TIMESTAMP)  # as gpassk grid run
    (folder / "round1").mkdir(parents=True)
    (folder / "round1" / "gpassk_launch_x.log").write_text("# opencompass ...\nFileNotFoundError: no data\n")
    status = config_status(run, work)
    assert (status.state, status.rounds, status.run_dir) == (FAILED, (FAILED,), folder)
    assert grid_status_line(status).endswith("(round 1 failed; FileNotFoundError: no data)")

    asked = questions_of(4)
    (folder / "round1").rename(folder / "failed")
    write_round(run, folder, 1, asked, [o[:N1] for o in OUTCOMES])
    status = config_status(run, work)
    assert (status.state, status.rounds, status.detail) == (
        MISSING,
        (DONE, MISSING),
        "2 questions go on to round 2; run `gpassk grid run`",
    )

    assert rounds.write_round_two(run, folder) == ["AIME2025/1", "AIME2025/2"]
    config = folder / "round2.py"
    text = config.read_text()
    assert "question_ids=['AIME2025/1', 'AIME2025/2']" in text and f"n={N - N1}," in text and "k=[1]," in text
    assert f"abbr='{run.dataset_abbr}_r2'" in text and "seed_round" not in text  # an API model: no seeds to change
    assert rounds.write_round_two(run, folder) == ["AIME2025/1", "AIME2025/2"] and config.read_text() == text
    config.write_text(text.replace("AIME2025/2", "AIME2025/3"))
    with pytest.raises(InputError, match=r"round2\.py is not the round 2 that round 1's verdicts give now"):
        rounds.write_round_two(run, folder)
    config.write_text(text)

    assert config_status(run, work).rounds == (DONE, MISSING)
    (folder / "round2").mkdir()
    (folder / "round2" / PID_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))
    status = config_status(run, work)
    assert (status.state, status.rounds) == (RUNNING, (DONE, RUNNING))
    assert "(round 1 done, round 2 running; launched by pid" in grid_status_line(status)
    (folder / "round2").rename(folder / "stopped")

    write_round(run, folder, 2, asked[1:3], [o[N1:] for o in OUTCOMES[1:3]])
    status = config_status(run, work)
    assert (status.state, status.rounds) == (MISSING, (DONE, DONE)) and "not combined yet" in status.detail

    results = rounds.combine(run, folder)
    path = folder / "results" / run.model_abbr / f"{run.dataset_abbr}.json"
    for key, value in expected(OUTCOMES).items():
        assert results.metrics[key] == pytest.approx(value, abs=1e-9), key
    assert results.gpassk.curtail.model_dump() == {
        "n1": N1,
        "n": N,
        "rule": "all-wrong",
        "stopped": 2,
        "generations": 2 * N1 + 2 * N,
        "fixed_n_generations": 4 * N,
    }
    assert (results.gpassk.judge, results.gpassk.judge_stats["requests"], results.problems) == ("rule", 0, ())
    assert [[v.correct for v in q.verdicts] for q in results.details] == [
        [c == "1" for c in (o if o[:N1].count("1") else o[:N1])] for o in OUTCOMES
    ]  # round 1's draws first, then round 2's
    assert sorted(p.name for p in (folder / "configs").iterdir()) == [
        f"round1_{TIMESTAMP}_1.py",
        f"round2_{TIMESTAMP}_2.py",
    ]
    status = config_status(run, work)
    assert (status.state, status.result, status.rounds) == (DONE, path, (DONE, DONE))
    before = path.read_bytes()
    rounds.combine(run, folder)
    assert path.read_bytes() == before  # idempotent

    from gpassk_opencompass.leaderboard import collect_runs

    (identified,) = collect_runs([work]).runs  # the run folder, never its rounds; the manifest found by itself
    assert (identified.dataset_abbr, identified.n, identified.curtail.generations) == (run.dataset_abbr, N, 14)
    from gpassk_opencompass.render.leaderboard import format_measured

    # 4 of AIME2025's 15 questions: a pilot; a fixed n would draw 4 x 5 = 20 generations
    assert format_measured(identified.measured) == "pilot: 4 of 15 questions, n = 5, rule judge; generations: 14 of 20"


def test_the_leaderboard_never_reads_the_rounds_as_runs(grid):
    run, work, folder = grid
    write_round(run, folder, 1, questions_of(2), ["00", "10"])
    rounds.start_folder(folder, f"opencompass {run.config} -w {folder} -r round1", TIMESTAMP)  # as a launch does
    from gpassk_opencompass.leaderboard import collect_runs

    collection = collect_runs([work])  # round 1's results are there, but not a run of their own
    assert collection.runs == () and collection.notices == ()
    assert {path.name for path in collection.inputs} == {f"gpassk_launch_{TIMESTAMP}.log", "manifest.json"}


def test_when_round_one_stops_every_question_there_is_no_round_two(grid):
    run, work, folder = grid
    write_round(run, folder, 1, questions_of(3), ["00", "00", "00"])
    assert rounds.write_round_two(run, folder) == [] and not (folder / "round2.py").exists()
    status = config_status(run, work)
    assert (status.state, status.rounds) == (MISSING, (DONE, NOT_NEEDED))
    results = rounds.combine(run, folder)
    assert results.gpassk.curtail.stopped == 3 and results.metrics[f"G-Pass@{KS[-1]}_0.5"] == 0.0
    assert config_status(run, work).rounds == (DONE, NOT_NEEDED)


@pytest.mark.parametrize("change", ["prediction", "judge", "questions"])
def test_rounds_that_do_not_belong_together_are_refused_in_one_line(grid, change):
    run, _, folder = grid
    asked = questions_of(4)
    write_round(run, folder, 1, asked, [o[:N1] for o in OUTCOMES])
    second = write_round(run, folder, 2, asked[1:3], [o[N1:] for o in OUTCOMES[1:3]])
    abbr = f"{run.dataset_abbr}_r2"
    if change == "prediction":  # a prediction edited after it was judged
        path = second / "predictions" / run.model_abbr / f"{abbr}.json"
        rows = json.loads(path.read_text())
        rows["0"]["prediction"] += " (edited)"
        path.write_text(json.dumps(rows))
        message = "the verdicts of question 'AIME2025/1' are not of its 3 predictions"
    elif change == "judge":
        path = second / "results" / run.model_abbr / f"{abbr}.json"
        document = json.loads(path.read_text())
        document["gpassk"]["rule_checker"] = "math-verify 0.0.1"
        path.write_text(json.dumps(document))
        message = "round 2 of .* was judged with rule_checker = 'math-verify 0.0.1'"
    else:
        for other in (second, folder / "round1"):
            (other).rename(other.with_name(other.name + "-old"))
        write_round(run, folder, 1, asked, [o[:N1] for o in OUTCOMES])
        write_round(run, folder, 2, asked[1:2], [OUTCOMES[1][N1:]])
        message = "drew 1 question\\(s\\), not the 2 round 1's verdicts send on"
    with pytest.raises(InputError, match=message) as refused:
        rounds.combine(run, folder)
    assert "\n" not in str(refused.value)
    assert not (folder / "results" / run.model_abbr / f"{run.dataset_abbr}.json").exists()


def test_a_refused_combination_is_the_configs_failure_in_grid_status(grid):
    run, work, folder = grid
    write_round(run, folder, 1, questions_of(1), ["00"])
    rounds.start_folder(folder, "opencompass x.py -w w -r round1", TIMESTAMP)
    rounds.note(folder, "error: something did not fit")
    status = config_status(run, work)
    assert (status.state, status.detail, status.rounds) == (FAILED, "error: something did not fit", (DONE, NOT_NEEDED))


def test_dry_run_says_which_round_comes_next(grid):
    run, work, folder = grid
    options = LaunchOptions(work, "opencompass", slurm=True, partition="cpu")
    (launch,), _ = plan([config_status(run, work)], options, TIMESTAMP)
    comment, command = dry_run_lines([launch], [], TIMESTAMP)
    assert comment.startswith(f"# {run.stem}: curtailed at {N1} of {N} (all-wrong): round 1, then round 2")
    assert command.endswith(f"-w {folder} -r round1 --slurm -p cpu")
    write_round(run, folder, 1, questions_of(2), ["00", "10"])
    (launch,), _ = plan([config_status(run, work)], options, "20990101_000000")  # the run folder is resumed
    comment, command = dry_run_lines([launch], [], TIMESTAMP)
    assert comment.startswith(f"# {run.stem}: round 1 done; round 2") and command.startswith(
        f"opencompass {folder / 'round2.py'} -w {folder} -r round2"
    )


def test_the_questions_file_and_the_recorded_judge_refuse_what_they_cannot_be(tmp_path):
    path = tmp_path / QUESTIONS_FILE
    path.write_text('{"id": "a", "question": "q", "answer": "1", "language": "en"}\n')
    with pytest.raises(InputError, match=r"line 1: expected .* as GPassKEvaluator\(keep_questions=True\) writes"):
        read_questions_file(path)
    path.write_text("".join(question_lines(questions_of(1) * 2)))
    with pytest.raises(InputError, match="line 2: id 'AIME2025/0' repeats an earlier line"):
        read_questions_file(path)
    with pytest.raises(ValueError, match="item 0 has no recorded verdict"):
        RecordedJudge({}, {"judge": "rule"}).judge([JudgeItem("q", "1", "1")], progress=False)


def test_grid_status_of_a_manifest_whose_curtail_is_not_a_design(grid, capsys):
    run, work, _ = grid
    manifest = run.config.parent / "manifest.json"
    document = json.loads(manifest.read_text())
    document["runs"][0]["curtail"] = {"n1": 9, "n": 5, "rule": "all-wrong"}
    manifest.write_text(json.dumps(document))
    assert main(["grid", "status", str(manifest), "-w", str(work)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs[0].curtail: curtailment must satisfy 1 <= n1 <= n" in err
