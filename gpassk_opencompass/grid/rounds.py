"""A curtailed config's two rounds: round 2's config from round 1's verdicts, then both rounds combined.

A config generated with ``curtail`` (docs/generator.md, "Curtailed grids") is round 1 of a curtailed run. Its
run folder ``<work>/<config stem>/<timestamp>/`` holds (docs/grid.md, "Curtailed grids")::

    gpassk_launch_<time>.log            round 1's command on its first line, then what gpassk grid run did
    round1/                             OpenCompass's run of the config: n1 generations of every question
    round2.py                           round 2's config: the questions round 1 did not stop, n - n1 each
    round2/                             OpenCompass's run of round2.py
    configs/round1_*.py, round2_*.py    the rounds' saved configs (what made the generations)
    results/<model>/<dataset>.json      both rounds combined: the run's results, where the leaderboard reads them

:func:`write_round_two` decides from round 1's verdicts (:func:`~gpassk_opencompass.grid.status.continuing`) and
writes round 2's config: round 1's, read as OpenCompass reads it, with the question ids named as data (the
loaders keep those: ``question_ids=``), ``n - n1`` replicas and the seeds of a second round
(``seed_round=2`` for TurboMind; API servers draw a seed per request). :func:`combine` scores the rounds as one
run through the one scoring flow, with the curtailed design and the very verdicts that decided the stops
(:class:`~gpassk_opencompass.judges.recorded.RecordedJudge`): round 1's generations of each question first,
then round 2's, in draw order. Both are idempotent: the same files give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mmengine.config import Config

from gpassk_opencompass import __version__
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.defaults import MAX_CONFIG_BYTES
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, read_bytes_bounded
from gpassk_opencompass.files.writing import write_bytes_atomic, write_text_atomic
from gpassk_opencompass.grid.names import round_abbr
from gpassk_opencompass.grid.python_source import ImportPath, python_source
from gpassk_opencompass.grid.spec import refuse_unsafe_text
from gpassk_opencompass.grid.status import (
    ROUND_TWO_CONFIG,
    GridRun,
    continuing,
    result_path,
    round_run,
)
from gpassk_opencompass.grid.writer import GENERATED, imports_as_paths
from gpassk_opencompass.judges.recorded import RecordedJudge, RecordedKey, recorded_key
from gpassk_opencompass.judges.types import JudgeItem, Verdict
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.scoring.details import texts_digest
from gpassk_opencompass.scoring.flow import scored_results
from gpassk_opencompass.scoring.questions import QUESTIONS_FILE, Question, read_questions_file
from gpassk_opencompass.scoring.readers.opencompass import prediction_texts, recorded_finish_reasons
from gpassk_opencompass.scoring.request import ScoringRequest
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import load_results, write_results

#: The model class whose sampled batches get one seed per prompt; round 2 of its run draws round 2's seeds.
SEEDED_MODEL = "TurboMindDistinctSeeds"
#: What the results record of the judge: round 2's must be round 1's for the two to be one run.
IDENTITY = ("judge", "judge_model", "rule_checker", "judge_hosts", "prompt_version")


def _design(run: GridRun) -> Curtailed:
    if run.curtail is None:
        raise ValueError(f"{run.config.name} is not a curtailed run")
    return run.curtail


def round_one_results(run: GridRun, folder: Path) -> ResultsFile:
    """Round 1's results (complete: the caller checked its state)."""
    first, first_dir = round_run(run, folder, 1)
    return load_results(result_path(first_dir, first))


# ------------------------------------------------------------------------------ round 2's config


def write_round_two(run: GridRun, folder: Path) -> list[str]:
    """Write round 2's config into ``folder`` for the questions round 1 does not stop; return their ids (none: no
    round 2, nothing written). Round 1 must be done. Idempotent: an existing config for the same questions is kept.

    Raises:
        InputError: round 1's results are not the design's, its config is not one this generator wrote, or a
            round 2 config for other questions is already there (one line each).
    """
    ids = continuing(round_one_results(run, folder), _design(run))
    if not ids:
        return []
    text = round_two_text(run, ids)
    path = folder / ROUND_TWO_CONFIG
    if path.is_file():
        if read_bytes_bounded(path, MAX_CONFIG_BYTES, "round 2's config").decode("utf-8", "replace") == text:
            return ids
        raise InputError(
            f"{path} is not the round 2 that round 1's verdicts give now ({len(ids)} question(s) go on): round 1 "
            f"changed after it was written; move {path.name} and round2/ aside to draw round 2 again"
        )
    write_text_atomic(path, text)
    return ids


