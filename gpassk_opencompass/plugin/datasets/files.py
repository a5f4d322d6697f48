"""Finding and reading the data files of the leaderboard datasets.

:func:`locate` looks a dataset id up in OpenCompass's own ``DATASETS_MAPPING``
(so ``opencompass/aime2025`` means what it means to OpenCompass) and resolves
it with :func:`gpassk_opencompass.plugin.data_paths.locate_dataset` (no download).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpassk_opencompass.checks import question_range
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import load_json_text, read_lines
from gpassk_opencompass.plugin.data_paths import DataLocation, locate_dataset


def locate(dataset_id: str, how_to_get: str, *, hub: bool = False) -> DataLocation:
    """Resolve an OpenCompass dataset id (or absolute path) without downloading.

    Args:
        dataset_id: e.g. ``opencompass/LiveMathBench``, or an absolute path.
        how_to_get: one sentence for the "not found" error.
        hub: whether the caller can read the Hugging Face copy
            (``DATASET_SOURCE=HF``); otherwise only local copies count.
    """
    from opencompass.utils.datasets_info import DATASETS_MAPPING

    entry = DATASETS_MAPPING.get(dataset_id, {})
    return locate_dataset(
        dataset_id,
        local=entry.get("local") or dataset_id,
        hf_id=(entry.get("hf_id") or None) if hub else None,
        how_to_get=how_to_get,
    )


def in_range(rows: list[dict], test_range: str | None) -> list[dict]:
    """The questions of a pilot: ``rows[start:stop]`` for ``test_range='[start:stop]'`` (all when ``None``).

    Applied by the loaders to the questions, before OpenCompass repeats them n times (its own
    ``reader_cfg['test_range']`` slices the repeated rows, which would keep some replicas only).

    >>> in_range([{"q": 1}, {"q": 2}, {"q": 3}], "[1:]"), len(in_range([{}] * 3, None))
    ([{'q': 2}, {'q': 3}], 3)
    """
    return rows if test_range is None else rows[question_range(test_range, "test_range")]


def read_jsonl(path: str) -> Iterator[dict]:
    """Yield the JSON objects of a JSONL file, skipping blank lines.

    Raises:
        InputError: not a regular file, a line too long (:func:`~gpassk_opencompass.files.read_lines`) or not a
            JSON object; the message names file and line.
    """
    for number, line in enumerate(read_lines(path, encoding="utf-8-sig"), start=1):
        if not line.strip():
            continue
        record = load_json_text(line, source=f"{path}:{number}")
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {type(record).__name__}")
        yield record


def jsonl_pairs(path: str) -> Iterator[tuple[str, dict]]:
    """(index, record) pairs of a JSONL file, read by :func:`read_jsonl` (for ``data_check.read_records``)."""
    return ((str(index), record) for index, record in enumerate(read_jsonl(path)))


def require_fields(record: dict, fields: tuple[str, ...], where: str) -> None:
    """Raise ``InputError`` naming ``where`` when ``record`` lacks one of ``fields``."""
    missing = [field for field in fields if field not in record]
    if missing:
        raise InputError(
            f"{where}: missing field(s) {', '.join(map(repr, missing))}; "
            f"the record has {', '.join(map(repr, sorted(record))) or 'no fields'}"
        )
