"""No command writes over one of its inputs, and a ``--cache`` that is not a verdict cache is never appended to.

``gpassk leaderboard … --manifest M -o M`` (or ``-o`` onto a results file or a
saved config of the runs it reads) overwrote its input with exit 0;
``gpassk score … --cache results.json`` appended verdict lines into a results
file.  Each is now a one-line error (exit 2) and the file is left byte for byte.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest

from gpassk_opencompass.cli import main
from leaderboard_workdirs import standard_grid, write_manifest, write_run
from loopback_judge import exact_match_judge
from scoring_fixtures import COUNTS, generations, write_jsonl

TS = "20250213_101500"


def one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


@pytest.fixture
def grid(tmp_path):
    specs = standard_grid()[:4]
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    manifest = write_manifest(tmp_path / "configs", specs)
    return run_dir, manifest, specs


def _targets(tmp_path, run_dir, manifest, specs):
    results = run_dir / "results" / specs[0].model_abbr / f"{specs[0].dataset_abbr}.json"
    config = next((run_dir / "configs").glob("*.py"))
    link = tmp_path / "board.json"
    link.symlink_to(results)
    return {
        "the manifest": ([str(manifest)], manifest),
        "a results file": ([str(results)], results),
        "a results file through a symlink": ([str(link)], results),
        "a saved config": (["--format", "md", str(config)], config),
        "a manifest found under OUTPUTS": ([str(run_dir.parent / "." / "manifest.json")], None),
    }


@pytest.mark.parametrize(
    "case",
    [
        "the manifest",
        "a results file",
        "a results file through a symlink",
        "a saved config",
        "a manifest found under OUTPUTS",
    ],
)
def test_leaderboard_refuses_an_output_that_is_one_of_its_inputs(tmp_path, capsys, grid, case):
    run_dir, manifest, specs = grid
    found = write_manifest(run_dir.parent, specs)  # also read: the manifest under OUTPUTS
    output, victim = _targets(tmp_path, run_dir, manifest, specs)[case]
    victim = victim or found
    before = victim.read_bytes()
    *options, path = output
    assert (
        main(
            [
                "leaderboard",
                str(run_dir.parent),
                *(["--manifest", str(manifest)] if case == "the manifest" else []),
                *options,
                "-o",
                path,
            ]
        )
        == 2
    )
    err = one_line(capsys.readouterr().err)
    assert f"--output {path} is one of the inputs" in err and "give --output another path" in err
    assert victim.read_bytes() == before


def test_leaderboard_writes_next_to_its_inputs(tmp_path, capsys, grid):
    run_dir, manifest, _ = grid
    board = run_dir.parent / "board.md"  # inside OUTPUTS, but not an input
    assert main(["leaderboard", str(run_dir.parent), "--manifest", str(manifest), "-o", str(board)]) == 0
    assert board.read_text().startswith("### ")


def test_score_refuses_a_cache_that_is_a_results_file_before_any_work(tmp_path, capsys, loopback_openai):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    results = tmp_path / "results.json"
    assert main(["score", str(source), "--k", "2", "--output", str(results), "--quiet"]) == 0
    before = results.read_bytes()
    server = loopback_openai(exact_match_judge)
    capsys.readouterr()
    code = main(
        [
            "score",
            str(source),
            "--k",
            "2",
            "--judge",
            "llm",
            "--judge-url",
            server.url,
            "--judge-model",
            "loopback-model",
            "--cache",
            str(results),
            "--quiet",
        ]
    )
    err = one_line(capsys.readouterr().err)
    assert code == 2 and server.requests == []
    assert f"{results} is not a verdict cache" in err and "choose another place with --cache PATH" in err
    assert results.read_bytes() == before
    assert json.loads(before)  # still the results, still JSON


@pytest.mark.parametrize(
    "content",
    [b'{"id": "q0", "question": "q", "answer": "1", "predictions": ["1"]}\n', b"not json at all\n", b"\n\n"],
    ids=["a generations file", "text", "blank"],
)
def test_score_refuses_any_existing_file_that_is_not_a_verdict_cache(tmp_path, capsys, loopback_openai, content):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    other = tmp_path / "other.jsonl"
    other.write_bytes(content)
    server = loopback_openai(exact_match_judge)
    assert (
        main(
            [
                "score",
                str(source),
                "--k",
                "2",
                "--judge-url",
                server.url,
                "--judge-model",
                "loopback-model",
                "--cache",
                str(other),
                "--quiet",
            ]
        )
        == 2
    )
    assert "is not a verdict cache" in one_line(capsys.readouterr().err)
    assert other.read_bytes() == content and server.requests == []


def test_score_resumes_from_a_real_verdict_cache(tmp_path, capsys, loopback_openai):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    cache = tmp_path / "verdicts.jsonl"
    server = loopback_openai(exact_match_judge)
    command = [
        "score",
        str(source),
        "--k",
        "2",
        "--judge-url",
        server.url,
        "--judge-model",
        "loopback-model",
        "--cache",
        str(cache),
        "--quiet",
    ]
    assert main(command) == 0
    asked = len(server.requests)
    assert asked > 0 and main(command) == 0 and len(server.requests) == asked  # every verdict from the cache
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main([*command[:-2], str(empty), "--quiet"]) == 0 and os.path.getsize(empty) > 0


@pytest.mark.parametrize(
    "command",
    [
        ["plan", "{a}", "--n", "8", "--json", "{a}"],
        ["compare", "{a}", "{b}", "--markdown", "{b}"],
        ["agree", "{a}", "{b}", "--json", "{a}"],
    ],
    ids=["plan", "compare", "agree"],
)
def test_the_analysis_commands_refuse_an_output_that_is_an_input(tmp_path, capsys, command):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        assert main(["score", str(source), "--k", "2", "--output", str(path), "--quiet"]) == 0
    before = a.read_bytes(), b.read_bytes()
    capsys.readouterr()
    assert main([part.format(a=a, b=b) for part in command]) == 2
    assert "is the same file as" in one_line(capsys.readouterr().err)
    assert (a.read_bytes(), b.read_bytes()) == before


DATA = pathlib.Path(__file__).parent / "data"


def _reader_inputs(tmp_path):
    """Each reader's input as the user gives it (often a folder), and the file inside that the reader reads."""
    shutil.copytree(DATA, tmp_path / "data")
    data = tmp_path / "data"
    lm_eval = next((data / "lm-eval" / "fake-math").glob("samples_*.jsonl"))
    lighteval = next((data / "lighteval" / "fake-math").rglob("details_*.parquet"))
    review = data / "evalscope" / "outputs" / "reviews" / "loopback-math" / "aime24_default.jsonl"
    parts = data / "opencompass" / "predictions" / "strong_t0-7"
    return {
        "lm-eval folder": (data / "lm-eval", "lm-eval", lm_eval),
        "lighteval folder": (data / "lighteval" / "fake-math", "lighteval", lighteval),
        "evalscope work dir": (data / "evalscope" / "outputs", "evalscope", review),
        "opencompass part 0, output onto part 1": (parts / "tiny_llm_0.json", "opencompass", parts / "tiny_llm_1.json"),
        "inspect log": (
            data / "inspect" / "gpassk-math-0.3.285.json",
            "inspect",
            data / "inspect" / "gpassk-math-0.3.285.json",
        ),
    }


