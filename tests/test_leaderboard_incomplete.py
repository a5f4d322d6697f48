"""A run whose judge failed for some generations is never shown as a finished one.

The 45-of-48 case: an OpenCompass run whose judge stopped answering after three
of 48 generations. Written before the results contract (schema 1) its metrics
look normal and only ``gpassk.judge_stats.unresolved`` tells; written after it
(schema 2) the metrics are gone and ``unresolved`` / ``gpassk.complete`` /
``gpassk.bounds`` say what is missing.
"""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from gpassk_opencompass.cli import EXIT_INTERRUPTED, main
from gpassk_opencompass.leaderboard import build_leaderboard, collect_runs
from leaderboard_workdirs import Spec, make_incomplete, read_results, set_written, write_results, write_run

OLD, NEW = "20250213_101500", "20250214_093000"
# n = 16 generations of 3 questions: 48 generations, 45 unresolved
SAMPLED = Spec("acme/model-7b", "AIME2025", 0.7, 16, (16,), 0.5, questions=3, seed=1)
GREEDY = Spec("acme/model-7b", "AIME2025", 0.0, 1, (1,), 0.5, questions=3, seed=2)
OTHER = Spec("acme/other-1b", "AIME2025", 0.7, 16, (16,), 0.3, questions=3, seed=3)
# bounds as an incomplete results file states them: (every unresolved wrong, every one right)
BOUNDS = {
    "G-Pass@16_0.5": (2.0, 91.0),
    "G-Pass@16_0.75": (1.5, 88.25),
    "G-Pass@16_1.0": (0.5, 80.0),
    "mG-Pass@16": (1.25, 84.5),
}


def results_path(outputs, timestamp, spec):
    return outputs / timestamp / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"


def make_run_incomplete(outputs, timestamp, spec, schema):
    path = results_path(outputs, timestamp, spec)
    results = make_incomplete(read_results(path), 45, schema=schema, bounds=BOUNDS)
    write_results(outputs / timestamp, spec.model_abbr, spec.dataset_abbr, results)
    return path


@pytest.fixture
def complete_then_incomplete(tmp_path):
    """A complete run, then a newer rerun of the same model/benchmark/sampling that is incomplete."""
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED, GREEDY, OTHER])
    write_run(outputs, NEW, [SAMPLED])
    for timestamp, when in ((OLD, 1_000_000), (NEW, 2_000_000)):
        for path in (outputs / timestamp / "results").rglob("*.json"):
            set_written(path, when)
    return outputs


@pytest.mark.parametrize("schema", [1, 2])
def test_a_complete_run_wins_over_a_newer_incomplete_one(complete_then_incomplete, schema):
    outputs = complete_then_incomplete
    newer = make_run_incomplete(outputs, NEW, SAMPLED, schema)
    os.utime(newer, (2_000_000, 2_000_000))
    collection = collect_runs([outputs])
    board = build_leaderboard(collection.runs, notices=collection.notices)
    row = next(row for row in board.tables[0].rows if row.model == "model-7b")
    older = results_path(outputs, OLD, SAMPLED)
    assert row.sources[0] == older
    assert row.cells["mG-Pass@16"].value == read_results(older)["mG-Pass@16"]
    assert all(cell.complete for cell in row.cells.values()) and row.unresolved == ()
    assert board.left_out_incomplete == ()
    assert [notice.message for notice in board.notices] == [
        f"model-7b on AIME2025 (sampled) ran more than once: using the complete run {older} over the newer "
        f"incomplete {newer} (45 of 48 generations unresolved)",
        "AIME2025: 3 questions, the published column has 15; results will not compare one to one (see 'Benchmark "
        "composition' in docs/generator.md)",
    ]


@pytest.mark.parametrize("schema", [1, 2])
def test_an_incomplete_run_alone_is_not_tabulated_and_the_command_exits_3(tmp_path, capsys, schema):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED, GREEDY, OTHER])
    path = make_run_incomplete(outputs, OLD, SAMPLED, schema)
    assert main(["leaderboard", str(outputs)]) == 3
    captured = capsys.readouterr()
    assert (
        f"model-7b on AIME2025 (sampled) not tabulated: 45 of 48 generations unresolved in {path}; "
        "rerun to resume, or --allow-unresolved"
    ) in captured.err
    assert "incomplete: 1 run(s) left out" in captured.err
    # what could be printed was: the other model, and model-7b's greedy run alone (no sampled cells)
    lines = captured.out.splitlines()
    assert any(line.startswith("| other-1b | - | ") for line in lines)
    model_line = next(line for line in lines if line.startswith("| model-7b |"))
    assert (
        model_line.endswith("| - | - | - | - | - | pilot: 3 of 15 questions, n = 1, rule judge ‡ |")
        and "\\*" not in captured.out
    )


