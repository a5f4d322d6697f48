"""Finding and reading the data files of the leaderboard datasets.

:func:`locate` looks a dataset id up in OpenCompass's own ``DATASETS_MAPPING``
(so ``opencompass/aime2025`` means what it means to OpenCompass) and resolves
it with :func:`gpassk_opencompass.plugin.data_paths.locate_dataset` (no download).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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


def in_range(rows: list[dict], test_range: str | None, question_ids: Sequence[str] | None = None) -> list[dict]:
    """The questions of a pilot, ``rows[start:stop]`` for ``test_range='[start:stop]'`` (all when ``None``), and of
    those the ones ``question_ids`` names (all when ``None``), in the data's order.

    Applied by the loaders to the questions, before OpenCompass repeats them n times (its own
    ``reader_cfg['test_range']`` slices the repeated rows, which would keep some replicas only). ``question_ids``
    is what round 2 of a curtailed run draws: the questions round 1 did not stop, named in the config
    ``gpassk grid run`` writes for it (docs/grid.md, "Curtailed grids").

    >>> in_range([{"q": 1}, {"q": 2}, {"q": 3}], "[1:]"), len(in_range([{}] * 3, None))
    ([{'q': 2}, {'q': 3}], 3)
    >>> [row["question_id"] for row in in_range([{"question_id": i} for i in "abcd"], "[:3]", ["c", "a"])]
    ['a', 'c']
    >>> in_range([{"question_id": "a"}], None, ["a", "b"])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: question_ids names 'b', which the data do not hold (1 question read); the data changed since round 1 chose it: give the data round 1 read
    """
    if test_range is not None:
        rows = rows[question_range(test_range, "test_range")]
    if question_ids is None:
        return rows
    wanted = list(question_ids)
    if len(set(wanted)) < len(wanted):
        twice = next(name for index, name in enumerate(wanted) if name in wanted[:index])
        raise InputError(f"question_ids names {twice!r} twice; name each question once")
    chosen = set(wanted)
    kept = [row for row in rows if row.get("question_id") in chosen]
    found = {row["question_id"] for row in kept}
    absent = next((name for name in wanted if name not in found), None)
    if absent is not None:
        raise InputError(
            f"question_ids names {absent!r}, which the data do not hold ({len(rows)} question"
            f"{'s' if len(rows) != 1 else ''} read); the data changed since round 1 chose it: give the data round 1 read"
        )
    return kept


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
