r"""The one scoring flow: questions and their generations -> verdicts -> counts -> metrics -> the results document.

:func:`score_questions` serves ``gpassk score`` and :func:`score`,
:class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` and so ``gpassk rejudge``: each caller only turns
its input into :class:`~gpassk_opencompass.scoring.questions.Question` values and a
:class:`~gpassk_opencompass.scoring.request.ScoringRequest`; judging, counting, metrics, intervals and the
document happen here, once, after everything was validated (an :class:`~gpassk_opencompass.errors.InputError`
naming the value).

>>> from gpassk_opencompass.judges import JudgeSettings
>>> from gpassk_opencompass.scoring.questions import parse_generations
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

import inspect
import json
import os
import sys
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import NamedTuple

import numpy as np

from gpassk_opencompass import metrics
from gpassk_opencompass.checks import unknown
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import IncompleteResults, InputError, clause
from gpassk_opencompass.files.writing import (
    check_distinct_paths,
    check_not_input,
    check_writable_file,
    write_chunks_atomic,
)
from gpassk_opencompass.judges import CheckCorrectFn, Judge, JudgeItem, JudgeSettings
from gpassk_opencompass.judges.cache import check_cache_file
from gpassk_opencompass.judges.registry import as_judge, beside_input_cache, resolve_judge, with_verdict_cache
from gpassk_opencompass.judges.source import SourceJudge
from gpassk_opencompass.judges.types import JUDGE_NAMES
from gpassk_opencompass.log import logger
from gpassk_opencompass.scoring.compute import gpassk_results, resolved_counts, results_document, warn_if_identical
from gpassk_opencompass.scoring.cut import count_ends
from gpassk_opencompass.scoring.details import DIGEST_FIELDS, CompactDetails, texts_sha256
from gpassk_opencompass.scoring.questions import Question
from gpassk_opencompass.scoring.readers import (
    Layout,
    ResolvedInput,
    check_not_a_seed,
    input_anchor,
    missing_verdicts,
    read_input,
    read_rows,
    resolve_input,
)
from gpassk_opencompass.scoring.request import ScoringRequest, check_questions
from gpassk_opencompass.scoring.results import Curtailment, ResultsFile
from gpassk_opencompass.scoring.results_io import json_document, write_results
from gpassk_opencompass.uncertainty.bayes import bayes_interval_counts


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
    next_round: str | os.PathLike | None = None,
) -> ResultsFile:
    """Judge every generation once, count, compute the metrics and intervals, and build the results document.

    Args:
        questions: the questions and their generations (from a JSONL file or an OpenCompass dataset).
        request: what to compute (k, thresholds, subsets, intervals, ...).
        judge: the judge (resolved once by the caller: :mod:`~gpassk_opencompass.judges.registry`); its
            ``cache_path`` keeps every verdict that arrives.
        progress: show progress bars on stderr.
        next_round: under ``request.curtail``, where to write the questions still to be drawn (:func:`plan_next_round`)
            instead of refusing them; checked writable by the caller.

    Returns:
        The results (:class:`~gpassk_opencompass.scoring.results.ResultsFile`, schema
        version :data:`~gpassk_opencompass.scoring.results.SCHEMA_VERSION`).

    Raises:
        InputError: a bad request, before judging.
        JudgeError: the judge cannot serve the run.
        IncompleteResults: with ``next_round``, some questions go on to ``n`` (listed in that file).
    """
    check_questions(questions, request)
    items, repeats, slots, offsets, identical = distinct_generations(questions)
    judged = judge.judge(items, progress=progress, repeats=repeats)
    ends = count_ends(questions, ([item.response for item in items], slots))
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
        (ends.cut, ends.no_answer),
    )
    del slots
    counts, n, subsets = details.c, details.n, details.labels
    design, curtail = request.curtail, None
    if design is not None:  # every refusal before any number: the design's own checks, on the verdicts in draw order
        if next_round is not None:
            plan_next_round(details, design, next_round)
        first, unsure = details.first_counts(design.n1)
        design.check_order(n, first, unsure, details.ids, judge=judge.name)
        counts = resolved_counts(details, design)[0]
        curtail = curtailment(design, n)
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
        design=design,
        validate_args=False,  # checked where they entered: the request on construction, the rest by check_questions
    )
    bayes = None
    if request.bayes:  # resolved verdicts only: an unresolved one is left out of its question's n
        bayes = bayes_interval_counts(  # the Beta posterior depends only on (N, C), whatever the stopping rule
            details.c,
            n - details.unresolved,
            request.ks,
            request.thresholds,
            prior=request.prior,
            level=request.ci,
        )
    warn_if_identical(identical, request.identical_warning)
    return results_document(
        results,
        judged,
        judge,
        ks=request.ks,
        thresholds=request.thresholds,
        benchmark=request.benchmark,
        identical=identical,
        details=details,
        allow_unresolved=request.allow_unresolved,
        bayes=bayes,
        ends=ends,
        curtail=curtail,
    )


def curtailment(design: Curtailed, drawn: np.ndarray) -> Curtailment:
    """What a curtailed run drew against a fixed n: the ``gpassk.curtail`` block."""
    return Curtailment(
        **design.as_dict(),
        stopped=int(np.sum(drawn < design.n)),
        generations=int(drawn.sum()),
        fixed_n_generations=len(drawn) * design.n,
    )


def plan_next_round(details: CompactDetails, design: Curtailed, path: str | os.PathLike) -> None:
    """Write the questions a curtailed run still draws, ``{"id": ..., "draw": n - n1}`` per line (none: an empty
    file), and raise :class:`IncompleteResults` when there are any.

    A question drawn to ``n1`` goes on when its stage-1 verdicts are all resolved and miss the rule; one with an
    unresolved stage-1 verdict is decided once that verdict is (the same command asks again).
    """
    first, unsure = details.first_counts(design.n1)
    going = design.continuing(details.n, first, unsure)
    more = design.n - design.n1
    ids = [details.ids[i] for i in np.flatnonzero(going).tolist()]
    write_chunks_atomic(path, (json.dumps({"id": name, "draw": more}, ensure_ascii=False) + "\n" for name in ids))
    if ids:
        undecided = int(np.sum((details.n == design.n1) & (unsure > 0)))
        wait = f"; {undecided} more wait for unresolved stage-1 verdicts" if undecided else ""
        raise IncompleteResults(
            f"curtailed at {design.n1} of {design.n} ({design.rule}): {len(ids)} question(s) go on, "
            f"{len(ids) * more:,} generations to draw ({more} each), listed in {path}{wait}; draw them, add each "
            "question's after its first ones, and run this command again"
        )


class Generations(NamedTuple):
    """The generations of the questions, each distinct one once (:func:`distinct_generations`)."""

    #: the distinct generations to judge
    items: list[JudgeItem]
    #: per item, how many generations it stands for
    repeats: list[int]
    #: per generation (questions in order), the index of its item
    slots: array
    #: where each question's generations start in ``slots`` (then the end)
    offsets: array
    #: the share of questions (among those with n > 1) whose generations are all byte-identical: near 0 when
    #: sampled; near 1, every replica was drawn with one seed and every G-Pass@k_tau collapses to accuracy
    identical: float


def distinct_generations(questions: Sequence[Question]) -> Generations:
    """Each distinct (question, reference, language, generation[, source verdict and extraction]) once, in one
    pass: the flow's per-generation work is a lookup.

    >>> found = distinct_generations([Question("a", "q", "1", ("x", "y", "x")), Question("b", "q", "1", ("y", "y"))])
    >>> found.slots.tolist(), found.offsets.tolist(), [item.response for item in found.items], found.repeats
    ([0, 1, 0, 1, 1], [0, 3, 5], ['x', 'y'], [2, 3])
    >>> found.identical
    0.5
    >>> found = distinct_generations([Question("a", "q", "1", ("x", "x"), source_verdicts=(True, None))])
    >>> [(item.response, item.source_correct) for item in found.items], found.identical
    ([('x', True), ('x', None)], 1.0)
    """
    slot_of: dict[tuple[str, str, str], dict] = {}  # (question, reference, language) -> generation -> slot
    items: list[JudgeItem] = []
    slots, offsets = array("i"), array("q", [0])
    sampled = identical = 0
    for question in questions:
        table = slot_of.setdefault((question.question, question.reference, question.language), {})
        predictions = question.predictions
        keys: Iterable[str | tuple[str, bool | None, str | None]] = predictions  # a generation is its text
        if question.source_verdicts is not None or question.source_extracted is not None:  # and the tool's values
            none = repeat(None)
            keys = zip(predictions, question.source_verdicts or none, question.source_extracted or none)
        for key in keys:
            slot = table.get(key)
            if slot is None:
                slot = table[key] = len(items)
                items.append(
                    JudgeItem(question.question, question.reference, key, question.language)
                    if isinstance(key, str)
                    else JudgeItem(question.question, question.reference, key[0], question.language, *key[1:])
                )
            slots.append(slot)
        offsets.append(len(slots))
        if len(predictions) > 1:
            sampled += 1
            identical += predictions.count(predictions[0]) == len(predictions)
    repeats = np.bincount(np.frombuffer(slots, dtype=np.int32), minlength=len(items)).tolist()
    return Generations(items, repeats, slots, offsets, identical / sampled if sampled else 0.0)


# ---------------------------------------------------------------- gpassk score: one JSONL file


def score_file(
    path: str | os.PathLike | ResolvedInput,
    request: ScoringRequest,
    judge: Judge,
    *,
    output: str | os.PathLike | None = None,
    cache: bool | str | os.PathLike = True,
    progress: bool = True,
    format: str = "auto",
    allow_missing: bool = False,
    on_layout: Callable[[Layout | None], None] | None = None,
    next_round: str | os.PathLike | None = None,
) -> ResultsFile:
    """``gpassk score``: check the files, read the samples, score them, write ``output`` when the result may be written.

    ``path`` is resolved once (:func:`~gpassk_opencompass.scoring.readers.resolve_input`: its files, each with its
    identity, its format and layout; or given resolved), and every step takes that value. ``format`` names the
    input's format (:mod:`~gpassk_opencompass.scoring.readers`: ``gpassk``, ``qwen-math``, ``opencompass``,
    ``long``, ...); ``auto`` detects it. ``path`` may be a folder or a glob of
    one file per seed (``allow_missing``: a question absent from one keeps the samples found). ``on_layout``
    is told how the samples were grouped into questions (``None``: one question per record, as given) once the
    input is checked and read, before any judging (the CLI announces its work only then).
    ``next_round``: under ``request.curtail``, the file of questions still to be drawn (:func:`plan_next_round`).

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
    resolved = resolve_input(path, format)  # once: every step below takes this value
    judge = with_verdict_cache(judge, cache, resolved.identity)
    warn_unread_cache(resolved, judge)
    if next_round is not None and request.curtail is None:
        raise InputError("--next-round lists the questions a curtailed run still draws: give --curtail N1:N too")
    for role, written in (("--output", output), ("--cache", judge.cache_path), ("--next-round", next_round)):
        check_not_a_seed(resolved, resolved.format, role, written)
    paths = {"INPUT": resolved.given, "--output": output, "--cache": judge.cache_path, "--next-round": next_round}
    _check_paths(judge, paths, [file.path for file in resolved.files])
    # under a curtailed design a stopped question is absent from the later seeds' files: its count is checked instead
    missing = allow_missing or request.curtail is not None
    questions, layout = read_input(resolved, min_predictions=max(request.ks), allow_missing=missing)
    if on_layout is not None:
        on_layout(layout)
    judge = for_source(judge, resolved.format, questions, resolved.path)
    results = scored_results(questions, request, judge, progress=progress, next_round=next_round)
    del questions  # the generations are not needed to write the results: free them first
    return _written(results, request, output)


