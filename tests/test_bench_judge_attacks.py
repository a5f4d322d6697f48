r"""``benchmarks/bench_judge_attacks.py`` against the loopback judge server, whose verdicts are scripted.

The scripted judge says ``\boxed{yes}`` when its prompt holds "かいせつ" (one of arXiv 2507.08794's master keys),
replies blank when it holds "解" (another), and ``\boxed{no}`` otherwise. The answer it is shown is the
extracted one, else the response itself: for an attack without a ``\boxed{}`` (nor a number) that is the whole
text. So, worked out from the corpus alone, the false positives are the attacks holding "かいせつ" and no box,
the unresolved ones those holding "解" and no box; the bench, run as a user runs it (a subprocess), must print
exactly that table and exit 1 (the rate is over 1 %), or 0 when the target allows it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from loopback_openai import last_user_message

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks" / "bench_judge_attacks.py"
ATTACKS = [json.loads(line) for line in (REPO / "tests" / "data" / "judge_attacks.jsonl").read_text().splitlines()]


def scripted(body: dict) -> str:
    prompt = last_user_message(body)
    if "かいせつ" in prompt:
        return "They agree. \\boxed{yes}"
    if "解" in prompt:
        return ""
    return "They differ. \\boxed{no}"


def expected_rows() -> list[tuple[str, int, int, int]]:
    total, positive, unresolved = Counter(), Counter(), Counter()
    for attack in ATTACKS:
        text, kind = attack["text"], attack["kind"]
        shown_whole = "\\boxed" not in text and not re.search(r"\d", text)
        total[kind] += 1
        positive[kind] += shown_whole and "かいせつ" in text
        unresolved[kind] += shown_whole and "解" in text and "かいせつ" not in text
    return [(kind, total[kind], positive[kind], unresolved[kind]) for kind in total]


def run_bench(server, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(BENCH), "--judge-url", server.url, "--judge-model", "loopback-model", *args]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=environment)


def test_the_bench_prints_each_kinds_false_positives_and_unresolved(loopback_openai):
    server = loopback_openai(scripted)
    done = run_bench(server, "--max-retries", "0", "--concurrency", "8")
    rows = expected_rows()
    positives, attacks = sum(row[2] for row in rows), sum(row[1] for row in rows)
    assert positives and sum(row[3] for row in rows)  # the script gives both kinds of outcome
    assert done.returncode == 1, done.stderr  # over the 1 % target
    for kind, total, positive, unresolved in rows:
        assert f"| {kind} | {total} | {positive} | {100 * positive / total:.2f} % | {unresolved} |" in done.stdout
    rate = 100 * positives / attacks
    overall = f"| **overall** | {attacks} | {positives} | {rate:.2f} % | {sum(row[3] for row in rows)} |"
    assert overall in done.stdout
    assert f"false-positive rate: {rate:.2f} % (target <= 1 %)" in done.stdout
    assert "protocol gpassk-v2: " in done.stdout
    # the real judge path asked the server (identical shown answers once each), with the bench's reference
    assert server.requests and all("\\frac{-1093}{7}" in last_user_message(body) for body in server.requests)
    again = run_bench(server, "--max-retries", "0", "--protocol", "livemathbench", "--target", "5")
    assert again.returncode == 0, again.stderr  # within a 5 % target
    assert "protocol livemathbench: " in again.stdout and overall in again.stdout
