"""The runs ``gpassk view`` shows, read once at start-up: each a results file, its verdicts, and where its texts are.

What the command is given (docs/viewer.md, "Inputs"), in order:

* a results file (``gpassk score``'s output, or an evaluator's ``results/<model>/<dataset>.json``): a run;
  a path right after it that is not itself a results file or an OpenCompass folder is the input it was scored
  from (any format ``gpassk score`` reads): its questions are matched by id and each one's generations checked
  against the results' ``generations_sha256`` (a mismatch is one :class:`~gpassk_opencompass.errors.InputError`);
* a folder holding OpenCompass runs (a work dir, a grid's outputs, a leaderboard's folder of them): every run
  :func:`~gpassk_opencompass.leaderboard.collect_runs` finds, each with its predictions
  (:func:`~gpassk_opencompass.plugin.runs.prediction_parts`) when they are inside the folder given and hold the
  generations its results were computed from.

A run is the leaderboard's :class:`~gpassk_opencompass.leaderboard.RunResult` (its ``generations``: the files its
texts are read from) with its :class:`~gpassk_opencompass.scoring.results.ResultsFile`; per generation this keeps a
few bytes (how it ended, its length, where its text is in the :class:`~gpassk_opencompass.view.texts.TextStore`),
never the text.
"""

from __future__ import annotations

import dataclasses
import os
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import (
    MAX_LINE_BYTES,
    UnreadableFile,
    load_json_text,
    open_regular,
    read_bytes_bounded,
    read_head,
)
from gpassk_opencompass.leaderboard import RunResult, collect_runs
from gpassk_opencompass.leaderboard.identify import result_bounds, result_intervals, result_metrics, result_unresolved
from gpassk_opencompass.leaderboard.records import Notice
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.runs import prediction_parts
from gpassk_opencompass.scoring.cut import generation_end
from gpassk_opencompass.scoring.details import QuestionRecord, texts_digest
from gpassk_opencompass.scoring.questions import Question, question_from
from gpassk_opencompass.scoring.readers import format_of, input_files, read_input
from gpassk_opencompass.scoring.readers import opencompass as opencompass_reader
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import MAX_RESULTS_BYTES, load_results
from gpassk_opencompass.view.keys import run_id
from gpassk_opencompass.view.texts import TextStore

#: A file gpassk wrote a ``gpassk`` block into (``gpassk score``, GPassKEvaluator), from its first bytes.
_GPASSK_BLOCK = re.compile(rb'"gpassk"\s*:\s*\{')
_SNIFF_BYTES = 1 << 20
#: How each generation ended (:func:`~gpassk_opencompass.scoring.cut.generation_end`), one byte each; 0: not known.
END_CODES = {"answered": 1, "cut": 2, "no_answer": 3}
#: The first characters of a question the map shows.
SNIPPET_CHARS = 200


@dataclass
class ViewRun:
    """One run as the viewer holds it.

    Attributes:
        id: :func:`~gpassk_opencompass.view.keys.run_id` of its results file.
        run: the leaderboard's model of the run (``generations``: the files its texts are read from).
        results: its results document (details with every verdict).
        kind: ``sampled``, ``greedy`` (an OpenCompass run) or ``scored`` (a ``gpassk score`` output).
        label: its name on the page.
        offsets: per question where its generations start in the per-generation arrays, then the end.
        texts: per generation its position in the text store (-1: no text).
        ends: per generation :data:`END_CODES` (0: not known).
        chars: per generation its length in characters (-1: not known).
        finish: per generation the stop reason its tool recorded (``None``: none recorded anywhere).
        tool: per generation its tool's own verdict: 0 none, 1 wrong, 2 right (``None``: no tool verdicts).
        question_texts: per question its text (``None``: not known).
        golds: per question its gold answer (``None``: not known).
        claims: what the run says it is, one phrase each.
    """

    id: str
    run: RunResult
    results: ResultsFile
    kind: str
    label: str
    offsets: np.ndarray
    texts: np.ndarray
    ends: bytearray
    chars: array
    finish: list[str | None] | None = None
    tool: bytearray | None = None
    question_texts: list[str | None] = field(default_factory=list)
    golds: list[str | None] = field(default_factory=list)
    claims: tuple[str, ...] = ()

    @property
    def details(self) -> Sequence[QuestionRecord]:
        return self.results.details

    @property
    def has_texts(self) -> bool:
        return bool(len(self.texts)) and bool((self.texts >= 0).any())

    def generations(self, i: int) -> range:
        """The positions of question ``i``'s generations in the per-generation arrays."""
        return range(int(self.offsets[i]), int(self.offsets[i + 1]))


