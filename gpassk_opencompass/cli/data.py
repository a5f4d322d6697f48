"""``gpassk data check``: is each benchmark's data where the loaders look, and does it read?

    gpassk data check                       # every benchmark of the catalog
    gpassk data check AIME2025 MATH500-L5   # just these

Exit codes (docs/exit-codes.md): 0 every benchmark asked for is usable (count warnings
allowed), 1 something is missing or unreadable, 2 an unknown benchmark name.
"""

from __future__ import annotations

import argparse

from gpassk_opencompass.catalog import BENCHMARKS
from gpassk_opencompass.cli import EXIT_NOT_DONE, EXIT_OK, SUBCOMMANDS


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "data",
        help=SUBCOMMANDS["data"],
        description="Benchmark data: where OpenCompass looks for it and whether our loaders can read it. "
        "See docs/data.md.",
        epilog="example:\n  gpassk data check AIME2025",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="say, per benchmark, where the data were looked for, what was found and what is missing",
        description="For each benchmark: the places looked at in OpenCompass's order (DATASET_SOURCE=HF -> "
        "the Hugging Face id; $COMPASS_DATA_CACHE; ~/.cache/opencompass), the files found, "
        "their questions per split and language read with the loaders' own code, and the "
        "published question count. Nothing is downloaded. Exit 0 when everything asked for "
        "is usable, 1 when something is missing, 2 for an unknown benchmark.",
        epilog="examples:\n"
        "  gpassk data check                              # every benchmark of the leaderboard\n"
        "  gpassk data check AIME2025 MATH500-L5\n"
        "  COMPASS_DATA_CACHE=/data/oc gpassk data check LiveMathBench-202412\n"
        "  DATASET_SOURCE=HF gpassk data check LiveMathBench-202505   # the Hub ids it would load",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "benchmarks",
        nargs="*",
        metavar="BENCHMARK",
        help="benchmark names, matched without regard to case and separators (default: all): "
        + ", ".join(benchmark.name for benchmark in BENCHMARKS),
    )
    check.add_argument("--no-progress", action="store_true", help="no progress bar")
    check.set_defaults(func=run, log_level="WARNING")
    return parser


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.console import progress
    from gpassk_opencompass.plugin.data_check import check_benchmark, check_names, environment_note
    from gpassk_opencompass.render.console import data_check_report

    names = check_names(args.benchmarks)  # InputError (exit 2) before anything is read
    checks = [
        check_benchmark(name)
        for name in progress(names, desc="checking data", unit="benchmark", show=not args.no_progress)
    ]
    print(data_check_report(checks, environment_note()))
    return EXIT_OK if all(check.usable for check in checks) else EXIT_NOT_DONE
