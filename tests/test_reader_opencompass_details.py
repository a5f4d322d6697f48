"""OpenCompass's own per-sample verdicts (``results/`` with ``--dump-eval-details``) read beside its predictions.

On the files a real OpenCompass 0.5.4 run wrote (``tests/data/opencompass-details/PROVENANCE.md``) and their
damaged variants; the run itself is ``tests/test_opencompass_verdicts_e2e.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import detect_format, input_files, read_questions
from in_process import run_main

RUN = Path(__file__).parent / "data" / "opencompass-details"
MODEL = "strong_t0-7"
#: The scripted model's right answers of n = 8 per question (PROVENANCE.md).
COUNTS = [8, 7, 5, 0, 4, 3, 2, 6]
WRONG = "\\boxed{-1}"  # every scripted wrong answer


def predictions(run: Path, dataset: str, part: int = 0) -> Path:
    return run / "predictions" / MODEL / f"{dataset}_{part}.json"


def results(run: Path, dataset: str) -> Path:
    return run / "results" / MODEL / f"{dataset}.json"


@pytest.fixture
def run(tmp_path) -> Path:
    """A copy of the real run, to damage."""
    shutil.copytree(RUN / "predictions", tmp_path / "run" / "predictions")
    shutil.copytree(RUN / "results", tmp_path / "run" / "results")
    return tmp_path / "run"


def edit_results(run: Path, dataset: str, change) -> None:
    path = results(run, dataset)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_the_predictions_and_the_results_file_are_both_detected_and_both_are_inputs():
    for path in (predictions(RUN, "oc_livemath", 1), results(RUN, "oc_livemath")):
        assert detect_format(path) == "opencompass"
        assert input_files(path) == [
            predictions(RUN, "oc_livemath", 0),
            predictions(RUN, "oc_livemath", 1),
            results(RUN, "oc_livemath"),
        ]


@pytest.mark.parametrize("dataset", ["oc_livemath", "oc_mathverify"])
def test_each_replicas_verdict_is_the_one_opencompass_gave_that_generation(dataset):
    """Matched by OpenCompass's numbering: every verdict agrees with its own generation's scripted answer."""
    questions = read_questions(predictions(RUN, dataset), "opencompass")
    assert [question.id for question in questions] == [f"{dataset}/{i}" for i in range(8)]
    for question, count in zip(questions, COUNTS):
        assert len(question.predictions) == 8 and sum(question.source_verdicts) == count
        assert list(question.source_verdicts) == [WRONG not in text for text in question.predictions]
    details = json.loads(results(RUN, dataset).read_text())["details"]
    if dataset == "oc_mathverify":  # math-verify's parse, e.g. "[42, '42']": what OpenCompass extracted
        assert [list(question.source_extracted) for question in questions] == [detail["pred"] for detail in details]
    else:  # LiveMathBenchEvaluator's pred is the generation itself: nothing extracted to show
        assert all(question.source_extracted is None for question in questions)


def test_details_are_matched_by_example_abbr_not_by_their_order(run):
    edit_results(run, "oc_mathverify", lambda data: data["details"].reverse())
    assert read_questions(predictions(run, "oc_mathverify"), "opencompass") == read_questions(
        predictions(RUN, "oc_mathverify"), "opencompass"
    )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("remove", "oc_livemath.json does not exist (OpenCompass's eval step writes it"),
        ("no details", "has no per-sample details: the run was evaluated without --dump-eval-details; rerun"),
        (
            "gpassk",
            "was written by GPassKEvaluator, whose verdicts are gpassk's own: judge the run again with gpassk rejudge",
        ),
        ("no verdicts", "its details carry no per-sample verdict (correct, is_correct, cascade_correct)"),
    ],
)
def test_the_source_judge_says_why_a_run_has_no_verdicts(run, capsys, change, reason):
    """Without them the rows are grouped by prompt as before, and --judge source is refused saying why (exit 2)."""
    if change == "remove":
        results(run, "oc_livemath").unlink()
    elif change == "no details":
        edit_results(run, "oc_livemath", lambda data: data.pop("details"))
    elif change == "gpassk":
        edit_results(run, "oc_livemath", lambda data: data.update(gpassk={}))
    else:
        edit_results(run, "oc_livemath", lambda data: [detail.pop("correct") for detail in data["details"]])
    questions = read_questions(predictions(run, "oc_livemath"), "opencompass")
    assert [len(question.predictions) for question in questions] == [8] * 8
    assert all(question.source_verdicts is None for question in questions)
    done = run_main(capsys, "score", str(predictions(run, "oc_livemath")), "--k", "4", "--judge", "source")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--judge source: the opencompass input carries no per-sample verdicts" in done.stderr
    assert reason in done.stderr and "choose another judge, e.g. --judge rule" in done.stderr


def _truncate_one(data):
    data["details"][2]["correct"].pop()


def _rename(data):
    data["details"][0]["example_abbr"] = "other_0"


def _repeat(data):
    data["details"][1]["example_abbr"] = "oc_mathverify_0"


def _yes(data):
    data["details"][3]["correct"][5] = "yes"


def _fewer(data):
    data["details"].pop()


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (_truncate_one, "details[2]: correct holds 7 verdicts for the n=8 replicas of the predictions"),
        (_rename, "details[0]: example_abbr 'other_0' is not oc_mathverify_<question index>"),
        (_repeat, "number the questions 0, 0, 2, 3, 4, 5 ... 7, not 0 to 7 (none for question 1)"),
        (_yes, "details[3] correct[5]: a verdict is true, false, 0 or 1, got 'yes'"),
        (_fewer, "7 questions in its details, but the predictions hold 64 rows, not n rows for each"),
    ],
)
def test_damaged_details_are_one_line_naming_the_results_file(run, damage, fragment):
    edit_results(run, "oc_mathverify", damage)
    with pytest.raises(InputError) as error:
        read_questions(predictions(run, "oc_mathverify"), "opencompass")
    message = str(error.value)
    assert fragment in message and str(results(run, "oc_mathverify")) in message and "\n" not in message, message


def test_a_row_that_is_not_its_questions_replica_is_refused(run):
    """Rows 1 and 10 swapped (question 1 and question 2's second replica): question 1's rows 1, 9 differ."""
    part = predictions(run, "oc_mathverify")
    rows = json.loads(part.read_text())
    rows["1"], rows["10"] = rows["10"], rows["1"]
    part.write_text(json.dumps(rows))
    with pytest.raises(
        InputError,
        match=r"_0.json row 9: by OpenCompass's numbering it is replica 1 of question 1 \(row 1 x 8 \+ 1 of the run\)",
    ):
        read_questions(part, "opencompass")


def test_rows_not_numbered_as_opencompass_numbers_them_are_refused(run):
    part = predictions(run, "oc_mathverify", 1)
    rows = json.loads(part.read_text())
    rows["x"] = rows.pop("3")
    part.write_text(json.dumps(rows))
    with pytest.raises(InputError, match=r"row 'x' is not numbered as OpenCompass numbers its rows \(0 to 31\)"):
        read_questions(part, "opencompass")


def test_a_results_file_without_its_predictions_is_refused(run):
    shutil.rmtree(run / "predictions" / MODEL)
    (run / "predictions" / MODEL).mkdir()
    with pytest.raises(InputError, match=r"no predictions for it .*give the whole run"):
        read_questions(results(run, "oc_livemath"), "opencompass")


def test_agree_audits_opencompass_verdicts_against_ours(tmp_path, capsys):
    """gpassk agree of --judge source (MATHVerifyEvaluator's verdicts) and --judge rule: every verdict agrees."""
    path = str(predictions(RUN, "oc_mathverify"))
    for judge in ("source", "rule"):
        done = run_main(capsys, "score", path, "--k", "4", "--judge", judge, "--no-cache",
                        "--output", str(tmp_path / f"{judge}.json"))  # fmt: skip
        assert done.returncode == 0, done.stderr
    done = run_main(capsys, "agree", str(tmp_path / "source.json"), str(tmp_path / "rule.json"))
    assert done.returncode == 0, done.stderr
    assert "A = source:opencompass, B = rule" in done.stdout and "all 64 generations of 8 questions" in done.stdout
    assert (
        f"| A correct | {sum(COUNTS)} | 0 |" in done.stdout and f"| A wrong | 0 | {64 - sum(COUNTS)} |" in done.stdout
    )
