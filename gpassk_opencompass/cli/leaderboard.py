"""``gpassk leaderboard``: finished OpenCompass runs → the LiveMathBench leaderboard.

gpassk leaderboard outputs/ -o board.md -o board.json -o board.html --plots plots/ --compare-published
gpassk leaderboard outputs/ --significance          # rank intervals, ≈ between rows whose order is not significant
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpassk_opencompass import defaults
from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_NOT_DONE,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_WRITE_FAILED,
    SUBCOMMANDS,
    AddUp,
    Once,
    add_thresholds_option,
    exit_codes_epilog,
    typed_as,
)
from gpassk_opencompass.leaderboard.pipeline import (
    FORMATS,
    LeaderboardOutcome,
    LeaderboardRequest,
    check_request,
    make_leaderboard,
)
from gpassk_opencompass.leaderboard.published import DEFAULT_TOLERANCE
from gpassk_opencompass.leaderboard.ranking import CORRECTIONS
from gpassk_opencompass.leaderboard.table import LEADERBOARD_THRESHOLDS

EXAMPLES = """examples:
  gpassk leaderboard outputs/                               # Markdown on stdout, k = the largest the runs share
  gpassk leaderboard outputs/ -o board.md -o board.json -o board.html --plots plots/
  gpassk leaderboard outputs/ --k 8 --compare-published     # Δ against the published figures
  gpassk leaderboard outputs/ --significance 0.95 --resamples 2000 --seed 0
  gpassk leaderboard outputs/ --manifest opencompass_configs/manifest.json

Full reference: docs/leaderboard.md"""

#: The exit code of each outcome (1: runs the manifest lists have no results, or results whose values cannot be
#: believed were left out, see --allow-inconsistent; 3: a run left out for unresolved verdicts, see --allow-unresolved).
EXIT_OF_OUTCOME = {
    LeaderboardOutcome.COMPLETE: EXIT_OK,
    LeaderboardOutcome.MISSING: EXIT_NOT_DONE,
    LeaderboardOutcome.INCOMPLETE: EXIT_INCOMPLETE,
}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "leaderboard",
        help=SUBCOMMANDS["leaderboard"],
        description="Read finished OpenCompass runs (results, saved configs, the generator's "
        "manifest.json) and write one table per benchmark: Greedy, G-Pass@k_τ, "
        "mG-Pass@k, sorted by mG-Pass@k. Skipped or doubtful results are reported "
        "on stderr; the rest still make a table.",
        epilog=EXAMPLES
        + "\n\n"
        + exit_codes_epilog((EXIT_OK, EXIT_NOT_DONE, EXIT_USAGE, EXIT_INCOMPLETE, EXIT_WRITE_FAILED)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "outputs",
        nargs="+",
        type=Path,
        metavar="OUTPUTS",
        help="OpenCompass work dirs (-w folders, single outputs/<timestamp> runs, or folders holding them)",
    )
    parser.add_argument(
        "--k",
        type=int,
        action=Once,
        help="k of the G-Pass@k columns (default: the largest k the sampled runs share, named on stderr)",
    )
    add_thresholds_option(parser, LEADERBOARD_THRESHOLDS, help="τ of the G-Pass@k_τ columns (default 0.5 0.75 1.0)")
    parser.add_argument(
        "--benchmarks",
        nargs="+",
        action=AddUp,
        metavar="NAME",
        help="only these benchmarks, in this order (names, matched without regard to case and separators)",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="only sampled runs at this temperature (default: all; a model sampled at "
        "several temperatures gets a row per temperature)",
    )
    parser.add_argument(
        "--format", choices=sorted(FORMATS), help="output format (default: from the --output suffix, else md)"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="write here instead of stdout; repeat for several formats (.md .csv .json .html)",
    )
    parser.add_argument(
        "--plots",
        type=Path,
        metavar="DIR",
        help="also write PNG plots here (G-Pass@k_τ vs τ per benchmark; Greedy vs mG-Pass@k)",
    )
    parser.add_argument(
        "--explorer",
        metavar="DIR_OR_URL",
        help="link each row of the HTML page to its run in this `gpassk view --export` folder (or its http(s) "
        "address): DIR/index.html#/run/RID, relative to the page",
    )
    parser.add_argument(
        "--ci", action="store_true", help="show bootstrap confidence intervals where the results have them"
    )
    parser.add_argument(
        "--compare-published",
        action="store_true",
        help="add a Δ column per metric against the published GPassK README figures (filled for published models only)",
    )
    parser.add_argument(
        "--published",
        type=Path,
        metavar="FILE",
        help="compare with this JSON ({model: {metric: {benchmark: value}}}) instead "
        "of the shipped figures; implies --compare-published",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        metavar="POINTS",
        help=f"flag Δ beyond this many points (default {DEFAULT_TOLERANCE:g})",
    )
    parser.add_argument(
        "--allow-unresolved",
        action="store_true",
        help="tabulate a run with unresolved verdicts (the judge failed for some generations) "
        "when no complete run of it exists; its values are marked '*' (unresolved counted "
        "as wrong) with the bounds in a footnote. Without it such a run is left out and "
        "the command exits 3",
    )
    parser.add_argument(
        "--allow-inconsistent",
        action="store_true",
        help="tabulate a run whose results cannot be believed (a percentage outside [0, 100], "
        "impossible counts, metrics its own per-question details do not reproduce, as "
        "after a hand edit); its row is marked '†' with the reasons in a footnote. Without "
        "it such a run is left out with a warning naming the file and the command exits 1",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="the generator manifest.json describing the runs; overrides the search (a "
        "manifest.json under OUTPUTS, else beside the configs gpassk grid run launched)",
    )
    parser.add_argument(
        "--sort-by",
        metavar="COLUMN",
        help="sort the rows by this column (default mG-Pass@k); --significance ranks by it",
    )
    parser.add_argument(
        "--significance",
        type=float,
        nargs="?",
        const=defaults.CI,
        metavar="LEVEL",
        help="add a Rank column with each row's rank interval under resampling the questions, "
        f"and mark ≈ where a row's order against the next is not significant (LEVEL: "
        f"confidence, default {defaults.CI:g}); needs per-question details in the results",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction of the adjacent-row tests (default holm)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=defaults.N_BOOT_PAIRED,
        metavar="N",
        help=f"bootstrap resamples for --significance (default {defaults.N_BOOT_PAIRED})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resamples (default 0)")
    parser.set_defaults(func=run)
    return parser


#: The parameters ``gpassk leaderboard``'s options become, as its checks name them, by the option the user typed.
OPTIONS = {"k": "--k", "threshold τ": "--thresholds", "the significance level": "--significance"}


def run(args: argparse.Namespace) -> int:
    request = LeaderboardRequest(
        outputs=tuple(args.outputs),
        files=tuple(args.output),
        fmt=args.format,
        k=args.k,
        thresholds=tuple(args.thresholds),
        benchmarks=None if args.benchmarks is None else tuple(args.benchmarks),
        temperature=args.temperature,
        intervals=args.ci,
        compare_published=args.compare_published,
        published=args.published,
        tolerance=args.tolerance,
        allow_unresolved=args.allow_unresolved,
        allow_inconsistent=args.allow_inconsistent,
        manifests=tuple(args.manifest),
        plots=args.plots,
        sort_by=args.sort_by,
        significance=args.significance,
        correction=args.correction,
        resamples=args.resamples,
        seed=args.seed,
        explorer=args.explorer,
    )
    with typed_as(OPTIONS):  # the options' own checks, before anything is read, naming them as typed
        check_request(request)
    return EXIT_OF_OUTCOME[make_leaderboard(request)]
