"""Scale: the real ``gpassk score`` on big inputs (wall time, CPU time, peak memory, per-generation overhead).

Two inputs, generated deterministically in a temporary folder, each scored by
``gpassk score INPUT --k K --judge rule --output results.json --quiet`` in a
subprocess (the command a user runs, with its results file written):

* **1M generations**: 10,000 questions x n = 100, each question's samples
  drawn (seeded) from 3 answers of its own -- 30,000 distinct answers, so
  math-verify runs 30,000 times;
* **1M short lines**: 1,000,000 questions x n = 1, answers drawn from 1,000
  values (~2,000 distinct (reference, answer) pairs): almost everything is
  per-question and per-generation overhead.

Printed per input: wall time, CPU time (user + system of the command and its
judge workers), peak resident memory (``ru_maxrss`` of that one command, read
with ``os.wait4``: the largest of the command and its workers) and the wall time
per generation.  The rule judge alone on the same distinct answers (in-process,
``judge_by_rule``) is timed with ``--judge-only`` so the overhead can be read
off.  There is no OpenCompass counterpart (OpenCompass has no command that
scores a generations file), so nothing is compared; numbers only.

``--against TREE`` also runs another source tree's ``gpassk score`` (an older
checkout, e.g. ``git archive main | tar -x -C /tmp/old``) on the same input,
right before this tree's, and checks the two results files are byte for byte
the same (sha256; exit 1 when they differ).  10M generations:
``--questions 100000 --n 100 --skip-lines``.

    python benchmarks/bench_score_scale.py [--questions 10000] [--n 100] [--lines 1000000] [--skip-lines]
        [--against TREE] [--judge-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def response(answer: str) -> str:
    return f"Adding the two cases gives the total. The final answer is $\\boxed{{{answer}}}$."


def write_generations(path: pathlib.Path, questions: int, n: int, answers_per_question: int = 3, seed: int = 0) -> None:
    """``questions`` lines of n samples, each question's drawn from its own ``answers_per_question`` answers."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as file:
        for q in range(questions):
            candidates = [str(q + offset * 100_003) for offset in range(answers_per_question)]
            predictions = [response(answer) for answer in rng.choices(candidates, (6, 3, 1), k=n)]
            file.write(
                json.dumps(
                    {
                        "id": f"q{q}",
                        "question": f"Problem {q}: how many ways?",
                        "answer": str(q),
                        "predictions": predictions,
                    }
                )
                + "\n"
            )


