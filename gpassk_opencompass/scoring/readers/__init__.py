"""Readers of other tools' sample dumps: the one registry of input formats of ``gpassk score``.

A reader is a module of this package defining ``NAME`` (the format as on the
command line), ``DESCRIPTION`` (one line: the tool, what files),
``detect(path) -> bool`` (cheap, never raises) and ``read(path)`` yielding one
dict per question in the generations JSONL shape (``id``, ``question``,
``answer``, ``predictions``, optional ``language``, ``source_extracted``,
``source_verdicts``, ``finish_reasons``), or the lines of such a file as text. :func:`read_questions`
checks each record once, as a line of a generations file is checked
(:func:`~gpassk_opencompass.scoring.questions.parse_generations`).

A reader that sets ``SAMPLES = True`` yields sample rows instead, one per generation, as ``(where, row)``
pairs (the contract: :mod:`._samples`); they are grouped by id. A folder no reader claims whole, or a glob
(``'runs/seed*.jsonl'``), is one file per seed: each file read by its reader, joined by question id
(:func:`read_input`). A reader may name its tool's seed files with ``SEED_GLOB`` (``"output-rs*.jsonl"``):
a folder holding such files is then read as those files, one per seed. A file whose every record holds one
sample and whose question texts repeat evenly is a replicated dataset, grouped by question text when the largest
k is over 1 (it could not be scored otherwise; k = 1 scores it as it is).

To add a reader: one module here and one line in :data:`_MODULES`.

>>> FORMATS[:2], "lm-eval" in FORMATS
(('gpassk', 'qwen-math'), True)
>>> reader("qwen-math").NAME
'qwen-math'
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from fnmatch import fnmatchcase as fnmatch
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from gpassk_opencompass.checks import unknown
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import check_regular, find_files
from gpassk_opencompass.scoring.questions import Question, parse_generations
from gpassk_opencompass.scoring.readers._samples import (
    Layout,
    check_counts,
    group_replicas,
    group_samples,
    is_glob,
    join_seeds,
    one_sample_each,
    questions_of,
    rows_of_questions,
)
from gpassk_opencompass.scoring.readers.sniff import first_record

#: The reader modules, in detection order (the first whose ``detect`` says yes reads the file).
_MODULES = (
    "gpassk",
    "qwen_math",
    "lm_eval",
    "inspect",
    "evalscope",
    "lighteval",
    "opencompass",
    "nemo_skills",
    "long",
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
    """Every format with its description, one per line (``gpassk score --help``).

    >>> print(known_formats())  # doctest: +ELLIPSIS
      gpassk       gpassk's generations JSONL: one {id, question, answer, predictions} object per line
    ...
    """
    return "\n".join(f"  {module.NAME:<12} {module.DESCRIPTION}" for module in READERS)


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
    message = (
        f"{path}: not a format gpassk score knows ({', '.join(FORMATS)}; `gpassk score --help` says what each "
        f"reads){_fields_of(path)}; name it with --format NAME"
    )
    if (path / "predictions").is_dir():  # an OpenCompass run without predictions files (the reader says which)
        message += f", or to judge a finished OpenCompass run again use: gpassk rejudge {path}"
    raise InputError(message)


def _fields_of(path: Path) -> str:
    """What a JSONL file's first record has, for the message when no reader knows it (never raises)."""
    record = first_record(path, (".jsonl",))
    if not isinstance(record, dict):
        return ""
    fields = ", ".join(map(str, list(record)[:8])) + (", ..." if len(record) > 8 else "")
    return f"; its first record has {fields}; one generation per line needs id, question, answer, prediction"


class Read(NamedTuple):
    """What :func:`read_input` read: the questions, and how their samples were laid out (``None``: one record
    per question, as the gpassk format has it)."""

    questions: list[Question]
    layout: Layout | None


def read_questions(
    path: str | os.PathLike, format: str = AUTO, *, min_predictions: int = 1, allow_missing: bool = False
) -> list[Question]:
    """The questions of ``path`` in ``format`` (``auto``: :func:`detect_format`), validated (:func:`read_input`).

    Raises:
        InputError: an unknown format, a file the reader cannot read, a record that is not a valid
            question (the message names the file and the record).
    """
    return read_input(path, format, min_predictions=min_predictions, allow_missing=allow_missing).questions


