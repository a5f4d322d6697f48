"""Reproduce the LiveMathBench leaderboard from finished OpenCompass runs.

The pipeline, one module per step::

    collect_runs(work_dirs)          # collect.py: results + saved configs + manifest -> RunResult
      -> build_leaderboard(runs)     # table.py (pure): newest run wins, one table per benchmark
      -> compare_with_published(...) # published.py (pure): Δ against the GPassK README tables
      -> render_markdown / render_csv / render_json / render_html   (pure: leaderboard -> text)
      -> plots.write_plots(board, directory)                          (matplotlib PNGs)

Everything a step skips or doubts is a :class:`Notice` on the result, never dropped silently.

>>> FORMATS["md"] is render_markdown, format_for_path("board.html")
(True, 'html')
"""

from __future__ import annotations

from pathlib import Path

from gpassk_opencompass.leaderboard.collect import collect_runs, read_manifest
from gpassk_opencompass.leaderboard.html import render_html
from gpassk_opencompass.leaderboard.published import (
    DEFAULT_TOLERANCE,
    PublishedLeaderboard,
    compare_with_published,
    load_published,
)
from gpassk_opencompass.leaderboard.records import (
    BenchmarkTable,
    Cell,
    Collection,
    Column,
    Comparison,
    Interval,
    Leaderboard,
    Notice,
    Row,
    RunResult,
)
from gpassk_opencompass.leaderboard.render import render_csv, render_json, render_markdown
from gpassk_opencompass.leaderboard.table import build_leaderboard, leaderboard_columns

FORMATS = {"md": render_markdown, "csv": render_csv, "json": render_json, "html": render_html}
SUFFIXES = {".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json", ".html": "html", ".htm": "html"}


def format_for_path(path: Path | str) -> str:
    """The output format a file name asks for, from its suffix.

    Raises:
        ValueError: the suffix is not one of ``.md .markdown .csv .json .html .htm``.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"cannot tell the format of {str(path)!r} from its suffix {suffix!r}; "
                         f"use one of {' '.join(SUFFIXES)} or pass --format")
    return SUFFIXES[suffix]


__all__ = [
    "DEFAULT_TOLERANCE", "FORMATS", "BenchmarkTable", "Cell", "Collection", "Column", "Comparison",
    "Interval", "Leaderboard", "Notice", "PublishedLeaderboard", "Row", "RunResult",
    "build_leaderboard", "collect_runs", "compare_with_published", "format_for_path",
    "leaderboard_columns", "load_published", "read_manifest", "render_csv", "render_html",
    "render_json", "render_markdown",
]
