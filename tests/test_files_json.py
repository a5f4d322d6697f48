"""Every JSON the package reads has a depth and a size limit: a hostile or broken file is one line naming it.

JSON nested 100,000 deep gave a ``RecursionError`` traceback; a 5,000-digit
integer a ``ValueError`` traceback (Python's ``int`` digit limit) or a line
naming no file that aborted the whole leaderboard.  Now each is one line
naming the file (and line); the leaderboard and ``gpassk grid status`` skip a
bad results file with a notice and go on.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpassk_opencompass import files
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid.status import GridRun, config_status
from gpassk_opencompass.judges.cache import VerdictCache, verdict_key
from gpassk_opencompass.scoring.results_io import load_results
from leaderboard_workdirs import standard_grid, write_manifest, write_run

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000
HUGE_INTEGER = '{"accuracy": ' + "7" * 5000 + "}"
TS = "20250213_101500"
MAX_JSON_DEPTH = 100  # the documented limit (docs/scoring.md)


def one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


# ------------------------------------------------------------------------------------- the loader


def _depth_by_brackets(text: str) -> int:
    """Nesting depth from ``json.dumps`` text: brackets outside strings, counted one character at a time."""
    depth = deepest = 0
    inside = escaped = False
    for char in text:
        if inside:
            escaped, inside = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ax'),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(alphabet='[{"\\k', max_size=3), children, max_size=3)
    ),
    max_leaves=30,
)


@given(json_values)
def test_depth_matches_a_character_count_of_the_brackets(value):
    text = json.dumps(value)
    assert files.json_depth(json.loads(text), 1000) == _depth_by_brackets(text)


@pytest.mark.parametrize(
    "text",
    [DEEP, DEEP_OBJECT, "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)],
    ids=["array 100,000 deep", "object 100,000 deep", "one level over"],
)
def test_too_deep_is_one_line_naming_the_source(text):
    with pytest.raises(files.UnreadableJSON) as error:
        files.load_json_text(text, source="gens.jsonl line 2")
    assert str(error.value) == (
        f"gens.jsonl line 2: JSON nested more than {MAX_JSON_DEPTH} levels deep; is this the right file?"
    )


def test_the_limit_itself_reads():
    text = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert files.json_depth(files.load_json_text(text, source="x"), MAX_JSON_DEPTH) == MAX_JSON_DEPTH


def test_an_integer_over_pythons_digit_limit_is_one_line():
    with pytest.raises(files.UnreadableJSON) as error:
        files.load_json_text(HUGE_INTEGER, source="r.json")
    assert str(error.value) == (
        f"r.json: a number with 5000 digits, over Python's limit of "
        f"{sys.get_int_max_str_digits()} for an integer; write it as a string"
    )


def test_size_limit_before_reading(tmp_path):
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 600 + "1]")
    with pytest.raises(
        files.UnreadableJSON, match=r"big\.json: 1,203 bytes, over the limit of 1,000 bytes for one JSON document$"
    ):
        files.read_json_file(path, max_bytes=1000)
    with pytest.raises(files.UnreadableJSON, match=r"^line 3: 1,203 characters, over the limit of 1,000 bytes"):
        files.load_json_text(path.read_text(), source="line 3", max_bytes=1000)
    (tmp_path / "latin.json").write_bytes(b'{"a": "\xe9"}')
    with pytest.raises(
        files.UnreadableJSON, match=r"latin\.json: not UTF-8 text \(invalid continuation byte at byte 7\)"
    ):
        files.read_json_file(tmp_path / "latin.json")


# ------------------------------------------------------------------------------------- every reader


@pytest.mark.parametrize(
    "bad, message",
    [
        (DEEP, f"JSON nested more than {MAX_JSON_DEPTH} levels deep"),
        (
            '{"id": "b", "question": "q", "answer": "1", "predictions": ["1"], "n": ' + "9" * 5000 + "}",
            "a number with 5000 digits",
        ),
    ],
    ids=["deep", "huge integer"],
)
def test_score_a_bad_input_line_is_one_line_naming_file_and_line(tmp_path, capsys, bad, message):
    path = tmp_path / "gens.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "q", "answer": "1", "predictions": ["1"]}) + "\n" + bad + "\n")
    assert main(["score", str(path), "--k", "1", "--judge", "rule"]) == 2
    err = one_line(capsys.readouterr().err)
    assert f"{path} line 2: {message}" in err


DATA = Path(__file__).parent / "data"


def _reader_file(tmp_path, format: str, first_line: str) -> tuple[Path, Path]:
    """A copy of a reader's real file (or its output folder) whose first line is ``first_line``: (given, file)."""
    if format == "lm-eval":
        original = next((DATA / "lm-eval" / "fake-math").glob("samples_*.jsonl"))
        file = tmp_path / "out" / "model" / original.name
    elif format == "evalscope":
        original = DATA / "evalscope" / "outputs" / "reviews" / "loopback-math" / "aime24_default.jsonl"
        file = tmp_path / "out" / "reviews" / "loopback-math" / original.name
    else:
        original = DATA / "qwen-math" / "test_qwen25-math-cot_-1_seed0_t0.7_s0_e-1.jsonl"
        file = tmp_path / "out" / original.name
    file.parent.mkdir(parents=True)
    file.write_text(first_line + "\n" + original.read_text(encoding="utf-8"), encoding="utf-8")
    return (file if format == "qwen-math" else tmp_path / "out"), file


