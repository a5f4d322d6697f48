"""``gpassk view``: explore results in a local page, or export it as static files."""

from __future__ import annotations

import argparse

from gpassk_opencompass.cli import EXIT_OK, SUBCOMMANDS
from gpassk_opencompass.errors import InputError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "view",
        help=SUBCOMMANDS["view"],
        description="Serve a local, read-only page (127.0.0.1, until Ctrl-C; the URL is the first line printed) over "
        "results: the leaderboard, each run's stability map (one row per question, one cell per generation), every "
        "question with its answers and generations, two runs compared. PATH: a results file (gpassk score's output; "
        "put the input it was scored from right after it to see the texts), an OpenCompass output folder (a work "
        "dir, a grid's outputs). --export DIR writes the same page as static files instead. See docs/viewer.md.",
        epilog="examples: gpassk view scores.json generations.jsonl; gpassk view outputs/ --export site/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="results files (each optionally followed by its input) and OpenCompass output folders",
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: any free port)")
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--export", metavar="DIR", help="write the page and its data into DIR instead of serving")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.view import Viewer, check_export_folder, export, serve
    from gpassk_opencompass.view.server import DEFAULT_HOST

    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port}: a port is 0 (any free one) to 65535")
    if args.export is not None and (args.host is not None or args.port):
        raise InputError("--export writes files and serves nothing: leave out --host and --port")
    if args.export is not None:
        check_export_folder(args.export)
    with Viewer(args.paths) as viewer:
        if args.export is not None:
            print(export(viewer, args.export).describe(), flush=True)
            return EXIT_OK
        serve(viewer, args.host or DEFAULT_HOST, args.port)
    return EXIT_OK
