"""The inspect_ai reader on logs the real inspect_ai CLI wrote (tests/data/inspect, see PROVENANCE.md there).

Golden values are read from the same files independently, with plain zipfile/json.
"""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
import subprocess
import sys
import zipfile
from fractions import Fraction

import pytest

from gpassk_opencompass import score
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import inspect as reader

DATA = pathlib.Path(__file__).parent / "data" / "inspect"
JSON_LOG = DATA / "gpassk-math-0.3.285.json"
DEFLATE_LOG = DATA / "gpassk-math-0.3.200.eval"
ZSTD_LOG = DATA / "gpassk-math-0.3.285.eval"
ERROR_LOG = DATA / "gpassk-math-error-0.3.200.eval"
ZSTD_IN_ZIPFILE = hasattr(zipfile, "ZIP_ZSTANDARD")  # Python 3.14+
ZSTD_READABLE = ZSTD_IN_ZIPFILE or importlib.util.find_spec("zstandard") is not None


def golden(samples: list[dict]) -> list[dict]:
    """The questions, straight from inspect's samples: grouped by id in order, epochs sorted."""
    by_id: dict[str, list[dict]] = {}
    for sample in samples:
        by_id.setdefault(str(sample["id"]), []).append(sample)
    questions = []
    for sample_id, epochs in by_id.items():
        epochs.sort(key=lambda sample: sample["epoch"])
        scores = [sample["scores"]["boxed"] for sample in epochs]
        questions.append(
            {
                "id": sample_id,
                "question": epochs[0]["input"],
                "answer": epochs[0]["target"],
                "predictions": [sample["output"]["completion"] for sample in epochs],
                "source_extracted": [score.get("answer") for score in scores],
                "source_verdicts": [{"C": True, "I": False}[score["value"]] for score in scores],
                "finish_reasons": [sample["output"]["choices"][0]["stop_reason"] for sample in epochs],
            }
        )
    return questions


