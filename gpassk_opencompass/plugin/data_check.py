"""Is a benchmark's data where the loaders will look, and does it read? (``gpassk data check``)

Each benchmark's config entry is checked by the check its loader declares (:class:`CheckedLoader`; this module
names no benchmark and no loader): the data found in OpenCompass's order with the loaders' own
:func:`~gpassk_opencompass.plugin.datasets.files.locate`, every file read with their own code, questions counted
per part; nothing is downloaded. A missing file, folder or field is an error; a question count other than the
published column's is a warning. See docs/data.md.

>>> problem = Problem("error", "AIME2025", "/c/data/aime2025/aime2025.jsonl: missing")
>>> str(problem)
'error: AIME2025: /c/data/aime2025/aime2025.jsonl: missing'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Protocol

from gpassk_opencompass.catalog import BENCHMARKS, Benchmark, composition_warning, get_benchmark
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.data_paths import local_candidates
from gpassk_opencompass.redaction import redact

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a benchmark's data.

    Attributes:
        severity: ``"error"`` (the data are not usable) or ``"warning"``.
        benchmark: the canonical benchmark name.
        message: what is wrong and how to fix it, in one line.
    """

    severity: str
    benchmark: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.benchmark}: {self.message}"


@dataclass(frozen=True)
class Part:
    """One file (or Hub subset) of a benchmark.

    Attributes:
        label: ``CNMO/cn``, ``all/en``, ``level 5``, ``all``.
        where: the file read, or ``<hub id>:<subset>`` in HF mode.
        questions: how many questions it holds; ``None`` when not read.
    """

    label: str
    where: str
    questions: int | None


@dataclass(frozen=True)
class BenchmarkCheck:
    """What the check found for one benchmark.

    Attributes:
        benchmark: the canonical name.
        source: ``"local"``, ``"hf"`` (Hub id reported, not downloaded) or
            ``"missing"`` (no copy found).
        where: the folder/file found, the Hub id, or ``None``.
        looked_at: the places tried, in order, each with what was found there.
        parts: the files (or Hub subsets) the loader reads.
        expected: the published column's question count, or ``None``.
        problems: errors and warnings, one line each.
    """

    benchmark: str
    source: str
    where: str | None
    looked_at: tuple[str, ...]
    parts: tuple[Part, ...]
    expected: int | None
    problems: tuple[Problem, ...]

    @property
    def questions(self) -> int | None:
        """Questions read over every part; ``None`` when a part was not read."""
        counts = [part.questions for part in self.parts if part.questions is not None]
        if not self.parts or len(counts) < len(self.parts):
            return None
        return sum(counts)

    @property
    def usable(self) -> bool:
        """Whether a run can read the data (warnings allowed)."""
        return not any(problem.severity == ERROR for problem in self.problems)

    @property
    def status(self) -> str:
        """``ok``, ``warning``, ``missing``, ``error``, or ``hub`` (HF mode, not verified)."""
        if not self.usable:
            return "missing" if self.source == "missing" else ERROR
        if self.problems:
            return WARNING
        return "hub" if self.source == "hf" else "ok"


class CheckedLoader(Protocol):
    """A dataset loader (``type=`` of a benchmark's config) that says how ``gpassk data check`` reads its data.

    ``check_data`` finds the data as the loader's ``load`` would (without downloading), reads
    every file with the loader's own reading code and returns what it found; the helpers below
    (:func:`looked_at`, :func:`read_records`, :func:`count_warning`, ...) do the common parts.
    """

    @classmethod
    def check_data(cls, benchmark: Benchmark, entry: dict, environ: Mapping[str, str], home: str) -> BenchmarkCheck:
        """What the data of ``benchmark`` (its config's dataset ``entry``) look like now."""
        ...


def dataset_entry(benchmark: Benchmark) -> dict:
    """The dataset dict of a benchmark's config (``path``, ``version``, ``dataset_splits`` ...)."""
    return dict(getattr(import_module(benchmark.config), benchmark.config_variable)[0])


