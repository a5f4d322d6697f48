"""Every file the project writes: atomically, and never over one of its inputs.

Owns the rules that every writer in the package follows (the write door):

* **Atomic**: :func:`write_text_atomic` / :func:`write_bytes_atomic` / :func:`write_chunks_atomic` write a
  temporary file in the destination's own folder, flush it to disk, then
  ``os.replace`` it over the destination.  A crash or Ctrl-C leaves either
  the old file or the new one, never a half-written or empty one.  A write the
  file system refuses (disk full, file too large, permission) is one
  :class:`~gpassk_opencompass.errors.WriteError` line (:func:`failing_write`),
  with no temporary file left and an old file unchanged.
* **Only over a regular file**: :func:`check_replaceable` refuses a device, a
  FIFO, a socket, a folder or a process's descriptor (``/dev/stdout``), also
  through a symlink; every command calls it before any work through
  :func:`check_writable_file` / :func:`check_writable_folder`, and the writer
  calls it again right before the rename.  A symlink to a regular file is
  written through (its target replaced, the link kept).
* **Inputs are sacred**: :func:`check_distinct_paths` refuses, before any
  work, a set of paths where an output, a cache and an input are the same
  file (also through a symlink or a relative path), :func:`check_not_input`
  refuses an output that is one of a command's inputs, and
  :func:`check_not_inside` refuses an output placed inside an input folder.

And the one door for every untrusted byte the package reads (the second half of this module):

* **Regular files only**: :func:`open_regular` opens without blocking (a FIFO never hangs the open) and
  refuses a device, FIFO, socket or folder, also behind a symlink, in one line before any read.
* **Every read bounded before it happens**, never trusting a file's size: :func:`read_bytes_bounded` (a
  whole file), :func:`read_lines` / :func:`read_raw_lines` (line by line, each line bounded),
  :func:`read_head` / :func:`read_first_line` (what a format detector looks at; never raise),
  :func:`read_json_file` / :func:`load_json_text` (a JSON document: its bytes, its nesting depth and its
  containers, :func:`check_containers`, counted before the parser builds them).
* **Folder scans** (:func:`find_files`) never follow a directory symlink; what they list is read through
  the door, so a FIFO or device found in a folder is refused (or skipped with a notice) unopened.
* **Archives and columnar files** are bounded by their total unpacked size from their own metadata
  (:func:`open_zip`, :func:`open_parquet`, :func:`check_unpacked`), refused in one line before unpacking.

Every failure is one :class:`UnreadableFile` line (an ``InputError``) naming the file (and line), never a
``MemoryError`` or ``RecursionError`` traceback.

Imports nothing from the package but its errors (anything may import it).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_text_atomic(folder / "scores.json", '{"ok": true}\\n')
>>> (folder / "scores.json").read_text()
'{"ok": true}\\n'
>>> sorted(path.name for path in folder.iterdir())  # no temporary left behind
['scores.json']
>>> check_distinct_paths({"input": "gens.jsonl", "--output": "runs/../gens.jsonl"})
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: --output is the same file as input (runs/../gens.jsonl is gens.jsonl); give --output a different path
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import json
import os
import pathlib
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING

import numpy as np

from gpassk_opencompass.errors import InputError, WriteError, clause

if TYPE_CHECKING:
    import zipfile

    from pyarrow.parquet import ParquetFile

#: The most bytes one JSON document (a results file, a manifest, a JSONL line) may have.
MAX_JSON_BYTES = 256 * 1024 * 1024
#: The deepest nesting of arrays and objects accepted (the package's documents nest under 10 levels).
MAX_JSON_DEPTH = 100
#: The most arrays and objects one JSON document may hold: each costs ~60-200 bytes parsed, so a document of
#: ``[{},{},...]`` within :data:`MAX_JSON_BYTES` would cost ~5 GB. A results file holds about one per
#: generation (10,000 questions x n = 100 hold ~1.02 M), a generations line a few.
MAX_JSON_CONTAINERS = 8_000_000
#: The most bytes one line of a JSONL file may have (a line is one JSON document).
MAX_LINE_BYTES = MAX_JSON_BYTES
#: The most bytes an archive (a zip, the zstd members of an inspect ``.eval``) or a columnar file (parquet)
#: may unpack to in total, from its own metadata, before anything is unpacked.
MAX_UNPACKED_BYTES = 2 * 1024**3


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, fsync, rename).

    The destination's folder must exist.  Permissions of a new file follow the
    umask, like ``open(path, "w")``; an existing file's mode is kept.
    """
    write_chunks_atomic(path, (data,))


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (see :func:`write_bytes_atomic`).

    Text that cannot be UTF-8 (a lone surrogate) is written with U+FFFD in
    its place rather than failing after the work that produced it.
    """
    write_chunks_atomic(path, (text,))


def write_chunks_atomic(path: str | os.PathLike, chunks: Iterable[str | bytes]) -> None:
    """Write ``chunks`` one after another to ``path`` atomically, as :func:`write_bytes_atomic` and
    :func:`write_text_atomic` do (text as UTF-8, a lone surrogate as U+FFFD): a big document is written
    as it is produced, never held whole in memory.  If producing a chunk raises, ``path`` is untouched.

    The destination is checked again here, right before it is replaced (it may have changed since the
    command's :func:`check_writable_file`): only a regular file is ever replaced, or a new one created. A
    symlink is written through: its target is replaced atomically and the link stays a link.

    Raises:
        InputError: the destination (or a symlink's target) exists and is not a regular file; nothing is
            written.
        WriteError: the file system refused (disk full, file too large, permission, quota): one line naming
            the file and the cause; the temporary file is removed and an old file is left as it was.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.txt"
    >>> write_chunks_atomic(path, (f"{row}\\n" for row in range(3)))
    >>> path.read_text()
    '0\\n1\\n2\\n'
    >>> os.mkfifo(path.with_name("pipe"))
    >>> write_chunks_atomic(path.with_name("pipe"), ("results",))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: .../pipe is a FIFO (named pipe), not a regular file; only a regular file is ever written (or a new one created): give the path of a file
    """
    target = destination(path)
    check_replaceable(None, path)
    temporary = None
    try:
        with failing_write(path):
            descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        file = os.fdopen(descriptor, "wb")
        try:
            for chunk in chunks:  # what producing a chunk raises is the producer's, never a write failure
                with failing_write(path):
                    file.write(
                        chunk
                        if isinstance(chunk, bytes)
                        else chunk.encode("utf-8", errors="surrogatepass")
                        .decode("utf-8", errors="replace")
                        .encode("utf-8")
                    )
            with failing_write(path):
                file.flush()
                os.fsync(file.fileno())
        finally:
            with contextlib.suppress(OSError):  # after a failed write, closing fails the same way (and still closes)
                file.close()
        with failing_write(path):
            os.chmod(temporary, _mode_for(target))
        check_replaceable(None, path)  # the last look before the rename: it may have changed since the check
        with failing_write(path):
            os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise


@contextlib.contextmanager
def failing_write(
    path: str | os.PathLike, left: str = "nothing was written there (a file that was there is unchanged)"
) -> Iterator[None]:
    """Turn the file system's refusal (disk full, file too large, permission, quota) into one :class:`WriteError`
    naming ``path``, the cause, what was ``left`` and the fix.

    >>> with failing_write("runs/scores.json"):
    ...     raise OSError(errno.ENOSPC, "No space left on device")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.WriteError: runs/scores.json: cannot write (No space left on device); nothing was written there (a file that was there is unchanged): free some space or choose another place, then run again
    """
    try:
        yield
    except OSError as error:
        fix = _WRITE_FIXES.get(error.errno or 0, "choose another place")
        raise WriteError(
            f"{path}: cannot write ({error.strerror or error}); {left}: {fix}, then run again", str(path)
        ) from None


#: What to do about a refused write, by its ``errno`` (anything else: choose another place).
_WRITE_FIXES = {
    errno.ENOSPC: "free some space or choose another place",
    errno.EDQUOT: "free some of your quota or choose another place",
    errno.EFBIG: "raise the file size limit (ulimit -f) or choose another place",
    errno.EACCES: "choose a place you may write to",
    errno.EPERM: "choose a place you may write to",
    errno.EROFS: "choose a place on a writable file system",
}


def _mode_for(path: pathlib.Path) -> int:
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def destination(path: str | os.PathLike) -> pathlib.Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the file a symlink (chain) points to.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "latest.json").symlink_to("run3.json")
    >>> destination(folder / "latest.json") == folder.resolve() / "run3.json", destination("scores.json")
    (True, PosixPath('scores.json'))
    """
    path = pathlib.Path(path)
    return pathlib.Path(os.path.realpath(path)) if path.is_symlink() else path


def _descriptor_link(path: str | os.PathLike) -> str | None:
    """The hop of ``path``'s symlink chain that is a process's open file descriptor (``/proc/self/fd/1``, which
    ``/dev/stdout`` and ``/dev/fd/1`` name), or ``None``: replacing the file behind a descriptor would take
    it from under the process that holds it (``--output /dev/stdout > out.txt`` would lose what is printed)."""
    hop = os.path.abspath(path)
    for _ in range(40):  # the kernel's own bound on a chain of links
        if os.path.realpath(os.path.dirname(hop)).startswith("/proc/"):
            return hop
        if not os.path.islink(hop):
            return None
        hop = os.path.join(os.path.realpath(os.path.dirname(hop)), os.readlink(hop))
    return None


#: What :func:`file_kind` calls each kind of file that is not a regular one.
_KINDS = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISFIFO, "FIFO (named pipe)"),
    (stat.S_ISSOCK, "socket"),
)


