"""``gpassk view``: the results explorer's back end: the runs, their data documents, the local server, the export.

Owns: reading the runs it is given into one index (:mod:`.runs`: results, verdicts, where every generation's text
is, :mod:`.texts`), the data documents of the page (:mod:`.documents`, by the keys of :mod:`.keys`), serving them
on 127.0.0.1 (:mod:`.server`) and writing them as static files (:mod:`.export`). The page itself (HTML, JS, CSS) is
``render/viewer/`` (:mod:`.page` reads it); only ``cli`` imports it.

May import: :mod:`~gpassk_opencompass.leaderboard` (the one model of a run, the leaderboard),
:mod:`~gpassk_opencompass.plugin` (``plugin.runs``: a run's predictions), :mod:`~gpassk_opencompass.scoring`,
:mod:`~gpassk_opencompass.analysis` (the paired interval), :mod:`~gpassk_opencompass.uncertainty`,
:mod:`~gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.judges` (the extraction),
:mod:`~gpassk_opencompass.render` (the leaderboard's cell texts), :mod:`~gpassk_opencompass.files`,
:mod:`~gpassk_opencompass.log`, :mod:`~gpassk_opencompass.console` (its bar, its lines), :mod:`~gpassk_opencompass.errors`.

>>> run_id(b"{}")
'44136fa355b3'
"""

from __future__ import annotations

from gpassk_opencompass.leaderboard.records import run_id
from gpassk_opencompass.view.export import check_export_folder, export
from gpassk_opencompass.view.keys import parse_key
from gpassk_opencompass.view.server import serve
from gpassk_opencompass.view.viewer import Viewer

__all__ = ["Viewer", "check_export_folder", "export", "parse_key", "run_id", "serve"]
