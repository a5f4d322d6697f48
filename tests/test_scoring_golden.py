"""Equal results, byte for byte: ``gpassk score`` on n samples drawn from a few answers per question (the shape of
benchmarks/bench_score_scale.py) against what is worked out here, independently of the package.

Each ``details`` line of the written file is compared, as text, with ``json.dumps`` of the entry computed here: its
verdicts from the answers' values, its counts, its digests by hashlib. Every metric is compared with the exact
rational of tests/exact.py (Fraction + math.comb). A change to how the results are held or written (shared verdict
records, a question's line joined from encoded verdicts, counts from compact indices) that alters one byte fails.
"""

from __future__ import annotations

import hashlib
import json
import random
from fractions import Fraction
from itertools import pairwise

from exact import exact_g_pass, exact_mg_pass
from gpassk_opencompass.cli import main
from scoring_fixtures import THRESHOLDS, write_jsonl

QUESTIONS, N, KS = 100, 24, (4, 16)  # over 256 distinct answers: the rule judge runs in its worker processes


def candidates(q: int) -> tuple[int, list[tuple[str, str | None, int | None]]]:
    """Question ``q``'s reference, and the answers its samples are drawn from: (text, boxed answer, its value)."""
    reference = 20 + 3 * q
    return reference, [
        (f"So the total is $\\boxed{{{reference}}}$.", str(reference), reference),
        (f"So the total is $\\boxed{{{reference + 1}}}$.", str(reference + 1), reference + 1),
        (f"The count is \\boxed{{0{reference}}}.", f"0{reference}", reference),  # a leading zero: the same integer
        (f"Halving, \\boxed{{\\frac{{{2 * reference}}}{{2}}}}.", f"\\frac{{{2 * reference}}}{{2}}", reference),
        ("I cannot decide.", None, None),  # no final answer: wrong, and counted as ending without one
    ]


def rows() -> list[dict]:
    rng = random.Random(29)
    drawn = []
    for q in range(QUESTIONS):
        reference, answers = candidates(q)
        weights = rng.choice([(6, 3, 1, 1, 1), (1, 8, 0, 0, 2), (1, 0, 1, 1, 0), (0, 1, 0, 0, 1)])
        samples = rng.choices(answers, weights, k=N)
        drawn.append(
            {
                "id": f"q{q}",
                "question": f"Problem {q}: how many ways?",
                "answer": str(reference),
                "predictions": [text for text, _, _ in samples],
            }
        )
    return drawn


def digest(texts: list[str]) -> str:
    """sha256 of the JSON list of the texts (all ASCII here, so NFC leaves them as they are)."""
    return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8")).hexdigest()


def expected_entry(row: dict) -> dict:
    reference = int(row["answer"])
    _, answers = candidates(int(row["id"][1:]))
    by_text = {text: (boxed, value) for text, boxed, value in answers}
    verdicts = []
    for text in row["predictions"]:
        boxed, value = by_text[text]
        if boxed is None:
            correct, reason = False, "no final answer found"
        else:
            correct = value == reference
            reason = "math-verify: equivalent" if correct else "math-verify: not equivalent"
        verdicts.append(
            {"correct": correct, "extracted": boxed, "reason": reason, "source": "rule", "rule_correct": None}
        )
    return {
        "id": row["id"],
        "c": sum(verdict["correct"] for verdict in verdicts),
        "n": len(verdicts),
        "unresolved": 0,
        "cut": 0,
        "no_answer": sum(verdict["extracted"] is None for verdict in verdicts),
        "generations_sha256": digest(row["predictions"]),
        "question_sha256": digest([row["question"], row["answer"]]),
        "verdicts": verdicts,
    }


def test_gpassk_score_writes_byte_for_byte_the_results_worked_out_independently(tmp_path):
    drawn = rows()
    source = write_jsonl(tmp_path / "gens.jsonl", drawn)
    output = tmp_path / "results.json"
    k_options = [str(k) for k in KS]
    assert main(["score", str(source), "--k", *k_options, "--judge", "rule", "--output", str(output), "--quiet"]) == 0
    text = output.read_text(encoding="utf-8")

    head, _, lines = text.partition('\n  "details": [\n    ')
    assert lines.endswith("\n  ]\n}\n")
    written = lines.removesuffix("\n  ]\n}\n").split(",\n    ")
    expected = [json.dumps(expected_entry(row), ensure_ascii=False) for row in drawn]
    assert len(written) == QUESTIONS
    for line, entry in zip(written, expected):
        assert line == entry

    counts = [json.loads(entry)["c"] for entry in expected]
    assert 0 in counts and N in counts and len(set(counts)) > 10  # the draw covers the whole range
    header = json.loads(head.rstrip(",") + "\n}")
    assert abs(header[f"accuracy ({N} runs average)"] - float(Fraction(sum(counts), N * QUESTIONS) * 100)) < 1e-9
    for k in KS:
        for tau in THRESHOLDS:
            exact = sum((exact_g_pass(N, c, k, Fraction(tau)) for c in counts), Fraction(0)) / QUESTIONS * 100
            assert abs(header[f"G-Pass@{k}_{float(Fraction(tau))}"] - float(exact)) < 1e-9, (k, tau)
        exact = sum((exact_mg_pass(N, c, k) for c in counts), Fraction(0)) / QUESTIONS * 100
        assert abs(header[f"mG-Pass@{k}"] - float(exact)) < 1e-9, k
    stats = header["gpassk"]["judge_stats"]
    distinct = {(row["id"], text) for row in drawn for text in row["predictions"]}
    assert stats["total"] == QUESTIONS * N and stats["unique"] == len(distinct) and stats["unresolved"] == 0
    assert header["gpassk"]["cut"]["no_answer"] == sum(json.loads(entry)["no_answer"] for entry in expected)


def test_compact_counts_match_a_plain_count_empty_questions_included():
    from gpassk_opencompass.judges.types import Verdict
    from gpassk_opencompass.scoring.details import CompactDetails

    rng = random.Random(3)
    verdicts = [Verdict(rng.choice([True, False, None]), str(i)) for i in range(40)]
    sizes = [rng.choice([0, 0, 1, 5, 17]) for _ in range(300)]
    slots = [rng.randrange(len(verdicts)) for _ in range(sum(sizes))]
    offsets = [0]
    for size in sizes:
        offsets.append(offsets[-1] + size)
    details = CompactDetails([f"q{i}" for i in range(len(sizes))], {}, verdicts, slots, offsets)
    for position, (start, stop) in enumerate(pairwise(offsets)):
        mine = [verdicts[slot].correct for slot in slots[start:stop]]
        assert (details.n[position], details.c[position]) == (len(mine), mine.count(True))
        assert details.unresolved[position] == mine.count(None)
    assert CompactDetails([], {}, verdicts, [], [0]).c.tolist() == []


def test_equal_generations_of_a_question_are_read_as_one_object(tmp_path):
    """n samples drawn from a few answers hold each answer once (the parser makes a string per sample)."""
    from gpassk_opencompass.scoring.readers import read_questions

    source = write_jsonl(tmp_path / "gens.jsonl", rows())
    for question, row in zip(read_questions(source, "gpassk"), rows()):
        assert question.predictions == tuple(row["predictions"])
        first = {}
        for text in question.predictions:
            assert first.setdefault(text, text) is text
