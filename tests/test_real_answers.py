"""The rule judge on answers real models wrote (tests/real_answers.py): every row gets its verdict."""

import json

import math_verify
import pytest

from gpassk_opencompass import score
from gpassk_opencompass.cli import EXIT_OK, main
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items, rule_verdict
from gpassk_opencompass.judges.extraction import extract_answer
from real_answers import AIME_GOLDS, ROWS


def _id(row):
    return f"{row.gold}|{row.generation[:40]}"


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_row_gets_its_verdict(row):
    verdict = rule_verdict(row.gold, extract_answer(row.generation))
    assert verdict.correct is row.correct, f"{row.why} ({row.source}): {verdict.reason}"


@pytest.fixture
def math_verify_calls(monkeypatch):
    """Count math-verify's parses and comparisons (the rule judge imports them when it uses them)."""
    calls = []
    for name in ("parse", "verify"):
        original = getattr(math_verify, name)
        monkeypatch.setattr(
            math_verify,
            name,
            lambda *args, _original=original, _name=name, **kwargs: (calls.append(_name), _original(*args, **kwargs))[
                1
            ],
        )
    return calls


@pytest.mark.parametrize("gold", AIME_GOLDS)
@pytest.mark.parametrize("row", [row for row in ROWS if row.size], ids=_id)
def test_huge_answers_are_decided_without_math_verify(row, gold, math_verify_calls):
    """The answers that made math-verify time out never reach it, whatever the (AIME-range) gold."""
    verdict = rule_verdict(gold, extract_answer(row.generation))
    assert verdict.correct is False and verdict.reason.startswith("size check:"), verdict.reason
    assert math_verify_calls == []


def test_the_counter_sees_math_verify(math_verify_calls):
    assert rule_verdict("1024", "2^{10}").correct is True
    assert "verify" in math_verify_calls


def test_a_whole_batch_of_real_answers_resolves():
    """Through judge_items, as gpassk score runs it: no verdict left unresolved."""
    items = [JudgeItem("q", row.gold, row.generation) for row in ROWS]
    report = judge_items(items, JudgeSettings(kind="rule"), progress=False)
    assert report.stats.unresolved == 0
    assert [verdict.correct for verdict in report.verdicts] == [row.correct for row in ROWS]


def _questions():
    return [
        {"id": f"row{position}", "question": row.why, "answer": row.gold, "predictions": [row.generation]}
        for position, row in enumerate(ROWS)
    ]


def test_a_whole_file_of_real_answers_scores_complete_from_the_cli(tmp_path, capsys):
    """gpassk score --judge rule over every row (the default --rule-timeout, given: a parse of the long e^{2ix} sums takes over 1 s on a loaded 2-core machine): exit 0, every verdict the row's."""
    source = tmp_path / "real.jsonl"
    source.write_text("".join(json.dumps(question) + "\n" for question in _questions()), encoding="utf-8")
    output = tmp_path / "scores.json"
    argv = ["score", str(source), "--k", "1", "--judge", "rule", "--rule-timeout", "3", "--output", str(output)]
    code = main([*argv, "--quiet"])
    assert code == EXIT_OK, capsys.readouterr().err
    details = json.loads(output.read_text())["details"]
    assert [detail["verdicts"][0]["correct"] for detail in details] == [row.correct for row in ROWS]
    assert not (tmp_path / "real.jsonl.judge-cache.jsonl").exists()  # the rule judge keeps no cache


def test_a_whole_batch_of_real_answers_scores_complete_from_python():
    results = score(_questions(), k=1, judge="rule", rule_timeout=3, progress=False)
    assert results.complete and results.unresolved == 0
    assert [detail.verdicts[0].correct for detail in results.details] == [row.correct for row in ROWS]
