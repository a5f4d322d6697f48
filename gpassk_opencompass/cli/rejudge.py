"""``gpassk rejudge``: judge a finished OpenCompass run's saved predictions again, without generating.

Parses the arguments, calls :func:`gpassk_opencompass.plugin.rejudge.rejudge_run`
and maps its outcome to an exit code.
"""

from __future__ import annotations

import argparse

from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_JUDGE_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    SUBCOMMANDS,
    add_k_option,
    exit_codes_epilog,
    stopped,
)
from gpassk_opencompass.cli.score import (
    add_judge_options,
    add_metric_options,
    judge_options,
    resume_hint,
    say,
)

EXAMPLES = """examples:
  gpassk rejudge outputs/20250213_101500 --judge llm --judge-url http://10.0.0.5:8000/v1 --judge-model LiveMath-Judge
  gpassk rejudge outputs/20250213_101500/predictions/qwen_t0-7 --judge rule --k 4 8 --interval both
  gpassk rejudge outputs/20250213_101500 --judge cascade --judge-url http://10.0.0.5:8000/v1 \\
      --judge-model LiveMath-Judge --output outputs/20250213_101500_cascade

RUN is a finished OpenCompass run (outputs/<timestamp>), its predictions/ folder, one predictions/<model_abbr>
folder or one predictions file. Its saved predictions are judged again with GPassKEvaluator through OpenCompass's
own eval task (k and n from the run's saved config; --k overrides k), and the results are written as an
OpenCompass run in --output (default: <run>_rejudged), which `gpassk leaderboard` reads. The dataset must be
loadable as for the original run (same COMPASS_DATA_CACHE or DATASET_SOURCE). Rerunning resumes: complete
results are kept, and only the verdicts missing from an incomplete one are asked again.
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "rejudge",
        help=SUBCOMMANDS["rejudge"],
        description="Re-judge a finished OpenCompass run with GPassKEvaluator, without generating again.",
        epilog=EXAMPLES + "\n" + exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run", metavar="RUN", help="an OpenCompass run, predictions folder or predictions file")
    add_k_option(parser, help="replace the run's k (each <= n)")
    parser.add_argument("--output", metavar="DIR", help="the run directory to write (default: <RUN>_rejudged)")
    add_judge_options(parser)
    add_metric_options(parser)
    parser.set_defaults(func=run)


def evaluator_keywords(args: argparse.Namespace) -> dict:
    """GPassKEvaluator keywords of the options (the judge URL/model mapped by ``judges.types.judge_endpoint``)."""
    from gpassk_opencompass.judges.types import judge_endpoint

    options = judge_options(args)
    endpoint = judge_endpoint(judge_url=options.pop("judge_url"), judge_model=options.pop("judge_model"))
    return dict(
        judge=args.judge,
        url=list(endpoint["urls"]),
        model_name=endpoint["model"],
        **options,
        thresholds=list(args.thresholds),
        ci=args.ci,
        n_boot=args.bootstrap,
        seed=args.seed,
        allow_unresolved=args.allow_unresolved,
        interval=args.interval,
        prior=list(args.prior),
    )


def run(args: argparse.Namespace) -> int:
    from gpassk_opencompass.errors import InputError, clause
    from gpassk_opencompass.judges import JudgeError
    from gpassk_opencompass.plugin.rejudge import rejudge_run
    from gpassk_opencompass.redaction import redact
    from gpassk_opencompass.render.score_report import format_report, unresolved_summary

    kept = "every verdict that arrived is kept under the output run's results/"
    try:
        rejudged = rejudge_run(args.run, evaluator_keywords(args), output_dir=args.output, ks=args.k)
    except InputError as error:
        say(f"gpassk rejudge: error: {error}")
        return EXIT_USAGE
    except JudgeError as error:  # one that stopped mid-run already says where its verdicts are kept
        hint = "" if error.arrived else f"; {kept}; run the same command again to resume"
        say(f"gpassk rejudge: the judge failed: {clause(error) if hint else error}{hint}")
        return EXIT_JUDGE_FAILED
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM/SIGHUP (stop_on_signals)
        what, code = stopped(stop)
        say(f"gpassk rejudge: {what}; {kept}; run the same command again to resume")
        return code
    incomplete = False
    for one in rejudged:
        print(f"== {one.target.model_abbr} x {one.target.dataset_abbr}: {one.path}")
        if not one.results.complete:
            incomplete = True
            say(
                unresolved_summary(
                    one.results, resume=resume_hint(one.results.gpassk.judge or args.judge, kept, args.rule_timeout)
                )
            )
        print(redact(format_report(one.results)))
    return EXIT_INCOMPLETE if incomplete else EXIT_OK
