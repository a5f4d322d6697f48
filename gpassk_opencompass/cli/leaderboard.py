"""``gpassk leaderboard``: finished OpenCompass runs → the LiveMathBench leaderboard.

    gpassk leaderboard outputs/ -o board.md -o board.json -o board.html --plots plots/ --compare-published
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from loguru import logger

from gpassk_opencompass.cli import UsageError
from gpassk_opencompass.files import write_text_atomic
from gpassk_opencompass.leaderboard import (
    DEFAULT_TOLERANCE,
    FORMATS,
    build_leaderboard,
    collect_runs,
    compare_with_published,
    format_for_path,
    leaderboard_columns,
    load_published,
)
from gpassk_opencompass.leaderboard.table import LEADERBOARD_THRESHOLDS
from gpassk_opencompass.redaction import redact

#: Exit code when a wanted run was left out for unresolved verdicts (the cross-command contract).
INCOMPLETE_EXIT = 3


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "leaderboard",
        help="build the LiveMathBench leaderboard (Markdown, CSV, JSON, HTML, plots) from OpenCompass runs",
        description="Read finished OpenCompass runs (results, saved configs, the generator's "
                    "manifest.json) and write one table per benchmark: Greedy, G-Pass@k_τ, "
                    "mG-Pass@k, sorted by mG-Pass@k. Skipped or doubtful results are reported "
                    "on stderr; the rest still make a table. Exit 3 when a run was left out for being "
                    "incomplete (see --allow-unresolved).")
    parser.add_argument("outputs", nargs="+", type=Path, metavar="OUTPUTS",
                        help="OpenCompass work dirs (-w folders, single outputs/<timestamp> runs, "
                             "or folders holding them)")
    parser.add_argument("--k", type=int, default=16, help="k of the G-Pass@k columns (default 16)")
    parser.add_argument("--thresholds", type=float, nargs="+", default=list(LEADERBOARD_THRESHOLDS),
                        metavar="TAU", help="τ of the G-Pass@k_τ columns (default 0.5 0.75 1.0)")
    parser.add_argument("--benchmarks", nargs="+", metavar="NAME",
                        help="only these benchmarks, in this order (canonical names)")
    parser.add_argument("--temperature", type=float, metavar="T",
                        help="only sampled runs at this temperature (default: all; a model sampled at "
                             "several temperatures gets a row per temperature)")
    parser.add_argument("--format", choices=sorted(FORMATS),
                        help="output format (default: from the --output suffix, else md)")
    parser.add_argument("-o", "--output", type=Path, action="append", default=[], metavar="FILE",
                        help="write here instead of stdout; repeat for several formats "
                             "(.md .csv .json .html)")
    parser.add_argument("--plots", type=Path, metavar="DIR",
                        help="also write PNG plots here (G-Pass@k_τ vs τ per benchmark; Greedy vs mG-Pass@k)")
    parser.add_argument("--ci", action="store_true",
                        help="show bootstrap confidence intervals where the results have them")
    parser.add_argument("--compare-published", action="store_true",
                        help="add a Δ column per metric against the published GPassK README figures")
    parser.add_argument("--published", type=Path, metavar="FILE",
                        help="compare with this JSON ({model: {metric: {benchmark: value}}}) instead "
                             "of the shipped figures; implies --compare-published")
    parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, metavar="POINTS",
                        help=f"flag Δ beyond this many points (default {DEFAULT_TOLERANCE:g})")
    parser.add_argument("--allow-unresolved", action="store_true",
                        help="tabulate a run with unresolved verdicts (the judge failed for some generations) "
                             "when no complete run of it exists; its values are marked '*' (unresolved counted "
                             "as wrong) with the bounds in a footnote. Without it such a run is left out and "
                             "the command exits 3")
    parser.add_argument("--manifest", type=Path, action="append", default=[], metavar="FILE",
                        help="a generator manifest.json describing the runs (those under OUTPUTS are "
                             "found automatically)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    logger.remove()
    logger.add(sys.stderr, level="INFO", format="<level>{level}</level>: {message}")
    targets = _targets(args)
    leaderboard_columns(args.k, args.thresholds)  # validates k and τ before any file is read
    if args.tolerance < 0:
        raise UsageError(f"--tolerance must be >= 0, got {args.tolerance:g}")
    published = None
    if args.compare_published or args.published:
        published = load_published(args.published)

    collection = collect_runs(args.outputs, args.manifest)
    board = build_leaderboard(collection.runs, k=args.k, thresholds=args.thresholds,
                              benchmarks=args.benchmarks, temperature=args.temperature,
                              notices=collection.notices, allow_unresolved=args.allow_unresolved)
    if published is not None:
        board = compare_with_published(board, published, args.tolerance)
    for notice in board.notices:
        logger.warning(redact(notice.message))
    incomplete = len(board.left_out_incomplete)
    if not board.tables:
        if incomplete:
            logger.error(f"no leaderboard rows: {incomplete} incomplete run(s) left out (see above); "
                         "rerun them to resume, or pass --allow-unresolved")
            return INCOMPLETE_EXIT
        raise ValueError(f"no leaderboard rows from {len(collection.runs)} usable results file(s); "
                         "see the warnings above")
    rows = sum(len(table.rows) for table in board.tables)
    logger.info(f"{rows} row(s) on {len(board.tables)} benchmark(s) from {len(collection.runs)} "
                f"results file(s)")

    for path, fmt in targets:
        text = FORMATS[fmt](board, intervals=args.ci)
        text = text if text.endswith("\n") else text + "\n"
        if path is None:
            sys.stdout.write(text)
        else:
            write_text_atomic(path, text)
            logger.info(redact(f"wrote {path}"))
    if args.plots is not None:
        from gpassk_opencompass.leaderboard.plots import write_plots  # matplotlib only when asked

        for path in write_plots(board, args.plots):
            logger.info(redact(f"wrote {path}"))
    if incomplete:
        logger.error(f"incomplete: {incomplete} run(s) left out for unresolved verdicts (see above); "
                     "rerun them to resume, or pass --allow-unresolved")
        return INCOMPLETE_EXIT
    return 0


def _targets(args: argparse.Namespace) -> list[tuple[Path | None, str]]:
    """(path or None for stdout, format) for every output, checked before any work."""
    if not args.output:
        return [(None, args.format or "md")]
    if args.format and len(args.output) > 1:
        raise UsageError("--format applies to a single --output; with several, each file's "
                         "suffix gives its format")
    targets = []
    for path in args.output:
        fmt = args.format or format_for_path(path)
        if not path.parent.is_dir():
            raise UsageError(f"cannot write {str(path)!r}: folder {str(path.parent)!r} does not exist")
        targets.append((path, fmt))
    return targets
