"""The EvalScope reader on the output the real EvalScope CLI wrote (tests/data/evalscope, see PROVENANCE.md there).

Golden values are read from the same files independently, with plain json.
"""

from __future__ import annotations

import json
import math
import pathlib
import re
import shutil
import subprocess
import sys
from fractions import Fraction

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import evalscope as reader
from gpassk_opencompass.scoring.readers import format_of

DATA = pathlib.Path(__file__).parent / "data" / "evalscope"
WORK_DIR = DATA / "outputs"
REVIEWS = WORK_DIR / "reviews" / "loopback-math" / "aime24_default.jsonl"
REPORT = WORK_DIR / "reports" / "loopback-math" / "aime24.json"
PREDICTIONS = WORK_DIR / "predictions" / "loopback-math" / "aime24_default.jsonl"


def review_lines() -> list[dict]:
    return [json.loads(line) for line in REVIEWS.read_text(encoding="utf-8").splitlines() if line.strip()]


def golden(with_stops: bool = True) -> list[dict]:
    """The questions straight from EvalScope's review lines: grouped by group_id in order, repeats sorted; the stop
    reasons from its predictions file, by index."""
    predictions = [json.loads(line) for line in PREDICTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    stops = {line["index"]: line["model_output"]["choices"][0]["stop_reason"] for line in predictions}
    by_group: dict[int, list[dict]] = {}
    for line in review_lines():
        by_group.setdefault(line["sample_score"]["group_id"], []).append(line)
    questions = []
    for group, lines in by_group.items():
        lines.sort(key=lambda line: line["sample_score"]["generation_index"])
        scores = [line["sample_score"]["score"] for line in lines]
        questions.append(
            {
                "id": str(group),
                "question": lines[0]["messages"][0]["content"],
                "answer": lines[0]["target"][0],
                "predictions": [line["messages"][-1]["content"] for line in lines],
                "source_extracted": [score["extracted_prediction"] or None for score in scores],
                "source_verdicts": [{1.0: True, 0.0: False}[score["value"]["acc"]] for score in scores],
                **({"finish_reasons": [stops[line["index"]] for line in lines]} if with_stops else {}),
            }
        )
    return questions


def report_accuracy() -> float:
    """EvalScope's accuracy over all repeats, as its report states it (rounded to 4 decimals)."""
    (metric,) = json.loads(REPORT.read_text())["metrics"]
    assert metric["identity"]["name"] == "accuracy"
    return metric["score"]


def one_line_error(path: pathlib.Path, *fragments: str) -> str:
    with pytest.raises(InputError) as caught:
        list(reader.read(path))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def write_lines(path: pathlib.Path, lines: list[dict]) -> pathlib.Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_review_file_gives_one_question_per_group_with_its_repeats():
    questions = list(reader.read(REVIEWS))
    assert questions == golden()
    repeats = json.loads((WORK_DIR / "configs" / "task_config.yaml").read_text().split("\nrepeats: ")[1].split()[0])
    assert [len(question["predictions"]) for question in questions] == [repeats] * 3
    # EvalScope's own accuracy over all repeats is the share of True source verdicts
    verdicts = [verdict for question in questions for verdict in question["source_verdicts"]]
    assert sum(verdicts) / len(verdicts) == pytest.approx(report_accuracy(), abs=1e-4)  # the report rounds to 4
    assert questions[2]["source_extracted"][1] is None  # the unboxed "forty-two": EvalScope parsed nothing ("")
    assert "What is 100 - 58?" in questions[2]["question"]


@pytest.mark.parametrize(
    "path", [WORK_DIR, WORK_DIR / "reviews", REVIEWS.parent, REVIEWS], ids=["work-dir", "reviews", "model", "file"]
)
def test_the_work_dir_and_its_folders_read_as_the_review_file(path):
    assert reader.detect(path)
    assert format_of(path) == "evalscope"
    assert list(reader.read(path)) == golden()


def test_the_stop_reasons_come_from_the_predictions_file_beside_the_reviews(tmp_path):
    """A cut output (EvalScope records the server's finish_reason length as inspect's ``max_tokens``) is counted;
    without the predictions file, or where its text is another generation's, there is no stop reason."""
    run = tmp_path / "outputs"
    shutil.copytree(WORK_DIR, run)
    predictions = run / "predictions" / "loopback-math" / "aime24_default.jsonl"
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    lines[5]["model_output"]["choices"][0]["stop_reason"] = "max_tokens"  # group 1, repeat 1
    lines[6]["model_output"]["choices"][0]["message"]["content"] = "another run's text"
    write_lines(predictions, lines)
    questions = list(reader.read(run))
    assert questions[1]["finish_reasons"] == ["stop", "max_tokens", None, "stop"]
    assert reader.files(run) == [run / "reviews" / "loopback-math" / "aime24_default.jsonl", predictions]
    predictions.unlink()
    assert list(reader.read(run)) == golden(with_stops=False)


def test_a_folder_of_timestamped_runs_with_one_run_reads_it(tmp_path):
    run = tmp_path / "20261123_183902" / "reviews" / "loopback-math"
    run.mkdir(parents=True)
    (run / REVIEWS.name).write_bytes(REVIEWS.read_bytes())
    assert reader.detect(tmp_path) and list(reader.read(tmp_path)) == golden(
        with_stops=False
    )  # no predictions file copied


def test_a_folder_with_several_review_files_lists_them(tmp_path):
    for benchmark in ("aime24_default", "math_500_Level 1"):
        folder = tmp_path / "reviews" / "m"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{benchmark}.jsonl").write_bytes(REVIEWS.read_bytes())
    message = one_line_error(tmp_path, "2 EvalScope review files", "aime24_default.jsonl", "give the one to score")
    assert "math_500_Level 1.jsonl" in message


def test_a_folder_without_review_files_says_what_to_give(tmp_path):
    one_line_error(tmp_path, "no EvalScope review file", "work dir")


def test_detect_knows_review_files_and_nothing_else(tmp_path):
    predictions = WORK_DIR / "predictions" / "loopback-math" / REVIEWS.name  # EvalScope's own, without scores
    gens = write_lines(tmp_path / "gens.jsonl", [{"id": "q", "question": "", "answer": "1", "predictions": ["1"]}])
    results = tmp_path / "scores.json"
    results.write_text(json.dumps({"schema_version": 2, "metrics": {}}))
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00" * 100)
    as_json = tmp_path / "review.json"
    as_json.write_bytes(REVIEWS.read_bytes())
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    others = [predictions, gens, results, binary, as_json, empty, REPORT, tmp_path, tmp_path / "missing.jsonl"]
    others += [DATA.parent, DATA / "data" / "default_test.jsonl"]  # the test data, EvalScope's input
    others += [*(pathlib.Path(__file__).parent / "data" / "inspect").iterdir()]
    for path in others:
        assert reader.detect(path) is False, path


def test_the_predictions_file_is_refused_naming_the_reviews():
    one_line_error(WORK_DIR / "predictions" / "loopback-math" / REVIEWS.name, "line 1", "'sample_score'", "reviews/")


def test_a_truncated_line_names_its_line(tmp_path):
    text = REVIEWS.read_text(encoding="utf-8")
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: len(text) - 40], encoding="utf-8")
    one_line_error(path, f"line {len(review_lines())}")


