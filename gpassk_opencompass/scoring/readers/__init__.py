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
from gpassk_opencompass.files import check_regular, file_identity, find_files
from gpassk_opencompass.scoring.questions import CheckedQuestions, Question, check_count, parse_generations
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


class InputFile(NamedTuple):
    """One file read for an input, and what it is: ``(st_dev, st_ino)`` from the read door
    (:func:`~gpassk_opencompass.files.file_identity`), so two names of one file are one file."""

    path: Path
    identity: tuple[int, int]


class ResolvedInput(NamedTuple):
    """An input of ``gpassk score`` worked out once (:func:`resolve_input`): everything downstream takes this value
    and none of it looks at the path again to learn its format, its files or its layout.

    >>> resolved = resolve_input("tests/data/lm-eval", "auto")
    >>> resolved.format, resolved.seeds, [file.path.name[:8] for file in resolved.files]
    ('lm-eval', False, ['samples_'])
    """

    #: the input as given (a file, a folder, a glob)
    given: Path
    #: what the reader reads: the file or folder itself, the one file of a folder of one seed, or (``seeds``) the
    #: folder or glob of the seeds' files
    path: Path
    #: the format's name (:data:`FORMATS`)
    format: str
    #: every file read, each once (a seed's files in seed order; a reader's ``files``)
    files: tuple[InputFile, ...]
    #: several files of one sample per question each, joined by question id
    seeds: bool
    #: the folder and name patterns of one-file-per-seed input (``None``: not one): what no output may be named
    seed_source: tuple[Path, tuple[str, ...]] | None

    @property
    def identity(self) -> tuple[tuple[int, int], ...]:
        """The identities of the files read, in order: what the input is, whatever it is called."""
        return tuple(file.identity for file in self.files)


def resolve_input(path: str | os.PathLike | ResolvedInput, format: str = AUTO) -> ResolvedInput:
    """Work out once what input ``path`` is: its files (each with its identity), its format and its layout.

    Raises:
        InputError: no such input, no reader knows it, seed files of mixed formats, or one file reached under two
            names (a symlink or a hard link: one line naming both), before anything is read.
    """
    if isinstance(path, ResolvedInput):
        return path
    given = Path(path)
    if format != AUTO:
        reader(format)  # an unknown format: "did you mean", before anything else
    source, name = _seed_source(given, format)
    read, joined, found = given, False, None
    if source is not None:
        found = _found_seeds(given, source)
        if found:
            name = _one_format(found, format)
            joined = len(found) > 1
            if not joined:  # a folder (or glob) of one file: that file, in whatever layout it has
                read = found[0]
    if name is None:
        name = detect_format(given) if format == AUTO else reader(format).NAME
    if joined:
        files = found or []
    else:
        together = getattr(reader(name), "files", None)
        files = [read] if together is None else together(read)
    return ResolvedInput(given, read, name, _identified(files), joined, source)


def _identified(files: Iterable[Path]) -> tuple[InputFile, ...]:
    """Each file with its identity; one file under two names is one :class:`InputError` line naming both."""
    seen: dict[tuple[int, int], Path] = {}
    identified = []
    for file in files:
        if file.is_dir():  # a reader's folder (it says itself what it lacks): what it is, by stat
            status = file.stat()
            identity = status.st_dev, status.st_ino
        else:
            identity = file_identity(file)
        first = seen.setdefault(identity, file)
        if first != file:
            raise InputError(
                f"{first} and {file} are one file under two names (a symlink or a hard link: device {identity[0]}, "
                f"inode {identity[1]}); each file is read once, and counting it twice would add samples that were "
                "never drawn: remove one of the names, or give a glob that picks each file once"
            )
        identified.append(InputFile(file, identity))
    return tuple(identified)


def read_questions(
    path: str | os.PathLike | ResolvedInput,
    format: str = AUTO,
    *,
    min_predictions: int = 1,
    allow_missing: bool = False,
) -> list[Question]:
    """The questions of ``path`` in ``format`` (``auto``: :func:`detect_format`), validated (:func:`read_input`).

    Raises:
        InputError: an unknown format, a file the reader cannot read, a record that is not a valid
            question (the message names the file and the record).
    """
    return read_input(path, format, min_predictions=min_predictions, allow_missing=allow_missing).questions


