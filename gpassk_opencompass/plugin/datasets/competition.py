"""Competition sets in the layout of their Hugging Face copies: one ``problem`` and one ``answer`` per record.

MathArena's Parquet sets, BeyondAIME, OlymMATH and OpenCompass's AIME 2026 / HMMT February 2026 files alike:
``path`` is an OpenCompass id, a folder under ``$COMPASS_DATA_CACHE`` (``files`` selects its files, a glob) or an
absolute folder or file; ``.parquet`` and ``.jsonl`` files are read, nothing is downloaded. Each set's layout and
how to fetch it: docs/data.md, "The newest competition sets".

>>> competition_row({"problem_idx": 3, "problem": "Find x.", "answer": 42}, "0", "HMMT-Feb-2025", "f record 0")
{'question_id': 'HMMT-Feb-2025/3', 'question': 'Find x.', 'answer': '42'}
>>> competition_row({"problem": "Find x.", "answer": [1]}, "0", "B", "f record 0")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: f record 0: 'answer' should be a number or a string, got list [1]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence

from datasets import Dataset
from opencompass.datasets.base import BaseDataset

from gpassk_opencompass.catalog import Benchmark
from gpassk_opencompass.checks import is_number
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files
from gpassk_opencompass.files.archives import open_parquet, parquet_unreadable
from gpassk_opencompass.plugin.data_check import (
    ERROR,
    BenchmarkCheck,
    Part,
    Problem,
    check_unique_ids,
    count_warning,
    dataset_mapping,
    looked_at,
    missing,
    read_records,
    unique_ids_problem,
)
from gpassk_opencompass.plugin.datasets.files import in_range, locate, read_jsonl, require_fields

# The record's own id, in the order tried (MathArena's, OlymMATH's); else the record's position.
ID_FIELDS = ("problem_idx", "unique_id", "id")
SUFFIXES = (".parquet", ".jsonl")


def how_to_get(hub: str, local: str) -> str:
    """The sentence of a "not found" error: where the Hub copy is and where to put it.

    >>> how_to_get("MathArena/brumo_2025", "/data/brumo")  # an absolute path= (a grid's data_paths)
    'download the Hugging Face dataset MathArena/brumo_2025 into /data/brumo (huggingface-cli download MathArena/brumo_2025 --repo-type dataset --local-dir ...), or give path= an absolute path to its file (docs/data.md)'
    """
    into = local if os.path.isabs(local) else f"$COMPASS_DATA_CACHE/{local.removeprefix('./')}"
    return (
        f"download the Hugging Face dataset {hub} into {into} "
        f"(huggingface-cli download {hub} --repo-type dataset --local-dir ...), or give path= an absolute "
        "path to its file (docs/data.md)"
    )


def competition_row(record: dict, key: str, benchmark: str, where: str) -> dict:
    """The dataset row of one record: ``question_id`` (``<benchmark>/<id>``), ``question``, ``answer`` (a string).

    Raises:
        InputError: ``problem`` or ``answer`` is missing, or not text / a number; names ``where``.
    """
    require_fields(record, ("problem", "answer"), where)
    problem, answer = record["problem"], record["answer"]
    if not isinstance(problem, str) or not problem.strip():
        raise InputError(f"{where}: 'problem' should be the question's text, got {type(problem).__name__} {problem!r}")
    if not (isinstance(answer, str) and answer.strip()) and not is_number(answer):
        raise InputError(f"{where}: 'answer' should be a number or a string, got {type(answer).__name__} {answer!r}")
    own = next((record[field] for field in ID_FIELDS if record.get(field) is not None), key)
    return {"question_id": f"{benchmark}/{own}", "question": problem, "answer": str(answer).strip()}


def data_files(where: str, files: str | None) -> list[str]:
    """The files to read: ``where`` itself, or the ``files`` glob inside a folder ``where`` (sorted; regular files
    only, and no directory symlink followed: :func:`~gpassk_opencompass.files.find_files`).

    Raises:
        FileNotFoundError: no file of the folder matches ``files``.
    """
    if not os.path.isdir(where):
        return [where]
    pattern = files or "**/*"
    found = sorted(str(path) for path in find_files(where, pattern) if path.name.endswith(SUFFIXES))
    if not found:
        raise FileNotFoundError(f"no .parquet or .jsonl file matching {pattern!r} in {where}")
    return found


def read_table(path: str) -> Iterator[tuple[str, dict]]:
    """(position, record) pairs of a Parquet or JSONL file."""
    if path.endswith(".parquet"):
        import pyarrow

        with open_parquet(path) as file:  # its unpacked size checked from its footer first
            try:
                rows = file.read().to_pylist()
            except (MemoryError, OSError, pyarrow.ArrowException) as error:
                raise parquet_unreadable(path, error) from None
    else:
        rows = list(read_jsonl(path))
    return ((str(index), record) for index, record in enumerate(rows))


class CompetitionDataset(BaseDataset):
    """A competition set of ``problem``/``answer`` records (Parquet or JSONL), tagged with its benchmark."""

    @staticmethod
    def load(
        path: str,
        benchmark: str,
        hub: str,
        files: str | None = None,
        test_range: str | None = None,
        question_ids: Sequence[str] | None = None,
    ) -> Dataset:
        """Load every question.

        Args:
            path: an OpenCompass id (``opencompass/aime2026``), a folder relative to
                ``$COMPASS_DATA_CACHE`` or an absolute folder or file.
            benchmark: the canonical benchmark name (``HMMT-Feb-2025``).
            hub: the Hugging Face dataset the data come from (named in errors).
            files: the glob of the files to read inside a folder (``data/train-*.parquet``).
            test_range: only these questions, ``'[start:stop]'`` (a pilot; :func:`.files.in_range`).
            question_ids: only the questions of these ids (a curtailed run's round 2; :func:`.files.in_range`).

        Returns:
            Columns ``question_id``, ``question``, ``answer``.

        Raises:
            InputError: a record lacks ``problem``/``answer`` or the files hold no question.
        """
        local = dataset_mapping(path).get("local") or path
        where = locate(path, how_to_get(hub, local)).where
        rows, places = [], []
        for file_path in data_files(where, files):
            for key, record in read_table(file_path):
                place = f"{file_path} record {key}"
                rows.append(competition_row(record, key, benchmark, place))
                places.append((rows[-1]["question_id"], place))
        if not rows:
            raise InputError(f"{benchmark}: {where} holds no questions; {how_to_get(hub, local)}")
        check_unique_ids(places)
        return Dataset.from_list(in_range(rows, test_range, question_ids))

    @classmethod
    def check_data(cls, benchmark: Benchmark, entry: dict, environ: Mapping[str, str], home: str) -> BenchmarkCheck:
        """What ``gpassk data check`` finds: every file the loader reads, every record with its two fields.

        The loader's side of :class:`~gpassk_opencompass.plugin.data_check.CheckedLoader`.
        """
        name, dataset_id = benchmark.name, entry["path"]
        looked = looked_at(dataset_id, False, environ, home)
        local = dataset_mapping(dataset_id).get("local") or dataset_id
        try:
            where = locate(dataset_id, how_to_get(entry["hub"], local)).where
            paths = data_files(where, entry.get("files"))
        except (FileNotFoundError, InputError) as error:
            return missing(benchmark, looked, error, local)

        places: list[tuple[str, str]] = []

        def check(key: str, record: dict, where: str) -> bool:
            places.append((competition_row(record, key, name, where)["question_id"], where))
            return True

        parts, problems = [], []
        for path in paths:
            count, found = read_records(name, path, read_table, check)
            if count == 0:
                found, count = [Problem(ERROR, name, f"{path} holds no questions")], None
            parts.append(Part(os.path.basename(path), path, count))
            problems += found
        problems += unique_ids_problem(name, places)
        total = sum(part.questions or 0 for part in parts)
        if not problems:
            problems += count_warning(name, total, benchmark.questions, "questions")
        return BenchmarkCheck(name, "local", where, looked, tuple(parts), benchmark.questions, tuple(problems))
