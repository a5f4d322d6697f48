"""``gpassk rejudge``: judge a finished OpenCompass run's saved predictions again, without generating.

Parses the arguments and calls :func:`gpassk_opencompass.plugin.rejudge.rejudge_run`;
an exception it raises is mapped to its exit code by :func:`gpassk_opencompass.cli.ending`.
"""

from __future__ import annotations

import argparse

from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_OK,
    SHARED_OPTIONS,
    SUBCOMMANDS,
    Resumable,
    add_k_option,
    exit_codes_epilog,
    typed_as,
)
from gpassk_opencompass.cli.score import (
    add_judge_options,
    add_metric_options,
    judge_options,
    resume_hint,
    say,
    scoring_request,
)
from gpassk_opencompass.redaction import redact

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
    # deferred: OpenCompass and the scoring stack only when re-judging, not for `gpassk rejudge --help`
    from gpassk_opencompass.plugin.rejudge import rejudge_run
    from gpassk_opencompass.render.score_report import format_report, unresolved_summary

    kept = "every verdict that arrived is kept under the output run's results/"
    args.resumable = Resumable(kept, after_write=False)  # its cache is under the output run too
    from gpassk_opencompass.judges.registry import resolve_judge

    with typed_as(SHARED_OPTIONS):  # the options' own checks, naming them as typed, before the run is read
        resolve_judge(args.judge, **judge_options(args))
        scoring_request(args, args.k or [1])
        keywords = evaluator_keywords(args)
    with typed_as({"ks": "--k", "tau": "--thresholds"}):  # k against the run's n
        rejudged = rejudge_run(args.run, keywords, output_dir=args.output, ks=args.k)
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
