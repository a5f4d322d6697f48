"""Samples as they are laid out: one generation per row, one file per seed, a replicated dataset (not a reader).

**Sample rows** are the shared contract of the long layouts. A reader whose module sets ``SAMPLES = True``
yields, from ``read(path)``, one ``(where, row)`` pair per sample instead of one record per question: ``where``
names the row for messages (``"gens.jsonl line 7"``) and ``row`` is a mapping::

    {"id": "q1", "question": "...", "answer": "204", "prediction": "...",        # required
     "language": "en", "finish_reason": "length",                               # optional
     "source_extracted": "204", "source_verdict": true}                         # optional: the tool's own

An ``id`` may be an integer (a JSON number, a Parquet integer column), read as its decimal text (``7`` ->
``"7"``); a float or bool id is refused. An ``answer`` may be a number, read as its text. ``finish_reason``,
``source_extracted`` and ``source_verdict`` may be null (a ``source_verdict`` given as null is the tool's verdict
unresolved: the question then has its ``source_verdicts`` list, all null if need be). Other fields are ignored (a script's own bookkeeping:
seed, usage, timing). :func:`group_samples` groups the rows by ``id`` (in any order) into the per-question
records :func:`~gpassk_opencompass.scoring.questions.question_from` parses (``predictions``, and the
``source_extracted``, ``source_verdicts``, ``finish_reasons`` lists when any row of the question has one); a
row whose question or gold answer differs from the first row of its id is one line naming both rows.

**One file per seed** (:func:`join_seeds`): several files, each holding at most one sample per question (in
any layout a reader knows), joined by question id in file order; a question missing from one file is one line
naming the file and the question, or, with ``allow_missing``, that question's n is what was found.

**A replicated dataset** (:func:`group_replicas`): one file whose every record holds one sample and whose
question texts each occur the same number of times m >= 2 (a dataset repeated m times, each replica with its
own id) is grouped by question text into questions of m samples (id: the first one's), when the largest k is
over 1 and every record has a text (a caller without texts, such as the metric card's ``compute()``, says
nothing about which records are one question: its records are never merged) (a file of one sample per question could not be scored then; with k = 1 it is scored as it is, so
grouping never changes a result that would be given without it). Replicas with the same text but different
gold answers are one line, never merged. Texts that repeat unevenly, or a file where some record holds several
samples, are not grouped: a normal file where two questions share a text stays as it is.

>>> rows = [("f line 1", {"id": 1, "question": "1+1?", "answer": 2, "prediction": "2"}),
...         ("f line 2", {"id": "2", "question": "2+2?", "answer": "4", "prediction": "5"}),
...         ("f line 3", {"id": "1", "question": "1+1?", "answer": "2", "prediction": "3",
...                       "finish_reason": "length"})]
>>> group_samples(rows)  # doctest: +NORMALIZE_WHITESPACE
[{'id': '1', 'question': '1+1?', 'answer': '2', 'predictions': ['2', '3'], 'finish_reasons': [None, 'length']},
 {'id': '2', 'question': '2+2?', 'answer': '4', 'predictions': ['5']}]
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.questions import Question, check_count, question_from
from gpassk_opencompass.scoring.readers._folder import gold_answer

#: The fields of a sample row: the required ones, then the optional ones.
REQUIRED = ("id", "question", "answer", "prediction")
OPTIONAL = ("language", "finish_reason", "source_extracted", "source_verdict")
#: A sample row's per-sample field -> the per-question list of a record.
_LISTS = {
    "finish_reason": "finish_reasons",
    "source_extracted": "source_extracted",
    "source_verdict": "source_verdicts",
}
_ROW_FIX = "a sample row is {id, question, answer, prediction} (optionally language, finish_reason)"


class Layout(NamedTuple):
    """How the samples were laid out, for the console's one line (:func:`~gpassk_opencompass.render.score_report.layout_line`)."""

    #: how many records, rows or files were read
    read: int
    #: what they were: ``"rows"``, ``"records"`` or ``"files"``
    unit: str
    #: how many questions they made
    questions: int
    #: the fewest and the most samples of a question
    least: int
    most: int
    #: what grouped them: ``"id"``, ``"question id"``, ``"question text and answer"``
    by: str
    #: samples absent from a seed's file (``allow_missing``)
    missing: int = 0


