"""``gpassk compare``: is run A better than run B on the same questions?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_opencompass import defaults
from gpassk_opencompass.cli import EXIT_OK, SUBCOMMANDS, add_match_by_option, typed_as


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help=SUBCOMMANDS["compare"],
        description="Compare two runs (two models, or one model under two settings) on the same questions: "
        "for accuracy, every G-Pass@k_tau and mG-Pass@k, the difference A - B, its paired "
        "bootstrap interval over questions and a two-sided sign-flip permutation p-value. Runs "
        "that do not share their questions, n or k, or are of different benchmarks, are refused "
        "(exit 2); a run with unresolved verdicts is refused with exit 3. Inputs are results JSON "
        "files (gpassk score output or an OpenCompass run's results/<model>/<dataset>.json).",
        epilog="example: gpassk compare outputs/run/results/strong/aime.json outputs/run/results/weak/aime.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_a", type=Path, metavar="RUN_A", help="run A's results file")
    parser.add_argument("run_b", type=Path, metavar="RUN_B", help="run B's results file (same questions, n, k)")
    parser.add_argument(
        "--ci",
        type=float,
        default=defaults.CI,
        metavar="LEVEL",
        help="level of the bootstrap interval (default %(default)s)",
    )
    parser.add_argument(
        "--n-boot",
        type=int,
        default=defaults.N_BOOT_PAIRED,
        metavar="N",
        help="bootstrap resamples of the questions (default %(default)s)",
    )
    parser.add_argument(
        "--n-perm",
        type=int,
        default=defaults.N_PERM,
        metavar="N",
        help=f"random sign flips when more than {defaults.EXACT_MAX} questions differ (default %(default)s; fewer are "
        "enumerated exactly)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the bootstrap and sign flips (default %(default)s)"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the report as Markdown")
    add_match_by_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.analysis.comparison import compare

    with typed_as({"ci": "--ci", "n_boot": "--n-boot", "n_perm": "--n-perm", "seed": "--seed"}):
        text = compare(
            args.run_a,
            args.run_b,
            ci=args.ci,
            n_boot=args.n_boot,
            n_perm=args.n_perm,
            seed=args.seed,
            json_path=args.json,
            markdown_path=args.markdown,
            match_by=args.match_by,
        )
    sys.stdout.write(text)
    return EXIT_OK
