"""``gpassk calc``: G-Pass@k_tau and mG-Pass@k for one question, as a table."""

from __future__ import annotations

import argparse
import json

from gpassk_opencompass.checks import non_negative_int
from gpassk_opencompass.cli import EXIT_OK, SUBCOMMANDS, add_k_option, add_thresholds_option, typed_as
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.metrics import summarize
from gpassk_opencompass.render.console import metric_table


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "calc",
        help=SUBCOMMANDS["calc"],
        description="Print G-Pass@k_tau (one row per tau) and mG-Pass@k for a single question.",
        epilog="examples:\n  gpassk calc --n 48 --c 30 --k 4 8 16\n  gpassk calc --n 48 --c 3 --k 16 --curtail 16:48",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--n", type=int, required=True, help="generations for the question")
    parser.add_argument("--c", type=int, required=True, help="how many of them are correct")
    add_k_option(parser, required=True)
    add_thresholds_option(parser)
    parser.add_argument("--digits", type=int, default=6, help="decimals shown (default: %(default)s)")
    parser.add_argument("--percent", action="store_true", help="show percentages, as OpenCompass reports")
    parser.add_argument("--json", action="store_true", help="print full-precision JSON instead of a table")
    parser.add_argument(
        "--curtail",
        metavar="N1:N[:RULE]",
        help="the question was drawn under a curtailed two-stage design (--n is then N1 if it stopped, else N): "
        "the design's unbiased estimate, not the fixed-n formula",
    )
    parser.set_defaults(func=run)


#: The parameters ``gpassk calc``'s options become, by the option the user typed (:func:`~gpassk_opencompass.cli.typed_as`).
OPTIONS = {"n": "--n", "c": "--c", "k": "--k", "ks": "--k", "tau": "--thresholds", "thresholds": "--thresholds"}


def run(args: argparse.Namespace) -> int:
    design = None if args.curtail is None else Curtailed.parse(args.curtail)
    non_negative_int(args.digits, "--digits")
    # an InputError names a bad value by its option (under a design: an outcome it cannot produce)
    with typed_as(OPTIONS):
        result = summarize([args.c], args.n, k=args.k, thresholds=args.thresholds, design=design)
    scale = 1.0 if args.percent else 0.01
    if args.json:
        print(json.dumps({key: value * scale for key, value in result.items()}, indent=2))
        return EXIT_OK
    print(
        metric_table(
            result,
            args.k,
            args.thresholds,
            scale,
            args.digits,
            title=f"n={args.n} generations, c={args.c} correct" + (f", curtailed {design}" if design else ""),
        )
    )
    return EXIT_OK
