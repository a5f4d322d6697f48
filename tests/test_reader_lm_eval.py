"""The lm-evaluation-harness reader on a file lm-eval 0.4.13 wrote (tests/data/lm-eval/PROVENANCE.md) and its malformed variants.

Golden values are read from the committed file with plain ``json`` here, not through the reader.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import lm_eval, sniff

OUTPUT = pathlib.Path(__file__).parent / "data" / "lm-eval"
SAMPLES = next((OUTPUT / "fake-math").glob("samples_*.jsonl"))
RESULTS = next((OUTPUT / "fake-math").glob("results_*.json"))


def lines() -> list[dict]:
    return [json.loads(line) for line in SAMPLES.read_text(encoding="utf-8").splitlines()]


def golden() -> list[dict]:
    """Per doc_id, from the raw lines: gold, the 4 generations, and the keep-all filter ("all-boxed") answers."""
    by_doc: dict[int, dict] = {}
    for line in lines():
        entry = by_doc.setdefault(
            line["doc_id"], {"doc": line["doc"], "target": line["target"], "resps": line["resps"]}
        )
        entry[line["filter"]] = line
    return [by_doc[doc_id] for doc_id in sorted(by_doc)]


def test_the_real_file_maps_every_question_with_its_n_generations():
    records = list(lm_eval.read(SAMPLES))
    expected = golden()
    assert len(expected) == 5 and len(lines()) == 15  # 5 questions x 3 filters, as lm-eval wrote them
    assert [record["id"] for record in records] == [str(doc_id) for doc_id in range(5)]
    for record, entry in zip(records, expected, strict=True):
        assert record["question"] == entry["doc"]["question"]
        assert record["answer"] == entry["target"] == entry["doc"]["answer"]
        assert record["predictions"] == entry["resps"][0] and len(record["predictions"]) == 4
        assert record["source_extracted"] == entry["all-boxed"]["filtered_resps"][0]


def test_source_verdicts_are_per_generation_and_agree_with_lm_evals_own_means():
    for record, entry in zip(lm_eval.read(SAMPLES), golden(), strict=True):
        answers, gold = entry["all-boxed"]["filtered_resps"][0], entry["target"]
        verdicts = [answer == gold for answer in answers]
        assert record["source_verdicts"] == verdicts
        # lm-eval's own per-question figure for the keep-all filter is the mean of these verdicts
        assert entry["all-boxed"]["exact_match"] == sum(verdicts) / len(verdicts)
        # and its take_first figure is the verdict on the first generation only (the `repeats` quirk)
        assert entry["first-boxed"]["exact_match"] == float(verdicts[0])
    # question 4's last generation has no box: lm-eval's regex fallback is kept as lm-eval wrote it
    last = list(lm_eval.read(SAMPLES))[4]
    assert last["source_extracted"][3] == "[invalid]" and last["source_verdicts"][3] is False


def test_the_output_folder_reads_as_its_one_samples_file():
    assert list(lm_eval.read(OUTPUT)) == list(lm_eval.read(OUTPUT / "fake-math")) == list(lm_eval.read(SAMPLES))


def test_detect(tmp_path):
    assert lm_eval.detect(OUTPUT) and lm_eval.detect(SAMPLES)
    gpassk = tmp_path / "gens.jsonl"
    gpassk.write_text(json.dumps({"id": "q0", "question": "q", "answer": "1", "predictions": ["1"]}) + "\n")
    other = tmp_path / "samples_other.jsonl"
    other.write_text('{"doc_id": 0, "text": "no resps"}\n')
    binary = tmp_path / "samples_x.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    empty = tmp_path / "empty"
    empty.mkdir()
    for path in (RESULTS, gpassk, other, binary, empty, tmp_path / "missing.jsonl", pathlib.Path(lm_eval.__file__)):
        assert lm_eval.detect(path) is False, path


def test_a_first_line_over_the_sniff_is_read_whole_to_decide(tmp_path):
    line = lines()[0]
    line["doc"]["question"] = "x" * sniff.SNIFF_BYTES
    big = tmp_path / SAMPLES.name
    big.write_text(json.dumps(line) + "\n")
    renamed = tmp_path / "big.jsonl"
    renamed.write_text(json.dumps(line) + "\n")
    assert lm_eval.detect(big) and lm_eval.detect(renamed)
    assert next(lm_eval.read(big))["question"] == line["doc"]["question"]


def variant(tmp_path: pathlib.Path, edit) -> pathlib.Path:
    """The real samples file with its line 2 (doc_id 1, filter first-boxed) edited; returns the copy."""
    raw = lines()
    edited = edit(raw[1])
    text = "\n".join(json.dumps(line) for line in raw[:1]) + "\n"
    text += (edited if isinstance(edited, str) else json.dumps(edited)) + "\n"
    text += "\n".join(json.dumps(line) for line in raw[2:]) + "\n"
    path = tmp_path / SAMPLES.name
    path.write_text(text)
    return path


def without(line: dict, name: str) -> dict:
    return {key: value for key, value in line.items() if key != name}


MALFORMED = {
    "truncated line": (lambda line: json.dumps(line)[:200], "not valid JSON"),
    "missing resps": (lambda line: without(line, "resps"), "missing 'resps'"),
    "resps a string": (lambda line: {**line, "resps": "42"}, '"resps" must be [[generation, ...]]'),
    "resps of a multiple-choice task": (
        lambda line: {**line, "resps": [[[-1.5, False]], [[-0.2, True]]]},
        "got 2 requests",
    ),
    "resps holding numbers": (lambda line: {**line, "resps": [[1, 2, 3, 4]]}, '"resps"[0][0] must be a generation'),
    "no generations": (lambda line: {**line, "resps": [[]]}, "got no generations"),
    "target a list": (lambda line: {**line, "target": ["72", "seventy-two"]}, '"target" must be one gold answer'),
    "doc_id a string": (lambda line: {**line, "doc_id": "1"}, '"doc_id" must be a non-negative integer'),
    "filtered_resps flat": (lambda line: {**line, "filtered_resps": "72"}, '"filtered_resps" must hold one entry'),
    "keep-all filter short": (
        lambda line: {**line, "filtered_resps": [["72", "73"]]},
        '"filtered_resps"[0] has 2 answers for 4 generations',
    ),
    "other resps than its first line": (
        lambda line: {**line, "doc_id": 0, "filter": "maj-boxed"},
        'doc_id 0 has other "resps" or "target"',
    ),
    "a line of another run repeated": (
        lambda line: {**line, "doc_id": 0, "resps": lines()[0]["resps"]},
        "repeats line 1",
    ),
    "not an object": (lambda line: "[1, 2]", "expected a JSON object"),
    "no question": (lambda line: {**line, "doc": {}, "arguments": {}}, "no question text"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_lines_are_one_line_errors_naming_file_line_and_field(tmp_path, case):
    edit, expected = MALFORMED[case]
    path = variant(tmp_path, edit)
    with pytest.raises(InputError) as raised:
        list(lm_eval.read(path))
    message = str(raised.value)
    assert message.startswith(f"{path} line 2: ") and expected in message and "\n" not in message, message


def test_empty_file_and_folders_without_one_samples_file(tmp_path):
    empty = tmp_path / "samples_t_2026.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match=r"samples_t_2026\.jsonl: no samples \(the file is empty\)"):
        list(lm_eval.read(empty))
    none = tmp_path / "none"
    none.mkdir()
    with pytest.raises(
        InputError, match=r"none: no lm-eval samples file \(samples_\*\.jsonl\) in it .*run lm_eval with --log_samples"
    ):
        list(lm_eval.read(none))
    two = tmp_path / "two"
    shutil.copytree(OUTPUT, two)
    shutil.copy(SAMPLES, two / "fake-math" / "samples_gsm8k_2026-01-01T00-00-00.000000.jsonl")
    with pytest.raises(
        InputError,
        match=r"two: 2 lm-eval samples files \(one per task and run\): fake-math/samples_gpassk.*; give the one to score$",
    ):
        list(lm_eval.read(two))


def test_not_utf8(tmp_path):
    path = tmp_path / SAMPLES.name
    path.write_bytes(SAMPLES.read_bytes()[:100] + b"\xff\n")
    with pytest.raises(InputError, match="not UTF-8"):
        list(lm_eval.read(path))


def test_gpassk_score_turns_the_dump_into_g_pass_tables_with_one_command(tmp_path):
    """Auto-detected, judged by lm-eval's own per-generation verdicts: accuracy is lm-eval's keep-all score."""
    from fractions import Fraction
    from math import comb

    from gpassk_opencompass.cli import main

    output = tmp_path / "scores.json"
    argv = ["score", str(OUTPUT / "fake-math"), "--k", "2", "--judge", "source", "--no-cache", "--quiet"]
    assert main([*argv, "--output", str(output)]) == 0
    result = json.loads(output.read_text(encoding="utf-8"))
    assert result["gpassk"]["judge"] == "source:lm-eval"
    keep_all = [entry["all-boxed"]["exact_match"] for entry in golden()]  # lm-eval's mean over the 4 per question
    assert result["accuracy (4 runs average)"] == pytest.approx(100 * sum(keep_all) / len(keep_all))
    correct = [round(4 * mean) for mean in keep_all]
    g_pass = [Fraction(sum(comb(c, j) * comb(4 - c, 2 - j) for j in (2,)), comb(4, 2)) for c in correct]
    assert result["G-Pass@2_1.0"] == pytest.approx(100 * float(sum(g_pass) / len(g_pass)))