def round_two_text(run: GridRun, ids: Sequence[str]) -> str:
    """Round 2's config: round 1's (read as OpenCompass reads it; nothing of it runs here) for the questions
    ``ids``, ``n - n1`` replicas each, k = 1 (round 2's own metrics are not a result), the seeds of a second round.
    """
    design = _design(run)
    try:
        config = Config.fromfile(str(run.config)).to_dict()
    except Exception as error:  # noqa: BLE001 - the user's file: any failure is one line
        raise InputError(f"{run.config}: cannot read round 1's config: {type(error).__name__}: {error}") from None
    models, datasets = config.get("models"), config.get("datasets")
    if not (isinstance(models, list) and isinstance(datasets, list) and len(models) == len(datasets) == 1):
        raise InputError(f"{run.config}: expected one model and one dataset, as save_opencompass_configs.py writes")
    model, dataset = imports_as_paths(models[0]), imports_as_paths(datasets[0])
    first = round_abbr(run.dataset_abbr, 1)
    if (model.get("abbr"), dataset.get("abbr"), dataset.get("n")) != (run.model_abbr, first, design.n1):
        raise InputError(
            f"{run.config} is not round 1 of {run.model_abbr} x {run.dataset_abbr} (model abbr, dataset abbr {first}, "
            f"n = {design.n1}); regenerate the configs with save_opencompass_configs.py"
        )
    for name in ids:
        refuse_unsafe_text("question id", name)
    dataset.update(abbr=round_abbr(run.dataset_abbr, 2), k=[1], n=design.n - design.n1, question_ids=list(ids))
    kind = model.get("type")
    if isinstance(kind, ImportPath) and kind.name == SEEDED_MODEL:
        model["seed_round"] = 2
    text = (
        f"{GENERATED}{__version__} from {run.config.name!r} (round 1).\n"
        f"# Round 2 of a curtailed run (at {design.n1} of {design.n}, {design.rule}): the {len(ids)} question(s) "
        f"round 1 did not stop, {design.n - design.n1} generations each.\n"
        "# Written by gpassk grid run from round 1's verdicts; it combines both rounds into the run's results.\n"
        f"\n{python_source(dict(models=[model], datasets=[dataset]))}"
    )
    if redact(text) != text:
        raise InputError(f"round 2's config of {run.config} would contain a secret; nothing was written")
    return text


# ------------------------------------------------------------------------------------ combining


@dataclass(frozen=True)
class Round:
    """One round as judged: its questions (texts, languages, labels, generations) and each generation's verdict."""

    record: ResultsFile
    questions: list[Question]
    verdicts: list[tuple[Verdict, ...]]


def read_round(run: GridRun, folder: Path, number: int) -> Round:
    """Round ``number``'s questions as its evaluator judged them, its generations (OpenCompass's predictions,
    regrouped replica by replica) and verdicts; each question's digests checked against its results.

    Raises:
        InputError: incomplete results, a file missing, or predictions and results that do not belong together.
    """
    design = _design(run)
    grid_run, round_dir = round_run(run, folder, number)
    path = result_path(round_dir, grid_run)
    record = load_results(path)
    if not record.complete:
        raise InputError(f"{path}: round {number} has unresolved verdicts; run gpassk grid run again to re-judge")
    asked = read_questions_file(path.with_suffix("") / QUESTIONS_FILE)
    texts = prediction_texts(round_dir, grid_run.model_abbr, grid_run.dataset_abbr)
    reasons = recorded_finish_reasons(round_dir, grid_run.model_abbr, grid_run.dataset_abbr)
    n, count = (design.n1 if number == 1 else design.n - design.n1), len(asked)
    if len(texts) != count * n or [question.id for question in record.details] != [q.id for q in asked]:
        raise InputError(
            f"{path}: {len(record.details)} questions in its results, {count} judged, {len(texts)} predictions; "
            f"round {number} holds n = {n} of each: its predictions and results are of different runs"
        )
    questions, verdicts = [], []
    for index, (question, detail) in enumerate(zip(asked, record.details)):
        drawn = tuple(texts[replica * count + index] for replica in range(n))
        if len(detail.verdicts) != n or detail.generations_sha256 not in (None, texts_digest(drawn)):
            raise InputError(
                f"{path}: the verdicts of question {detail.id!r} are not of its {n} predictions in "
                f"{round_dir / 'predictions' / grid_run.model_abbr}: the predictions changed after it was judged"
            )
        if detail.question_sha256 not in (None, texts_digest([question.question, question.reference])):
            raise InputError(f"{path}: question {detail.id!r} is not the one its {QUESTIONS_FILE} holds")
        stops = None if reasons is None else tuple(reasons[replica * count + index] for replica in range(n))
        questions.append(
            Question(
                question.id,
                question.question,
                question.reference,
                drawn,
                question.language,
                question.labels,
                finish_reasons=stops,
            )
        )
        verdicts.append(detail.verdicts)
    return Round(record, questions, verdicts)


def _joined_stops(first: Question, more: Question | None) -> tuple[str | None, ...] | None:
    """Both rounds' recorded finish reasons of a question, in draw order (``None`` where a round has none)."""
    rounds = [first] if more is None else [first, more]
    if all(question.finish_reasons is None for question in rounds):
        return None
    return tuple(
        reason for question in rounds for reason in (question.finish_reasons or (None,) * len(question.predictions))
    )


def _identity(record: ResultsFile) -> dict[str, object]:
    block = record.gpassk
    return {name: getattr(block, name) for name in IDENTITY}


