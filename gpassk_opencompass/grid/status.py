"""Where every config of a generated grid stands, read from the files OpenCompass left.

``gpassk grid run`` launches each config as its own ``opencompass CONFIG -w
<work>/<config stem>``, so a config's runs are the timestamped folders of its
own work dir::

    <work>/<config stem>/<YYYYmmdd_HHMMSS>/
        gpassk_launch_<YYYYmmdd_HHMMSS>.log    # stdout+stderr of each `opencompass` launch
        gpassk_launch.pid                      # while a launch runs: {"host", "pid"}
        configs/ predictions/ results/ logs/{infer,eval}/<model_abbr>/<dataset_abbr>*.out

OpenCompass exits 0 when a task fails, so a config's state comes from its
files, never from an exit code:

* ``done`` -- a results file that is complete (``"complete": true`` /
  ``"unresolved": 0``; a legacy file without those fields is complete unless
  ``gpassk.judge_stats.unresolved > 0``);
* ``incomplete`` -- a results file with unresolved verdicts (the judge did
  not answer for some generations): run again to re-judge;
* ``running`` -- a launch of this machine whose process is alive (or of
  another machine: it cannot be checked from here);
* ``failed`` -- a run folder without a results file: the status names the
  log to read (the infer log of a part without predictions, else the eval
  log, else the launch log) and the last error line in it;
* ``missing`` -- never launched.
"""

from __future__ import annotations

import enum
import os
import re
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import UnreadableFile, UnreadableJSON, find_files, open_regular, read_json_file
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.scoring.results_io import MAX_RESULTS_BYTES, read_results

MANIFEST = "manifest.json"
TIMESTAMP = re.compile(r"\d{8}_\d{6}")
LAUNCH_LOG_PREFIX = "gpassk_launch_"
PID_FILE = "gpassk_launch.pid"

DONE, INCOMPLETE, RUNNING, FAILED, MISSING = "done", "incomplete", "running", "failed", "missing"
STATES = (DONE, INCOMPLETE, RUNNING, FAILED, MISSING)

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
        model_abbr, dataset_abbr: where OpenCompass puts its predictions and results.
    """

    config: Path
    model_abbr: str
    dataset_abbr: str

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
        grid_runs.append(GridRun(config, model, dataset))
    stems = Counter(run.stem for run in grid_runs)
    twice = [stem for stem, count in stems.items() if count > 1]
    if twice:
        raise InputError(f"{path} lists {twice[0]}.py twice")
    return Grid(path, tuple(grid_runs))


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
    if log is None:
        return ""
    try:
        with open_regular(log) as file:
            file.seek(max(0, os.fstat(file.fileno()).st_size - _TAIL_BYTES))
            tail = file.read(_TAIL_BYTES).decode("utf-8", errors="replace")
    except (OSError, UnreadableFile):  # gone, or not a regular file: nothing to show
        return ""
    lines = [line.strip() for line in tail.splitlines() if _ERROR_LINE.search(line)]
    if not lines:
        return ""
    reasons = [line for line in lines if not _SLURM_TRAILER.search(line)]
    line = redact((reasons or lines)[-1])
    return line if len(line) <= limit else line[: limit - 3] + "..."


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
    path = run_dir / PID_FILE
    try:
        record = read_json_file(path)
        host, pid = record["host"], int(record["pid"])
    except (OSError, InputError, KeyError, TypeError, ValueError):  # ValueError: a pid that is not a number
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
    """

    run: GridRun
    state: str
    run_dir: Path | None = None
    result: Path | None = None
    log: Path | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """The status as plain JSON data."""
        return {
            "config": str(self.run.config),
            "state": self.state,
            "run_dir": None if self.run_dir is None else str(self.run_dir),
            "result": None if self.result is None else str(self.result),
            "log": None if self.log is None else str(self.log),
            "detail": self.detail,
        }


def config_status(run: GridRun, work_dir: str | os.PathLike, is_alive: Callable[[int], bool] = pid_alive) -> RunStatus:
    """The state of one config under ``work_dir`` (its runs are in ``work_dir/<config stem>``)."""
    dirs = run_dirs(Path(work_dir) / run.stem)
    if not dirs:
        return RunStatus(run, MISSING)
    for run_dir in reversed(dirs):  # a complete result in any run counts, the newest first
        path = result_path(run_dir, run)
        if path.is_file() and read_result(path)[0]:
            return RunStatus(run, DONE, run_dir, path)
    latest = dirs[-1]
    where = running_launch(latest, is_alive)
    if where is not None:
        logs = launch_logs(latest)
        return RunStatus(run, RUNNING, latest, log=logs[-1] if logs else None, detail=f"launched by {where}")
    path = result_path(latest, run)
    if path.is_file():
        _, unresolved, problem = read_result(path)
        if not problem:
            return RunStatus(
                run,
                INCOMPLETE,
                latest,
                path,
                detail=f"{unresolved} unresolved verdict{'s' if unresolved != 1 else ''}; "
                "run `gpassk grid run` again to re-judge (predictions are reused)",
            )
        return RunStatus(run, FAILED, latest, path, log=relevant_log(latest, run), detail=problem)
    log = relevant_log(latest, run)
    detail = last_error_line(log) or (
        "no log: the launch did not start OpenCompass" if log is None else "no results file"
    )
    return RunStatus(run, FAILED, latest, log=log, detail=detail)


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
    #: Some config failed, is missing or still running.
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
    if states & {FAILED, MISSING, RUNNING}:
        return GridOutcome.NOT_DONE
    return GridOutcome.INCOMPLETE if INCOMPLETE in states else GridOutcome.DONE


def summary(statuses: Sequence[RunStatus]) -> str:
    """``'3 configs: 1 done, 1 failed, 1 missing'`` (states in a fixed order, zeros left out).

    >>> run = GridRun(Path("a.py"), "m", "d")
    >>> summary([RunStatus(run, MISSING), RunStatus(run, DONE), RunStatus(run, FAILED)])
    '3 configs: 1 done, 1 failed, 1 missing'
    """
    counts = Counter(status.state for status in statuses)
    parts = [f"{counts[state]} {state}" for state in STATES if counts[state]]
    return f"{len(statuses)} config{'s' if len(statuses) != 1 else ''}: {', '.join(parts)}"