def read_input(
    path: str | os.PathLike, format: str = AUTO, *, min_predictions: int = 1, allow_missing: bool = False
) -> Read:
    """The questions of ``path`` and how they were laid out: a file of one record per question, of sample rows
    (grouped by id), a replicated dataset (grouped by question text), or one file per seed (a folder or a glob,
    joined by question id; ``allow_missing``: a question absent from a seed's file keeps the samples found). A
    folder or glob of one file is read as that file.

    Raises:
        InputError: as :func:`read_questions`; also a question missing from a seed's file, two samples of
            one question in one seed's file, rows of one id that disagree, replicas whose gold answers differ.
    """
    files = seed_files(path, format)
    if files is not None and len(files) > 1:
        module = reader(_one_format(files, format))
        records, joined = join_seeds([(file, _rows(module, file)) for file in files], allow_missing=allow_missing)
        questions = questions_of(records, str(path))
        check_counts(questions, min_predictions, str(path))
        return Read(questions, joined)
    if files is not None:  # a folder (or glob) of one file: that file, in whatever layout it has
        path, format = files[0], _one_format(files, format)
    name = format_of(path, format)
    module, source = reader(name), str(path) if name == "gpassk" else f"{path} ({name})"
    layout: Layout | None = None
    if getattr(module, "SAMPLES", False):
        questions = questions_of(group_samples(module.read(Path(path))), source)
        layout = _layout(questions, "rows", "id")
    else:
        questions = parse_generations(module.read(Path(path)), source=source)
    replicas = group_replicas(questions, source) if min_predictions > 1 else None  # k = 1 needs no grouping
    if replicas is not None:
        questions, replicated = replicas
        layout = replicated if layout is None else replicated._replace(unit=layout.unit)  # rows of a long file
    elif min_predictions > 1 and all(len(question.predictions) == 1 for question in questions):
        raise InputError(one_sample_each(questions, min_predictions, source))
    elif layout is None and any(len(question.predictions) < min_predictions for question in questions):
        parse_generations(module.read(Path(path)), min_predictions=min_predictions, source=source)  # says the line
    check_counts(questions, min_predictions, source)
    return Read(questions, layout)


def read_rows(rows: Iterable[Mapping], source: str = "questions", *, min_predictions: int = 1) -> list[Question]:
    """Questions given in memory (:func:`~gpassk_opencompass.scoring.flow.score`): mappings shaped like the
    lines of a generations file, or sample rows (a ``prediction`` each, grouped by id), each named
    ``{source} row N``; a replicated dataset is grouped as in a file."""
    rows = list(rows)
    if rows and "prediction" in rows[0] and "predictions" not in rows[0]:
        questions = questions_of(group_samples((f"{source} row {i}", row) for i, row in enumerate(rows, 1)), source)
    else:
        questions = parse_generations(rows, min_predictions=1, source=source)
    replicas = group_replicas(questions, source) if min_predictions > 1 else None  # k = 1 needs no grouping
    if replicas is not None:
        questions = replicas[0]
    elif "predictions" in rows[0] and any(len(question.predictions) < min_predictions for question in questions):
        parse_generations(rows, min_predictions=min_predictions, source=source)  # says which line
    check_counts(questions, min_predictions, source)
    return questions


def _layout(questions: list[Question], unit: str, by: str) -> Layout:
    """The layout of questions grouped from one sample per row (so as many rows as samples)."""
    counts = [len(question.predictions) for question in questions]
    return Layout(sum(counts), unit, len(questions), min(counts), max(counts), by)


def _rows(module: ModuleType, file: Path) -> Iterator[tuple[str, object]]:
    """The sample rows of one seed's file: its reader's rows, or one per generation of its questions."""
    if getattr(module, "SAMPLES", False):
        return module.read(file)
    return rows_of_questions(parse_generations(module.read(file), source=str(file)), str(file))


#: The files a folder of one file per seed is read as (the default verdict cache beside them never is).
SEED_SUFFIXES = ("*.jsonl", "*.json", "*.parquet", "*.csv")
_CACHE_SUFFIX = ".judge-cache.jsonl"


def seed_files(path: str | os.PathLike, format: str = AUTO) -> list[Path] | None:
    """The files of one-file-per-seed input ``path``, in seed order; ``None`` when ``path`` is not one.

    One: a glob (``runs/seed*.jsonl``: its last part), or a folder that no reader reads whole (with
    ``format``: that reader), holding the files of a reader's ``SEED_GLOB`` or else its ``.jsonl``, ``.json``,
    ``.parquet`` and ``.csv`` files. Files named ``*.judge-cache.jsonl`` (verdict caches) are never among them.

    Raises:
        InputError: a glob that matches no file.
    """
    source = _seed_source(Path(path), format)
    if source is None:
        return None
    folder, patterns = source
    found = [file for file in find_files(folder, *patterns) if not file.name.endswith(_CACHE_SUFFIX)]
    if not found and is_glob(path):
        raise InputError(f"{path}: no file matches; give a folder, a file or a glob such as 'runs/seed*.jsonl'")
    return sorted(found, key=_seed_order) or None


