"""Runs → tables → Markdown / CSV / JSON: every number traced back to a results file."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard import (
    Interval,
    RunResult,
    build_leaderboard,
    collect_runs,
    compare_with_published,
    load_published,
    render_csv,
    render_json,
    render_markdown,
)
from leaderboard_workdirs import Spec, read_results, set_written, standard_grid, write_results, write_run

TS = "20250213_101500"
SAMPLED = ("G-Pass@16_0.5", "G-Pass@16_0.75", "G-Pass@16_1.0", "mG-Pass@16")
JSON_NAMES = dict(zip(SAMPLED, ("G-Pass@16-0.5", "G-Pass@16-0.75", "G-Pass@16-1.0", "mG-Pass@16")))


def parse_markdown(text: str) -> dict[str, list[list[str]]]:
    """{benchmark: [[model, cell, ...], ...]} from rendered Markdown, in row order; the last two columns (Cut,
    Measured: what each row measured) left out."""
    tables, benchmark = {}, None
    for line in text.splitlines():
        heading = re.fullmatch(r"### \*(.+)\*", line)
        if heading:
            benchmark = heading.group(1)
            tables[benchmark] = []
        elif line.startswith("| ") and not line.startswith("| LLMs"):
            tables[benchmark].append([cell.strip() for cell in line.strip("|").split(" | ")][:-2])
    return tables


def selection_notices(board) -> list:
    """The notices of choosing runs (not the composition warnings: the fixtures hold fewer questions than published)."""
    return [notice for notice in board.notices if "the published column has" not in notice.message]


def expected_values(run_dir: Path, specs: list[Spec]) -> dict[tuple[str, str], dict[str, float]]:
    """{(benchmark, model): {column: value}} read straight from the results files."""
    expected: dict = {}
    for spec in specs:
        results = read_results(run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json")
        row = expected.setdefault((spec.benchmark, Path(spec.model_path).name), {})
        if spec.greedy:
            row["Greedy"] = results["accuracy"]
        else:
            row.update({key: results[key] for key in SAMPLED})
    return expected


@pytest.fixture
def grid(tmp_path):
    specs = standard_grid()
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    return run_dir, specs, collect_runs([tmp_path / "outputs"])


def test_markdown_numbers_are_the_results_files_rounded(grid):
    run_dir, specs, collection = grid
    board = build_leaderboard(collection.runs)
    tables = parse_markdown(render_markdown(board))
    assert list(tables) == ["LiveMathBench-202412", "AIME2025"]  # canonical order
    expected = expected_values(run_dir, specs)
    for benchmark, rows in tables.items():
        assert len(rows) == 3
        for model, greedy, *sampled in rows:
            values = expected[(benchmark, model)]
            assert greedy == f"{values['Greedy']:.1f}"
            assert sampled == [f"{values[key]:.1f}" for key in SAMPLED]
        mg = [expected[(benchmark, row[0])]["mG-Pass@16"] for row in rows]
        assert mg == sorted(mg)  # ascending, as the seed README's tables
        assert [row[0] for row in rows] == ["weak-1b", "middle-7b", "strong-math-7b"]


def test_csv_and_json_carry_the_exact_values(grid):
    run_dir, specs, collection = grid
    board = build_leaderboard(collection.runs)
    expected = expected_values(run_dir, specs)
    records = list(csv.DictReader(io.StringIO(render_csv(board))))
    assert len(records) == 6
    for record in records:
        values = expected[(record["benchmark"], record["model"])]
        assert float(record["Greedy"]) == values["Greedy"]
        assert all(float(record[key]) == values[key] for key in SAMPLED)
    shaped = json.loads(render_json(board))
    assert set(shaped) == {"weak-1b", "middle-7b", "strong-math-7b"}
    for (benchmark, model), values in expected.items():
        assert shaped[model]["Greedy"][benchmark] == values["Greedy"]
        for key in SAMPLED:
            assert shaped[model][JSON_NAMES[key]][benchmark] == values[key]


def test_the_newest_run_wins_and_both_are_named(tmp_path):
    old = Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.2, seed=1)
    new = Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.8, seed=2)
    old_dir = write_run(tmp_path / "outputs", "20250101_000000", [old])
    new_dir = write_run(tmp_path / "outputs", "20250102_000000", [new])
    old_path = old_dir / "results" / old.model_abbr / f"{old.dataset_abbr}.json"
    new_path = new_dir / "results" / new.model_abbr / f"{new.dataset_abbr}.json"
    set_written(old_path, 2_000_000_000)  # written last, though its folder looks older
    set_written(new_path, 1_000_000_000)
    board = build_leaderboard(collect_runs([tmp_path]).runs)
    (row,) = board.tables[0].rows
    assert row.cells["mG-Pass@16"].value == read_results(old_path)["mG-Pass@16"]
    assert row.sources == (old_path,)
    (notice,) = selection_notices(board)
    assert "ran more than once" in notice.message
    assert f"using the newest, {old_path}, over {new_path}" in notice.message


def test_a_display_name_shared_by_two_models_is_called_out(tmp_path):
    write_run(tmp_path / "a", TS, [Spec("org-a/Model-7B", "AIME2025", 0.7, 32, (16,), 0.3)])
    write_run(tmp_path / "b", TS, [Spec("org-b/Model-7B", "AIME2025", 0.7, 32, (16,), 0.6)])
    board = build_leaderboard(collect_runs([tmp_path]).runs)
    assert len(board.tables[0].rows) == 1
    (notice,) = selection_notices(board)
    assert "different models share this display name: org-a/Model-7B, org-b/Model-7B" in notice.message


def test_a_run_with_another_k_is_left_out_and_the_table_stays(tmp_path):
    specs = standard_grid()[:4]  # strong (sampled + greedy) and middle on LiveMathBench-202412 ...
    other_k = Spec("acme/other-k", "LiveMathBench-202412", 0.7, 8, (4, 8), 0.5)
    greedy_only = Spec("acme/other-k", "LiveMathBench-202412", 0.0, 1, (1,), 0.5)
    write_run(tmp_path / "outputs", TS, [*specs, other_k, greedy_only])
    board = build_leaderboard(collect_runs([tmp_path]).runs, k=16)
    rows = {row.label: row for row in board.tables[0].rows}
    assert set(rows) == {"strong-math-7b", "other-k"}
    assert rows["other-k"].cells["Greedy"].value is not None
    assert all(rows["other-k"].cells[key].value is None for key in SAMPLED)
    assert board.tables[0].rows[-1].label == "other-k"  # no mG-Pass@16: last
    assert any("scored at k = [4, 8], not 16" in n.message and "--k" in n.message for n in board.notices)
    tables = parse_markdown(render_markdown(board))
    assert tables["LiveMathBench-202412"][-1][2:] == ["-", "-", "-", "-"]


def test_several_temperatures_make_labelled_rows(tmp_path):
    specs = [
        Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.5, seed=1),
        Spec("acme/m", "AIME2025", 1.0, 32, (16,), 0.4, seed=2),
        Spec("acme/m", "AIME2025", 0.0, 1, (1,), 0.5, seed=3),
    ]
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    runs = collect_runs([tmp_path]).runs
    board = build_leaderboard(runs)
    labels = sorted(row.label for row in board.tables[0].rows)
    assert labels == ["m (T=0.7)", "m (T=1)"]
    greedy = read_results(run_dir / "results" / specs[2].model_abbr / f"{specs[2].dataset_abbr}.json")
    assert {row.cells["Greedy"].value for row in board.tables[0].rows} == {greedy["accuracy"]}
    only = build_leaderboard(runs, temperature=1.0)
    assert [row.label for row in only.tables[0].rows] == ["m"]
    assert only.tables[0].rows[0].temperature == 1.0


def test_benchmark_selection(grid):
    _, _, collection = grid
    board = build_leaderboard(collection.runs, benchmarks=["AIME2025"])
    assert [table.benchmark for table in board.tables] == ["AIME2025"]
    assert build_leaderboard(collection.runs, benchmarks=["MATH500-L5"]).tables == ()
    assert [table.benchmark for table in build_leaderboard(collection.runs, benchmarks=["aime-2025"]).tables] == [
        "AIME2025"
    ]
    with pytest.raises(InputError, match="unknown benchmark 'AIME-2O25'; did you mean 'AIME2025'"):
        build_leaderboard(collection.runs, benchmarks=["AIME-2O25"])


@pytest.mark.parametrize(
    "k, thresholds, message",
    [
        (0, (0.5,), "k must be a positive integer, got 0"),
        (16, (0.5, 1.5), "τ must lie in \\[0, 1\\], got 1.5"),
    ],
)
def test_bad_columns(k, thresholds, message):
    with pytest.raises(InputError, match=message):
        build_leaderboard([], k=k, thresholds=thresholds)


def test_a_missing_metric_is_a_dash_and_a_notice(tmp_path):
    spec = Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.5)
    run_dir = write_run(tmp_path / "outputs", TS, [spec])
    path = run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"
    results = read_results(path)
    del results["G-Pass@16_0.75"]
    write_results(run_dir, spec.model_abbr, spec.dataset_abbr, results)
    board = build_leaderboard(collect_runs([tmp_path]).runs)
    row = board.tables[0].rows[0]
    assert row.cells["G-Pass@16_0.75"].value is None
    assert row.cells["mG-Pass@16"].value == results["mG-Pass@16"]
    assert any("has no 'G-Pass@16_0.75'" in n.message for n in board.notices)
    assert [tau for tau, _ in row.curve] == [0.0, 0.25, 0.5, 1.0]


def test_intervals_from_the_results_block(tmp_path):
    spec = Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.5)
    run_dir = write_run(tmp_path / "outputs", TS, [spec])
    results = read_results(run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json")
    mg = results["mG-Pass@16"]
    results["gpassk"]["uncertainty"] = {
        "mG-Pass@16": {"mean": mg, "stderr": 1.5, "ci_low": mg - 3.04, "ci_high": mg + 2.96, "ci": 0.95}
    }
    write_results(run_dir, spec.model_abbr, spec.dataset_abbr, results)
    board = build_leaderboard(collect_runs([tmp_path]).runs)
    cell = board.tables[0].rows[0].cells["mG-Pass@16"]
    assert cell.interval == Interval(mean=mg, stderr=1.5, low=mg - 3.04, high=mg + 2.96, level=0.95)
    rows = parse_markdown(render_markdown(board, intervals=True))["AIME2025"]
    assert rows[0][-1] == f"{mg:.1f} [{mg - 3.04:.1f}, {mg + 2.96:.1f}]"
    assert rows[0][-2] == f"{results['G-Pass@16_1.0']:.1f}"  # no interval recorded: value alone
    record = next(csv.DictReader(io.StringIO(render_csv(board, intervals=True))))
    assert float(record["mG-Pass@16 ci_low"]) == mg - 3.04 and record["Greedy ci_low"] == ""
    document = json.loads(render_json(board, intervals=True))
    assert document["intervals"]["m"]["mG-Pass@16"]["AIME2025"] == [mg - 3.04, mg + 2.96]
    assert document["leaderboard"]["m"]["mG-Pass@16"]["AIME2025"] == mg


def test_comparison_with_the_published_figures(tmp_path):
    specs = [
        Spec("Qwen/Qwen2.5-7B-Instruct", "LiveMathBench-202412", 0.7, 32, (16,), 0.4),
        Spec("Qwen/Qwen2.5-7B-Instruct", "LiveMathBench-202412", 0.0, 1, (1,), 0.37),
        Spec("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "LiveMathBench-202505", 0.7, 32, (16,), 0.5),
        Spec("acme/unpublished", "LiveMathBench-202412", 0.7, 32, (16,), 0.3),
    ]
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    ours = read_results(run_dir / "results" / specs[0].model_abbr / f"{specs[0].dataset_abbr}.json")
    greedy = read_results(run_dir / "results" / specs[1].model_abbr / f"{specs[1].dataset_abbr}.json")
    board = compare_with_published(build_leaderboard(collect_runs([tmp_path]).runs), load_published(), tolerance=1.0)
    row = next(row for row in board.tables[0].rows if row.model == "Qwen2.5-7B-Instruct")
    published = {
        "Greedy": 37.0,
        "G-Pass@16_0.5": 36.5,
        "G-Pass@16_0.75": 27.2,
        "G-Pass@16_1.0": 16.0,
        "mG-Pass@16": 25.8,
    }  # the README's LiveMathBench-202412 row, by hand
    ours_values = {"Greedy": greedy["accuracy"], **{key: ours[key] for key in SAMPLED}}
    for column, value in published.items():
        cell = row.cells[column]
        assert cell.published == value
        assert cell.delta == pytest.approx(ours_values[column] - value, abs=1e-12)
        assert board.comparison.flagged(cell) is (abs(ours_values[column] - value) > 1.0)
    assert row.published_model == "Qwen2.5-7B-Instruct"
    found = [notice.message for notice in board.notices]
    assert any(m.startswith("unpublished is not among the published models") for m in found)
    assert "no published figures for LiveMathBench-202505" in found

    markdown = render_markdown(board)
    qwen = next(r for r in parse_markdown(markdown)["LiveMathBench-202412"] if r[0] == "Qwen2.5-7B-Instruct")
    for index, column in enumerate(published):
        delta = ours_values[column] - published[column]
        text = f"{delta:+.1f}" + (" ⚠" if abs(delta) > 1.0 else "")
        assert qwen[2 + 2 * index] == text.replace("-0.0", "+0.0")
    assert "⚠ marks |Δ| > 1." in markdown

    document = json.loads(render_json(board))
    assert document["published"]["Qwen2.5-7B-Instruct"]["mG-Pass@16"]["LiveMathBench-202412"] == 25.8
    flagged = {(f["model"], f["metric"]) for f in document["flagged"]}
    assert flagged == {
        ("Qwen2.5-7B-Instruct", JSON_NAMES.get(c, c)) for c in published if abs(ours_values[c] - published[c]) > 1.0
    }
    record = next(r for r in csv.DictReader(io.StringIO(render_csv(board))) if r["model"] == "Qwen2.5-7B-Instruct")
    assert float(record["mG-Pass@16 published"]) == 25.8
    assert record["mG-Pass@16 flagged"] == str(abs(ours["mG-Pass@16"] - 25.8) > 1.0).lower()


def test_negative_tolerance_is_refused():
    with pytest.raises(InputError, match="tolerance must be >= 0, got -1"):
        compare_with_published(build_leaderboard([]), load_published(), tolerance=-1)


# --- properties over arbitrary runs -------------------------------------------------------

BENCHMARKS = ("AIME2025", "MATH500-L5", "LiveMathBench-202412")
MODELS = ("a", "b", "c", "d")
metric = st.one_of(st.none(), st.floats(0, 100, allow_nan=False))


@st.composite
def runs(draw):
    drawn = []
    for index in range(draw(st.integers(0, 14))):
        greedy = draw(st.booleans())
        ks = (1,) if greedy else draw(st.sampled_from([(16,), (4, 8)]))
        values = {} if greedy else {key.replace("@16", f"@{max(ks)}"): draw(metric) for key in SAMPLED}
        if greedy:
            values["accuracy"] = draw(metric)
        drawn.append(
            RunResult(
                results_path=Path(f"r{index}.json"),
                model_abbr=f"m{index}",
                dataset_abbr=f"d{index}",
                display_name=draw(st.sampled_from(MODELS)),
                benchmark=draw(st.sampled_from(BENCHMARKS)),
                greedy=greedy,
                n=1 if greedy else 32,
                k=ks,
                temperature=0.0 if greedy else draw(st.sampled_from([0.7, 1.0])),
                metrics={key: value for key, value in values.items() if value is not None},
                written=draw(st.integers(0, 5)),
            )
        )
    return drawn


@settings(max_examples=150, deadline=None)
@given(runs())
def test_properties_of_any_leaderboard(drawn):
    board = build_leaderboard(drawn)  # k chosen from the runs
    sampled_ks = [run.k for run in drawn if not run.greedy]
    if sampled_ks:  # the k most sampled runs have, the largest among equals
        tally = {k: sum(k in ks for ks in sampled_ks) for ks in sampled_ks for k in ks}
        assert (tally[board.k], board.k) == max((count, k) for k, count in tally.items())
    mg_label = f"mG-Pass@{board.k}"
    for table in board.tables:
        mg = [row.cells[mg_label].value for row in table.rows]
        present = [value for value in mg if value is not None]
        assert present == sorted(present) and mg[: len(present)] == present  # ascending, missing last
        assert len({row.label for row in table.rows}) == len(table.rows)
        for row in table.rows:
            sampled = [
                run
                for run in drawn
                if run.benchmark == table.benchmark
                and not run.greedy
                and run.display_name == row.model
                and board.k in run.k
                and (row.temperature is None or run.temperature == row.temperature)
            ]
            if sampled and row.cells[mg_label].value is not None:
                newest = max(run.written for run in sampled)
                source = next(run for run in drawn if run.results_path == row.sources[0])
                assert source.written == newest  # the newest of its group
    shaped = json.loads(render_json(board))
    cells = sum(
        1 for table in board.tables for row in table.rows for cell in row.cells.values() if cell.value is not None
    )
    assert sum(len(by_benchmark) for metrics in shaped.values() for by_benchmark in metrics.values()) == cells
    for table in board.tables:
        for row in table.rows:
            for column in board.columns:
                value = row.cells[column.label].value
                if value is not None:
                    assert math.isclose(shaped[row.label][column.json_name][table.benchmark], value)
    parsed = parse_markdown(render_markdown(board))
    assert [len(rows) for rows in parsed.values()] == [len(table.rows) for table in board.tables]


@pytest.mark.parametrize(
    "manifest, message",
    [
        (
            dict(display_name="m", benchmark="AIME2025", k=[1], n=0),
            "the manifest's n must be a positive integer, got 0",
        ),
        (
            dict(display_name="m", benchmark="AIME2025", k=[0], n=1),
            "the manifest's k must be a positive integer or a list of them, got [0]",
        ),
        (
            dict(display_name="m", benchmark="AIME2025", k=[1], n=1, temperature="hot"),
            "the manifest's temperature must be a finite number, got 'hot'",
        ),
    ],
)
def test_a_malformed_record_is_an_unidentified_run_a_user_mistake(tmp_path, manifest, message):
    from gpassk_opencompass.leaderboard.identify import UnidentifiedRun, identify_run

    with pytest.raises(UnidentifiedRun) as error:
        identify_run(
            {"accuracy": 50.0, "gpassk": {}},
            None,
            None,
            manifest,
            results_path=tmp_path / "r.json",
            model_abbr="m",
            dataset_abbr="AIME2025",
        )
    assert str(error.value) == message and isinstance(error.value, InputError)
