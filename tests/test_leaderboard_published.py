"""The shipped published figures are the GPassK README's five tables, cell for cell.

Checked against tests/gpassk_readme_tables.md, a copy of those tables kept with the tests
(nothing outside the repository is read)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard import load_published

HERE = Path(__file__).resolve().parent
# An independent copy of the README tables, kept beside the tests (provenance in its header comment)
README_TABLES = HERE / "gpassk_readme_tables.md"
SHIPPED = HERE.parent / "gpassk_opencompass" / "data" / "published_leaderboard.json"
METRICS = ("Greedy", "G-Pass@16-0.5", "G-Pass@16-0.75", "G-Pass@16-1.0", "mG-Pass@16")
CATEGORY = re.compile(r"\[(general|math|o1-like)\]")


def readme_rows() -> list[tuple[str, str, str, tuple[float, ...]]]:
    """(benchmark, model, category, five values) per row of the README tables' copy."""
    rows, benchmark = [], None
    for line in README_TABLES.read_text(encoding="utf-8").splitlines():
        heading = re.fullmatch(r"### \*(.+)\*", line.strip())
        if heading:
            benchmark = heading.group(1)
            continue
        row = re.fullmatch(r"\|(\S+) \[([\w-]+)\]\|([\d.]+)\|([\d.]+)\|([\d.]+)\|([\d.]+)\|([\d.]+)\|", line.strip())
        if benchmark and row:
            rows.append((benchmark, row.group(1), row.group(2), tuple(map(float, row.groups()[2:]))))
    return rows


def seed_tables() -> dict[tuple[str, str, str], float]:
    """{(benchmark, model, metric): value} from the copy of the README's Markdown tables."""
    return {
        (benchmark, model, metric): value
        for benchmark, model, _, values in readme_rows()
        for metric, value in zip(METRICS, values)
    }


def test_every_seed_cell_is_shipped_and_nothing_else():
    seed = seed_tables()
    assert len(seed) == (18 + 15 + 13 + 14 + 17) * 5  # rows per table in the README, 5 metrics each
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))["leaderboard"]
    flat = {
        (benchmark, model, metric): value
        for model, metrics in shipped.items()
        for metric, by_benchmark in metrics.items()
        for benchmark, value in by_benchmark.items()
    }
    assert flat == seed


@pytest.mark.parametrize(
    "model, metric, benchmark, value",
    [
        # read off the README by eye, one or more per table
        ("Llama-3.1-8B-Instruct", "Greedy", "LiveMathBench-202412", 24.0),
        ("DeepSeek-R1", "mG-Pass@16", "LiveMathBench-202412", 77.6),
        ("OpenAI-o3-mini", "G-Pass@16-0.75", "LiveMathBench-202412", 78.8),
        ("Mistral-Large-Instruct-2411", "G-Pass@16-1.0", "LiveMathBench-202412", 32.9),
        ("OpenAI-o1-mini", "G-Pass@16-1.0", "LiveMathBench-Hard-202412", 0.5),
        ("DeepSeek-Distill-Llama-70B", "Greedy", "LiveMathBench-Hard-202412", 35.6),
        ("Qwen2.5-Math-7B-Instruct", "G-Pass@16-1.0", "MATH500-L5", 57.6),
        ("DeepSeek-Distill-Qwen-32B", "mG-Pass@16", "MATH500-L5", 81.9),
        ("Qwen2.5-72B-Instruct", "G-Pass@16-0.75", "AIME2024-45", 12.9),
        ("DeepSeek-Distill-Qwen-32B", "G-Pass@16-0.5", "AIME2024-45", 77.0),
        ("Llama-3.1-8B-Instruct", "G-Pass@16-0.5", "AIME2025", 8.9),
        ("Gemini-2.0-Flash-Exp", "mG-Pass@16", "AIME2025", 21.2),
        ("Qwen2.5-Math-72B-Instruct", "G-Pass@16-1.0", "AIME2025", 13.3),
    ],
)
def test_hand_read_cells(model, metric, benchmark, value):
    assert load_published().value(model, metric, benchmark) == value


def test_models_absent_from_a_table_have_no_value_there():
    published = load_published()
    assert published.value("Qwen2.5-72B-Instruct", "Greedy", "LiveMathBench-202412") is None
    assert published.value("Gemini-2.0-Flash-Exp", "Greedy", "MATH500-L5") is None
    assert published.value("Claude-3.5-Sonnet", "Greedy", "AIME2025") is None


def test_provenance_categories_and_aliases():
    published = load_published()
    assert "GPassK README" in published.source
    assert published.provenance["url"] == "https://github.com/open-compass/GPassK"
    assert "arXiv:2412.13147" in published.provenance["paper"]
    assert "2025-02-13" in published.source
    assert "copy" not in published.provenance  # no path outside the package: a citation
    assert published.categories == {model: category for _, model, category, _ in readme_rows()}
    assert published.categories["Qwen2.5-Math-72B-Instruct"] == "math"
    assert published.categories["DeepSeek-R1"] == "o1-like"
    assert published.categories["Claude-3.5-Sonnet"] == "general"
    assert set(published.categories) == set(published.values)
    assert set(published.aliases.values()) <= set(published.values)


def test_curve_bounds_hold_except_for_the_one_documented_cell():
    """Any G-Pass@16 curve has (G.75 + G1)/2 <= mG <= (3 G.5 + 5 G.75)/8 and G.5 >= G.75 >= G1;
    allowing for rounding to 0.1, the README breaks this once, as the provenance notes say."""
    published, broken = load_published(), []
    for model, metrics in published.values.items():
        for benchmark in metrics["mG-Pass@16"]:
            g5, g75, g1, mg = (metrics[m][benchmark] for m in METRICS[1:])
            if not (g5 + 0.1 >= g75 and g75 + 0.1 >= g1 and (g75 + g1) / 2 - 0.1 <= mg <= (3 * g5 + 5 * g75) / 8 + 0.1):
                broken.append((model, benchmark))
    assert broken == [("Qwen2.5-Math-7B-Instruct", "AIME2024-45")]
    assert any("Qwen2.5-Math-7B-Instruct on AIME2024-45" in note for note in published.provenance["notes"])


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
        ("internlm3-8b-instruct", "InternLM3-8B-Instruct"),
        ("DeepSeek-R1-Distill-Llama-70B", "DeepSeek-Distill-Llama-70B"),
        ("o3-mini", "OpenAI-o3-mini"),
        ("Qwen2.5-7B", None),
    ],
)
def test_match(name, expected):
    assert load_published().match(name) == expected


def test_a_bare_leaderboard_json_loads(tmp_path):
    path = tmp_path / "page.json"
    path.write_text(json.dumps({"M": {"Greedy": {"AIME2025": 12.5}}}))
    published = load_published(path)
    assert published.value("M", "Greedy", "AIME2025") == 12.5
    assert str(path) in published.source


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('{"M": {"Greedy": {"AIME2025": "high"}}}', "not in the shape"),
        ("[1, 2]", "not in the shape"),
    ],
)
def test_bad_published_files_are_named(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as error:
        load_published(path)
    assert "bad.json" in str(error.value)


def test_missing_published_file(tmp_path):
    with pytest.raises(InputError, match="cannot read published figures"):
        load_published(tmp_path / "nope.json")
