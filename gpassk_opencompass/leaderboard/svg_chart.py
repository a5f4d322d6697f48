"""An inline SVG chart of G-Pass@k_τ against τ, one line per model. Pure.

The chart is plain markup (no script, no external resource), so it shows in
any browser, offline, from ``file://``, and in a test as soon as the DOM is.
Every point carries ``data-tau`` / ``data-value`` and a ``<title>`` tooltip.

>>> from gpassk_opencompass.leaderboard.records import Leaderboard, Row
>>> row = Row("m", "m", {}, curve=((0.0, 80.0), (0.5, 50.0), (1.0, 20.0)))
>>> svg = threshold_chart([row], k=16, colors={"m": "#1f77b4"}, title="AIME2025")
>>> svg.count("<circle"), 'data-model="m"' in svg
(3, True)
>>> chart_point(0.5, 50.0)
(308.0, 195.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from gpassk_opencompass.leaderboard.records import Leaderboard, Row

WIDTH, HEIGHT = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 56, 200, 20, 50
PLOT_WIDTH = WIDTH - LEFT - RIGHT
PLOT_HEIGHT = HEIGHT - TOP - BOTTOM

# matplotlib's tab10, tab10's lighter partners, then tab20b's darks: 24 distinct colours,
# enough for every model of the published leaderboard.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252", "#bd9e39",
)


def model_colors(leaderboard: Leaderboard) -> dict[str, str]:
    """One colour per row label, the same on every benchmark (and in the PNG plots)."""
    labels = sorted({row.label for table in leaderboard.tables for row in table.rows})
    return {label: PALETTE[index % len(PALETTE)] for index, label in enumerate(labels)}


def chart_point(tau: float, value: float) -> tuple[float, float]:
    """SVG user-space coordinates of ``(τ, value)``: τ ∈ [0, 1] left to right, value 0–100 bottom to top."""
    return (round(LEFT + tau * PLOT_WIDTH, 2), round(TOP + (1 - value / 100) * PLOT_HEIGHT, 2))


def threshold_chart(rows: Sequence[Row], *, k: int, colors: Mapping[str, str], title: str) -> str:
    """The SVG of G-Pass@k_τ against τ for the rows that have a curve.

    Args:
        rows: leaderboard rows; their ``curve`` holds ``(τ, G-Pass@k_τ)``.
        k: the k of the curves (axis label).
        colors: stroke colour per row label.
        title: accessible name of the chart (the benchmark).

    Returns:
        An ``<svg>`` element as text.
    """
    drawn = [row for row in rows if row.curve]
    height = max(HEIGHT, TOP + 18 * len(drawn) + 20)  # a long legend extends the drawing downwards
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
             f'aria-label="G-Pass@{k}_τ against τ on {escape(title)}" xmlns="http://www.w3.org/2000/svg">']
    parts += _axes(k)
    legend_rows = sorted(drawn, key=_last_value, reverse=True)  # best first, as the lines stack
    for row in drawn:
        color = colors[row.label]
        points = [chart_point(tau, value) for tau, value in row.curve]
        parts.append(f'<g class="series" data-model="{escape(row.label)}">')
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                     + " ".join(f"{x},{y}" for x, y in points) + '"/>')
        for (tau, value), (x, y) in zip(row.curve, points):
            parts.append(f'<circle cx="{x}" cy="{y}" r="3.5" fill="{color}" data-tau="{tau:g}" '
                         f'data-value="{value!r}"><title>{escape(row.label)}: '
                         f'G-Pass@{k}_{tau:g} = {value:.1f}</title></circle>')
        parts.append("</g>")
    for index, row in enumerate(legend_rows):
        y = TOP + 10 + 18 * index
        x = WIDTH - RIGHT + 16
        parts.append(f'<g class="legend-entry" data-model="{escape(row.label)}">'
                     f'<line x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" stroke="{colors[row.label]}" '
                     f'stroke-width="3"/><text x="{x + 24}" y="{y + 4}">{escape(_shorten(row.label))}'
                     f'<title>{escape(row.label)}</title></text></g>')
    if not drawn:
        parts.append(f'<text class="empty" x="{LEFT + PLOT_WIDTH / 2}" y="{TOP + PLOT_HEIGHT / 2}" '
                     'text-anchor="middle">no sampled runs to draw</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(k: int) -> list[str]:
    parts = ['<g class="axes">']
    for value in range(0, 101, 20):
        _, y = chart_point(0, value)
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{y}" x2="{LEFT + PLOT_WIDTH}" y2="{y}"/>'
                     f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{value}</text>')
    for tau in (0.0, 0.25, 0.5, 0.75, 1.0):
        x, y = chart_point(tau, 0)
        parts.append(f'<line class="tick" x1="{x}" y1="{y}" x2="{x}" y2="{y + 5}"/>'
                     f'<text x="{x}" y="{y + 20}" text-anchor="middle">{tau:g}</text>')
    parts.append(f'<line class="axis" x1="{LEFT}" y1="{TOP + PLOT_HEIGHT}" x2="{LEFT + PLOT_WIDTH}" '
                 f'y2="{TOP + PLOT_HEIGHT}"/><line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" '
                 f'y2="{TOP + PLOT_HEIGHT}"/>')
    parts.append(f'<text class="label" x="{LEFT + PLOT_WIDTH / 2}" y="{HEIGHT - 8}" '
                 'text-anchor="middle">threshold τ</text>')
    parts.append(f'<text class="label" transform="translate(14 {TOP + PLOT_HEIGHT / 2}) rotate(-90)" '
                 f'text-anchor="middle">G-Pass@{k}_τ (%)</text>')
    parts.append("</g>")
    return parts


def _last_value(row: Row) -> float:
    return row.curve[-1][1]


def _shorten(label: str, limit: int = 26) -> str:
    return label if len(label) <= limit else label[:limit - 1] + "…"
