"""``gpassk score``: judge a generations JSONL file and compute G-Pass@k (no OpenCompass run needed).

Parses the arguments and calls :func:`gpassk_opencompass.scoring.flow.score_file`;
an exception it raises is mapped to its exit code by :func:`gpassk_opencompass.cli.ending`. A finished OpenCompass run is
``gpassk rejudge``'s job.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gpassk_opencompass import defaults
from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_OK,
    SHARED_OPTIONS,
    SUBCOMMANDS,
    Resumable,
    add_k_option,
    add_thresholds_option,
    exit_codes_epilog,
    typed_as,
)
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import JudgeSettings
from gpassk_opencompass.judges.user import DEFAULT_TIMEOUT
from gpassk_opencompass.log import logger
from gpassk_opencompass.redaction import redact

EXAMPLES = """examples:
  gpassk score generations.jsonl --k 4 8 16
  gpassk score generations.jsonl --k 4 8 16 --interval both --prior 1 1 --output scores.json
  gpassk score generations.jsonl --k 4 8 16 --judge llm \\
      --judge-url http://10.0.0.5:8000/v1 http://10.0.0.6:8000/v1 --judge-model LiveMath-Judge --output scores.json
  gpassk score generations.jsonl --k 4 8 16 --judge llm --judge-prompt livemathbench \\
      --judge-url http://10.0.0.5:8000/v1 --judge-model LiveMath-Judge --output scores-oc.json

INPUT.jsonl has one question per line:
  {"id": "q1", "question": "...", "answer": "...", "predictions": ["...", ...], "language": "en"}
or one generation per line, the same question's lines sharing an id (--format long; also .parquet, .csv):
  {"id": "q1", "question": "...", "answer": "...", "prediction": "...", "finish_reason": "stop"}
  gpassk score runs/ --k 4        # one file per seed (or 'runs/seed*.jsonl'), joined by question id
Other tools' samples are read as they are (--format, auto-detected by default), e.g.
  gpassk score test_qwen25-math-cot_-1_seed0_t0.7_s0_e-1.jsonl --k 4 --judge source   # its own verdicts
  gpassk score outputs/RUN/predictions/MODEL/DATASET.json --k 4 --judge rule        # OpenCompass predictions
A finished OpenCompass run made with GPassKEvaluator is judged again in place with `gpassk rejudge RUN`.
The judge API key is read from OC_JUDGE_API_KEY or OPENAI_API_KEY (default: EMPTY).