def file_kind(mode: int) -> str:
    """What kind of file an ``st_mode`` is, in words for a message.

    >>> file_kind(os.stat("/dev/null").st_mode), file_kind(os.stat("/").st_mode)
    ('character device', 'folder')
    """
    return next((name for test, name in _KINDS if test(mode)), "regular file" if stat.S_ISREG(mode) else "special file")


def check_replaceable(role: str | None, path: str | os.PathLike) -> None:
    """Raise ``InputError`` if ``path`` exists and is not a regular file: the one rule of what a write replaces.

    Followed through symlinks: a link to a regular file is written through (:func:`write_chunks_atomic`), a link
    to a device, FIFO or socket is refused like the device itself.  Checks the file's type only (one ``stat``,
    nothing is opened), so a FIFO cannot block it.

    >>> check_replaceable("--output", "/dev/null")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --output /dev/null is a character device, not a regular file; only a regular file is ever written (or a new one created): give the path of a file
    >>> check_replaceable("--output", "/nonexistent-folder/scores.json")  # absent: created
    """
    named = f"{role} {path}" if role else str(path)
    descriptor = _descriptor_link(path)
    if descriptor is not None:
        through = "" if descriptor == os.path.abspath(path) else f" ({descriptor})"
        raise InputError(f"{named} is a process's open file descriptor{through}, not a file; {_ONLY_REGULAR}")
    try:
        mode = os.stat(path).st_mode
    except OSError:  # absent (or a dangling link: the file it names is created)
        return
    if not stat.S_ISREG(mode):
        target = destination(path)
        linked = "" if target == pathlib.Path(path) else f" (a symlink to {target})"
        raise InputError(f"{named}{linked} is a {file_kind(mode)}, not a regular file; {_ONLY_REGULAR}")