def warn_unread_cache(resolved: ResolvedInput, judge: Judge) -> None:
    """Say that a verdict cache found beside the input is not read (a cache is trusted only when named)."""
    beside = beside_input_cache(input_anchor(resolved.given))
    if judge.asks_model and beside.is_file() and judge.cache_path != beside:
        logger.warning(
            "a verdict cache beside the input, {}, is not read: a cache is trusted only when its user chooses it "
            "(it may have come with the input); to use its verdicts, name it: --cache {}",
            beside,
            beside,
        )


def for_source(
    judge: Judge, format: str, questions: Sequence[Question], path: str | os.PathLike | None = None
) -> Judge:
    """``--judge source`` bound to the input's format (recorded as ``source:<format>``); other judges as they are.

    Raises:
        InputError: the source judge, and no question carries its source's verdicts (why, when the reader
            of ``path`` can tell: :func:`~gpassk_opencompass.scoring.readers.missing_verdicts`).
    """
    if not isinstance(judge, SourceJudge):
        return judge
    if all(question.source_verdicts is None for question in questions):
        why = missing_verdicts(path, format) if path is not None else ""
        raise InputError(
            f"--judge source: the {format} input carries no per-sample verdicts of its own "
            f"(source_verdicts){': ' + why if why else ''}; choose another judge, e.g. --judge rule"
        )
    return judge.for_format(format)


