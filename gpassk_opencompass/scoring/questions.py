r"""A question and its generations, and the one parse that makes one from a record.

A record is ``{"id", "question", "answer", "predictions", "language"?}`` plus optional per-prediction
``source_extracted``, ``source_verdicts`` and ``finish_reasons`` (docs/scoring.md). :func:`parse_generations`
turns the lines of a generations file, a reader's records and :func:`~gpassk_opencompass.scoring.flow.score`'s
mappings alike into :class:`Question` values, each checked once by :func:`question_from` (a mistake is one
:class:`~gpassk_opencompass.errors.InputError` line naming the record); :func:`judge_language` reads ``language``.

>>> lines = ['{"id": "q1", "question": "1+1?", "answer": "2", "predictions": ["2", "3"]}',
...          '', {"id": "q2", "question": "2+2?", "answer": "4", "predictions": ["4", "4"], "language": "zh"}]
>>> [(question.id, question.predictions, question.language) for question in parse_generations(lines)]
[('q1', ('2', '3'), 'en'), ('q2', ('4', '4'), 'cn')]
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gpassk_opencompass.defaults import MAX_N
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import load_json_text, read_lines
from gpassk_opencompass.judges import LANGUAGES

#: Spellings of the two judge-prompt languages accepted in inputs (lower-cased).
LANGUAGE_ALIASES = {"en": "en", "english": "en", "cn": "cn", "zh": "cn", "zh-cn": "cn", "chinese": "cn"}

#: The labels of a question without any: one shared, read-only mapping (not an empty dict per question).
NO_LABELS: Mapping[str, str] = MappingProxyType({})

#: The fields of a record and the type of each (``predictions``: a list of strings; a tuple in memory).
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "question": str,
    "answer": str,
    "predictions": (list, tuple),
    "language": str,
}
_REQUIRED = dict.fromkeys(("id", "question", "answer", "predictions")).keys()  # in order, and a set
#: The optional per-prediction fields: what the tool that made the samples extracted, and its verdicts.
_SOURCE_FIELDS: dict[str, tuple[type, ...]] = {
    "source_extracted": (str,),
    "source_verdicts": (bool,),
    "finish_reasons": (str,),
}
_ALL = (*_FIELDS, *_SOURCE_FIELDS)
_KNOWN = frozenset(_ALL)
#: What ``GPassKEvaluator(keep_questions=True)`` writes beside its verdict cache: one line per question as it was
#: judged (:func:`question_lines`), read back by :func:`read_questions_file`, from which ``gpassk grid run``
#: combines the two rounds of a curtailed run (their texts, languages and subset labels; docs/grid.md).
QUESTIONS_FILE = "questions.jsonl"
_QUESTION_LINE = ("id", "question", "answer", "language", "labels")


@dataclass(frozen=True, slots=True)  # slots: a million questions in memory cost a third as much
class Question:
    """One question and the model's generations for it: what the flow scores.

    Attributes:
        id: the question's id (unique within a scoring).
        question: the problem statement (shown to the LLM judge).
        reference: the gold answer.
        predictions: the n generations, in order.
        language: ``"en"`` or ``"cn"`` (:func:`judge_language`); selects the judge prompt.
        labels: ``{subset column: label}`` (``split``, ``language``, ...), reported per label.
        source_extracted: per prediction, the answer the tool that made the samples extracted
            (``None`` where it has none); ``None``: the input has none.
        source_verdicts: per prediction, that tool's own verdict (``True``/``False``, ``None`` where
            it has none), scored as they are by ``--judge source``; ``None``: the input has none.
        finish_reasons: per prediction, why the generation stopped as the tool recorded it (``"stop"``,
            ``"length"``, ...; ``None`` where it has none); ``None``: the input has none.
    """

    id: str
    question: str
    reference: str
    predictions: tuple[str, ...]
    language: str = "en"
    labels: Mapping[str, str] = field(default_factory=lambda: NO_LABELS)  # shared: not a dict per question
    source_extracted: tuple[str | None, ...] | None = None
    source_verdicts: tuple[bool | None, ...] | None = None
    finish_reasons: tuple[str | None, ...] | None = None


def judge_language(value: object, where: str = "language") -> str:
    """The judge-prompt language of an input value: ``"en"`` or ``"cn"`` (the one place that reads it).

    >>> judge_language("EN"), judge_language("zh"), judge_language("Chinese")
    ('en', 'cn', 'cn')
    >>> judge_language("fr", "row 3")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: row 3: "language" must be one of en, cn (it selects the judge prompt); got 'fr'
    """
    code = LANGUAGE_ALIASES.get(str(value).strip().lower())
    if code not in LANGUAGES:
        raise InputError(f'{where}: "language" must be one of en, cn (it selects the judge prompt); got {value!r}')
    return code


class CheckedQuestions(list):
    """Questions whose counts were checked where they entered: each has from :attr:`least` to :data:`MAX_N`
    predictions (:func:`check_count`, once per question). Inner calls take them without checking again
    (:func:`~gpassk_opencompass.scoring.request.check_questions` checks only a k above :attr:`least`).

    >>> checked = CheckedQuestions([Question("a", "q", "1", ("1", "2"))], least=2)
    >>> len(checked), checked.least
    (1, 2)
    """

    def __init__(self, questions: Iterable[Question], least: int) -> None:
        super().__init__(questions)
        #: the fewest predictions every question has (the largest k it was checked for)
        self.least = least


def check_count(name: object, n: int, least: int, where: str = "") -> None:
    """Refuse a question of fewer than ``least`` generations (the largest k) or more than :data:`MAX_N`.

    >>> check_count("a", 2, 4, "input line 1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: input line 1: question 'a' has 2 prediction(s); at least 4 are needed (the largest k)
    """
    if n < least:
        raise InputError(
            f"{where}{': ' if where else ''}question {name!r} has {n} prediction(s); at least {least} are needed "
            "(the largest k)"
        )
    if n > MAX_N:
        raise InputError(
            f"{where}{': ' if where else ''}question {name!r} has {n:,} predictions, over the limit of {MAX_N:,} "
            "(MAX_N, the most generations per question accepted)"
        )


def parse_generations(
    records: Iterable[str | Mapping],
    *,
    min_predictions: int | None = 1,
    source: str = "input",
    lines: list[int] | None = None,
) -> list[Question]:
    """Validate records into :class:`Question` values: JSONL lines (blank ones skipped) or mappings.

    The ids must be unique; record ``i`` (counted from 1, blank lines too) is named ``{source} line {i}``;
    ``lines``, when given, receives each question's line number (a later message names it without reading again).

    >>> parse_generations(['{"id": "a", "question": "q", "answer": 2, "predictions": ["2"]}'], min_predictions=1)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: input line 1: "answer" must be a string, got int 2 (write it as "2")
    >>> parse_generations(['{"id": "a", "question": "q", "answer": "2", "predictions": ["2"]}'], min_predictions=4)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: input line 1: question 'a' has 1 prediction(s); at least 4 are needed (the largest k)
    """
    questions: list[Question] = []
    first_line_of: dict[str, int] = {}
    for number, record in enumerate(records, start=1):
        where = f"{source} line {number}"
        if isinstance(record, str):
            if not record.strip():
                continue
            record = load_json_text(record, source=where)
        question = question_from(record, where, min_predictions)
        if question.id in first_line_of:
            raise InputError(
                f"{where}: id {question.id!r} repeats line {first_line_of[question.id]}; ids must be unique"
            )
        first_line_of[question.id] = number
        questions.append(question)
        if lines is not None:
            lines.append(number)
    if not questions:
        raise InputError(f"{source}: no questions (the file is empty)")
    return questions


def question_from(data: object, where: str, min_predictions: int | None = 1) -> Question:
    """The :class:`Question` of one record (see the module docstring), every check once; ``where`` names it.

    ``min_predictions=None``: its count is checked by the caller, once, with the largest k (:class:`CheckedQuestions`).

    >>> question_from({"id": "a", "question": "q", "answer": "1", "predictions": ["1"], "lang": "en"}, "row 1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: row 1: unknown field(s) 'lang'; expected only id, question, answer, predictions, language, source_extracted, source_verdicts, finish_reasons
    """
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if not data.keys() >= _REQUIRED:
        missing = [name for name in _REQUIRED if name not in data]
        raise InputError(
            f"{where}: missing {', '.join(map(repr, missing))}; "
            "each line needs id, question, answer, predictions (and optionally language)"
        )
    if not data.keys() <= _KNOWN:
        unknown = sorted(str(name) for name in data if name not in _KNOWN)
        raise InputError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; expected only {', '.join(_ALL)}")
    for name, kind in _FIELDS.items():
        if name in data and not isinstance(data[name], kind):
            value = data[name]
            hint = f' (write it as "{value}")' if name in ("id", "answer") and isinstance(value, (int, float)) else ""
            raise InputError(
                f'{where}: "{name}" must be a {"list of strings" if name == "predictions" else "string"}, '
                f"got {type(value).__name__} {value!r}{hint}"
            )
    predictions = data["predictions"]
    if not all(isinstance(prediction, str) for prediction in predictions):
        position, prediction = next((i, text) for i, text in enumerate(predictions) if not isinstance(text, str))
        raise InputError(
            f'{where}: "predictions"[{position}] must be a string, got {type(prediction).__name__} {prediction!r}'
        )
    n = len(predictions)
    if min_predictions is not None:
        check_count(data["id"], n, min_predictions, where)
    language = data.get("language", "en")
    return Question(
        data["id"],
        data["question"],
        data["answer"],
        one_object_each(predictions),
        language if language in LANGUAGES else judge_language(language, where),
        source_extracted=_per_prediction(data, "source_extracted", n, where) if "source_extracted" in data else None,
        source_verdicts=_per_prediction(data, "source_verdicts", n, where) if "source_verdicts" in data else None,
        finish_reasons=_per_prediction(data, "finish_reasons", n, where) if "finish_reasons" in data else None,
    )


def one_object_each(texts: Iterable[str]) -> tuple[str, ...]:
    """``texts`` as a tuple in which equal texts are one object: the parser makes a string per generation, and
    n samples drawn from a few answers would otherwise hold n copies (10M generations: 1.4 GB of copies).

    >>> texts = one_object_each(["".join("ab"), "x", "".join("ab")])
    >>> texts, texts[0] is texts[2]
    (('ab', 'x', 'ab'), True)
    """
    first: dict[str, str] = {}
    return tuple([first.setdefault(text, text) for text in texts])


def _per_prediction(data: Mapping, name: str, n: int, where: str) -> tuple:
    """The optional per-prediction list ``name`` of a record: one value (or null) per prediction."""
    values, kind = data[name], _SOURCE_FIELDS[name]
    what = "a list of strings or nulls" if kind == (str,) else "a list of true, false or null"
    if not isinstance(values, (list, tuple)):
        raise InputError(f'{where}: "{name}" must be {what}, one per prediction; got {type(values).__name__}')
    if len(values) != n:
        raise InputError(f'{where}: "{name}" has {len(values)} value(s) for {n} prediction(s); give one per prediction')
    for position, value in enumerate(values):
        if value is not None and not isinstance(value, kind):
            raise InputError(
                f'{where}: "{name}"[{position}] must be {what.removeprefix("a list of ")}; '
                f"got {type(value).__name__} {value!r:.80}"
            )
    return tuple(values)


def question_lines(questions: Iterable[Question]) -> Iterator[str]:
    """One JSON line per question, as judged: ``{"id", "question", "answer", "language", "labels"}`` (no generations).

    >>> list(question_lines([Question("a", "1+1?", "2", ("2",), labels={"split": "x"})]))
    ['{"id": "a", "question": "1+1?", "answer": "2", "language": "en", "labels": {"split": "x"}}\\n']
    """
    for question in questions:
        values = (question.id, question.question, question.reference, question.language, dict(question.labels))
        record = dict(zip(_QUESTION_LINE, values))
        yield json.dumps(record, ensure_ascii=False) + "\n"


def read_questions_file(path: str | os.PathLike) -> list[Question]:
    """The questions of a :data:`QUESTIONS_FILE` (:func:`question_lines`), in order, without generations.

    Raises:
        InputError: not such a file (a line that is not one of its records, an id twice); one line naming it.
    """
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(read_lines(path), start=1):
        where = f"{path} line {number}"
        record = load_json_text(line, source=where)
        labels = record.get("labels") if isinstance(record, dict) else None
        if (
            not isinstance(record, dict)
            or tuple(record) != _QUESTION_LINE
            or not all(isinstance(record[name], str) for name in _QUESTION_LINE[:4])
            or not isinstance(labels, dict)
            or not all(isinstance(key, str) and isinstance(value, str) for key, value in labels.items())
        ):
            raise InputError(
                f"{where}: expected {{{', '.join(map(repr, _QUESTION_LINE))}}} with strings and string labels, as "
                "GPassKEvaluator(keep_questions=True) writes them"
            )
        if record["id"] in seen:
            raise InputError(f"{where}: id {record['id']!r} repeats an earlier line; ids must be unique")
        seen.add(record["id"])
        language = judge_language(record["language"], where)
        questions.append(Question(record["id"], record["question"], record["answer"], (), language, labels))
    if not questions:
        raise InputError(f"{path}: no questions (the file is empty)")
    return questions