def eval_members(path: pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def eval_samples(path: pathlib.Path) -> list[dict]:
    members = eval_members(path)
    return [json.loads(data) for name, data in members.items() if name.startswith("samples/")]


def write_zip(path: pathlib.Path, members: dict[str, bytes]) -> pathlib.Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def one_line_error(path: pathlib.Path, *fragments: str) -> str:
    with pytest.raises(InputError) as caught:
        list(reader.read(path))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_the_json_log_gives_one_question_per_sample_id_with_its_epochs():
    log = json.loads(JSON_LOG.read_text())
    questions = list(reader.read(JSON_LOG))
    assert questions == golden(log["samples"])
    assert [len(question["predictions"]) for question in questions] == [log["eval"]["config"]["epochs"]] * 3
    # inspect's own accuracy over all epochs is the share of True source verdicts
    verdicts = [verdict for question in questions for verdict in question["source_verdicts"]]
    accuracy = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert sum(verdicts) == pytest.approx(accuracy * len(verdicts))
    assert questions[2]["source_extracted"][1] is None  # the unboxed "forty-two": the scorer gave no answer


def test_the_eval_log_of_inspect_0_3_200_reads_as_its_zip_members_say():
    questions = list(reader.read(DEFLATE_LOG))
    assert questions == golden(eval_samples(DEFLATE_LOG))
    assert questions == list(reader.read(JSON_LOG))  # the same responder, another inspect version and format


@pytest.mark.skipif(not ZSTD_READABLE, reason="zstd needs Python 3.14+ or the zstandard package")
def test_a_zstd_eval_log_reads_like_the_json_of_the_same_run():
    assert list(reader.read(ZSTD_LOG)) == golden(json.loads(JSON_LOG.read_text())["samples"])


@pytest.mark.skipif(ZSTD_IN_ZIPFILE, reason="this Python's zipfile reads zstd")
def test_a_zstd_eval_log_without_zstandard_is_one_line_naming_the_fixes(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard raises ImportError
    one_line_error(ZSTD_LOG, "member", "zstd", "pip install zstandard", "inspect log convert", "--to json")


@pytest.mark.parametrize("log", [DEFLATE_LOG, ZSTD_LOG])
def test_a_corrupt_member_is_one_line(tmp_path, log):
    if log is ZSTD_LOG and not ZSTD_READABLE:
        pytest.skip("zstd needs Python 3.14+ or the zstandard package")
    data = bytearray(log.read_bytes())
    with zipfile.ZipFile(log) as archive:
        info = archive.getinfo("samples/q2_epoch_3.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + info.compress_size // 3, start + info.compress_size // 3 + 8):
        data[offset] ^= 0x5A
    (tmp_path / "corrupt.eval").write_bytes(bytes(data))
    one_line_error(tmp_path / "corrupt.eval", "samples/q2_epoch_3.json", "corrupt")


def g_pass(c: int, n: int, k: int, tau: float) -> Fraction:
    """G-Pass@k_tau of one question, straight from its definition (hypergeometric tail from ceil(tau * k))."""
    return sum(
        (
            Fraction(math.comb(c, j) * math.comb(n - c, k - j), math.comb(n, k))
            for j in range(math.ceil(tau * k), k + 1)
        ),
        Fraction(0),
    )


def test_scoring_the_real_log_with_the_rule_judge_agrees_with_inspects_own_verdicts():
    samples = eval_samples(DEFLATE_LOG)
    correct = {sample_id: 0 for sample_id in dict.fromkeys(str(sample["id"]) for sample in samples)}
    for sample in samples:
        correct[str(sample["id"])] += sample["scores"]["boxed"]["value"] == "C"
    fields = ("id", "question", "answer", "predictions")
    results = score(
        [{key: q[key] for key in fields} for q in reader.read(DEFLATE_LOG)],
        k=4,
        judge="rule",
        cache=False,
        progress=False,
    )
    assert {record.id: record.c for record in results.details} == correct
    for tau in (0.5, 1.0):
        expected = sum(g_pass(c, 4, 4, tau) for c in correct.values()) / len(correct)
        assert results.model_extra[f"G-Pass@4_{tau}"] == pytest.approx(float(expected) * 100)


def test_detect_knows_inspect_logs_and_nothing_else(tmp_path):
    assert all(reader.detect(path) for path in (JSON_LOG, DEFLATE_LOG, ZSTD_LOG, ERROR_LOG))
    results = tmp_path / "scores.json"
    results.write_text(json.dumps({"schema_version": 2, "version": 2, "metrics": {}}))
    shaped = tmp_path / "other.json"  # "version" first, but no inspect eval block
    shaped.write_text(json.dumps({"version": 1, "status": "ok", "items": []}))
    lines = tmp_path / "gens.jsonl"
    lines.write_text(json.dumps({"id": "q1", "predictions": []}) + "\n")
    other_zip = write_zip(tmp_path / "other.eval", {"data.json": b"{}"})
    not_zip = tmp_path / "notzip.eval"
    not_zip.write_text("hello")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00" * 100)
    for path in (results, shaped, lines, other_zip, not_zip, binary, tmp_path, tmp_path / "missing.json", DATA):
        assert reader.detect(path) is False, path


def test_reading_a_json_that_is_not_an_inspect_log_says_so(tmp_path):
    (tmp_path / "scores.json").write_text(json.dumps({"schema_version": 2, "questions": []}))
    one_line_error(tmp_path / "scores.json", "not an inspect_ai log")
    (tmp_path / "list.json").write_text("[1, 2]")
    one_line_error(tmp_path / "list.json", "not an inspect_ai log")


def test_an_unfinished_run_is_refused_with_its_error_and_the_retry_command():
    one_line_error(ERROR_LOG, "status is 'error'", "TypeError", "inspect eval-retry")


def test_not_a_zip_or_a_zip_without_inspect_members(tmp_path):
    not_zip = tmp_path / "log.eval"
    not_zip.write_text("not a zip at all")
    one_line_error(not_zip, "not a readable zip archive")
    members = {name: data for name, data in eval_members(DEFLATE_LOG).items() if name.startswith("samples/")}
    one_line_error(write_zip(tmp_path / "bare.eval", members), "header.json")


def test_empty_files_are_one_line(tmp_path):
    for name in ("empty.json", "empty.eval"):
        (tmp_path / name).write_bytes(b"")
        one_line_error(tmp_path / name)


def test_a_log_without_samples_says_how_to_get_them(tmp_path):
    log = json.loads(JSON_LOG.read_text())
    del log["samples"]
    (tmp_path / "log.json").write_text(json.dumps(log))
    one_line_error(tmp_path / "log.json", "--no-log-samples")
    members = {name: data for name, data in eval_members(DEFLATE_LOG).items() if not name.startswith("samples/")}
    one_line_error(write_zip(tmp_path / "log.eval", members), "--no-log-samples")


def rewrite_member(tmp_path: pathlib.Path, name: str, change) -> pathlib.Path:
    members = eval_members(DEFLATE_LOG)
    sample = json.loads(members[name])
    change(sample)
    members[name] = json.dumps(sample).encode()
    return write_zip(tmp_path / "changed.eval", members)


@pytest.mark.parametrize("field", ["output", "target", "input", "epoch", "id"])
def test_a_sample_missing_a_field_names_the_member_and_the_field(tmp_path, field):
    path = rewrite_member(tmp_path, "samples/q2_epoch_3.json", lambda sample: sample.pop(field))
    one_line_error(path, "samples/q2_epoch_3.json", f"'{field}'")


def test_a_json_sample_missing_its_output_names_the_sample(tmp_path):
    log = json.loads(JSON_LOG.read_text())
    del log["samples"][4]["output"]
    (tmp_path / "log.json").write_text(json.dumps(log))
    one_line_error(tmp_path / "log.json", "sample 5", "'q2'", "epoch 2", "'output'")


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda sample: sample.update(epoch=1), "epoch 1 of this sample appears twice"),
        (lambda sample: sample.update(epoch="2"), "positive integer"),
        (lambda sample: sample.update(target=["42", "forty-two"]), "one gold answer"),
        (lambda sample: sample.update(target="41"), "differs from its first epoch"),
        (lambda sample: sample.update(output={"completion": 7}), "'output.completion'"),
        (lambda sample: sample.update(input=7), "'input' must be"),
        (lambda sample: sample.update(scores=["C"]), "'scores' must map"),
        (lambda sample: sample.update(error={"message": "RuntimeError('boom')", "traceback": "..."}), "boom"),
    ],
)
def test_a_wrong_sample_is_one_line_naming_it(tmp_path, change, fragment):
    one_line_error(rewrite_member(tmp_path, "samples/q2_epoch_3.json", change), "q2_epoch_3", fragment)


