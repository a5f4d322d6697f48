"""Leaderboard → PNG plots with matplotlib (the Agg canvas; no pyplot, no global state).

* ``gpass_vs_tau_<benchmark>.png``: G-Pass@k_τ against τ, one line per model;
* ``greedy_vs_mgpass.png``: greedy accuracy against mG-Pass@k, a panel per
  benchmark, a point per model — the seed's headline picture: stability is not greedy
  accuracy (points below the diagonal lose accuracy when sampled repeatedly).

Colours match the HTML page (one per model label, across benchmarks).
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from gpassk_opencompass.files import write_bytes_atomic
from gpassk_opencompass.leaderboard.records import Leaderboard
from gpassk_opencompass.leaderboard.svg_chart import model_colors
from gpassk_opencompass.leaderboard.table import GREEDY


def write_plots(leaderboard: Leaderboard, directory: Path | str) -> list[Path]:
    """Write every plot into ``directory`` (created if needed); returns the files written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [plot_threshold_curves(leaderboard, table.benchmark, directory) for table in leaderboard.tables]
    paths.append(plot_greedy_vs_mg(leaderboard, directory))
    return paths


def plot_threshold_curves(leaderboard: Leaderboard, benchmark: str, directory: Path) -> Path:
    """G-Pass@k_τ against τ for every sampled model on ``benchmark``."""
    table = next(table for table in leaderboard.tables if table.benchmark == benchmark)
    colors = model_colors(leaderboard)
    figure = Figure(figsize=(7.5, 4.5), dpi=120, layout="constrained")
    axes = figure.add_subplot()
    drawn = sorted((row for row in table.rows if row.curve), key=lambda row: row.curve[-1][1], reverse=True)
    for row in drawn:
        taus, values = zip(*row.curve)
        axes.plot(taus, values, marker="o", markersize=4, linewidth=1.8, color=colors[row.label],
                  label=row.label)
    axes.set(xlim=(-0.02, 1.02), ylim=(0, 100), xlabel="threshold τ",
             ylabel=f"G-Pass@{leaderboard.k}$_τ$ (%)", title=f"G-Pass@{leaderboard.k}$_τ$ on {benchmark}")
    axes.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0])
    axes.grid(alpha=0.3)
    if drawn:
        axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    else:
        axes.text(0.5, 50, "no sampled runs", ha="center", color="gray")
    return _save(figure, directory / f"gpass_vs_tau_{_file_part(benchmark)}.png")


def plot_greedy_vs_mg(leaderboard: Leaderboard, directory: Path) -> Path:
    """Greedy accuracy against mG-Pass@k: one panel per benchmark, one labelled point per model."""
    colors = model_colors(leaderboard)
    mg_label = leaderboard.columns[-1].label
    tables = leaderboard.tables
    columns = min(3, max(1, len(tables)))
    rows = max(1, math.ceil(len(tables) / columns))
    figure = Figure(figsize=(4.2 * columns, 4.2 * rows), dpi=120, layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False)
    for axes in grid.flat[len(tables):]:
        axes.set_axis_off()
    for axes, table in zip(grid.flat, tables):
        points = [(row.cells[GREEDY].value, row.cells[mg_label].value, row.label) for row in table.rows
                  if row.cells[GREEDY].value is not None and row.cells[mg_label].value is not None]
        axes.plot([0, 100], [0, 100], linestyle="--", color="gray", linewidth=1)
        for greedy, mg, label in points:
            axes.scatter([greedy], [mg], s=36, color=colors[label], edgecolors="black", linewidths=0.5)
            axes.annotate(label, (greedy, mg), textcoords="offset points", xytext=(4, 3), fontsize=7)
        if not points:
            axes.text(50, 50, "no model with both values", ha="center", color="gray", fontsize=8)
        axes.set(xlim=(0, 100), ylim=(0, 100), aspect="equal", title=table.benchmark)
        axes.title.set_fontsize(10)
        axes.grid(alpha=0.3)
    figure.supxlabel("Greedy accuracy (%)")
    figure.supylabel(f"{mg_label} (%)")
    figure.suptitle(f"Greedy accuracy vs {mg_label}: stability is not greedy accuracy (dashed: y = x)",
                    fontsize=10)
    return _save(figure, directory / "greedy_vs_mgpass.png")


def _save(figure: Figure, path: Path) -> Path:
    """Render to bytes, then write them atomically (never a half-written PNG)."""
    buffer = io.BytesIO()
    FigureCanvasAgg(figure).print_png(buffer)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def _file_part(name: str) -> str:
    """A benchmark name made safe as part of a file name.

    >>> _file_part("LiveMathBench-Hard-202412"), _file_part("my/bench 1")
    ('LiveMathBench-Hard-202412', 'my_bench_1')
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
