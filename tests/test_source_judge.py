"""``--judge source``: the source tool's own verdicts as they are, and ``gpassk agree`` against ours."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from gpassk_opencompass import score
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.results_io import load_results

QWEN = Path(__file__).parent / "data" / "qwen-math" / "test_qwen25-math-cot_-1_seed0_t0.7_s0_e-1.jsonl"


def _samples() -> list[dict]:
    return [json.loads(line) for line in QWEN.read_text().splitlines() if line.strip()]


def test_source_verdicts_are_scored_as_they_are(tmp_path):
    results = score(QWEN, k=2, judge="source", thresholds=[1.0], allow_unresolved=True, progress=False)
    assert results.gpassk.judge == "source:qwen-math"
    for detail, sample in zip(results.details, _samples()):
        assert [v.correct for v in detail.verdicts] == sample["score"]
        assert all(v.source == "source" for v in detail.verdicts)
    unresolved = [v.reason for d in results.details for v in d.verdicts if v.correct is None]
    assert unresolved == ["source:qwen-math has no verdict for this sample"]
    # G-Pass@2_1.0 with the unresolved verdict counted wrong (allow_unresolved): C(c,2)/C(n,2) averaged
    counts = [sum(v is True for v in s["score"]) for s in _samples()]
    golden = sum(Fraction(comb(c, 2), comb(len(s["code"]), 2)) for c, s in zip(counts, _samples())) / len(counts)
    assert results.metrics["G-Pass@2_1.0"] == pytest.approx(100 * float(golden))


def test_source_judge_refuses_an_input_without_verdicts(tmp_path):
    path = tmp_path / "gens.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "q", "answer": "1", "predictions": ["1", "2"]}) + "\n")
    with pytest.raises(InputError, match="--judge source: the gpassk input carries no per-sample verdicts"):
        score(path, k=1, judge="source", progress=False)


def test_agree_audits_the_source_judge_against_the_rule_judge(tmp_path):
    from gpassk_opencompass.analysis.agreement import agree_results

    source, rule = tmp_path / "source.json", tmp_path / "rule.json"
    score(QWEN, k=2, judge="source", allow_unresolved=True, output=source, progress=False)
    score(QWEN, k=2, judge="rule", output=rule, progress=False)
    report = agree_results(load_results(source), load_results(rule))
    assert (report.judge_a.name, report.judge_b.name) == ("source:qwen-math", "rule")
    verdicts = [v for s in _samples() for v in s["score"]]
    assert report.agreement.items == len(verdicts)
    assert report.agreement.unresolved_a == verdicts.count(None)
