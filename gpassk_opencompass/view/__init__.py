"""``gpassk view``: the results explorer's back end: the runs, their data documents, the local server, the export.

Owns: reading the runs it is given into one index (:mod:`.runs`: results, verdicts, where every generation's text
is, :mod:`.texts`), the data documents of the page (:mod:`.documents`, by the keys of :mod:`.keys`), serving them
on 127.0.0.1 (:mod:`.server`) and writing them as static files (:mod:`.export`). The page itself (HTML, JS, CSS) is
``render/viewer/`` (:mod:`.page` reads it). May import ``leaderboard`` (the one model of a run, the leaderboard),
``scoring``, ``analysis``, ``uncertainty``, ``metrics``, ``judges``, ``plugin.runs``, ``render``, ``files``, ``log``,
``errors``; only ``cli`` imports it.

>>> run_id(b"{}")
'44136fa355b3'
"""

from __future__ import annotations

from gpassk_opencompass.view.export import check_export_folder, export
from gpassk_opencompass.view.keys import parse_key, run_id
from gpassk_opencompass.view.server import serve
from gpassk_opencompass.view.viewer import Viewer

__all__ = ["Viewer", "check_export_folder", "export", "parse_key", "run_id", "serve"]
