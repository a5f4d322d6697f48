"""Leaderboard → one self-contained HTML page (a Jinja2 template, autoescaped). Pure.

The markup is ``templates/leaderboard.html.j2`` (CSS and script inline); this module turns the
:class:`Leaderboard` into the plain view it shows, texts formatted by the Markdown's helpers and charts from
:mod:`gpassk_opencompass.render.plots` as inline SVG (the only markup inserted as is). No CDN, font or fetch:
it works offline and from ``file://``. Needs the ``plots`` extra. What it shows: docs/leaderboard-page.md.

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

import os
import pathlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpassk_opencompass import __version__
from gpassk_opencompass.render import exact_number, require_extra, template
from gpassk_opencompass.render.leaderboard import (
    CUT,
    INCOMPLETE,
    INCONSISTENT,
    MEASURED,
    WARNED,
    format_comparison,
    format_cut,
    format_measured,
    format_value,
    incomplete_footnotes,
    inconsistent_footnotes,
    row_warnings,
    warning_footnotes,
)
from gpassk_opencompass.render.score_report import CUT_SOURCES

if TYPE_CHECKING:  # the leaderboard's types, named in annotations only (the leaderboard imports this package)
    from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row

TEMPLATE = "leaderboard.html.j2"


@dataclass(frozen=True)
class CellView:
    """One ``<td>``: its text, sort value (``data-value``) and decorations."""

    text: str
    value: str
    classes: str = ""
    title: str = ""
    interval: str = ""
    href: str = ""  # the greedy run in the explorer (the Greedy cell of a row with a sampled run)


@dataclass(frozen=True)
class Header:
    """One ``<th>`` of the header row."""

    label: str
    type: str
    sort: str = "none"
    title: str = ""


@dataclass(frozen=True)
class RowView:
    """One model's ``<tr>``: its name, colour, chart series, rank and cells."""

    label: str
    series: int
    color: str
    cells: tuple[CellView, ...]
    rank: CellView | None = None
    order_uncertain: bool = False
    problems: str = ""  # why its values cannot be believed (tabulated as asked): a † and its title
    href: str = ""  # its run in the explorer (its sampled run, else its greedy run)


@dataclass(frozen=True)
class Panel:
    """One benchmark: its table, notes and chart."""

    index: int
    benchmark: str
    chart_id: str
    headers: tuple[Header, ...]
    rows: tuple[RowView, ...]
    footnotes: tuple[str, ...]
    chart: object  # markupsafe.Markup: the chart's SVG
    ranked: bool
    bars: bool
    uncertain_title: str


def page_title(leaderboard: Leaderboard) -> str:
    """What the page shows, as its title: the benchmarks on it.

    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Leaderboard
    >>> page_title(Leaderboard(8, (), (BenchmarkTable("AIME2025", ()), BenchmarkTable("MATH500-L5", ()))))
    'AIME2025, MATH500-L5 leaderboard'
    """
    return (
        ", ".join(table.benchmark for table in leaderboard.tables) + " leaderboard"
        if leaderboard.tables
        else "Leaderboard"
    )


def explorer_link(explorer: str | None, run: str | None) -> str:
    """The link to a run in a ``gpassk view`` export: ``<explorer>/index.html#/run/<run id>`` (``""`` without
    either). ``explorer`` is an ``http(s)://`` address, or a path as the page should reach it
    (:func:`explorer_base`).

    >>> explorer_link("./explorer", "0123456789ab"), explorer_link(None, "0123456789ab"), explorer_link("x", None)
    ('./explorer/index.html#/run/0123456789ab', '', '')
    """
    if explorer is None or run is None:
        return ""
    return f"{explorer.rstrip('/')}/index.html#/run/{run}"


def explorer_base(explorer: str, page: str | os.PathLike | None) -> str:
    """``--explorer`` as the page at ``page`` reaches it: an ``http(s)://`` address as given, a folder relative
    to the page's folder (the current folder for stdout), so page and export move together; it always starts
    ``./`` or ``../``, so no part of it reads as a URL scheme.

    >>> explorer_base("out/explorer", "out/board.html"), explorer_base("javascript:x", None)
    ('./explorer', './javascript:x')
    >>> explorer_base("https://example.org/runs/", "board.html"), explorer_base("/srv/explorer", "/srv/www/b.html")
    ('https://example.org/runs/', '../explorer')
    """
    if explorer.startswith(("http://", "https://")):
        return explorer
    start = os.path.dirname(os.path.abspath(page)) if page is not None else os.getcwd()
    relative = pathlib.PurePath(os.path.relpath(os.path.abspath(explorer), start)).as_posix()
    return relative if relative.startswith("../") else f"./{relative}"