def sample_row(row: object, where: str) -> dict:
    """One sample row checked and normalised (id and answer as text, no null optional field but the tool's own).

    >>> sample_row({"id": 7, "question": "q", "answer": 1.5, "prediction": "p", "seed": 3}, "f line 1")
    {'id': '7', 'question': 'q', 'answer': '1.5', 'prediction': 'p'}
    >>> sample_row({"id": "a", "question": "q", "answer": "1"}, "f line 2")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: f line 2: missing 'prediction'; a sample row is {id, question, answer, prediction} (optionally language, finish_reason)
    """
    if not isinstance(row, Mapping):
        raise InputError(f"{where}: expected an object (one sample), got {type(row).__name__}; {_ROW_FIX}")
    missing = [name for name in REQUIRED if row.get(name) is None]
    if missing:
        raise InputError(f"{where}: missing {', '.join(map(repr, missing))}; {_ROW_FIX}")
    identifier = row["id"]
    if isinstance(identifier, int) and not isinstance(identifier, bool):
        identifier = str(identifier)
    if not isinstance(identifier, str):
        raise InputError(
            f'{where}: "id" must be a string or an integer, got {type(identifier).__name__} {identifier!r:.40}'
        )
    for name in ("question", "prediction"):
        if not isinstance(row[name], str):
            raise InputError(f'{where}: "{name}" must be a string, got {type(row[name]).__name__} {row[name]!r:.60}')
    sample = {
        "id": identifier,
        "question": row["question"],
        "answer": gold_answer(row["answer"], where, '"answer"', "give one gold answer per question"),
        "prediction": row["prediction"],
    }
    for name in OPTIONAL:
        value = row.get(name)
        if value is None:
            if name == "source_verdict" and name in row:
                sample[name] = None  # the tool's verdict field, unresolved here (a judge reply without a verdict)
            continue
        kind = bool if name == "source_verdict" else str
        if not isinstance(value, kind):
            raise InputError(
                f'{where}: "{name}" must be {"true, false" if kind is bool else "a string"} or null, got '
                f"{type(value).__name__} {value!r:.60}"
            )
        sample[name] = value
    return sample


def group_samples(samples: Iterable[tuple[str, object]]) -> list[dict]:
    """The per-question records of sample rows (see the module docstring), in order of each id's first row.

    Args:
        samples: ``(where, row)`` pairs, from one file or several (a reader with ``SAMPLES = True``).

    Raises:
        InputError: a malformed row, or a row whose question or gold answer differs from its id's first row
            (both rows and both values named).
    """
    return _grouped((where, sample_row(row, where)) for where, row in samples)


def _grouped(samples: Iterable[tuple[str, dict]]) -> list[dict]:
    records: dict[str, dict] = {}
    first_where: dict[str, str] = {}
    for where, sample in samples:
        identifier = sample["id"]
        record = records.get(identifier)
        if record is None:
            record = records[identifier] = {"id": identifier, "question": sample["question"]}
            record.update(answer=sample["answer"], predictions=[])
            if "language" in sample:
                record["language"] = sample["language"]
            first_where[identifier] = where
        else:
            for name, what in (("question", "question"), ("answer", "gold answer")):
                if sample[name] != record[name]:
                    raise InputError(
                        _disagree(where, first_where[identifier], identifier, what, sample[name], record[name])
                    )
        position = len(record["predictions"])
        record["predictions"].append(sample["prediction"])
        for name, field in _LISTS.items():
            value = sample.get(name)
            if value is not None or (name == "source_verdict" and name in sample):
                record.setdefault(field, [None] * position).append(value)
            elif field in record:
                record[field].append(None)
    return list(records.values())


class LineId(str):
    """An id a reader gave a sample row by its place in the file (``"4"``: the fifth line), for data without ids.

    Rows of one place in several seeds' files are then joined as the tool joins them, line by line; a row there
    of another question means the files are not of one run, or out of order, not that an id was reused.

    >>> LineId("4") == "4", {LineId("4"): 1}["4"]
    (True, 1)
    """

    __slots__ = ()