def read_input(
    path: str | os.PathLike | ResolvedInput,
    format: str = AUTO,
    *,
    min_predictions: int = 1,
    allow_missing: bool = False,
) -> Read:
    """The questions of ``path`` (resolved once: :func:`resolve_input`) and how they were laid out: a file of one
    record per question, of sample rows (grouped by id), a replicated dataset (grouped by question text), or one
    file per seed (a folder or a glob, joined by question id; ``allow_missing``: a question absent from a seed's
    file keeps the samples found). A folder or glob of one file is read as that file.

    Raises:
        InputError: as :func:`read_questions`; also a question missing from a seed's file, two samples of
            one question in one seed's file, rows of one id that disagree, replicas whose gold answers differ.
    """
    resolved = resolve_input(path, format)
    module = reader(resolved.format)
    if resolved.seeds:
        files = [file.path for file in resolved.files]
        records, joined = join_seeds([(file, _rows(module, file)) for file in files], allow_missing=allow_missing)
        questions = questions_of(records, str(resolved.given))
        check_counts(questions, min_predictions, str(resolved.given))
        return Read(CheckedQuestions(questions, min_predictions), joined)
    name, read = resolved.format, resolved.path
    source = str(read) if name == "gpassk" else f"{read} ({name})"
    layout: Layout | None = None
    lines: list[int] = []  # per question of a file of one record each, its line
    if getattr(module, "SAMPLES", False):
        questions = questions_of(group_samples(module.read(read)), source)
        layout = _layout(questions, "rows", "id")
    else:
        questions = parse_generations(module.read(read), min_predictions=None, source=source, lines=lines)
    replicas = group_replicas(questions, source) if min_predictions > 1 else None  # k = 1 needs no grouping
    if replicas is not None:
        questions, replicated = replicas
        layout = replicated if layout is None else replicated._replace(unit=layout.unit)  # rows of a long file
    elif min_predictions > 1 and all(len(question.predictions) == 1 for question in questions):
        raise InputError(one_sample_each(questions, min_predictions, source))
    if layout is None:  # one record per question: a count is named by its line, as read (never read twice)
        for question, line in zip(questions, lines):
            check_count(question.id, len(question.predictions), min_predictions, f"{source} line {line}")
    else:
        check_counts(questions, min_predictions, source)
    return Read(CheckedQuestions(questions, min_predictions), layout)


def read_rows(rows: Iterable[Mapping], source: str = "questions", *, min_predictions: int = 1) -> list[Question]:
    """Questions given in memory (:func:`~gpassk_opencompass.scoring.flow.score`): mappings shaped like the
    lines of a generations file, or sample rows (a ``prediction`` each, grouped by id), each named
    ``{source} row N``; a replicated dataset is grouped as in a file."""
    rows = list(rows)
    lines: list[int] = []  # per question given as one mapping, its line
    if rows and "prediction" in rows[0] and "predictions" not in rows[0]:
        questions = questions_of(group_samples((f"{source} row {i}", row) for i, row in enumerate(rows, 1)), source)
    else:
        questions = parse_generations(rows, min_predictions=None, source=source, lines=lines)
    replicas = group_replicas(questions, source) if min_predictions > 1 else None  # k = 1 needs no grouping
    if replicas is not None:
        questions = replicas[0]
        check_counts(questions, min_predictions, source)
    elif lines:  # says which line, from what was parsed
        for question, line in zip(questions, lines):
            check_count(question.id, len(question.predictions), min_predictions, f"{source} line {line}")
    else:
        check_counts(questions, min_predictions, source)
    return CheckedQuestions(questions, min_predictions)


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
    source, _ = _seed_source(Path(path), format)
    return None if source is None else _found_seeds(Path(path), source)


def _found_seeds(path: Path, source: tuple[Path, tuple[str, ...]]) -> list[Path] | None:
    """The seeds' files of ``source`` (:func:`_seed_source`), in seed order; ``None``: none."""
    folder, patterns = source
    found = [file for file in find_files(folder, *patterns) if not file.name.endswith(_CACHE_SUFFIX)]
    if not found and is_glob(path):
        raise InputError(f"{path}: no file matches; give a folder, a file or a glob such as 'runs/seed*.jsonl'")
    return sorted(found, key=_seed_order) or None


def _seed_source(path: Path, format: str) -> tuple[tuple[Path, tuple[str, ...]] | None, str | None]:
    """The folder and the name patterns of one-file-per-seed input ``path`` (``None`` when it is not one), and the
    format of a folder a reader reads whole (``None``: not known yet)."""
    if is_glob(path):
        return (path.parent, (path.name,)), None
    if not path.is_dir():
        return None, None
    modules = READERS if format == AUTO else (reader(format),)
    whole = next((module.NAME for module in modules if module.detect(path)), None)
    if whole is not None:
        return None, whole
    for module in modules:
        pattern = getattr(module, "SEED_GLOB", None)
        if pattern and find_files(path, pattern):
            return (path, (pattern,)), None
    return (path, SEED_SUFFIXES), None


def check_not_a_seed(
    path: str | os.PathLike | ResolvedInput, format: str, role: str, written: str | os.PathLike | None
) -> None:
    """Refuse a file to be written (``--output``) that is, or once written would be, a seed's file of ``path``.

    >>> check_not_a_seed("runs/seed*.jsonl", AUTO, "--output", "runs/seed-all.jsonl")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --output runs/seed-all.jsonl is, or once written would be, read as one seed's file of runs/seed*.jsonl: give --output a path outside runs
    >>> check_not_a_seed("runs/seed*.jsonl", AUTO, "--output", "runs/scores.json")
    """
    source = path.seed_source if isinstance(path, ResolvedInput) else _seed_source(Path(path), format)[0]
    given = path.given if isinstance(path, ResolvedInput) else path
    if source is None or written is None or Path(written).name.endswith(_CACHE_SUFFIX):
        return
    folder, patterns = source
    written = Path(written)
    if written.parent.resolve() == folder.resolve() and any(fnmatch(written.name, pattern) for pattern in patterns):
        raise InputError(
            f"{role} {written} is, or once written would be, read as one seed's file of {given}: give {role} a "
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
    seed, the format of its files): :func:`resolve_input`'s."""
    return resolve_input(path, format).format


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
    return [file.path for file in resolve_input(path, format).files]


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
