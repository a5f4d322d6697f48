"""Readers of other tools' sample dumps: the one registry of input formats of ``gpassk score``.

A reader is a module of this package defining ``NAME`` (the format as on the
command line), ``DESCRIPTION`` (one line: the tool, what files),
``detect(path) -> bool`` (cheap, never raises) and ``read(path)`` yielding one
dict per question in the generations JSONL shape (``id``, ``question``,
``answer``, ``predictions``, optional ``language``, ``source_extracted``,
``source_verdicts``), or the lines of such a file as text. :func:`read_questions`
checks each record once, as a line of a generations file is checked
(:func:`~gpassk_opencompass.scoring.questions.parse_generations`).

To add a reader: one module here and one line in :data:`_MODULES`.

>>> FORMATS[:2], "lm-eval" in FORMATS
(('gpassk', 'qwen-math'), True)
>>> reader("qwen-math").NAME
'qwen-math'
"""

from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path
from types import ModuleType

from gpassk_opencompass.checks import unknown
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import check_regular
from gpassk_opencompass.scoring.questions import Question, parse_generations

#: The reader modules, in detection order (the first whose ``detect`` says yes reads the file).
_MODULES = (
    "gpassk",
    "qwen_math",
    "lm_eval",
    "inspect",
    "evalscope",
    "lighteval",
    "opencompass",
    # other readers: one line each, here
)
#: The value of ``--format`` that detects the format.
AUTO = "auto"


def _load() -> tuple[ModuleType, ...]:
    return tuple(import_module(f"{__name__}.{name}") for name in _MODULES)


READERS = _load()
#: The format names, in detection order.
FORMATS = tuple(module.NAME for module in READERS)


def reader(name: str) -> ModuleType:
    """The reader of format ``name``; :class:`InputError` with "did you mean" otherwise."""
    for module in READERS:
        if name == module.NAME:
            return module
    raise unknown("--format", name, FORMATS)


def known_formats() -> str:
    """Every format with its description, for messages: ``gpassk (...); qwen-math (...)``."""
    return "; ".join(f"{module.NAME} ({module.DESCRIPTION})" for module in READERS)


def detect_format(path: str | os.PathLike) -> str:
    """The format of ``path``: the first reader whose ``detect`` says yes.

    Raises:
        InputError: ``path`` does not exist, is neither a folder nor a regular file (a device, a FIFO: refused
            before any detector reads it), or no reader knows it (the message lists every format and the fix).
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if not path.is_dir():
        check_regular(path)
    for module in READERS:
        if module.detect(path):
            return module.NAME
    message = f"{path}: not a format gpassk score knows ({known_formats()}); name it with --format NAME"
    if path.is_dir():  # most often a finished OpenCompass run: that is judged again in place
        message += f", or to judge a finished OpenCompass run again use: gpassk rejudge {path}"
    raise InputError(message)


def read_questions(path: str | os.PathLike, format: str = AUTO, *, min_predictions: int = 1) -> list[Question]:
    """The questions of ``path`` in ``format`` (``auto``: :func:`detect_format`), validated.

    Raises:
        InputError: an unknown format, a file the reader cannot read, a record that is not a valid
            question (the message names the file and the record).
    """
    name = format_of(path, format)
    source = str(path) if name == "gpassk" else f"{path} ({name})"
    return parse_generations(reader(name).read(Path(path)), min_predictions=min_predictions, source=source)


def format_of(path: str | os.PathLike, format: str = AUTO) -> str:
    """The format name ``format`` stands for at ``path`` (``auto``: :func:`detect_format`)."""
    return detect_format(path) if format == AUTO else reader(format).NAME


def missing_verdicts(path: str | os.PathLike, format: str) -> str:
    """Why the input at ``path`` carries no per-sample verdicts of its own, as its reader can tell ('' if it cannot).

    A reader that can say more than "none" (an OpenCompass run evaluated without ``--dump-eval-details``)
    defines ``no_verdicts(path) -> str``.

    >>> missing_verdicts("tests/data/lm-eval", "lm-eval")
    ''
    """
    explain = getattr(reader(format), "no_verdicts", None)
    return "" if explain is None else explain(Path(path))


def input_files(path: str | os.PathLike, format: str = AUTO) -> list[Path]:
    """The files ``gpassk score`` reads for ``path`` in ``format``: ``path`` itself, or what its reader's ``files`` says.

    >>> input_files("tests/data/lm-eval", "lm-eval")  # doctest: +ELLIPSIS
    [PosixPath('tests/data/lm-eval/fake-math/samples_gpassk_arith_....jsonl')]

    Raises:
        InputError: as :func:`read_questions` would (no dump file in a folder, or several).
    """
    module = reader(format_of(path, format))
    files = getattr(module, "files", None)
    return [Path(path)] if files is None else files(Path(path))