def _disagree(where: str, first: str, identifier: str, what: str, value: object, held: object) -> str:
    """The line for a row whose question or gold answer differs from the first row of its id (or of its place)."""
    if isinstance(identifier, LineId):
        return (
            f"{where}: {what} {value!r:.60}, but {first}, at the same place, has {held!r:.60}; without ids in the "
            "data, line i of every seed's file is question i, as the tool joins them: these files are not of one "
            "run, or their lines are out of order; give the files of one run as the tool wrote them"
        )
    return (
        f"{where}: id {identifier!r} has {what} {value!r:.60} but {first} has {held!r:.60}; rows of one id are "
        "samples of one question: give each question its own id"
    )


def questions_of(records: Iterable[Mapping], source: str) -> list[Question]:
    """The questions of grouped records (every count checked later, :func:`check_counts`)."""
    questions = [question_from(record, f"{source}: question {record['id']!r}", None) for record in records]
    if not questions:
        raise InputError(f"{source}: no samples (the file is empty)")
    return questions


def check_counts(questions: Iterable[Question], least: int, source: str) -> None:
    """Every question has at least ``least`` samples (the largest k) and at most ``MAX_N``."""
    for question in questions:
        check_count(question.id, len(question.predictions), least, source)


def rows_of_questions(questions: Iterable[Question], source: str) -> Iterator[tuple[str, dict]]:
    """The sample rows of questions read one record per question (a gpassk or qwen-math file of one seed)."""
    for question in questions:
        where = f"{source} question {question.id!r}"
        for position, prediction in enumerate(question.predictions):
            sample: dict[str, object] = {"id": question.id, "question": question.question}
            sample["answer"] = question.reference
            sample.update(prediction=prediction, language=question.language)
            for name, values in (
                ("finish_reason", question.finish_reasons),
                ("source_extracted", question.source_extracted),
                ("source_verdict", question.source_verdicts),
            ):
                if values is not None and values[position] is not None:
                    sample[name] = values[position]
            yield where, sample


def join_seeds(
    files: Sequence[tuple[Path, Iterable[tuple[str, object]]]], *, allow_missing: bool = False
) -> tuple[list[dict], Layout]:
    """One file per seed joined by question id: the per-question records, in order of first appearance.

    Args:
        files: per file (in seed order), its sample rows.
        allow_missing: a question absent from a file keeps the samples found (else one line).

    Raises:
        InputError: a file holding two samples of one question, a question missing from a file (without
            ``allow_missing``), or a row whose question or gold answer differs from its id's first row.

    >>> seed = lambda i, ids: (Path(f"seed{i}.jsonl"), [(f"seed{i}.jsonl line {n}", {"id": q, "question": q,
    ...     "answer": "1", "prediction": str(i)}) for n, q in enumerate(ids, start=1)])
    >>> records, layout = join_seeds([seed(0, "ab"), seed(1, "ba")])
    >>> [record["predictions"] for record in records], layout.by
    ([['0', '1'], ['0', '1']], 'question id')
    >>> join_seeds([seed(0, "ab"), seed(1, "a")])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: seed1.jsonl: question 'b' is missing (seed0.jsonl has it); each seed's file must hold every question once: add it, or give --allow-missing to score it with the samples found
    """
    held: list[tuple[Path, dict[str, tuple[str, dict]]]] = []
    for file, rows in files:
        ids: dict[str, tuple[str, dict]] = {}
        for where, row in rows:
            sample = sample_row(row, where)
            if sample["id"] in ids:
                raise InputError(
                    f"{where}: a second sample of question {sample['id']!r} in this file (the first: "
                    f"{ids[sample['id']][0]}); one file per seed holds one sample per question: give each seed's "
                    "samples in a file of their own, or score one file at a time"
                )
            ids[sample["id"]] = (where, sample)
        held.append((file, ids))
    every = dict.fromkeys(identifier for _, ids in held for identifier in ids)
    missing = 0
    for file, ids in held:
        for identifier in every:
            if identifier not in ids:
                if not allow_missing:
                    found = next(other for other, others in held if identifier in others)
                    raise InputError(
                        f"{file}: question {identifier!r} is missing ({found} has it); each seed's file must hold "
                        "every question once: add it, or give --allow-missing to score it with the samples found"
                    )
                missing += 1
    records = _grouped(pair for _, ids in held for pair in ids.values())
    counts = [len(record["predictions"]) for record in records]
    least, most = min(counts, default=0), max(counts, default=0)
    return records, Layout(len(files), "files", len(records), least, most, "question id", missing)


