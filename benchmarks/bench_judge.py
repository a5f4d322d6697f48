"""Judge throughput: ours vs OpenCompass's LiveMathBenchEvaluator on the same endpoint.

Both judges talk to one loopback OpenAI-compatible server (tests/loopback_openai.py,
run as a separate process) that answers every request after ``--latency``
seconds (default 50 ms, a fast judge model) with a verdict ending in
``\\boxed{yes}``.

* **OpenCompass**: ``LiveMathBenchEvaluator(model_name, url).judge(...)``, its
  own judge path (extraction, prompts, ``OpenAISDK`` requests, its JSON
  cache). ``OpenAISDK`` loads a tokenizer when constructed (tiktoken's
  encodings, downloaded from the internet, else a Hugging Face tokenizer), so
  it cannot start offline: for this benchmark that step is disabled, the
  tokenizer replaced by a length estimate (characters / 4). Nothing else is
  changed.
* **ours**: ``judge_items`` with ``JudgeSettings(kind="llm", concurrency=32)``
  and a durable cache file, first on distinct answers (no deduplication can
  help), then on a LiveMathBench-shaped batch (238 questions x 48 samples,
  answers repeating as sampled answers do).

Also measured: the rule judge (math-verify) in answers per second on one core
(in-process, main thread) and over one worker process per core.

``--baseline REV`` (repeatable) compares our judge on distinct answers with
the code of git revision ``REV``, back to back against the same endpoint:
each round runs every version once, each in a process of its own whose
``PYTHONPATH`` is that version's ``gpassk_opencompass`` (``git archive REV``
into a temporary folder; this tree's own for "this tree"), and prints
judgments/s and the client's CPU per judgment; then the spread over
``--rounds`` and this tree's ratio to each baseline, round by round.

    python benchmarks/bench_judge.py [--judgments 1024] [--concurrency 32] [--opencompass-judgments N]
        [--latency 0.05] [--baseline REV ...] [--rounds 3] [--rule-answers 600]

(``--opencompass-judgments 0`` / ``--rule-answers 0`` skip those timings.)

OpenCompass's judge runs at about 2 requests/s, so its default 1,024
judgments take ~9 minutes; ``--opencompass-judgments 200`` measures the same
steady rate in under 2.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

from loguru import logger

import gpassk_opencompass
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items, rule_verdict
from gpassk_opencompass.judges.workers import judge_by_rule
from opencompass_side import ROOT, livemathbench_evaluator, loopback_endpoint

REPLY = "The examinee's answer matches the standard answer. \\boxed{yes}"
MODEL = "loopback-model"


def response(answer: str) -> str:
    return f"Let us work it out step by step. ... Therefore the final answer is $\\boxed{{{answer}}}$."


def distinct_items(count: int) -> list[JudgeItem]:
    """``count`` generations with pairwise different (question, answer): nothing to deduplicate."""
    return [
        JudgeItem(f"Problem {i}: find the value of x.", f"{i}/7", response(f"\\frac{{{i}}}{{7}}")) for i in range(count)
    ]


def livemathbench_items(questions: int = 238, n: int = 48, seed: int = 0) -> list[JudgeItem]:
    """A LiveMathBench-sized batch: each question's n samples drawn from a few answers, skewed."""
    rng = random.Random(seed)
    items = []
    for q in range(questions):
        candidates = [f"{q}"] + [f"{q + d}" for d in rng.sample(range(1, 50), 5)]
        weights = [8, 4, 2, 1, 1, 1]
        for answer in rng.choices(candidates, weights, k=n):
            items.append(JudgeItem(f"Problem {q}: compute the sum.", f"{q}", response(answer)))
    return items


def time_ours(items: list[JudgeItem], url: str, concurrency: int) -> tuple[float, float, object]:
    """Wall and CPU seconds of ``judge_items`` on ``items`` (a fresh cache file), and its report."""
    with tempfile.TemporaryDirectory() as directory:
        settings = JudgeSettings(
            kind="llm",
            urls=(url,),
            model=MODEL,
            concurrency=concurrency,
            cache_path=pathlib.Path(directory) / "verdicts.jsonl",
        )
        start, cpu = time.perf_counter(), time.process_time()
        report = judge_items(items, settings, progress=False)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert all(verdict.correct is True for verdict in report.verdicts), "our judge misread a verdict"
    return elapsed, cpu, report


