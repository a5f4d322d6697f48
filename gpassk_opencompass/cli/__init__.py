"""The ``gpassk`` command line: argument parsing only, the work is in the package.

Each subcommand is a module of this package exposing ``add_parser(subparsers)``;
the parser it registers carries ``func=run`` where ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from gpassk_opencompass import __version__

SUBCOMMANDS = ("calc", "score", "leaderboard", "grid", "data")


class UsageError(Exception):
    """A user mistake: printed as one line, exit code 2, no traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpassk",
        description="G-Pass@k: measure whether an LLM solves a problem, and whether it does so stably.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        import_module(f"{__name__}.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (UsageError, ValueError) as error:
        print(f"gpassk {args.command}: error: {error}", file=sys.stderr)
        return 2
