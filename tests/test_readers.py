"""The readers of other tools' samples: the registry, detection, each reader on a real-layout file, malformed files.

Golden values are read from the files with plain ``json`` here, never from the readers.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import FORMATS, detect_format, format_of, read_questions

DATA = Path(__file__).parent / "data"
QWEN = DATA / "qwen-math" / "test_qwen25-math-cot_-1_seed0_t0.7_s0_e-1.jsonl"
OPENCOMPASS = DATA / "opencompass" / "predictions" / "strong_t0-7"
NEMO_SKILLS = DATA / "nemo-skills" / "math"


def test_every_format_is_named_with_its_description_when_none_fits(tmp_path):
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello\n")
    with pytest.raises(InputError) as error:
        detect_format(unknown)
    message = str(error.value)
    assert "\n" not in message and str(unknown) in message and "--format NAME" in message
    assert all(name in message for name in FORMATS)


def test_detection(tmp_path):
    gens = tmp_path / "gens.jsonl"
    gens.write_text(json.dumps({"id": "a", "question": "q", "answer": "1", "predictions": ["1"]}) + "\n")
    assert detect_format(gens) == "gpassk"
    assert detect_format(QWEN) == "qwen-math"
    assert detect_format(OPENCOMPASS / "tiny_llm_0.json") == "opencompass"
    assert format_of(NEMO_SKILLS) == detect_format(NEMO_SKILLS / "output-rs0.jsonl") == "nemo-skills"


def test_qwen_math_maps_code_pred_score():
    samples = [json.loads(line) for line in QWEN.read_text().splitlines() if line.strip()]
    questions = read_questions(QWEN)
    assert [q.id for q in questions] == [str(s["idx"]) for s in samples]
    for question, sample in zip(questions, samples):
        assert question.question == sample["question"] and question.reference == str(sample["gt"])
        assert list(question.predictions) == sample["code"]
        assert list(question.source_verdicts) == sample["score"]
        assert list(question.source_extracted) == [p or None for p in sample["pred"]]


def test_opencompass_predictions_grouped_by_prompt_across_parts():
    rows = []
    for part in sorted(OPENCOMPASS.glob("tiny_llm_*.json")):
        chunk = json.loads(part.read_text())
        rows += [chunk[str(i)] for i in range(len(chunk))]
    expected = defaultdict(list)
    for row in rows:
        expected[(row["origin_prompt"], row["gold"])].append(row["prediction"])
    questions = read_questions(OPENCOMPASS / "tiny_llm_1.json", "opencompass")
    assert [(q.question, q.reference) for q in questions] == list(expected)
    assert [list(q.predictions) for q in questions] == list(expected.values())
    assert [q.id for q in questions] == [f"tiny_llm/{i}" for i in range(len(expected))]
    assert all(q.source_verdicts is None for q in questions)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"idx": 0, "question": "q", "gt": "1", "code": ["a"], "pred": ["1"], "score": [tr', "line 1"),
        ('{"idx": 0, "question": "q", "code": ["a"], "pred": ["1"]}', "missing gt (or answer)"),
        ('{"idx": 0, "question": "q", "gt": "1", "code": ["a", "b"], "pred": ["1"]}', '"source_extracted" has 1'),
        ('{"idx": 0, "question": "q", "gt": "1", "code": ["a"], "pred": ["1"], "score": [1]}', '"source_verdicts"[0]'),
        ('{"idx": 0, "question": "q", "gt": "1", "code": "a", "pred": ["1"]}', '"predictions" must be'),
        ("", "no questions"),
    ],
)
def test_malformed_qwen_math_is_one_line(tmp_path, text, fragment):
    path = tmp_path / "x_s0_e-1.jsonl"
    path.write_text(text + "\n")
    with pytest.raises(InputError) as error:
        read_questions(path, "qwen-math")
    assert fragment in str(error.value) and str(path) in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"0": {"origin_prompt": "p", "prediction": "a", "gold": "1"', "tiny.json"),
        ("{}", "empty object"),
        ('{"0": {"origin_prompt": "p", "gold": "1"}}', "row 0"),
        ('{"0": {"origin_prompt": "p", "prediction": 3, "gold": "1"}}', "prediction must be the model's text"),
        ('{"0": {"origin_prompt": "p", "prediction": "a", "gold": ["1", "2"]}}', "gold must be"),
    ],
)
def test_malformed_opencompass_is_one_line(tmp_path, content, fragment):
    folder = tmp_path / "predictions" / "m"
    folder.mkdir(parents=True)
    (folder / "tiny.json").write_text(content)
    with pytest.raises(InputError) as error:
        read_questions(folder / "tiny.json", "opencompass")
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_gpassk_lines_accept_and_check_the_source_fields(tmp_path):
    line = {"id": "a", "question": "q", "answer": "1", "predictions": ["1", "2"]}
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(line | {"source_verdicts": [True, None], "source_extracted": ["1", None]}) + "\n")
    (question,) = read_questions(path)
    assert question.source_verdicts == (True, None) and question.source_extracted == ("1", None)
    path.write_text(json.dumps(line | {"source_verdicts": ["yes", None]}) + "\n")
    with pytest.raises(InputError, match=r'line 1: "source_verdicts"\[0\] must be true, false or null'):
        read_questions(path)


def test_gpassk_lines_carry_each_generations_finish_reason(tmp_path):
    line = {"id": "a", "question": "q", "answer": "1", "predictions": ["1", "2"]}
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(line | {"finish_reasons": ["stop", "length"]}) + "\n")
    assert read_questions(path)[0].finish_reasons == ("stop", "length")
    path.write_text(json.dumps(line | {"finish_reasons": ["stop"]}) + "\n")
    with pytest.raises(InputError, match=r'"finish_reasons" has 1 value\(s\) for 2 prediction\(s\)'):
        read_questions(path)


def opencompass_run(tmp_path: Path, parts: dict[str, str]) -> Path:
    """A copy of the real OpenCompass predictions with its parts renamed (``{new name: real part}``)."""
    folder = tmp_path / "predictions" / OPENCOMPASS.name
    folder.mkdir(parents=True)
    for name, real in parts.items():
        (folder / name).write_bytes((OPENCOMPASS / real).read_bytes())
    return folder


def score_exit(path: Path, capsys) -> tuple[int, str]:
    from gpassk_opencompass.cli import main

    code = main(["score", str(path), "--k", "2", "--judge", "rule", "--no-cache", "--quiet"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("given", ["tiny_llm_0.json", "tiny_llm_2.json"])
def test_opencompass_parts_with_a_gap_are_refused_naming_the_missing_part(tmp_path, capsys, given):
    """Parts _0 and _2 without _1 were scored as n=4: the missing part is named, exit 2, whichever part is given."""
    folder = opencompass_run(tmp_path, {"tiny_llm_0.json": "tiny_llm_0.json", "tiny_llm_2.json": "tiny_llm_1.json"})
    code, err = score_exit(folder / given, capsys)
    assert code == 2 and f"{folder}: tiny_llm_1.json is missing" in err, err
    assert "found tiny_llm_0.json, tiny_llm_2.json" in err and len(err.strip().splitlines()) == 1


def test_opencompass_questions_with_unequal_n_are_refused(tmp_path, capsys):
    """A part cut inside a replica leaves some questions fewer predictions: refused, not scored with n varying."""
    folder = opencompass_run(tmp_path, {"tiny_llm_0.json": "tiny_llm_0.json", "tiny_llm_1.json": "tiny_llm_1.json"})
    rows = json.loads((folder / "tiny_llm_1.json").read_text())
    (folder / "tiny_llm_1.json").write_text(json.dumps(dict(list(rows.items())[:-1])))
    every = [
        row
        for part in ("tiny_llm_0.json", "tiny_llm_1.json")
        for row in json.loads((OPENCOMPASS / part).read_text()).values()
    ]
    questions = list(dict.fromkeys((row["origin_prompt"], row["gold"]) for row in every))
    last = questions.index((every[-1]["origin_prompt"], every[-1]["gold"]))  # the question of the removed row
    code, err = score_exit(folder / "tiny_llm_0.json", capsys)
    n = len(every) // len(questions)
    assert code == 2 and f"prediction {n} of question 'tiny_llm/{last}' is missing" in err, err
    assert "OpenCompass repeats every question n times" in err