def test_an_empty_file_is_one_line(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    one_line_error(path, "empty")


def changed(tmp_path: pathlib.Path, change, line: int = 9) -> pathlib.Path:
    lines = review_lines()
    change(lines[line])
    return write_lines(tmp_path / "changed.jsonl", lines)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda line: line.pop("sample_score"), "'sample_score'"),
        (lambda line: line["sample_score"].pop("score"), "'sample_score'"),
        (lambda line: line["sample_score"].pop("group_id"), "group_id"),
        (lambda line: line["sample_score"].update(group_id="2"), "non-negative integers"),
        (lambda line: line["sample_score"].update(generation_index=-1), "non-negative integers"),
        (lambda line: line["sample_score"].update(generation_index=0), "appears twice"),
        (lambda line: line.update(target=["42", "forty-two"]), "one gold answer"),
        (lambda line: line.update(target=["41"]), "another prompt or target"),
        (lambda line: line.pop("target"), "'target'"),
        (lambda line: line.update(messages="What?"), "'messages'"),
        (lambda line: line.update(messages=[{"role": "assistant", "content": "x"}]), "no user message"),
        (lambda line: line["sample_score"]["score"].update(prediction=None), "'sample_score.score.prediction'"),
        (lambda line: line["sample_score"]["score"].update(extracted_prediction=42), "extracted_prediction"),
    ],
)
def test_a_wrong_line_is_one_line_naming_it(tmp_path, change, fragment):
    one_line_error(changed(tmp_path, change), "line 10", fragment)


