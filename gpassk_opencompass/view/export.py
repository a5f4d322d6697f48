"""``gpassk view --export DIR``: the same page and documents as static files that open from ``file://``.

``DIR/index.html``, ``DIR/viewer.js``, ``DIR/viewer.css`` (the page's files) and one ``DIR/data/KEY.js`` per data
document (:meth:`~gpassk_opencompass.view.viewer.Viewer.document_keys`): one file per generation text, loaded only when it is
opened, never one huge page. Every file goes through the write door (atomically, only over a regular file), and none
is one of the inputs (checked for every file before the first is written).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gpassk_opencompass.console import progress
from gpassk_opencompass.files.writing import check_not_input, check_writable_folder, write_bytes_atomic
from gpassk_opencompass.log import logger
from gpassk_opencompass.view.keys import Key, document_script
from gpassk_opencompass.view.page import ASSETS, asset
from gpassk_opencompass.view.viewer import Viewer

#: The option that names the folder, in messages.
ROLE = "--export"


@dataclass(frozen=True)
class Exported:
    """What an export wrote: the folder, how many files and how many bytes."""

    folder: Path
    files: int
    size: int

    def describe(self) -> str:
        """The line ``gpassk view --export`` ends with.

        >>> Exported(Path("out"), 12, 3_500_000).describe()
        'exported out: 12 files, 3.5 MB (open out/index.html)'
        """
        return f"exported {self.folder}: {self.files:,} files, {self.size / 1e6:.1f} MB (open {self.folder / 'index.html'})"


def check_export_folder(folder: str | os.PathLike) -> None:
    """Up front, before anything is read: the folder can be written (or made)."""
    check_writable_folder(ROLE, folder)


def export(viewer: Viewer, folder: str | os.PathLike) -> Exported:
    """Write the page and every document into ``folder`` (made if missing).

    Raises:
        InputError: a file it would write is one of the inputs (before any is written).
    """
    folder = Path(folder)
    check_writable_folder(ROLE, folder)
    keys = list(viewer.document_keys())
    targets = [folder / name for name in ASSETS] + [data_path(folder, key) for key in keys]
    _check_not_inputs(targets, viewer.inputs)
    files = size = 0
    folder.mkdir(parents=True, exist_ok=True)
    missing = []
    for name in ASSETS:
        body = asset(name)
        if body is None:
            missing.append(name)
            continue
        write_bytes_atomic(folder / name, body)
        files, size = files + 1, size + len(body)
    if missing:
        logger.warning(f"the page ({', '.join(missing)}) is not installed: only its data is exported")
    made: set[Path] = set()
    for key, document in progress(viewer.documents(), total=len(keys), desc="exporting", unit="file", leave=False):
        target = data_path(folder, key)
        body = document_script(key.text, document)
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        write_bytes_atomic(target, body)
        files, size = files + 1, size + len(body)
    return Exported(folder, files, size)


def data_path(folder: Path, key: Key) -> Path:
    """Where a document is written: ``DIR/data/KEY.js``."""
    return folder / "data" / f"{key.text}.js"


def _check_not_inputs(targets: list[Path], inputs: tuple) -> None:
    """No target is an input: by resolved path and by (device, inode), the door's message for the one that is."""
    resolved = {Path(source).resolve() for source in inputs}
    identities = set()
    for source in inputs:
        try:
            stat = os.stat(source)
            identities.add((stat.st_dev, stat.st_ino))
        except OSError:
            continue
    for target in targets:
        hit = target.resolve() in resolved
        if not hit and os.path.lexists(target):
            try:
                stat = os.stat(target)
                hit = (stat.st_dev, stat.st_ino) in identities
            except OSError:
                hit = False
        if hit:
            check_not_input(ROLE, target, inputs)
