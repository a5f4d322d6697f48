"""The lighteval reader on the details file lighteval 0.13.0 wrote (tests/data/lighteval/PROVENANCE.md) and its
malformed variants.

Golden values are read from the committed parquet with plain ``pyarrow`` here, not through the reader.
"""

from __future__ import annotations

import json
import math
import pathlib
import shutil
import subprocess
import sys
from fractions import Fraction

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import detect_format, lighteval

OUTPUT = pathlib.Path(__file__).parent / "data" / "lighteval" / "fake-math"
DETAILS = next((OUTPUT / "details").glob("*/*/*/details_*.parquet"))
RESULTS = next((OUTPUT / "results").glob("*/*/results_*.json"))
N = 4


def rows() -> list[dict]:
    return pq.read_table(DETAILS).to_pylist()


def boxed_right(row: dict) -> int:
    """How many of the row's generations box the gold answer (the fake model's right answers)."""
    gold = row["doc"]["choices"][row["doc"]["gold_index"]]
    return sum(f"\\boxed{{{gold}}}" in text for text in row["model_response"]["text"])


def g_pass(c: int, n: int, k: int, tau: float) -> Fraction:
    """G-Pass@k_tau of one question with c right of n, by its definition."""
    least = max(1, math.ceil(tau * k))
    return Fraction(sum(math.comb(c, j) * math.comb(n - c, k - j) for j in range(least, k + 1)), math.comb(n, k))


def test_the_real_file_maps_every_row_with_its_n_generations():
    records = list(lighteval.read(DETAILS))
    raw = rows()
    assert len(raw) == len(records) == 5
    for record, row in zip(records, raw, strict=True):
        doc = row["doc"]
        assert record["id"] == doc["id"]
        assert record["question"] == doc["query"] and "What is" in record["question"]
        assert record["answer"] == doc["choices"][doc["gold_index"]]
        assert record["predictions"] == row["model_response"]["text"] and len(record["predictions"]) == N
        # lighteval keeps 2 extracted answers for 4 generations (one per metric call) and no per-generation
        # verdict: neither is passed on as if it were per generation
        assert len(doc["specific"]["extracted_predictions"]) != N
        assert "source_extracted" not in record and "source_verdicts" not in record
    assert sorted(record["id"] for record in records) == ["0", "1", "2", "3", "4"]


def test_the_output_folder_and_its_details_folder_read_as_the_one_file():
    expected = list(lighteval.read(DETAILS))
    assert list(lighteval.read(OUTPUT)) == list(lighteval.read(OUTPUT / "details")) == expected
    assert list(lighteval.read(DETAILS.parent)) == expected


