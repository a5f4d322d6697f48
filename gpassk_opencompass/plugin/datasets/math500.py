"""MATH500-L5: the difficulty-5 questions of MATH500 (134, as in arXiv 2412.13147, appendix F.2), on OpenCompass's
MATH500 files.

OpenCompass's ``MATHDataset`` cannot filter by level; this loader reads the same file (``opencompass/math``) or a
``HuggingFaceH4/MATH-500`` JSONL and keeps the records whose ``level`` is 5; the answer is ``answer``, else the
last ``\\boxed{}`` of ``solution`` (OpenCompass's ``extract_boxed_answer``). Layout: docs/data.md.

>>> parse_level("Level 5"), parse_level(3), parse_level("Level ?")
(5, 3, None)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from datasets import Dataset
from opencompass.datasets.base import BaseDataset
from opencompass.datasets.math import extract_boxed_answer

from gpassk_opencompass.catalog import Benchmark, get_benchmark
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import read_json_file
from gpassk_opencompass.log import logger
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

HOW_TO_GET = (
    "MATH500 ships with OpenCompass's data archive (put test_prm800k_500.json under "
    "$COMPASS_DATA_CACHE/data/math/), or give path= an absolute path to the test.jsonl "
    "of HuggingFaceH4/MATH-500."
)


def parse_level(level: object) -> int | None:
    """The integer difficulty of a MATH record's ``level`` field, or ``None``."""
    if isinstance(level, int):
        return level
    match = re.fullmatch(r"\s*(?:Level\s*)?(\d+)\s*", str(level))
    return int(match.group(1)) if match else None


def records(path: str) -> list[tuple[str, dict]]:
    """(id, record) pairs of a MATH file: JSONL, a JSON list, or a JSON object of id -> record."""
    if path.endswith(".jsonl"):
        return [(str(index), record) for index, record in enumerate(read_jsonl(path))]
    data = read_json_file(path)
    if isinstance(data, dict):
        return [(str(key), record) for key, record in data.items()]
    return [(str(index), record) for index, record in enumerate(data)]


def data_file(where: str, file_name: str) -> str:
    """The MATH file to read: ``where`` itself, or ``file_name`` inside a directory ``where``.

    Raises:
        FileNotFoundError: ``where`` is a directory without ``file_name``.
    """
    if not os.path.isdir(where):
        return where
    file_path = os.path.join(where, file_name)
    if not os.path.isfile(file_path):
        raise FileNotFoundError(f"MATH500: {file_path} does not exist; {HOW_TO_GET}")
    return file_path


def level_row(key: str, record: dict, level: int, where: str) -> dict | None:
    """The dataset row of a MATH record of difficulty ``level``; ``None`` for other levels.

    Raises:
        InputError: the record lacks ``problem``, or (at ``level``) both
            ``answer`` and a ``\\boxed{}`` in its ``solution``; the message names ``where``.
    """
    require_fields(record, ("problem",), where)
    record_level = parse_level(record.get("level"))
    if record_level != level:
        return None
    answer = record.get("answer")
    if answer is None:
        require_fields(record, ("solution",), where)
        answer = extract_boxed_answer(record["solution"])
        if answer is None:
            raise InputError(f"{where}: no 'answer' field and no \\boxed{{}} in its solution")
    return {
        "question_id": str(record.get("unique_id") or f"MATH500/{key}"),
        "problem": record["problem"],
        "answer": str(answer),
        "subject": record.get("subject") or record.get("type"),
        "level": record_level,
    }


def no_levels_error(file_path: str) -> str:
    """The error for a MATH file none of whose records has a difficulty."""
    return (
        f"MATH500-L5 needs each question's difficulty, but no record of {file_path} has a 'level' field; {HOW_TO_GET}"
    )


class Math500Level5Dataset(BaseDataset):
    """MATH500 restricted to one difficulty level (5 for the leaderboard)."""

    @staticmethod
    def load(
        path: str = "opencompass/math",
        file_name: str = "test_prm800k_500.json",
        level: int = 5,
        test_range: str | None = None,
        question_ids: Sequence[str] | None = None,
    ) -> Dataset:
        """Load the questions of ``level``.

        Args:
            path: ``opencompass/math`` (a directory, resolved the OpenCompass
                way) or an absolute path to a directory or a file.
            file_name: the file inside a directory ``path``.
            level: the difficulty to keep.
            test_range: only these questions, ``'[start:stop]'`` (a pilot; :func:`.files.in_range`).
            question_ids: only the questions of these ids (a curtailed run's round 2; :func:`.files.in_range`).

        Returns:
            Columns ``question_id``, ``problem``, ``answer``, ``subject``, ``level``.
        """
        file_path = data_file(locate(path, HOW_TO_GET).where, file_name)
        rows, places, levels_seen = [], [], 0
        for key, record in records(file_path):
            levels_seen += parse_level(record.get("level")) is not None
            row = level_row(key, record, level, f"{file_path} record {key}")
            if row is not None:
                rows.append(row)
                places.append((row["question_id"], f"{file_path} record {key}"))
        if not levels_seen:
            raise InputError(no_levels_error(file_path))
        check_unique_ids(places)
        expected = get_benchmark("MATH500-L5").questions
        if level == 5 and len(rows) != expected:
            logger.warning(
                "MATH500-L5: {} has {} level-5 questions; the published column used {}", file_path, len(rows), expected
            )
        return Dataset.from_list(in_range(rows, test_range, question_ids))

    @classmethod
    def check_data(cls, benchmark: Benchmark, entry: dict, environ: Mapping[str, str], home: str) -> BenchmarkCheck:
        """What ``gpassk data check`` finds: the questions of the configured level.

        The loader's side of :class:`~gpassk_opencompass.plugin.data_check.CheckedLoader`.
        """
        name, dataset_id = benchmark.name, entry.get("path", "opencompass/math")
        level = int(entry.get("level", 5))
        file_name = entry.get("file_name", "test_prm800k_500.json")
        looked = looked_at(dataset_id, False, environ, home)
        local = dataset_mapping(dataset_id).get("local") or dataset_id
        try:
            path = data_file(locate(dataset_id, HOW_TO_GET).where, file_name)
        except (FileNotFoundError, InputError) as error:
            return missing(benchmark, looked, error, local)
        levels_seen = []
        places: list[tuple[str, str]] = []

        def check(key: str, record: dict, where: str) -> bool:
            levels_seen.append(parse_level(record.get("level")) is not None)
            row = level_row(key, record, level, where)
            if row is not None:
                places.append((row["question_id"], where))
            return row is not None

        count, problems = read_records(name, path, records, check)
        problems += unique_ids_problem(name, places)
        if problems:
            count = None
        if count is not None and not any(levels_seen):
            problems, count = [Problem(ERROR, name, no_levels_error(path))], None
        elif count == 0:
            problems, count = [Problem(ERROR, name, f"{path} holds no level-{level} questions")], None
        if count is not None:
            problems.extend(count_warning(name, count, benchmark.questions, f"level-{level} questions"))
        return BenchmarkCheck(
            name, "local", path, looked, (Part(f"level {level}", path, count),), benchmark.questions, tuple(problems)
        )
