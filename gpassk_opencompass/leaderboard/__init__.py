"""Reproduce the LiveMathBench leaderboard from finished OpenCompass runs.

The pipeline, one module per step::

    collect_runs(work_dirs)          # collect.py: results + saved configs + manifest -> RunResult
      -> build_leaderboard(runs)     # table.py (pure): newest run wins, one table per benchmark
      -> compare_with_published(...) # published.py (pure): Δ against the GPassK README tables
      -> rank_leaderboard(board)     # ranking.py: rank intervals, adjacent-row significance
      -> render_markdown / render_csv / render_json / render_html   (gpassk_opencompass.render: pure)
      -> render.plots.write_plots(board, directory)                   (matplotlib PNGs)

``make_leaderboard(LeaderboardRequest(...))`` (pipeline.py) runs them all for
``gpassk leaderboard``.  Everything a step skips or doubts is a :class:`Notice`
on the result, never dropped silently.

May import: :mod:`~gpassk_opencompass.scoring` (the results reader), :mod:`~gpassk_opencompass.plugin` (its
``runs``: finished runs and their saved configs, as data), :mod:`~gpassk_opencompass.uncertainty`,
:mod:`~gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.catalog`, :mod:`~gpassk_opencompass.checks`,
:mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.files`, :mod:`~gpassk_opencompass.log`,
:mod:`~gpassk_opencompass.console` (progress bars, its stdout), :mod:`~gpassk_opencompass.errors`, :mod:`~gpassk_opencompass.render`; never OpenCompass.

>>> FORMATS["md"] is render_markdown, format_for_path("board.html")
(True, 'html')
"""

from __future__ import annotations

from gpassk_opencompass.leaderboard.collect import collect_runs, read_manifest
from gpassk_opencompass.leaderboard.pipeline import (
    FORMATS,
    SUFFIXES,
    LeaderboardRequest,
    format_for_path,
    make_leaderboard,
)
from gpassk_opencompass.leaderboard.published import (
    DEFAULT_TOLERANCE,
    PublishedLeaderboard,
    compare_with_published,
    load_published,
)
from gpassk_opencompass.leaderboard.ranking import rank_leaderboard
from gpassk_opencompass.leaderboard.records import (
    BenchmarkTable,
    Cell,
    Collection,
    Column,
    Comparison,
    Interval,
    Leaderboard,
    MissingRun,
    Notice,
    RankingInfo,
    Row,
    RunResult,
)
from gpassk_opencompass.leaderboard.table import build_leaderboard, choose_k, leaderboard_columns
from gpassk_opencompass.render.html import render_html
from gpassk_opencompass.render.leaderboard import render_csv, render_markdown
from gpassk_opencompass.render.leaderboard_json import render_json

__all__ = [
    "DEFAULT_TOLERANCE",
    "FORMATS",
    "SUFFIXES",
    "BenchmarkTable",
    "Cell",
    "Collection",
    "Column",
    "Comparison",
    "Interval",
    "Leaderboard",
    "LeaderboardRequest",
    "MissingRun",
    "Notice",
    "PublishedLeaderboard",
    "RankingInfo",
    "Row",
    "RunResult",
    "build_leaderboard",
    "choose_k",
    "collect_runs",
    "compare_with_published",
    "format_for_path",
    "leaderboard_columns",
    "load_published",
    "make_leaderboard",
    "rank_leaderboard",
    "read_manifest",
    "render_csv",
    "render_html",
    "render_json",
    "render_markdown",
]