def render_html(
    leaderboard: Leaderboard, *, intervals: bool = False, title: str = "", explorer: str | None = None
) -> str:
    """The whole page: a switcher, then per benchmark a sortable table and a G-Pass@k_τ chart.

    Args:
        leaderboard: what to render.
        intervals: show ``[low, high]`` intervals under the values.
        title: the page's heading (default: the benchmarks it shows, :func:`page_title`).
        explorer: where a ``gpassk view --export`` of the runs is, as the page reaches it
            (:func:`explorer_base`): each row's label links to its run there (:func:`explorer_link`).

    Returns:
        A complete HTML document.

    Raises:
        InputError: matplotlib or jinja2 is not installed (the ``plots`` extra).
    """
    require_extra("the HTML page", True, "jinja2", "matplotlib")
    from markupsafe import Markup

    from gpassk_opencompass.render import plots  # deferred: matplotlib (the plots extra)

    colors = plots.model_colors(leaderboard)
    series = plots.series_index(leaderboard)
    ranking = leaderboard.ranking
    panels = tuple(
        _panel(
            leaderboard,
            table,
            index,
            colors,
            series,
            intervals,
            explorer,
            Markup(plots.svg_markup(plots.threshold_figure(leaderboard, table.benchmark), id_prefix=f"c{index}-")),
        )
        for index, table in enumerate(leaderboard.tables)
    )
    comparison = leaderboard.comparison
    footnoted = set(warning_footnotes(leaderboard))  # a row's warning is said under its table, not again in the notes
    page = {
        "title": title or page_title(leaderboard),
        "k": leaderboard.k,
        "version": __version__,
        "sorted_by": leaderboard.columns[-1].label if leaderboard.columns else "",
        "comparison": comparison and {"source": comparison.source, "tolerance": f"{comparison.tolerance:g}"},
        "ranking": ranking
        and {
            "metric": ranking.metric,
            "level": _percent(ranking.level),
            "resamples": ranking.resamples,
            "seed": ranking.seed,
            "correction": ranking.correction,
        },
        "panels": panels,
        "notices": tuple(notice.message for notice in leaderboard.notices if notice.message not in footnoted),
    }
    return template(TEMPLATE).render(page=page)


def _panel(
    leaderboard: Leaderboard,
    table: BenchmarkTable,
    index: int,
    colors: dict[str, str],
    series: dict[str, int],
    intervals: bool,
    explorer: str | None,
    chart: object,
) -> Panel:
    comparison = leaderboard.comparison
    last = leaderboard.columns[-1].label if leaderboard.columns else ""
    ranked = any(row.rank is not None for row in table.rows)
    headers = [Header("Rank", "number")] if ranked else []
    headers.append(Header("LLMs", "text"))
    for column in leaderboard.columns:
        headers.append(Header(column.label, "number", "ascending" if column.label == last else "none"))
        if comparison:
            headers.append(Header("Δ", "number", title=f"{column.label}: ours − published"))
    headers += [
        Header(CUT, "number", title="share of the generations cut at the output limit"),
        Header(MEASURED, "text", title="questions, generations per question (n), judge and its prompt"),
    ]
    rows = []
    for row in table.rows:
        cells = []
        sampled, greedy = row.runs
        for column in leaderboard.columns:
            cell = row.cells[column.label]
            view = _value_cell(cell, intervals)
            if column.result_key is None and sampled is not None and view.value:  # the greedy run links its own
                view = replace(view, href=explorer_link(explorer, greedy))
            cells.append(view)
            if comparison:
                cells.append(
                    CellView(
                        format_comparison(cell, comparison),
                        exact_number(cell.delta),
                        "delta flagged" if comparison.flagged(cell) else "delta",
                        "not published" if cell.published is None else f"published {format_value(cell.published)}",
                    )
                )
        cells += _measured_cells(row)
        rows.append(
            RowView(
                row.label,
                series[row.label],
                colors[row.label],
                tuple(cells),
                _rank_cell(row, leaderboard) if ranked else None,
                row.order_uncertain,
                "; ".join(row.problems),
                explorer_link(explorer, sampled or greedy),
            )
        )
    ranking = leaderboard.ranking
    level = f" at the {_percent(ranking.level)} level" if ranking is not None else ""
    return Panel(
        index=index,
        benchmark=table.benchmark,
        chart_id=f"c{index}",
        headers=tuple(headers),
        rows=tuple(rows),
        footnotes=tuple(f"{INCOMPLETE} {note}" for note in incomplete_footnotes(replace(leaderboard, tables=(table,))))
        + tuple(f"{INCONSISTENT} {note}" for note in inconsistent_footnotes(replace(leaderboard, tables=(table,))))
        + tuple(f"{WARNED} {note}" for note in warning_footnotes(replace(leaderboard, tables=(table,)))),
        chart=chart,
        ranked=ranked,
        bars=any(row.curve and row.curve_intervals for row in table.rows),
        uncertain_title=f"the order of this row and the next is not significant{level}",
    )


