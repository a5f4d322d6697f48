r"""The one scoring flow: questions and their generations -> verdicts -> counts -> metrics -> the results document.

:func:`score_questions` is called by ``gpassk score`` and its Python face
:func:`score` (a generations JSONL file, :func:`load_generations`, or questions
in memory), by
:class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` (an OpenCompass
dataset and its predictions) and so by ``gpassk rejudge`` (the evaluator run
again on a finished run's predictions) alike: each caller only turns its input
into :class:`Question` values and a :class:`ScoringRequest`; judging,
counting, metrics, intervals (bootstrap and/or Bayesian) and the results
document happen here, once.

The JSONL input has one question per line::

    {"id": "AMC-12", "question": "...", "answer": "\\frac{1}{2}",
     "predictions": ["... \\boxed{1/2}", "... \\boxed{0.5}", ...], "language": "en"}

``language`` is optional (``en`` by default) and selects the judge prompt;
:func:`judge_language` is the one place that reads it (``en``/``cn``, also
``zh``, ``english``, ``chinese``). Everything -- every line, k, the
thresholds, the interval settings -- is validated before the first answer is
judged; a mistake is an :class:`~gpassk_opencompass.errors.InputError` naming
the value (a line number for the file).

>>> from gpassk_opencompass.judges import JudgeSettings
>>> lines = ['{"id": "q1", "question": "1+1?", "answer": "2", "predictions": ["\\\\boxed{2}", "3", "2"]}',
...          '{"id": "q2", "question": "2+2?", "answer": "4", "predictions": ["4", "4", "4"]}']
>>> questions = parse_generations(lines, min_predictions=2)
>>> result = score_questions(questions, ScoringRequest(ks=(2,), thresholds=(1.0,)), JudgeSettings(), progress=False)
>>> round(result["G-Pass@2_1.0"], 6), round(result["accuracy (3 runs average)"], 6), [q["c"] for q in result["details"]]
(66.666667, 83.333333, [2, 3])
>>> result["unresolved"], result["gpassk"]["complete"], "bayes" in result["gpassk"]
(0, True, False)
"""

from __future__ import annotations

import numbers
import os
import sys
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np
from pydantic import model_validator

from gpassk_opencompass import metrics
from gpassk_opencompass.checks import is_int
from gpassk_opencompass.contracts import Setting
from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.files import UnreadableJSON, load_json_text
from gpassk_opencompass.judges import LANGUAGES, CheckCorrectFn, Judge, JudgeItem, JudgeSettings
from gpassk_opencompass.judges.registry import as_judge, resolve_judge, with_verdict_cache
from gpassk_opencompass.judges.source import SourceJudge
from gpassk_opencompass.scoring.compute import (
    IDENTICAL_SHARE_WARNING,
    gpassk_results,
    identical_share,
    results_document,
    warn_if_identical,
)
from gpassk_opencompass.scoring.details import DIGEST_FIELDS, CompactDetails, texts_sha256
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import json_document, write_results
from gpassk_opencompass.uncertainty.bayes import bayes_interval_counts
from gpassk_opencompass.uncertainty.numerics import check_prior

#: What ``interval`` may ask for: bootstrap intervals (``gpassk.uncertainty``), Bayesian
#: credible intervals (``gpassk.bayes``), or both.
INTERVALS = ("bootstrap", "bayes", "both")
#: Spellings of the two judge-prompt languages accepted in inputs (lower-cased).
LANGUAGE_ALIASES = {"en": "en", "english": "en", "cn": "cn", "zh": "cn", "zh-cn": "cn", "chinese": "cn"}

_FIELDS = {"id": str, "question": str, "answer": str, "predictions": list, "language": str}
#: The optional per-prediction fields: what the tool that made the samples extracted, and its verdicts.
_SOURCE_FIELDS = {"source_extracted": (str,), "source_verdicts": (bool,)}