def test_only_incomplete_runs_exit_3_with_nothing_printed(tmp_path, capsys):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED])
    make_run_incomplete(outputs, OLD, SAMPLED, schema=2)
    assert main(["leaderboard", str(outputs)]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no leaderboard rows: 1 incomplete run(s) left out" in captured.err


def test_allowed_an_incomplete_run_is_marked_in_every_format(tmp_path, capsys):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED, OTHER])
    path = make_run_incomplete(outputs, OLD, SAMPLED, schema=2)
    out = tmp_path / "board"
    out.mkdir()
    assert (
        main(
            [
                "leaderboard",
                str(outputs),
                "--allow-unresolved",
                "-o",
                str(out / "b.md"),
                "-o",
                str(out / "b.csv"),
                "-o",
                str(out / "b.json"),
                "-o",
                str(out / "b.html"),
            ]
        )
        == 0
    )
    assert "model-7b on AIME2025 (sampled) is incomplete: 45 of 48 generations unresolved" in capsys.readouterr().err

    markdown = (out / "b.md").read_text(encoding="utf-8")
    assert "| model-7b | - | 2.0\\* | 1.5\\* | 0.5\\* | 1.2\\* |" in markdown  # the lower bounds, marked
    assert (
        f"\\* model-7b on AIME2025: incomplete, 45 of 48 generations unresolved ({path}); values count "
        "them as wrong; if all were right: G-Pass@16_0.5 up to 91.0, G-Pass@16_0.75 up to 88.2, "
        "G-Pass@16_1.0 up to 80.0, mG-Pass@16 up to 84.5"
    ) in markdown
    other_line = next(line for line in markdown.splitlines() if line.startswith("| other-1b |"))
    assert "*" not in other_line

    records = {record["model"]: record for record in csv.DictReader(io.StringIO((out / "b.csv").read_text()))}
    assert records["model-7b"]["complete"] == "false" and records["other-1b"]["complete"] == "true"
    assert float(records["model-7b"]["mG-Pass@16"]) == 1.25
    assert float(records["model-7b"]["mG-Pass@16 bound_high"]) == 84.5
    assert records["other-1b"]["mG-Pass@16 bound_high"] == ""

    document = json.loads((out / "b.json").read_text())
    assert document["complete"] is False
    assert document["leaderboard"]["model-7b"]["G-Pass@16-1.0"]["AIME2025"] == 0.5
    assert document["bounds"]["model-7b"]["G-Pass@16-1.0"]["AIME2025"] == [0.5, 80.0]
    assert document["incomplete"] == [
        {"model": "model-7b", "benchmark": "AIME2025", "results": str(path), "unresolved": 45, "generations": 48}
    ]

    page = (out / "b.html").read_text(encoding="utf-8")
    assert (
        '<td class="incomplete" data-value="0.5" title="incomplete run; 0.5 if every unresolved generation '
        'is wrong, 80.0 if right">0.5*</td>' in page
    )
    assert "45 of 48 generations unresolved" in page


def test_a_legacy_incomplete_run_allowed_keeps_its_values_marked_without_bounds(tmp_path, capsys):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED])
    path = make_run_incomplete(outputs, OLD, SAMPLED, schema=1)
    assert main(["leaderboard", str(outputs), "--allow-unresolved"]) == 0
    markdown = capsys.readouterr().out
    value = read_results(path)["mG-Pass@16"]
    assert f"| {value:.1f}\\* |" in markdown
    assert "mG-Pass@16 unknown" in markdown


@pytest.mark.parametrize(
    "change, message",
    [
        ({"unresolved": "many"}, "unresolved = 'many': input should be a valid integer"),
        ({"gpassk": {"complete": "no"}}, "gpassk.complete = 'no': input should be a valid boolean"),
    ],
)
def test_a_malformed_completeness_record_skips_the_file(tmp_path, change, message):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED, OTHER])
    path = results_path(outputs, OLD, SAMPLED)
    results = read_results(path)
    for key, value in change.items():
        results[key] = {**results[key], **value} if isinstance(value, dict) else value
    write_results(outputs / OLD, SAMPLED.model_abbr, SAMPLED.dataset_abbr, results)
    collection = collect_runs([outputs])
    assert [run.display_name for run in collection.runs] == ["other-1b"]
    assert any(message in notice.message and str(path) in notice.message for notice in collection.notices)


def test_an_interrupted_write_leaves_the_previous_board_and_plots_intact(tmp_path, monkeypatch, capsys):
    outputs = tmp_path / "outputs"
    write_run(outputs, OLD, [SAMPLED, GREEDY])
    board = tmp_path / "board.md"
    board.write_text("the previous board\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    assert main(["leaderboard", str(outputs), "-o", str(board)]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.endswith("gpassk leaderboard: interrupted\n")
    assert board.read_text() == "the previous board\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["board.md", "outputs"]  # no temporary left
    assert main(["leaderboard", str(outputs), "--plots", str(tmp_path / "plots")]) == EXIT_INTERRUPTED
    assert list((tmp_path / "plots").iterdir()) == []  # no half-written PNG