def _measured_cells(row: Row) -> list[CellView]:
    """The Cut and Measured cells of a row: the cut share (its counts and source in the title), what was measured.

    >>> from gpassk_opencompass.leaderboard.records import Measured, Row
    >>> from gpassk_opencompass.scoring.results import CutGenerations
    >>> cut = CutGenerations(generations=40, cut=10, no_answer=2, recorded=40, source="finish_reason")
    >>> [(view.text, view.value, view.classes) for view in _measured_cells(Row("m", "m", {}, measured=Measured(5, 8, "rule", None, cut)))]
    [('25 % ⚠', '0.25', 'cut warned'), ('5 questions, n = 8, rule judge', '5 questions, n = 8, rule judge', 'measured')]
    """
    measured = row.measured
    text, warning = format_measured(measured, row.warnings), "; ".join(row_warnings(row))
    if measured is None or measured.cut is None:
        return [
            CellView(format_cut(measured), "", "cut missing", "not recorded (results before schema 3)"),
            CellView(text, text, "measured", warning),
        ]
    cut = measured.cut
    title = (
        f"{cut.cut} of {cut.generations} generations cut at the output limit, {CUT_SOURCES[cut.source]}; "
        f"{cut.no_answer} more end without a final answer"
    )
    shown = format_cut(measured)
    classes = "cut warned" if shown.endswith("⚠") else "cut"
    return [CellView(shown, exact_number(cut.share), classes, title), CellView(text, text, "measured", warning)]


def _value_cell(cell: Cell, intervals: bool) -> CellView:
    if cell.value is None:
        return CellView("-", "", "missing")
    interval = ""
    if intervals and cell.interval is not None:
        interval = f"[{format_value(cell.interval.low)}, {format_value(cell.interval.high)}]"
    if not cell.complete:
        bounds = (
            ""
            if cell.bounds is None
            else (
                f"; {format_value(cell.bounds[0])} if every unresolved "
                f"generation is wrong, {format_value(cell.bounds[1])} if right"
            )
        )
        return CellView(
            f"{format_value(cell.value)}{INCOMPLETE}",
            exact_number(cell.value),
            "incomplete",
            f"incomplete run{bounds}",
            interval,
        )
    return CellView(format_value(cell.value), exact_number(cell.value), interval=interval)


def _rank_cell(row: Row, leaderboard: Leaderboard) -> CellView:
    """The rank, with its interval when known.

    >>> from gpassk_opencompass.leaderboard.records import Leaderboard, Row
    >>> _rank_cell(Row("m", "m", {}), Leaderboard(16, (), ()))
    CellView(text='-', value='', classes='rank missing', title='', interval='', href='')
    """
    rank = row.rank
    if rank is None:
        return CellView("-", "", "rank missing")
    interval = row.rank_interval
    if interval is None:
        return CellView(str(rank), str(rank), "rank")
    ranking = leaderboard.ranking
    level = f"{_percent(ranking.level)} " if ranking is not None else ""
    low, high = interval
    return CellView(str(rank), str(rank), "rank", f"{level}rank interval: {low} to {high}", f"[{low}, {high}]")


def _percent(level: float) -> str:
    """``0.95`` → ``'95%'``, ``0.995`` → ``'99.5%'``.

    >>> _percent(0.95), _percent(0.995)
    ('95%', '99.5%')
    """
    return f"{level * 100:g}%"
