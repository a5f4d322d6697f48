"""Where every config of a generated grid stands, read from the files OpenCompass left.

A config's runs are the timestamped folders of its own work dir (``<work>/<config stem>/<timestamp>/``, with
``gpassk_launch_<timestamp>.log`` and, while running, ``gpassk_launch.pid``). OpenCompass exits 0 when a task
fails, so the state comes from files: ``done`` (a complete results file), ``incomplete`` (unresolved
verdicts), ``running`` (a live launch, with :func:`run_progress` from OpenCompass's logs), ``queued`` (a live
``gpassk grid run`` will launch it: its ``<work>/<config stem>/gpassk_queued.json``), ``failed`` (no
results: the log to read and its last error line), ``missing``. See docs/grid.md, "Status, and why it reads files".

A curtailed config's run folder holds its two rounds, each an OpenCompass run (``round1/``, ``round2/``, round 2's
config ``round2.py`` beside them) and the combined results in its own ``results/``: it is done when those are,
else it stands where its rounds stand (:func:`curtailed_status`, :attr:`RunStatus.rounds`; docs/grid.md,
"Curtailed grids").
"""

from __future__ import annotations

import dataclasses
import enum
import os
import re
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpassk_opencompass.console import without_sequences
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import UnreadableJSON, find_files, read_json_file, read_tail
from gpassk_opencompass.grid.names import round_abbr
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import MAX_RESULTS_BYTES, load_results, read_results

MANIFEST = "manifest.json"
TIMESTAMP = re.compile(r"\d{8}_\d{6}")
LAUNCH_LOG_PREFIX = "gpassk_launch_"
PID_FILE = "gpassk_launch.pid"
#: What ``gpassk grid run`` writes in a config's work dir (``<work>/<config stem>/``) for each config it will
#: launch, and removes as the launch starts (or as it stops): ``{"host": ..., "pid": <gpassk grid run's>}``.
QUEUE_FILE = "gpassk_queued.json"

DONE, INCOMPLETE, RUNNING, QUEUED = "done", "incomplete", "running", "queued"
FAILED, MISSING = "failed", "missing"
STATES = (DONE, INCOMPLETE, RUNNING, QUEUED, FAILED, MISSING)
#: A curtailed run's round 2 when round 1 stopped every question.
NOT_NEEDED = "not needed"
#: Round 2's config, written by ``gpassk grid run`` into a curtailed config's run folder once round 1 is done.
ROUND_TWO_CONFIG = "round2.py"

_ERROR_LINE = re.compile(r"(Error|Exception|error:|Traceback|Killed|CANCELLED|No such file)")
#: What srun and slurmstepd print after a task ends, which says only *that* it failed
#: ("srun: error: node7: task 0: Exited with exit code 1"); the reason is on an earlier line.
#: (A cancellation, "*** STEP 12.0 ON node7 CANCELLED AT ... DUE TO TIME LIMIT ***", is a reason.)
_SLURM_TRAILER = re.compile(
    r"^(srun|slurmstepd(-[\w.-]+)?)(\[\d+\])?: .*(task \d+: |Job step aborted|Waiting up to \d+ "
    r"seconds|forcing job termination|Terminating (job|StepId)|_step_signal|"
    r"Timed out waiting for job step)"
)
_TAIL_BYTES = 65536


@dataclass(frozen=True)
class GridRun:
    """One config of the grid, as the manifest records it.

    Attributes:
        config: the config file.
        model_abbr, dataset_abbr: where OpenCompass puts its predictions and results (a curtailed run: the
            combined results; its rounds' are :func:`~gpassk_opencompass.grid.names.round_abbr`).
        curtail: the curtailed design of the run (``None``: a fixed n).
    """

    config: Path
    model_abbr: str
    dataset_abbr: str
    curtail: Curtailed | None = None

    @property
    def stem(self) -> str:
        """The config's file name without ``.py``: the name of its work dir."""
        return self.config.stem


@dataclass(frozen=True)
class Grid:
    """A generated grid: its manifest and every config it lists."""

    manifest: Path
    runs: tuple[GridRun, ...]