@pytest.mark.parametrize("format", ["lm-eval", "evalscope", "qwen-math"])
@pytest.mark.parametrize(
    "bad, message",
    [(DEEP, f"JSON nested more than {MAX_JSON_DEPTH} levels deep"), (HUGE_INTEGER, "a number with 5000 digits")],
    ids=["deep", "huge integer"],
)
def test_a_bad_first_line_of_a_tools_file_is_one_line_detected_or_named(tmp_path, capsys, format, bad, message):
    """Detection reads the first line: a deep one gave lm-eval's detector a RecursionError traceback (every
    ``gpassk score`` with the default --format auto).  Detected, it is not the tool's file; named, the file and line."""
    given, file = _reader_file(tmp_path, format, bad)
    assert main(["score", str(given), "--k", "2", "--judge", "rule", "--quiet"]) == 2
    assert f"{given}: not a format gpassk score knows" in one_line(capsys.readouterr().err)
    assert main(["score", str(given), "--format", format, "--k", "2", "--judge", "rule", "--quiet"]) == 2
    assert f"{file} line 1: {message}" in one_line(capsys.readouterr().err)


def test_a_deep_cache_line_is_skipped_like_a_torn_one(tmp_path):
    path = tmp_path / "verdicts.jsonl"
    key = verdict_key("j", "v1", "en", "q", "1", "1")
    with VerdictCache(path) as cache:
        cache.put(key, True, "ok", finish_reason="stop")
    with open(path, "a") as file:
        file.write(DEEP + "\n" + '{"key": "k2", "correct": true, "reason": "", "n": ' + "1" * 5000 + "}\n")
    with VerdictCache(path) as cache:
        assert cache.get(key).correct is True and cache.skipped_lines == 2 and len(cache) == 1


@pytest.mark.parametrize(
    "content, message",
    [(DEEP, "JSON nested more than"), (HUGE_INTEGER, "a number with 5000 digits")],
    ids=["deep", "huge integer"],
)
def test_a_bad_results_file_is_one_line_for_the_analysis_commands(tmp_path, capsys, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(InputError, match=f"^{path}: {message}"):
        load_results(path)
    assert main(["plan", str(path), "--n", "8"]) == 2
    assert f"{path}: {message}" in one_line(capsys.readouterr().err)


def test_a_deep_manifest_is_one_line(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, standard_grid()[:2])
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"runs": ' + DEEP + "}")
    assert main(["leaderboard", str(tmp_path / "outputs"), "--manifest", str(manifest)]) == 2
    assert f"{manifest}: JSON nested more than" in one_line(capsys.readouterr().err)


# ------------------------------------------------------------------------- skipped, and the rest go on


def test_the_leaderboard_skips_bad_results_files_with_a_notice(tmp_path, capsys):
    specs = standard_grid()
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    deep = run_dir / "results" / specs[0].model_abbr / f"{specs[0].dataset_abbr}.json"
    huge = run_dir / "results" / specs[1].model_abbr / f"{specs[1].dataset_abbr}.json"
    deep.write_text(DEEP)
    huge.write_text(HUGE_INTEGER)
    board = tmp_path / "board.json"
    code = main(["leaderboard", str(tmp_path / "outputs"), "-o", str(board)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err
    assert f"skipped {deep}: not readable JSON (JSON nested more than" in err
    assert f"skipped {huge}: not readable JSON (a number with 5000 digits" in err
    assert f"from {len(specs) - 2} results file(s)" in err
    assert json.loads(board.read_text())  # the other runs are tabulated


def test_the_leaderboard_with_a_manifest_lists_the_skipped_run_as_missing(tmp_path, capsys):
    specs = standard_grid()[:4]
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    manifest = write_manifest(tmp_path / "configs", specs)
    bad = run_dir / "results" / specs[0].model_abbr / f"{specs[0].dataset_abbr}.json"
    bad.write_text(DEEP)
    code = main(["leaderboard", str(tmp_path / "outputs"), "--manifest", str(manifest)])
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err and f"skipped {bad}: not readable JSON (JSON nested" in err


RUN = GridRun(Path("configs/m@d.py"), "m_t1.0", "d_k1_n2")


@pytest.mark.parametrize(
    "content, message",
    [(DEEP, "JSON nested more than"), (HUGE_INTEGER, "a number with 5000 digits")],
    ids=["deep", "huge integer"],
)
def test_grid_status_reports_a_bad_results_file_and_goes_on(tmp_path, content, message):
    run_dir = tmp_path / RUN.stem / "20250101_120000"
    path = run_dir / "results" / RUN.model_abbr / f"{RUN.dataset_abbr}.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    status = config_status(RUN, tmp_path)
    assert status.state == "failed" and status.result == path
    assert f"unreadable results file: {path}: {message}" in status.detail
    other = GridRun(Path("configs/m@e.py"), "m_t1.0", "e_k1_n2")
    good = tmp_path / other.stem / "20250101_120000" / "results" / other.model_abbr / f"{other.dataset_abbr}.json"
    good.parent.mkdir(parents=True)
    good.write_text(json.dumps({"accuracy": 50.0, "unresolved": 0, "gpassk": {"complete": True}}))
    assert config_status(other, tmp_path).state == "done"