@pytest.mark.parametrize("option", ["--output", "--cache"])
@pytest.mark.parametrize(
    "case",
    [
        "lm-eval folder",
        "lighteval folder",
        "evalscope work dir",
        "opencompass part 0, output onto part 1",
        "inspect log",
    ],
)
@pytest.mark.parametrize("spelling", ["as found", "./ and ..", "through a symlink"])
def test_score_never_writes_over_a_file_the_reader_reads(tmp_path, capsys, monkeypatch, case, option, spelling):
    """An --output or --cache that is a file inside the input folder (or another part) the reader reads: refused
    in one line naming it, the file byte for byte; on main the --output was overwritten with exit 0."""
    source, format, inside = _reader_inputs(tmp_path)[case]
    before = inside.read_bytes()
    target = {
        "as found": inside,
        "./ and ..": pathlib.Path(os.path.relpath(inside.parent, tmp_path))
        / ".."
        / inside.parent.name
        / "."
        / inside.name,
        "through a symlink": tmp_path / "link",
    }[spelling]
    if spelling == "through a symlink":
        target.symlink_to(inside)
    monkeypatch.chdir(tmp_path)
    judge = (
        ["--judge", "rule"]
        if option == "--output"
        else ["--judge", "llm", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"]
    )
    code = main(["score", str(source), "--format", format, "--k", "2", *judge, option, str(target), "--quiet"])
    message = one_line(capsys.readouterr().err)
    refused = "is one of the inputs" in message or "is the same file as INPUT" in message  # the file given
    assert code == 2 and f"{option} " in message and refused and inside.name in message
    assert inside.read_bytes() == before


def test_score_writes_beside_the_file_a_folder_reader_reads(tmp_path, capsys):
    """Only the files read are refused: a new results file inside an lm-eval output folder is written."""
    source, _, inside = _reader_inputs(tmp_path)["lm-eval folder"]
    output = inside.parent / "gpassk.json"
    assert main(["score", str(source), "--k", "2", "--judge", "rule", "--output", str(output), "--quiet"]) == 0
    assert json.loads(output.read_text())["gpassk"]["judge"] == "rule"