def manifest_path(target: str | os.PathLike) -> Path:
    """The manifest of a config folder (``<folder>/manifest.json``) or the manifest path itself."""
    path = Path(target)
    if path.is_dir():
        path = path / MANIFEST
        if not path.is_file():
            raise InputError(
                f"{str(target)!r} has no {MANIFEST}; expected a folder written by "
                "save_opencompass_configs.py or its manifest.json"
            )
    elif not path.is_file():
        raise InputError(f"{str(target)!r} does not exist; expected a config folder or its {MANIFEST}")
    return path


def load_grid(target: str | os.PathLike) -> Grid:
    """Read a grid's manifest; every config it lists must exist next to it.

    Raises:
        InputError: unreadable manifest, a run without ``file``/``model_abbr``/
            ``dataset_abbr``, a listed config that does not exist (one line each).
    """
    path = manifest_path(target)
    try:
        document = read_json_file(path)
    except UnreadableJSON as error:
        raise InputError(f"not a readable manifest: {error}") from None
    runs = document.get("runs") if isinstance(document, Mapping) else None
    if not isinstance(runs, list) or not runs:
        raise InputError(
            f'{path}: expected {{"runs": [...]}} with at least one run, as save_opencompass_configs.py writes it'
        )
    grid_runs = []
    for index, entry in enumerate(runs):
        given = [
            entry.get(key) if isinstance(entry, Mapping) else None for key in ("file", "model_abbr", "dataset_abbr")
        ]
        values = [value for value in given if isinstance(value, str) and value]
        if len(values) < len(given):
            raise InputError(f"{path}: runs[{index}] needs file, model_abbr and dataset_abbr strings, got {entry!r}")
        file, model, dataset = values
        design = _curtail_of(entry, f"{path}: runs[{index}]")
        config = path.parent / file
        if Path(file).name != file or not file.endswith(".py"):
            raise InputError(
                f"{path}: runs[{index}].file must be a .py file name in the manifest's folder, got {file!r}"
            )
        if not config.is_file():
            raise InputError(
                f"{path} lists {file} but {config} does not exist; regenerate the configs "
                "with save_opencompass_configs.py"
            )
        grid_runs.append(GridRun(config, model, dataset, design))
    stems = Counter(run.stem for run in grid_runs)
    twice = [stem for stem, count in stems.items() if count > 1]
    if twice:
        raise InputError(f"{path} lists {twice[0]}.py twice")
    return Grid(path, tuple(grid_runs))


def _curtail_of(entry: Mapping, where: str) -> Curtailed | None:
    """The ``curtail`` design a manifest entry records (``None``: none), checked as the design checks itself."""
    block = entry.get("curtail")
    if block is None:
        return None
    if not isinstance(block, Mapping) or set(block) != {"n1", "n", "rule"}:
        raise InputError(
            f"{where}.curtail must be {{n1, n, rule}} as save_opencompass_configs.py writes it, got {block!r}"
        )
    try:
        return Curtailed(block["n1"], block["n"], block["rule"])
    except InputError as error:
        raise InputError(f"{where}.curtail: {error}") from None


# --------------------------------------------------------------------------------- results files


def read_result(path: Path) -> tuple[bool, int, str]:
    """``(complete, unresolved, problem)`` of a results file; ``problem`` is ``''`` when it reads."""
    try:
        document = read_json_file(path, max_bytes=MAX_RESULTS_BYTES)
    except UnreadableJSON as error:
        return False, 0, redact(f"unreadable results file: {error}")
    if (
        isinstance(document, Mapping)
        and "error" in document
        and not any(key for key in document if key not in ("error", "gpassk"))
    ):
        return False, 0, redact(f"the evaluator reported: {str(document['error'])[:200]}")
    try:
        record = read_results(document, path.name)
    except InputError as error:
        return False, 0, redact(str(error))
    return record.complete, record.unresolved, ""


# ---------------------------------------------------------------------------------------- runs


def run_dirs(config_work_dir: Path) -> list[Path]:
    """The timestamped run folders of one config's work dir, oldest first."""
    if not config_work_dir.is_dir():
        return []
    return sorted(path for path in config_work_dir.iterdir() if path.is_dir() and TIMESTAMP.fullmatch(path.name))


