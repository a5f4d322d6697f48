"""Secrets never reach a log, whoever configured logging: the package's own records are redacted.

Outside the ``gpassk`` CLI nobody calls :func:`gpassk_opencompass.cli.configure_logging`: ``score()`` from a
notebook, the leaderboard from Python, and :class:`GPassKEvaluator` inside OpenCompass's eval task log to
whatever sinks exist (loguru's default: stderr). Each test here leaves loguru as it is by default (no global
patcher), adds a sink that keeps everything down to TRACE, and looks for the secrets in what arrived.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from loguru import logger

from gpassk_opencompass.log import enable_logging
from leaderboard_workdirs import standard_grid, write_results, write_run
from loopback_judge import exact_match_judge
from loopback_openai import Fault

KEY = "sk-logprobe-0123456789abcdef"  # the judge's API key (OC_JUDGE_API_KEY)
TOKEN = "9f86d081884c7d659a2feaa0c55ad015"  # the judge URL's token, in its path and its query


@pytest.fixture
def logged(monkeypatch):
    """Every record loguru emits during the test, formatted, with loguru's default configuration."""
    monkeypatch.setenv("OC_JUDGE_API_KEY", KEY)
    logger.configure(patcher=None)  # what a process that never ran configure_logging has
    enable_logging()  # ... once it shows the package's records (the library starts silent)
    lines: list[str] = []
    sink = logger.add(
        lambda message: lines.append(str(message).rstrip("\n")), level="TRACE", format="{level}: {message}"
    )
    yield lines
    logger.remove(sink)


def leaks(lines: list[str]) -> list[str]:
    return [line for line in lines if KEY in line or TOKEN in line]


class ChattyJudge:
    """A judge that quotes the request's credentials back: in an HTTP 500, then in a reply without a verdict.

    Its URL carries a token in its path and its query (``url``, once served).
    """

    def __init__(self, loopback_openai):
        self.replies = [
            lambda: Fault(500, body=json.dumps({"error": {"message": f"bad header Authorization: Bearer {KEY}"}})),
            lambda: f"no verdict: you sent Authorization: Bearer {KEY} to {self.url}",
        ]
        self.server = loopback_openai(self)
        self.url = f"http://127.0.0.1:{self.server.port}/u/{TOKEN}/v1?token={TOKEN}"

    def __call__(self, body: dict):
        return self.replies.pop(0)() if self.replies else exact_match_judge(body)


def test_score_from_python_logs_no_secret(loopback_openai, logged, tmp_path):
    from gpassk_opencompass import score

    judge = ChattyJudge(loopback_openai)
    questions = [{"id": "q", "question": "1+1?", "answer": "2", "predictions": [r"\boxed{2}", r"\boxed{3}"]}]
    options = dict(judge_url=judge.url, judge_model="loopback-model", backoff_base=0.001, progress=False)
    cache = tmp_path / "gens.judge-cache.jsonl"
    for _ in range(2):  # the second run resumes from the cache (and says so)
        results = score(questions, k=1, judge="llm", cache=cache, **options)
        assert results.complete
    assert len(judge.server.requests) == 4  # the 500, the reply without a verdict, two verdicts; none asked again
    assert any("judge cache" in line for line in logged) and any("retry" in line for line in logged)
    assert leaks(logged) == []


@pytest.mark.e2e
def test_the_evaluator_in_opencompass_logs_no_secret(loopback_openai, logged):
    # deferred: imports OpenCompass (BaseDataset, BaseEvaluator), which only the e2e step pays for
    from evaluator_fixtures import run
    from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

    judge = ChattyJudge(loopback_openai)
    results = run(GPassKEvaluator(model_name="loopback-model", url=judge.url, backoff_base=0.001))
    assert "error" not in results
    described = [line for line in logged if "GPassKEvaluator:" in line]
    assert described == [
        f"INFO: GPassKEvaluator: 6 questions x n=8, judged by the LLM judge 'loopback-model' at "
        f"http://127.0.0.1:{judge.server.port}/u/[REDACTED]/v1?token=[REDACTED] (prompt gpassk-judge-v2) "
        "(judge='auto': URLs given)"
    ]
    assert leaks(logged) == []


def test_the_leaderboard_from_python_logs_no_secret(logged, tmp_path):
    """A results file OpenCompass wrote for a failed evaluation quotes the failing request (key, URL)."""
    from gpassk_opencompass.leaderboard.pipeline import LeaderboardRequest, make_leaderboard

    run_dir = write_run(tmp_path / "outputs", "20250213_101500", standard_grid())
    error = f"Error code: 401 - Incorrect API key provided: {KEY} at http://judge:8000/v1?token={TOKEN}"
    write_results(run_dir, "other-model", "LiveMathBench-202412", {"error": error})
    make_leaderboard(LeaderboardRequest(outputs=(tmp_path / "outputs",), files=(tmp_path / "board.md",)))
    skipped = [line for line in logged if "the evaluation failed" in line]
    assert len(skipped) == 1 and "[REDACTED] at http://judge:8000/v1?token=[REDACTED])" in skipped[0]
    assert leaks(logged) == []


def test_every_module_logs_through_the_package_logger():
    """Only gpassk_opencompass/log.py takes loguru's logger: every other module's records are redacted."""
    package = Path(__file__).resolve().parent.parent / "gpassk_opencompass"
    direct = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "loguru"
                and "logger" in {a.name for a in node.names}
            ):
                direct.append(str(path.relative_to(package)))
    assert direct == ["log.py"]