def test_detect(tmp_path):
    assert lighteval.detect(OUTPUT) and lighteval.detect(DETAILS) and detect_format(OUTPUT) == "lighteval"
    other = tmp_path / "details_other.parquet"
    pq.write_table(pa.table({"doc": ["q"], "prediction": ["a"]}), other)
    garbage = tmp_path / "details_x.parquet"
    garbage.write_bytes(b"PAR1 not really\xff\x00")
    gpassk = tmp_path / "gens.jsonl"
    gpassk.write_text(json.dumps({"id": "q0", "question": "q", "answer": "1", "predictions": ["1"]}) + "\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    lm_eval = next((pathlib.Path(__file__).parent / "data" / "lm-eval").rglob("samples_*.jsonl"))
    for path in (RESULTS, other, garbage, gpassk, empty, tmp_path / "missing.parquet", lm_eval):
        assert lighteval.detect(path) is False, path
    assert lighteval.detect(pathlib.Path(lighteval.__file__)) is False
    for folder in OUTPUT.parents[1].iterdir():  # the other tools' test files
        assert folder.name == "lighteval" or lighteval.detect(folder) is False, folder


def variant(tmp_path: pathlib.Path, edit) -> pathlib.Path:
    """The real details file with its row 1 edited (``edit`` returns the new row); returns the copy."""
    raw = rows()
    raw[1] = edit(raw[1])
    path = tmp_path / DETAILS.name
    pq.write_table(pa.Table.from_pylist(raw), path)
    return path


def with_doc(row: dict, **fields) -> dict:
    return {**row, "doc": {**row["doc"], **fields}}


def with_text(row: dict, text) -> dict:
    return {**row, "model_response": {**row["model_response"], "text": text}}


MALFORMED = {
    "no generations": (lambda row: with_text(row, []), '"model_response.text" must be the generations'),
    "a null generation": (lambda row: with_text(row, ["a", None, "b", "c"]), "got ['a', None"),
    "gold_index out of range": (lambda row: with_doc(row, gold_index=3), '"doc.gold_index" must pick one'),
    "gold_index negative": (lambda row: with_doc(row, gold_index=-1), "got -1 of"),
    "no choices": (lambda row: with_doc(row, choices=[]), '"doc.gold_index" must pick one'),
    "no query": (lambda row: with_doc(row, query=None), '"doc.query" must be the question'),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_rows_are_one_line_errors_naming_file_row_and_field(tmp_path, case):
    edit, expected = MALFORMED[case]
    path = variant(tmp_path, edit)
    with pytest.raises(InputError) as raised:
        list(lighteval.read(path))
    message = str(raised.value)
    assert message.startswith(f"{path} row 1: ") and expected in message and "\n" not in message, message


def whole_table(tmp_path: pathlib.Path, table: pa.Table) -> pathlib.Path:
    path = tmp_path / DETAILS.name
    pq.write_table(table, path)
    return path


def test_malformed_files_are_one_line_errors(tmp_path):
    table = pq.read_table(DETAILS)
    cases = {
        "missing column 'model_response'": whole_table(tmp_path, table.drop_columns(["model_response"])),
    }
    not_parquet = tmp_path / "text.parquet"
    not_parquet.write_text('{"doc": "a JSON line, not parquet"}\n')
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(DETAILS.read_bytes()[: DETAILS.stat().st_size // 2])
    corrupt = bytearray(DETAILS.read_bytes())
    corrupt[200:8000] = b"U" * 7800  # the data pages, between the magic bytes and the footer
    (tmp_path / "corrupt.parquet").write_bytes(bytes(corrupt))
    for name in ("text", "truncated", "corrupt"):
        cases[f"not a readable parquet file ({name})"] = tmp_path / f"{name}.parquet"
    for expected, path in cases.items():
        with pytest.raises(InputError) as raised:
            list(lighteval.read(path))
        message = str(raised.value)
        assert message.startswith(f"{path}: ") and expected.split(" (")[0] in message and "\n" not in message, message


def test_wrong_column_types(tmp_path):
    flat = whole_table(tmp_path, pq.read_table(DETAILS).set_column(0, "doc", pa.array(["q"] * 5)))
    with pytest.raises(InputError, match=r'row 0: "doc" and "model_response" must be structs'):
        list(lighteval.read(flat))
    raw = [with_text(row, "one string") for row in rows()]
    text = whole_table(tmp_path, pa.Table.from_pylist(raw))
    with pytest.raises(InputError, match=r"row 0: \"model_response.text\" must be the generations .*got 'one string'"):
        list(lighteval.read(text))


def test_empty_and_too_many_rows(tmp_path, monkeypatch):
    table = pq.read_table(DETAILS)
    empty = whole_table(tmp_path, table.slice(0, 0))
    with pytest.raises(InputError, match=r"no rows \(the file is empty\); run lighteval with --save-details$"):
        list(lighteval.read(empty))
    monkeypatch.setattr(lighteval, "MAX_ROWS", 4)
    with pytest.raises(InputError, match=r": 5 rows, over the 4-row limit"):
        list(lighteval.read(DETAILS))


def test_folders_without_one_details_file(tmp_path):
    none = tmp_path / "none"
    none.mkdir()
    with pytest.raises(InputError, match=r"none: no lighteval details file \(details_\*\.parquet\) .*--save-details$"):
        list(lighteval.read(none))
    two = tmp_path / "two"
    shutil.copytree(OUTPUT, two)
    shutil.copy(DETAILS, two / "details" / "details_gsm8k|0_2026.parquet")
    with pytest.raises(InputError) as raised:
        list(lighteval.read(two))
    message = str(raised.value)
    assert message.startswith(f"{two}: 2 lighteval details files (one per task and run): details/details_gsm8k|0")
    assert f"details/openai/fake-math/{DETAILS.parent.name}/{DETAILS.name}" in message
    assert message.endswith("give the one to score") and "\n" not in message


def test_lightevals_own_g_pass_is_the_definition_on_its_own_counts():
    """lighteval's per-question ``avg@n`` is its count of right answers; its ``math_g-pass@2_tau`` follows."""
    for row in rows():
        metric = row["metric"]
        c = round(N * metric["avg@n:n=4"])
        assert metric["avg@n:n=4"] == c / N
        for tau in (0.5, 0.75, 1.0):
            assert metric[f"math_g-pass@2_{tau}"] == pytest.approx(float(g_pass(c, N, 2, tau)))


def test_gpassk_score_turns_the_details_into_g_pass_tables_with_one_command(tmp_path):
    """Auto-detected, rule judge: the G-Pass table is the definition over the boxed-gold counts."""
    from gpassk_opencompass.cli import main

    output = tmp_path / "scores.json"
    argv = ["score", str(OUTPUT), "--k", "2", "--judge", "rule", "--no-cache", "--quiet", "--output", str(output)]
    assert main(argv) == 0
    result = json.loads(output.read_text(encoding="utf-8"))
    counts = {row["doc"]["id"]: boxed_right(row) for row in rows()}
    lighteval_counts = {row["doc"]["id"]: round(N * row["metric"]["avg@n:n=4"]) for row in rows()}
    # the judges agree except on question 4's unboxed "2 ** 10 ... about a thousand", which lighteval's math
    # extraction reads as 2**10 = 1024 (right) and a boxed-answer reading does not
    assert {key: value for key, value in counts.items() if key != "4"} == {
        key: value for key, value in lighteval_counts.items() if key != "4"
    }
    assert (counts["4"], lighteval_counts["4"]) == (2, 3)
    assert result["accuracy (4 runs average)"] == pytest.approx(100 * sum(counts.values()) / (N * len(counts)))
    for tau in ("0.0", "0.25", "0.5", "0.75", "1.0"):
        expected = sum(g_pass(c, N, 2, float(tau)) for c in counts.values()) / len(counts)
        assert result[f"G-Pass@2_{tau}"] == pytest.approx(100 * float(expected)), tau
    assert result["gpassk"]["judge"] == "rule"


@pytest.mark.e2e
def test_the_real_lighteval_cli_against_the_loopback_server_writes_what_the_committed_file_holds(tmp_path):
    """Where lighteval is on PATH (it cannot share the project's venv: see PROVENANCE.md), run it again."""
    command = shutil.which("lighteval")
    if command is None:
        pytest.skip("lighteval is not installed (a throwaway venv's bin/ on PATH runs this)")
    script = [sys.executable, str(OUTPUT.parent / "make_details.py"), "--lighteval", command, "--out", str(tmp_path)]
    written = pathlib.Path(
        subprocess.run(script, check=True, capture_output=True, text=True, timeout=900).stdout.strip()
    )
    assert lighteval.detect(written) and lighteval.detect(tmp_path / "out")

    def by_id(path: pathlib.Path) -> list[dict]:
        return sorted(lighteval.read(path), key=lambda record: record["id"])

    assert by_id(written) == by_id(DETAILS)
    fresh = {row["doc"]["id"]: row["metric"] for row in pq.read_table(written).to_pylist()}
    assert fresh == {row["doc"]["id"]: row["metric"] for row in rows()}