@dataclass(frozen=True)
class Loaded:
    """What start-up read: the runs, the OpenCompass runs for the leaderboard with their notices, the inputs."""

    runs: tuple[ViewRun, ...]
    board_runs: tuple[RunResult, ...] = ()
    notices: tuple[Notice, ...] = ()
    inputs: tuple[Path, ...] = ()


def load_runs(paths: Sequence[str | os.PathLike], store: TextStore) -> Loaded:
    """Read every run the paths name (see the module docstring).

    Raises:
        InputError: a path that does not exist or is none of the kinds above, a results file that cannot be read,
            generations that are not those its results were computed from.
    """
    runs: list[ViewRun] = []
    board: list[RunResult] = []
    notices: list[Notice] = []
    inputs: list[Path] = []
    for results_path, generations, folder in _plan(paths):
        if folder is not None:
            collection = collect_runs([folder])
            notices += collection.notices
            inputs += collection.inputs
            for run in collection.runs:
                view_run = _folder_run(run, folder, store, inputs)
                if view_run is not None:
                    runs.append(view_run)
                    board.append(view_run.run)
            continue
        assert results_path is not None
        inputs.append(results_path)
        runs.append(_scored_run(results_path, generations, store, inputs))
    store.seal()
    unique: dict[str, ViewRun] = {}
    for view_run in runs:
        if view_run.id in unique:
            logger.warning(f"{view_run.run.results_path} is the same results as {unique[view_run.id].run.results_path}")
            continue
        unique[view_run.id] = view_run
    return Loaded(tuple(unique.values()), tuple(board), tuple(notices), tuple(inputs))


def is_results_file(path: Path) -> bool:
    """Whether ``path`` is a results file gpassk wrote (a ``gpassk`` block in its first MiB). Never raises."""
    if path.suffix != ".json" or not path.is_file():
        return False
    head = read_head(path, _SNIFF_BYTES)
    return head is not None and _GPASSK_BLOCK.search(head) is not None


def _is_runs_folder(path: Path) -> bool:
    """A folder holding OpenCompass runs: a ``results`` folder in it or below (not through a symlink)."""
    return any("results" in subdirs for _, subdirs, _ in os.walk(path))


def _plan(paths: Sequence[str | os.PathLike]) -> Iterator[tuple[Path | None, Path | None, Path | None]]:
    """``(results file, its generations or None, None)`` or ``(None, None, folder of runs)`` per input."""
    given = [Path(path) for path in paths]
    if not given:
        raise InputError("give at least one results file or OpenCompass output folder")
    position = 0
    while position < len(given):
        path = given[position]
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        if path.is_dir() and _is_runs_folder(path):
            yield None, None, path
            position += 1
            continue
        if not is_results_file(path):
            raise InputError(
                f"{path}: not a results file (gpassk score's output, or an evaluator's results/<model>/<dataset>.json) "
                "nor a folder of OpenCompass runs; a generations file goes right after the results file scored from "
                f"it: gpassk view scores.json {path}"
            )
        following = given[position + 1] if position + 1 < len(given) else None
        if (
            following is not None
            and following.exists()
            and not is_results_file(following)
            and not (following.is_dir() and _is_runs_folder(following))
        ):
            yield path, following, None
            position += 2
        else:
            yield path, None, None
            position += 1


def _results(path: Path) -> tuple[str, ResultsFile]:
    """A results file's run id and document (read once for its bytes, once by the one reader)."""
    data = read_bytes_bounded(path, MAX_RESULTS_BYTES, "one JSON document")
    return run_id(data), load_results(path)


