"""LiveMathBench for OpenCompass, with its structure (``split``, ``language``, ``question_type``, ``version``,
a stable ``question_id``) kept in real columns.

Data are found the OpenCompass way (``DATASET_SOURCE=HF``: the gated Hub dataset, subset
``v{version}_{split}_{language}``; else ``$COMPASS_DATA_CACHE/data/LiveMathBench/{version}/{split}_{language}.jsonl``);
nothing is downloaded. Prompts are OpenCompass's own (``cot=False`` drops the step-by-step clause as it does).

>>> print(build_prompt("1+1=?", "en", cot=True))
Here is a math question, please reasoning step by step, and put your answer in \\boxed{}.
1+1=?
<BLANKLINE>
>>> print(build_prompt("1+1=?", "en", cot=False))
Here is a math question, and put your answer in \\boxed{}.
1+1=?
<BLANKLINE>
>>> check_selection("202505", ["all"], ["cn"])
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: LiveMathBench 202505 has no language 'cn'; it has: en
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from datasets import Dataset
from opencompass.datasets.base import BaseDataset

from gpassk_opencompass.catalog import Benchmark
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.data_check import (
    ERROR,
    BenchmarkCheck,
    Part,
    Problem,
    archive_hint,
    cache_note,
    count_warning,
    looked_at,
    missing,
    read_records,
)
from gpassk_opencompass.plugin.datasets.files import in_range, jsonl_pairs, locate, read_jsonl, require_fields
from gpassk_opencompass.redaction import redact

# OpenCompass's LiveMathBench prompts (opencompass/datasets/livemathbench/prompts.py),
# copied so that a change upstream shows up as a failing test, not as drifting scores.
PROMPT_EN = "Here is a math question, please reasoning step by step, and put your answer in \\boxed{{}}.\n{question}\n"
PROMPT_CN = "下面是一个数学问题，请逐步推理，并把最终答案放置于\\boxed{{}}中。\n{question}\n"
_COT_CLAUSE = {"en": ", please reasoning step by step", "cn": "，请逐步推理"}
PROMPT_VERSION = "opencompass-livemathbench"

# The fields every record must have; ``question_type`` is optional.
REQUIRED_FIELDS = ("question", "answer")

HOW_TO_GET = (
    "LiveMathBench is gated on Hugging Face: accept its terms at "
    "https://huggingface.co/datasets/opencompass/LiveMathBench, log in (HF_TOKEN) and "
    "set DATASET_SOURCE=HF, or put the {split}_{language}.jsonl files under "
    "$COMPASS_DATA_CACHE/data/LiveMathBench/{version}/."
)


@dataclass(frozen=True)
class LiveMathBenchVersion:
    """The splits and languages one release of LiveMathBench ships.

    Attributes:
        splits: every split of the release.
        languages: every language of the release.
        default_splits: the splits of the main (non-hard) benchmark.
    """

    splits: tuple[str, ...]
    languages: tuple[str, ...]
    default_splits: tuple[str, ...]


VERSIONS: dict[str, LiveMathBenchVersion] = {
    "202412": LiveMathBenchVersion(
        ("CNMO", "CCEE", "AMC", "WLPMC", "hard"), ("cn", "en"), ("CNMO", "CCEE", "AMC", "WLPMC")
    ),
    "202505": LiveMathBenchVersion(("all", "hard"), ("en",), ("all",)),
}


def build_prompt(question: str, language: str, cot: bool) -> str:
    """The generation prompt for one question (OpenCompass's wording)."""
    template = PROMPT_EN if language == "en" else PROMPT_CN
    if not cot:
        template = template.replace(_COT_CLAUSE[language], "")
    return template.format(question=question)


def prompt_version(cot: bool) -> str:
    """Label of the prompt a row was generated with.

    >>> prompt_version(False)
    'opencompass-livemathbench-nocot'
    """
    return PROMPT_VERSION if cot else f"{PROMPT_VERSION}-nocot"


def _unique(values: Sequence[str], what: str, version: str) -> tuple[str, ...]:
    if isinstance(values, str) or not values:
        raise InputError(f"LiveMathBench {version}: {what} must be a non-empty list, got {values!r}")
    duplicates = sorted({value for value in values if list(values).count(value) > 1})
    if duplicates:
        raise InputError(f"LiveMathBench {version}: {what} lists {', '.join(duplicates)} more than once")
    return tuple(values)


def check_selection(
    version: str, splits: Sequence[str] | None, languages: Sequence[str] | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Validate a (version, splits, languages) choice; ``None`` means the defaults.

    Returns:
        The splits and languages to load, in the order given.

    >>> check_selection("202412", None, None)
    (('CNMO', 'CCEE', 'AMC', 'WLPMC'), ('cn', 'en'))
    >>> check_selection("202412", ["CMNO"], ["en"])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: LiveMathBench 202412 has no split 'CMNO'; it has: CNMO, CCEE, AMC, WLPMC, hard
    """
    release = VERSIONS.get(str(version))
    if release is None:
        raise InputError(f"unknown LiveMathBench version {version!r}; known: {', '.join(VERSIONS)}")
    splits = release.default_splits if splits is None else _unique(splits, "dataset_splits", version)
    languages = release.languages if languages is None else _unique(languages, "dataset_languages", version)
    for what, chosen, known in (("split", splits, release.splits), ("language", languages, release.languages)):
        for value in chosen:
            if value not in known:
                raise InputError(f"LiveMathBench {version} has no {what} {value!r}; it has: {', '.join(known)}")
    return splits, languages


def local_file(where: str, version: str, split: str, language: str) -> str:
    """The JSONL file of one split and language under a local LiveMathBench folder.

    >>> local_file("/c/data/LiveMathBench", "202412", "CNMO", "en")
    '/c/data/LiveMathBench/202412/CNMO_en.jsonl'
    """
    return os.path.join(where, version, f"{split}_{language}.jsonl")


def hub_subset(version: str, split: str, language: str) -> str:
    """The Hugging Face subset (config name) of one split and language.

    >>> hub_subset("202505", "hard", "en")
    'v202505_hard_en'
    """
    return f"v{version}_{split}_{language}"


def _records(where: str, source: str, version: str, split: str, language: str) -> list[dict]:
    if source == "hf":
        from datasets import load_dataset

        return list(load_dataset(where, hub_subset(version, split, language))["test"])
    return list(read_jsonl(local_file(where, version, split, language)))


class LiveMathBenchDataset(BaseDataset):
    """LiveMathBench loader (not registered: configs use ``type=LiveMathBenchDataset``).

    OpenCompass registers its own ``LiveMathBenchDataset`` in ``LOAD_DATASET``;
    this class keeps the same keyword names (``dataset_splits``,
    ``dataset_languages``, ``cot``, ``version``) so configs port over.
    """

    @staticmethod
    def load(
        path: str = "opencompass/LiveMathBench",
        dataset_splits: Sequence[str] | None = None,
        dataset_languages: Sequence[str] | None = None,
        cot: bool = True,
        version: str = "202412",
        test_range: str | None = None,
        question_ids: Sequence[str] | None = None,
    ) -> Dataset:
        """Load the chosen splits x languages, in that order.

        Args:
            path: ``opencompass/LiveMathBench`` (resolved the OpenCompass way)
                or an absolute directory holding ``{version}/{split}_{language}.jsonl``.
            dataset_splits: splits to load (default: the version's main splits).
            dataset_languages: languages to load (default: all of the version's).
            cot: ask for step-by-step reasoning in the prompt.
            version: ``202412`` or ``202505``.
            test_range: only these questions, ``'[start:stop]'`` (a pilot; :func:`.files.in_range`).
            question_ids: only the questions of these ids (a curtailed run's round 2; :func:`.files.in_range`).

        Returns:
            Columns ``question_id``, ``question``, ``answer``, ``question_type``,
            ``split``, ``language``, ``version``, ``prompt``, ``prompt_version``.
        """
        version = str(version)
        splits, languages = check_selection(version, dataset_splits, dataset_languages)
        location = locate(path, HOW_TO_GET.replace("{version}", version), hub=True)
        pairs = list(product(splits, languages))
        if location.source == "local":
            missing = [
                local_file(location.where, version, split, language)
                for split, language in pairs
                if not os.path.isfile(local_file(location.where, version, split, language))
            ]
            if missing:
                raise FileNotFoundError(
                    f"LiveMathBench {version}: missing {len(missing)} file(s): {', '.join(missing)}; "
                    + HOW_TO_GET.replace("{version}", version)
                    + " Nothing is downloaded automatically."
                )
        rows = []
        for split, language in pairs:
            records = _records(location.where, location.source, version, split, language)
            for index, record in enumerate(records):
                require_fields(record, REQUIRED_FIELDS, f"LiveMathBench {version} {split}_{language} record {index}")
                rows.append(
                    {
                        "question_id": f"LiveMathBench-{version}/{split}/{language}/{index}",
                        "question": record["question"],
                        "answer": record["answer"],
                        "question_type": record.get("question_type"),
                        "split": split,
                        "language": language,
                        "version": version,
                        "prompt": build_prompt(record["question"], language, cot),
                        "prompt_version": prompt_version(cot),
                    }
                )
        return Dataset.from_list(in_range(rows, test_range, question_ids))

    @classmethod
    def check_data(cls, benchmark: Benchmark, entry: dict, environ: Mapping[str, str], home: str) -> BenchmarkCheck:
        """What ``gpassk data check`` finds: each split x language file, or the Hub subsets in HF mode.

        The loader's side of :class:`~gpassk_opencompass.plugin.data_check.CheckedLoader`.
        """
        name, dataset_id = benchmark.name, entry.get("path", "opencompass/LiveMathBench")
        version = str(entry.get("version", "202412"))
        splits, languages = check_selection(version, entry.get("dataset_splits"), entry.get("dataset_languages"))
        looked = looked_at(dataset_id, True, environ, home)
        how = HOW_TO_GET.replace("{version}", version)
        try:
            location = locate(dataset_id, how, hub=True)
        except (FileNotFoundError, InputError) as error:
            return missing(benchmark, looked, error, "LiveMathBench")
        pairs = list(product(splits, languages))
        if location.source == "hf":
            hub_parts = tuple(
                Part(f"{split}/{language}", f"{location.where}:{hub_subset(version, split, language)}", None)
                for split, language in pairs
            )
            return BenchmarkCheck(name, "hf", location.where, looked, hub_parts, benchmark.questions, ())
        parts: list[Part] = []
        problems: list[Problem] = []

        def check(key: str, record: dict, where: str) -> bool:
            require_fields(record, REQUIRED_FIELDS, where)
            return True

        for split, language in pairs:
            path = local_file(location.where, version, split, language)
            if not os.path.isfile(path):
                parts.append(Part(f"{split}/{language}", path, None))
                problems.append(
                    Problem(
                        ERROR,
                        name,
                        redact(f"missing file {path} ({cache_note(environ)}); {how}{archive_hint('LiveMathBench')}"),
                    )
                )
                continue
            count, refusals = read_records(name, path, jsonl_pairs, check)
            if count == 0:
                refusals.append(Problem(ERROR, name, f"{path} holds no questions"))
                count = None
            parts.append(Part(f"{split}/{language}", path, count))
            problems.extend(refusals)
        if not problems:
            total = sum(part.questions for part in parts if part.questions is not None)  # no problem: every part read
            problems.extend(count_warning(name, total, benchmark.questions, "questions"))
        return BenchmarkCheck(name, "local", location.where, looked, tuple(parts), benchmark.questions, tuple(problems))