def result_path(run_dir: Path, run: GridRun) -> Path:
    """``<run_dir>/results/<model_abbr>/<dataset_abbr>.json``."""
    return run_dir / "results" / run.model_abbr / f"{run.dataset_abbr}.json"


def launch_logs(run_dir: Path) -> list[Path]:
    """The launch logs ``gpassk grid run`` kept in a run folder, oldest first."""
    return find_files(run_dir, f"{LAUNCH_LOG_PREFIX}*.log")


def _infer_logs(run_dir: Path, run: GridRun) -> list[Path]:
    folder = run_dir / "logs" / "infer" / run.model_abbr
    if not folder.is_dir():
        return []
    part = re.compile(re.escape(run.dataset_abbr) + r"(_\d+)?\.out")
    return sorted(path for path in folder.iterdir() if part.fullmatch(path.name))


def relevant_log(run_dir: Path, run: GridRun) -> Path | None:
    """The log that explains a run without results.

    The infer log of a part whose predictions are missing, else the eval log,
    else the newest infer log, else the newest launch log (``None`` if none).
    """
    infer = _infer_logs(run_dir, run)
    predictions = run_dir / "predictions" / run.model_abbr
    for log in infer:
        if not (predictions / f"{log.stem}.json").is_file():
            return log
    eval_log = run_dir / "logs" / "eval" / run.model_abbr / f"{run.dataset_abbr}.out"
    if eval_log.is_file():
        return eval_log
    if infer:
        return max(infer, key=lambda path: path.stat().st_mtime)
    launches = launch_logs(run_dir)
    return launches[-1] if launches else None


def last_error_line(log: Path | None, limit: int = 200) -> str:
    """The last line of a log that looks like an error (redacted, shortened), or ``''``.

    srun's and slurmstepd's trailers are passed over when the log says more:

    >>> import tempfile
    >>> log = Path(tempfile.mkdtemp()) / "task.out"
    >>> _ = log.write_text("FileNotFoundError: data/aime.jsonl\\n"
    ...                    "srun: error: gpu7: task 0: Exited with exit code 1\\n")
    >>> last_error_line(log)
    'FileNotFoundError: data/aime.jsonl'
    """
    tail = None if log is None else read_tail(log, _TAIL_BYTES)
    if tail is None:  # no log, gone, or not a regular file: nothing to show
        return ""
    lines = [line.strip() for line in tail.decode("utf-8", errors="replace").splitlines() if _ERROR_LINE.search(line)]
    if not lines:
        return ""
    reasons = [line for line in lines if not _SLURM_TRAILER.search(line)]
    line = redact((reasons or lines)[-1])
    return line if len(line) <= limit else line[: limit - 3] + "..."


# ------------------------------------------------------------------------------------ progress

#: A tqdm bar as OpenCompass's tasks print it into their logs (``\\r``-separated redraws): ``desc: 50%|███ | 4/8
#: [00:02<00:02, 1.89it/s]``; the infer task's own bar over its batches has no description.
_BAR = re.compile(
    r"^(?:(?P<desc>[^|\r\n]*?):)?\s*\d{1,3}%\|[^|]*\|\s*(?P<done>\d+)/(?P<total>\d+)\s*"
    r"\[[^<\]]*<(?P<left>[^,\]]*),\s*(?P<rate>[^\]]*)\]"
)
#: The unit of a bar's rate: ``1.89it/s``, ``?answer/s``, ``2.5s/verdict``.
_UNIT = re.compile(r"([A-Za-z]+)/s$|^[\d.]+s/([A-Za-z]+)$")
#: ``{"idx": "31", ...}``: a line of OpenCompass's ``tmp_<part>.jsonl``, the answers an infer task has saved so far.
_SAVED = re.compile(rb'(?:^|\n)\{"idx": "?(\d+)')
#: How much of a log's end (or of a ``tmp_*.jsonl``'s) is read for the progress: bars are redrawn there.
_PROGRESS_BYTES = 1 << 20
#: The longest bar description shown (a log is not ours: a line may be anything).
_DESC_CHARS = 60
#: The unit of the bars the ``datasets`` library draws while it prepares a dataset (``Map: 8/8 examples``).
_DATASET_UNIT = "examples"