def group_replicas(questions: Sequence[Question], source: str) -> tuple[list[Question], Layout] | None:
    """A replicated dataset's records grouped into questions (see the module docstring); ``None``: not one.

    >>> replica = lambda i, text, gold, said: Question(str(i), text, gold, (said,))
    >>> grouped, layout = group_replicas([replica(0, "1+1?", "2", "2"), replica(1, "2+2?", "4", "4"),
    ...                                   replica(2, "1+1?", "2", "3"), replica(3, "2+2?", "4", "4")], "f")
    >>> [(question.id, question.predictions) for question in grouped], layout
    ([('0', ('2', '3')), ('1', ('4', '4'))], Layout(read=4, unit='records', questions=2, least=2, most=2, by='question text and answer', missing=0))
    >>> group_replicas([replica(0, "", "2", "2"), replica(1, "", "2", "3")], "f") is None  # no texts: no merging
    True
    >>> group_replicas([replica(0, "1+1?", "2", "2"), replica(1, "1+1?", "3", "2")], "f")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: f: records '0' and '1' have the same question text but different gold answers ('2', '3'); a file of one sample per record whose texts repeat is read as a dataset repeated n times, and these cannot be one question: fix the gold answer or the question text
    """
    if len(questions) < 2 or any(
        len(question.predictions) != 1 or not question.question.strip() for question in questions
    ):
        return None  # a record without a text: nothing says which records are one question, so none are merged
    by_text: dict[str, list[Question]] = {}
    for question in questions:
        by_text.setdefault(question.question, []).append(question)
    sizes = {len(group) for group in by_text.values()}
    if len(sizes) != 1 or sizes == {1}:
        return None
    for group in by_text.values():
        first = group[0]
        other = next((question for question in group if question.reference != first.reference), None)
        if other is not None:
            raise InputError(
                f"{source}: records {first.id!r} and {other.id!r} have the same question text but different gold "
                f"answers ({first.reference!r:.40}, {other.reference!r:.40}); a file of one sample per record whose "
                "texts repeat is read as a dataset repeated n times, and these cannot be one question: fix the gold "
                "answer or the question text"
            )
    grouped = [_merged(group) for group in by_text.values()]
    (size,) = sizes
    return grouped, Layout(len(questions), "records", len(grouped), size, size, "question text and answer")


def one_sample_each(questions: Sequence[Question], least: int, source: str) -> str:
    """The message for a file of one sample per question when k > 1: what layouts give n samples.

    >>> print(one_sample_each([Question("a", "q", "1", ("1",)), Question("b", "q", "2", ("2",))], 4, "f"))
    f: every question has 1 sample, and at least 4 are needed (the largest k); 2 records, of which 1 distinct question texts (a replicated dataset is grouped only when every text occurs the same number of times); for n samples per question give the n samples of a question one id (one generation per line), one file per seed (a folder or a glob), or a dataset repeated n times
    """
    texts = len({question.question for question in questions})
    return (
        f"{source}: every question has 1 sample, and at least {least} are needed (the largest k); "
        f"{len(questions)} records, of which {texts} distinct question texts (a replicated dataset is grouped only "
        "when every text occurs the same number of times); for n samples per question give the n samples of a "
        "question one id (one generation per line), one file per seed (a folder or a glob), or a dataset repeated "
        "n times"
    )


def _merged(group: Sequence[Question]) -> Question:
    """One question of a replicated dataset: the first replica's id, text and answer; every replica's sample."""
    first = group[0]

    def joined(values: Sequence[tuple | None]) -> tuple | None:
        if all(value is None for value in values):
            return None
        return tuple(value[0] if value is not None else None for value in values)

    return Question(
        first.id,
        first.question,
        first.reference,
        tuple(question.predictions[0] for question in group),
        first.language,
        source_extracted=joined([question.source_extracted for question in group]),
        source_verdicts=joined([question.source_verdicts for question in group]),
        finish_reasons=joined([question.finish_reasons for question in group]),
    )


#: Characters that make an input path a glob (``'runs/seed*.jsonl'``).
_GLOB = re.compile(r"[*?\[]")


def is_glob(path: str | os.PathLike) -> bool:
    """Whether ``path`` names no file or folder and its last part is a glob pattern.

    >>> is_glob("runs/seed*.jsonl"), is_glob("runs/seed0.jsonl")
    (True, False)
    """
    path = Path(path)
    return not path.exists() and bool(_GLOB.search(path.name)) and not _GLOB.search(str(path.parent))
