"""What several readers share (not a reader itself): finding a tool's dump file (or the one in its output folder), a
gold answer."""

from __future__ import annotations

import pathlib
from collections.abc import Callable

from gpassk_opencompass.errors import InputError

#: The files of a tool's output folder that may be its dump file, sorted.
Finder = Callable[[pathlib.Path], list[pathlib.Path]]


def detect_dump(
    path: pathlib.Path, looks_like: Callable[[pathlib.Path], bool], files_in: Finder, suffix: str = ""
) -> bool:
    """Whether ``path`` is a tool's dump file (``looks_like``; a ``suffix`` file), or a folder holding one; never raises.

    >>> detect_dump(pathlib.Path("no-such.jsonl"), lambda file: True, list, ".parquet")
    False
    """
    try:
        if path.is_dir():
            return any(looks_like(file) for file in files_in(path))
        return path.suffix == (suffix or path.suffix) and looks_like(path)
    except OSError:
        return False


def only_file(
    path: pathlib.Path, files_in: Finder, kind: str, pattern: str, fix: str, per: str = "task and run"
) -> pathlib.Path:
    """``path`` itself, or the one file ``files_in`` finds in a folder ``path``; none or several is one
    :class:`~gpassk_opencompass.errors.InputError` line naming the ``kind`` of file, its ``pattern``, the ``fix``
    and what one file stands for (``per``, e.g. "task and run").

    >>> import tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> only_file(folder, lambda _: [folder / "a/s_1.jsonl"], "samples file", "s_*.jsonl", "run it").name
    's_1.jsonl'
    """
    if not path.is_dir():
        return path
    found = files_in(path)
    if not found:
        raise InputError(f"{path}: no {kind} ({pattern}) in it or its subfolders; {fix}")
    if len(found) > 1:
        listed = ", ".join(str(file.relative_to(path)) for file in found[:5]) + (", ..." if len(found) > 5 else "")
        raise InputError(f"{path}: {len(found)} {kind}s (one per {per}): {listed}; give the one to score")
    return found[0]


def gold_answer(value: object, where: str, field: str, fix: str) -> str:
    """A tool's gold answer as the text gpassk compares with: a string, or a number written as text.

    A list of exactly one is that one (EvalScope, inspect). Anything else is one line naming ``where``,
    the tool's ``field``, the value and ``fix``.

    >>> gold_answer(42, "f line 1", '"target"', "score a task with one gold answer"), gold_answer(["7"], "", "", "")
    ('42', '7')
    """
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise InputError(
        f"{where}: {field} must be one gold answer (a string or a number), got {type(value).__name__} "
        f"{value!r:.60}; {fix}"
    )
