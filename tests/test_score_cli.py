"""``gpassk score`` end to end: exact metrics, the LLM judge over HTTP, clean errors, kill and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import PROMPT_VERSION
from gpassk_opencompass.judges.cache import VerdictCache
from gpassk_opencompass.judges.types import MAX_CONCURRENCY
from loopback_judge import exact_match_judge, shown
from loopback_openai import Fault
from scoring_fixtures import COUNTS, MODEL, expected_metrics, generations, write_jsonl


def test_rule_judge_scores_equal_the_exact_computation(tmp_path, capsys):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    output = tmp_path / "scores.json"
    assert main(["score", str(source), "--k", "2", "4", "8", "--output", str(output), "--quiet"]) == 0
    result = json.loads(output.read_text())
    expected = expected_metrics(COUNTS, 8, [2, 4, 8])
    # OpenCompass's key order: the accuracy average, then per k the thresholds and mG
    assert list(result)[: len(expected) + 1] == ["accuracy (8 runs average)", *expected]
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-9), key
    assert result["accuracy (8 runs average)"] == pytest.approx(100 * sum(COUNTS) / (8 * len(COUNTS)))
    info = result["gpassk"]
    assert info["k"] == [2, 4, 8] and info["n"] == 8 and info["thresholds"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert info["judge"] == "rule" and info["prompt_version"] is None
    estimate = info["uncertainty"]["G-Pass@4_0.5"]
    assert estimate["mean"] == pytest.approx(expected["G-Pass@4_0.5"])
    assert estimate["ci_low"] <= estimate["mean"] <= estimate["ci_high"] and estimate["ci"] == 0.95
    assert info["judge_stats"]["total"] == 64 and info["judge_stats"]["unique"] < 64
    assert [question["c"] for question in result["details"]] == COUNTS
    first = result["details"][1]
    assert first["id"] == "q1" and first["n"] == 8 and first["unresolved"] == 0
    assert [verdict["correct"] for verdict in first["verdicts"]] == [True] + [False] * 7
    assert first["verdicts"][0]["extracted"] == "7" and first["verdicts"][0]["source"] == "rule"
    table = capsys.readouterr().out
    assert table.startswith("8 questions, n=8, rule judge")
    assert "G-Pass@4_0.5" in table and "95% CI" in table


def test_without_output_a_table_goes_to_stdout(tmp_path, capsys):
    source = write_jsonl(tmp_path / "gens.jsonl", generations([2, 4], n=4))
    assert main(["score", str(source), "--k", "4", "--thresholds", "0.5", "1", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 questions, n=4, rule judge"
    rows = {line.split()[0]: line.split()[1] for line in lines[2:-1]}
    expected = expected_metrics([2, 4], 4, [4])
    assert float(rows["G-Pass@4_0.5"]) == pytest.approx(expected["G-Pass@4_0.5"], abs=0.005)
    assert float(rows["mG-Pass@4"]) == pytest.approx(expected["mG-Pass@4"], abs=0.005)


def llm_args(server, source, *extra):
    return [
        "score",
        str(source),
        "--k",
        "2",
        "4",
        "--judge",
        "llm",
        "--judge-url",
        server.url,
        "--judge-model",
        MODEL,
        "--quiet",
        *extra,
    ]


def test_llm_judge_over_http(loopback_openai, tmp_path):
    server = loopback_openai(exact_match_judge)
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    output = tmp_path / "scores.json"
    assert main(llm_args(server, source, "--output", str(output))) == 0
    result = json.loads(output.read_text())
    # the exact-match judge says yes only to the literal "7": \frac{14}{2} counts as wrong
    counts = [sum(1 for i in range(c) if i % 3 != 2) for c in COUNTS]
    assert [question["c"] for question in result["details"]] == counts
    for key, value in expected_metrics(counts, 8, [2, 4]).items():
        assert result[key] == pytest.approx(value, abs=1e-9), key
    info = result["gpassk"]
    assert info["judge"] == "llm" and info["judge_model"] == MODEL and info["prompt_version"] == PROMPT_VERSION
    stats = info["judge_stats"]
    assert stats["requests"] == len(server.requests) == stats["unique"] - stats["cached"]
    assert stats["deduplicated"] == 64 - stats["unique"] and stats["unresolved"] == 0
    cache = info["cache"]  # the default cache: in the user's cache folder (conftest: XDG_CACHE_HOME), never beside
    assert Path(cache["file"]).is_file() and "/gpassk-opencompass/verdicts/" in cache["file"]
    assert cache["verdicts"] == stats["cached"] == 0 and not (tmp_path / "gens.judge-cache.jsonl").exists()


def test_several_urls_and_faults_through_the_cli(loopback_openai, tmp_path):
    attempts = {}

    def flaky(body):
        answer = shown(body, "student_answer") + shown(body, "problem")
        attempts[answer] = attempts.get(answer, 0) + 1
        faults = [Fault(status=503), Fault(status=429, retry_after=0.05), Fault(drop=True)]
        return faults[len(answer) % 3] if attempts[answer] == 1 else exact_match_judge(body)

    servers = [loopback_openai(flaky), loopback_openai(flaky)]
    source = write_jsonl(tmp_path / "gens.jsonl", generations([3, 5], n=8))
    output = tmp_path / "scores.json"
    argv = [
        "score",
        str(source),
        "--k",
        "4",
        "--judge",
        "llm",
        "--judge-url",
        servers[0].url,
        servers[1].url,
        "--judge-model",
        MODEL,
        "--quiet",
        "--no-cache",
        "--output",
        str(output),
    ]
    assert main(argv) == 0
    result = json.loads(output.read_text())
    assert [question["c"] for question in result["details"]] == [2, 4]
    assert all(len(server.requests) > 0 for server in servers)
    assert result["gpassk"]["judge_stats"]["retries"] == result["gpassk"]["judge_stats"]["unique"]
    assert not (tmp_path / "gens.judge-cache.jsonl").exists()


GOOD = {"id": "a", "question": "q", "answer": "1", "predictions": ["1", "2", "3", "4"]}

BAD_INPUTS = [
    ("not JSON", ["{oops"], "line 2: not valid JSON"),
    ("not an object", [[1, 2]], "line 2: expected a JSON object, got list"),
    ("missing field", [{"id": "b", "question": "q", "answer": "1"}], "line 2: missing 'predictions'"),
    ("unknown field", [{**GOOD, "id": "b", "prediction": []}], "line 2: unknown field(s) 'prediction'"),
    ("numeric answer", [{**GOOD, "id": "b", "answer": 42}], 'line 2: "answer" must be a string, got int 42'),
    (
        "non-string prediction",
        [{**GOOD, "id": "b", "predictions": ["1", None, "2", "3"]}],
        'line 2: "predictions"[1] must be a string, got NoneType None',
    ),
    (
        "too few predictions",
        [{**GOOD, "id": "b", "predictions": ["1", "2"]}],
        "line 2: question 'b' has 2 prediction(s); at least 4 are needed (the largest k)",
    ),
    ("bad language", [{**GOOD, "id": "b", "language": "fr"}], 'line 2: "language" must be one of en, cn'),
    ("duplicate id", [dict(GOOD)], "line 2: id 'a' repeats line 1"),
]


@pytest.mark.parametrize("rows, message", [row[1:] for row in BAD_INPUTS], ids=[row[0] for row in BAD_INPUTS])
def test_bad_input_lines_fail_before_any_judge_request(loopback_openai, tmp_path, capsys, rows, message):
    server = loopback_openai(exact_match_judge)
    source = tmp_path / "gens.jsonl"
    source.write_text(
        json.dumps(GOOD) + "\n" + "\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n"
    )
    assert (
        main(
            [
                "score",
                str(source),
                "--k",
                "4",
                "--judge",
                "llm",
                "--judge-url",
                server.url,
                "--judge-model",
                MODEL,
                "--quiet",
            ]
        )
        == 2
    )
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"gpassk score: error: {source} ") and message in error
    assert len(error.splitlines()) == 1
    assert server.requests == []


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--k", "0"], "--k must satisfy --k >= 1"),
        (["--k", "4", "--thresholds", "1.5"], "--thresholds must be in [0, 1]; got --thresholds 1.5"),
        (["--k", "4", "--judge", "llm"], "judge kind 'llm' needs at least one judge URL"),
        (["--k", "4", "--judge", "rule", "--judge-url", "http://127.0.0.1:9/v1"], "uses no judge model but URLs"),
        (["--k", "4", "--judge-url", "http://127.0.0.1:9"], "has no path"),
        (
            ["--k", "4", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m", "--concurrency", "0"],
            "--concurrency 0: input should be greater than or equal to 1",
        ),
        (["--k", "4", "--output", "/nonexistent-dir/scores.json"], "folder /nonexistent-dir does not exist"),
        (["--k", "4", "--ci", "1.5"], "--ci must be in (0, 1), got 1.5"),
        (["--k", "4", "--bootstrap", "0"], "--bootstrap 0: input should be greater than or equal to 1"),
        (
            ["--k", "4", "--rule-timeout", "0"],
            "--rule-timeout 0 is out of range: math-verify's time per parse or "
            "comparison must be 1 to 600 whole seconds",
        ),
        (["--k", "4", "--rule-timeout", "601"], "--rule-timeout 601 is out of range"),
    ],
)
def test_bad_arguments_fail_before_judging(loopback_openai, tmp_path, capsys, extra, message):
    server = loopback_openai(exact_match_judge)
    source = write_jsonl(tmp_path / "gens.jsonl", [GOOD])
    if "--judge" not in extra and "--judge-url" not in extra:  # a judge that would be asked if judging began
        extra = [*extra, "--judge-url", server.url, "--judge-model", MODEL]
    assert main(["score", str(source), "--quiet", *extra]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1
    assert server.requests == []


@pytest.mark.e2e  # two real gpassk processes (the console's own stderr and exit codes)
def test_missing_input_file_is_exit_2_and_unreachable_judge_exit_4_each_one_line(tmp_path):
    source = write_jsonl(tmp_path / "gens.jsonl", [GOOD])
    for argv, code, message in [
        (
            [str(tmp_path / "absent.jsonl"), "--k", "4"],
            2,
            "error: " + str(tmp_path / "absent.jsonl") + ": no such file",
        ),
        (
            [str(source), "--k", "4", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"],
            4,
            "the judge failed: cannot reach the judge server at http://127.0.0.1:9/v1",
        ),
    ]:
        completed = subprocess.run(
            [sys.executable, "-m", "gpassk_opencompass.cli", "score", *argv, "--quiet"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert completed.returncode == code, completed.stderr
        lines = completed.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gpassk score: ")
        assert message in completed.stderr and "Traceback" not in completed.stderr
    assert "run the same command again to resume" in completed.stderr


def test_identical_replicas_are_flagged(tmp_path, capsys):
    source = write_jsonl(tmp_path / "gens.jsonl", [{**GOOD, "id": str(i), "predictions": ["1"] * 4} for i in range(3)])
    output = tmp_path / "scores.json"
    assert main(["score", str(source), "--k", "4", "--output", str(output)]) == 0
    assert json.loads(output.read_text())["gpassk"]["identical_replicas_share"] == 1.0
    assert "byte-identical generations" in capsys.readouterr().err


@pytest.mark.e2e  # a real gpassk process, killed mid-run
@pytest.mark.parametrize(
    ("signal_number", "named"),
    [(signal.SIGINT, True), (signal.SIGTERM, True), (signal.SIGKILL, True), (signal.SIGKILL, False)],
    ids=["SIGINT", "SIGTERM", "SIGKILL", "SIGKILL-default-cache"],
)
def test_killed_run_resumes_asking_only_the_missing_verdicts(
    loopback_openai, tmp_path, signal_number, named, user_cache_folder
):
    """Named (``--cache``) or the default (the user's cache folder, keyed by the input's identity): the rerun
    asks only the verdicts that never arrived."""
    answers = [str(i) for i in range(40)]
    rows = [
        {
            "id": "q",
            "question": "Pick a number",
            "answer": "7",
            "predictions": [rf"\boxed{{{answer}}}" for answer in answers],
        }
    ]
    source = write_jsonl(tmp_path / "gens.jsonl", rows)
    cache = tmp_path / "verdicts.jsonl"
    output = tmp_path / "scores.json"

    def command(server):
        return [
            sys.executable,
            "-m",
            "gpassk_opencompass.cli",
            "score",
            str(source),
            "--k",
            "4",
            "--judge",
            "llm",
            "--judge-url",
            server.url,
            "--judge-model",
            MODEL,
            "--concurrency",
            "2",
            *(["--cache", str(cache)] if named else []),
            "--output",
            str(output),
            "--quiet",
        ]

    # The judge answers 11 requests, then holds every further one until released: the kill lands
    # mid-run by counting requests, whatever the machine's speed.
    held, release, lock, seen = threading.Event(), threading.Event(), threading.Lock(), []

    def gated(body):
        with lock:
            seen.append(1)
            hold = len(seen) >= 12
        if hold:
            held.set()
            release.wait(timeout=300)
        return exact_match_judge(body)

    slow = loopback_openai(gated)
    # A shell's background job ignores SIGINT and its children inherit that: give ours the default back.
    process = subprocess.Popen(
        command(slow),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert held.wait(timeout=300), "the run never reached its 12th judge request"
        process.send_signal(signal_number)
        _, stderr = process.communicate(timeout=120)
    finally:
        release.set()
    if signal_number == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:  # Ctrl-C exits 130, SIGTERM 143 (stop_on_signals), each with its word, the verdicts kept
        said = "interrupted" if signal_number == signal.SIGINT else "terminated by SIGTERM"
        assert process.returncode == 128 + signal_number and f"{said}; every verdict" in stderr, stderr
        assert "Traceback" not in stderr
    assert not output.exists()

    if not named:
        (cache,) = (user_cache_folder / "verdicts").glob("*.jsonl")
    with VerdictCache(cache) as saved:
        assert 0 < len(saved) < 40 and saved.skipped_lines == 0
    judged_before = {json.loads(line)["answer"] for line in cache.read_text().splitlines()}
    assert judged_before <= {shown(body, "student_answer") for body in slow.requests}

    fast = loopback_openai(exact_match_judge)
    resumed = subprocess.run(command(fast), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    asked_again = [shown(body, "student_answer") for body in fast.requests]
    assert sorted(asked_again) == sorted(set(answers) - judged_before)  # each missing verdict once, nothing else
    result = json.loads(output.read_text())
    assert result["details"][0]["c"] == 1
    assert result["gpassk"]["judge_stats"]["cached"] == len(judged_before)
    assert result["gpassk"]["cache"] == {"file": str(cache), "verdicts": len(judged_before)}


def test_the_judge_options_help_gives_the_bounds_judge_settings_declares(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "300")
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"requests in flight per URL, 1 to {MAX_CONCURRENCY} (default: 32)" in out
    assert "whole seconds from 1 to 600 (default: 3)" in out