def _scored_run(path: Path, generations: Path | None, store: TextStore, inputs: list[Path]) -> ViewRun:
    """A results file given by itself, with the input it was scored from when given."""
    rid, results = _results(path)
    _need_details(results, path)
    files: tuple[Path, ...] = ()
    if generations is not None:
        files = tuple(input_files(generations))
        inputs += files
    info = results.gpassk
    n = info.n if info.n is not None else (info.curtail.n if info.curtail is not None else _widest(results))
    run = RunResult(
        results_path=path,
        model_abbr=path.stem,
        dataset_abbr=path.stem,
        display_name=path.stem,
        benchmark=results.benchmark or "",
        greedy=False,
        n=n,
        k=results.ks,
        metrics=result_metrics(results),
        intervals=result_intervals(results),
        thresholds=results.thresholds or None,
        written=path.stat().st_mtime,
        unresolved=result_unresolved(results, path),
        bounds=result_bounds(results),
        problems=results.problems,
        questions=results.questions,
        judge=info.judge,
        protocol=info.prompt_version,
        cut=results.cut,
        curtail=info.curtail,
    )
    run = _with_generations(run, files)
    view_run = _empty_run(rid, run, results, "scored", path.name)
    if generations is not None:
        _attach_input(view_run, generations, store)
    return view_run


def _folder_run(run: RunResult, folder: Path, store: TextStore, inputs: list[Path]) -> ViewRun | None:
    """An OpenCompass run found in a folder given, with its predictions when they hold its generations."""
    try:
        rid, results = _results(run.results_path)
    except InputError as error:
        logger.warning(f"skipped {run.results_path}: {error}")
        return None
    if not results.details:
        logger.warning(f"skipped {run.results_path}: no per-question details (nothing to show per question)")
        return None
    run_dir = run.results_path.parent.parent.parent
    try:
        parts = prediction_parts(run_dir, run.model_abbr, run.dataset_abbr)
    except InputError as error:
        logger.warning(f"{run.results_path}: its texts are not shown: {error}")
        parts = []
    outside = [part for part in parts if not _inside(part, folder)]
    if outside:  # a symlink out of the folder given: nothing of it is read
        logger.warning(f"{run.results_path}: its texts are not shown: {outside[0]} lies outside {folder}")
        parts = []
    inputs += parts
    run = _with_generations(run, tuple(parts))
    label = f"{run.display_name} · {run.benchmark} · " + (
        "greedy" if run.greedy else (f"T={run.temperature:g}" if run.temperature is not None else "sampled")
    )
    view_run = _empty_run(rid, run, results, "greedy" if run.greedy else "sampled", label)
    if parts:
        try:
            questions = [
                question_from(record, f"{parts[0]} question {number}")
                for number, record in enumerate(opencompass_reader.read(parts[0]))
            ]
            _attach(view_run, list(enumerate(questions)), store, None, by_position=True)
        except InputError as error:
            logger.warning(f"{run.results_path}: its texts are not shown: {error}")
            _clear_texts(view_run)
    return view_run


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, its symlinks followed, lies inside ``folder``: nothing outside a folder given is read."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def _with_generations(run: RunResult, files: tuple[Path, ...]) -> RunResult:
    return dataclasses.replace(run, generations=files)


def _widest(results: ResultsFile) -> int:
    return max((question.n for question in results.details), default=1)


def _need_details(results: ResultsFile, path: Path) -> None:
    if not results.details or not any(question.verdicts for question in results.details):
        raise InputError(
            f"{path}: has no per-question verdicts to show (details[].verdicts); gpassk score and GPassKEvaluator "
            "record them"
        )


def _claims(run: RunResult, results: ResultsFile) -> tuple[str, ...]:
    """What the run says it is: the leaderboard's claims of the run where it records them, and its design."""
    claims = [str(claim) for claim in getattr(run, "claims", ()) or ()]
    curtail = results.gpassk.curtail
    if curtail is not None and not any(claim.startswith("curtailed") for claim in claims):
        claims.append(f"curtailed: n1={curtail.n1} of {curtail.n}, {curtail.rule}")
    return tuple(claims)


def _empty_run(rid: str, run: RunResult, results: ResultsFile, kind: str, label: str) -> ViewRun:
    """A run without its texts yet: counts and verdicts from its results only."""
    sizes = [question.n for question in results.details]
    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
    total = int(offsets[-1])
    return ViewRun(
        id=rid,
        run=run,
        results=results,
        kind=kind,
        label=label,
        offsets=offsets,
        texts=np.full(total, -1, dtype=np.int64),
        ends=bytearray(total),
        chars=array("i", [-1]) * total,
        question_texts=[None] * len(sizes),
        golds=[None] * len(sizes),
        claims=_claims(run, results),
    )


def _clear_texts(view_run: ViewRun) -> None:
    view_run.texts[:] = -1
    view_run.ends[:] = bytes(len(view_run.ends))
    view_run.chars = array("i", [-1]) * len(view_run.ends)
    view_run.finish = view_run.tool = None
    view_run.question_texts = [None] * len(view_run.question_texts)
    view_run.golds = [None] * len(view_run.golds)