#: The rule every refusal of :func:`check_replaceable` states, and its fix.
_ONLY_REGULAR = "only a regular file is ever written (or a new one created): give the path of a file"


def same_file(first: str | os.PathLike, second: str | os.PathLike) -> bool:
    """Whether two paths name one file: same resolved path, or (both existing) the same inode.

    >>> same_file("a/../b.json", "b.json"), same_file("a.json", "b.json")
    (True, False)
    """
    first, second = pathlib.Path(first), pathlib.Path(second)
    if first.resolve() == second.resolve():
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def check_distinct_paths(paths: Mapping[str, str | os.PathLike | None]) -> None:
    """Raise ``InputError`` if two of the named paths are the same file; ``None`` entries are skipped.

    Args:
        paths: ``{role: path}`` in the order the user thinks of them (input
            first); the message names the later role as the one to change.
    """
    seen: list[tuple[str, pathlib.Path]] = []
    for role, path in paths.items():
        if path is None:
            continue
        path = pathlib.Path(path)
        for earlier_role, earlier in seen:
            if same_file(earlier, path):
                both = str(path) if str(path) == str(earlier) else f"{path} is {earlier}"  # a symlink, ./x vs x
                raise InputError(f"{role} is the same file as {earlier_role} ({both}); give {role} a different path")
        seen.append((role, path))


