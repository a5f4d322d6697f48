"""Every chart of the project, drawn once with matplotlib (the Agg/SVG canvases; no pyplot).

Each chart is a function returning a :class:`~matplotlib.figure.Figure`, saved as PNG (:func:`png_bytes`) or
inline SVG (:func:`svg_markup`): :func:`threshold_figure` (G-Pass@k_τ against τ, with interval bars when the
rows carry them), :func:`greedy_vs_mg_figure` (greedy accuracy against mG-Pass@k) and :func:`calibration_plot`
(planned against realised half-widths). One colour per model label everywhere (:func:`model_colors`); every
artist of a model's τ-curve carries a stable ``gid`` (``series-<index>-…``, :func:`series_index`) for the page's
highlighting. Names are drawn literally (``$`` escaped; the SVG writer escapes ``<``, ``>``, ``&``).

>>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Leaderboard, Row
>>> row = Row("m", "m", {}, curve=((0.0, 80.0), (0.5, 50.0), (1.0, 20.0)))
>>> board = Leaderboard(16, (), (BenchmarkTable("AIME2025", (row,)),))
>>> svg = svg_markup(threshold_figure(board, "AIME2025"), id_prefix="c0-")
>>> svg.startswith("<svg "), 'id="c0-series-0-line"' in svg, "<?xml" in svg
(True, True, False)
>>> png_bytes(threshold_figure(board, "AIME2025"))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files.writing import write_bytes_atomic

if TYPE_CHECKING:  # annotations only: drawing needs neither scipy nor the leaderboard package (which imports this)
    from matplotlib.typing import RcKeyType

    from gpassk_opencompass.leaderboard.records import Leaderboard, Row
    from gpassk_opencompass.uncertainty.planner import PlannedWidth

# matplotlib's tab10, tab10's lighter partners, then tab20b's darks: 24 distinct colours,
# enough for every model of the published leaderboard.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#5254a3",
    "#8ca252",
    "#bd9e39",
)

#: The parts of one model's drawing on the τ-curve, each an SVG group ``series-<index>-<part>``.
SERIES_PARTS = ("line", "bars", "caps", "key", "label")

#: SVG writer settings: text stays text (no glyph outlines: smaller, selectable, no font
#: embedded) and ids derived from hashes are reproducible.
_SVG_RC: dict[RcKeyType, str] = {"svg.fonttype": "none", "svg.hashsalt": "gpassk-opencompass"}
_TAUS = (0.0, 0.25, 0.5, 0.75, 1.0)


def series_index(leaderboard: Leaderboard) -> dict[str, int]:
    """A stable index per row label (sorted labels of every benchmark), the same on every benchmark.

    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Leaderboard, Row
    >>> rows = (Row("b", "b", {}), Row("a", "a", {}))
    >>> series_index(Leaderboard(16, (), (BenchmarkTable("X", rows),)))
    {'a': 0, 'b': 1}
    """
    labels = sorted({row.label for table in leaderboard.tables for row in table.rows})
    return {label: index for index, label in enumerate(labels)}


def model_colors(leaderboard: Leaderboard) -> dict[str, str]:
    """One colour per row label, the same on every benchmark, in the PNGs and on the page."""
    return {label: PALETTE[index % len(PALETTE)] for label, index in series_index(leaderboard).items()}


def series_gid(index: int, part: str) -> str:
    """The id of one part of a model's drawing on the τ-curve.

    >>> series_gid(3, "line")
    'series-3-line'
    """
    if part not in SERIES_PARTS:
        raise ValueError(f"part must be one of {', '.join(SERIES_PARTS)}, got {part!r}")
    return f"series-{index}-{part}"


def threshold_figure(leaderboard: Leaderboard, benchmark: str) -> Figure:
    """G-Pass@k_τ against τ for every sampled model on ``benchmark``, with interval bars when known.

    A line per row with a ``curve``; a vertical bar per ``(τ, low, high)`` of the row's
    ``curve_intervals`` (bars of different models at one τ are spread a little sideways
    so they stay apart).  The legend lists models best first (by their value at the
    largest τ).

    Raises:
        InputError: ``benchmark`` has no table on the leaderboard.
    """
    table = next((table for table in leaderboard.tables if table.benchmark == benchmark), None)
    if table is None:
        raise InputError(
            f"no table for benchmark {benchmark!r}; the leaderboard has "
            f"{', '.join(t.benchmark for t in leaderboard.tables) or 'none'}"
        )
    colors = model_colors(leaderboard)
    index = series_index(leaderboard)
    k = leaderboard.k
    figure = Figure(figsize=(7.5, 4.5), dpi=120, layout="constrained")
    axes = figure.add_subplot()
    drawn = sorted((row for row in table.rows if row.curve), key=lambda row: row.curve[-1][1], reverse=True)
    with_bars = [row for row in drawn if _curve_intervals(row)]
    dodge = min(0.012, 0.06 / max(1, len(with_bars)))
    handles = []
    for row in drawn:
        taus, values = zip(*row.curve)
        series = index[row.label]
        axes.plot(
            taus,
            values,
            marker="o",
            markersize=4,
            linewidth=1.8,
            color=colors[row.label],
            gid=series_gid(series, "line"),
        )
        handles.append(Line2D([], [], marker="o", markersize=4, linewidth=1.8, color=colors[row.label]))
    for position, row in enumerate(with_bars):
        centres, lows, highs = (np.asarray(part, dtype=float) for part in zip(*_curve_intervals(row)))
        shifted = centres + dodge * (position - (len(with_bars) - 1) / 2)
        series = index[row.label]
        axes.vlines(shifted, lows, highs, colors=colors[row.label], linewidth=1.2, gid=series_gid(series, "bars"))
        axes.plot(
            np.concatenate([shifted, shifted]),
            np.concatenate([lows, highs]),
            linestyle="none",
            marker="_",
            markersize=6,
            color=colors[row.label],
            gid=series_gid(series, "caps"),
        )
    axes.set(
        xlim=(-0.03, 1.03),
        ylim=(0, 100),
        xlabel="threshold τ",
        ylabel=f"G-Pass@{k}$_τ$ (%)",
        title=f"G-Pass@{k}$_τ$ on {_literal(benchmark)}",
    )
    axes.set_xticks(_TAUS)
    axes.grid(alpha=0.3)
    if drawn:
        legend = axes.legend(
            handles,
            [_literal(row.label) for row in drawn],
            fontsize=8,
            loc="center left",
            bbox_to_anchor=(1.01, 0.5),
            frameon=False,
        )
        for row, key, text in zip(drawn, legend.legend_handles, legend.get_texts()):
            if key is not None:  # None only for an artist the legend cannot draw; these are Line2D
                key.set_gid(series_gid(index[row.label], "key"))
            text.set_gid(series_gid(index[row.label], "label"))
        if with_bars:
            axes.text(
                0.99,
                0.99,
                "bars: the runs' intervals",
                transform=axes.transAxes,
                ha="right",
                va="top",
                fontsize=7,
                color="gray",
            )
    else:
        axes.text(0.5, 50, "no sampled runs to draw", ha="center", color="gray")
    return figure


def greedy_vs_mg_figure(leaderboard: Leaderboard) -> Figure:
    """Greedy accuracy against mG-Pass@k: one panel per benchmark, one labelled point per model."""
    colors = model_colors(leaderboard)
    greedy_label = next(column.label for column in leaderboard.columns if column.result_key is None)
    mg_label = leaderboard.columns[-1].label
    tables = leaderboard.tables
    columns = min(3, max(1, len(tables)))
    rows = max(1, math.ceil(len(tables) / columns))
    figure = Figure(figsize=(4.2 * columns, 4.2 * rows), dpi=120, layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False)
    for axes in grid.flat[len(tables) :]:
        axes.set_axis_off()
    for axes, table in zip(grid.flat, tables):
        points = [
            (row.cells[greedy_label].value, row.cells[mg_label].value, row.label)
            for row in table.rows
            if row.cells[greedy_label].value is not None and row.cells[mg_label].value is not None
        ]
        axes.plot([0, 100], [0, 100], linestyle="--", color="gray", linewidth=1)
        for greedy, mg, label in points:
            axes.scatter([greedy], [mg], s=36, color=colors[label], edgecolors="black", linewidths=0.5)
            axes.annotate(_literal(label), (greedy, mg), textcoords="offset points", xytext=(4, 3), fontsize=7)
        if not points:
            axes.text(50, 50, "no model with both values", ha="center", color="gray", fontsize=8)
        axes.set(xlim=(0, 100), ylim=(0, 100), aspect="equal", title=_literal(table.benchmark))
        axes.title.set_fontsize(10)
        axes.grid(alpha=0.3)
    figure.supxlabel("Greedy accuracy (%)")
    figure.supylabel(f"{mg_label} (%)")
    figure.suptitle(f"Greedy accuracy vs {mg_label}: stability is not greedy accuracy (dashed: y = x)", fontsize=10)
    return figure


def calibration_plot(
    planned: Sequence[PlannedWidth],
    realised: Mapping[tuple[str, int, int], Sequence[float]],
    *,
    title: str = "Sample-size plan vs realised interval width",
) -> Figure:
    """Planned interval half-widths against the half-widths runs actually showed.

    A point per plan that has realised widths: x = the planned half-width, y = the
    mean of the realised ones, with a bar over their range when there are several;
    the dashed diagonal is a plan that came true.  Points above it: the plan was too
    optimistic (intervals came out wider); below: more generations than needed.

    Args:
        planned: rows of :func:`~gpassk_opencompass.uncertainty.planner.plan_table`
            (or single :func:`~gpassk_opencompass.uncertainty.planner.expected_half_width`
            results), all at one interval level.
        realised: half-widths (percentage points, the same level) observed for a
            plan, keyed by ``(plan.key, plan.n, plan.questions)``: e.g. from
            simulated runs (``z`` times the standard deviation of the estimates, or
            each simulated run's own interval half-width) or from real runs.
        title: the chart's title.

    Returns:
        The figure (save it with :func:`png_bytes` or :func:`svg_markup`).

    Raises:
        InputError: no plan has realised widths, a realised key matches no plan, a
            list is empty or holds a value that is not a finite number >= 0, or
            the plans mix interval levels.

    >>> from gpassk_opencompass.uncertainty.planner import plan_table
    >>> plans = plan_table([0.3, 0.6, 0.9] * 10, ns=[8, 32], k=[4], thresholds=[1.0])
    >>> realised = {(plan.key, plan.n, plan.questions): [plan.half_width * 1.1] for plan in plans}
    >>> figure = calibration_plot(plans, realised)
    >>> len(figure.axes[0].collections) >= 1
    True
    >>> calibration_plot(plans, {("G-Pass@4_0.5", 8, 30): [3.0]})
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: realised widths for ('G-Pass@4_0.5', 8, 30) match no plan; plans are keyed by (key, n, questions), e.g. ('G-Pass@4_1.0', 8, 30)
    """
    plans = {(plan.key, plan.n, plan.questions): plan for plan in planned}
    if not plans:
        raise InputError("calibration_plot needs at least one planned width")
    levels = sorted({plan.level for plan in plans.values()})
    if len(levels) > 1:
        raise InputError(f"the plans mix interval levels {levels}; plot one level at a time")
    for key, widths in realised.items():
        if key not in plans:
            raise InputError(
                f"realised widths for {key!r} match no plan; plans are keyed by (key, n, questions), "
                f"e.g. {next(iter(plans))!r}"
            )
        values = list(widths)
        if not values or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 for v in values
        ):
            raise InputError(
                f"realised widths for {key!r} must be a non-empty list of finite numbers >= 0, got {values!r}"
            )
    if not realised:
        raise InputError("calibration_plot needs realised widths for at least one plan")
    figure = Figure(figsize=(5.5, 5.0), dpi=120, layout="constrained")
    axes = figure.add_subplot()
    metrics = sorted({key[0] for key in realised})
    top = 0.0
    for position, metric in enumerate(metrics):
        keys = [key for key in realised if key[0] == metric]
        x = np.array([plans[key].half_width for key in keys])
        samples = [np.asarray(realised[key], dtype=float) for key in keys]
        y = np.array([sample.mean() for sample in samples])
        low = y - np.array([sample.min() for sample in samples])
        high = np.array([sample.max() for sample in samples]) - y
        axes.errorbar(
            x,
            y,
            yerr=[low, high],
            fmt="o",
            markersize=5,
            capsize=3,
            linewidth=1,
            color=PALETTE[position % len(PALETTE)],
            label=_literal(metric),
        )
        top = max(top, float(x.max()), float((y + high).max()))
    top = top * 1.08 or 1.0
    axes.plot([0, top], [0, top], linestyle="--", color="gray", linewidth=1, label="as planned")
    axes.set(
        xlim=(0, top),
        ylim=(0, top),
        aspect="equal",
        xlabel=f"planned half-width of the {levels[0]:.0%} interval (points)",
        ylabel="realised half-width (points)",
        title=_literal(title),
    )
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", frameon=False)
    return figure


def png_bytes(figure: Figure) -> bytes:
    """The figure as PNG bytes (the Agg canvas)."""
    buffer = io.BytesIO()
    FigureCanvasAgg(figure).print_png(buffer)
    return buffer.getvalue()


def svg_markup(figure: Figure, *, id_prefix: str) -> str:
    """The figure as an ``<svg>`` element to inline in an HTML page.

    No XML prolog, doctype or metadata; text as ``<text>`` (no embedded glyphs);
    the root carries ``class="chart"``; every id (matplotlib's own and the
    ``gid`` s) and every reference to one is prefixed with ``id_prefix``, so
    several charts on one page never share an id.

    Args:
        figure: what to draw.
        id_prefix: prepended to every id, e.g. ``"c0-"``; letters, digits, ``-`` and ``_`` only.
    """
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", id_prefix):
        raise ValueError(f"id_prefix must be a letter then letters, digits, '-' or '_', got {id_prefix!r}")
    buffer = io.StringIO()
    with matplotlib.rc_context(_SVG_RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.DOTALL)
    text = re.sub(r'(\bid="|url\(#|href="#)', lambda match: match.group(1) + id_prefix, text)
    return text.replace("<svg ", '<svg class="chart" ', 1).strip()


def write_plots(leaderboard: Leaderboard, directory: Path | str) -> list[Path]:
    """Write every leaderboard plot into ``directory`` (created if needed); returns the files written.

    ``gpass_vs_tau_<benchmark>.png`` per benchmark and ``greedy_vs_mgpass.png``, each
    written atomically (never a half-written PNG).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for table in leaderboard.tables:
        path = directory / f"gpass_vs_tau_{_file_part(table.benchmark)}.png"
        write_bytes_atomic(path, png_bytes(threshold_figure(leaderboard, table.benchmark)))
        paths.append(path)
    path = directory / "greedy_vs_mgpass.png"
    write_bytes_atomic(path, png_bytes(greedy_vs_mg_figure(leaderboard)))
    paths.append(path)
    return paths


def _curve_intervals(row: Row) -> tuple[tuple[float, float, float], ...]:
    # Row.curve_intervals arrives with the ranking work (see records.Row); older rows have none.
    return tuple(getattr(row, "curve_intervals", ()))


def _literal(text: str) -> str:
    r"""``text`` as matplotlib should draw it: literally, never as mathtext.

    >>> _literal("cost $1 and $2")
    'cost \\$1 and \\$2'
    """
    return text.replace("$", r"\$")


def _file_part(name: str) -> str:
    """A benchmark name made safe as part of a file name.

    >>> _file_part("LiveMathBench-Hard-202412"), _file_part("my/bench 1")
    ('LiveMathBench-Hard-202412', 'my_bench_1')
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
