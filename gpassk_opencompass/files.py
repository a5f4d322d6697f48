"""Every file the project writes: atomically, and never over one of its inputs.

Owns two rules that every writer in the package follows:

* **Atomic**: :func:`write_text_atomic` / :func:`write_bytes_atomic` write a
  temporary file in the destination's own folder, flush it to disk, then
  ``os.replace`` it over the destination.  A crash or Ctrl-C leaves either
  the old file or the new one, never a half-written or empty one.
* **Inputs are sacred**: :func:`check_distinct_paths` refuses, before any
  work, a set of paths where an output, a cache and an input are the same
  file (also through a symlink or a relative path), and
  :func:`check_not_inside` refuses an output placed inside an input folder.

Imports nothing from the package (anything may import it).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_text_atomic(folder / "scores.json", '{"ok": true}\\n')
>>> (folder / "scores.json").read_text()
'{"ok": true}\\n'
>>> sorted(path.name for path in folder.iterdir())  # no temporary left behind
['scores.json']
>>> check_distinct_paths({"input": folder / "gens.jsonl", "--output": folder / "./gens.jsonl"})
Traceback (most recent call last):
...
ValueError: --output is the same file as input (...gens.jsonl); give --output a different path
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile
from collections.abc import Mapping


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, fsync, rename).

    The destination's folder must exist.  Permissions of a new file follow the
    umask, like ``open(path, "w")``; an existing file's mode is kept.
    """
    path = pathlib.Path(path)
    folder = path.parent if str(path.parent) else pathlib.Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (see :func:`write_bytes_atomic`).

    Text that cannot be UTF-8 (a lone surrogate) is written with U+FFFD in
    its place rather than failing after the work that produced it.
    """
    write_bytes_atomic(path, text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")
                       .encode("utf-8"))


def _mode_for(path: pathlib.Path) -> int:
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


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
    """Raise ``ValueError`` if two of the named paths are the same file; ``None`` entries are skipped.

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
                raise ValueError(f"{role} is the same file as {earlier_role} ({path}); "
                                 f"give {role} a different path")
        seen.append((role, path))


def check_not_inside(role: str, path: str | os.PathLike, folder_role: str, folder: str | os.PathLike) -> None:
    """Raise ``ValueError`` if ``path`` is ``folder`` or lies inside it.

    >>> check_not_inside("--output", "runs/r1/rejudged", "the run", "runs/r1")
    Traceback (most recent call last):
    ...
    ValueError: --output runs/r1/rejudged is inside the run (runs/r1); choose a folder outside it
    >>> check_not_inside("--output", "runs/r1_rejudged", "the run", "runs/r1")
    """
    resolved, container = pathlib.Path(path).resolve(), pathlib.Path(folder).resolve()
    if resolved == container or container in resolved.parents:
        raise ValueError(f"{role} {path} is inside {folder_role} ({folder}); choose a folder outside it")


def check_writable_file(role: str, path: str | os.PathLike) -> None:
    """Raise ``ValueError`` now, before any work, if ``path`` cannot be written as a file.

    >>> check_writable_file("--output", "/nonexistent-folder/scores.json")
    Traceback (most recent call last):
    ...
    ValueError: --output /nonexistent-folder/scores.json: folder /nonexistent-folder does not exist
    """
    path = pathlib.Path(path)
    if path.is_dir():
        raise ValueError(f"{role} {path} is a folder; give a file name such as {path / 'scores.json'}")
    folder = path.parent if str(path.parent) else pathlib.Path(".")
    if not folder.is_dir():
        raise ValueError(f"{role} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{role} {path}: folder {folder} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{role} {path}: the file is not writable")
