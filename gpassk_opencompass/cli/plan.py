"""``gpassk plan``: from a pilot, the interval half-width to expect per metric, and the n for a target."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpassk_opencompass import defaults
from gpassk_opencompass.cli import EXIT_OK, SUBCOMMANDS, AddUp, add_k_option, add_thresholds_option, typed_as
from gpassk_opencompass.curtailed import DEFAULT_RULE, RULES, Curtailed


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "plan",
        help=SUBCOMMANDS["plan"],
        description="From a pilot (any results file with per-question details), print the expected "
        "interval half-width (percentage points) of every G-Pass@k_tau and mG-Pass@k for each "
        "planned n (and question count), and with --target the smallest n that reaches it -- so "
        "the GPU budget is decided before the run. --calibration-plot checks the plan against a "
        "simulation and draws planned vs simulated half-width. --curtail N1:N[:RULE] plans a curtailed "
        "design (N1 generations per question, N for those its rule does not stop): the generations it saves "
        "and each metric's width against a fixed n = N, with a warning for a metric it makes noisier.",
        epilog="example: gpassk plan pilot/results/m/aime.json --n 16 32 48 96 --target 2.0 "
        "--calibration-plot plan.png\n"
        "         gpassk plan pilot/results/m/aime.json --curtail 16:48:all-wrong-or-right",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("pilot", type=Path, metavar="PILOT", help="the pilot's results file")
    parser.add_argument(
        "--n",
        type=int,
        nargs="+",
        action=AddUp,
        metavar="N",
        help="planned generations per question (required unless --curtail gives N)",
    )
    parser.add_argument(
        "--questions",
        type=int,
        nargs="+",
        action=AddUp,
        metavar="M",
        help="planned question counts (default: the pilot's)",
    )
    parser.add_argument(
        "--target",
        type=float,
        metavar="POINTS",
        help="target half-width in percentage points: print the smallest n per metric",
    )
    add_k_option(parser, help="k values (default: the pilot's)")
    add_thresholds_option(parser, None, help="tau values (default: the pilot's)")
    parser.add_argument("--level", type=float, default=defaults.CI, help="interval level (default %(default)s)")
    parser.add_argument(
        "--fixed-questions",
        action="store_true",
        help="plan for this fixed question set (generation noise only; the Bayesian "
        "interval's view) instead of questions as a sample (the bootstrap's view)",
    )
    parser.add_argument(
        "--calibration-plot",
        type=Path,
        metavar="FILE.png",
        help="simulate every planned row and plot planned vs simulated half-width",
    )
    parser.add_argument(
        "--replications",
        type=int,
        default=defaults.N_CALIBRATION,
        metavar="R",
        help="simulated runs per row for the calibration (default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation (default %(default)s)")
    parser.add_argument(
        "--curtail",
        metavar="N1:N[:RULE]",
        help="plan a curtailed two-stage design against a fixed n = N: N1 generations per question, N for those "
        f"whose stage 1 the rule does not stop ({', '.join(RULES)}; default {DEFAULT_RULE})",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full plan as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write the plan as Markdown")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.analysis.planning import plan

    design = Curtailed.parse(args.curtail) if args.curtail is not None else None
    with typed_as({"level": "--level", "tau": "--thresholds", "thresholds": "--thresholds"}):
        text = plan(
            args.pilot,
            args.n,
            questions=args.questions,
            target=args.target,
            k=args.k,
            thresholds=args.thresholds,
            level=args.level,
            include_question_sampling=not args.fixed_questions,
            calibration_png=args.calibration_plot,
            replications=args.replications,
            seed=args.seed,
            json_path=args.json,
            markdown_path=args.markdown,
            design=design,
        )
    sys.stdout.write(text)
    return EXIT_OK