A generation the judge could not judge (it stopped answering, its reply had no verdict) is UNRESOLVED, never
counted as wrong: with any unresolved verdict no metric is written (exit 3) unless --allow-unresolved is given;
then the results say complete: false and give each metric's range (all unresolved wrong .. all right).
Every verdict that arrived is kept in the cache: the same command re-asks only the missing ones. The rule
judge is deterministic: an answer it could not compare in time stays unresolved on every rerun; raise
--rule-timeout or let a judge model decide it (--judge cascade).
"""


def declared_bounds(field: str) -> tuple[Any, Any]:
    """The least and the most value :class:`JudgeSettings` declares for ``field`` (``None``: no such bound).

    >>> declared_bounds("concurrency"), declared_bounds("rule_timeout"), declared_bounds("response_tail_chars")
    ((1, 1024), (1, 600), (1, 1000000))
    """
    metadata = JudgeSettings.model_fields[field].metadata
    least = next((rule.ge for rule in metadata if hasattr(rule, "ge")), None)
    return least, next((rule.le for rule in metadata if hasattr(rule, "le")), None)


#: Bounds of ``--rule-timeout``: the rule judge's declared ones (math-verify's alarm counts whole seconds, up to
#: :data:`~gpassk_opencompass.defaults.MAX_RULE_TIMEOUT`).
RULE_TIMEOUT_RANGE = declared_bounds("rule_timeout")
#: The judge settings' defaults, which the judge options show and start from.
JUDGE = JudgeSettings()


def add_parser(subparsers) -> None:
    from gpassk_opencompass.scoring.readers import AUTO, FORMATS, known_formats

    parser = subparsers.add_parser(
        "score",
        help=SUBCOMMANDS["score"],
        description="Judge every prediction of a generations file once (rule, LLM or cascade judge) and report "
        "G-Pass@k_tau and mG-Pass@k with bootstrap and/or Bayesian intervals.",
        epilog=EXAMPLES + "\nformats (--format):\n" + known_formats() + "\n\n" + exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    parser.add_argument(
        "input",
        metavar="FILE_OR_DIR",
        help="the samples: a generations JSONL (one question per line), a file of one generation per row "
        "(--format long), another tool's output (--format), or one file per seed: a folder or a quoted glob "
        "('runs/seed*.jsonl')",
    )
    parser.add_argument("more_inputs", nargs="*", help=argparse.SUPPRESS)  # refused with the fix: an expanded glob
    parser.add_argument(
        "--format",
        choices=(AUTO, *FORMATS),
        default=AUTO,
        help="the input's format (default: auto, detected from the file): " + ", ".join(FORMATS),
    )
    add_k_option(parser, required=True)
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="one file per seed: a question absent from a seed's file is scored with the samples found "
        "(default: refused, naming the file and the question)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the full results (metrics, intervals, judge statistics, per-question verdicts) to this JSON file",
    )
    add_judge_options(parser)
    judge = next(group for group in parser._action_groups if group.title == "judge")
    judge.add_argument(
        "--cache",
        metavar="PATH",
        help="verdict cache (JSONL, resumable) to use: yours to choose (default: one per input and judge in your "
        "cache folder, $XDG_CACHE_HOME/gpassk-opencompass or ~/.cache/gpassk-opencompass; a cache beside the "
        "input is read only when named here)",
    )
    judge.add_argument("--no-cache", action="store_true", help="do not read or write a verdict cache")
    add_metric_options(parser)
    curtail = parser.add_argument_group("curtailed sampling (docs/metrics.md, 'Curtailed sampling')")
    curtail.add_argument(
        "--curtail",
        metavar="N1:N[:RULE]",
        help="the generations were drawn in two stages: N1 per question, and N for those whose first N1 verdicts "
        "(in draw order) miss RULE: all-wrong (default: none correct) or all-wrong-or-right; every metric is "
        "then the design's unbiased estimate",
    )
    curtail.add_argument(
        "--next-round",
        metavar="FILE",
        help='with --curtail: write the questions still to be drawn ({"id": ..., "draw": N - N1} per line; '
        "an empty file when none) instead of refusing them, for your own sampling loop (exit 3 while any remain)",
    )
    parser.set_defaults(func=run)


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """The judge options shared by ``gpassk score`` and ``gpassk rejudge``."""
    judge = parser.add_argument_group("judge")
    judge.add_argument(
        "--judge",
        default="auto",
        metavar="JUDGE",
        help="auto (default: llm when --judge-url is given, else rule), rule, llm, cascade, source (the "
        "input's own per-sample verdicts, e.g. Qwen2.5-Math's score lists), or your "
        "own check_correct_fn(prediction, reference) -> bool as module:function (imported from "
        "the current directory or sys.path) or a gpassk.judges entry point name",
    )
    judge.add_argument(
        "--judge-url",
        nargs="+",
        action="extend",
        default=[],
        metavar="URL",
        help="OpenAI-compatible base URL(s) of the judge model, e.g. http://HOST:PORT/v1",
    )
    judge.add_argument("--judge-model", default="", metavar="NAME", help="the judge model's served name")
    judge.add_argument(
        "--judge-prompt",
        metavar="PROTOCOL",
        help="the judge model's protocol: gpassk-v2 (default: the project's fenced prompt) or livemathbench "
        "(OpenCompass's LiveMathBench judge prompt word for word, read as OpenCompass reads it: the "
        "protocol of the published LiveMathBench figures)",
    )
    judge.add_argument(
        "--concurrency",
        type=int,
        default=defaults.CONCURRENCY,
        metavar="N",
        help="requests in flight per URL, {} to {} (default: %(default)s)".format(*declared_bounds("concurrency")),
    )
    judge.add_argument(
        "--request-timeout",
        type=float,
        default=defaults.REQUEST_TIMEOUT,
        metavar="S",
        help="total seconds a judge request may take before it is retried (default: %(default)s)",
    )
    judge.add_argument(
        "--max-retries",
        type=int,
        default=None,
        metavar="N",
        help="a fixed cap on retries after 429/5xx/timeouts/dropped connections (default: retry "
        "while the judge makes progress, see --progress-window)",
    )
    judge.add_argument(
        "--progress-window",
        type=float,
        default=JUDGE.progress_window,
        metavar="S",
        help="stop retrying once no request got a verdict for S seconds (default: %(default)s)",
    )
    judge.add_argument(
        "--judge-max-tokens",
        type=int,
        default=JUDGE.max_tokens,
        metavar="N",
        help="cap on the judge's reply; a thinking judge needs room for its reasoning and the "
        "verdict (default: %(default)s)",
    )
    judge.add_argument(
        "--rule-timeout",
        type=int,
        default=JUDGE.rule_timeout,
        metavar="S",
        help="seconds math-verify may spend on one parse or comparison of the rule judge (and the "
        f"cascade's rule stage), whole seconds from {RULE_TIMEOUT_RANGE[0]} to "
        f"{RULE_TIMEOUT_RANGE[1]} (default: %(default)s)",
    )
    judge.add_argument(
        "--judge-timeout",
        type=float,
        metavar="S",
        help="seconds your own judge (module:function) may take on one answer; past them the answer is "
        f"unresolved, its worker process killed and the run goes on (default: {DEFAULT_TIMEOUT:g})",
    )


def add_metric_options(parser: argparse.ArgumentParser) -> None:
    """Thresholds, intervals, unresolved verdicts, verbosity: shared by ``gpassk score`` and ``gpassk rejudge``."""
    from gpassk_opencompass.scoring.request import INTERVALS  # deferred: the package, not before --version

    add_thresholds_option(parser)
    stats = parser.add_argument_group("intervals")
    stats.add_argument(
        "--interval",
        choices=INTERVALS,
        default="bootstrap",
        help="bootstrap intervals (default), Bayesian credible intervals (Beta-Binomial posterior "
        "per question, resolved verdicts only), or both",
    )
    stats.add_argument(
        "--prior",
        type=float,
        nargs=2,
        default=list(defaults.PRIOR),
        metavar=("A", "B"),
        help="Beta(A, B) prior on each question's success probability (default: 1 1, uniform)",
    )
    stats.add_argument("--ci", type=float, default=defaults.CI, help="interval level (default: %(default)s)")
    stats.add_argument(
        "--bootstrap", type=int, default=defaults.N_BOOT, metavar="N", help="bootstrap resamples (default: %(default)s)"
    )
    stats.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    parser.add_argument(
        "--allow-unresolved",
        action="store_true",
        help="write the metrics even if some verdicts are unresolved (they count as wrong there; "
        "the results say complete: false and give each metric's range); still exit 3",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars, warnings only")


def scoring_request(args: argparse.Namespace, ks):
    """The :class:`~gpassk_opencompass.scoring.request.ScoringRequest` of the shared options."""
    from gpassk_opencompass.scoring.request import ScoringRequest

    return ScoringRequest(
        ks=tuple(ks),
        thresholds=tuple(args.thresholds),
        interval=args.interval,
        prior=tuple(args.prior),
        ci=args.ci,
        n_boot=args.bootstrap,
        seed=args.seed,
        allow_unresolved=args.allow_unresolved,
        **({"curtail": args.curtail} if getattr(args, "curtail", None) is not None else {}),
    )


def judge_options(args: argparse.Namespace) -> dict:
    """The judge options under the CLI's names (mapped onto the internal ones by ``judge_settings``).

    Raises:
        InputError: ``--rule-timeout`` is outside :data:`RULE_TIMEOUT_RANGE`.
    """
    low, high = RULE_TIMEOUT_RANGE
    if not low <= args.rule_timeout <= high:
        raise InputError(
            f"--rule-timeout {args.rule_timeout} is out of range: math-verify's time per parse or "
            f"comparison must be {low} to {high} whole seconds; e.g. --rule-timeout 30"
        )
    return dict(
        judge_url=list(args.judge_url),
        judge_model=args.judge_model,
        concurrency=args.concurrency,
        request_timeout=args.request_timeout,
        max_retries=args.max_retries,
        progress_window=args.progress_window,
        max_tokens=args.judge_max_tokens,
        rule_timeout=args.rule_timeout,
        **({"judge_prompt": args.judge_prompt} if args.judge_prompt is not None else {}),
        **({"judge_timeout": args.judge_timeout} if args.judge_timeout is not None else {}),
    )


def resume_hint(kind: str, kept: str, rule_timeout: int) -> str:
    """What re-running does for unresolved verdicts of judge ``kind``, and what to do instead if nothing.

    The rule judge is deterministic: the same command gives the same verdicts (``judges.rule.UNDECIDED_HINT``).

    >>> resume_hint("llm", "every verdict that arrived is kept in c.jsonl", 3)
    'every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones'
    >>> print(resume_hint("rule", "", 3))
    the rule judge is deterministic (re-running gives the same): give it more time (--rule-timeout, rule_timeout) or let a judge model decide (--judge cascade); --rule-timeout (now 3 s)
    >>> print(resume_hint("python:my_checks:same", "", 3))
    python:my_checks:same raised an exception, returned no bool or ran past --judge-timeout on these (each reason says which): fix the function (or give it longer) and run again
    """
    from gpassk_opencompass.judges.kinds import SOURCE, USER_PREFIX, judge_kind

    if kind.startswith(SOURCE):
        return "the source has no verdict for these samples; judge them with --judge rule, llm or cascade"
    if kind.startswith(USER_PREFIX):
        return (
            f"{kind} raised an exception, returned no bool or ran past --judge-timeout on these (each reason "
            "says which): fix the function (or give it longer) and run again"
        )
    if not judge_kind(kind).model:
        from gpassk_opencompass.judges.rule import UNDECIDED_HINT

        return f"{UNDECIDED_HINT}; --rule-timeout (now {rule_timeout} s)"
    return f"{kept}; the same command re-asks only the missing ones"


def say(message: str) -> None:
    """Print one redacted message to stderr."""
    print(redact(message), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    # deferred: the scoring stack (judges, numpy, pydantic) only when scoring, not for `gpassk score --help`
    from gpassk_opencompass.judges.registry import resolve_judge, with_verdict_cache
    from gpassk_opencompass.render.score_report import format_report, layout_line, unresolved_summary
    from gpassk_opencompass.scoring.flow import score_file
    from gpassk_opencompass.scoring.readers import resolve_input

    if args.more_inputs:
        given = [args.input, *args.more_inputs]
        raise InputError(
            f"gpassk score takes one input, got {len(given)} ({', '.join(given[:3])}{', ...' if len(given) > 3 else ''}"
            "); one file per seed is a folder, or a glob in quotes (the shell leaves it to gpassk): "
            "gpassk score 'runs/seed*.jsonl'"
        )
    if args.cache and args.no_cache:
        raise InputError("--cache and --no-cache contradict each other; give one")
    cache_choice = False if args.no_cache else (args.cache or True)
    with typed_as(SHARED_OPTIONS):  # a bad option's message names it as typed, before anything is read
        judge = resolve_judge(args.judge, **judge_options(args))
        request = scoring_request(args, args.k)
    resolved = resolve_input(args.input, args.format)  # once: its files, their identities, its format and layout
    judge = with_verdict_cache(judge, cache_choice, resolved.identity)
    kind, cache = judge.name, judge.cache_path
    kept = (
        f"every verdict that arrived is kept in {cache}"
        if cache is not None
        else "no verdict cache (--no-cache, the rule judge or a user judge): nothing is kept"
    )

    def announce(layout) -> None:
        """The work, said once the inputs are checked and read (never before a mistake in them)."""
        if args.judge == "auto":
            logger.info("judge: {} ({})", kind, "--judge-url given" if args.judge_url else "no --judge-url")
        if cache is not None:
            logger.info("verdict cache: {} (rerun the same command to resume)", cache)
        if layout is not None:
            say(layout_line(layout))

    args.resumable = Resumable(kept, store=None if cache is None else str(cache))
    result = score_file(
        resolved,
        request,
        judge,
        output=args.output,
        cache=cache if cache is not None else False,  # the policy applied above, once
        progress=not args.quiet,
        format=args.format,
        allow_missing=args.allow_missing,
        on_layout=announce,
        next_round=args.next_round,
    )
    incomplete = result.unresolved > 0
    if incomplete:
        say(
            unresolved_summary(
                result,
                resume=resume_hint(kind, kept, args.rule_timeout)
                + (
                    "" if args.allow_unresolved else "; --allow-unresolved writes the metrics anyway, with their ranges"
                ),
            )
        )
        if not args.allow_unresolved:
            if args.output is not None:
                say(f"gpassk score: {args.output} not written (the results are incomplete)")
            return EXIT_INCOMPLETE
    if args.output is not None:
        logger.info("wrote {}", args.output)
    print(redact(format_report(result)))
    return EXIT_INCOMPLETE if incomplete else EXIT_OK