def _check_paths(
    judge: Judge, paths: Mapping[str, str | os.PathLike | None], inputs: Sequence[str | os.PathLike] = ()
) -> None:
    """Distinct paths, writable outputs (``--output``, ``--next-round``), a cache that is a verdict cache:
    :class:`InputError` before any work.

    ``inputs``: the files a reader reads for the input (a folder's dump file, an OpenCompass run's parts),
    none of which an output or the cache may be.
    """
    cache = judge.cache_path
    check_distinct_paths(dict(paths))
    check_not_input("--cache", cache, inputs)
    for role in ("--output", "--next-round"):
        if paths.get(role) is not None:
            check_not_input(role, paths[role], inputs)
            check_writable_file(role, paths[role])  # type: ignore[arg-type]  # not None: checked
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
    allow_missing: bool = False,
    **options,
) -> ResultsFile:
    """Judge and score generations from Python, as ``gpassk score`` does from the shell.

    Args:
        questions_or_path: a file of samples (a generations JSONL file, or another tool's: ``format``), a folder
            or glob of one file per seed, or the questions: :class:`~gpassk_opencompass.scoring.questions.Question`
            values, mappings shaped like the lines of a generations file (``id``, ``question``, ``answer``,
            ``predictions``, optional ``language``), sample rows (``prediction`` instead of ``predictions``,
            grouped by ``id``) or a pandas DataFrame of either.
        k: the k value(s), each at most every question's number of predictions.
        judge: ``"auto"``, ``"rule"``, ``"llm"``, ``"cascade"``, ``"module:function"``, an entry-point name,
            a :class:`~gpassk_opencompass.judges.JudgeSettings`, a :class:`~gpassk_opencompass.judges.Judge`
            or any ``check_correct_fn(prediction, reference) -> bool``
            (:func:`~gpassk_opencompass.judges.registry.resolve_judge`).
        thresholds: the tau values.
        format: the file's format (``auto``: detected; ``gpassk``, ``qwen-math``, ``opencompass``, ``long``, ...:
            :mod:`~gpassk_opencompass.scoring.readers`).
        allow_missing: one file per seed: a question absent from a seed's file keeps the samples found
            (otherwise refused, naming the file and the question).
        output: write the results document here (atomically, redacted) when complete, or incomplete with
            ``allow_unresolved=True``.
        cache: the verdict cache, as ``gpassk score`` chooses it
            (:func:`~gpassk_opencompass.judges.registry.with_verdict_cache`): ``True`` (the default policy),
            ``False`` (none) or a path.
        progress: show progress bars on stderr (``None``: when stderr is a terminal; else nothing is written there).
        **options: :class:`~gpassk_opencompass.scoring.request.ScoringRequest` fields (``interval``, ``ci``,
            ``n_boot``, ``seed``, ``prior``, ``benchmark``, ``allow_unresolved``, ...) and judge options
            (``judge_url``, ``judge_model``, ``concurrency``, ``rule_timeout``, ... as
            :func:`~gpassk_opencompass.judges.registry.judge_settings`);
            an unknown one is named with the nearest of all of ``score()``'s keywords.

    Returns:
        The results (:class:`~gpassk_opencompass.scoring.results.ResultsFile`); ``results.complete`` is false
        when some verdicts are unresolved (an exception in a user's function is one), and then its metrics are
        withheld unless ``allow_unresolved=True``. No exit codes: that is the CLI's business.

    Raises:
        InputError: a bad input, path, setting or keyword, before anything is judged.
        JudgeError: a judge model cannot serve the run (verdicts so far are in the cache).
        WriteError: the file system refused to write ``output`` or the cache (disk full, file too large,
            permission): nothing partial is left, and the verdicts that reached the cache are kept.

    The metric card's interface: the G-Pass@k metric card's worked example (16 predictions,
    reference ``a``, k = 4 and 8, ``check_correct_fn = lambda pred, ref: pred == ref``) is
    ``docs/scoring.md``'s first example.

    >>> score([], k=4, n_boots=5)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown score() keyword 'n_boots'; did you mean 'n_boot'? known: ...
    """
    progress = sys.stderr.isatty() if progress is None else progress
    fields = ScoringRequest.model_fields
    known = score_keywords()
    for name in options:
        if name not in known:
            raise unknown("score() keyword", name, known)
    request = ScoringRequest(
        ks=k,  # type: ignore[arg-type]  # an int or a sequence: normalised by the model
        thresholds=thresholds,  # type: ignore[arg-type]  # normalised by the model
        **{name: value for name, value in options.items() if name in fields},
    )
    judge = resolve_judge(judge, **{name: value for name, value in options.items() if name not in fields})
    if isinstance(questions_or_path, (str, os.PathLike)):
        return score_file(
            questions_or_path,
            request,
            judge,
            output=output,
            cache=cache,
            progress=progress,
            format=format,
            allow_missing=allow_missing,
        )
    questions = _as_questions(questions_or_path, max(request.ks))
    keyed = None if output is None else ["output", os.path.abspath(output)]  # in memory: keyed by its output
    judge = for_source(with_verdict_cache(judge, cache, keyed), "gpassk", questions)
    _check_paths(judge, {"--output": output, "--cache": judge.cache_path})
    return _written(scored_results(questions, request, judge, progress=progress), request, output)


