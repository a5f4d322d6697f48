"""``gpassk grid run`` / ``gpassk grid status``: a generated grid through OpenCompass's own runners.

gpassk grid run opencompass_configs/ -w outputs/ --max-parallel 4
gpassk grid run opencompass_configs/ -w outputs/ --slurm -p gpu -q auto --max-parallel 108
gpassk grid status opencompass_configs/ -w outputs/
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
from pathlib import Path

from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_NOT_DONE,
    EXIT_OK,
    EXIT_SIGNAL_BASE,
    EXIT_USAGE,
    SUBCOMMANDS,
    Resumable,
    exit_codes_epilog,
)
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid import launch as grid_launch
from gpassk_opencompass.grid import status as grid_status
from gpassk_opencompass.log import logger
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.render.console import grid_status_line, grid_summary

#: The exit code of each grid outcome.
EXIT_OF_OUTCOME = {
    grid_status.GridOutcome.DONE: EXIT_OK,
    grid_status.GridOutcome.INCOMPLETE: EXIT_INCOMPLETE,
    grid_status.GridOutcome.NOT_DONE: EXIT_NOT_DONE,
}
#: The exit codes of ``gpassk grid status``; ``gpassk grid run`` adds Ctrl-C and SIGTERM.
STATUS_CODES = (EXIT_OK, EXIT_NOT_DONE, EXIT_USAGE, EXIT_INCOMPLETE)
RUN_CODES = (*STATUS_CODES, EXIT_INTERRUPTED, EXIT_SIGNAL_BASE + signal.SIGTERM)


RUN_EPILOG = """
OpenCompass exits 0 even when a task fails, so success is read from each config's results file.
Each config X.py runs as `opencompass X.py -w WORK/X -r TIMESTAMP`; running the same command
again skips done configs and resumes the others (OpenCompass reuses finished predictions).

examples:
  gpassk grid run opencompass_configs/ -w outputs/ --dry-run       # print the commands
  gpassk grid run opencompass_configs/ -w outputs/ --max-parallel 4
  gpassk grid run opencompass_configs/ -w outputs/ --slurm -p gpu -q auto --max-parallel 108
  gpassk grid run opencompass_configs/ -w outputs/; echo "exit $?"   # 0 all done, 1 something failed
"""

STATUS_EPILOG = """
examples:
  gpassk grid status opencompass_configs/ -w outputs/
  gpassk grid status opencompass_configs/manifest.json -w outputs/ --json | jq '.[] | select(.state=="failed")'
"""


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "grid",
        help=SUBCOMMANDS["grid"],
        description="Launch every config of a grid written by save_opencompass_configs.py through "
        "OpenCompass itself (local runner, or its Slurm/DLC runners), and report per config: "
        "done, incomplete, running, queued, failed (with the log to read) or missing.",
    )
    actions = parser.add_subparsers(dest="grid_command", metavar="ACTION", required=True)

    run_parser = actions.add_parser(
        "run",
        help="launch every config that is not done",
        description="Launch every config of the grid that is not done: new ones, failed ones (resumed "
        "with -r), incomplete ones (re-judged); done, running and queued ones (another gpassk grid run's) are skipped.",
        epilog=exit_codes_epilog(RUN_CODES) + "\n" + RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _target_arguments(run_parser)
    run_parser.add_argument(
        "--max-parallel",
        type=int,
        default=1,
        metavar="N",
        help="opencompass launches running at once (default 1; with --slurm each "
        "launch waits on its srun jobs, so N can be the whole grid)",
    )
    run_parser.add_argument(
        "--max-num-workers",
        type=int,
        metavar="M",
        help="OpenCompass's --max-num-workers: tasks of one launch run at once",
    )
    cluster = run_parser.add_argument_group("clusters (OpenCompass's SlurmRunner / DLCRunner)")
    cluster.add_argument("--slurm", action="store_true", help="submit every task with srun")
    cluster.add_argument("-p", "--partition", metavar="PARTITION", help="Slurm partition (with --slurm)")
    cluster.add_argument(
        "-q",
        "--quotatype",
        metavar="QUOTA",
        help="srun --quotatype (clusters whose srun has it, e.g. reserved/spot/auto)",
    )
    cluster.add_argument("--qos", metavar="QOS", help="srun --qos (with --slurm)")
    cluster.add_argument("--dlc", action="store_true", help="run the tasks on Aliyun DLC")
    cluster.add_argument("--aliyun-cfg", metavar="FILE", help="OpenCompass's DLC settings (with --dlc)")
    cluster.add_argument("--retry", type=int, metavar="R", help="OpenCompass's --retry of failed Slurm/DLC tasks")
    run_parser.add_argument(
        "--opencompass",
        metavar="PATH",
        help="the opencompass executable (default: the one next to this Python, else on PATH)",
    )
    run_parser.add_argument(
        "--opencompass-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more argument for every opencompass launch (repeat; e.g. "
        "--opencompass-arg=--dump-eval-details --opencompass-arg=False)",
    )
    run_parser.add_argument(
        "--skip-data-check",
        action="store_true",
        help="do not check the benchmark data before launching (when the tasks' machines see data this one does not)",
    )
    run_parser.add_argument(
        "--dry-run", action="store_true", help="print the commands (a shell script) instead of running them"
    )
    run_parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    run_parser.set_defaults(func=run)

    status_parser = actions.add_parser(
        "status",
        help="done / incomplete / running / queued / failed (with its log) / missing, per config",
        description="Read each config's work dir and say where it stands. OpenCompass exits 0 when a "
        "task fails, so this reads results files and logs, not exit codes.",
        epilog=exit_codes_epilog(STATUS_CODES) + "\n" + STATUS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _target_arguments(status_parser)
    status_parser.add_argument("--json", action="store_true", help="print a JSON list instead of lines")
    status_parser.add_argument(
        "--all", action="store_true", help="also list done configs (default: only the others, then the summary)"
    )
    status_parser.set_defaults(func=status)
    return parser


def _target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="CONFIG_DIR_OR_MANIFEST",
        help="the folder save_opencompass_configs.py wrote, or its manifest.json",
    )
    parser.add_argument(
        "-w",
        "--work-dir",
        type=Path,
        default=Path("outputs"),
        metavar="WORK",
        help="where the runs go: config X.py runs in WORK/X/<timestamp>/ (default: outputs)",
    )


def _grid(args: argparse.Namespace) -> grid_status.Grid:
    grid = grid_status.load_grid(args.target)
    if args.work_dir.exists() and not args.work_dir.is_dir():
        raise InputError(f"-w {str(args.work_dir)!r} is a file; expected a folder for the runs")
    return grid


def _opencompass(path: str | None) -> str:
    if path is not None:
        found = shutil.which(path)
        if found is None:
            raise InputError(f"--opencompass {path!r} is not an executable")
        return found
    beside = Path(sys.executable).parent / "opencompass"
    found = str(beside) if os.access(beside, os.X_OK) else shutil.which("opencompass")
    if found is None:
        raise InputError(
            "no opencompass executable next to this Python or on PATH; "
            "pip install 'gpassk-opencompass[opencompass]' or pass --opencompass PATH"
        )
    return found


def _preflight(grid: grid_status.Grid, options: grid_launch.LaunchOptions, data: bool = True) -> None:
    """Every config's backend package, GPU and data, checked before anything starts (InputError otherwise)."""
    from gpassk_opencompass.plugin import preflight

    configs = [run.config for run in grid.runs]
    checks = preflight.check_configs(configs, local=options.local)
    problems = preflight.summarize_problems(checks) + (preflight.data_problems(configs) if data else [])
    if problems:
        raise InputError(
            "; ".join(problems)
            if len(problems) == 1
            else f"{len(problems)} reasons configs cannot run here: " + " | ".join(problems)
        )
    gpu_configs = [check.config for check in checks if check.need is not None and check.need.gpu]
    if gpu_configs and options.local and options.max_parallel > 1:
        raise InputError(
            f"--max-parallel {options.max_parallel} with {len(gpu_configs)} config(s) that need "
            f"GPUs (first: {gpu_configs[0]}) would put several models on the same GPUs: each "
            "local launch uses all of them; use --max-parallel 1 or --slurm"
        )


