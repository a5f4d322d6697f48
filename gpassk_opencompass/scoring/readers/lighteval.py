"""Read lighteval details (``lighteval ... --save-details``) as gpassk generations.

One row of ``details_<task>|<fewshot>_<time>.parquet`` per question: ``doc.id`` (else the position) -> id,
``doc.original_query`` (else ``doc.query``) -> question, ``doc.choices[doc.gold_index]`` -> answer,
``model_response.text`` -> predictions, ``doc.specific.extracted_predictions`` -> source_extracted when it holds
one answer per generation; no source_verdicts (lighteval keeps per-question aggregates only). A folder must hold
exactly one ``details_*.parquet``; the file is read in row batches of two columns, at most :data:`MAX_ROWS`
rows, bounded by its footer (:func:`~gpassk_opencompass.files.archives.open_parquet`). See docs/scoring.md.

>>> import pathlib, tempfile
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> doc = {"query": "1+1?", "choices": ["2"], "gold_index": 0, "id": "q0"}
>>> row = {"doc": doc, "model_response": {"text": ["so 2", "so 3"]}, "metric": {"avg@n:n=2": 0.5}}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "details_t|0_2026.parquet"
>>> pq.write_table(pa.Table.from_pylist([row]), path)
>>> detect(path), detect(path.parent)
(True, True)
>>> next(read(path))
{'id': 'q0', 'question': '1+1?', 'answer': '2', 'predictions': ['so 2', 'so 3']}
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files
from gpassk_opencompass.files.archives import open_parquet, parquet_unreadable
from gpassk_opencompass.scoring.readers._folder import detect_dump, only_file

NAME = "lighteval"
DESCRIPTION = "lighteval --save-details: details_<task>_<time>.parquet (or its output folder); no source verdicts"

#: How lighteval names a details file.
DETAILS_GLOB = "details_*.parquet"
#: The folders below an output folder where lighteval puts it: ``details/<org>/<model>/<time>/``.
_DEPTHS = ("", "*/", "*/*/", "*/*/*/", "*/*/*/*/")
#: The columns read (lighteval 0.10+).
COLUMNS = ("doc", "model_response", "metric")
#: The most rows (questions) a details file may have.
MAX_ROWS = 1_000_000
_BATCH = 256


def detect(path: pathlib.Path) -> bool:
    """Whether ``path`` is a lighteval details file, or a folder holding one (its parquet footer only)."""
    return detect_dump(path, _looks_like_details, _details_in, ".parquet")


def _looks_like_details(path: pathlib.Path) -> bool:
    try:
        with open_parquet(path, columns=()) as file:  # the footer only
            names = file.schema_arrow.names
    except InputError:  # anything that is not a regular parquet file
        return False
    return all(name in names for name in COLUMNS)


def _details_in(folder: pathlib.Path) -> list[pathlib.Path]:
    return find_files(folder, *(f"{depth}{DETAILS_GLOB}" for depth in _DEPTHS))


def details_file(path: pathlib.Path) -> pathlib.Path:
    """The details file ``path`` names: itself, or the one ``details_*.parquet`` of an output folder."""
    return only_file(path, _details_in, "lighteval details file", DETAILS_GLOB, "run lighteval with --save-details")


def files(path: pathlib.Path) -> list[pathlib.Path]:
    """What :func:`read` reads: the one file :func:`details_file` names."""
    return [details_file(path)]


def read(path: pathlib.Path) -> Iterator[dict]:
    """One gpassk generations record per row of a lighteval details file (see the module docstring).

    Raises:
        InputError: not a parquet file, too big, a missing column, or a row without what this needs (the
            message names the file, the row, the field and the fix).
    """
    import pyarrow  # deferred: heavy (pyarrow), imported only when a lighteval file is read

    source = details_file(path)
    with open_parquet(source, columns=COLUMNS[:2]) as file:
        missing = [name for name in COLUMNS if name not in file.schema_arrow.names]
        if missing:
            raise InputError(
                f"{source}: missing column {', '.join(map(repr, missing))}; a lighteval details file "
                f"(--save-details, lighteval 0.10+) has {', '.join(COLUMNS)}"
            )
        rows = file.metadata.num_rows
        if rows > MAX_ROWS:
            raise InputError(f"{source}: {rows} rows, over the {MAX_ROWS}-row limit; give one task's details file")
        if rows == 0:
            raise InputError(f"{source}: no rows (the file is empty); run lighteval with --save-details")
        position = 0
        try:
            for batch in file.iter_batches(batch_size=_BATCH, columns=list(COLUMNS[:2])):
                for row in batch.to_pylist():
                    yield _record(row, position, f"{source} row {position}")
                    position += 1
        except (MemoryError, OSError, pyarrow.ArrowException) as error:
            raise parquet_unreadable(source, error) from None


def _record(row: dict, position: int, where: str) -> dict:
    doc, response = row["doc"], row["model_response"]
    if not isinstance(doc, dict) or not isinstance(response, dict):
        raise InputError(f'{where}: "doc" and "model_response" must be structs; is this a lighteval details file?')
    predictions = response.get("text")
    if not (isinstance(predictions, list) and predictions and all(isinstance(text, str) for text in predictions)):
        raise InputError(
            f'{where}: "model_response.text" must be the generations (a non-empty list of strings), got '
            f"{predictions!r:.60}; only generative lighteval tasks have answers to score"
        )
    record = {
        "id": _id(doc.get("id"), position),
        "question": _question(doc, where),
        "answer": _answer(doc, where),
        "predictions": predictions,
    }
    specific = doc.get("specific")
    extracted = specific.get("extracted_predictions") if isinstance(specific, dict) else None
    if isinstance(extracted, list) and len(extracted) == len(predictions):
        record["source_extracted"] = [answer if isinstance(answer, str) else None for answer in extracted]
    return record


def _id(value, position: int) -> str:
    return value if isinstance(value, str) and value else str(position)


def _question(doc: dict, where: str) -> str:
    for name in ("original_query", "query"):
        if isinstance(doc.get(name), str) and doc[name]:
            return doc[name]
    raise InputError(f'{where}: "doc.query" must be the question (a string); is this a lighteval details file?')


def _answer(doc: dict, where: str) -> str:
    choices, gold = doc.get("choices"), doc.get("gold_index")
    if isinstance(gold, list) and len(gold) == 1:
        gold = gold[0]
    if not (isinstance(choices, list) and type(gold) is int and 0 <= gold < len(choices)):
        raise InputError(
            f'{where}: "doc.gold_index" must pick one of "doc.choices" (the gold answer), got {gold!r:.40} of '
            f"{choices!r:.60}; score a generative task with one gold answer per question"
        )
    answer = choices[gold]
    if not isinstance(answer, str):
        raise InputError(f'{where}: the gold "doc.choices"[{gold}] must be a string, got {type(answer).__name__}')
    return answer
