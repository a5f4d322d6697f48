"""What several readers share (not a reader itself): the one dump file of a tool's output folder, a gold answer."""

from __future__ import annotations

import pathlib

from gpassk_opencompass.errors import InputError


def only_file(
    folder: pathlib.Path, found: list[pathlib.Path], kind: str, pattern: str, fix: str, per: str = "task and run"
) -> pathlib.Path:
    """The one file of ``found`` (the ``pattern`` files of ``folder``), else one line listing them.

    Args:
        folder: the output folder the user gave.
        found: the files matching ``pattern`` in it and its subfolders, sorted.
        kind: what one file is, e.g. ``"lm-eval samples file"``.
        pattern: the file name pattern, e.g. ``"samples_*.jsonl"``.
        fix: how to get one when there is none, e.g. ``"run lm_eval with --log_samples"``.
        per: what one file stands for, in the message for several ("one per task and run").

    Raises:
        InputError: no such file, or several (one per task and run).

    >>> only_file(pathlib.Path("out"), [pathlib.Path("out/a/s_1.jsonl")], "samples file", "s_*.jsonl", "run it")
    PosixPath('out/a/s_1.jsonl')
    """
    if not found:
        raise InputError(f"{folder}: no {kind} ({pattern}) in it or its subfolders; {fix}")
    if len(found) > 1:
        listed = ", ".join(str(file.relative_to(folder)) for file in found[:5]) + (", ..." if len(found) > 5 else "")
        raise InputError(f"{folder}: {len(found)} {kind}s (one per {per}): {listed}; give the one to score")
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
