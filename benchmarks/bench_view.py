"""``gpassk view`` at LiveMathBench scale: 238 questions x 48 generations of ~26 kB (~300 MB of generations).

Synthesizes a generations JSONL (seeded: reasoning-like text of random words and LaTeX, every question's answers
drawn from a few values, one in eight generations cut mid-sentence at the output limit with ``finish_reason:
length`` recorded, the rest ``stop``) and scores it with the real ``gpassk score`` under a fast user judge (the last
``\\boxed{}`` against the gold answer: ``--judge view_judge:boxed_equal``, a module written beside the data, so
scoring 11,424 generations takes seconds, not the rule judge's minutes; the results file is the real one). Then,
each in its own process:

* ``gpassk view RESULTS GENERATIONS --port 0``: the time to its first line (the URL: every run read and indexed),
  then over HTTP on 127.0.0.1 the index, the map (target < 2 s), a question (< 0.5 s) and a 26 kB generation text,
  each timed (first request, then the median of 5), and the server's peak RSS (``VmHWM`` of /proc/PID/status,
  target <= 300 MB) read after every request;
* ``gpassk view RESULTS GENERATIONS --export DIR``: its time, files and size.

    python benchmarks/bench_view.py [--questions 238] [--n 48] [--chars 26000] [--keep DIR]

``--keep DIR`` works in DIR and keeps it; a second run with the same DIR reuses its generations and results.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
WORDS = tuple(
    [
        "we",
        "then",
        "compute",
        "the",
        "sum",
        "of",
        "both",
        "sides",
        "so",
        "that",
        "x",
        "y",
        "n",
        "k",
        "and",
        "therefore",
        "since",
        "by",
        "the",
        "lemma",
        "it",
        "follows",
        "hence",
        "\\frac{a}{b}",
        "\\sqrt{2}",
        "=",
        "+",
        "-",
        "(",
        ")",
        "2",
        "3",
        "7",
        "11",
        "modulo",
        "prime",
        "factor",
        "integer",
        "consider",
        "case",
    ]
)
JUDGE = """
import re

def boxed_equal(prediction: str, reference: str) -> bool:
    found = re.findall(r"\\\\boxed\\{([^{}]*)\\}", prediction[-400:])
    return bool(found) and found[-1].strip() == reference.strip()
"""


def synthesize(path: Path, questions: int, n: int, chars: int, seed: int = 0) -> int:
    """Write the generations file; its size in bytes."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for index in range(questions):
            gold = str(rng.randint(1, 999))
            wrong = [str(rng.randint(1, 999)) for _ in range(3)]
            p = rng.random()
            predictions, reasons = [], []
            for _ in range(n):
                body = " ".join(rng.choice(WORDS) for _ in range(chars // 5))[: chars - 40]
                if rng.random() < 0.125:
                    predictions.append(body + " and then we need to")
                    reasons.append("length")
                    continue
                answer = gold if rng.random() < p else rng.choice(wrong)
                predictions.append(f"{body}. So the answer is \\boxed{{{answer}}}.")
                reasons.append("stop")
            record = {
                "id": f"q{index}",
                "question": f"Problem {index}: find the value. " + " ".join(rng.choice(WORDS) for _ in range(60)),
                "answer": gold,
                "predictions": predictions,
                "finish_reasons": reasons,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path.stat().st_size


def gpassk(*args: str, cwd: Path) -> list[str]:
    return [sys.executable, "-m", "gpassk_opencompass.cli", *args]


def environment(cwd: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPOSITORY), str(cwd)])}


def peak_rss(pid: int) -> int:
    """The process's peak resident set (VmHWM), bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def get(port: int, path: str) -> tuple[float, int]:
    """Seconds and bytes of one GET."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status}")
    return time.perf_counter() - started, len(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=238)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--chars", type=int, default=26_000)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-view-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str]] = []
    try:
        (work / "view_judge.py").write_text(JUDGE, encoding="utf-8")
        generations, results = work / "generations.jsonl", work / "scores.json"
        if args.keep is not None and generations.exists() and results.exists():  # made by an earlier run: reused
            rows.append(("generations and results", f"reused from {work}"))
        else:
            started = time.perf_counter()
            size = synthesize(generations, args.questions, args.n, args.chars)
            rows.append(("synthesize the generations", f"{time.perf_counter() - started:.1f} s, {size / 1e6:.0f} MB"))
            started = time.perf_counter()
            ks = [str(k) for k in (4, 8, 16) if k <= args.n]
            subprocess.run(
                gpassk("score", str(generations), "--k", *ks, "--judge", "view_judge:boxed_equal",
                       "--no-cache", "--quiet", "--output", str(results), cwd=work),
                cwd=work, env=environment(work), check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            rows.append(("gpassk score (user judge)", f"{time.perf_counter() - started:.1f} s"))
        started = time.perf_counter()
        server = subprocess.Popen(
            gpassk("view", str(results), str(generations), "--port", "0", cwd=work),
            cwd=work, env=environment(work), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            url = server.stdout.readline().strip()
            rows.append(("start-up: read and index (to the URL line)", f"{time.perf_counter() - started:.2f} s"))
            rows.append(("peak RSS after start-up", f"{peak_rss(server.pid) / 1e6:.0f} MB"))
            port = int(url.rsplit(":", 1)[1].rstrip("/"))
            run = json.loads(body_of(port, "/data/index.js"))["runs"][0]["id"]
            paths = [
                ("the index", "/data/index.js"),
                ("the map (target < 2 s)", f"/data/runs/{run}/map.js"),
                ("a question (target < 0.5 s)", f"/data/runs/{run}/q/{args.questions // 2}.js"),
                ("a generation text", f"/data/runs/{run}/q/{args.questions // 2}/g/5.js"),
            ]
            for name, path in paths:
                first, size = get(port, path)
                again = statistics.median(get(port, path)[0] for _ in range(5))
                rows.append((name, f"first {first:.3f} s, then {again:.3f} s (median of 5), {size / 1e3:,.0f} kB"))
            for i in range(0, args.questions, max(args.questions // 20, 1)):  # more questions: memory stays bounded
                get(port, f"/data/runs/{run}/q/{i}.js")
            rows.append(("peak RSS of the server (target <= 300 MB)", f"{peak_rss(server.pid) / 1e6:.0f} MB"))
        finally:
            server.terminate()
            server.wait(30)
        site = work / "site"
        shutil.rmtree(site, ignore_errors=True)
        started = time.perf_counter()
        done = subprocess.run(
            gpassk("view", str(results), str(generations), "--export", str(site), cwd=work),
            cwd=work, env=environment(work), check=True, capture_output=True, text=True,
        )  # fmt: skip
        rows.append(("--export", f"{time.perf_counter() - started:.1f} s: {done.stdout.strip()}"))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"gpassk view, {args.questions} questions x {args.n} generations of ~{args.chars:,} characters")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def body_of(port: int, path: str) -> str:
    """The JSON document of a ``data/KEY.js`` answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", path)
    text = connection.getresponse().read().decode("ascii")
    connection.close()
    return text[text.index(", ") + 2 : text.rindex(");")]


if __name__ == "__main__":
    main()