def check_not_inside(role: str, path: str | os.PathLike, folder_role: str, folder: str | os.PathLike) -> None:
    """Raise ``InputError`` if ``path`` is ``folder`` or lies inside it.

    >>> check_not_inside("--output", "runs/r1/rejudged", "the run", "runs/r1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --output runs/r1/rejudged is inside the run (runs/r1); choose a folder outside it
    >>> check_not_inside("--output", "runs/r1_rejudged", "the run", "runs/r1")
    """
    resolved, container = pathlib.Path(path).resolve(), pathlib.Path(folder).resolve()
    if resolved == container or container in resolved.parents:
        raise InputError(f"{role} {path} is inside {folder_role} ({folder}); choose a folder outside it")


def check_writable_file(role: str, path: str | os.PathLike) -> None:
    """Raise ``InputError`` now, before any work, if ``path`` cannot be written as a file.

    The check every command makes of each file it will write (``--output``, ``--cache``, ``--json``...): the
    folder exists and may be written, and the file is new or a regular file (:func:`check_replaceable`: never
    a device, FIFO, socket or descriptor, also through a symlink). :func:`write_chunks_atomic` checks again.

    >>> check_writable_file("--output", "/nonexistent-folder/scores.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --output /nonexistent-folder/scores.json: folder /nonexistent-folder does not exist
    """
    path = pathlib.Path(path)
    if path.is_dir():
        raise InputError(f"{role} {path} is a folder; give a file name such as {path / 'scores.json'}")
    check_replaceable(role, path)
    target = destination(path)
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"{role} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{role} {path}: folder {folder} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"{role} {path}: the file is not writable")


