"""AIME question sets, read from OpenCompass's AIME files (or any JSONL like them).

Both of OpenCompass's layouts, mapped as its own loaders map them: ``opencompass/aime2024`` (``data/aime.jsonl``,
``origin_prompt`` / ``gold_answer``) and ``opencompass/aime2025`` (``question`` / ``answer``). A question count
other than the published column's is logged (docs/generator.md, "Benchmark composition"); ``path=`` takes an
absolute path to a JSONL of the exact composition.

>>> question_and_answer({"origin_prompt": "Find x.", "gold_answer": "7"}, "aime.jsonl:1")
('Find x.', '7')
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from datasets import Dataset
from opencompass.datasets.base import BaseDataset

from gpassk_opencompass.catalog import Benchmark, get_benchmark
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.data_check import (
    ERROR,
    BenchmarkCheck,
    Part,
    Problem,
    count_warning,
    dataset_mapping,
    looked_at,
    missing,
    read_records,
)
from gpassk_opencompass.plugin.datasets.files import in_range, jsonl_pairs, locate, read_jsonl

# (question field, answer field) layouts, in the order they are tried.
FIELD_LAYOUTS = (("question", "answer"), ("origin_prompt", "gold_answer"))

HOW_TO_GET = (
    "the AIME files ship with OpenCompass's data archive (data/aime.jsonl, "
    "data/aime2025/aime2025.jsonl under $COMPASS_DATA_CACHE), or give path= an absolute "
    'path to a JSONL of {"question": ..., "answer": ...} records.'
)


def question_and_answer(record: dict, where: str) -> tuple[str, str]:
    """The (question, answer) of an AIME record in either OpenCompass layout."""
    for question_field, answer_field in FIELD_LAYOUTS:
        if question_field in record and answer_field in record:
            return str(record[question_field]), str(record[answer_field]).strip()
    layouts = " or ".join(f"{q!r}+{a!r}" for q, a in FIELD_LAYOUTS)
    raise InputError(f"{where}: expected fields {layouts}; the record has {', '.join(map(repr, sorted(record)))}")


class AIMEDataset(BaseDataset):
    """An AIME question set, tagged with its leaderboard benchmark."""

    @staticmethod
    def load(
        path: str, benchmark: str, test_range: str | None = None, question_ids: Sequence[str] | None = None
    ) -> Dataset:
        """Load every question of the file.

        Args:
            path: an OpenCompass dataset id (``opencompass/aime2024``,
                ``opencompass/aime2025``) or an absolute path to a JSONL file.
            benchmark: the canonical benchmark name the questions stand for
                (``AIME2024-45``, ``AIME2025``).
            test_range: only these questions, ``'[start:stop]'`` (a pilot; :func:`.files.in_range`).
            question_ids: only the questions of these ids (a curtailed run's round 2; :func:`.files.in_range`).

        Returns:
            Columns ``question_id``, ``question``, ``answer``.
        """
        expected = get_benchmark(benchmark).questions
        file_path = locate(path, HOW_TO_GET).where
        rows = []
        for index, record in enumerate(read_jsonl(file_path)):
            question, answer = question_and_answer(record, f"{file_path} record {index}")
            rows.append({"question_id": f"{benchmark}/{index}", "question": question, "answer": answer})
        if expected is not None and len(rows) != expected:
            logger.warning(
                "{}: {} has {} questions; the published column used {} (see docs/generator.md, "
                "'Benchmark composition')",
                benchmark,
                file_path,
                len(rows),
                expected,
            )
        return Dataset.from_list(in_range(rows, test_range, question_ids))

    @classmethod
    def check_data(cls, benchmark: Benchmark, entry: dict, environ: Mapping[str, str], home: str) -> BenchmarkCheck:
        """What ``gpassk data check`` finds: the one JSONL file, every record in either layout.

        The loader's side of :class:`~gpassk_opencompass.plugin.data_check.CheckedLoader`.
        """
        name, dataset_id = benchmark.name, entry["path"]
        looked = looked_at(dataset_id, False, environ, home)
        local = dataset_mapping(dataset_id).get("local") or dataset_id
        try:
            location = locate(dataset_id, HOW_TO_GET)
        except (FileNotFoundError, InputError) as error:
            return missing(benchmark, looked, error, local)
        path = location.where
        if os.path.isdir(path):
            folder = Problem(ERROR, name, f"{path} is a folder; the AIME loader reads one JSONL file")
            return BenchmarkCheck(
                name, "local", path, looked, (Part("all", path, None),), benchmark.questions, (folder,)
            )

        def check(key: str, record: dict, where: str) -> bool:
            question_and_answer(record, where)
            return True

        count, problems = read_records(name, path, jsonl_pairs, check)
        if count == 0:
            problems, count = [Problem(ERROR, name, f"{path} holds no questions")], None
        if count is not None:
            problems.extend(count_warning(name, count, benchmark.questions, "questions"))
        return BenchmarkCheck(
            name, "local", path, looked, (Part("all", path, count),), benchmark.questions, tuple(problems)
        )