def missing(benchmark: Benchmark, looked: tuple[str, ...], error: Exception, local: str) -> BenchmarkCheck:
    """The check of a benchmark whose data were not found (``error`` from ``locate``), with where to get them."""
    problem = Problem(ERROR, benchmark.name, redact(f"{error}{archive_hint(local)}"))
    return BenchmarkCheck(benchmark.name, "missing", None, looked, (), benchmark.questions, (problem,))


def archive_hint(local: str) -> str:
    """Where OpenCompass's own download would fetch ``local`` from, as a sentence (or ``""``)."""
    from opencompass.utils.datasets_info import DATASETS_URL

    names = [name for name in DATASETS_URL if name in local]
    if not names or os.path.isabs(local):  # an absolute path: the user's own file
        return ""
    return (
        f" Offline: fetch {DATASETS_URL[names[-1]]['url']} on a machine with network and unzip it "
        "into $COMPASS_DATA_CACHE/data/ (see docs/data.md)."
    )


def dataset_mapping(dataset_id: str) -> dict:
    from opencompass.utils.datasets_info import DATASETS_MAPPING

    return dict(DATASETS_MAPPING.get(dataset_id, {}))


def looked_at(dataset_id: str, hub: bool, environ: Mapping[str, str], home: str) -> tuple[str, ...]:
    """The places OpenCompass's order tries, each with what is there (stops at the first hit)."""
    entry = dataset_mapping(dataset_id)
    source = environ.get("DATASET_SOURCE")
    lines = []
    if source == "ModelScope":
        return ("DATASET_SOURCE=ModelScope: not supported by our loaders (unset it to read local copies)",)
    if source == "HF":
        if hub and entry.get("hf_id") and not os.path.isabs(dataset_id):
            return (
                f"DATASET_SOURCE=HF: Hugging Face dataset {entry['hf_id']} (not downloaded by this check; "
                "a run loads it with datasets.load_dataset: network, and HF_TOKEN for a gated dataset)",
            )
        lines.append("DATASET_SOURCE=HF: not used, this loader reads local copies only")
    elif source:
        lines.append(f"DATASET_SOURCE={source!r}: local copies")
    else:
        lines.append("DATASET_SOURCE not set: local copies")
    candidates = (
        (dataset_id,)
        if os.path.isabs(dataset_id)
        else local_candidates(entry.get("local") or dataset_id, environ, home)
    )
    for candidate in candidates:
        found = os.path.exists(candidate)
        lines.append(f"{candidate} ({'found' if found else 'not there'})")
        if found:
            break
    return tuple(lines)


def cache_note(environ: Mapping[str, str]) -> str:
    cache = environ.get("COMPASS_DATA_CACHE")
    return f"COMPASS_DATA_CACHE={cache}" if cache else "COMPASS_DATA_CACHE is not set"


def count_warning(name: str, found: int, expected: int | None, what: str) -> list[Problem]:
    """The composition warning of :func:`~gpassk_opencompass.catalog.composition_warning`, as a problem."""
    warning = composition_warning(found, expected, what)
    return [] if warning is None else [Problem(WARNING, name, warning)]


def read_records(name: str, path: str, read, check) -> tuple[int | None, list[Problem]]:
    """Read ``path`` with ``read`` (-> (key, record) pairs) and ``check`` each record.

    ``check(key, record, where)`` returns whether the record counts as a
    question and raises ``InputError`` (naming ``where``, i.e. ``<path> record
    <key>``) on a record the loader would refuse.  Returns the question count
    (``None`` when something is refused or the file does not read) and one
    problem per kind of refusal (the first record, and how many more).
    """
    try:
        pairs = list(read(path))
    except (OSError, InputError) as error:
        return None, [Problem(ERROR, name, f"{path} does not read: {error}")]
    count = 0
    refusals: dict[str, list[str]] = {}
    for key, record in pairs:
        try:
            if not isinstance(record, dict):
                raise InputError(f"{path} record {key}: expected a JSON object, got {type(record).__name__}")
            count += bool(check(key, record, f"{path} record {key}"))
        except InputError as error:
            message = str(error)
            kind = message.removeprefix(f"{path} record {key}: ").partition(";")[0]
            refusals.setdefault(kind, []).append(message)
    problems = []
    for messages in refusals.values():
        more = f" ({len(messages) - 1} more record(s) like it)" if len(messages) > 1 else ""
        problems.append(Problem(ERROR, name, f"{messages[0]}{more}; the layout is in docs/data.md"))
    return (None if problems else count), problems