def run(args: argparse.Namespace) -> int:
    grid = _grid(args)
    options = grid_launch.LaunchOptions(
        work_dir=args.work_dir,
        opencompass=_opencompass(args.opencompass),
        max_parallel=args.max_parallel,
        slurm=args.slurm,
        partition=args.partition,
        quotatype=args.quotatype,
        qos=args.qos,
        dlc=args.dlc,
        aliyun_cfg=args.aliyun_cfg,
        max_num_workers=args.max_num_workers,
        retry=args.retry,
        extra=tuple(args.opencompass_arg),
    )
    grid_launch.validate_options(options)
    grid_launch.validate_cluster_names(grid.runs, options)
    if options.extra:
        from gpassk_opencompass.plugin.preflight import launch_settings

        grid_launch.refuse_overridden_settings(options, launch_settings)
    _preflight(grid, options, data=not args.skip_data_check)

    now = grid_launch.new_timestamp()
    statuses = grid_status.grid_status(grid, options.work_dir)
    launches, skipped = grid_launch.plan(statuses, options, now)
    environment = grid_launch.launch_environment(options)
    cleared = (
        f"inside Slurm job {grid_launch.slurm_job(os.environ)}: the launches run without the job's "
        "SLURM_*/SRUN_* variables, so each task is a job of its own (not a step of this one)"
    )
    if args.dry_run:
        if environment is not None:
            print(f"# {cleared}")
        for line in grid_launch.dry_run_lines(launches, skipped, now):
            print(line)
        print(
            f"# dry run: {len(launches)} launch(es), {len(skipped)} skipped; {grid_summary(statuses, grid_status.STATES)}"
        )
        return EXIT_OK
    if skipped:
        logger.info("skipping {} config(s) already done, running or queued by another gpassk grid run", len(skipped))
    if launches:
        runner = "local runner" if options.local else ("Slurm" if options.slurm else "DLC")
        logger.info(
            "launching {} config(s), {} at a time ({}); logs under {}/<config>/<timestamp>/",
            len(launches),
            options.max_parallel,
            runner,
            options.work_dir,
        )
    if environment is not None and launches:
        logger.info(cleared)
    args.resumable = Resumable("the running launches were stopped", after_write=False)  # on Ctrl-C or a signal
    grid_launch.Launcher(options, env=environment).run(launches, progress=not args.no_progress)
    final = grid_status.grid_status(grid, options.work_dir)
    _print_statuses(final, show_done=False)
    return EXIT_OF_OUTCOME[grid_status.outcome(final)]


def _print_statuses(statuses: list[grid_status.RunStatus], show_done: bool) -> None:
    for item in statuses:
        if show_done or item.state != grid_status.DONE:
            print(redact(grid_status_line(item)))
    print(grid_summary(statuses, grid_status.STATES))


def status(args: argparse.Namespace) -> int:
    grid = _grid(args)
    statuses = grid_status.grid_status(grid, args.work_dir)
    if args.json:
        print(redact(json.dumps([item.to_json() for item in statuses], indent=2, ensure_ascii=False)))
    else:
        _print_statuses(statuses, show_done=args.all)
    return EXIT_OF_OUTCOME[grid_status.outcome(statuses)]
