"""Every file the project writes (the write door): atomically, only over a regular file, never over an input.

:func:`write_text_atomic` / :func:`write_bytes_atomic` / :func:`write_chunks_atomic` write a temporary file
beside the destination, flush it and ``os.replace`` it (a refused write is one
:class:`~gpassk_opencompass.errors.WriteError` line, :func:`failing_write`); :func:`check_replaceable` refuses a
device, FIFO, socket, folder or descriptor, before any work and again before the rename;
:func:`check_distinct_paths`, :func:`check_not_input` and :func:`check_not_inside` keep outputs and caches off
the inputs. See docs/scoring.md, "Writing files: only over a regular file", and docs/architecture.md, "Doors".

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
import fcntl
import os
import pathlib
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping

from gpassk_opencompass.errors import InputError, WriteError
from gpassk_opencompass.files import file_kind


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


def open_for_appending(path: str | os.PathLike) -> int:
    """A descriptor for appending to the regular file ``path``, created (with its folder) if missing.

    The rule of every write (:func:`check_replaceable`) holds: a device, FIFO or socket is refused in one line;
    the open cannot block (``O_NONBLOCK``: a FIFO put there since the check is refused by ``fstat``). Append with
    :func:`append_locked`; the caller closes the descriptor.
    """
    check_replaceable(None, path)
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        check_replaceable(None, path)  # says what it is
        raise InputError(f"{path} is not a regular file; {_ONLY_REGULAR}")  # replaced again since: still refused
    return descriptor


def append_locked(descriptor: int, path: str | os.PathLike, data: bytes, left: str) -> None:
    """Append ``data`` (whole lines) to the file open at ``descriptor`` under an exclusive ``flock``, ending a torn
    last line first; a refused write is one :class:`WriteError` (:func:`failing_write`) saying what was ``left``.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> _ = path.write_bytes(b'{"torn"')
    >>> descriptor = open_for_appending(path)
    >>> append_locked(descriptor, path, b'{"a": 1}\\n', left="nothing")
    >>> os.close(descriptor)
    >>> path.read_bytes()
    b'{"torn"\\n{"a": 1}\\n'
    """
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    try:
        size = os.fstat(descriptor).st_size
        if size and os.pread(descriptor, 1, size - 1) != b"\n":
            data = b"\n" + data
        written = 0
        with failing_write(path, left=left):
            while written < len(data):
                written += os.write(descriptor, data[written:])
    finally:
        fcntl.flock(descriptor, fcntl.LOCK_UN)


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
