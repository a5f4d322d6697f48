"""Launching a generated grid through OpenCompass's own runners, one ``opencompass`` process per config.

Each config is launched as ``opencompass <config> -w <work>/<config stem> -r <timestamp> [--slurm -p P [-q Q]]``
(its own work dir; a failed or partial run resumed with ``-r <its timestamp>``, an incomplete result set aside
as ``<dataset>.json.incomplete-<timestamp>`` first), done and running configs skipped, at most
``max_parallel`` at once. Values reaching a shell must match :data:`SHELL_SAFE` and ``--opencompass-arg`` may not
change them (:func:`refuse_overridden_settings`); ``--slurm`` launches run without the job's ``SLURM_*``
environment (:func:`launch_environment`). See docs/grid.md, "What one launch is" and "Re-running resumes".

A curtailed config is one launch of its rounds (``rounds``): round 1 (``opencompass <config> -w <work>/<stem>/<ts>
-r round1``), round 2 for the questions it does not stop (``-r round2``, its config written from round 1's
verdicts), then both combined (:mod:`~gpassk_opencompass.grid.rounds`); each step is skipped when done, so a
rerun resumes where it stopped.

>>> options = LaunchOptions(work_dir=Path("out"), opencompass="opencompass", slurm=True, partition="gpu",
...                         quotatype="reserved")
>>> run = GridRun(Path("configs/m@d.py"), "m", "d")
>>> " ".join(opencompass_command(run, options, "20250101_120000"))
'opencompass configs/m@d.py -w out/m@d -r 20250101_120000 --slurm -p gpu -q reserved'
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from gpassk_opencompass import console
from gpassk_opencompass.errors import InputError, WriteError
from gpassk_opencompass.files.writing import write_text_atomic
from gpassk_opencompass.grid import rounds
from gpassk_opencompass.grid.status import (
    DONE,
    FAILED,
    INCOMPLETE,
    LAUNCH_LOG_PREFIX,
    MISSING,
    NOT_NEEDED,
    PID_FILE,
    QUEUE_FILE,
    QUEUED,
    RUNNING,
    GridRun,
    RunStatus,
    config_status,
    result_path,
    round_run,
    run_dir_status,
)
from gpassk_opencompass.log import logger
from gpassk_opencompass.redaction import redact

TIMESTAMP_FORMAT = "%Y%m%d_%H%M%S"  # OpenCompass's run folder names
START, RESUME, REJUDGE, ROUNDS = "start", "resume", "rejudge", "rounds"
EXIT_SKIPPED = -1  # the "exit code" of a launch not started because the grid was stopped
#: What a value handed to a cluster runner may hold. OpenCompass's ``SlurmRunner`` runs
#: ``srun -p {partition} --quotatype={q} --qos={qos} ... -J '{model_abbr}/{dataset_abbr}'`` through a shell.
SHELL_SAFE = re.compile(r"[A-Za-z0-9_.:,=+-]+")
#: Variables kept when a launch inside a Slurm job drops the job's ``SLURM_*``/``SRUN_*`` environment:
#: where the cluster's configuration is, and the account the user charges.
SLURM_KEPT = ("SLURM_CONF", "SLURM_ACCOUNT")


@dataclass(frozen=True)
class LaunchOptions:
    """How every config is launched.

    Attributes:
        work_dir: the grid's work dir; config ``X.py`` runs in ``work_dir/X``.
        opencompass: the ``opencompass`` executable.
        max_parallel: launches running at once.
        slurm, partition, quotatype, qos: OpenCompass's ``--slurm -p -q --qos``.
        dlc, aliyun_cfg: OpenCompass's ``--dlc --aliyun-cfg``.
        max_num_workers: OpenCompass's ``--max-num-workers`` (tasks per launch).
        retry: OpenCompass's ``--retry`` (Slurm/DLC task retries).
        extra: further arguments given to every ``opencompass`` launch.
    """

    work_dir: Path
    opencompass: str
    max_parallel: int = 1
    slurm: bool = False
    partition: str | None = None
    quotatype: str | None = None
    qos: str | None = None
    dlc: bool = False
    aliyun_cfg: str | None = None
    max_num_workers: int | None = None
    retry: int | None = None
    extra: tuple[str, ...] = field(default=())

    @property
    def local(self) -> bool:
        """Whether the tasks run on this machine (OpenCompass's local runner)."""
        return not (self.slurm or self.dlc)


@dataclass(frozen=True)
class Launch:
    """One planned ``opencompass`` launch.

    Attributes:
        run: the config.
        action: ``start`` (new run), ``resume`` (``-r`` an earlier run),
            ``rejudge`` (resume after setting an incomplete result aside) or
            ``rounds`` (a curtailed config's rounds, each as needed, then combined).
        timestamp: the run folder (``<work>/<stem>/<timestamp>``).
        command: the exact command (``rounds``: the next round's; none when only combining is left).
        set_aside: an incomplete results file to rename before launching.
        folder: the run folder of a curtailed config (``rounds``).
    """

    run: GridRun
    action: str
    timestamp: str
    command: tuple[str, ...]
    set_aside: Path | None = None
    folder: Path | None = None

    @property
    def run_dir(self) -> Path:
        """Where OpenCompass writes this launch's outputs (from the ``-w`` and ``-r`` of the command)."""
        if not self.command and self.folder is not None:
            return self.folder
        work = self.command[self.command.index("-w") + 1]
        return Path(work) / self.command[self.command.index("-r") + 1]

    @property
    def config_work_dir(self) -> Path:
        """The config's work dir (``<work>/<stem>``): its run folders', and where it is recorded as queued."""
        return self.folder.parent if self.folder is not None else self.run_dir.parent

    def set_aside_target(self, now: str) -> Path:
        """The new name of :attr:`set_aside`."""
        assert self.set_aside is not None
        return self.set_aside.with_name(f"{self.set_aside.name}.incomplete-{now}")


def validate_options(options: LaunchOptions) -> None:
    """One-line ``InputError`` for inconsistent launch options (before any work).

    >>> validate_options(LaunchOptions(Path("w"), "opencompass", quotatype="spot"))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: -q/--quotatype 'spot' needs --slurm (it is a Slurm quota type)
    """
    if options.max_parallel < 1:
        raise InputError(f"--max-parallel must be at least 1, got {options.max_parallel}")
    if options.max_num_workers is not None and options.max_num_workers < 1:
        raise InputError(f"--max-num-workers must be at least 1, got {options.max_num_workers}")
    if options.retry is not None and options.retry < 0:
        raise InputError(f"--retry must be >= 0, got {options.retry}")
    if options.slurm and options.dlc:
        raise InputError("--slurm and --dlc exclude each other; choose the cluster's runner")
    if options.slurm and not options.partition:
        raise InputError("--slurm needs -p/--partition PARTITION (the Slurm partition to submit to)")
    for flag, value in (
        ("-p/--partition", options.partition),
        ("-q/--quotatype", options.quotatype),
        ("--qos", options.qos),
    ):
        if value is not None and not options.slurm:
            what = "partition" if flag.startswith("-p") else "quota type" if flag.startswith("-q") else "QOS"
            raise InputError(f"{flag} {value!r} needs --slurm (it is a Slurm {what})")
        if value is not None:
            refuse_shell_text(flag, value)
    if options.dlc and not options.aliyun_cfg:
        raise InputError("--dlc needs --aliyun-cfg FILE (OpenCompass's DLC settings)")
    if options.aliyun_cfg is not None and not options.dlc:
        raise InputError(f"--aliyun-cfg {options.aliyun_cfg!r} needs --dlc")
    if options.aliyun_cfg is not None and not Path(options.aliyun_cfg).is_file():
        raise InputError(f"--aliyun-cfg {options.aliyun_cfg!r} does not exist")


def refuse_shell_text(what: str, value: str) -> None:
    """Refuse a value a cluster runner's shell would interpret (one-line :class:`InputError`).

    >>> refuse_shell_text("-p/--partition", "gpu_a100")
    >>> refuse_shell_text("-p/--partition", "gpu; rm -rf ~")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: -p/--partition 'gpu; rm -rf ~' is not a plain Slurm name: OpenCompass's SlurmRunner puts it into a shell command unquoted; use only letters, digits and _.:,=+-
    """
    if not SHELL_SAFE.fullmatch(value):
        raise InputError(
            f"{what} {value!r} is not a plain Slurm name: OpenCompass's SlurmRunner puts it into "
            "a shell command unquoted; use only letters, digits and _.:,=+-"
        )


def refuse_overridden_settings(
    options: LaunchOptions, settings: Callable[[Sequence[str]], Mapping[str, object]]
) -> None:
    """Refuse ``--opencompass-arg`` values that change a setting ``gpassk grid run`` makes itself (one line).

    The runner (``--slurm``, ``--dlc``), its partition, quota type, QOS and settings file are
    gpassk's own options, checked before they reach ``srun``'s shell; ``-w``/``-r`` give every
    config its own run folder. ``settings`` reads a launch's arguments the way OpenCompass's
    own parser does (:func:`gpassk_opencompass.plugin.preflight.launch_settings`: abbreviations
    such as ``--part=`` and attached values such as ``-pgpu`` included), once without the extra
    arguments and once with them; any setting that differs is refused.
    """
    if not options.extra:
        return
    command = opencompass_command(GridRun(Path("config.py"), "m", "d"), options, "20000101_000000")[1:]
    own = settings(command[: len(command) - len(options.extra)])
    try:
        given = settings(command)
    except InputError as error:
        raise InputError(f"--opencompass-arg {shlex.join(options.extra)}: {error}") from None
    changed = next((name for name, value in given.items() if value != own.get(name)), None)
    if changed is not None:
        where = (
            "gpassk grid run gives every config its own -w WORK/<config> and -r <timestamp>; use gpassk's -w"
            if changed in ("work_dir", "reuse")
            else "give it as gpassk grid run's own option (--slurm -p/-q/--qos, --dlc --aliyun-cfg), "
            "where it is checked before it reaches srun's shell"
        )
        raise InputError(
            f"--opencompass-arg {shlex.join(options.extra)}: sets OpenCompass's {changed} "
            f"({given[changed]!r}), which gpassk grid run sets itself; {where}"
        )


def validate_cluster_names(runs: Iterable[GridRun], options: LaunchOptions) -> None:
    """On a cluster, refuse abbrs that OpenCompass's runners would put into a shell command (the job name)."""
    if options.local:
        return
    for run in runs:
        for what, value in (("model_abbr", run.model_abbr), ("dataset_abbr", run.dataset_abbr)):
            if not SHELL_SAFE.fullmatch(value):
                raise InputError(
                    f"{run.config.name}: {what} {value!r} would be part of a cluster job name run "
                    "through a shell; regenerate the configs with save_opencompass_configs.py"
                )


def slurm_job(environ: Mapping[str, str]) -> str | None:
    """The id of the Slurm job this process runs in (``SLURM_JOB_ID``), or ``None``."""
    return environ.get("SLURM_JOB_ID") or environ.get("SLURM_JOBID") or None


def launch_environment(options: LaunchOptions, environ: Mapping[str, str] = os.environ) -> dict[str, str] | None:
    """The environment of the ``opencompass`` launches (``None``: this process's own).

    Inside a Slurm job, ``srun`` does not submit a job: it starts a *step* of the enclosing job,
    on that job's CPUs and GPUs only (CPU tasks one after another, GPU tasks refused with
    "Invalid generic resource" when the job holds none). So with ``--slurm`` inside a job the
    launches run without the job's ``SLURM_*`` and ``SRUN_*`` variables (:data:`SLURM_KEPT` aside),
    and each task's ``srun`` is a job of its own, as from a login node.

    >>> job = {"SLURM_JOB_ID": "7", "SLURM_STEP_ID": "0", "SRUN_CPUS_PER_TASK": "2",
    ...        "SLURM_CONF": "/etc/slurm/slurm.conf", "PATH": "/bin"}
    >>> launch_environment(LaunchOptions(Path("w"), "oc", slurm=True, partition="gpu"), job)
    {'SLURM_CONF': '/etc/slurm/slurm.conf', 'PATH': '/bin'}
    >>> launch_environment(LaunchOptions(Path("w"), "oc"), job) is None  # local runner: the job's own GPUs
    True
    """
    if not options.slurm or slurm_job(environ) is None:
        return None
    return {
        name: value for name, value in environ.items() if name in SLURM_KEPT or not name.startswith(("SLURM_", "SRUN_"))
    }


def opencompass_command(run: GridRun, options: LaunchOptions, timestamp: str) -> tuple[str, ...]:
    """The ``opencompass`` command of one config, its run folder fixed by ``-r timestamp``."""
    return _command(run.config, options.work_dir / run.stem, timestamp, options)


def round_command(run: GridRun, folder: Path, number: int, options: LaunchOptions) -> tuple[str, ...]:
    """The ``opencompass`` command of round ``number`` of a curtailed config whose run folder is ``folder``.

    >>> from gpassk_opencompass.curtailed import Curtailed
    >>> run = GridRun(Path("configs/m@d.py"), "m", "d", Curtailed(4, 8))
    >>> " ".join(round_command(run, Path("out/m@d/20250101_120000"), 2, LaunchOptions(Path("out"), "opencompass")))
    'opencompass out/m@d/20250101_120000/round2.py -w out/m@d/20250101_120000 -r round2'
    """
    return _command(round_run(run, folder, number)[0].config, folder, f"round{number}", options)


def _command(config: Path, work: Path, reuse: str, options: LaunchOptions) -> tuple[str, ...]:
    """``opencompass CONFIG -w WORK -r REUSE`` and the options every launch gets."""
    command = [options.opencompass, str(config), "-w", str(work), "-r", reuse]
    if options.slurm:
        command += ["--slurm", "-p", str(options.partition)]
        if options.quotatype:
            command += ["-q", options.quotatype]
        if options.qos:
            command += ["--qos", options.qos]
    if options.dlc:
        command += ["--dlc", "--aliyun-cfg", str(options.aliyun_cfg)]
    if options.max_num_workers is not None:
        command += ["--max-num-workers", str(options.max_num_workers)]
    if options.retry is not None:
        command += ["--retry", str(options.retry)]
    return tuple(command) + tuple(options.extra)


def plan(statuses: Iterable[RunStatus], options: LaunchOptions, now: str) -> tuple[list[Launch], list[RunStatus]]:
    """What to launch for each config, and the configs skipped (done, running, or queued by another grid run).

    Args:
        statuses: every config's current state (:func:`.status.grid_status`).
        options: how to launch.
        now: the timestamp of new runs (``YYYYmmdd_HHMMSS``).

    >>> options = LaunchOptions(Path("w"), "oc")
    >>> run = GridRun(Path("a.py"), "m", "d")
    >>> launches, skipped = plan([RunStatus(run, MISSING), RunStatus(run, DONE)], options, "20250101_000000")
    >>> [launch.action for launch in launches], [status.state for status in skipped]
    (['start'], ['done'])
    >>> (launch,) = plan([RunStatus(run, FAILED, Path("w/a/20241231_235959"))], options, "20250101_000000")[0]
    >>> launch.action, launch.command[-2:]
    ('resume', ('-r', '20241231_235959'))
    """
    launches, skipped = [], []
    for status in statuses:
        if status.state in (DONE, RUNNING, QUEUED):
            skipped.append(status)
        elif status.run.curtail is not None:
            launches.append(rounds_launch(status, status.run_dir or options.work_dir / status.run.stem / now, options))
        elif status.state == MISSING or status.run_dir is None:
            launches.append(Launch(status.run, START, now, opencompass_command(status.run, options, now)))
        else:
            timestamp = status.run_dir.name
            command = opencompass_command(status.run, options, timestamp)
            if status.state == INCOMPLETE:
                launches.append(Launch(status.run, REJUDGE, timestamp, command, set_aside=status.result))
            else:
                launches.append(Launch(status.run, RESUME, timestamp, command))
    return launches, skipped


def rounds_launch(status: RunStatus, folder: Path, options: LaunchOptions) -> Launch:
    """The launch of a curtailed config's rounds in its run ``folder``: its command is the next round's."""
    run, done = status.run, status.rounds[:1] == (DONE,)
    combine_only = done and status.rounds[1:] in ((DONE,), (NOT_NEEDED,))
    command = () if combine_only else round_command(run, folder, 2 if done else 1, options)
    aside = status.result if status.state == INCOMPLETE else None
    return Launch(run, ROUNDS, folder.name, command, set_aside=aside, folder=folder)


def _rounds_comment(launch: Launch) -> str:
    """What a dry run says of a curtailed config's launch."""
    design, folder = launch.run.curtail, launch.folder
    assert design is not None and folder is not None
    where = result_path(folder, launch.run)
    if not launch.command:
        return f"# {launch.run.stem}: both rounds done; combined into {where}"
    if launch.command[launch.command.index("-r") + 1] == "round1":
        return (
            f"# {launch.run.stem}: curtailed at {design.n1} of {design.n} ({design.rule}): round 1, then round 2 for "
            f"the questions it does not stop (its config written from round 1's verdicts), then both combined into "
            f"{where}"
        )
    return (
        f"# {launch.run.stem}: round 1 done; round 2 (its config written from round 1's verdicts), then both "
        f"combined into {where}"
    )


def dry_run_lines(launches: Sequence[Launch], skipped: Sequence[RunStatus], now: str) -> list[str]:
    """What a dry run prints: a shell script doing what the launch would do, one launch after another."""
    lines = [f"# skip ({status.state}) {status.run.stem}" for status in skipped]
    for launch in launches:
        if launch.action == ROUNDS:
            lines.append(_rounds_comment(launch))
        if launch.set_aside is not None:
            lines.append(shlex.join(["mv", str(launch.set_aside), str(launch.set_aside_target(now))]))
        if launch.command:
            lines.append(redact(shlex.join(launch.command)))
    return lines


# -------------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Outcome:
    """A finished launch: its process's exit code and the config's state read afterwards."""

    launch: Launch
    returncode: int
    status: RunStatus


class Launcher:
    """Runs planned launches, at most ``max_parallel`` at once; stops them all on Ctrl-C.

    Each launch runs in its own session (so a terminal's Ctrl-C reaches only
    this process); :meth:`stop` sends SIGTERM to the process group of every
    launch it started, and nothing else, and SIGKILL to those still running
    ``kill_after`` seconds later. Each launch not started yet is recorded as
    queued (:data:`~.status.QUEUE_FILE` in its config's work dir, naming this
    process) until it starts or the run ends, so ``gpassk grid status`` says ``queued``.
    """

    def __init__(
        self,
        options: LaunchOptions,
        env: dict[str, str] | None = None,
        clock: Callable[[], datetime] = datetime.now,
        kill_after: float = 30.0,
    ):
        self.options = options
        self.env = env
        self.clock = clock
        self.kill_after = kill_after
        self._processes: dict[int, subprocess.Popen] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._queued: set[Path] = set()

    def execute(self, launch: Launch) -> int:
        """Run one launch to its end (a curtailed config's: its rounds, then their combination)."""
        return self._rounds(launch) if launch.action == ROUNDS else self._process(launch)

    def _rounds(self, launch: Launch) -> int:
        """A curtailed config: each round not done (round 2's config written from round 1's verdicts first), then
        both combined; stops at the first round that does not end done (the next ``gpassk grid run`` resumes it).
        The run folder's pid file says the sequence runs, its log what it did and why it stopped."""
        run, folder = launch.run, launch.folder
        assert folder is not None
        self._unqueue(launch)  # started: its rounds are launched from here, one after another
        rounds.start_folder(
            folder,
            redact(shlex.join(round_command(run, folder, 1, self.options))),
            self.clock().strftime(TIMESTAMP_FORMAT),
        )
        write_text_atomic(folder / PID_FILE, json.dumps({"host": socket.gethostname(), "pid": os.getpid()}) + "\n")
        try:
            return self._round_steps(run, folder)
        except (InputError, WriteError) as error:  # one config's rounds: said in its folder's log, for grid status
            rounds.note(folder, f"error: {error}")
            logger.warning("{}: {}", run.stem, error)
            return 1
        finally:
            (folder / PID_FILE).unlink(missing_ok=True)

    def _round_steps(self, run: GridRun, folder: Path) -> int:
        returncode = 0
        for number in (1, 2):
            if self._stopping.is_set():
                return EXIT_SKIPPED
            if number == 2:
                going = rounds.write_round_two(run, folder)
                rounds.note(folder, f"# round 1 done: {len(going)} question(s) go on to round 2")
                if not going:
                    break
            grid_run, round_dir = round_run(run, folder, number)
            state = run_dir_status(grid_run, round_dir)
            if state.state == DONE:
                continue
            if state.state == RUNNING:  # another gpassk grid run launched it
                return returncode
            action = START if state.state == MISSING else REJUDGE if state.state == INCOMPLETE else RESUME
            aside = state.result if state.state == INCOMPLETE else None
            step = Launch(grid_run, action, f"round{number}", round_command(run, folder, number, self.options), aside)
            rounds.note(folder, f"# {shlex.join(step.command)}")
            returncode = self._process(step)
            if run_dir_status(grid_run, round_dir).state != DONE:
                return returncode
        if self._stopping.is_set():
            return EXIT_SKIPPED
        rounds.combine(run, folder)
        rounds.note(folder, f"# combined into {result_path(folder, run)}")
        return returncode

    def _process(self, launch: Launch) -> int:
        """Run one ``opencompass`` process to its end; its output goes to a launch log in the run folder."""
        if self._stopping.is_set():
            return EXIT_SKIPPED
        started = self.clock().strftime(TIMESTAMP_FORMAT)
        run_dir = launch.run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        if launch.set_aside is not None and launch.set_aside.is_file():
            target = launch.set_aside_target(started)
            os.replace(launch.set_aside, target)
            logger.info("{}: incomplete result set aside as {}; re-judging", launch.run.stem, target.name)
        log_path = run_dir / f"{LAUNCH_LOG_PREFIX}{started}.log"
        pid_path = run_dir / PID_FILE
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"# {redact(shlex.join(launch.command))}\n# {launch.action} at {started}\n")
            log.flush()
            with self._lock:
                if self._stopping.is_set():
                    return EXIT_SKIPPED
                process = subprocess.Popen(
                    launch.command,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=self.env,
                    start_new_session=True,
                )
                self._processes[process.pid] = process
            try:
                write_text_atomic(pid_path, json.dumps({"host": socket.gethostname(), "pid": process.pid}) + "\n")
                self._unqueue(launch)
                returncode = process.wait()
            finally:
                with self._lock:
                    self._processes.pop(process.pid, None)
                pid_path.unlink(missing_ok=True)
            log.write(f"\n# opencompass exited {returncode}\n")
        return returncode

    def _queue(self, launches: Sequence[Launch]) -> None:
        """Record every launch as queued by this process, in its config's work dir, until it starts."""
        record = json.dumps({"host": socket.gethostname(), "pid": os.getpid()}) + "\n"
        for launch in launches:
            path = launch.config_work_dir / QUEUE_FILE
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, record)
            with self._lock:
                self._queued.add(path)

    def _unqueue(self, launch: Launch) -> None:
        """A launch started (or will not): no longer queued."""
        path = launch.config_work_dir / QUEUE_FILE
        with self._lock:
            if path not in self._queued:
                return
            self._queued.discard(path)
        path.unlink(missing_ok=True)

    def stop(self) -> None:
        """Stop launching; SIGTERM the process group of every running launch (ours only), SIGKILL it later."""
        self._stopping.set()
        self._signal_groups(signal.SIGTERM)
        timer = threading.Timer(self.kill_after, self._signal_groups, args=(signal.SIGKILL,))
        timer.daemon = True
        timer.start()

    def _signal_groups(self, signum: int) -> None:
        with self._lock:
            processes = list(self._processes.values())
        for process in processes:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signum)

    def run(self, launches: Sequence[Launch], progress: bool = True) -> list[Outcome]:
        """Run every launch (``max_parallel`` at a time) with a progress bar over configs (on a terminal only).

        Raises:
            KeyboardInterrupt: after stopping the running launches.
        """
        outcomes: list[Outcome] = []
        counts = {DONE: 0, INCOMPLETE: 0, FAILED: 0}
        bar = console.progress(  # on a terminal only
            total=len(launches), unit="config", desc="grid", show=progress and bool(launches), dynamic_ncols=True
        )
        pool = ThreadPoolExecutor(max_workers=self.options.max_parallel, thread_name_prefix="opencompass")
        pending: dict[Future, Launch] = {}
        try:
            self._queue(launches)
            for launch in launches:  # inside the try: a signal while submitting still stops what started
                pending[pool.submit(self.execute, launch)] = launch
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    launch = pending.pop(future)
                    returncode = future.result()
                    status = config_status(launch.run, self.options.work_dir)
                    outcomes.append(Outcome(launch, returncode, status))
                    state = status.state if status.state in counts else FAILED
                    counts[state] += 1
                    if status.state != DONE:
                        where = f"; see {status.log}" if status.log is not None else ""
                        logger.warning(
                            "{} {}{} ({})",
                            status.state,
                            launch.run.stem,
                            where,
                            status.detail or f"opencompass exited {returncode}",
                        )
                    bar.set_postfix({state: count for state, count in counts.items()}, refresh=False)
                    bar.update(1)
        except BaseException:
            self.stop()
            for future in pending:
                future.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            for launch in launches:  # those never started
                self._unqueue(launch)
            bar.close()
        return outcomes


def new_timestamp(clock: Callable[[], datetime] = datetime.now) -> str:
    """The current time as OpenCompass names run folders."""
    return clock().strftime(TIMESTAMP_FORMAT)
