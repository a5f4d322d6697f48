"""The finish-reason sidecar beside an OpenCompass run's predictions, read through the read door.

The predictions are a file OpenCompass wrote (tests/data/opencompass, two parts); the sidecars are written here
as the grid's model classes write them (:func:`append_finish_reasons`), then spoiled: lines that are not
records, a line over the limit, a FIFO, a device. ``gpassk score`` (the ``opencompass`` reader) must count the
recorded cuts exactly where the record is good, and fall back to the text's lower bound, saying why, where not.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from gpassk_opencompass.scoring.cut import count_ends
from gpassk_opencompass.scoring.finish_reasons import (
    MAX_LINE_BYTES,
    append_finish_reasons,
    finish_reasons_of,
    record_lines,
    sidecar_path,
    text_digest,
)
from gpassk_opencompass.scoring.questions import Question

DATA = Path(__file__).parent / "data" / "opencompass" / "predictions" / "strong_t0-7"
PARTS = ("tiny_llm_0.json", "tiny_llm_1.json")


def is_cut(text: str) -> bool:
    """The texts these tests say were stopped at the output limit (a server's ``length``)."""
    return "attempt 1)" in text or "attempt 3)" in text


@pytest.fixture
def run(tmp_path) -> list[Path]:
    """A copy of the run's two predictions parts, each with its sidecar (every generation recorded)."""
    folder = tmp_path / "run" / "predictions" / "strong_t0-7"
    folder.mkdir(parents=True)
    parts = []
    for name in PARTS:
        part = Path(shutil.copy(DATA / name, folder / name))
        texts = texts_of(part)
        append_finish_reasons(part, texts, ["length" if is_cut(text) else "stop" for text in texts])
        parts.append(part)
    return parts


def texts_of(part: Path) -> list[str]:
    rows = json.loads(part.read_text(encoding="utf-8"))
    return [rows[str(row)]["prediction"] for row in range(len(rows))]


def score_cut(part: Path, tmp_path: Path, capsys) -> tuple[dict, str]:
    output = tmp_path / "scores.json"
    assert main(["score", str(part), "--judge", "rule", "--k", "4", "--output", str(output)]) == 0
    return json.loads(output.read_text())["gpassk"]["cut"], capsys.readouterr().err


def test_recorded_cuts_are_counted_exactly(run, tmp_path, capsys):
    texts = [text for part in run for text in texts_of(part)]
    cut, _ = score_cut(run[0], tmp_path, capsys)
    assert cut["source"] == "finish_reason" and cut["recorded"] == cut["generations"] == len(texts) == 64
    assert cut["cut"] == sum(map(is_cut, texts)) > 0


def test_lines_that_are_not_records_are_skipped_and_said(run, tmp_path, capsys):
    sidecar = sidecar_path(run[1])
    good = sidecar.read_bytes()
    spoiled = [
        b"not json\n",
        b'{"sha256": 5, "finish_reason": "length"}\n',
        b'{"sha256": "ab", "finish_reason": ["length"]}\n',
        b"[1, 2]\n",
        b'{"sha256": "ab", "finish_reason": "' + b"x" * 100 + b'"}\n',  # a reason over MAX_REASON_CHARS
        b"\xff\xfe\n",
        b'{"sha256": "ab", "fin',  # a torn last line, no newline
    ]
    sidecar.write_bytes(b"".join(spoiled[:3]) + good + b"".join(spoiled[3:]))
    cut, err = score_cut(run[0], tmp_path, capsys)
    texts = [text for part in run for text in texts_of(part)]
    assert cut["source"] == "finish_reason" and cut["cut"] == sum(map(is_cut, texts))
    assert f"{sidecar}: skipped {len(spoiled)} line(s) that are not finish-reason records" in err


def test_a_line_over_the_limit_leaves_that_sidecar_out(run, tmp_path, capsys):
    sidecar = sidecar_path(run[1])
    sidecar.write_bytes(sidecar.read_bytes() + b'{"sha256": "' + b"a" * MAX_LINE_BYTES + b'"}\n')
    cut, err = score_cut(run[0], tmp_path, capsys)
    first = set(texts_of(run[0]))  # only the texts of the first part have a readable record
    recorded = sum(text in first for part in run for text in texts_of(part))
    assert (cut["source"], cut["recorded"], cut["generations"]) == ("mixed", recorded, 64) and 32 <= recorded < 64
    assert f"finish reasons not read: {sidecar} line" in err and "over the limit of 1,024 bytes" in err


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_sidecar_that_is_not_a_regular_file_is_refused_without_blocking(run, tmp_path, capsys, kind):
    for part in run:
        sidecar = sidecar_path(part)
        sidecar.unlink()
        if kind == "fifo":
            os.mkfifo(sidecar)
        elif kind == "device":
            sidecar.symlink_to("/dev/zero")
        else:
            sidecar.mkdir()
    cut, err = score_cut(run[0], tmp_path, capsys)
    assert (cut["source"], cut["recorded"]) == ("extraction", 0)
    assert "finish reasons not read" in err and str(sidecar_path(run[0])) in err


def test_a_text_recorded_with_two_reasons_has_none(tmp_path):
    predictions = tmp_path / "d.json"
    append_finish_reasons(predictions, ["same", "other"], ["stop", "length"])
    append_finish_reasons(predictions, ["same"], ["length"])
    reasons = finish_reasons_of(["same", "other", "same"], [sidecar_path(predictions)])
    assert reasons == (None, "length", None)
    ends = count_ends([Question("q", "", "1", ("same", "other", "same"), finish_reasons=reasons)])
    assert (ends.recorded, ends.generations, ends.source) == (1, 3, "mixed")


def test_lines_are_keyed_by_the_digest_of_any_text(tmp_path):
    texts = ["", "a\ud800b", "é" * 10_000]  # empty, a lone surrogate (valid JSON), long
    assert record_lines(texts, [None, None, None]) == b""
    lines = record_lines(texts, ["stop", "length", "max_tokens"]).decode().splitlines()
    assert [json.loads(line)["sha256"] for line in lines] == [text_digest(text) for text in texts]
    assert all(len(line) < MAX_LINE_BYTES for line in lines)


def test_no_sidecar_means_nothing_recorded(tmp_path):
    assert finish_reasons_of(["x"], [tmp_path / "absent.finish_reasons.jsonl"]) is None
