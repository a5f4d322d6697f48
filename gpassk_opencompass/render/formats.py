"""The leaderboard's output formats: by name (``--format``) and by file suffix (``--output``).

One entry here is all a new format needs to reach ``gpassk leaderboard`` (its ``--format`` choices, the
suffix of ``-o`` and :func:`~gpassk_opencompass.leaderboard.pipeline.make_leaderboard`): a pure function
``(leaderboard, *, intervals) -> str`` beside the others in this package.

>>> sorted(FORMATS), SUFFIXES[".htm"]
(['csv', 'html', 'json', 'md'], 'html')
"""

from __future__ import annotations

from gpassk_opencompass.render.html import render_html
from gpassk_opencompass.render.leaderboard import render_csv, render_markdown
from gpassk_opencompass.render.leaderboard_json import render_json

FORMATS = {"md": render_markdown, "csv": render_csv, "json": render_json, "html": render_html}
SUFFIXES = {".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json", ".html": "html", ".htm": "html"}
#: What a format needs beyond the core install (checked before any results file is read).
EXTRAS = {"html": ("jinja2", "matplotlib")}
