"""Where every generation's text is, never the text itself: a file's identity, a byte offset and a length.

:class:`TextStore` holds, per generation, which file (its device, inode, size and modification time: a file
changed or swapped since is refused, never read as the old one), where its bytes start and how many there are,
and -- for a line of a generations JSONL file -- which of the line's ``predictions`` it is. A generations file of
the gpassk format is indexed where it lies (:meth:`TextStore.add_line`); another tool's files, read whole by their
reader, are copied once into a private spool file (:meth:`TextStore.add_text`) and dropped from memory. Every read
goes through the read door (:func:`~gpassk_opencompass.files.open_regular`) and is bounded by the length recorded.

>>> store = TextStore()
>>> first = store.add_text("the answer is \\\\boxed{4}")
>>> store.read(first)
'the answer is \\\\boxed{4}'
>>> store.close()
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import MAX_LINE_BYTES, load_json_text, open_regular

#: The longest generation text the viewer reads back (a line of a generations file is bounded by the read door).
MAX_TEXT_BYTES = MAX_LINE_BYTES


class ChangedFile(InputError):
    """A file indexed at start-up was changed, replaced or removed since: its offsets no longer hold."""


@dataclass(frozen=True)
class FileIdentity:
    """A file as it was when indexed: path, device, inode, size and modification time."""

    path: str
    device: int
    inode: int
    size: int
    modified: int

    @classmethod
    def of(cls, path: str, stat: os.stat_result) -> FileIdentity:
        return cls(path, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def same(self, stat: os.stat_result) -> bool:
        """Whether an open file is still this one (same inode, size and modification time)."""
        return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns) == (
            self.device,
            self.inode,
            self.size,
            self.modified,
        )


class TextStore:
    """The byte offsets of generation texts (see the module docstring): 22 bytes per generation in memory."""

    def __init__(self) -> None:
        self.files: list[FileIdentity] = []
        self._file = array("i")
        self._offset = array("q")
        self._length = array("q")
        self._item = array("i")  # the position in a JSONL line's predictions; -1: raw UTF-8 bytes
        self._spool: str | None = None
        self._spool_file: BinaryIO | None = None
        self._spool_index = -1
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offset)

    def add_file(self, path: str, stat: os.stat_result) -> int:
        """Register a file as it is now (its :class:`FileIdentity`); its number for :meth:`add_line`."""
        self.files.append(FileIdentity.of(path, stat))
        return len(self.files) - 1

    def add_line(self, file: int, offset: int, length: int, items: int) -> int:
        """Register the ``items`` generations of one JSONL line (its ``predictions``); the first one's position."""
        first = len(self._offset)
        for item in range(items):
            self._file.append(file)
            self._offset.append(offset)
            self._length.append(length)
            self._item.append(item)
        return first

    def add_text(self, text: str) -> int:
        """Copy one generation into the spool (a private temporary file, removed by :meth:`close`); its position."""
        with self._lock:
            if self._spool_file is None:
                self._spool = tempfile.mkdtemp(prefix="gpassk-view-")  # mode 0700: this user's only
                path = os.path.join(self._spool, "texts.bin")
                self._spool_file = open(path, "xb")  # noqa: SIM115  # kept open while texts are added
                self.files.append(FileIdentity(path, 0, 0, 0, 0))
                self._spool_index = len(self.files) - 1
            spool = self._spool_file
            data = text.encode("utf-8", "surrogatepass")
            offset = spool.tell()
            spool.write(data)
            self._file.append(self._spool_index)
            self._offset.append(offset)
            self._length.append(len(data))
            self._item.append(-1)
            return len(self._offset) - 1

    def seal(self) -> None:
        """Finish the spool: flushed, and its identity recorded (no text is added after)."""
        with self._lock:
            if self._spool_file is not None:
                self._spool_file.close()
                path = self.files[self._spool_index].path
                self.files[self._spool_index] = FileIdentity.of(path, os.stat(path))
                self._spool_file = None

    def read(self, position: int) -> str:
        """The text of one generation, read now through the read door.

        Raises:
            ChangedFile: its file changed since it was indexed.
        """
        return self.read_many([position])[0]

    def read_many(self, positions: Sequence[int]) -> list[str]:
        """The texts of several generations, each line of a JSONL file read and parsed once."""
        self.seal()
        lines: dict[tuple[int, int, int], list] = {}
        texts = []
        for position in positions:
            file, offset, length, item = (
                self._file[position],
                self._offset[position],
                self._length[position],
                self._item[position],
            )
            key = (file, offset, length)
            if key not in lines:
                lines[key] = self._load(file, offset, length, item >= 0)
            value = lines[key]
            texts.append(value[item] if item >= 0 else value[0])
        return texts

    def _load(self, file: int, offset: int, length: int, line: bool) -> list:
        identity = self.files[file]
        if length > MAX_TEXT_BYTES:
            raise ChangedFile(f"{identity.path}: {length:,} bytes at {offset:,}, over the limit of {MAX_TEXT_BYTES:,}")
        with open_regular(identity.path) as handle:
            if not identity.same(os.fstat(handle.fileno())):
                raise ChangedFile(f"{identity.path} changed since gpassk view read it; start gpassk view again")
            handle.seek(offset)
            data = handle.read(length)
        if len(data) != length:
            raise ChangedFile(f"{identity.path} changed since gpassk view read it; start gpassk view again")
        if not line:
            return [data.decode("utf-8", "surrogatepass")]
        record = load_json_text(data, source=f"{identity.path} at byte {offset}")
        predictions = record.get("predictions") if isinstance(record, dict) else None
        if not isinstance(predictions, list):
            raise ChangedFile(f"{identity.path} changed since gpassk view read it; start gpassk view again")
        return predictions

    def close(self) -> None:
        """Remove the spool (the indexed files themselves are never touched)."""
        self.seal()
        if self._spool is not None:
            shutil.rmtree(self._spool, ignore_errors=True)
            self._spool = None
