"""Reading and writing a results document: every reader and writer of a results file goes through here.

:func:`write_results` writes a :class:`~gpassk_opencompass.scoring.results.ResultsFile` (or a mapping it
validates first) atomically, redacted, streamed row by row (:func:`json_document`: the same, as data); :func:`read_results` / :func:`load_results`
read and validate any version back into one, which every reader uses (the console report, the
leaderboard, ``gpassk grid status``, ``gpassk agree/compare/plan``).

Reading checks the shape of every field (a malformed one raises, in one line:
:func:`~gpassk_opencompass.contracts.input_error`) and then whether the values can be believed
(:func:`~gpassk_opencompass.scoring.consistency.results_problems`: percentages in [0, 100], possible
counts, metrics reproduced by the details); what fails is listed in
:attr:`~gpassk_opencompass.scoring.results.ResultsFile.problems`, and every reader refuses or flags such
a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict
from typing import TypeVar

from pydantic import ValidationError

from gpassk_opencompass.checks import is_int
from gpassk_opencompass.contracts import input_error
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import (
    UnreadableFile,
    UnreadableJSON,
    check_containers,
    load_json_text,
    read_bytes_bounded,
)
from gpassk_opencompass.files.writing import write_chunks_atomic
from gpassk_opencompass.redaction import redactor
from gpassk_opencompass.scoring.consistency import results_problems
from gpassk_opencompass.scoring.details import CompactDetails, QuestionRecord, detail_rows
from gpassk_opencompass.scoring.results import SCHEMA_VERSION, GPassKBlock, ResultsFile

#: Results files larger than this are refused before parsing (a results file of 238 questions x 48
#: generations with every verdict's reason is a few MB).
MAX_RESULTS_BYTES = 256 * 1024 * 1024

T = TypeVar("T")


def read_results(document: Mapping | ResultsFile, source: str = "<document>") -> ResultsFile:
    """Validate a results document (as written by this package, or any OpenCompass evaluator) into the model.

    Schema 2 is read as declared; schema 1 and 0 (another evaluator's results)
    are read leniently as before: their top-level values that are not numbers and
    the ``gpassk`` fields they never had are ignored.

    Raises:
        InputError: naming the source and the first malformed field, in one line.

    >>> record = read_results({"accuracy (2 runs average)": 50.0, "unresolved": 0,
    ...     "gpassk": {"schema_version": 2, "complete": True, "unresolved": 0, "k": [2], "n": 2},
    ...     "details": [{"id": "q1", "c": 1, "n": 2, "unresolved": 0, "verdicts": [
    ...         {"correct": True, "extracted": "2", "reason": "equal", "source": "rule"},
    ...         {"correct": False, "extracted": "3", "reason": "differ", "source": "rule"}]}]})
    >>> record.schema_version, record.complete, record.ks, record.counts()[0].tolist(), record.details[0].verdicts[1]
    (2, True, (2,), [1], Verdict(correct=False, extracted='3', reason='differ', source='rule'))
    >>> read_results({"unresolved": -1, "gpassk": {}}, "r.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: r.json: unresolved = -1: input should be greater than or equal to 0
    """
    if isinstance(document, ResultsFile):
        return document
    if not isinstance(document, Mapping):
        raise InputError(f"{source}: a results file holds a JSON object, got {type(document).__name__}")
    info = document.get("gpassk", {})
    version = info.get("schema_version", 1 if info else 0) if isinstance(info, Mapping) else SCHEMA_VERSION
    if not is_int(version) or not 0 <= version <= SCHEMA_VERSION:
        raise InputError(
            f"{source}: unknown results schema_version {version!r}; this gpassk-opencompass reads "
            f"versions up to {SCHEMA_VERSION} (upgrade it to read newer files)"
        )
    if version < SCHEMA_VERSION:
        document = _legacy(document)
    try:
        record = ResultsFile.model_validate_json(json.dumps(document, ensure_ascii=False))
    except ValidationError as error:
        raise input_error(error, source, ResultsFile, document) from None
    return _checked(record, source)


def load_results(path) -> ResultsFile:
    """Read and validate a results JSON file (:func:`read_results`); size-capped, one-line errors.

    A file as this package writes it is parsed and validated in one step
    (pydantic-core); anything else is parsed with the JSON limits of
    :mod:`~gpassk_opencompass.files` and explained by :func:`read_results`.
    """
    try:
        data = read_bytes_bounded(path, MAX_RESULTS_BYTES, "one JSON document")
    except UnreadableFile as error:
        raise UnreadableJSON(str(error)) from None
    check_containers(data, str(path))  # what either parser builds, bounded before it builds it
    try:
        record = ResultsFile.model_validate_json(data)
    except ValidationError:
        pass
    else:
        if record.schema_version <= SCHEMA_VERSION:
            return _checked(record, str(path))
    return read_results(load_json_text(data, source=str(path), max_bytes=MAX_RESULTS_BYTES), str(path))


def _gpassk_details(details: object) -> bool:
    """Whether a document's ``details`` are per-question records (an ``id`` each), as gpassk writes them."""
    return isinstance(details, list) and all(isinstance(detail, Mapping) and "id" in detail for detail in details)


def _checked(record: ResultsFile, source: str) -> ResultsFile:
    """``record`` with its source and :attr:`ResultsFile.problems` set."""
    problems = results_problems(record)
    record._source, record._problems = source, problems  # private attributes: settable on a frozen model
    return record


def _legacy(document: Mapping) -> dict:
    """A schema 0 or 1 document as the model reads it: top-level values other than numbers and ``gpassk``
    fields the block never had are ignored, as every reader of those versions did; so are the ``details`` of a
    schema 0 document (another evaluator's) unless they are per-question records with an ``id`` each.

    >>> theirs = {"G-Pass@4_0.5": 67.5, "details": [{"example_abbr": "oc_livemath_0", "correct": [1, 0]}]}
    >>> read_results(theirs).details, read_results(theirs).metrics
    ((), {'G-Pass@4_0.5': 67.5})
    """
    kept = {
        key: value
        for key, value in document.items()
        if key in ("gpassk", "details", "unresolved") or (is_int(value) or isinstance(value, float))
    }
    if "gpassk" not in kept and not _gpassk_details(kept.get("details")):
        kept.pop("details", None)  # another evaluator's own (OpenCompass's --dump-eval-details): not ours to read
    info = kept.get("gpassk")
    if isinstance(info, Mapping):
        kept["gpassk"] = {key: value for key, value in info.items() if key in GPassKBlock.model_fields}
    return kept


def write_results(path, results: ResultsFile | Mapping) -> None:
    """Write a results document atomically, redacted, as indented UTF-8 JSON; ``details`` last, one question a line.

    A mapping is validated first (:func:`read_results`): nothing but the one
    model is written. One line per question keeps a million generations fast
    to write (the standard library's indenting encoder is pure Python) and easy to read;
    each distinct verdict is encoded once, and a question's line joins the texts of its verdicts.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> write_results(path, {"accuracy": 50.0, "details": [{"id": "q1", "c": 1, "n": 2}, {"id": "q2", "c": 0, "n": 2}]})
    >>> print(path.read_text(), end="")
    {
      "accuracy": 50.0,
      "details": [
        {"id": "q1", "c": 1, "n": 2, "unresolved": 0, "verdicts": []},
        {"id": "q2", "c": 0, "n": 2, "unresolved": 0, "verdicts": []}
      ]
    }
    """
    header, details = _parts(read_results(results))
    text = json.dumps(header, indent=2, ensure_ascii=False)
    if details is None:
        write_chunks_atomic(path, (text, "\n"))
        return
    head = (text[:-2] + ",\n" if header else "{\n") + '  "details": ['
    write_chunks_atomic(path, _streamed(head, _lines(*details)))


def json_document(results: ResultsFile) -> dict:
    """The document as JSON-ready data, redacted: what OpenCompass and :func:`write_results` write.

    Fields that were never set are left out (a block not asked for is
    absent, not null). ``details`` are built leanly: each distinct verdict
    becomes one record shared by every generation it judged.
    """
    header, details = _parts(results)
    if details is None:
        return header
    entries, records, redaction = details
    header["details"] = [{**row, "verdicts": verdicts} for row, verdicts in _rows(entries, records, redaction)]
    return header


#: The ``details`` of a document to write: the entries, each distinct verdict's redacted record by ``id``, the redactor.
_Details = tuple[Sequence[QuestionRecord], dict[int, dict], Callable[[str], str]]


def _parts(results: ResultsFile) -> tuple[dict, _Details | None]:
    """The redacted document without ``details``, and its ``details`` (``None``: unset) to be redacted row by row.

    Each string is redacted once however often it occurs: the header, each distinct verdict, each
    question's id and labels; the questions then reference the verdicts' records.
    """
    dumped = results.model_dump(mode="json", exclude_unset=True, exclude={"details"})
    metrics = results.model_extra or {}
    header = {**{key: dumped[key] for key in metrics}, **dumped}  # the metrics first, as always
    redaction = redactor()
    if "details" not in results.model_fields_set:
        return redaction.data(header), None
    if isinstance(results.details, CompactDetails):
        distinct = {id(verdict): verdict for verdict in results.details.verdicts}
    else:
        distinct = {id(verdict): verdict for question in results.details for verdict in question.verdicts}
    header, records = redaction.data([header, {key: asdict(verdict) for key, verdict in distinct.items()}])
    return header, (results.details, records, redaction)


def _rows(
    details: Sequence[QuestionRecord], values: Mapping[int, T], redaction: Callable[[str], str]
) -> Iterator[tuple[dict, list[T]]]:
    """Per question, its redacted ``details`` entry with ``verdicts`` still empty, and the values (``values``
    by the ``id`` of each verdict: its record, or the record's JSON text) of its verdicts."""
    texts: dict[str, str] = {}

    def text(string: str) -> str:  # each distinct string redacted once (labels repeat; ids do not)
        done = texts.get(string)
        if done is None:
            done = redaction(string)
            if len(texts) < 10_000:
                texts[string] = done
        return done

    if isinstance(details, CompactDetails):  # the values by verdict index: a generation is one lookup
        entries = details.rows([values[id(verdict)] for verdict in details.verdicts])
    else:
        entries = ((*entry[:-1], [values[id(verdict)] for verdict in entry[-1]]) for entry in detail_rows(details))
    for question_id, c, n, labels, counts, digests, verdicts in entries:
        row = {
            "id": text(question_id),
            "c": c,
            "n": n,
            **{text(column): text(label) for column, label in labels.items()},
            **counts,
            **digests,
            "verdicts": [],
        }
        yield row, verdicts


def _lines(
    details: Sequence[QuestionRecord], records: dict[int, dict], redaction: Callable[[str], str]
) -> Iterator[str]:
    """The ``details`` entries as JSON text, one a line, as ``json`` encodes them: each distinct verdict record is
    encoded once and each entry's ``verdicts`` list joins the texts of its verdicts."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    encoded = {key: encode(record) for key, record in records.items()}
    records.clear()  # the texts stand for them now
    for row, verdicts in _rows(details, encoded, redaction):
        before, key, after = encode(row).rpartition('"verdicts": []')  # the key: a string in it would be escaped
        yield f"{before}{key[:-1]}{', '.join(verdicts)}]{after}"


def _streamed(head: str, lines: Iterator[str], chunk_chars: int = 1 << 20) -> Iterator[str]:
    """``head``, then the ``details`` lines (in chunks of about ``chunk_chars``), then the document's end."""
    yield head
    chunk: list[str] = []
    size, separator = 0, "\n    "
    for line in lines:
        chunk.append(line)
        size += len(line)
        if size >= chunk_chars:
            yield separator + ",\n    ".join(chunk)
            chunk, size, separator = [], 0, ",\n    "
    if chunk:
        yield separator + ",\n    ".join(chunk)
    yield ("]" if separator == "\n    " and not chunk else "\n  ]") + "\n}\n"
