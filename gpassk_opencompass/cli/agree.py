"""``gpassk agree``: how much two judges agree on the same generations, and where they differ."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_opencompass import defaults
from gpassk_opencompass.cli import EXIT_INCOMPLETE, EXIT_OK, SUBCOMMANDS, add_match_by_option, typed_as
from gpassk_opencompass.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "agree",
        help=SUBCOMMANDS["agree"],
        description="Compare two judges on the same generations: two results files of one run judged twice "
        "(rule vs LLM, two judge models, two prompt versions), or ONE cascade results file (its "
        "rule judge vs its judge model, on the items the rule judge did not confirm). Prints the "
        "2x2 table, agreement, Cohen's kappa, every metric under each judge and the disagreeing "
        "items. Inputs are results JSON files (gpassk score output or an OpenCompass run's "
        "results/<model>/<dataset>.json), not run folders. Exit 3 when a judge left items "
        "unresolved (they are counted, never scored as wrong).",
        epilog="example: gpassk agree rule/results/m/aime.json llm/results/m/aime.json --html agree.html\n"
        "         gpassk agree cascade/results/m/aime.json --json agree.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "results_a", type=Path, metavar="RESULTS_A", help="judge A's results file (or one cascade results file)"
    )
    parser.add_argument(
        "results_b", type=Path, nargs="?", metavar="RESULTS_B", help="judge B's results file of the same generations"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full report as JSON")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the full report as a self-contained HTML page")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the full report as Markdown")
    parser.add_argument(
        "--limit",
        type=int,
        default=50,
        metavar="N",
        help="disagreeing items printed (default %(default)s; the files list all)",
    )
    parser.add_argument(
        "--ci", type=float, default=defaults.CI, metavar="LEVEL", help="level of kappa's interval (default %(default)s)"
    )
    add_match_by_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.analysis.agreement import agree

    if args.limit < 0:
        raise InputError(f"--limit must be >= 0; got {args.limit}")
    with typed_as({"ci": "--ci"}):
        answer = agree(
            args.results_a,
            args.results_b,
            ci=args.ci,
            json_path=args.json,
            html_path=args.html,
            markdown_path=args.markdown,
            match_by=args.match_by,
            limit=args.limit,
        )
    sys.stdout.write(answer.text)
    return EXIT_OK if answer.complete else EXIT_INCOMPLETE