def score_keywords() -> list[str]:
    """Every keyword :func:`score` takes: its own, the request's fields, the judge's options, in that order.

    >>> names = score_keywords()
    >>> names[:3], "n_boot" in names, "judge_url" in names, "progress_window" in names, "ks" in names
    (['k', 'judge', 'thresholds'], True, True, True, False)
    """
    own = [
        name
        for name, parameter in inspect.signature(score).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY
    ]
    request = [name for name in ScoringRequest.model_fields if name not in ("ks", "thresholds")]
    judge = [name for name in JudgeSettings.model_fields if name != "kind"]
    aliases = [name for names in JUDGE_NAMES.values() for name in names]
    return list(dict.fromkeys([*own, *request, *judge, *aliases, "judge_timeout"]))


def _as_questions(given: object, min_predictions: int) -> list[Question]:
    """:class:`Question` values as given; mappings (or a DataFrame's rows) checked as the records of a file are
    (:func:`~gpassk_opencompass.scoring.readers.read_rows`)."""
    if hasattr(given, "to_dict") and hasattr(given, "columns"):  # a pandas DataFrame, without importing pandas
        given = [
            {name: value for name, value in row.items() if not (isinstance(value, float) and value != value)}  # NaN
            for row in given.to_dict("records")
        ]
    if isinstance(given, Mapping) or not isinstance(given, Sequence):
        raise InputError(f"questions must be a path or a list of questions, got {type(given).__name__}")
    if all(isinstance(question, Question) for question in given):
        return list(given)
    if not all(isinstance(question, Mapping) for question in given):
        raise InputError(
            "questions must all be Question values or all be mappings {id, question, answer, predictions[, language]}"
        )
    return read_rows(given, min_predictions=min_predictions)
