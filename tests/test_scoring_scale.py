"""Scale: ``gpassk score``'s per-generation work is a lookup; extraction, judging and redaction run per distinct value.

Counted, not timed (benchmarks/bench_score_scale.py times the real command on a million generations).
"""

from __future__ import annotations

import json
import tracemalloc

from gpassk_opencompass import redaction
from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import batch
from scoring_fixtures import expected_metrics, generations, write_jsonl

COUNTS = [0, 1, 3, 4, 6, 8, 8, 5] * 25  # 200 questions x n = 64: 12,800 generations, 1,275 distinct


def test_each_distinct_generation_is_extracted_once_and_each_distinct_string_redacted_once(tmp_path, monkeypatch):
    extracted, redacted = [], []
    real_extract, real_redact = batch.extract, redaction.Redactor.__call__
    monkeypatch.setattr(batch, "extract", lambda text: extracted.append(text) or real_extract(text))
    monkeypatch.setattr(
        redaction.Redactor, "__call__", lambda self, text: redacted.append(text) or real_redact(self, text)
    )
    rows = generations(COUNTS, n=64)
    source = write_jsonl(tmp_path / "gens.jsonl", rows)
    output = tmp_path / "scores.json"
    assert main(["score", str(source), "--k", "4", "16", "--judge", "rule", "--output", str(output), "--quiet"]) == 0
    result = json.loads(output.read_text())
    distinct = {(row["question"], row["language"], prediction) for row in rows for prediction in row["predictions"]}
    stats = result["gpassk"]["judge_stats"]
    assert len(extracted) == len(distinct) == 1275 and stats["unique"] <= len(distinct)
    assert stats["total"] == 12_800 and stats["deduplicated"] == 12_800 - stats["unique"]
    assert max(map(redacted.count, set(redacted))) == 1  # once: not per use, and the written results not again
    assert [question["c"] for question in result["details"]] == COUNTS
    for key, value in expected_metrics(COUNTS, 64, [4, 16]).items():
        assert abs(result[key] - value) < 1e-9, key


def test_the_memory_of_a_generation_is_a_reference_not_a_verdict_record(tmp_path):
    """Doubling n adds per generation a few list slots (a reference to a shared verdict), not a record."""
    from gpassk_opencompass.judges import JudgeSettings
    from gpassk_opencompass.scoring.flow import score_questions
    from gpassk_opencompass.scoring.readers import read_questions
    from gpassk_opencompass.scoring.request import ScoringRequest

    peaks = {}
    for n in (32, 64, 128):  # the first run also imports math-verify and starts the workers: not compared
        source = write_jsonl(tmp_path / f"gens{n}.jsonl", generations(COUNTS, n=n))
        questions = read_questions(source, "gpassk")
        tracemalloc.start()
        score_questions(questions, ScoringRequest(ks=(4,), n_boot=10), JudgeSettings(kind="rule"), progress=False)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    per_generation = (peaks[128] - peaks[64]) / (len(COUNTS) * 64)
    assert per_generation < 100, per_generation  # a verdict record and an item per generation cost ~1,000 bytes


def _scoring_peak(source, output, k: int) -> int:
    """tracemalloc's peak while ``gpassk score`` (its Python face) reads ``source``, scores it and writes ``output``."""
    from gpassk_opencompass.judges.registry import resolve_judge
    from gpassk_opencompass.scoring.flow import score_file
    from gpassk_opencompass.scoring.request import ScoringRequest

    tracemalloc.start()
    try:
        score_file(source, ScoringRequest(ks=(k,)), resolve_judge("rule"), output=output, progress=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _short_lines(path, lines: int):
    """``lines`` questions of one short generation each, as the benchmark's million short lines."""
    with open(path, "w", encoding="utf-8") as file:
        for q in range(lines):
            reference = q % 100
            answer = reference if q % 5 < 3 else reference + 1
            file.write(
                json.dumps(
                    {
                        "id": f"q{q}",
                        "question": f"p{reference}",
                        "answer": str(reference),
                        "predictions": [f"\\boxed{{{answer}}}"],
                    }
                )
                + "\n"
            )
    return path


def test_a_question_costs_under_a_kilobyte_from_its_line_to_the_written_results(tmp_path):
    """A million questions within the 1.2 GB budget: reading, judging, counting and writing one question holds
    under 1,000 bytes at the peak (its parsed line, an index, its digests; its details entry is built when
    written), not a record and a document entry (~5 KB each before)."""
    peaks = {}
    for lines in (1_000, 5_000, 10_000):  # the first imports math-verify and starts the workers: not compared
        source = _short_lines(tmp_path / f"short{lines}.jsonl", lines)
        peaks[lines] = _scoring_peak(source, tmp_path / f"short{lines}.json", k=1)
    per_question = (peaks[10_000] - peaks[5_000]) / 5_000
    assert per_question < 1_000, per_question
    written = json.loads((tmp_path / "short10000.json").read_text())
    assert [question["c"] for question in written["details"][:5]] == [1, 1, 1, 0, 0]
    assert written["accuracy"] == 60.0


def test_a_generation_costs_its_text_and_an_index_from_its_line_to_the_written_results(tmp_path):
    """Doubling n through the whole command (results written) adds per generation at most its text and an index,
    not a verdict entry held in a document in memory."""
    peaks = {}
    for n in (32, 64, 128):  # the first imports math-verify and starts the workers: not compared
        source = write_jsonl(tmp_path / f"gens{n}.jsonl", generations(COUNTS, n=n))
        peaks[n] = _scoring_peak(source, tmp_path / f"gens{n}.json", k=4)
    per_generation = (peaks[128] - peaks[64]) / (len(COUNTS) * 64)
    assert per_generation < 150, per_generation


def test_the_compact_details_read_as_the_records_written(tmp_path):
    """What ``score`` returns (details held compactly) reads as what it wrote: records, labels, digests, document."""
    from gpassk_opencompass.scoring.details import texts_digest
    from gpassk_opencompass.scoring.flow import score
    from gpassk_opencompass.scoring.questions import Question
    from gpassk_opencompass.scoring.results_io import json_document, load_results

    questions = [
        Question(f"q{q}", f"p{q}", "7", tuple(f"\\boxed{{{7 + (q + g) % 3}}}" for g in range(4)), labels={"split": s})
        for q, s in enumerate(["a", "b", "a"])
    ]
    output = tmp_path / "results.json"
    results = score(questions, k=2, judge="rule", output=output, subsets=("split",), progress=False)
    read = load_results(output)
    assert results.details == read.details and read.details == results.details
    assert json_document(results) == json.loads(output.read_text())
    assert [question.c for question in results.details] == [2, 1, 1]  # 7 of 7, 8, 9 (cycled from q)
    assert results.details[-1].labels == {"split": "a"} and results.details[1:2] == (read.details[1],)
    assert results.details[0].generations_sha256 == texts_digest(questions[0].predictions)
    assert results.details[2].question_sha256 == texts_digest(["p2", "7"])