@dataclass(frozen=True)
class Bar:
    """The last state of one tqdm bar in a log: ``done`` of ``total``, tqdm's estimate of the time ``left``.

    Attributes:
        desc: the bar's description (``'rule judge'``; ``''`` for the infer task's bar over its batches).
        done, total: how far it is.
        left: the time left as tqdm estimates it (``'00:02'``), ``None`` when it has no estimate.
        unit: what it counts (``'it'``, ``'answer'``, ``'verdict'``), ``''`` when the log does not say.
    """

    desc: str
    done: int
    total: int
    left: str | None = None
    unit: str = ""


@dataclass(frozen=True)
class Progress:
    """How far a running config has got, from what OpenCompass's tasks write as they go.

    Attributes:
        stage: ``'starting'`` (no task log yet), ``'inferring'``, ``'inferred'`` (every answer saved, the
            evaluation not started) or ``'evaluating'``.
        bar: the stage's progress bar -- inferring: the infer task's batches, summed over the parts;
            evaluating: the judge's bar -- ``None`` when there is none yet.
        saved: answers the infer task has saved so far (its ``tmp_<part>.jsonl``), ``None`` when unknown.
    """

    stage: str
    bar: Bar | None = None
    saved: int | None = None


def last_bar(text: str, keep: Callable[[Bar], bool] = lambda bar: True) -> Bar | None:
    """The last redraw of a tqdm bar in ``text`` (a log's end) that ``keep`` accepts.

    >>> last_bar("  0%|      | 0/8 [00:00<?, ?it/s]\\r 50%|███   | 4/8 [00:02<00:02,  1.89it/s]\\n")
    Bar(desc='', done=4, total=8, left='00:02', unit='it')
    >>> last_bar("rule judge:  69%|██████▉   | 9/13 [00:00<00:00, 19.32answer/s]").desc
    'rule judge'
    """
    found = None
    for segment in re.split(r"[\r\n]", without_sequences(text)):
        match = _BAR.match(segment)
        if match is None:
            continue
        left, unit = match["left"].strip(), _UNIT.search(match["rate"].strip())
        bar = Bar(
            (match["desc"] or "").strip()[:_DESC_CHARS],
            int(match["done"]),
            int(match["total"]),
            None if "?" in left else left,
            "" if unit is None else unit[1] or unit[2],
        )
        if keep(bar):
            found = bar
    return found


def _seconds(clock: str) -> int:
    """``'1:02:03'`` -> 3723: tqdm's time left, comparable.

    >>> _seconds("1:02:03"), _seconds("09:59")
    (3723, 599)
    """
    seconds = 0
    for part in clock.split(":"):
        seconds = 60 * seconds + (int(part) if part.isdigit() else 0)
    return seconds


def _log_text(path: Path) -> str:
    tail = read_tail(path, _PROGRESS_BYTES)
    return "" if tail is None else tail.decode("utf-8", errors="replace")


def _saved_answers(path: Path) -> int | None:
    """How many answers an infer task's ``tmp_<part>.jsonl`` holds (its last ``idx`` + 1), ``None`` if none."""
    tail = read_tail(path, _PROGRESS_BYTES)
    found = [int(match[1]) for match in _SAVED.finditer(tail or b"")]
    return max(found) + 1 if found else None


def run_progress(run_dir: Path, run: GridRun) -> Progress:
    """How far a running config has got, read from the logs and files OpenCompass writes as it goes.

    Inferring while a part's predictions file is missing: the infer task's bar over its batches (summed over
    the parts that have a log), and the answers its ``tmp_<part>.jsonl`` holds; then evaluating, with the
    judge's bar from the eval log. Each log's end only is read (:func:`~gpassk_opencompass.files.read_tail`).
    """
    predictions = run_dir / "predictions" / run.model_abbr
    inferring = [log for log in _infer_logs(run_dir, run) if not (predictions / f"{log.stem}.json").is_file()]
    if inferring:
        bars = [
            bar
            for log in _infer_logs(run_dir, run)
            if (bar := last_bar(_log_text(log), lambda bar: not bar.desc)) is not None
        ]
        counts = [count for log in inferring if (count := _saved_answers(predictions / f"tmp_{log.stem}.jsonl"))]
        bar = None
        if bars:
            lefts = [part.left for part in bars if part.left is not None and part.done < part.total]
            done, total = sum(part.done for part in bars), sum(part.total for part in bars)
            bar = Bar("", done, total, max(lefts, key=_seconds, default=None), bars[0].unit)
        return Progress("inferring", bar, sum(counts) if counts else None)
    eval_log = run_dir / "logs" / "eval" / run.model_abbr / f"{run.dataset_abbr}.out"
    if eval_log.is_file():
        return Progress("evaluating", last_bar(_log_text(eval_log), lambda bar: bar.unit != _DATASET_UNIT))
    return Progress("inferred" if _infer_logs(run_dir, run) else "starting")


