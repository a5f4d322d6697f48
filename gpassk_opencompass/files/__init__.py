"""The one door for every untrusted byte the package reads, and its two siblings: writing and archives.

Regular files only (:func:`open_regular`, never blocking on a FIFO; what a file is, :func:`file_identity`), every read bounded before it happens
(:func:`read_bytes_bounded`, :func:`read_lines`, :func:`read_head`, :func:`read_first_line`, :func:`read_tail`,
:func:`read_json_file`, :func:`load_json_text` with :func:`check_containers`), folder scans
(:func:`find_files`) that follow no directory symlink; every failure is one :class:`UnreadableFile` line.
:mod:`.writing` is the write door, :mod:`.archives` bounds zip and Parquet files by their unpacked size.
May import: :mod:`~gpassk_opencompass.errors`, nothing else of the package. See docs/scoring.md, "Reading input:
limits".

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.json"
>>> _ = path.write_text('{"ok": true}\\n')
>>> read_json_file(path)
{'ok': True}
>>> read_json_file(path.parent)
Traceback (most recent call last):
...
gpassk_opencompass.files.UnreadableJSON: ... is a folder, not a regular file; give the file itself
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import pathlib
import re
import stat
import sys
from collections.abc import Iterator
from typing import IO

import numpy as np

from gpassk_opencompass.errors import InputError

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


def file_identity(path: str | os.PathLike) -> tuple[int, int]:
    """What the regular file ``path`` names is: its ``(st_dev, st_ino)``, from ``fstat`` on the file opened by
    :func:`open_regular` (two names of one file, a symlink or a hard link, have one identity).

    >>> file_identity("/dev/null")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableFile: /dev/null is a character device, not a regular file; give the file itself
    """
    with open_regular(path) as file:
        status = os.fstat(file.fileno())
    return status.st_dev, status.st_ino


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


def read_tail(path: str | os.PathLike, limit: int) -> bytes | None:
    """The last ``limit`` bytes of ``path`` if it is a regular file, else ``None``; never raises (a log's tail).

    >>> import pathlib, tempfile
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "task.out"
    >>> _ = log.write_bytes(b"started\\n" + b"." * 100 + b"\\nfinished\\n")
    >>> read_tail(log, 9), read_tail(log.parent, 9)
    (b'finished\\n', None)
    """
    try:
        with open_regular(path) as file:
            file.seek(max(0, os.fstat(file.fileno()).st_size - limit))
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