def combine(run: GridRun, folder: Path) -> ResultsFile:
    """Score both rounds of a curtailed run as one (round 1's generations first, then round 2's, in draw order)
    with the design's estimator and the rounds' own verdicts; write the results into ``folder``'s ``results/``
    (the rounds' saved configs into its ``configs/`` first). Both rounds must be done.

    The results are computed as round 1's were: its k, τ, subsets and benchmark, the evaluator's defaults for the
    intervals (which the generated configs keep).

    Raises:
        InputError: the rounds do not belong together (other questions, another judge, changed files).
    """
    design = _design(run)
    first = read_round(run, folder, 1)
    going = continuing(first.record, design)
    second = read_round(run, folder, 2) if going else None
    if second is not None and [question.id for question in second.questions] != going:
        raise InputError(
            f"round 2 of {run.stem} drew {len(second.questions)} question(s), not the {len(going)} round 1's verdicts "
            "send on: move its round2.py and round2/ aside to draw round 2 again"
        )
    if second is not None and _identity(second.record) != _identity(first.record):
        name = next(name for name in IDENTITY if _identity(second.record)[name] != _identity(first.record)[name])
        raise InputError(
            f"round 2 of {run.stem} was judged with {name} = {_identity(second.record)[name]!r}, round 1 with "
            f"{_identity(first.record)[name]!r}: a curtailed run is judged by the judge that decided its stops"
        )
    later = {} if second is None else {q.id: (q, v) for q, v in zip(second.questions, second.verdicts)}
    questions: list[Question] = []
    recorded: dict[RecordedKey, Verdict] = {}
    for question, verdicts in zip(first.questions, first.verdicts):
        more, their = later.get(question.id, (None, ()))
        drawn = question.predictions + (more.predictions if more is not None else ())
        every = tuple(verdicts) + tuple(their)
        for text, verdict in zip(drawn, every):
            item = JudgeItem(
                question.question, question.reference, text, question.language, verdict.correct, verdict.extracted
            )
            recorded.setdefault(recorded_key(item), verdict)
        questions.append(
            replace(
                question,
                predictions=drawn,
                source_extracted=tuple(verdict.extracted for verdict in every),
                source_verdicts=tuple(verdict.correct for verdict in every),
                finish_reasons=_joined_stops(question, more),
            )
        )
    identity = {name: value for name, value in _identity(first.record).items() if value is not None}
    prompt = identity.pop("prompt_version", None)
    judge = RecordedJudge(recorded, identity, str(prompt) if prompt is not None else None)
    results = scored_results(questions, _request(first.record, design, questions), judge, progress=False)
    _copy_configs(run, folder, second is not None)
    result_path(folder, run).parent.mkdir(parents=True, exist_ok=True)
    write_results(result_path(folder, run), results)
    return load_results(result_path(folder, run))


def _request(record: ResultsFile, design: Curtailed, questions: Sequence[Question]) -> ScoringRequest:
    """What round 1 computed (k, τ, subsets, benchmark, its interval kind and level), under the design."""
    levels = {entry.level for entry in record.uncertainty.values()}
    interval = "both" if record.uncertainty and record.bayes else "bayes" if record.bayes else "bootstrap"
    options: dict[str, object] = {"ci": levels.pop()} if len(levels) == 1 else {}
    return ScoringRequest(
        ks=record.ks,
        thresholds=record.thresholds,
        subsets=tuple(questions[0].labels) if questions else (),
        benchmark=record.benchmark,
        interval=interval,  # type: ignore[arg-type]  # one of INTERVALS
        curtail=design,
        **options,  # type: ignore[arg-type]
    )


def _copy_configs(run: GridRun, folder: Path, second: bool) -> None:
    """Each round's newest saved config into ``folder/configs/`` as ``round<N>_<name>``: what made the generations,
    read by the leaderboard as a run's saved configs."""
    for number in (1, 2) if second else (1,):
        round_dir = round_run(run, folder, number)[1]
        saved = find_files(round_dir / "configs", "*.py")
        if saved:
            newest = max(saved, key=lambda path: (path.stat().st_mtime, path.name))
            data = read_bytes_bounded(newest, MAX_CONFIG_BYTES, "a dumped OpenCompass config")
            (folder / "configs").mkdir(exist_ok=True)
            write_bytes_atomic(folder / "configs" / f"round{number}_{newest.name}", data)


def start_folder(folder: Path, first_command: str, now: str) -> None:
    """Make a curtailed run's folder: its ``results/`` (so the leaderboard reads the folder as the run, never its
    rounds inside as runs of their own) and, the first time, its log naming round 1's command first."""
    (folder / "results").mkdir(parents=True, exist_ok=True)
    if not find_files(folder, "gpassk_launch_*.log"):
        write_text_atomic(folder / f"gpassk_launch_{now}.log", f"# {first_command}\n# curtailed run started at {now}\n")


def note(folder: Path, line: str) -> None:
    """Append one line to the newest log of a curtailed run's folder (what ``gpassk grid status`` reads)."""
    logs = find_files(folder, "gpassk_launch_*.log")
    if logs:
        with open(logs[-1], "a", encoding="utf-8") as log:
            log.write(redact(line.replace("\n", " ")) + "\n")
