"""``gpassk calc``: G-Pass@k_tau and mG-Pass@k for one question, as a table."""

from __future__ import annotations

import argparse
import json

from gpassk_opencompass.cli import EXIT_OK, SUBCOMMANDS, add_k_option, add_thresholds_option
from gpassk_opencompass.metrics import metric_key, mg_metric_key, summarize


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "calc",
        help=SUBCOMMANDS["calc"],
        description="Print G-Pass@k_tau (one row per tau) and mG-Pass@k for a single question.",
        epilog="example: gpassk calc --n 48 --c 30 --k 4 8 16",
    )
    parser.add_argument("--n", type=int, required=True, help="generations for the question")
    parser.add_argument("--c", type=int, required=True, help="how many of them are correct")
    add_k_option(parser, required=True)
    add_thresholds_option(parser)
    parser.add_argument("--digits", type=int, default=6, help="decimals shown (default: %(default)s)")
    parser.add_argument("--percent", action="store_true", help="show percentages, as OpenCompass reports")
    parser.add_argument("--json", action="store_true", help="print full-precision JSON instead of a table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = summarize([args.c], args.n, k=args.k, thresholds=args.thresholds)  # InputError names a bad value
    scale = 1.0 if args.percent else 0.01
    if args.json:
        print(json.dumps({key: value * scale for key, value in result.items()}, indent=2))
        return EXIT_OK
    print(
        format_table(
            result, args.k, args.thresholds, scale, args.digits, title=f"n={args.n} generations, c={args.c} correct"
        )
    )
    return EXIT_OK


def format_table(result: dict[str, float], ks, thresholds, scale: float, digits: int, title: str) -> str:
    """One row per threshold plus an mG-Pass row, one column per k.

    >>> print(format_table({"G-Pass@4_0.5": 71.5, "mG-Pass@4": 16.2}, [4], [0.5], 0.01, 3, "t"))
    t
    metric         k=4
    G-Pass@k_0.5   0.715
    mG-Pass@k      0.162
    """
    rows = [(f"G-Pass@k_{float(tau)}", [result[metric_key(k, tau)] for k in ks]) for tau in thresholds]
    rows.append(("mG-Pass@k", [result[mg_metric_key(k)] for k in ks]))
    cells = [[f"{value * scale:.{digits}f}" for value in values] for _, values in rows]
    width = max(len(label) for label, _ in rows) + 3
    column = max(len(f"k={k}") for k in ks)
    column = max([column] + [len(cell) for row in cells for cell in row]) + 2
    lines = [title, "metric".ljust(width) + "".join(f"k={k}".ljust(column) for k in ks).rstrip()]
    for (label, _), row in zip(rows, cells):
        lines.append(label.ljust(width) + "".join(cell.ljust(column) for cell in row).rstrip())
    return "\n".join(lines)
