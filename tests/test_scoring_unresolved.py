"""An unjudged answer is not a wrong answer: ``gpassk score`` and GPassKEvaluator with unresolved verdicts.

Golden values come from the exact oracle (tests/exact.py), applied to counts the
tests derive from what the loopback judge was told to answer.
"""

from __future__ import annotations

import json
import threading
from fractions import Fraction

import pytest

from exact import exact_g_pass, exact_mg_pass
from gpassk_opencompass.cli import EXIT_INCOMPLETE, EXIT_JUDGE_FAILED, EXIT_OK, main
from loopback_judge import exact_match_judge, shown
from loopback_openai import Fault
from scoring_fixtures import COUNTS, MODEL, THRESHOLDS, generations, write_jsonl

KS = [2, 4]
N = 8
#: What the exact-match judge says is right per question: the literal "7" only (\frac{14}{2} is not).
TRUE_COUNTS = [sum(1 for i in range(c) if i % 3 != 2) for c in COUNTS]


def exact_overall(counts, n=N, ks=KS):
    """Accuracy, G-Pass@k_tau, mG-Pass@k (x 100) by exact rational arithmetic."""
    values = {f"accuracy ({n} runs average)": float(100 * Fraction(sum(counts), n * len(counts)))}
    for k in ks:
        for tau in THRESHOLDS:
            values[f"G-Pass@{k}_{float(Fraction(tau))}"] = float(
                100 * sum(exact_g_pass(n, c, k, Fraction(tau)) for c in counts) / len(counts)
            )
        values[f"mG-Pass@{k}"] = float(100 * sum(exact_mg_pass(n, c, k) for c in counts) / len(counts))
    return values


def metric_keys(result):
    return [key for key in result if key not in ("gpassk", "details", "unresolved")]


def command(server, source, cache, output, *extra):
    return [
        "score",
        str(source),
        "--k",
        *map(str, KS),
        "--judge",
        "llm",
        "--judge-url",
        server.url,
        "--judge-model",
        MODEL,
        "--cache",
        str(cache),
        "--output",
        str(output),
        "--quiet",
        *extra,
    ]


def test_judge_stopping_mid_run_is_not_a_finished_run_and_the_rerun_asks_only_the_missing(
    loopback_openai, tmp_path, capsys
):
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    cache, output = tmp_path / "verdicts.jsonl", tmp_path / "scores.json"
    answered, lock = [], threading.Lock()
    holder = {}

    def dies_after_ten(body):
        with lock:
            answered.append(1)
            alive = len(answered) <= 10
        if alive:
            return exact_match_judge(body)
        if "stopping" not in holder:  # the server goes away: this connection drops, new ones are refused
            holder["stopping"] = threading.Thread(target=holder["server"].stop)
            holder["stopping"].start()
        return Fault(drop=True)

    dying = holder["server"] = loopback_openai(dies_after_ten)
    code = main(command(dying, source, cache, output, "--concurrency", "1", "--max-retries", "0"))
    holder["stopping"].join()
    err = capsys.readouterr().err
    assert code in (EXIT_INCOMPLETE, EXIT_JUDGE_FAILED), err  # 3 until judges raise JudgeError mid-run, then 4
    assert not output.exists()  # no metric was written: 6.97 where the truth is 50.56 was the bug
    assert str(cache) in err and "same command" in err
    if code == EXIT_INCOMPLETE:
        assert "could not be judged (unresolved); no metric counts them as wrong" in err
    kept = len(cache.read_text().splitlines())
    assert kept == 10  # every verdict that arrived is in the cache

    restarted = loopback_openai(exact_match_judge)
    assert main(command(restarted, source, cache, output)) == EXIT_OK
    result = json.loads(output.read_text())
    stats = result["gpassk"]["judge_stats"]
    assert len(restarted.requests) == stats["unique"] - kept  # only the missing verdicts were asked
    assert stats["cached"] == kept and result["unresolved"] == 0 and result["gpassk"]["complete"] is True
    assert [question["c"] for question in result["details"]] == TRUE_COUNTS
    for key, value in exact_overall(TRUE_COUNTS).items():
        assert result[key] == pytest.approx(value, abs=1e-9), key