def _seed_source(path: Path, format: str) -> tuple[Path, tuple[str, ...]] | None:
    """The folder and the name patterns of one-file-per-seed input ``path``; ``None`` when it is not one."""
    if is_glob(path):
        return path.parent, (path.name,)
    if not path.is_dir():
        return None
    modules = READERS if format == AUTO else (reader(format),)
    if any(module.detect(path) for module in modules):
        return None
    for module in modules:
        pattern = getattr(module, "SEED_GLOB", None)
        if pattern and find_files(path, pattern):
            return path, (pattern,)
    return path, SEED_SUFFIXES


def check_not_a_seed(path: str | os.PathLike, format: str, role: str, written: str | os.PathLike | None) -> None:
    """Refuse a file to be written (``--output``) that is, or once written would be, a seed's file of ``path``.

    >>> check_not_a_seed("runs/seed*.jsonl", AUTO, "--output", "runs/seed-all.jsonl")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --output runs/seed-all.jsonl is, or once written would be, read as one seed's file of runs/seed*.jsonl: give --output a path outside runs
    >>> check_not_a_seed("runs/seed*.jsonl", AUTO, "--output", "runs/scores.json")
    """
    source = _seed_source(Path(path), format)
    if source is None or written is None or Path(written).name.endswith(_CACHE_SUFFIX):
        return
    folder, patterns = source
    written = Path(written)
    if written.parent.resolve() == folder.resolve() and any(fnmatch(written.name, pattern) for pattern in patterns):
        raise InputError(
            f"{role} {written} is, or once written would be, read as one seed's file of {path}: give {role} a "
            f"path outside {folder}"
        )


def _seed_order(path: Path) -> list:
    """``seed2`` before ``seed10``: the numbers in a name compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def _one_format(files: list[Path], format: str) -> str:
    """The one format of every seed's file (``auto``: each detected), whose reader reads each file alone."""
    names = {file: _seed_format(file) if format == AUTO else reader(format).NAME for file in files}
    first = files[0]
    other = next((file for file in files if names[file] != names[first]), None)
    if other is not None:
        raise InputError(
            f"{other}: {names[other]} samples, but {first} holds {names[first]} ones; one file per seed means "
            "files of one format: give a glob that picks them (such as 'runs/seed*.jsonl')"
        )
    together = getattr(reader(names[first]), "files", None)
    if len(files) > 1 and together is not None and together(first) != [first]:  # OpenCompass's _0, _1 parts
        raise InputError(
            f"{first.parent}: its {names[first]} files are read together, not as one file per seed; give one of "
            f"them ({first})"
        )
    return names[first]


def _seed_format(file: Path) -> str:
    """The format of one seed's file, or one line saying a folder of seeds holds sample files only."""
    for module in READERS:
        if module.detect(file):
            return module.NAME
    raise InputError(
        f"{file}: not a file of samples gpassk score knows; a folder read as one file per seed must hold only "
        f"sample files ({', '.join(SEED_SUFFIXES)}): move it out, or give a glob that picks the seeds' files "
        f"('{file.parent}/seed*.jsonl')"
    )


def format_of(path: str | os.PathLike, format: str = AUTO) -> str:
    """The format name ``format`` stands for at ``path`` (``auto``: :func:`detect_format`; for one file per
    seed, the format of its files)."""
    files = seed_files(path, format)
    if files is not None:
        return _one_format(files, format)
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
    seeds = seed_files(path, format)
    if seeds is not None:
        return seeds
    module = reader(format_of(path, format))
    files = getattr(module, "files", None)
    return [Path(path)] if files is None else files(Path(path))


def input_anchor(path: str | os.PathLike) -> Path:
    """The path files made for input ``path`` are named after (the default verdict cache): ``path`` itself, or
    a glob without its wildcards (``runs/seed*.jsonl`` -> ``runs/seed.jsonl``; its cache
    ``runs/seed.judge-cache.jsonl`` is never read as a seed's file).

    >>> input_anchor("runs/seed*.jsonl"), input_anchor("runs/gens.jsonl")
    (PosixPath('runs/seed.jsonl'), PosixPath('runs/gens.jsonl'))
    """
    path = Path(path)
    if not is_glob(path):
        return path
    return path.with_name(re.sub(r"\[[^\]]*\]|[*?]", "", path.name) or "samples")