def test_chat_message_input_and_a_one_item_target_list(tmp_path):
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is 7 * 6?"}, {"type": "image", "image": "x"}]},
    ]

    def change(sample):
        sample.update(input=messages, target=[sample["target"]])

    members = eval_members(DEFLATE_LOG)
    for name in [name for name in members if name.startswith("samples/q2_")]:
        sample = json.loads(members[name])
        change(sample)
        members[name] = json.dumps(sample).encode()
    questions = {question["id"]: question for question in reader.read(write_zip(tmp_path / "chat.eval", members))}
    assert questions["q2"]["question"] == "Be brief.\n\nWhat is 7 * 6?"
    assert questions["q2"]["answer"] == "42"


def test_a_member_over_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_MEMBER_BYTES", 1000)
    one_line_error(DEFLATE_LOG, "over the limit of 1,000 bytes")


def test_a_folder_asks_for_one_log(tmp_path):
    with pytest.raises(InputError, match="give one inspect_ai log file"):
        reader.read(tmp_path)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *[("C", True), ("I", False), ("N", False), ("P", None), (1, True), (0, False), (1.0, True), (0.5, None)],
        *[(True, True), (False, False), ("yes", True), ("no", False), ({"a": 1}, None), (None, None), ("?", None)],
    ],
)
def test_score_values_map_to_verdicts(value, expected):
    assert reader.verdict(value) is expected