#: The labels of a question without any: one shared, read-only mapping (not an empty dict per question).
NO_LABELS: Mapping[str, str] = MappingProxyType({})


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
    """

    id: str
    question: str
    reference: str
    predictions: tuple[str, ...]
    language: str = "en"
    labels: Mapping[str, str] = field(default_factory=lambda: NO_LABELS)  # shared: not a dict per question
    source_extracted: tuple[str | None, ...] | None = None
    source_verdicts: tuple[bool | None, ...] | None = None


class ScoringRequest(Setting):
    """What to compute from the verdicts: a declared setting, validated on construction (:class:`InputError`).

    Attributes:
        ks: the k values (each at most every question's n, checked by :func:`check_questions`).
        thresholds: the tau values in [0, 1].
        subsets: the subset columns (keys of :attr:`Question.labels`), in report order.
        interval: ``"bootstrap"`` (default), ``"bayes"`` or ``"both"`` (:data:`INTERVALS`).
        ci: the level of both kinds of interval.
        n_boot: bootstrap resamples; seed: their seed.
        prior: ``(alpha0, beta0)`` of the Beta prior of the Bayesian intervals.
        benchmark: the canonical benchmark name, recorded for the leaderboard.
        allow_unresolved: keep the metric keys even with unresolved verdicts
            (they then count those as wrong; ``gpassk.complete`` is false and
            ``gpassk.bounds`` gives each metric's range).
        identical_warning: warn when at least this share of questions got n
            byte-identical generations.

    >>> ScoringRequest(ks=(4,), interval="bayes", prior=(0.5, 0.5)).prior
    (0.5, 0.5)
    >>> ScoringRequest(ks=(4,), interval="credible")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: interval must be one of bootstrap, bayes, both; got 'credible'
    >>> ScoringRequest(ks=(4,), prior=(0, 1))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: prior alpha0 must be a finite number > 0; got 0
    """

    ks: tuple[int, ...]
    thresholds: tuple[float, ...] = metrics.DEFAULT_THRESHOLDS
    subsets: tuple[str, ...] = ()
    interval: str = "bootstrap"
    ci: float = 0.95
    n_boot: int = 1000
    seed: int = 0
    prior: tuple[float, float] = (1.0, 1.0)
    benchmark: str | None = None
    allow_unresolved: bool = False
    identical_warning: float = IDENTICAL_SHARE_WARNING

    @model_validator(mode="before")
    @classmethod
    def _check(cls, data: object) -> object:
        """Today's checks on the values as given (their one-line messages), the values normalised."""
        if not isinstance(data, dict) or "ks" not in data:
            return data  # pydantic says what is missing
        values = {name: field.default for name, field in cls.model_fields.items() if not field.is_required()} | data
        ks = (values["ks"],) if isinstance(values["ks"], numbers.Integral) else tuple(values["ks"])
        thresholds = values["thresholds"]
        thresholds = (thresholds,) if isinstance(thresholds, numbers.Real) else tuple(thresholds)
        subsets = values["subsets"]
        subsets = (subsets,) if isinstance(subsets, str) else tuple(subsets)
        metrics.check_request(ks, thresholds)
        if values["interval"] not in INTERVALS:
            raise InputError(f"interval must be one of {', '.join(INTERVALS)}; got {values['interval']!r}")
        ci = values["ci"]
        if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0 < float(ci) < 1:
            raise InputError(f"ci must be a confidence level in (0, 1); got ci={ci!r}")
        prior = check_prior(values["prior"])
        if not isinstance(values["allow_unresolved"], bool):
            raise InputError(f"allow_unresolved must be True or False; got {values['allow_unresolved']!r}")
        share = values["identical_warning"]
        if isinstance(share, bool) or not isinstance(share, numbers.Real) or not 0 <= float(share) <= 1:
            raise InputError(f"identical_warning must be a share in [0, 1]; got {share!r}")
        if values["benchmark"] is not None:
            from gpassk_opencompass.catalog import get_benchmark

            get_benchmark(values["benchmark"])
        numbers_as_given = {name: int(values[name]) for name in ("n_boot", "seed") if is_int(values[name])}
        return {
            **data,
            **numbers_as_given,
            "ks": tuple(int(k) for k in ks),
            "thresholds": tuple(float(tau) for tau in thresholds),
            "subsets": subsets,
            "prior": prior,
            "ci": float(ci),
            "identical_warning": float(share),
        }

    @property
    def bootstrap(self) -> bool:
        """Whether bootstrap intervals are asked for."""
        return self.interval in ("bootstrap", "both")

    @property
    def bayes(self) -> bool:
        """Whether Bayesian credible intervals are asked for."""
        return self.interval in ("bayes", "both")


def judge_language(value, where: str = "language") -> str:
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


def load_generations(path: str | os.PathLike, *, min_predictions: int = 1) -> list[Question]:
    """Read and validate a generations JSONL file (see the module docstring) into :class:`Question` values.

    Raises:
        InputError: the file is missing, not UTF-8 or empty, or a line is
            malformed; the message names the file and line.
    """
    from gpassk_opencompass.scoring.readers import read_questions

    return read_questions(path, "gpassk", min_predictions=min_predictions)


def parse_generations(lines: Iterable[str], *, min_predictions: int = 1, source: str = "input") -> list[Question]:
    """Validate JSONL lines into :class:`Question` values; blank lines are skipped.

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
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        question = _parse_line(line, number, source, min_predictions)
        if question.id in first_line_of:
            raise InputError(
                f"{source} line {number}: id {question.id!r} repeats line {first_line_of[question.id]}; "
                "ids must be unique"
            )
        first_line_of[question.id] = number
        questions.append(question)
    if not questions:
        raise InputError(f"{source}: no questions (the file is empty)")
    return questions


def _parse_line(line: str, number: int, source: str, min_predictions: int) -> Question:
    where = f"{source} line {number}"
    try:
        data = load_json_text(line, source=where)
    except UnreadableJSON as error:
        raise InputError(str(error)) from None
    if _well_formed(data, min_predictions):  # the usual line: one pass of checks, no message built
        language = data.get("language", "en")
        return Question(
            data["id"],
            data["question"],
            data["answer"],
            tuple(data["predictions"]),
            language if language in LANGUAGES else judge_language(language, where),
        )
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(data).__name__}")
    missing = [name for name in ("id", "question", "answer", "predictions") if name not in data]
    if missing:
        raise InputError(
            f"{where}: missing {', '.join(repr(name) for name in missing)}; "
            f"each line needs id, question, answer, predictions (and optionally language)"
        )
    unknown = sorted(set(data) - set(_FIELDS) - set(_SOURCE_FIELDS))
    if unknown:
        raise InputError(
            f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; expected only "
            f"{', '.join([*_FIELDS, *_SOURCE_FIELDS])}"
        )
    for name, kind in _FIELDS.items():
        if name in data and not isinstance(data[name], kind):
            value = data[name]
            hint = f' (write it as "{value}")' if name in ("id", "answer") and isinstance(value, (int, float)) else ""
            raise InputError(
                f'{where}: "{name}" must be a {"list of strings" if kind is list else "string"}, '
                f"got {type(value).__name__} {value!r}{hint}"
            )
    predictions = data["predictions"]
    for position, prediction in enumerate(predictions):
        if not isinstance(prediction, str):
            raise InputError(
                f'{where}: "predictions"[{position}] must be a string, got {type(prediction).__name__} {prediction!r}'
            )
    if len(predictions) < min_predictions:
        raise InputError(
            f"{where}: question {data['id']!r} has {len(predictions)} prediction(s); "
            f"at least {min_predictions} are needed (the largest k)"
        )
    language = judge_language(data.get("language", "en"), where)
    extracted, verdicts = (_per_prediction(data, name, len(predictions), where) for name in _SOURCE_FIELDS)
    return Question(
        data["id"],
        data["question"],
        data["answer"],
        tuple(predictions),
        language,
        source_extracted=extracted,
        source_verdicts=verdicts,
    )


def _per_prediction(data: dict, name: str, n: int, where: str) -> tuple | None:
    """The optional per-prediction list ``name`` of a line: one value (or null) per prediction; ``None`` if absent."""
    if name not in data:
        return None
    values, kind = data[name], _SOURCE_FIELDS[name]
    what = "a list of strings or nulls" if kind == (str,) else "a list of true, false or null"
    if not isinstance(values, list):
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


def _well_formed(data, min_predictions: int) -> bool:
    """Whether a parsed line passes every check of :func:`_parse_line` but the language's."""
    return (
        type(data) is dict
        and data.keys() <= _FIELDS.keys()  # a line with source fields takes the full checks
        and len(data) >= 4
        and type(data.get("id")) is str
        and type(data.get("question")) is str
        and type(data.get("answer")) is str
        and type(data.get("language", "")) is str
        and type(predictions := data.get("predictions")) is list
        and len(predictions) >= min_predictions
        and all(type(text) is str for text in predictions)
    )


def check_questions(questions: Sequence[Question], request: ScoringRequest) -> None:
    """Raise :class:`InputError` now, before judging, if ``request`` cannot be computed on ``questions``.

    >>> check_questions([Question("a", "q", "1", ("1", "2"))], ScoringRequest(ks=(4,), thresholds=(0.5,)))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: ks must satisfy k <= n; got k=4 with n=2
    """
    if not questions:
        raise InputError("there are no questions to score")
    for question in questions:
        missing = [column for column in request.subsets if column not in question.labels]
        if missing:
            raise InputError(f"question {question.id!r} has no label for subset column(s) {missing}")
        if question.language not in LANGUAGES:
            raise InputError(f"question {question.id!r}: language must be 'en' or 'cn'; got {question.language!r}")
    n = np.array([len(question.predictions) for question in questions])
    zeros = np.zeros_like(n)
    # the very calls made after judging, on all-wrong counts: the same validation, milliseconds
    metrics.summarize_uncertainty(
        zeros, n, request.ks, request.thresholds, ci=request.ci, n_boot=request.n_boot, seed=request.seed
    )
    if request.bayes:
        bayes_interval_counts(zeros, n, request.ks, request.thresholds, prior=request.prior, level=request.ci)


def score_questions(
    questions: Sequence[Question],
    request: ScoringRequest,
    judge: Judge | JudgeSettings | CheckCorrectFn,
    *,
    progress: bool = True,
) -> dict:
    """:func:`scored_results` as the plain results document (what OpenCompass writes into its results file).

    ``judge``: a judge, the settings of a built-in one or a ``check_correct_fn``
    (:func:`~gpassk_opencompass.judges.registry.as_judge`).
    """
    return json_document(scored_results(questions, request, as_judge(judge), progress=progress))


def scored_results(
    questions: Sequence[Question],
    request: ScoringRequest,
    judge: Judge,
    *,
    progress: bool = True,
) -> ResultsFile:
    """Judge every generation once, count, compute the metrics and intervals, and build the results document.

    Args:
        questions: the questions and their generations (from a JSONL file or an OpenCompass dataset).
        request: what to compute (k, thresholds, subsets, intervals, ...).
        judge: the judge (resolved once by the caller: :mod:`~gpassk_opencompass.judges.registry`); its
            ``cache_path`` keeps every verdict that arrives.
        progress: show progress bars on stderr.

    Returns:
        The results (:class:`~gpassk_opencompass.scoring.results.ResultsFile`, schema
        version :data:`~gpassk_opencompass.scoring.results.SCHEMA_VERSION`).

    Raises:
        InputError: a bad request, before judging.
        JudgeError: the judge cannot serve the run.
    """
    check_questions(questions, request)
    slots, offsets, items, repeats = _distinct_generations(questions)
    judged = judge.judge(items, progress=progress, repeats=repeats)
    del items
    digests = bytearray(), bytearray()  # per question 32 bytes each: no list of a million digests
    for question in questions:
        digests[0].extend(texts_sha256(question.predictions))
        digests[1].extend(texts_sha256((question.question, question.reference)))
    details = CompactDetails(
        [question.id for question in questions],
        {column: [str(question.labels[column]) for question in questions] for column in request.subsets},
        judged.verdicts,  # one per distinct generation, shared by its generations
        slots,
        offsets,
        dict(zip(DIGEST_FIELDS, digests)),
    )
    del slots
    counts, n, subsets = details.c, details.n, details.labels
    results = gpassk_results(
        counts,
        n,
        request.ks,
        request.thresholds,
        subsets,
        ci=request.ci,
        n_boot=request.n_boot,
        seed=request.seed,
        bootstrap=request.bootstrap,
    )
    bayes = None
    if request.bayes:  # resolved verdicts only: an unresolved one is left out of its question's n
        bayes = bayes_interval_counts(
            counts,
            n - details.unresolved,
            request.ks,
            request.thresholds,
            prior=request.prior,
            level=request.ci,
        )
    share = identical_share([question.predictions for question in questions])
    warn_if_identical(share, request.identical_warning)
    return results_document(
        results,
        judged,
        judge,
        ks=request.ks,
        thresholds=request.thresholds,
        benchmark=request.benchmark,
        identical=share,
        details=details,
        allow_unresolved=request.allow_unresolved,
        bayes=bayes,
    )


def _distinct_generations(questions: Sequence[Question]) -> tuple[array, array, list[JudgeItem], list[int]]:
    """Each distinct (question, reference, generation, language) once: the flow's per-generation work is a lookup.

    Returns, per generation (questions in order), the index of its distinct
    item; where each question's generations start (then the end); the
    distinct :class:`JudgeItem` values; and how many generations each stands for.

    >>> slots, offsets, items, repeats = _distinct_generations([Question("a", "q", "1", ("x", "y", "x"))])
    >>> slots.tolist(), offsets.tolist(), [item.response for item in items], repeats
    ([0, 1, 0], [0, 3], ['x', 'y'], [2, 1])
    """
    slot_of: dict[tuple[str, str, str], dict] = {}  # (question, reference, language) -> generation -> slot
    items: list[JudgeItem] = []
    slots, offsets = array("i"), array("q", [0])
    for question in questions:
        table = slot_of.setdefault((question.question, question.reference, question.language), {})
        for key in _generation_keys(question):
            slot = table.get(key)
            if slot is None:
                slot = table[key] = len(items)
                items.append(JudgeItem(question.question, question.reference, key[0], question.language, *key[1:]))
            slots.append(slot)
        offsets.append(len(slots))
    repeats = np.bincount(np.frombuffer(slots, dtype=np.int32), minlength=len(items)).tolist()
    return slots, offsets, items, repeats


def _generation_keys(question: Question) -> list[tuple]:
    """Per prediction, what tells its judging apart: the text, and the source's verdict and extraction if any.

    >>> _generation_keys(Question("a", "q", "1", ("x", "x"), source_verdicts=(True, None)))
    [('x', True, None), ('x', None, None)]
    """
    if question.source_verdicts is None and question.source_extracted is None:
        return [(prediction,) for prediction in question.predictions]
    n = len(question.predictions)
    verdicts = question.source_verdicts or (None,) * n
    extracted = question.source_extracted or (None,) * n
    return list(zip(question.predictions, verdicts, extracted))


# ---------------------------------------------------------------- gpassk score: one JSONL file


def score_file(
    path: str | os.PathLike,
    request: ScoringRequest,
    judge: Judge,
    *,
    output: str | os.PathLike | None = None,
    cache: bool | str | os.PathLike = True,
    progress: bool = True,
    format: str = "auto",
) -> ResultsFile:
    """``gpassk score``: check the files, read the samples, score them, write ``output`` when the result may be written.

    ``format`` names the input's format (:mod:`~gpassk_opencompass.scoring.readers`: ``gpassk``,
    ``qwen-math``, ``opencompass``, ...); ``auto`` detects it.

    ``output`` is written (atomically, redacted) when the result is complete,
    or incomplete with ``request.allow_unresolved``; never over the input or
    the verdict cache (chosen by :func:`~gpassk_opencompass.judges.registry.with_verdict_cache`).

    Returns:
        The results read back (incomplete when ``results.unresolved``).

    Raises:
        InputError: a file no reader knows (or not of ``format``), a
            missing or malformed file, clashing or unwritable paths, an existing
            cache file that is not a verdict cache, a bad request.
        JudgeError: the judge cannot serve the run (verdicts so far are in the cache).
        WriteError: the file system refused to write ``output`` or the cache (as :func:`score`).
    """
    from gpassk_opencompass.scoring.readers import format_of, input_files, read_questions

    path = Path(path)
    name = format_of(path, format)
    judge = with_verdict_cache(judge, cache, path)
    _check_paths(judge, {"INPUT": path, "--output": output, "--cache": judge.cache_path}, input_files(path, name))
    questions = read_questions(path, name, min_predictions=max(request.ks))
    judge = for_source(judge, name, questions)
    results = scored_results(questions, request, judge, progress=progress)
    del questions  # the generations are not needed to write the results: free them first
    return _written(results, request, output)


def for_source(judge: Judge, format: str, questions: Sequence[Question]) -> Judge:
    """``--judge source`` bound to the input's format (recorded as ``source:<format>``); other judges as they are.

    Raises:
        InputError: the source judge, and no question carries its source's verdicts.
    """
    if not isinstance(judge, SourceJudge):
        return judge
    if all(question.source_verdicts is None for question in questions):
        raise InputError(
            f"--judge source: the {format} input carries no per-sample verdicts of its own "
            "(source_verdicts); choose another judge, e.g. --judge rule"
        )
    return judge.for_format(format)


def _check_paths(
    judge: Judge, paths: Mapping[str, str | os.PathLike | None], inputs: Sequence[str | os.PathLike] = ()
) -> None:
    """Distinct paths, a writable output, a cache that is a verdict cache: :class:`InputError` before any work.

    ``inputs``: the files a reader reads for the input (a folder's dump file, an OpenCompass run's parts),
    none of which the output or the cache may be.
    """
    from gpassk_opencompass.files.writing import check_distinct_paths, check_not_input, check_writable_file
    from gpassk_opencompass.judges.cache import check_cache_file

    output, cache = paths["--output"], judge.cache_path
    check_distinct_paths(dict(paths))
    check_not_input("--output", output, inputs)
    check_not_input("--cache", cache, inputs)
    if output is not None:
        check_writable_file("--output", output)
    if cache is not None:
        try:
            check_writable_file("the verdict cache", cache)
            check_cache_file(cache)  # an existing file must be a verdict cache: never append to another file
        except InputError as error:
            raise InputError(f"{clause(error)}; choose another place with --cache PATH (or --no-cache)") from None


def _written(results: ResultsFile, request: ScoringRequest, output: str | os.PathLike | None) -> ResultsFile:
    """Write ``results`` to ``output`` when they may be written (complete, or unresolved allowed); return them."""
    if output is not None and (not results.unresolved or request.allow_unresolved):
        write_results(output, results)
    return results


def score(
    questions_or_path: str | os.PathLike | Sequence[Question | Mapping],
    *,
    k: int | Sequence[int],
    judge: str | Judge | JudgeSettings | CheckCorrectFn = "auto",
    thresholds: float | Sequence[float] = metrics.DEFAULT_THRESHOLDS,
    output: str | os.PathLike | None = None,
    cache: bool | str | os.PathLike = True,
    progress: bool | None = None,
    format: str = "auto",
    **options,
) -> ResultsFile:
    """Judge and score generations from Python, as ``gpassk score`` does from the shell.

    Args:
        questions_or_path: a file of samples (a generations JSONL file, or another tool's: ``format``), or the questions: :class:`Question` values or mappings
            shaped like its lines (``id``, ``question``, ``answer``, ``predictions``, optional ``language``).
        k: the k value(s), each at most every question's number of predictions.
        judge: ``"auto"``, ``"rule"``, ``"llm"``, ``"cascade"``, ``"module:function"``, an entry-point name,
            a :class:`~gpassk_opencompass.judges.JudgeSettings`, a :class:`~gpassk_opencompass.judges.Judge`
            or any ``check_correct_fn(prediction, reference) -> bool`` (:func:`~gpassk_opencompass.judges.registry.resolve_judge`).
        thresholds: the tau values.
        format: the file's format (``auto``: detected; ``gpassk``, ``qwen-math``, ``opencompass``, ...:
            :mod:`~gpassk_opencompass.scoring.readers`).
        output: write the results document here (atomically, redacted) when complete, or incomplete with
            ``allow_unresolved=True``.
        cache: the verdict cache, as ``gpassk score`` chooses it (:func:`~gpassk_opencompass.judges.registry.with_verdict_cache`): ``True`` (the
            default policy), ``False`` (none) or a path.
        progress: show progress bars on stderr (``None``: when stderr is a terminal; else nothing is written there).
        **options: :class:`ScoringRequest` fields (``interval``, ``ci``, ``n_boot``, ``seed``, ``prior``,
            ``benchmark``, ``allow_unresolved``, ...) and judge options (``judge_url``, ``judge_model``,
            ``concurrency``, ``rule_timeout``, ... as :func:`~gpassk_opencompass.judges.registry.judge_settings`).

    Returns:
        The results (:class:`~gpassk_opencompass.scoring.results.ResultsFile`); ``results.complete`` is false
        when some verdicts are unresolved (an exception in a user's function is one), and then its metrics are
        withheld unless ``allow_unresolved=True``. No exit codes: that is the CLI's business.

    Raises:
        InputError: a bad input, path or setting, before anything is judged.
        JudgeError: a judge model cannot serve the run (verdicts so far are in the cache).
        WriteError: the file system refused to write ``output`` or the cache (disk full, file too large,
            permission): nothing partial is left, and the verdicts that reached the cache are kept.

    The metric card's interface: the G-Pass@k metric card's worked example (16 predictions,
    reference ``a``, k = 4 and 8, ``check_correct_fn = lambda pred, ref: pred == ref``) is
    ``docs/scoring.md``'s first example.
    """
    progress = sys.stderr.isatty() if progress is None else progress
    fields = ScoringRequest.model_fields
    request = ScoringRequest(
        ks=k,  # type: ignore[arg-type]  # an int or a sequence: normalised by its validator
        thresholds=thresholds,  # type: ignore[arg-type]  # normalised by its validator
        **{name: value for name, value in options.items() if name in fields},
    )
    judge = resolve_judge(judge, **{name: value for name, value in options.items() if name not in fields})
    if isinstance(questions_or_path, (str, os.PathLike)):
        return score_file(
            questions_or_path, request, judge, output=output, cache=cache, progress=progress, format=format
        )
    questions = _as_questions(questions_or_path, max(request.ks))
    judge = for_source(with_verdict_cache(judge, cache, output), "gpassk", questions)
    _check_paths(judge, {"--output": output, "--cache": judge.cache_path})
    return _written(scored_results(questions, request, judge, progress=progress), request, output)


def _as_questions(given: Sequence[Question | Mapping], min_predictions: int) -> list[Question]:
    """:class:`Question` values as given; mappings validated as lines of a generations file are."""
    import json

    if isinstance(given, Mapping) or not isinstance(given, Sequence):
        raise InputError(f"questions must be a path or a list of questions, got {type(given).__name__}")
    questions = [question for question in given if isinstance(question, Question)]
    if len(questions) == len(given):
        return questions
    mappings = [question for question in given if isinstance(question, Mapping)]
    if len(mappings) != len(given):
        raise InputError(
            "questions must all be Question values or all be mappings {id, question, answer, predictions[, language]}"
        )
    return parse_generations(
        [json.dumps(dict(question), ensure_ascii=False) for question in mappings],
        min_predictions=min_predictions,
        source="questions",
    )
