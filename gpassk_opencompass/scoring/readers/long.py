"""One generation per line: a JSONL, Parquet or CSV file of sample rows, grouped by ``id`` in any order.

What a user's own vLLM or SGLang script most often writes: one row per (question, sample), the same
question's rows sharing an ``id``::

    {"id": "aime25-3", "question": "...", "answer": "204", "prediction": "...", "finish_reason": "stop"}

Columns: ``id``, ``question``, ``answer``, ``prediction``, optional ``language``, ``finish_reason``,
``source_extracted``, ``source_verdict`` (:mod:`~gpassk_opencompass.scoring.readers._samples`, the sample-row
contract; other columns are ignored). Detected from the first record of a ``.jsonl`` file (it has ``prediction``
and no ``predictions``, which the gpassk format has), the column names in a ``.parquet`` footer or a ``.csv``
header. A CSV cell is text: an empty optional cell is absent, ``source_verdict`` is ``true`` or ``false``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import MAX_JSON_BYTES, UnreadableFile, load_json_text, read_bytes_bounded, read_head
from gpassk_opencompass.files import read_lines as read_text_lines
from gpassk_opencompass.files.archives import open_parquet, parquet_unreadable
from gpassk_opencompass.scoring.readers._samples import OPTIONAL, REQUIRED
from gpassk_opencompass.scoring.readers.sniff import SNIFF_BYTES, first_record

NAME = "long"
DESCRIPTION = "one generation per row: {id, question, answer, prediction} rows of a JSONL, Parquet or CSV file"
#: This reader yields sample rows, grouped by id (:func:`~gpassk_opencompass.scoring.readers._samples.group_samples`).
SAMPLES = True
SUFFIXES = (".jsonl", ".parquet", ".csv")
#: The most bytes of a CSV file read (it is parsed whole: a cell may hold newlines).
MAX_CSV_BYTES = MAX_JSON_BYTES
_BATCH = 1024


def detect(path: Path) -> bool:
    """A ``.jsonl``, ``.parquet`` or ``.csv`` file whose first record or columns are a sample row's."""
    if path.suffix == ".jsonl":
        record = first_record(path, suffixes=(".jsonl",))
        return isinstance(record, dict) and all(name in record for name in REQUIRED) and "predictions" not in record
    return _is_sample_table(_columns(path))


def _is_sample_table(columns: list[str] | None) -> bool:
    return columns is not None and all(name in columns for name in REQUIRED) and "predictions" not in columns


def _columns(path: Path) -> list[str] | None:
    """The column names of a Parquet footer or a CSV header; ``None`` when there are none (never raises)."""
    if path.suffix == ".parquet":
        try:
            with open_parquet(path, columns=()) as file:
                return list(file.schema_arrow.names)
        except InputError:
            return None
    if path.suffix == ".csv":
        head = read_head(path, SNIFF_BYTES)
        if not head:
            return None
        try:
            return next(csv.reader([head.decode("utf-8-sig", errors="replace").partition("\n")[0]]), None)
        except csv.Error:
            return None
    return None


def read(path: Path) -> Iterator[tuple[str, object]]:
    """One ``(where, row)`` pair per sample row of the file (see the module docstring).

    Raises:
        InputError: a folder or another kind of file, a line that is not one JSON object, an unreadable
            Parquet or CSV file, or one over its size limit (the message names the file and the fix).
    """
    if path.is_dir() or path.suffix not in SUFFIXES:
        raise InputError(
            f"{path}: --format long reads one .jsonl, .parquet or .csv file of sample rows (a folder of one file "
            "per seed is read file by file: give the folder without --format, or a glob such as 'runs/seed*.jsonl')"
        )
    if path.suffix == ".jsonl":
        yield from _jsonl(path)
    elif path.suffix == ".parquet":
        yield from _parquet(path)
    else:
        yield from _csv(path)


def _jsonl(path: Path) -> Iterator[tuple[str, object]]:
    for number, line in enumerate(read_text_lines(path), start=1):
        if line.strip():
            where = f"{path} line {number}"
            yield where, load_json_text(line, source=where)


def _parquet(path: Path) -> Iterator[tuple[str, object]]:
    import pyarrow  # deferred: heavy (pyarrow), imported only when a Parquet file is read

    with open_parquet(path, columns=()) as file:
        names = file.schema_arrow.names
    wanted = [name for name in (*REQUIRED, *OPTIONAL) if name in names]
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        raise InputError(f"{path}: no column {', '.join(map(repr, missing))}; a sample table has {', '.join(REQUIRED)}")
    with open_parquet(path, columns=wanted) as file:
        number = 0
        try:
            for batch in file.iter_batches(batch_size=_BATCH, columns=wanted):
                for row in batch.to_pylist():
                    number += 1
                    yield f"{path} row {number}", row
        except (MemoryError, OSError, pyarrow.ArrowException) as error:
            raise parquet_unreadable(path, error) from None


def _csv(path: Path) -> Iterator[tuple[str, object]]:
    data = read_bytes_bounded(path, MAX_CSV_BYTES, "a CSV file of samples")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnreadableFile(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    del data
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_CSV_BYTES)  # a generation is often longer than csv's default 128 KiB cell
    try:  # parsed whole, so that the limit is set back before anything else runs
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header, rows = reader.fieldnames or [], list(reader)
    except csv.Error as error:
        raise InputError(f"{path}: not a readable CSV file ({error}); write it with a CSV writer") from None
    finally:
        csv.field_size_limit(limit)
    del text
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InputError(
            f"{path}: no column {', '.join(map(repr, missing))} in the header; a sample table has {', '.join(REQUIRED)}"
        )
    for number, row in enumerate(rows, start=1):
        yield f"{path} row {number}", _typed(row, f"{path} row {number}")


def _typed(row: dict, where: str) -> dict:
    """A CSV row's cells as a sample row's values: an empty optional cell absent, a verdict as a bool."""
    typed = {name: row[name] for name in REQUIRED if name in row}
    for name in OPTIONAL:
        value = row.get(name)
        if value in (None, ""):
            continue
        if name == "source_verdict":
            verdict = {"true": True, "false": False}.get(value.strip().lower())
            if verdict is None:
                raise InputError(f'{where}: "source_verdict" must be true, false or empty, got {value!r:.40}')
            typed[name] = verdict
        else:
            typed[name] = value
    return typed