@pytest.mark.e2e
def test_the_real_inspect_cli_against_the_loopback_server_writes_what_the_committed_log_holds(tmp_path):
    pytest.importorskip("inspect_ai")
    inspect = pathlib.Path(sys.executable).with_name("inspect")
    command = [sys.executable, str(DATA / "make_logs.py"), "--inspect", str(inspect), "--out", str(tmp_path)]
    logs = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout.split()
    expected = golden(json.loads(JSON_LOG.read_text())["samples"])
    for log in logs:
        path = pathlib.Path(log)
        assert reader.detect(path) and list(reader.read(path)) == expected  # inspect_ai brings zstandard


@pytest.mark.parametrize("log", [JSON_LOG, DEFLATE_LOG], ids=["json", "eval"])
def test_gpassk_score_turns_the_log_into_g_pass_tables_with_one_command(log, tmp_path):
    """Auto-detected and judged by inspect's own scorer (--judge source): accuracy is inspect's own accuracy."""
    from gpassk_opencompass.cli import main

    output = tmp_path / "scores.json"
    argv = ["score", str(log), "--k", "2", "--judge", "source", "--no-cache", "--quiet", "--output", str(output)]
    assert main(argv) == 0
    result = json.loads(output.read_text(encoding="utf-8"))
    own = json.loads(JSON_LOG.read_text(encoding="utf-8"))["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert result["gpassk"]["judge"] == "source:inspect"
    assert result["accuracy (4 runs average)"] == pytest.approx(100 * own)


def score_exit(log: pathlib.Path, capsys) -> tuple[int, str]:
    """``gpassk score LOG --k 2`` as a user runs it: its exit code and what it printed on stderr."""
    from gpassk_opencompass.cli import main

    code = main(["score", str(log), "--k", "2", "--judge", "source", "--no-cache", "--quiet"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("dropped", "fragment"),
    [
        (
            ["samples/q2_epoch_3.json", "samples/q3_epoch_4.json", "samples/q1_epoch_2.json"],
            "member samples/q1_epoch_2.json is missing (the header says epochs: 4, total_samples: 12)",
        ),
        (
            [f"samples/q3_epoch_{epoch}.json" for epoch in range(1, 5)],
            "member samples/q3_epoch_1.json is missing (and 3 more of this question)",
        ),
    ],
    ids=["three-members", "a-whole-sample"],
)
def test_an_eval_log_missing_sample_members_is_refused_naming_the_first(tmp_path, capsys, dropped, fragment):
    """The header says epochs 4 and 12 samples: a log holding fewer is never scored with a smaller n."""
    members = {name: data for name, data in eval_members(DEFLATE_LOG).items() if name not in dropped}
    code, err = score_exit(write_zip(tmp_path / "damaged.eval", members), capsys)
    assert code == 2 and fragment in err and "damaged.eval" in err and len(err.strip().splitlines()) == 1, err


def test_a_json_log_missing_samples_is_refused_naming_the_first(tmp_path, capsys):
    log = json.loads(JSON_LOG.read_text())
    log["samples"] = [sample for sample in log["samples"] if (sample["id"], sample["epoch"]) != ("q2", 3)]
    (tmp_path / "log.json").write_text(json.dumps(log))
    code, err = score_exit(tmp_path / "log.json", capsys)
    assert code == 2 and "epoch 3 of sample 'q2' is missing" in err, err
    assert "epochs: 4, total_samples: 12" in err


def test_a_log_holding_fewer_samples_than_its_header_counts_is_refused(tmp_path, capsys):
    """Without sample ids to name, the header's total_samples still tells a whole missing sample."""
    members = {name: data for name, data in eval_members(DEFLATE_LOG).items() if not name.startswith("samples/q3_")}
    header = json.loads(members["header.json"])
    del header["eval"]["dataset"]["sample_ids"]
    members["header.json"] = json.dumps(header).encode()
    code, err = score_exit(write_zip(tmp_path / "damaged.eval", members), capsys)
    assert code == 2 and "holds 8 samples, not 12" in err, err