def undecided_on_odd_questions(body):
    """Exact match, except that questions 1, 3, 5, 7 get a reply with no verdict (so: unresolved)."""
    if int(shown(body, "problem").split(":")[0].split()[-1]) % 2:
        return "Hard to say."
    return exact_match_judge(body)


def test_without_the_flag_no_metric_is_written_exit_3(loopback_openai, tmp_path, capsys):
    server = loopback_openai(undecided_on_odd_questions)
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    output = tmp_path / "scores.json"
    assert main(command(server, source, tmp_path / "c.jsonl", output, "--max-retries", "1")) == EXIT_INCOMPLETE
    captured = capsys.readouterr()
    assert not output.exists() and captured.out == ""
    assert "32 of 64 generations could not be judged" in captured.err
    assert "32 x judge request failed after 2 attempt(s): no verdict in the reply: Hard to say." in captured.err
    assert "--allow-unresolved" in captured.err


def test_allow_unresolved_writes_exact_bounds_that_bracket_the_true_value(loopback_openai, tmp_path, capsys):
    server = loopback_openai(undecided_on_odd_questions)
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    output = tmp_path / "scores.json"
    code = main(command(server, source, tmp_path / "c.jsonl", output, "--allow-unresolved", "--max-retries", "1"))
    assert code == EXIT_INCOMPLETE  # the flag permits writing; the run is still incomplete
    result = json.loads(output.read_text())
    info = result["gpassk"]
    assert result["unresolved"] == info["unresolved"] == 32
    assert info["complete"] is False and info["allow_unresolved"] is True and info["schema_version"] == 5
    assert info["unresolved_reasons"] == [
        ["judge request failed after 2 attempt(s): no verdict in the reply: Hard to say.", 32]
    ]
    low = [c if q % 2 == 0 else 0 for q, c in enumerate(TRUE_COUNTS)]
    high = [c if q % 2 == 0 else N for q, c in enumerate(TRUE_COUNTS)]
    assert [(d["c"], d["unresolved"]) for d in result["details"]] == [
        (c, 0 if q % 2 == 0 else N) for q, c in enumerate(low)
    ]
    exact_low, exact_high, truth = exact_overall(low), exact_overall(high), exact_overall(TRUE_COUNTS)
    assert list(info["bounds"]) == list(truth)
    for key, (lower, upper) in info["bounds"].items():
        assert lower == pytest.approx(exact_low[key], abs=1e-9), key
        assert upper == pytest.approx(exact_high[key], abs=1e-9), key
        assert lower <= truth[key] <= upper, key
        assert result[key] == pytest.approx(lower, abs=1e-9), key  # the values count unresolved as wrong
    report = capsys.readouterr().out
    assert "INCOMPLETE: values count unresolved verdicts as wrong" in report and "range" in report