def test_a_line_that_is_not_an_object_is_one_line(tmp_path):
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n")
    one_line_error(path, "line 1", "EvalScope review file")


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        ({"value": {"acc": 1.0}, "status": "success"}, True),
        ({"value": {"acc": 0}, "status": "success"}, False),
        ({"value": {"acc": True}}, True),
        ({"value": {"acc": 0.5}, "status": "success"}, None),
        ({"value": {"acc": 1.0}, "status": "excluded"}, None),
        ({"value": {"pass": 1.0, "acc": 0.0}, "main_score_name": "pass"}, True),
        ({"value": {"pass": 1.0, "acc": 0.0}, "main_score_name": None}, False),
        ({"value": {"pass": 1.0, "f1": 0.0}}, None),
        ({"value": {"exact": 0.0}}, False),
        ({"value": None}, None),
    ],
)
def test_the_main_score_becomes_the_verdict(tmp_path, score, expected):
    def change(line):
        line["sample_score"]["score"].update(score)

    questions = list(reader.read(changed(tmp_path, change)))
    assert questions[2]["source_verdicts"][1] is expected


def test_content_parts_and_a_plain_number_target(tmp_path):
    def change(line):
        line["messages"][0]["content"] = [{"type": "text", "text": "What is 100 - 58?"}, {"type": "image"}]
        line["target"] = 42

    lines = review_lines()
    for line in lines[8:]:
        change(line)
    question = list(reader.read(write_lines(tmp_path / "parts.jsonl", lines)))[2]
    assert (question["question"], question["answer"]) == ("What is 100 - 58?", "42")


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("evalscope") is None, reason="evalscope is not installed (it pins its own torch)")
def test_the_real_evalscope_cli_against_the_loopback_server_writes_what_the_committed_output_holds(tmp_path):
    command = [sys.executable, str(DATA / "make_outputs.py"), "--evalscope", "evalscope", "--out", str(tmp_path)]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    assert reader.detect(tmp_path) and list(reader.read(tmp_path)) == golden()


def g_pass(c: int, n: int, k: int, tau: float) -> Fraction:
    """G-Pass@k_tau of one question, straight from its definition: the hypergeometric tail from ceil(tau * k)
    correct among k drawn, at least one (tau = 0 is pass@k)."""
    return sum(
        (
            Fraction(math.comb(c, j) * math.comb(n - c, k - j), math.comb(n, k))
            for j in range(max(1, math.ceil(tau * k)), k + 1)
        ),
        Fraction(0),
    )


def test_gpassk_score_turns_the_work_dir_into_g_pass_tables_with_evalscopes_verdicts(tmp_path):
    """Auto-detected and judged by EvalScope's own scores (--judge source): G-Pass from Fraction + comb."""
    from gpassk_opencompass.cli import main

    output = tmp_path / "scores.json"
    argv = ["score", str(WORK_DIR), "--k", "2", "--judge", "source", "--no-cache", "--quiet", "--output", str(output)]
    assert main(argv) == 0
    result = json.loads(output.read_text(encoding="utf-8"))
    assert result["gpassk"]["judge"] == "source:evalscope"
    correct: dict[int, int] = {}
    for line in review_lines():
        group = line["sample_score"]["group_id"]
        correct[group] = correct.get(group, 0) + (line["sample_score"]["score"]["value"]["acc"] == 1.0)
    assert result["accuracy (4 runs average)"] == pytest.approx(100 * report_accuracy(), abs=1e-2)
    taus = [float(key.rsplit("_", 1)[1]) for key in result if re.fullmatch(r"G-Pass@2_[0-9.]+", key)]
    assert taus
    for tau in taus:
        expected = sum(g_pass(c, 4, 2, tau) for c in correct.values()) / len(correct)
        assert result[f"G-Pass@2_{tau}"] == pytest.approx(100 * float(expected))


@pytest.mark.parametrize(
    ("dropped", "fragment"),
    [
        (6, "group_id 1 generation_index 2 is missing"),  # a line from the middle
        (11, "group_id 2 generation_index 3 is missing"),  # the last line: a cut file
    ],
)
def test_a_review_file_missing_a_generation_is_refused_through_gpassk_score(tmp_path, capsys, dropped, fragment):
    """EvalScope numbers each question's repeats 0..N-1: a removed line is a gap, never a smaller n."""
    from gpassk_opencompass.cli import main

    lines = review_lines()
    assert lines[dropped]["sample_score"]["generation_index"] == int(fragment.split()[-3])
    path = write_lines(tmp_path / "aime24_default.jsonl", lines[:dropped] + lines[dropped + 1 :])
    code = main(["score", str(path), "--k", "2", "--judge", "source", "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and "generation_index 0..N-1" in err and str(path) in err, err
