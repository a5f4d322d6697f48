"""What the readers' ``detect`` look at: the first record of a file, read cheaply and never raising."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path

from gpassk_opencompass.files import UnreadableJSON, load_json_text, read_first_line, read_head

#: The most a reader reads to decide whether a file is its format, unless its first line is longer.
SNIFF_BYTES = 1024 * 1024


def first_record(path: Path, suffixes: Sequence[str]) -> object:
    """The first non-blank line of a JSONL file with one of ``suffixes``, parsed; ``None`` if there is none.

    A first line longer than :data:`SNIFF_BYTES` (a gpassk line of 48 long generations) that opens an object is
    read whole, within the bound of a line (:func:`~gpassk_opencompass.files.read_first_line`).

    >>> first_record(Path("no-such-file.jsonl"), (".jsonl",)) is None
    True
    """
    if path.suffix not in suffixes:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return _first_record(str(path), (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns))


@functools.lru_cache(maxsize=1)  # the detectors of one --format auto ask in turn: the file is read once
def _first_record(path: str, identity: tuple[int, ...]) -> object:
    data = read_head(path, SNIFF_BYTES)
    line, newline, _ = (data or b"").lstrip().partition(b"\n")
    if not newline and data is not None and len(data) == SNIFF_BYTES:  # the first line goes on past the sniff
        whole = read_first_line(path) if line.startswith(b"{") else None
        if whole is None:
            return None
        line = whole
    try:
        return load_json_text(line, source=path) if line.strip() else None
    except UnreadableJSON:
        return None