@pytest.mark.e2e
def test_evaluator_omits_metrics_and_says_how_to_resume(loopback_openai, tmp_path, loguru_messages):
    # deferred: imports OpenCompass (BaseDataset, BaseEvaluator), which only the e2e step pays for
    from evaluator_fixtures import QUESTIONS
    from evaluator_fixtures import run as run_evaluator
    from gpassk_opencompass import GPassKEvaluator

    def undecided_on_question_1(body):
        if "What is 1 + 1?" in shown(body, "problem"):
            return "Hard to say."
        return "\\boxed{no}" if "-1" in shown(body, "student_answer") else "\\boxed{yes}"

    server = loopback_openai(undecided_on_question_1)
    evaluator = GPassKEvaluator(model_name=MODEL, url=server.url, max_retries=1, backoff_base=0.0)
    evaluator._out_dir = str(tmp_path / "results" / "m" / "tiny")
    results = run_evaluator(evaluator)
    assert metric_keys(results) == []  # no G-Pass, no accuracy, no subset key
    assert results["unresolved"] == 8 and results["gpassk"]["complete"] is False
    assert results["gpassk"]["uncertainty"] == {}
    counts = [c for _, _, c in QUESTIONS]
    low, high = list(counts), list(counts)
    low[1], high[1] = 0, 8
    bounds = results["gpassk"]["bounds"]
    for k in (2, 4, 8):
        for tau in THRESHOLDS:
            key = f"G-Pass@{k}_{float(Fraction(tau))}"
            assert bounds[key][0] == pytest.approx(exact_overall(low, ks=[k])[key], abs=1e-9)
            assert bounds[key][1] == pytest.approx(exact_overall(high, ks=[k])[key], abs=1e-9)
    error = next(message for message in loguru_messages if "ERROR" in message)
    assert (
        "8 of 48 generations could not be judged" in error
        and "8 x judge request failed after 2 attempt(s): no verdict in the reply" in error
    )
    assert "rerun the same opencompass command with -r" in error and "tiny.json" in error
    assert "counted as incorrect" not in " ".join(loguru_messages)

    allowed = GPassKEvaluator(model_name=MODEL, url=server.url, allow_unresolved=True, max_retries=1, backoff_base=0.0)
    allowed._out_dir = evaluator._out_dir
    kept = run_evaluator(allowed)
    assert kept["gpassk"]["allow_unresolved"] is True and kept["gpassk"]["complete"] is False
    assert kept["G-Pass@4_0.5"] == pytest.approx(bounds["G-Pass@4_0.5"][0], abs=1e-9)
    assert "CNMO/G-Pass@4_0.5" in kept


def test_complete_results_carry_schema_2_and_what_judged(loopback_openai, tmp_path):
    source = write_jsonl(tmp_path / "gens.jsonl", generations([2, 5], n=4))
    output = tmp_path / "scores.json"
    assert main(["score", str(source), "--k", "1", "4", "--output", str(output), "--quiet"]) == EXIT_OK
    rule = json.loads(output.read_text())
    info = rule["gpassk"]
    assert rule["unresolved"] == 0 and info["complete"] is True and "bounds" not in info
    assert info["judge"] == "rule" and info["judge_model"] is None
    assert info["rule_checker"].startswith("math-verify 0.") and "judge_hosts" not in info
    counts = [2, 4]  # generations([2, 5], n=4) has at most 4 right: c = min(c, n)
    accuracy = 100 * sum(counts) / 8
    for tau in THRESHOLDS:  # k = 1 was asked for: every key is there, equal to the accuracy
        assert rule[f"G-Pass@1_{float(Fraction(tau))}"] == pytest.approx(accuracy)
    assert rule["mG-Pass@1"] == 0.0 and "G-Pass@4_0.5" in rule

    server = loopback_openai(exact_match_judge)
    assert (
        main(
            [
                "score",
                str(source),
                "--k",
                "4",
                "--judge",
                "cascade",
                "--judge-url",
                server.url,
                "--judge-model",
                MODEL,
                "--output",
                str(output),
                "--quiet",
                "--no-cache",
            ]
        )
        == EXIT_OK
    )
    info = json.loads(output.read_text())["gpassk"]
    assert info["judge_model"] == MODEL and info["judge_hosts"] == [f"127.0.0.1:{server.port}"]
    assert info["rule_checker"].startswith("math-verify ")


def test_an_answer_beyond_the_rule_judge_says_what_helps_instead_of_rerunning(tmp_path, capsys):
    """The rule judge is deterministic: its unresolved verdict names --rule-timeout and the cascade, not a rerun."""
    beyond = r"\boxed{9^{9^{9^{9}}}x}"  # no size claim (a variable), and math-verify tries to expand the tower
    source = write_jsonl(
        tmp_path / "gens.jsonl", [{"id": "q", "question": "?", "answer": "9", "predictions": [beyond, r"\boxed{9}"]}]
    )
    code = main(["score", str(source), "--k", "1", "--rule-timeout", "1", "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_INCOMPLETE, err
    assert "1 of 2 generations could not be judged" in err and "timed out after 1s" in err
    assert "--rule-timeout (now 1 s)" in err and "--judge cascade" in err
    assert "re-asks" not in err