def pid_alive(pid: int) -> bool:
    """Whether a process of this machine with this id exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_launch(run_dir: Path, is_alive: Callable[[int], bool] = pid_alive) -> str | None:
    """Where a launch in ``run_dir`` is still running (``'pid 123'``, ``'host gpu7'``), or ``None``."""
    return _live_process(run_dir / PID_FILE, is_alive)


def queued_by(config_work_dir: Path, is_alive: Callable[[int], bool] = pid_alive) -> str | None:
    """Where the ``gpassk grid run`` that will launch this config runs (``'pid 123'``, ``'host gpu7'``), or ``None``.

    ``None`` when no grid run has queued it, or the one that did is gone (its :data:`QUEUE_FILE` left behind).
    """
    return _live_process(config_work_dir / QUEUE_FILE, is_alive)


def _live_process(path: Path, is_alive: Callable[[int], bool]) -> str | None:
    """Where the process a ``{"host", "pid"}`` record names still runs; another host's cannot be checked: it counts."""
    try:
        record = read_json_file(path)
    except (OSError, InputError):  # gone, unreadable or not JSON (InputError: the read door's refusals)
        return None
    try:
        host, pid = record["host"], int(record["pid"])
    except (KeyError, TypeError, ValueError):  # int()'s ValueError: a pid that is not a number
        return None
    if host != socket.gethostname():
        return f"host {host}"
    return f"pid {pid}" if is_alive(pid) else None


