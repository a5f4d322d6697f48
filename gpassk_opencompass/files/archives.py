"""Archives and columnar files, bounded by their total unpacked size from their own metadata.

:func:`open_zip` (a zip, the zstd members of an inspect ``.eval``) and :func:`open_parquet` open through the
read door (:func:`~gpassk_opencompass.files.open_regular`) and refuse, in one line before anything is unpacked,
a file whose metadata says it unpacks to over :data:`MAX_UNPACKED_BYTES` (:func:`check_unpacked`); a file
pyarrow cannot decode or memory cannot hold is one :class:`~gpassk_opencompass.files.UnreadableFile` line
(:func:`parquet_unreadable`, :func:`out_of_memory`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from gpassk_opencompass.errors import clause
from gpassk_opencompass.files import UnreadableFile, open_regular

if TYPE_CHECKING:
    import zipfile

    from pyarrow.parquet import ParquetFile

#: The most bytes an archive (a zip, the zstd members of an inspect ``.eval``) or a columnar file (parquet)
#: may unpack to in total, from its own metadata, before anything is unpacked.
MAX_UNPACKED_BYTES = 2 * 1024**3


def check_unpacked(source: str | os.PathLike, size: int, max_bytes: int = MAX_UNPACKED_BYTES) -> None:
    """Refuse, before unpacking, an archive or columnar file whose metadata says it unpacks to over ``max_bytes``.

    >>> check_unpacked("log.eval", 3 * 1024**3)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableFile: log.eval: unpacks to 3,221,225,472 bytes, over the limit of 2,147,483,648 bytes for one input file; give a smaller one (one task's)
    """
    if size > max_bytes:
        raise UnreadableFile(
            f"{source}: unpacks to {size:,} bytes, over the limit of {max_bytes:,} bytes for one input file; "
            "give a smaller one (one task's)"
        )


@contextlib.contextmanager
def open_zip(path: str | os.PathLike, max_bytes: int | None = MAX_UNPACKED_BYTES) -> Iterator[zipfile.ZipFile]:
    """The zip archive at ``path`` (a regular file), its members' total unpacked size checked (:func:`check_unpacked`).

    Each member's size is what its central-directory entry says; a member is read at most that many bytes
    (``zipfile`` stops there and checks the CRC; a reader unpacking a member itself must do the same), so the
    sum bounds what the archive can cost. ``max_bytes=None`` skips the check: for a detector that reads only
    the member names.

    Raises:
        UnreadableFile: not a regular file, not a zip, or too big unpacked.
    """
    import zipfile  # stdlib, only the readers of archives need it

    with open_regular(path) as file:
        try:
            archive = zipfile.ZipFile(file)
        except (OSError, zipfile.BadZipFile, ValueError, EOFError) as error:
            raise UnreadableFile(f"{path}: not a readable zip archive ({clause(error)})") from None
        with archive:
            if max_bytes is not None:
                check_unpacked(path, sum(info.file_size for info in archive.infolist()), max_bytes)
            yield archive


@contextlib.contextmanager
def open_parquet(path: str | os.PathLike, columns: Iterable[str] | None = None) -> Iterator[ParquetFile]:
    """The parquet file at ``path`` (a regular file), its total unpacked size checked before any page is read.

    The size is the sum of the ``total_uncompressed_size`` of every column chunk of ``columns`` (all when
    ``None``) in the footer: what reading them costs at the least, whatever the file's own size.

    Raises:
        UnreadableFile: not a regular file, not parquet, too big unpacked, or out of memory reading the footer
            (never reported as "not readable").
    """
    import pyarrow
    import pyarrow.parquet as parquet

    with open_regular(path) as file:
        try:
            opened = parquet.ParquetFile(file)
            metadata = opened.metadata
        except (MemoryError, OSError, pyarrow.ArrowException) as error:
            raise parquet_unreadable(path, error) from None
        wanted = None if columns is None else set(columns)
        check_unpacked(
            path,
            sum(
                chunk.total_uncompressed_size
                for group in range(metadata.num_row_groups)
                for chunk in map(metadata.row_group(group).column, range(metadata.num_columns))
                if wanted is None or chunk.path_in_schema.split(".")[0] in wanted
            ),
        )
        yield opened


def parquet_unreadable(source: str | os.PathLike, error: Exception) -> UnreadableFile:
    """The one line for a parquet file the system cannot read, pyarrow cannot decode, or memory cannot hold."""
    if isinstance(error, MemoryError):  # pyarrow's ArrowMemoryError is one too
        return out_of_memory(source, error)
    if isinstance(error, OSError) and error.errno is not None:
        return UnreadableFile(f"{source}: cannot read ({error.strerror})")
    reason = " ".join(str(error).split())[:200]
    return UnreadableFile(f"{source}: not a readable parquet file ({reason})")


def out_of_memory(source: str | os.PathLike, error: MemoryError) -> UnreadableFile:
    """The one line for an allocation that failed while unpacking ``source`` (never "not readable")."""
    reason = clause(error) or "MemoryError"
    return UnreadableFile(
        f"{source}: ran out of memory unpacking it ({reason}); give it more memory or a smaller file (one task's)"
    )