def _attach_input(view_run: ViewRun, generations: Path, store: TextStore) -> None:
    """The input a score output was computed from: a gpassk generations file indexed where it lies, any other
    format read by its reader and spooled. Questions are matched by id."""
    positions = {question.id: i for i, question in enumerate(view_run.details)}
    source = view_run.run.results_path
    if format_of(generations) == "gpassk" and generations.is_file():
        _attach(view_run, _jsonl_questions(generations, store, positions), store, source)
    else:
        ks = view_run.results.ks
        questions = read_input(generations, min_predictions=max(ks) if ks and view_run.run.n > 1 else 1).questions
        _attach(view_run, ((positions.get(question.id), question) for question in questions), store, source)


def _jsonl_questions(
    path: Path, store: TextStore, positions: dict[str, int]
) -> Iterator[tuple[int | None, Question, int]]:
    """Each line of a generations file as ``(its question's position in the results, the question, the position
    of its first generation in the store)``, one line in memory at a time."""
    with open_regular(path) as handle:
        file = store.add_file(str(path), os.fstat(handle.fileno()))
        offset = 0
        number = 0
        while line := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise UnreadableFile(f"{path} line {number}: over the limit of {MAX_LINE_BYTES:,} bytes for one line")
            if line.strip():
                where = f"{path} line {number}"
                question = question_from(load_json_text(line, source=where), where)
                position = positions.get(question.id)
                first = (
                    store.add_line(file, offset, len(line), len(question.predictions)) if position is not None else -1
                )
                yield position, question, first
            offset += len(line)


def _attach(
    view_run: ViewRun,
    questions: Iterable[tuple],
    store: TextStore,
    source: Path | None,
    *,
    by_position: bool = False,
) -> None:
    """Fill a run's per-generation facts from its questions, each checked against the results' digests.

    ``questions``: ``(position in the results or None, Question[, first store position])``; without the last,
    the texts are spooled. ``source``: the results file a mismatch is an error of (``None``: raise it as is for
    the caller to drop the texts).
    """
    details = view_run.details
    matched = 0
    for entry in questions:
        position, question = entry[0], entry[1]
        if position is None or position >= len(details):
            continue
        record = details[position]
        where = f"question {record.id!r}" if not by_position else f"question {position} ({record.id!r})"
        if len(question.predictions) != record.n or (
            record.generations_sha256 is not None and texts_digest(question.predictions) != record.generations_sha256
        ):
            raise InputError(
                f"{source or view_run.run.results_path}: {where} was not computed from these generations "
                f"({len(question.predictions)} given, {record.n} scored; or their texts differ from its "
                "generations_sha256); give the input it was scored from"
            )
        first = entry[2] if len(entry) > 2 else None
        _fill(view_run, position, question, store, first)
        matched += 1
    if matched < len(details):
        missing = next(
            record.id for i, record in enumerate(details) if view_run.texts[view_run.generations(i)].min(initial=0) < 0
        )
        raise InputError(
            f"{source or view_run.run.results_path}: {len(details) - matched} of its {len(details)} questions are not "
            f"in the generations given (e.g. {missing!r}); give the input it was scored from"
        )


def _fill(view_run: ViewRun, position: int, question: Question, store: TextStore, first: int | None) -> None:
    """One question's texts: where each is, how it ended and how long it is; its text and gold answer."""
    span = view_run.generations(position)
    reasons = question.finish_reasons or (None,) * len(question.predictions)
    if question.finish_reasons is not None and view_run.finish is None:
        view_run.finish = [None] * len(view_run.ends)
    if question.source_verdicts is not None and view_run.tool is None:
        view_run.tool = bytearray(len(view_run.ends))
    for j, (text, reason) in enumerate(zip(question.predictions, reasons)):
        generation = span.start + j
        view_run.texts[generation] = first + j if first is not None else store.add_text(text)
        view_run.chars[generation] = len(text)
        view_run.ends[generation] = END_CODES[generation_end(text, reason)]
        if view_run.finish is not None:
            view_run.finish[generation] = reason
        if view_run.tool is not None and question.source_verdicts is not None:
            verdict = question.source_verdicts[j]
            view_run.tool[generation] = 0 if verdict is None else 1 + int(verdict)
    view_run.question_texts[position] = question.question
    view_run.golds[position] = question.reference