@dataclass(frozen=True)
class RunStatus:
    """Where one config stands.

    Attributes:
        run: the config.
        state: one of :data:`STATES`.
        run_dir: the run folder the state was read from (``None``: never launched).
        result: its results file, when there is one.
        log: the log to read (failed runs).
        detail: one line: why it failed, how many verdicts are unresolved...
        progress: how far a running config has got (running only).
        rounds: a curtailed run's rounds, each one of :data:`STATES` or :data:`NOT_NEEDED` (``()``: a fixed n).
    """

    run: GridRun
    state: str
    run_dir: Path | None = None
    result: Path | None = None
    log: Path | None = None
    detail: str = ""
    progress: Progress | None = None
    rounds: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The status as plain JSON data."""
        return {
            "config": str(self.run.config),
            "state": self.state,
            "run_dir": None if self.run_dir is None else str(self.run_dir),
            "result": None if self.result is None else str(self.result),
            "log": None if self.log is None else str(self.log),
            "detail": self.detail,
            "progress": None if self.progress is None else dataclasses.asdict(self.progress),
            "rounds": list(self.rounds),
        }


def config_status(run: GridRun, work_dir: str | os.PathLike, is_alive: Callable[[int], bool] = pid_alive) -> RunStatus:
    """The state of one config under ``work_dir`` (its runs are in ``work_dir/<config stem>``)."""
    if run.curtail is not None:
        return curtailed_status(run, work_dir, is_alive)
    config_work_dir = Path(work_dir) / run.stem
    dirs = run_dirs(config_work_dir)
    queued = queued_by(config_work_dir, is_alive)
    if not dirs:
        return RunStatus(run, MISSING) if queued is None else _queued(run, None, queued)
    for run_dir in reversed(dirs):  # a complete result in any run counts, the newest first
        path = result_path(run_dir, run)
        if path.is_file() and read_result(path)[0]:
            return RunStatus(run, DONE, run_dir, path)
    status = run_dir_status(run, dirs[-1], is_alive)
    return status if status.state == RUNNING or queued is None else _queued(run, dirs[-1], queued)


def run_dir_status(run: GridRun, run_dir: Path, is_alive: Callable[[int], bool] = pid_alive) -> RunStatus:
    """The state of one OpenCompass run folder of ``run``: done, running, incomplete, failed (missing: no folder)."""
    if not run_dir.is_dir():
        return RunStatus(run, MISSING)
    path = result_path(run_dir, run)
    if path.is_file() and read_result(path)[0]:
        return RunStatus(run, DONE, run_dir, path)
    where = running_launch(run_dir, is_alive)
    if where is not None:
        logs = launch_logs(run_dir)
        return RunStatus(
            run,
            RUNNING,
            run_dir,
            log=logs[-1] if logs else None,
            detail=f"launched by {where}",
            progress=run_progress(run_dir, run),
        )
    if path.is_file():
        _, unresolved, problem = read_result(path)
        if not problem:
            return RunStatus(
                run,
                INCOMPLETE,
                run_dir,
                path,
                detail=f"{unresolved} unresolved verdict{'s' if unresolved != 1 else ''}; "
                "run `gpassk grid run` again to re-judge (predictions are reused)",
            )
        return RunStatus(run, FAILED, run_dir, path, log=relevant_log(run_dir, run), detail=problem)
    log = relevant_log(run_dir, run)
    detail = last_error_line(log) or (
        "no log: the launch did not start OpenCompass" if log is None else "no results file"
    )
    return RunStatus(run, FAILED, run_dir, log=log, detail=detail)


# ------------------------------------------------------------------------------ curtailed runs


def round_run(run: GridRun, folder: Path, number: int) -> tuple[GridRun, Path]:
    """Round ``number`` of a curtailed run whose run folder is ``folder``: its config (round 1's is the manifest's,
    round 2's :data:`ROUND_TWO_CONFIG` in the folder) and its OpenCompass run folder (``folder/round<number>``)."""
    config = run.config if number == 1 else folder / ROUND_TWO_CONFIG
    return GridRun(config, run.model_abbr, round_abbr(run.dataset_abbr, number)), folder / f"round{number}"


def continuing(record: ResultsFile, design: Curtailed) -> list[str]:
    """The ids of the questions round 1 does not stop (:meth:`~gpassk_opencompass.curtailed.Curtailed.continuing`
    on its verdicts, in draw order), in its order.

    Raises:
        InputError: a question without n1 verdicts: not round 1 of this design.
    """
    drawn, first, unsure = [], [], []
    for question in record.details:
        if question.n != design.n1 or len(question.verdicts) != design.n1:
            raise InputError(
                f"{record.source}: question {question.id!r} has {question.n} generations and "
                f"{len(question.verdicts)} verdicts; round 1 of curtailment at {design.n1} of {design.n} has "
                f"{design.n1} of each"
            )
        drawn.append(question.n)
        first.append(sum(verdict.correct is True for verdict in question.verdicts))
        unsure.append(sum(verdict.correct is None for verdict in question.verdicts))
    going = design.continuing(np.array(drawn), np.array(first), np.array(unsure))
    return [question.id for question, goes in zip(record.details, going.tolist()) if goes]


def curtailed_status(
    run: GridRun, work_dir: str | os.PathLike, is_alive: Callable[[int], bool] = pid_alive
) -> RunStatus:
    """Where a curtailed config stands: done when a run folder holds the combined results; else its newest run
    folder's rounds, the state of the first one not done (round 2 once round 1 is), :attr:`RunStatus.rounds`
    saying each; both done but not combined is ``missing`` (``gpassk grid run`` combines them), or ``failed``
    with the line its log ends on when combining them failed."""
    assert run.curtail is not None
    config_work_dir = Path(work_dir) / run.stem
    dirs = run_dirs(config_work_dir)
    queued = queued_by(config_work_dir, is_alive)
    if not dirs:
        return RunStatus(run, MISSING) if queued is None else _queued(run, None, queued)
    for folder in reversed(dirs):
        path = result_path(folder, run)
        if path.is_file() and read_result(path)[0]:
            return RunStatus(run, DONE, folder, path, rounds=_rounds_done(folder))
    folder = dirs[-1]
    status = _rounds_status(run, folder, is_alive)
    where = None if status.state == RUNNING else running_launch(folder, is_alive)
    if where is not None:  # a gpassk grid run between its rounds, or combining them
        return dataclasses.replace(status, state=RUNNING, log=None, detail=f"launched by {where}", progress=None)
    if queued is not None and status.state != RUNNING:
        return dataclasses.replace(_queued(run, folder, queued), rounds=status.rounds)
    return status


def _rounds_status(run: GridRun, folder: Path, is_alive: Callable[[int], bool]) -> RunStatus:
    """Where the rounds in a curtailed run's ``folder`` stand (see :func:`curtailed_status`)."""
    assert run.curtail is not None
    first = run_dir_status(*round_run(run, folder, 1), is_alive)
    if first.state != DONE:
        return dataclasses.replace(first, run=run, run_dir=folder, rounds=(first.state,))
    try:
        going = continuing(load_results(first.result), run.curtail)
    except InputError as refused:  # round 1's results are not what the design draws: nothing can go on from them
        return RunStatus(run, FAILED, folder, first.result, detail=redact(str(refused)), rounds=(FAILED,))
    second_run, round_dir = round_run(run, folder, 2)
    if going and not second_run.config.is_file():
        detail = f"{len(going)} question{'s go' if len(going) != 1 else ' goes'} on to round 2; run `gpassk grid run`"
        return RunStatus(run, MISSING, folder, detail=detail, rounds=(DONE, MISSING))
    second = run_dir_status(second_run, round_dir, is_alive) if going else RunStatus(second_run, NOT_NEEDED)
    if second.state not in (DONE, NOT_NEEDED):
        return dataclasses.replace(second, run=run, run_dir=folder, rounds=(DONE, second.state))
    logs = launch_logs(folder)
    error = last_error_line(logs[-1] if logs else None)
    return RunStatus(
        run,
        FAILED if error else MISSING,
        folder,
        log=logs[-1] if error else None,
        detail=error or "not combined yet; run `gpassk grid run` to combine them",
        rounds=(DONE, second.state),
    )


def _rounds_done(folder: Path) -> tuple[str, ...]:
    """The rounds of a combined run: round 2 was drawn, or not needed."""
    return (DONE, DONE if (folder / ROUND_TWO_CONFIG).is_file() else NOT_NEEDED)


def _queued(run: GridRun, run_dir: Path | None, where: str) -> RunStatus:
    """A config a live ``gpassk grid run`` has yet to launch (in ``run_dir``, resumed, when it has one)."""
    return RunStatus(run, QUEUED, run_dir, detail=f"queued by gpassk grid run ({where})")


def grid_status(
    grid: Grid, work_dir: str | os.PathLike, is_alive: Callable[[int], bool] = pid_alive
) -> list[RunStatus]:
    """:func:`config_status` of every config of the grid, in manifest order."""
    return [config_status(run, work_dir, is_alive) for run in grid.runs]


class GridOutcome(enum.Enum):
    """Where a whole grid stands (``gpassk grid`` turns it into an exit code)."""

    #: Every config is done (complete results).
    DONE = "done"
    #: Nothing failed, but some results are incomplete (unresolved verdicts): run again to re-judge.
    INCOMPLETE = "incomplete"
    #: Some config failed, is missing, queued or still running.
    NOT_DONE = "not done"


def outcome(statuses: Iterable[RunStatus]) -> GridOutcome:
    """Done when every config is; incomplete when only incomplete ones are left; else not done.

    >>> run = GridRun(Path("a.py"), "m", "d")
    >>> outcome([RunStatus(run, DONE)]).name, outcome([RunStatus(run, DONE), RunStatus(run, INCOMPLETE)]).name
    ('DONE', 'INCOMPLETE')
    >>> outcome([RunStatus(run, INCOMPLETE), RunStatus(run, FAILED)]).name
    'NOT_DONE'
    """
    states = {status.state for status in statuses}
    if states & {FAILED, MISSING, RUNNING, QUEUED}:
        return GridOutcome.NOT_DONE
    return GridOutcome.INCOMPLETE if INCOMPLETE in states else GridOutcome.DONE