def write_short_lines(path: pathlib.Path, lines: int, values: int = 1_000, seed: int = 0) -> None:
    """``lines`` questions with one short sample each; references and answers from ``values`` values."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as file:
        for q in range(lines):
            reference = q % values
            answer = reference if rng.random() < 0.6 else (reference + 1) % values
            file.write(
                f'{{"id": "q{q}", "question": "p{reference}", "answer": "{reference}", '
                f'"predictions": ["\\\\boxed{{{answer}}}"]}}\n'
            )


def run_score(path: pathlib.Path, k: int, root: pathlib.Path = ROOT) -> dict:
    """Run ``gpassk score`` (the package of source tree ``root``) on ``path`` in a fresh interpreter.

    Its wall time, CPU time and peak RSS (of that command and its judge workers), and the sha256 of the
    results file it wrote (which is then removed).
    """
    output = path.with_name(f"{path.stem}.{root.name}.results.json")
    command = [
        sys.executable,
        "-m",
        "gpassk_opencompass.cli",
        "score",
        str(path),
        "--k",
        str(k),
        "--judge",
        "rule",
        "--output",
        str(output),
        "--quiet",
    ]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    imported = subprocess.run(  # run where ``-m`` finds no package of its own (its folder comes first on sys.path)
        [sys.executable, "-c", "import gpassk_opencompass; print(gpassk_opencompass.__file__)"],
        env=environment,
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not pathlib.Path(imported).is_relative_to(root):
        raise SystemExit(f"gpassk score would import {imported}, not the package of {root}")
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=environment, cwd=path.parent, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)  # this command's own usage, not every child's so far
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            stderr.seek(0)
            raise SystemExit(f"gpassk score exited {process.returncode}:\n{stderr.read()[-2000:].decode()}")
    info = results_header(output)["gpassk"]
    digest = file_sha256(output)
    output.unlink()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "max_rss_mb": usage.ru_maxrss / 1024,
        "generations": info["judge_stats"]["total"],
        "distinct": info["judge_stats"]["unique"],
        "sha256": digest,
    }


def results_header(path: pathlib.Path) -> dict:
    """The results document without its ``details`` (written last, one question a line): not the whole file,
    which at 10M generations is over a gigabyte of verdicts."""
    head = b""
    with open(path, "rb") as file:
        while b'\n  "details": [' not in head:
            block = file.read(1 << 16)
            if not block:
                return json.loads(head)
            head += block
    text = head[: head.index(b'\n  "details": [')].decode("utf-8")
    return json.loads(text.rstrip().rstrip(",") + "\n}" if text.strip() != "{" else "{}")


def file_sha256(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def judge_only(path: pathlib.Path) -> float:
    """Seconds the rule judge alone takes on the distinct (reference, answer) pairs of ``path``."""
    from gpassk_opencompass.judges import JudgeSettings
    from gpassk_opencompass.judges.extraction import extract
    from gpassk_opencompass.judges.workers import judge_by_rule

    pairs = set()
    with open(path, encoding="utf-8") as file:
        for line in file:
            data = json.loads(line)
            pairs.update((data["answer"], extract(prediction).answer) for prediction in set(data["predictions"]))
    started = time.perf_counter()
    settings = JudgeSettings(kind="rule")  # the defaults gpassk score uses
    judge_by_rule(
        sorted(pairs, key=str), timeout=settings.rule_timeout, processes=settings.rule_processes, progress=False
    )
    return time.perf_counter() - started


def report(name: str, figures: dict, judging: float | None) -> None:
    per_generation = figures["wall"] / figures["generations"] * 1e6
    line = (
        f"{name}: {figures['generations']:,} generations ({figures['distinct']:,} distinct), "
        f"wall {figures['wall']:.1f} s, CPU {figures['cpu']:.1f} s, peak RSS {figures['max_rss_mb']:.0f} MB, "
        f"{per_generation:.1f} us/generation"
    )
    if judging is not None:
        overhead = (figures["wall"] - judging) / figures["generations"] * 1e6
        line += f"; rule judging alone {judging:.1f} s, overhead {overhead:.1f} us/generation"
    print(line, flush=True)


def measure(name: str, path: pathlib.Path, k: int, against: pathlib.Path | None, judging: float | None) -> bool:
    """Score ``path`` with ``against``'s package (when given), then with this tree's; whether the results match."""
    if against is None:
        report(name, run_score(path, k), judging)
        return True
    old = run_score(path, k, against)
    report(f"{name} [{against}]", old, judging)
    new = run_score(path, k)
    report(f"{name} [{ROOT}]", new, judging)
    same = old["sha256"] == new["sha256"]
    print(f"  results {'byte-identical' if same else 'DIFFER'}: sha256 {old['sha256']} / {new['sha256']}", flush=True)
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--skip-lines", action="store_true", help="skip the one-million-short-lines input")
    parser.add_argument("--judge-only", action="store_true", help="also time the rule judge alone")
    parser.add_argument(
        "--against", type=pathlib.Path, help="another source tree: run its gpassk score first, compare the results"
    )
    args = parser.parse_args()
    against = args.against.resolve() if args.against else None
    same = True
    with tempfile.TemporaryDirectory() as directory:
        folder = pathlib.Path(directory)
        big = folder / "generations.jsonl"
        write_generations(big, args.questions, args.n)
        judging = judge_only(big) if args.judge_only else None
        same &= measure(f"{args.questions:,} questions x n = {args.n}", big, min(16, args.n), against, judging)
        big.unlink()
        if not args.skip_lines:
            short = folder / "short.jsonl"
            write_short_lines(short, args.lines)
            judging = judge_only(short) if args.judge_only else None
            same &= measure(f"{args.lines:,} short lines (n = 1)", short, 1, against, judging)
    if not same:
        raise SystemExit("the results differ")


if __name__ == "__main__":
    main()