def package_at(revision: str, into: pathlib.Path) -> pathlib.Path:
    """``gpassk_opencompass`` as of git ``revision``, unpacked under ``into``; the folder to put on PYTHONPATH."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "gpassk_opencompass"], check=True, capture_output=True
    ).stdout
    folder = into / revision.replace("/", "_")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def time_version(folder: pathlib.Path, url: str, judgments: int, concurrency: int) -> dict:
    """One measurement of the distinct-answers judging with the package in ``folder``, in a process of its own."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, __file__, "--measure", url, "--judgments", str(judgments)]
    command += ["--concurrency", str(concurrency)]
    output = subprocess.run(command, env=environment, check=True, capture_output=True, text=True).stdout
    figures = json.loads(output.splitlines()[-1])
    measured = pathlib.Path(figures["package"]).resolve()
    assert measured.is_relative_to(folder.resolve()), f"measured {measured}, not the code in {folder}"
    return figures


def measure(url: str, judgments: int, concurrency: int) -> None:
    """The child's side of :func:`time_version`: one JSON line of figures."""
    elapsed, cpu, report = time_ours(distinct_items(judgments), url, concurrency)
    print(
        json.dumps(
            {
                "package": gpassk_opencompass.__file__,
                "rate": judgments / elapsed,
                "cpu_ms": 1000 * cpu / judgments,
                "requests": report.stats.requests,
            }
        )
    )


def compare(baselines: list[str], url: str, judgments: int, concurrency: int, rounds: int) -> list[float]:
    """Each baseline revision and this tree, back to back, ``rounds`` times; prints and returns this tree's rates."""
    with tempfile.TemporaryDirectory() as directory:
        versions = {revision: package_at(revision, pathlib.Path(directory)) for revision in baselines}
        versions["this tree"] = ROOT
        print(
            f"our judge, distinct answers: {judgments} judgments, concurrency {concurrency}, {rounds} rounds, "
            "each version in its own process, back to back:",
            flush=True,
        )
        rates: dict[str, list[float]] = {name: [] for name in versions}
        cpus: dict[str, list[float]] = {name: [] for name in versions}
        for round_number in range(1, rounds + 1):
            line = []
            for name, folder in versions.items():
                figures = time_version(folder, url, judgments, concurrency)
                rates[name].append(figures["rate"])
                cpus[name].append(figures["cpu_ms"])
                line.append(f"{name} {figures['rate']:6.1f}/s ({figures['cpu_ms']:.2f} ms CPU)")
            print(f"  round {round_number}: " + ", ".join(line), flush=True)
    for name in versions:
        print(
            f"  {name:>10s}: {min(rates[name]):6.1f}-{max(rates[name]):6.1f} judgments/s "
            f"(median {statistics.median(rates[name]):.1f}), client CPU "
            f"{min(cpus[name]):.2f}-{max(cpus[name]):.2f} ms per judgment"
        )
    ours = rates["this tree"]
    for revision in baselines:
        ratios = [mine / theirs for mine, theirs in zip(ours, rates[revision])]
        print(
            f"  this tree / {revision}: {statistics.median(ratios):.2f}x "
            f"(per round {min(ratios):.2f}-{max(ratios):.2f}x)"
        )
    return ours


def time_opencompass(items: list[JudgeItem], url: str) -> float:
    evaluator = livemathbench_evaluator(MODEL, url)
    with tempfile.TemporaryDirectory() as directory:
        evaluator._out_dir = directory
        test_set = {
            "question": [item.question for item in items],
            "question_type": ["问答"] * len(items),
            "subdivision": ["livemathbench_en"] * len(items),
        }
        noise = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stderr(noise), contextlib.redirect_stdout(noise):
            labels = evaluator.judge([item.response for item in items], [item.reference for item in items], test_set)
        elapsed = time.perf_counter() - start
    assert labels == [1] * len(items), "OpenCompass's judge did not read every verdict as yes"
    return elapsed


