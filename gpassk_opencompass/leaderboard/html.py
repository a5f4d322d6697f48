"""Leaderboard → one self-contained HTML page. Pure.

No CDN, font, image or fetch: styles, the small script and the SVG charts are
inline, so the page works offline and from ``file://``.  Tables and charts are
rendered here, in Python; the script only adds the benchmark switcher, column
sorting and highlighting a model's line when its row is hovered.  Without
JavaScript every benchmark is simply shown one after another.

>>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row
>>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
>>> columns = leaderboard_columns(16)
>>> row = Row("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct",
...           {c.label: Cell(v) for c, v in zip(columns, [37.0, 36.5, 27.2, 16.0, 25.8])},
...           curve=((0.5, 36.5), (0.75, 27.2), (1.0, 16.0)))
>>> page = render_html(Leaderboard(16, columns, (BenchmarkTable("AIME2025", (row,)),)))
>>> page.startswith("<!DOCTYPE html>"), "<script src" in page, 'data-value="25.8"' in page
(True, False, True)
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

from gpassk_opencompass import __version__
from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard
from gpassk_opencompass.leaderboard.render import (
    INCOMPLETE,
    format_comparison,
    format_value,
    incomplete_footnotes,
)
from gpassk_opencompass.leaderboard.svg_chart import model_colors, threshold_chart

STYLE = """
:root { color-scheme: light; --accent: #1f5fa8; --muted: #666; --line: #ddd; --flag: #b3261e; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
       max-width: 1100px; padding: 24px; color: #1d1d1f; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 18px 0 8px; }
header p, .hint { color: var(--muted); margin: 0 0 8px; }
.switcher { display: flex; flex-wrap: wrap; gap: 6px; margin: 16px 0 4px; }
.switcher button { font: inherit; padding: 6px 12px; border: 1px solid var(--line); border-radius: 16px;
                   background: #f6f7f9; cursor: pointer; }
.switcher button[aria-selected="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
html:not(.js) .switcher { display: none; }
html.js section.benchmark:not(.active) { display: none; }
table.leaderboard { border-collapse: collapse; width: 100%; margin: 4px 0 12px; }
table.leaderboard th, table.leaderboard td { padding: 5px 10px; border-bottom: 1px solid var(--line);
                                             text-align: right; white-space: nowrap; }
table.leaderboard th:first-child, table.leaderboard tbody th { text-align: left; }
table.leaderboard thead th { position: sticky; top: 0; background: #fff; border-bottom: 2px solid #999; }
table.leaderboard thead button { font: inherit; font-weight: 600; border: 0; background: none; padding: 0;
                                 cursor: pointer; color: inherit; }
th[aria-sort="ascending"] button::after { content: " ▲"; font-size: 10px; }
th[aria-sort="descending"] button::after { content: " ▼"; font-size: 10px; }
table.leaderboard tbody tr:hover, table.leaderboard tbody tr.highlight { background: #eef4fb; }
tbody th { font-weight: 500; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
.ci { color: var(--muted); font-size: 12px; margin-left: 4px; }
td.delta { color: var(--muted); font-size: 12px; }
td.delta.flagged { color: var(--flag); font-weight: 600; }
td.missing { color: #aaa; }
td.incomplete { color: var(--flag); font-style: italic; }
.incomplete-notes { color: var(--flag); font-size: 12px; }
figure { margin: 8px 0 20px; }
figcaption { color: var(--muted); font-size: 12px; }
svg.chart { width: 100%; max-width: 760px; height: auto; font-size: 12px; }
svg.chart .grid { stroke: #eee; }
svg.chart .axis, svg.chart .tick { stroke: #888; }
svg.chart text { fill: #333; }
svg.chart g.series { transition: opacity 0.15s; }
svg.chart.focused g.series:not(.highlight) { opacity: 0.15; }
svg.chart g.series.highlight polyline { stroke-width: 3.5; }
.notes { margin-top: 24px; color: #444; }
.notes li { margin: 2px 0; word-break: break-word; }
footer { margin-top: 24px; color: var(--muted); font-size: 12px; }
"""

SCRIPT = """
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var tabs = Array.prototype.slice.call(document.querySelectorAll(".switcher button"));
  var panels = Array.prototype.slice.call(document.querySelectorAll("section.benchmark"));
  function show(name) {
    tabs.forEach(function (tab) { tab.setAttribute("aria-selected", String(tab.dataset.benchmark === name)); });
    panels.forEach(function (panel) { panel.classList.toggle("active", panel.dataset.benchmark === name); });
  }
  tabs.forEach(function (tab) {
    tab.addEventListener("click", function () {
      show(tab.dataset.benchmark);
      history.replaceState(null, "", "#" + encodeURIComponent(tab.dataset.benchmark));
    });
  });
  var wanted = decodeURIComponent(location.hash.slice(1));
  show(panels.some(function (p) { return p.dataset.benchmark === wanted; }) ? wanted
       : (panels.length ? panels[0].dataset.benchmark : ""));

  function cellKey(row, index, numeric) {
    var cell = row.children[index];
    if (!numeric) { return cell.textContent.trim().toLowerCase(); }
    var raw = cell.dataset.value;
    return raw === undefined || raw === "" ? null : parseFloat(raw);
  }
  function sortBy(header) {
    var table = header.closest("table");
    var index = Array.prototype.indexOf.call(header.parentNode.children, header);
    var numeric = header.dataset.type === "number";
    var direction = header.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
    if (!numeric && header.getAttribute("aria-sort") !== "ascending") { direction = "ascending"; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index, numeric), y = cellKey(b, index, numeric);
      if (x === null || y === null) { return (x === null) - (y === null); }  // missing last
      var order = x < y ? -1 : x > y ? 1 : 0;
      return direction === "ascending" ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(header.parentNode.children, function (th) {
      th.setAttribute("aria-sort", th === header ? direction : "none");
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.leaderboard thead th"), function (th) {
    th.querySelector("button").addEventListener("click", function () { sortBy(th); });
  });

  function focus(panel, model, on) {
    var svg = panel.querySelector("svg.chart");
    if (!svg) { return; }
    svg.classList.toggle("focused", on);
    Array.prototype.forEach.call(svg.querySelectorAll("g.series"), function (g) {
      g.classList.toggle("highlight", on && g.dataset.model === model);
    });
    Array.prototype.forEach.call(panel.querySelectorAll("tbody tr"), function (tr) {
      tr.classList.toggle("highlight", on && tr.dataset.model === model);
    });
  }
  panels.forEach(function (panel) {
    Array.prototype.forEach.call(panel.querySelectorAll("tbody tr, g.legend-entry"), function (el) {
      el.addEventListener("mouseenter", function () { focus(panel, el.dataset.model, true); });
      el.addEventListener("mouseleave", function () { focus(panel, el.dataset.model, false); });
    });
  });
})();
"""


def render_html(leaderboard: Leaderboard, *, intervals: bool = False,
                title: str = "LiveMathBench leaderboard") -> str:
    """The whole page: a switcher, then per benchmark a sortable table and a G-Pass@k_τ chart.

    Args:
        leaderboard: what to render.
        intervals: show ``[low, high]`` bootstrap intervals under the values.
        title: the page's heading.

    Returns:
        A complete HTML document.
    """
    colors = model_colors(leaderboard)
    last = leaderboard.columns[-1].label
    tabs = "\n".join(
        f'<button type="button" role="tab" data-benchmark="{escape(table.benchmark)}" '
        f'aria-controls="panel-{index}" aria-selected="{str(index == 0).lower()}">'
        f'{escape(table.benchmark)}</button>'
        for index, table in enumerate(leaderboard.tables))
    panels = "\n".join(_panel(leaderboard, table, index, colors, intervals)
                       for index, table in enumerate(leaderboard.tables))
    comparison = leaderboard.comparison
    compared = (f"<p>Δ = ours − published ({escape(comparison.source)}); flagged when "
                f"|Δ| &gt; {comparison.tolerance:g}.</p>") if comparison else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gpassk-opencompass {escape(__version__)}">
<title>{escape(title)} — G-Pass@{leaderboard.k}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{escape(title)}</h1>
<p>G-Pass@{leaderboard.k}<sub>τ</sub>, mG-Pass@{leaderboard.k} and greedy accuracy (%), one table per
benchmark, sorted by {escape(last)}. Click a column header to sort; hover a row to find its line.</p>
{compared}
</header>
<nav class="switcher" role="tablist" aria-label="Benchmark">
{tabs}
</nav>
<main>
{panels}
</main>
{_notes(leaderboard)}
<footer>Generated by gpassk-opencompass {escape(__version__)} (<code>gpassk leaderboard</code>).</footer>
<script>{SCRIPT}</script>
</body>
</html>
"""


def _panel(leaderboard: Leaderboard, table: BenchmarkTable, index: int, colors: dict[str, str],
           intervals: bool) -> str:
    comparison = leaderboard.comparison
    last = leaderboard.columns[-1].label
    headers = ['<th scope="col" data-type="text" aria-sort="none"><button type="button">LLMs</button></th>']
    for column in leaderboard.columns:
        sort = "ascending" if column.label == last else "none"
        headers.append(f'<th scope="col" data-type="number" aria-sort="{sort}">'
                       f'<button type="button">{escape(column.label)}</button></th>')
        if comparison:
            headers.append(f'<th scope="col" data-type="number" aria-sort="none" '
                           f'title="{escape(column.label)}: ours − published">'
                           f'<button type="button">Δ</button></th>')
    body = []
    for row in table.rows:
        cells = [f'<th scope="row"><span class="swatch" style="background:{colors[row.label]}"></span>'
                 f'{escape(row.label)}</th>']
        for column in leaderboard.columns:
            cell = row.cells[column.label]
            cells.append(_value_cell(cell, intervals))
            if comparison:
                flagged = " flagged" if comparison.flagged(cell) else ""
                published = ("not published" if cell.published is None
                             else f"published {format_value(cell.published)}")
                cells.append(f'<td class="delta{flagged}" data-value="{_data(cell.delta)}" '
                             f'title="{published}">{escape(format_comparison(cell, comparison))}</td>')
        body.append(f'<tr data-model="{escape(row.label)}">' + "".join(cells) + "</tr>")
    one_table = replace(leaderboard, tables=(table,))
    footnotes = "".join(f"<p>{INCOMPLETE} {escape(note)}</p>" for note in incomplete_footnotes(one_table))
    footnotes = f'<div class="incomplete-notes">{footnotes}</div>' if footnotes else ""
    chart = threshold_chart(table.rows, k=leaderboard.k, colors=colors, title=table.benchmark)
    name = escape(table.benchmark)
    return f"""<section class="benchmark" id="panel-{index}" role="tabpanel" data-benchmark="{name}">
<h2>{escape(table.benchmark)}</h2>
<table class="leaderboard">
<thead><tr>{''.join(headers)}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody>
</table>
{footnotes}
<figure>
{chart}
<figcaption>G-Pass@{leaderboard.k}<sub>τ</sub> against τ on {escape(table.benchmark)}: τ = 0 is
Pass@{leaderboard.k}; the flatter a model's line, the more stable its reasoning.</figcaption>
</figure>
</section>"""


def _value_cell(cell: Cell, intervals: bool) -> str:
    if cell.value is None:
        return '<td class="missing" data-value="">-</td>'
    interval = ""
    if intervals and cell.interval is not None:
        interval = (f'<span class="ci">[{format_value(cell.interval.low)}, '
                    f'{format_value(cell.interval.high)}]</span>')
    if not cell.complete:
        bounds = "" if cell.bounds is None else (f"; {format_value(cell.bounds[0])} if every unresolved "
                                                 f"generation is wrong, {format_value(cell.bounds[1])} if right")
        return (f'<td class="incomplete" data-value="{_data(cell.value)}" title="incomplete run{bounds}">'
                f'{format_value(cell.value)}{INCOMPLETE}{interval}</td>')
    return f'<td data-value="{_data(cell.value)}">{format_value(cell.value)}{interval}</td>'


def _notes(leaderboard: Leaderboard) -> str:
    if not leaderboard.notices:
        return ""
    items = "\n".join(f"<li>{escape(notice.message)}</li>" for notice in leaderboard.notices)
    return (f'<section class="notes"><details><summary>{len(leaderboard.notices)} note(s) from reading '
            f'the runs</summary><ul>\n{items}\n</ul></details></section>')


def _data(value: float | None) -> str:
    return "" if value is None else repr(float(value))