def check_unique_ids(rows: Iterable[tuple[str, str]]) -> None:
    """Refuse a question id given twice, in one line naming the id and both records (file and position).

    The one rule of the loaders (``load``) and of their ``check_data`` (:func:`unique_ids_problem`): results,
    ``gpassk compare`` and the replicas of a run are keyed on the id, so two questions under one id would be
    scored, and compared, as one.

    Args:
        rows: per question, ``(question id, where)`` in the order read; ``where`` is ``<file> record <key>``.

    >>> check_unique_ids([("B/1", "f.jsonl record 0"), ("B/2", "f.jsonl record 1"), ("B/1", "f.jsonl record 2")])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: f.jsonl record 2: question id 'B/1' repeats f.jsonl record 0; every question needs its own id: remove the duplicate or correct its id
    """
    first: dict[str, str] = {}
    for question_id, where in rows:
        if question_id in first:
            raise InputError(
                f"{where}: question id {question_id!r} repeats {first[question_id]}; "
                "every question needs its own id: remove the duplicate or correct its id"
            )
        first[question_id] = where


def unique_ids_problem(name: str, rows: Sequence[tuple[str, str]]) -> list[Problem]:
    """:func:`check_unique_ids` as ``gpassk data check`` reports it: one error, or none."""
    try:
        check_unique_ids(rows)
    except InputError as error:
        return [Problem(ERROR, name, str(error))]
    return []


def check_benchmark(name: str, arguments: Mapping[str, object] | None = None) -> BenchmarkCheck:
    """Check one benchmark's data, as the loaders would find it now (``os.environ``, ``$HOME``).

    Args:
        name: a canonical benchmark name of the catalog.
        arguments: loader arguments a config gives instead of its benchmark config's
            (``path``, ``files``...; a grid template's ``data_paths`` becomes ``path``).

    The check is the one the benchmark's loader declares (:class:`CheckedLoader`): the catalog
    names the config, the config names the loader, nothing here names either.

    Raises:
        InputError: ``name`` is not a benchmark of the catalog (with a did-you-mean).
    """
    benchmark = get_benchmark(name)
    entry = dataset_entry(benchmark) | dict(arguments or {})
    loader = entry.get("type")
    check_data = getattr(loader, "check_data", None)
    if not callable(check_data):
        raise TypeError(
            f"{name}: the loader {loader!r} of {benchmark.config} has no check_data; a loader "
            "declares how its data are checked (see CheckedLoader)"
        )
    return check_data(benchmark, entry, os.environ, os.path.expanduser("~"))


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """The benchmarks to check: ``names`` validated (all of the catalog when empty), without duplicates.

    >>> check_names(["AIME2025", "AIME2025"])
    ('AIME2025',)
    >>> len(check_names([])) == len(BENCHMARKS)
    True
    >>> check_names(["MATH500"])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown benchmark 'MATH500'; did you mean 'MATH500-L5'? known: ...
    """
    if not names:
        return tuple(benchmark.name for benchmark in BENCHMARKS)
    return tuple(dict.fromkeys(get_benchmark(name).name for name in names))


def environment_note(environ: Mapping[str, str] | None = None) -> str:
    """Where the loaders look, for the report's first line.

    >>> environment_note({"COMPASS_DATA_CACHE": "/c"})
    'COMPASS_DATA_CACHE=/c, DATASET_SOURCE not set'
    """
    environ = os.environ if environ is None else environ
    source = environ.get("DATASET_SOURCE")
    return f"{cache_note(environ)}, " + (f"DATASET_SOURCE={source}" if source else "DATASET_SOURCE not set")
