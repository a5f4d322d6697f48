"""``gpassk score``: judge saved generations and compute G-Pass@k, no OpenCompass run needed."""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_JUDGE_FAILED,
    EXIT_OK,
    UsageError,
    exit_codes_epilog,
)
from gpassk_opencompass.files import check_distinct_paths, check_writable_file, write_text_atomic
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS
from gpassk_opencompass.redaction import redact

EXAMPLES = """examples:
  gpassk score generations.jsonl --k 4 8 16
  gpassk score generations.jsonl --k 4 8 16 --judge llm \\
      --judge-url http://10.0.0.5:8000/v1 http://10.0.0.6:8000/v1 --judge-model LiveMath-Judge --output scores.json
  gpassk score outputs/20250213_101500 --judge llm --judge-url http://10.0.0.5:8000/v1 --judge-model LiveMath-Judge

INPUT.jsonl has one question per line:
  {"id": "q1", "question": "...", "answer": "...", "predictions": ["...", ...], "language": "en"}
INPUT may instead be a finished OpenCompass run (outputs/<timestamp>), its predictions/<model_abbr> folder or one
predictions file: its saved predictions are judged again with GPassKEvaluator through OpenCompass's own eval task
(k and n from the run's config; --k overrides k), and the results are written as an OpenCompass run in --output
(default: <run>_rejudged), which `gpassk leaderboard` reads. The dataset must be loadable as for the original run.
The judge API key is read from OC_JUDGE_API_KEY or OPENAI_API_KEY (default: EMPTY).

A generation the judge could not judge (it stopped answering, its reply had no verdict) is UNRESOLVED, never
counted as wrong: with any unresolved verdict no metric is written (exit 3) unless --allow-unresolved is given;
then the results say complete: false and give each metric's range (all unresolved wrong .. all right).
Every verdict that arrived is kept in the cache: the same command re-asks only the missing ones.
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="judge saved generations (JSONL) and compute G-Pass@k",
        description="Judge every prediction of a generations file once (rule, LLM or cascade judge) and report "
                    "G-Pass@k_tau and mG-Pass@k with bootstrap intervals.",
        epilog=EXAMPLES + "\n" + exit_codes_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="generations JSONL (one question per line) or a finished "
                        "OpenCompass run / predictions folder / predictions file (see below)")
    parser.add_argument("--k", type=int, nargs="+", metavar="K",
                        help="draws (each <= n); required for JSONL input")
    parser.add_argument("--thresholds", type=float, nargs="+", default=list(DEFAULT_THRESHOLDS), metavar="TAU",
                        help="thresholds tau in [0, 1] (default: %(default)s)")
    parser.add_argument("--output", metavar="OUT", help="JSONL input: write the full results (metrics, intervals, "
                        "judge statistics, per-question verdicts) to this JSON file; OpenCompass input: the run "
                        "directory to write (default: <run>_rejudged)")
    judge = parser.add_argument_group("judge")
    judge.add_argument("--judge", choices=("auto", "rule", "llm", "cascade"), default="auto",
                       help="auto (default): llm when --judge-url is given, else rule")
    judge.add_argument("--judge-url", nargs="+", action="extend", default=[], metavar="URL",
                       help="OpenAI-compatible base URL(s) of the judge model, e.g. http://HOST:PORT/v1")
    judge.add_argument("--judge-model", default="", metavar="NAME", help="the judge model's served name")
    judge.add_argument("--concurrency", type=int, default=32, metavar="N",
                       help="requests in flight per URL (default: %(default)s)")
    judge.add_argument("--request-timeout", type=float, default=600.0, metavar="S",
                       help="seconds before a judge request is retried (default: %(default)s)")
    judge.add_argument("--max-retries", type=int, default=5, metavar="N",
                       help="retries after 429/5xx/timeouts/dropped connections (default: %(default)s)")
    judge.add_argument("--judge-max-tokens", type=int, default=2048, metavar="N",
                       help="cap on the judge's reply (default: %(default)s)")
    judge.add_argument("--cache", metavar="PATH", help="verdict cache (JSONL, resumable; default: "
                       "INPUT.judge-cache.jsonl next to the input)")
    judge.add_argument("--no-cache", action="store_true", help="do not read or write a verdict cache")
    stats = parser.add_argument_group("intervals")
    stats.add_argument("--ci", type=float, default=0.95, help="bootstrap confidence level (default: %(default)s)")
    stats.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                       help="bootstrap resamples (default: %(default)s)")
    stats.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    parser.add_argument("--allow-unresolved", action="store_true",
                        help="write the metrics even if some verdicts are unresolved (they count as wrong there; "
                             "the results say complete: false and give each metric's range); still exit 3")
    parser.add_argument("--quiet", action="store_true", help="no progress bars, warnings only")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from loguru import logger

    from gpassk_opencompass.judges import JudgeError, JudgeSettings, resolve_kind
    from gpassk_opencompass.redaction import redact_log_record
    from gpassk_opencompass.scoring.results import unresolved_summary
    from gpassk_opencompass.scoring import format_report, load_generations, score_generations

    logger.remove()
    logger.configure(patcher=redact_log_record)
    # Looked up per message, so the sink follows sys.stderr if it is swapped (tests, notebooks).
    logger.add(lambda message: sys.stderr.write(message), level="WARNING" if args.quiet else "INFO",
               format="{time:HH:mm:ss} {level} {message}")
    kind = resolve_kind(args.judge, args.judge_url)
    if args.judge == "auto":
        logger.info("judge: {} ({})", kind, "--judge-url given" if args.judge_url else "no --judge-url")
    if args.cache and args.no_cache:
        raise UsageError("--cache and --no-cache contradict each other; give one")
    from gpassk_opencompass.plugin.rejudge import is_opencompass_predictions

    if is_opencompass_predictions(args.input):
        return run_rejudge(args, kind)
    if not args.k:
        raise UsageError("--k is required for a generations JSONL (e.g. --k 4 8 16)")
    cache = None
    if kind != "rule" and not args.no_cache:
        cache = pathlib.Path(args.cache) if args.cache else default_cache_path(args.input)
    settings = JudgeSettings(kind=kind, urls=tuple(args.judge_url), model=args.judge_model,
                             concurrency=args.concurrency, request_timeout=args.request_timeout,
                             max_retries=args.max_retries, max_tokens=args.judge_max_tokens, cache_path=cache)
    output = pathlib.Path(args.output) if args.output else None
    check_files(pathlib.Path(args.input), output, cache, default_cache=not args.cache)
    records = load_generations(args.input, min_predictions=max(args.k))
    kept = (f"every verdict that arrived is kept in {cache}" if cache is not None
            else "no verdict cache (--no-cache or the rule judge): nothing is kept")
    if cache is not None:
        logger.info("verdict cache: {} (rerun the same command to resume)", cache)
    try:
        result = score_generations(records, args.k, args.thresholds, settings, ci=args.ci, n_boot=args.bootstrap,
                                   seed=args.seed, progress=not args.quiet, allow_unresolved=args.allow_unresolved)
    except JudgeError as error:
        say(f"gpassk score: the judge failed: {error}; {kept}; run the same command again to resume")
        return EXIT_JUDGE_FAILED
    except KeyboardInterrupt:
        say(f"gpassk score: interrupted; {kept}; run the same command again to resume")
        return EXIT_INTERRUPTED
    incomplete = result["unresolved"] > 0
    if incomplete:
        say(unresolved_summary(result, resume=f"{kept}; the same command re-asks only the missing ones"
                               + ("" if args.allow_unresolved else
                                  "; --allow-unresolved writes the metrics anyway, with their ranges")))
        if not args.allow_unresolved:
            if output is not None:
                say(f"gpassk score: {output} not written (the results are incomplete)")
            return EXIT_INCOMPLETE
    if output is not None:
        write_results(output, result)
        logger.info("wrote {}", output)
    print(redact(format_report(result)))
    return EXIT_INCOMPLETE if incomplete else EXIT_OK


def say(message: str) -> None:
    """Print one redacted message to stderr."""
    print(redact(message), file=sys.stderr)


def check_files(source: pathlib.Path, output: pathlib.Path | None, cache: pathlib.Path | None, *,
                default_cache: bool) -> None:
    """Before any work: input, output and cache are three different files, and the two outputs are writable."""
    check_distinct_paths({"INPUT": source, "--output": output, "--cache": cache})
    if output is not None:
        check_writable_file("--output", output)
    if cache is not None:
        try:
            check_writable_file("--cache" if not default_cache else "the verdict cache", cache)
        except ValueError as error:
            hint = "; choose another place with --cache PATH (or --no-cache)" if default_cache else ""
            raise ValueError(f"{error}{hint}") from None


def write_results(path: pathlib.Path, result: dict) -> None:
    """The results JSON, atomically."""
    write_text_atomic(path, json.dumps(result, indent=2, ensure_ascii=False) + "\n")


def run_rejudge(args: argparse.Namespace, kind: str) -> int:
    """OpenCompass input: judge a finished run's predictions again (see gpassk_opencompass.plugin.rejudge)."""
    from loguru import logger

    from gpassk_opencompass.judges import JudgeError
    from gpassk_opencompass.plugin.rejudge import find_targets, rejudge
    from gpassk_opencompass.scoring.results import unresolved_summary
    from gpassk_opencompass.scoring import format_report

    if args.cache or args.no_cache:
        raise UsageError("--cache/--no-cache apply to JSONL input; a re-judged OpenCompass run keeps its verdict "
                         "cache next to each result in the output run (rerun the command to resume)")
    targets = find_targets(args.input)
    output = pathlib.Path(args.output) if args.output else targets[0].run_dir.with_name(
        targets[0].run_dir.name + "_rejudged")
    if output.exists() and not output.is_dir():
        raise UsageError(f"--output {output} is a file; give a directory for the re-judged run")
    evaluator = dict(judge=kind, url=list(args.judge_url), model_name=args.judge_model,
                     concurrency=args.concurrency, request_timeout=args.request_timeout,
                     max_retries=args.max_retries, max_tokens=args.judge_max_tokens,
                     thresholds=list(args.thresholds), ci=args.ci, n_boot=args.bootstrap, seed=args.seed,
                     allow_unresolved=args.allow_unresolved)
    for target in targets:
        logger.info("re-judging {} x {} from {}", target.model_abbr, target.dataset_abbr, target.run_dir)
    kept = f"every verdict that arrived is kept under {output / 'results'}"
    try:
        results = rejudge(targets, output, evaluator, ks=args.k)
    except JudgeError as error:
        say(f"gpassk score: the judge failed: {error}; {kept}; run the same command again to resume")
        return EXIT_JUDGE_FAILED
    except KeyboardInterrupt:
        say(f"gpassk score: interrupted; {kept}; run the same command again to resume")
        return EXIT_INTERRUPTED
    incomplete = False
    for target, path in zip(targets, results):
        result = json.loads(path.read_text(encoding="utf-8"))
        print(f"== {target.model_abbr} x {target.dataset_abbr}: {path}")
        if result.get("unresolved", 0):
            incomplete = True
            say(unresolved_summary(result, resume=f"{kept}; the same command re-asks only the missing ones"))
        print(redact(format_report(result)))
    return EXIT_INCOMPLETE if incomplete else EXIT_OK


def default_cache_path(input_path: str) -> pathlib.Path:
    """``runs/gens.jsonl`` -> ``runs/gens.judge-cache.jsonl``.

    >>> str(default_cache_path("runs/gens.jsonl"))
    'runs/gens.judge-cache.jsonl'
    """
    path = pathlib.Path(input_path)
    stem = path.name[:-len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(stem + ".judge-cache.jsonl")