def rule_pairs(count: int, seed: int = 1) -> list[tuple[str, str]]:
    """Realistic (reference, extracted answer) pairs: integers, fractions, radicals, sets, intervals, choices."""
    rng = random.Random(seed)
    makers = [
        lambda i: (str(i), str(i + rng.choice([0, 0, 1]))),
        lambda i: (
            f"\\frac{{{i}}}{{{i + 3}}}",
            rng.choice([f"{i}/{i + 3}", f"\\dfrac{{{i}}}{{{i + 3}}}", f"{i + 1}/{i + 3}"]),
        ),
        lambda i: (f"{i}\\sqrt{{2}}", rng.choice([f"\\sqrt{{{2 * i * i}}}", f"{i}\\sqrt2", f"{i}\\sqrt{{3}}"])),
        lambda i: (f"\\{{{i}, {i + 2}\\}}", rng.choice([f"\\{{{i + 2}, {i}\\}}", f"{i}, {i + 2}", f"\\{{{i}\\}}"])),
        lambda i: (f"[{i}, {i + 5})", rng.choice([f"[{i},{i + 5})", f"({i}, {i + 5})"])),
        lambda i: (f"x^2 + {i}x", rng.choice([f"x(x + {i})", f"x^{{2}}+{i}x", f"x^2 - {i}x"])),
        lambda i: (rng.choice(["A", "B", "BD", "A, C"]), rng.choice(["A", "B", "B, D", "C, A", "(B)"])),
    ]
    return [makers[i % len(makers)](i) for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=1024, help="distinct judgments for both (default 1024)")
    parser.add_argument("--concurrency", type=int, default=32, help="our judge's requests in flight (default 32)")
    parser.add_argument(
        "--opencompass-judgments",
        type=int,
        default=None,
        help="time OpenCompass on the first N only (its rate is flat); default: all; 0: not at all",
    )
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the endpoint takes per reply")
    parser.add_argument("--rule-answers", type=int, default=600, help="answers for the rule-judge timing (0: none)")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="REV",
        help="also time our judge as of git revision REV, back to back with this tree (repeatable)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the --baseline comparison (default 3)")
    parser.add_argument("--measure", metavar="URL", help=argparse.SUPPRESS)  # a --baseline child process
    args = parser.parse_args()
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    if args.measure:
        measure(args.measure, args.judgments, args.concurrency)
        return
    package = pathlib.Path(gpassk_opencompass.__file__).resolve().parent
    if not package.is_relative_to(ROOT):
        sys.exit(f"this would time {package}, not this tree's package: run with PYTHONPATH={ROOT}")

    distinct = distinct_items(args.judgments)
    batch = livemathbench_items()
    oc_items = distinct if args.opencompass_judgments is None else distinct[: args.opencompass_judgments]
    with loopback_endpoint(args.latency, REPLY) as url:
        print(f"endpoint: {url} (tests/loopback_openai.py, {args.latency * 1000:.0f} ms per reply, own process)")
        if args.baseline:
            distinct_rate = statistics.median(compare(args.baseline, url, len(distinct), args.concurrency, args.rounds))
            print(f"ours, distinct answers: {distinct_rate:8.2f} judgments/s (this tree's median)")
        else:
            ours_distinct, _, report = time_ours(distinct, url, args.concurrency)
            distinct_rate = len(distinct) / ours_distinct
            print(
                f"ours, distinct answers:     {len(distinct):6d} judgments in {ours_distinct:7.2f} s = "
                f"{distinct_rate:8.2f} judgments/s ({report.stats.requests} requests)"
            )
        ours_batch, _, batch_report = time_ours(batch, url, args.concurrency)
        batch_rate = len(batch) / ours_batch
        print(
            f"ours, LiveMathBench-shaped: {len(batch):6d} judgments in {ours_batch:7.2f} s = {batch_rate:8.2f} "
            f"judgments/s ({batch_report.stats.unique} distinct -> {batch_report.stats.requests} requests)",
            flush=True,
        )
        if oc_items:
            print(
                f"OpenCompass LiveMathBenchEvaluator.judge on {len(oc_items)} judgments "
                f"(OpenAISDK tokenizer step disabled: a length estimate instead of tiktoken, which it downloads) ...",
                flush=True,
            )
            oc_seconds = time_opencompass(oc_items, url)
            oc_rate = len(oc_items) / oc_seconds
            print(
                f"OpenCompass judge:          {len(oc_items):6d} judgments in {oc_seconds:7.2f} s = "
                f"{oc_rate:8.2f} judgments/s"
            )
            print(f"ratio with deduplication (LiveMathBench-shaped batch): {batch_rate / oc_rate:,.0f}x")
            print(f"ratio before deduplication (distinct answers, same endpoint): {distinct_rate / oc_rate:,.0f}x")

    if args.rule_answers:
        time_rule_judge(rule_pairs(args.rule_answers))


def time_rule_judge(pairs: list[tuple[str, str]]) -> None:
    """Prints the rule judge's answers per second in-process on one core, and over one worker process per core."""
    cores = os.cpu_count() or 1
    start = time.perf_counter()
    for reference, answer in pairs:
        rule_verdict(reference, answer)
    rule_main = time.perf_counter() - start
    start = time.perf_counter()
    verdicts = judge_by_rule(pairs, timeout=3, processes=cores, progress=False)
    rule_pool = time.perf_counter() - start
    assert len(verdicts) == len(pairs)
    print(
        f"rule judge (math-verify), one core, in-process: {len(pairs) / rule_main:7.1f} answers/s/core "
        f"({len(pairs)} distinct answers in {rule_main:.2f} s)"
    )
    print(f"rule judge, {cores} worker processes incl. start-up: {len(pairs) / rule_pool:7.1f} answers/s")


if __name__ == "__main__":
    main()
