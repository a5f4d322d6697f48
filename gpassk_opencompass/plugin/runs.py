"""Finished OpenCompass runs on disk: where things are and the config that made them.

OpenCompass lays a run out as (``opencompass/cli/main.py``,
``opencompass/tasks/openicl_{infer,eval}.py``)::

    <work_dir>/<YYYYmmdd_HHMMSS>/
        configs/<YYYYmmdd_HHMMSS>_<pid>.py        # the whole config, dumped (one per launch)
        predictions/<model_abbr>/<dataset_abbr>.json   # or <dataset_abbr>_0.json, _1.json ... parts
        results/<model_abbr>/<dataset_abbr>.json  # what the evaluator returned

This module reads that layout and nothing else; it imports mmengine (the
loader OpenCompass reloads these files with), not OpenCompass.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def saved_config_paths(run_dir: Path) -> list[Path]:
    """The run's dumped configs, newest first (a ``-r`` relaunch adds one)."""
    return sorted((Path(run_dir) / "configs").glob("*.py"), key=lambda path: (path.stat().st_mtime, path.name),
                  reverse=True)


def load_saved_config(path: Path) -> dict:
    """One dumped config as a plain dict, read the way OpenCompass reads it.

    Raises:
        Exception: whatever mmengine raises for an unreadable file (callers
            report it with the path).
    """
    from mmengine.config import Config

    return Config.fromfile(str(path), format_python_code=False).to_dict()


def find_entry(entries: object, abbr: str) -> Mapping | None:
    """The ``models``/``datasets`` entry with this abbr.

    An entry without ``abbr`` matches when it is the only one (OpenCompass
    then derives the abbr from type and path).

    >>> find_entry([{"abbr": "a"}, {"abbr": "b"}], "b")
    {'abbr': 'b'}
    >>> find_entry([{"path": "x"}], "anything")
    {'path': 'x'}
    >>> find_entry([{"abbr": "a"}], "b") is None
    True
    """
    if not isinstance(entries, list):
        return None
    entries = [entry for entry in entries if isinstance(entry, Mapping)]
    for entry in entries:
        if entry.get("abbr") == abbr:
            return entry
    if len(entries) == 1 and "abbr" not in entries[0]:
        return entries[0]
    return None


def prediction_parts(run_dir: Path, model_abbr: str, dataset_abbr: str) -> list[Path]:
    """The predictions file of one model x dataset, or its ``_0``, ``_1``... parts in order ([] if none)."""
    folder = Path(run_dir) / "predictions" / model_abbr
    whole = folder / f"{dataset_abbr}.json"
    if whole.is_file():
        return [whole]
    parts = []
    while (folder / f"{dataset_abbr}_{len(parts)}.json").is_file():
        parts.append(folder / f"{dataset_abbr}_{len(parts)}.json")
    return parts
