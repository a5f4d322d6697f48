"""The HTML leaderboard in a real headless Chromium: offline, tables right, chart drawn, sorting works."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from cdp_browser import Chromium, chromium_path
from gpassk_opencompass.cli import main
from gpassk_opencompass.render.html import render_html
from gpassk_opencompass.render.plots import PALETTE
from leaderboard_rows import RankingInfo, board, row
from leaderboard_workdirs import Spec, read_results, standard_grid, write_run

TS = "20250213_101500"
SAMPLED = ("G-Pass@16_0.5", "G-Pass@16_0.75", "G-Pass@16_1.0", "mG-Pass@16")

#: A real headless Chromium drives the page: end to end, and skipped where Chromium is missing.
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        chromium_path() is None, reason="needs chromium (Debian/Ubuntu: apt-get install chromium; CI installs it)"
    ),
]

TABLE_JS = """
[...document.querySelectorAll('section.benchmark')].filter(s => s.offsetParent !== null).map(s => ({
  benchmark: s.dataset.benchmark,
  header: [...s.querySelectorAll('thead th')].map(th => th.textContent.trim()),
  rows: [...s.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent.trim())),
}))
"""

CHART_JS = """
(() => {
  const section = [...document.querySelectorAll('section.benchmark')].find(s => s.offsetParent !== null);
  const chart = section.dataset.chart;
  return [...section.querySelectorAll('tbody tr')].map(tr => {
    const line = document.getElementById(chart + '-series-' + tr.dataset.series + '-line');
    if (!line) return {model: tr.dataset.model, line: null};
    const path = line.querySelector('path');
    const box = path.getBoundingClientRect();
    return {
      model: tr.dataset.model, line: line.id,
      stroke: getComputedStyle(path).stroke,
      swatch: getComputedStyle(tr.querySelector('.swatch')).backgroundColor,
      width: box.width, height: box.height,
      points: [...line.querySelectorAll('use')].map(u => {
        const b = u.getBoundingClientRect();
        return [b.x + b.width / 2, b.y + b.height / 2];
      }),
    };
  });
})()
"""

TAUS = (0.0, 0.25, 0.5, 0.75, 1.0)


def rgb(hex_colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)))


def expected_curves(run_dir: Path, benchmark: str) -> dict[str, list[float]]:
    """{model: [G-Pass@16_τ for τ in TAUS]} straight from the sampled runs' results files."""
    return {
        Path(spec.model_path).name: [
            read_results(run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json")[f"G-Pass@16_{tau}"]
            for tau in TAUS
        ]
        for spec in standard_grid()
        if spec.benchmark == benchmark and not spec.greedy
    }


def assert_affine(xs: list[float], ys: list[float], tolerance: float = 1.0) -> float:
    """ys = a + b xs within ``tolerance`` pixels (least squares over every point); returns b."""
    slope, intercept = np.polyfit(xs, ys, 1)
    assert max(abs(intercept + slope * x - y) for x, y in zip(xs, ys)) < tolerance
    return slope


def expected_rows(run_dir: Path, benchmark: str) -> dict[str, list[float]]:
    """{model: [Greedy, G-Pass@16_0.5, ..., mG-Pass@16]} straight from the results files."""
    rows: dict[str, list] = {}
    for spec in standard_grid():
        if spec.benchmark != benchmark:
            continue
        results = read_results(run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json")
        row = rows.setdefault(Path(spec.model_path).name, [None] * 5)
        if spec.greedy:
            row[0] = results["accuracy"]
        else:
            row[1:] = [results[key] for key in SAMPLED]
    return rows


def test_the_page_in_headless_chromium(tmp_path):
    run_dir = write_run(tmp_path / "outputs", TS, standard_grid())
    page_path = tmp_path / "board.html"
    assert main(["leaderboard", str(tmp_path / "outputs"), "-o", str(page_path), "--ci"]) == 0

    with Chromium() as browser:
        page = browser.new_page(1200, 900)
        page.navigate(page_path.as_uri())

        # self-contained: the page itself is the only thing ever requested
        assert page.requested_urls() == [page_path.as_uri()]
        assert page.console_errors() == []
        assert page.evaluate("document.documentElement.classList.contains('js')")

        # the first benchmark is shown, in the seed README's layout, with the results' numbers
        (table,) = page.evaluate(TABLE_JS)
        assert table["benchmark"] == "LiveMathBench-202412"
        assert table["header"] == [
            "LLMs",
            "Greedy",
            "G-Pass@16_0.5",
            "G-Pass@16_0.75",
            "G-Pass@16_1.0",
            "mG-Pass@16",
            "Cut",
            "Measured",
        ]
        expected = expected_rows(run_dir, "LiveMathBench-202412")
        assert [row[0] for row in table["rows"]] == sorted(expected, key=lambda m: expected[m][-1])
        for model, *cells, cut, measured in table["rows"]:
            assert cells == [f"{value:.1f}" for value in expected[model]]
            # what each row measured: the fixtures' results predate the cut counts; a pilot: 24 questions of 238
            assert (cut, measured) == ("-", "pilot: 24 of 238 questions, n = 32, rule judge ‡")

        # the chart drew (matplotlib's SVG): a visible line per model, in its row's colour, through
        # markers placed by the results' values: x affine in τ, y affine in the value, higher is up
        series = page.evaluate(CHART_JS)
        curves = expected_curves(run_dir, "LiveMathBench-202412")
        assert sorted(s["model"] for s in series) == sorted(curves)
        xs, taus, ys, values = [], [], [], []
        for line in series:
            assert line["width"] > 100 and line["height"] > 10
            assert line["stroke"] == line["swatch"] and line["stroke"] in {rgb(colour) for colour in PALETTE}
            assert len(line["points"]) == len(TAUS)
            for (x, y), tau, value in zip(line["points"], TAUS, curves[line["model"]]):
                xs.append(x), taus.append(tau), ys.append(y), values.append(value)
        assert assert_affine(taus, xs) > 100  # τ to the right
        assert assert_affine(values, ys) < -1  # higher values up

        # sorting: a real click on a header, twice
        page.click("section.benchmark.active th:nth-child(2) button")  # Greedy
        (table,) = page.evaluate(TABLE_JS)
        greedy = [expected[row[0]][0] for row in table["rows"]]
        assert greedy == sorted(greedy, reverse=True)
        assert (
            page.evaluate(
                "document.querySelector('section.benchmark.active th:nth-child(2)').getAttribute('aria-sort')"
            )
            == "descending"
        )
        page.click("section.benchmark.active th:nth-child(2) button")
        (table,) = page.evaluate(TABLE_JS)
        assert [expected[row[0]][0] for row in table["rows"]] == sorted(greedy)
        page.click("section.benchmark.active th:nth-child(1) button")  # LLMs: by name
        (table,) = page.evaluate(TABLE_JS)
        assert [row[0] for row in table["rows"]] == sorted(expected)

        # hovering a row highlights its line and legend entry and dims the other lines
        page.evaluate(
            "document.querySelector('section.benchmark.active tbody tr[data-model=\"middle-7b\"]')"
            ".dispatchEvent(new MouseEvent('mouseenter'))"
        )
        middle = next(line["line"] for line in series if line["model"] == "middle-7b")
        highlighted = page.evaluate(
            "[...document.querySelectorAll('section.benchmark.active svg .highlight')].map(g => g.id)"
        )
        assert middle in highlighted
        assert sorted(highlighted) == sorted(middle.replace("-line", f"-{part}") for part in ("line", "key", "label"))
        opacity = page.evaluate(
            "Object.fromEntries([...document.querySelectorAll("
            "'section.benchmark.active svg g[id$=\"-line\"]')]"
            ".map(g => [g.id, getComputedStyle(g).opacity]))"
        )
        assert opacity == {line["line"]: "1" if line["line"] == middle else "0.15" for line in series}
        assert page.evaluate(f"getComputedStyle(document.querySelector('#{middle} path')).strokeWidth") == "3.5px"
        page.evaluate(
            "document.querySelector('section.benchmark.active tbody tr[data-model=\"middle-7b\"]')"
            ".dispatchEvent(new MouseEvent('mouseleave'))"
        )
        assert page.evaluate("document.querySelectorAll('section.benchmark.active svg .highlight').length") == 0

        # the switcher: click AIME2025
        page.click(".switcher button[data-benchmark='AIME2025']")
        (table,) = page.evaluate(TABLE_JS)
        assert table["benchmark"] == "AIME2025"
        aime = expected_rows(run_dir, "AIME2025")
        assert {row[0]: row[1:-2] for row in table["rows"]} == {
            model: [f"{value:.1f}" for value in values] for model, values in aime.items()
        }
        assert page.evaluate("location.hash") == "#AIME2025"
        assert (
            page.evaluate(
                "document.querySelector(\".switcher button[data-benchmark='AIME2025']\").getAttribute('aria-selected')"
            )
            == "true"
        )

        shot = page.screenshot(tmp_path / "leaderboard.png")
    pixels = imread(shot)
    assert pixels.shape[1] > 1150 and pixels.shape[0] > 600  # the viewport, less a scrollbar
    colours = {tuple(int(PALETTE[i][j : j + 2], 16) / 255 for j in (1, 3, 5)) for i in range(3)}
    drawn = sum((abs(pixels[..., :3] - colour).sum(axis=-1) < 0.05).sum() for colour in colours)
    assert drawn > 500  # the three lines' colours are on screen


def test_a_deep_link_opens_its_benchmark_and_the_comparison_shows(tmp_path):
    write_run(
        tmp_path / "outputs",
        TS,
        [
            Spec("Qwen/Qwen2.5-7B-Instruct", "AIME2025", 0.7, 32, (16,), 0.6),
            Spec("Qwen/Qwen2.5-7B-Instruct", "AIME2025", 0.0, 1, (1,), 0.6),
            Spec("acme/m", "MATH500-L5", 0.7, 32, (16,), 0.5),
        ],
    )
    page_path = tmp_path / "board.html"
    assert main(["leaderboard", str(tmp_path / "outputs"), "-o", str(page_path), "--compare-published"]) == 0
    with Chromium() as browser:
        page = browser.new_page(1200, 900)
        page.navigate(page_path.as_uri() + "#AIME2025")
        (table,) = page.evaluate(TABLE_JS)
        assert table["benchmark"] == "AIME2025"
        assert table["header"][:3] == ["LLMs", "Greedy", "Δ"]
        flagged = page.evaluate(
            "[...document.querySelectorAll('section.benchmark.active td.delta.flagged')].map(td => td.textContent)"
        )
        assert flagged and all(text.endswith("⚠") for text in flagged)
        assert page.evaluate("document.querySelector('section.benchmark.active td.delta').title") == "published 6.7"
        assert page.console_errors() == []


def test_hostile_names_ranks_and_order_marks_in_the_browser(tmp_path):
    hostile = ["<script>window.injected = 1; alert(1)</script>", '"onmouseover=window.injected=2 x="']
    rows = [
        row(
            hostile[0],
            [50.0, 60.0, 50.0, 40.0, 45.0],
            rank=1,
            rank_interval=(1, 2),
            order_uncertain=True,
            curve_intervals=((0.5, 40.0, 60.0), (1.0, 30.0, 50.0)),
        ),
        row(hostile[1], [48.0, 58.0, 48.0, 39.0, 44.0], rank=2, rank_interval=(1, 3)),
        row("plain", [10.0, 20.0, 10.0, 5.0, 8.0], rank=3, rank_interval=(2, 3)),
    ]
    ranking = RankingInfo(metric="mG-Pass@16", level=0.95, correction="holm", resamples=1000, seed=1)
    page_path = tmp_path / "board.html"
    page_path.write_text(render_html(board(rows, ranking=ranking)), encoding="utf-8")
    with Chromium() as browser:
        page = browser.new_page(1200, 900)
        page.navigate(page_path.as_uri())
        # hover and click everything: an injected handler would run now
        page.evaluate(
            "document.querySelectorAll('body *').forEach(e => ['mouseover', 'mouseenter', 'click']"
            ".forEach(kind => e.dispatchEvent(new MouseEvent(kind, {bubbles: true}))))"
        )
        assert page.evaluate("window.injected === undefined && document.scripts.length === 1")
        assert (
            page.evaluate(
                "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes])"
                ".filter(a => a.name.startsWith('on')).length"
            )
            == 0
        )
        assert not [event for event in browser.events if event["method"] == "Page.javascriptDialogOpening"]
        assert page.console_errors() == []
        assert page.evaluate("[...document.querySelectorAll('tbody th')].map(th => th.dataset.sort)") == [
            *hostile,
            "plain",
        ]
        legend = page.evaluate("[...document.querySelectorAll('svg [id$=\"-label\"] text')].map(t => t.textContent)")
        assert sorted(legend) == sorted([*hostile, "plain"])

        # the rank column, and the mark between the first two rows while the order is the ranking's
        page.navigate(page_path.as_uri())  # fresh, unsorted
        (table,) = page.evaluate(TABLE_JS)
        assert table["header"][:2] == ["Rank", "LLMs"]
        assert [cells[0] for cells in table["rows"]] == ["1[1, 2]", "2[1, 3]", "3[2, 3]"]
        visible = "[...document.querySelectorAll('.order-mark')].filter(m => m.offsetParent !== null).length"
        assert page.evaluate(visible) == 1
        page.click("section.benchmark.active th:nth-child(2) button")  # by name: the marks no longer apply
        assert page.evaluate(visible) == 0
        page.click("section.benchmark.active th:nth-child(1) button")  # by rank, descending
        page.click("section.benchmark.active th:nth-child(1) button")  # ascending: the ranking's order again
        (table,) = page.evaluate(TABLE_JS)
        assert [cells[0] for cells in table["rows"]] == ["1[1, 2]", "2[1, 3]", "3[2, 3]"]
        assert page.evaluate(visible) == 1


def test_rows_link_to_their_runs_in_an_explorer_export(tmp_path):
    """``--explorer DIR``: each row's label links to its sampled run (a greedy-only row to its greedy run) and the
    Greedy cell to the greedy run, at ``DIR/index.html#/run/RID`` relative to the page (RID computed here)."""
    run_dir = write_run(tmp_path / "outputs", TS, standard_grid())
    explorer = tmp_path / "site" / "explorer"
    explorer.mkdir(parents=True)
    (explorer / "index.html").write_text("<!DOCTYPE html><title>explorer</title>", encoding="utf-8")
    page_path = tmp_path / "site" / "board.html"
    assert main(["leaderboard", str(tmp_path / "outputs"), "-o", str(page_path), "--explorer", str(explorer)]) == 0

    def rid(spec: Spec) -> str:
        path = run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]

    wanted = {
        Path(spec.model_path).name: (rid(spec), rid(greedy))
        for spec in standard_grid()
        for greedy in standard_grid()
        if spec.benchmark == "LiveMathBench-202412" == greedy.benchmark
        and spec.model_path == greedy.model_path
        and not spec.greedy
        and greedy.greedy
    }
    with Chromium() as browser:
        page = browser.new_page(1200, 900)
        page.navigate(page_path.as_uri())
        links = page.evaluate(
            "[...document.querySelectorAll('section.benchmark.active tbody tr')].map(tr => [tr.dataset.model,"
            " tr.querySelector('th a.run').getAttribute('href'), tr.querySelector('td a').getAttribute('href')])"
        )
        assert {model: (label, greedy) for model, label, greedy in links} == {
            model: (f"./explorer/index.html#/run/{sampled}", f"./explorer/index.html#/run/{greedy}")
            for model, (sampled, greedy) in wanted.items()
        }
        page.click("section.benchmark.active tbody th a.run")
        browser.wait_for_event("Page.loadEventFired", page.session)
        first = links[0][1].removeprefix("./explorer/")
        assert page.evaluate("location.href") == (explorer / "index.html").as_uri() + first.removeprefix("index.html")
        assert page.evaluate("document.title") == "explorer"


def test_explorer_needs_a_page_and_links_nothing_without_it(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, standard_grid())
    assert main(["leaderboard", str(tmp_path / "outputs"), "--explorer", "site/explorer"]) == 2
    assert "--explorer 'site/explorer' links the rows of an HTML page; add -o board.html" in capsys.readouterr().err
    page_path = tmp_path / "board.html"
    assert main(["leaderboard", str(tmp_path / "outputs"), "-o", str(page_path)]) == 0
    assert "#/run/" not in page_path.read_text(encoding="utf-8")