def check_writable_folder(role: str, folder: str | os.PathLike) -> None:
    """Raise ``InputError`` now, before any work, if ``folder`` cannot hold the files a command writes into it
    (``--plots DIR``, ``rejudge --output DIR``): it is a folder, or it can be made (its nearest existing parent
    is a writable folder). The files themselves go through :func:`write_chunks_atomic`.

    >>> check_writable_folder("--plots", "/dev/null")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --plots /dev/null is a character device, not a folder; give a folder (made if missing)
    """
    folder = pathlib.Path(folder)
    existing = next(parent for parent in (folder, *folder.absolute().parents) if os.path.lexists(parent))
    try:
        mode = os.stat(existing).st_mode
    except OSError:  # a dangling symlink
        raise InputError(
            f"{role} {folder}: {existing} is a symlink to nothing; give a folder (made if missing)"
        ) from None
    if not stat.S_ISDIR(mode):
        named = f"{role} {folder}" if existing == folder else f"{role} {folder}: {existing}"
        raise InputError(f"{named} is a {file_kind(mode)}, not a folder; give a folder (made if missing)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"{role} {folder}: folder {existing} is not writable")


def check_not_input(role: str, path: str | os.PathLike | None, inputs: Iterable[str | os.PathLike]) -> None:
    """Raise ``InputError`` if the output ``path`` is one of ``inputs``: same real path, or the same file
    (inode) through a symlink or hard link.

    >>> check_not_input("-o", "runs/./manifest.json", ["runs/manifest.json", "runs/r1/results/m/d.json"])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: -o runs/./manifest.json is one of the inputs (runs/manifest.json); writing it would destroy it: give -o another path
    >>> check_not_input("-o", "board.md", ["runs/manifest.json"])
    """
    if path is None:
        return
    for source in inputs:
        if same_file(source, path):
            raise InputError(
                f"{role} {path} is one of the inputs ({source}); writing it would destroy it: give {role} another path"
            )


class UnreadableFile(InputError):
    """A file that cannot be read as it is: one line naming it (and the line), what it is and the fix."""


class UnreadableJSON(UnreadableFile):
    """A JSON document that cannot be read: one line naming its file (and line)."""


def _not_regular(path: str | os.PathLike, mode: int) -> UnreadableFile | None:
    """The refusal of reading ``path`` whose ``st_mode`` is ``mode``, or ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return UnreadableFile(f"{path} is a {file_kind(mode)}, not a regular file; give the file itself")


def open_regular(path: str | os.PathLike) -> IO[bytes]:
    """Open ``path`` for reading in binary, if it is a regular file (a symlink to one is fine).

    The open never blocks (``O_NONBLOCK``: a FIFO with no writer opens at once) and the kind is checked on the
    open descriptor, so nothing is read from a device, FIFO or socket, and a file swapped after a check is
    not read either.

    Raises:
        UnreadableFile: ``path`` does not exist, cannot be opened, or is not a regular file (one line).

    >>> open_regular("/dev/zero")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableFile: /dev/zero is a character device, not a regular file; give the file itself
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        with contextlib.suppress(OSError):  # a socket cannot be opened (ENXIO): say what it is
            refusal = _not_regular(path, os.stat(path).st_mode)
            if refusal is not None:
                raise refusal from None
        raise UnreadableFile(f"{path}: cannot read ({error.strerror})") from None
    try:
        refusal = _not_regular(path, os.fstat(descriptor).st_mode)
        if refusal is not None:
            raise refusal
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def check_regular(path: str | os.PathLike) -> None:
    """Raise :class:`UnreadableFile` unless ``path`` opens as a regular file (:func:`open_regular`), reading nothing.

    >>> check_regular("/dev/null")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableFile: /dev/null is a character device, not a regular file; give the file itself
    """
    open_regular(path).close()


def read_bytes_bounded(path: str | os.PathLike, max_bytes: int, what: str = "this file") -> bytes:
    """The bytes of the regular file ``path``, refused once more than ``max_bytes`` have been read.

    The file's size is never trusted (a device's is 0, a file may grow): at most ``max_bytes + 1`` bytes are
    read.

    Raises:
        UnreadableFile: not a regular file, cannot be read, or over ``max_bytes`` ("M bytes, over the limit of
            N bytes for ``what``").
    """
    with open_regular(path) as file:
        try:
            data = file.read(max_bytes + 1)
            size = max(len(data), os.fstat(file.fileno()).st_size)
        except OSError as error:
            raise UnreadableFile(f"{path}: cannot read ({error.strerror})") from None
    if len(data) > max_bytes:
        raise UnreadableFile(f"{path}: {size:,} bytes, over the limit of {max_bytes:,} bytes for {what}")
    return data


def read_head(path: str | os.PathLike, limit: int) -> bytes | None:
    """The first ``limit`` bytes of ``path`` if it is a regular file, else ``None``; never raises (for detectors)."""
    try:
        with open_regular(path) as file:
            return file.read(limit)
    except (OSError, InputError):
        return None


def read_first_line(path: str | os.PathLike, max_bytes: int = MAX_LINE_BYTES) -> bytes | None:
    """The first non-blank line of ``path`` (a regular file), read at most ``max_bytes`` long; ``None`` when
    there is none, it is longer, or the file cannot be read. Never raises (for detectors).

    A line over a detector's quick look (a gpassk line of n = 48 long generations is megabytes) is still
    read whole, within the same bound as :func:`read_lines` reads it.
    """
    try:
        with open_regular(path) as file:
            while line := file.readline(max_bytes + 1):
                if len(line) > max_bytes and not line.endswith(b"\n"):
                    return None
                if line.strip():
                    return line
    except (OSError, InputError):
        return None
    return None


def read_raw_lines(path: str | os.PathLike, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of the regular file ``path`` as bytes, each with its newline; each read at most
    ``max_line_bytes + 1`` bytes long, so a 2 GB line is refused after that much, never held whole.

    Raises:
        UnreadableFile: not a regular file, cannot be read, or a line over ``max_line_bytes`` (naming the line).
    """
    with open_regular(path) as file:
        readline, number = file.readline, 0
        while line := readline(max_line_bytes + 1):
            number += 1
            if len(line) > max_line_bytes and not (len(line) == max_line_bytes + 1 and line.endswith(b"\n")):
                raise UnreadableFile(
                    f"{path} line {number}: over the limit of {max_line_bytes:,} bytes for one line; "
                    "is this the right file?"
                )
            yield line


def read_lines(path: str | os.PathLike, max_line_bytes: int = MAX_LINE_BYTES, encoding: str = "utf-8") -> Iterator[str]:
    """The lines of the regular text file ``path`` (:func:`read_raw_lines`), decoded, each with its newline.

    Raises:
        UnreadableFile: not a regular file, cannot be read, a line over ``max_line_bytes``, or not ``encoding``
            text (the message names the byte's offset in the file).

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
    >>> _ = path.write_bytes(b'{"id": 1}\\n' + b"x" * 20 + b"\\n")
    >>> list(read_lines(path, max_line_bytes=12))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableFile: ... line 2: over the limit of 12 bytes for one line; is this the right file?
    """
    offset = 0
    for line in read_raw_lines(path, max_line_bytes):
        try:
            yield line.decode(encoding)
        except UnicodeDecodeError as error:
            raise UnreadableFile(
                f"{path}: not {encoding.upper().removesuffix('-SIG')} text ({error.reason} at byte "
                f"{offset + error.start})"
            ) from None
        offset += len(line)


def find_files(folder: str | os.PathLike, *patterns: str) -> list[pathlib.Path]:
    """The regular files of ``folder`` whose path inside it matches one of ``patterns``, sorted.

    The one way the package scans a folder it was given. A pattern is a relative glob (``"*.json"``,
    ``"reviews/*/*.jsonl"``, ``"**/*.parquet"``: ``**`` is any number of folders) matched part by part; ``*``
    does not match a leading dot. A directory symlink is never entered (a link to a parent folder neither
    loops nor counts a file twice) nor listed; a symlink to a file is listed, a dangling one is not. A match
    that is not a regular file (a FIFO, a device, a socket) is listed as it is: opening it through
    :func:`open_regular` refuses it in one line, so the caller says what it does with it (a reader refuses,
    the leaderboard skips it with a notice), and nothing blocks.

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "a").mkdir(); _ = (root / "a" / "x.json").write_text("{}")
    >>> (root / "a" / "up").symlink_to(root)
    >>> [path.relative_to(root).as_posix() for path in find_files(root, "**/*.json", "*/up/a/*.json")]
    ['a/x.json']
    """
    split = [tuple(pattern.split("/")) for pattern in patterns]
    deepest = max((len(parts) - 1 if "**" not in parts else sys.maxsize for parts in split), default=-1)
    found: list[pathlib.Path] = []
    level: list[tuple[str, ...]] = [()]
    depth = 0
    while level and depth <= deepest:
        below: list[tuple[str, ...]] = []
        for inside in level:
            try:
                entries = list(os.scandir(pathlib.Path(folder, *inside)))
            except OSError:
                continue
            for entry in entries:
                relative = (*inside, entry.name)
                try:
                    if entry.is_dir(follow_symlinks=False):
                        below.append(relative)
                        continue
                    if not any(_glob_match(relative, parts) for parts in split):
                        continue
                    if entry.is_dir() or not os.path.exists(entry.path):  # a symlink to a folder, or dangling
                        continue
                except OSError:  # gone
                    continue
                found.append(pathlib.Path(entry.path))
        level, depth = below, depth + 1
    return sorted(found)


def _glob_match(names: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether a relative path's ``names`` match a glob's ``parts`` (``**``: zero or more folders)."""
    if not parts:
        return not names
    if parts[0] == "**":
        return any(_glob_match(names[skip:], parts[1:]) for skip in range(len(names)))
    return (
        bool(names)
        and (parts[0].startswith(".") or not names[0].startswith("."))
        and fnmatch.fnmatchcase(names[0], parts[0])
        and _glob_match(names[1:], parts[1:])
    )


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


def json_depth(value, limit: int) -> int:
    """How deep a parsed JSON ``value`` nests arrays and objects, counted up to ``limit + 1`` at most.

    Level by level (no recursion to overflow), so a document of a million
    shallow objects costs one pass over them.

    >>> json_depth({"a": [1, {"b": "[[["}]}, 100), json_depth(7, 100), json_depth([[[[[]]]]], 2)
    (3, 0, 3)
    """
    level = [value] if type(value) in _CONTAINERS else []
    depth = 0
    while level and depth <= limit:
        depth += 1
        nested: list = []
        for item in level:
            nested += [child for child in (item.values() if type(item) is dict else item) if type(child) in _CONTAINERS]
        level = nested
    return depth


_CONTAINERS = (dict, list)


def check_containers(text: str | bytes, source: str, max_containers: int = MAX_JSON_CONTAINERS) -> None:
    """Refuse a JSON document of over ``max_containers`` arrays and objects, counted on its text before a parser
    builds them: the ``[`` and ``{`` outside strings (counted anywhere first, an upper bound, cheap).

    >>> check_containers('{"a": [1, {"b": "[[{[{\\\\"}], "c": {}}', "r.json", max_containers=4)
    >>> check_containers('[{}, {}, {}, {}]', "r.json", max_containers=4)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: r.json: over 4 arrays and objects in one JSON document; is this the right file?
    """
    data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") > max_containers and _containers(data) > max_containers:
        raise UnreadableJSON(
            f"{source}: over {max_containers:,} arrays and objects in one JSON document; is this the right file?"
        )


def _containers(data: bytes, chunk: int = 1 << 24) -> int:
    """The ``[`` and ``{`` of a JSON text outside its strings: escapes dropped, then a running parity of the
    quotes marks what is inside a string (numpy, a chunk at a time: about a second for 256 MB)."""
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    total, inside = 0, 0
    for start in range(0, len(data), chunk):
        part = np.frombuffer(data, dtype=np.uint8, count=min(chunk, len(data) - start), offset=start)
        parity = np.bitwise_xor.accumulate((part == ord('"')).view(np.uint8)) ^ inside
        total += int(np.count_nonzero(((part == ord("{")) | (part == ord("["))) & (parity == 0)))
        inside = int(parity[-1])
    return total


def load_json_text(
    text: str | bytes,
    *,
    source: str,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    max_containers: int = MAX_JSON_CONTAINERS,
):
    """Parse one JSON document within size, depth and container limits; every failure one line naming ``source``.

    Args:
        text: the document (bytes must be UTF-8).
        source: how messages name it: ``"runs/r.json"``, ``"gens.jsonl line 7"``.
        max_bytes: refuse a larger document.
        max_depth: refuse arrays/objects nested deeper (:func:`json_depth` of the
            parsed value; the parser's own recursion guard stops far deeper ones).
        max_containers: refuse a document of more arrays and objects (:func:`check_containers`), before the
            parser builds them.

    Raises:
        UnreadableJSON: not UTF-8, not JSON, too big, too deep, too many containers, or an integer
            longer than Python's digit limit (``sys.get_int_max_str_digits()``).

    >>> load_json_text('{"a": [1, 2]}', source="r.json")
    {'a': [1, 2]}
    >>> load_json_text("[" * 200 + "]" * 200, source="r.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: r.json: JSON nested more than 100 levels deep; is this the right file?
    >>> load_json_text("[" + "{}," * 10 + "{}]", source="r.json", max_containers=10)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: r.json: over 10 arrays and objects in one JSON document; is this the right file?
    >>> load_json_text('{"n": ' + "9" * 5000 + "}", source="gens.jsonl line 3")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: gens.jsonl line 3: a number with 5000 digits, over Python's limit of 4300 for an integer; write it as a string
    >>> load_json_text('{"a": 1,}', source="m.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: m.json: not valid JSON (Expecting property name enclosed in double quotes at line 1 column 9)
    """
    too_deep = f"{source}: JSON nested more than {max_depth} levels deep; is this the right file?"
    if len(text) > max_bytes:  # characters: a lower bound of the bytes
        raise UnreadableJSON(
            f"{source}: {len(text):,} {'bytes' if isinstance(text, bytes) else 'characters'}, "
            f"over the limit of {max_bytes:,} bytes for one JSON document"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableJSON(f"{source}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    check_containers(text, source, max_containers)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UnreadableJSON(
            f"{source}: not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
        ) from None
    except RecursionError:  # the parser's own guard, some hundreds of levels down
        raise UnreadableJSON(too_deep) from None
    except ValueError as error:  # int(str) over sys.get_int_max_str_digits()
        digits = re.search(r"value has (\d+) digits", str(error))
        raise UnreadableJSON(
            f"{source}: a number with {digits.group(1) if digits else 'too many'} digits, over "
            f"Python's limit of {sys.get_int_max_str_digits()} for an integer; "
            "write it as a string"
        ) from None
    few_brackets = text.count("[") + text.count("{") <= max_depth  # cannot nest deeper: no walk
    if not few_brackets and json_depth(value, max_depth) > max_depth:
        raise UnreadableJSON(too_deep)
    return value


def read_json_file(
    path: str | os.PathLike,
    *,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    max_containers: int = MAX_JSON_CONTAINERS,
):
    """Read (:func:`read_bytes_bounded`) and parse (:func:`load_json_text`) a JSON file, every limit checked.

    Raises:
        UnreadableJSON: not a regular file, cannot be read, or :func:`load_json_text` refuses it.

    >>> read_json_file("/nonexistent/manifest.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: /nonexistent/manifest.json: cannot read (No such file or directory)
    >>> read_json_file("/dev/zero")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: /dev/zero is a character device, not a regular file; give the file itself
    """
    try:
        data = read_bytes_bounded(path, max_bytes, "one JSON document")
    except UnreadableFile as error:
        raise UnreadableJSON(str(error)) from None
    return load_json_text(
        data, source=str(path), max_bytes=max_bytes, max_depth=max_depth, max_containers=max_containers
    )
