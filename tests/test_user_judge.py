"""The user's own judge (``check_correct_fn``), the judge registry and the Python ``score()`` API.

Golden values: the G-Pass@k metric card's published worked example (``metric_card.METRIC_CARD``) and an
independent computation with ``fractions.Fraction`` and ``math.comb``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

import gpassk_opencompass
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, PythonJudge
from gpassk_opencompass.judges.cache import VerdictCache
from in_process import run_main
from loopback_judge import exact_match_judge
from metric_card import METRIC_CARD

ROOT = Path(__file__).resolve().parents[1]
# The metric card's worked example: 16 predictions for one question whose reference is "a" (8 of them "a").
CARD_PREDICTIONS = ["a", "b", "a", "a", "b", "a", "b", "c", "a", "c", "b", "a", "a", "b", "a", "b"]


def g_pass(n: int, c: int, k: int, tau: float) -> Fraction:
    """G-Pass@k_tau, exactly: sum over j >= ceil(tau k) of the hypergeometric probabilities."""
    low = max(math.ceil(tau * k), 1)
    return sum(
        (Fraction(math.comb(c, j) * math.comb(n - c, k - j), math.comb(n, k)) for j in range(low, k + 1)), Fraction(0)
    )


def mg_pass(n: int, c: int, k: int) -> Fraction:
    return Fraction(2, k) * sum((g_pass(n, c, k, i / k) for i in range(math.ceil(k / 2) + 1, k + 1)), Fraction(0))


def card_questions():
    return [{"id": "card", "question": "", "answer": "a", "predictions": CARD_PREDICTIONS}]


def test_the_metric_card_example_reproduces_through_score_with_a_check_correct_fn():
    results = gpassk_opencompass.score(
        card_questions(),
        k=[4, 8],
        thresholds=[0.25, 0.5, 0.75, 1.0],
        judge=lambda pred, ref: pred == ref,
        progress=False,
    )
    assert results.complete and results.unresolved == 0
    for key, published in METRIC_CARD.items():
        assert results.metrics[key] == pytest.approx(100 * published, rel=1e-12), key
    for k in (4, 8):  # and the independent exact computation
        assert results.metrics[f"mG-Pass@{k}"] == pytest.approx(100 * float(mg_pass(16, 8, k)), rel=1e-12)
        assert results.metrics[f"G-Pass@{k}_0.75"] == pytest.approx(100 * float(g_pass(16, 8, k, 0.75)), rel=1e-12)
    test = test_the_metric_card_example_reproduces_through_score_with_a_check_correct_fn
    assert results.gpassk.judge == f"python:{__name__}:{test.__qualname__}.<locals>.<lambda>"
    assert results.gpassk.judge_model is None and results.gpassk.prompt_version is None
    assert results.gpassk.judge_stats["unique"] == 3  # a, b, c: each distinct prediction checked once


@pytest.mark.parametrize("in_a_file", [False, True])
def test_score_resolves_its_judge_once(monkeypatch, tmp_path, in_a_file):
    """One call of score() turns its judge into a Judge once (the registry's as_judge), in memory or from a file."""
    from gpassk_opencompass.judges import registry
    from gpassk_opencompass.scoring import flow

    calls = []

    def counted(judge):
        calls.append(judge)
        return as_judge(judge)

    as_judge = registry.as_judge
    monkeypatch.setattr(registry, "as_judge", counted)
    monkeypatch.setattr(flow, "as_judge", counted)
    questions = card_questions()
    if in_a_file:
        path = tmp_path / "gens.jsonl"
        path.write_text("".join(json.dumps(question) + "\n" for question in questions), encoding="utf-8")
        questions = path
    results = gpassk_opencompass.score(questions, k=[4], judge=lambda pred, ref: pred == ref, progress=False)
    assert results.complete and len(calls) == 1


def test_an_exception_or_a_non_bool_is_unresolved_never_wrong(tmp_path):
    def picky(prediction, reference):
        if prediction == "c":
            raise ZeroDivisionError("cannot compare c")
        if prediction == "b":
            return "no"
        return prediction == reference

    output = tmp_path / "scores.json"
    results = gpassk_opencompass.score(card_questions(), k=[4], judge=picky, output=output, progress=False)
    assert not results.complete and results.unresolved == 2 + 6  # two "c", six "b"
    assert not output.exists()  # incomplete: nothing written, as gpassk score
    assert not any(key.startswith("G-Pass") for key in results.metrics)
    verdicts = results.details[0].verdicts
    assert [verdict.correct for verdict in verdicts].count(True) == 8
    assert [verdict.correct for verdict in verdicts].count(False) == 0
    reasons = {verdict.reason for verdict in verdicts if verdict.correct is None}
    assert reasons == {
        f"{results.gpassk.judge} raised ZeroDivisionError: cannot compare c",
        f"{results.gpassk.judge} returned str 'no', not True or False",
    }
    low, high = results.gpassk.bounds["G-Pass@4_1.0"]
    assert low == pytest.approx(100 * float(g_pass(16, 8, 4, 1.0)))
    assert high == pytest.approx(100 * float(g_pass(16, 16, 4, 1.0)))


def test_the_function_runs_in_the_calling_thread_so_math_verify_keeps_its_timeouts():
    """math-verify times itself with signal.alarm, which works only in the main thread: a checker built on it
    (the common case) must be called there, or every verdict silently reads as wrong."""
    import threading

    from gpassk_opencompass.judges import extract_answer, rule_verdict

    def as_rule(prediction, reference):
        assert threading.current_thread() is threading.main_thread()
        return rule_verdict(reference, extract_answer(prediction)).correct

    items = [JudgeItem("q", "1/2", prediction) for prediction in (r"\boxed{0.5}", r"\boxed{\frac{2}{4}}", r"\boxed{3}")]
    verdicts = PythonJudge(as_rule).judge(items, progress=False).verdicts
    assert [verdict.correct for verdict in verdicts] == [True, True, False]


def test_a_math_verify_checker_called_off_the_main_thread_still_gets_right_verdicts():
    """Called from a helper thread (a threaded host), the function still runs in a worker's main thread."""
    import threading

    from gpassk_opencompass.judges import extract_answer, rule_verdict

    def as_rule(prediction, reference):
        return rule_verdict(reference, extract_answer(prediction)).correct

    items = [JudgeItem("q", "1/2", prediction) for prediction in (r"\boxed{0.5}", r"\boxed{\frac{2}{4}}", r"\boxed{3}")]
    found = []
    thread = threading.Thread(target=lambda: found.extend(PythonJudge(as_rule).judge(items, progress=False).verdicts))
    thread.start()
    thread.join(timeout=120)
    assert [verdict.correct for verdict in found] == [True, True, False]


def test_a_function_that_never_returns_on_one_answer_is_unresolved_with_the_limit_and_the_run_goes_on():
    import time

    hangs_on = "c"

    def stuck(prediction, reference):  # a closure: it reaches its workers by fork
        if prediction == hangs_on:
            time.sleep(3600)  # e.g. sympy simplifying 9^{9^{9^9}}
        return prediction == reference

    results = gpassk_opencompass.score(card_questions(), k=[4], judge=stuck, judge_timeout=1, progress=False)
    verdicts = results.details[0].verdicts
    assert [verdict.correct for verdict in verdicts].count(True) == 8
    assert [verdict.correct for verdict in verdicts].count(False) == 6  # the six "b", judged after the kill
    assert results.unresolved == 2 and results.gpassk.unresolved_reasons == [
        (
            f"{results.gpassk.judge} gave no verdict within 1 s (the judge_timeout); make it return sooner on this "
            "answer or give it longer (--judge-timeout S, judge_timeout=S)",
            2,
        )
    ]


def test_a_function_that_kills_its_process_is_unresolved_not_a_crashed_run():
    def exits(prediction, reference):
        if prediction == "b":
            os._exit(1)
        return prediction == reference

    verdicts = (
        PythonJudge(exits, name="python:tests:exits")
        .judge([JudgeItem("q", "a", prediction) for prediction in ("a", "b", "c")], progress=False)
        .verdicts
    )
    assert [(verdict.correct, verdict.reason) for verdict in verdicts] == [
        (True, "python:tests:exits returned True"),
        (None, "python:tests:exits's worker process died on this answer (out of memory, a crash, os._exit)"),
        (False, "python:tests:exits returned False"),
    ]


def test_a_judge_timeout_is_a_user_judges_setting_only():
    with pytest.raises(
        InputError,
        match="judge_timeout 5 bounds a check_correct_fn's time per answer, but the judge "
        "is 'rule'; the rule judge's bound is --rule-timeout",
    ):
        gpassk_opencompass.score(card_questions(), k=[4], judge="rule", judge_timeout=5)
    with pytest.raises(InputError, match="judge_timeout must be a number of seconds > 0, got 0"):
        gpassk_opencompass.score(card_questions(), k=[4], judge=lambda p, r: True, judge_timeout=0)


def test_a_judge_prompt_given_with_a_user_judge_is_one_line_not_ignored(tmp_path):
    source = tmp_path / "gens.jsonl"
    source.write_text(json.dumps({"id": "q", "question": "?", "answer": "a", "predictions": ["a", "b"]}) + "\n")
    with pytest.raises(InputError, match="asks no judge model, so a judge prompt \\('livemathbench'\\) does not apply"):
        gpassk_opencompass.score(source, k=[2], judge=lambda p, r: p == r, judge_prompt="livemathbench", progress=False)


def write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(body))


def run_gpassk(*args, cwd: Path, extra_path: str = ""):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), extra_path])))
    return subprocess.run(
        [sys.executable, "-m", "gpassk_opencompass.cli", *args],
        check=False,
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def gpassk_here(monkeypatch, capsys):
    """``gpassk`` by ``cli.main`` in this process (as :func:`run_gpassk` answers), run in the folder ``cwd`` with
    ``extra_path`` on ``sys.path``: the command's judge workers are still processes of their own."""

    def run(*args: str, cwd: Path, extra_path: str = ""):
        monkeypatch.chdir(cwd)
        if extra_path:
            monkeypatch.syspath_prepend(extra_path)
        return run_main(capsys, *args, timeout=300)

    return run


def score_card_with(run, folder: Path, module: str, body: str, *options: str):
    """``gpassk score`` (by ``run``) on the metric card's question in ``folder``, judged by ``module`` written there."""
    write_module(folder, module, body)
    (folder / "card.jsonl").write_text(json.dumps(card_questions()[0]) + "\n")
    return run("score", "card.jsonl", *options, cwd=folder)


def test_gpassk_score_judge_module_function_from_the_current_directory(tmp_path, gpassk_here):
    done = score_card_with(
        gpassk_here,
        tmp_path,
        "card_checks",
        """
        def same(prediction, reference):
            return prediction == reference
    """,
        "--k",
        "4",
        "8",
        "--thresholds",
        "0.25",
        "0.5",
        "0.75",
        "1",
        "--judge",
        "card_checks:same",
        "--output",
        "scores.json",
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "scores.json").read_text())
    assert document["gpassk"]["judge"] == "python:card_checks:same"
    for key, published in METRIC_CARD.items():
        assert document[key] == pytest.approx(100 * published, rel=1e-12), key
    assert not (tmp_path / "card.judge-cache.jsonl").exists()  # local code: no verdict cache by default


def test_gpassk_score_a_raising_user_judge_exits_incomplete_with_the_reason(tmp_path, gpassk_here):
    done = score_card_with(
        gpassk_here,
        tmp_path,
        "broken_checks",
        """
        def same(prediction, reference):
            if prediction == "c":
                raise KeyError("c")
            return prediction == reference
    """,
        "--k",
        "4",
        "--judge",
        "broken_checks:same",
        "--output",
        "s.json",
        "--quiet",
    )
    assert done.returncode == 3, done.stderr
    assert "2 x python:broken_checks:same raised KeyError: 'c'" in done.stderr
    assert "fix the function" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s.json").exists()


def test_gpassk_score_a_user_judge_stuck_on_one_answer_is_unresolved_and_the_run_completes(tmp_path, gpassk_here):
    done = score_card_with(
        gpassk_here,
        tmp_path,
        "slow_checks",
        """
        import time

        def same(prediction, reference):
            while prediction == "c":
                time.sleep(60)
            return prediction == reference
    """,
        "--k",
        "4",
        "--judge",
        "slow_checks:same",
        "--judge-timeout",
        "1",
        "--allow-unresolved",
        "--output",
        "s.json",
        "--quiet",
    )
    assert done.returncode == 3, done.stderr
    assert "2 x python:slow_checks:same gave no verdict within 1 s (the judge_timeout)" in done.stderr
    document = json.loads((tmp_path / "s.json").read_text())
    assert document["gpassk"]["complete"] is False and document["gpassk"]["judge"] == "python:slow_checks:same"
    low, high = document["gpassk"]["bounds"]["G-Pass@4_1.0"]
    assert low == pytest.approx(100 * float(g_pass(16, 8, 4, 1.0)))  # the 8 "a" right, the 6 "b" judged wrong
    assert high == pytest.approx(100 * float(g_pass(16, 10, 4, 1.0)))  # and the two "c" at best right


def test_gpassk_score_judge_from_an_entry_point(tmp_path, gpassk_here):
    site = tmp_path / "site"
    site.mkdir()
    write_module(
        site,
        "plugin_checks",
        """
        def letters(prediction, reference):
            return prediction.lower() == reference.lower()
    """,
    )
    info = site / "plugin_checks-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-checks\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[gpassk.judges]\nletters = plugin_checks:letters\n")
    (tmp_path / "card.jsonl").write_text(json.dumps(card_questions()[0]) + "\n")
    done = gpassk_here(
        "score",
        "card.jsonl",
        "--k",
        "4",
        "--judge",
        "letters",
        "--output",
        "s.json",
        "--quiet",
        cwd=tmp_path,
        extra_path=str(site),
    )
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "s.json").read_text())
    assert document["gpassk"]["judge"] == "python:plugin_checks:letters"
    assert document["G-Pass@4_1.0"] == pytest.approx(100 * float(g_pass(16, 8, 4, 1.0)))


@pytest.mark.parametrize(
    "judge, message",
    [
        ("cascad", "unknown judge kind 'cascad'; did you mean 'cascade'? known: auto, rule, llm, cascade"),
        ("no_such_checks:same", "no module named 'no_such_checks' on sys.path or in the current directory"),
        ("json:dumpz", "module 'json' has no 'dumpz'; did you mean 'dump'?"),
        ("json:__name__", "json:__name__ is a str, not a function"),
    ],
)
def test_a_judge_that_does_not_resolve_is_one_line_exit_2(tmp_path, capsys, judge, message):
    (tmp_path / "card.jsonl").write_text(json.dumps(card_questions()[0]) + "\n")
    assert main(["score", str(tmp_path / "card.jsonl"), "--k", "4", "--judge", judge, "--quiet"]) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_a_user_judge_refuses_a_judge_url():
    with pytest.raises(InputError, match="asks no judge model but a judge URL or model was given"):
        gpassk_opencompass.score(card_questions(), k=4, judge="json:dumps", judge_url="http://127.0.0.1:9/v1")


def test_a_user_judges_cached_verdicts_never_mix_with_another_judges(tmp_path):
    cache = tmp_path / "verdicts.jsonl"
    items = [JudgeItem("q", "a", prediction) for prediction in CARD_PREDICTIONS]

    def accept(prediction, reference):
        return True

    first = PythonJudge(accept, name="python:checks:same").with_cache(cache).judge(items, progress=False)
    assert {verdict.correct for verdict in first.verdicts} == {True}

    def refuse(prediction, reference):  # edited under the same name: its own verdicts, not the cached ones
        return False

    second = PythonJudge(refuse, name="python:checks:same").with_cache(cache).judge(items, progress=False)
    assert {verdict.correct for verdict in second.verdicts} == {False} and second.stats.cached == 0
    again = PythonJudge(accept, name="python:checks:same").with_cache(cache).judge(items, progress=False)
    assert again.stats.cached == 3 and {verdict.source for verdict in again.verdicts} == {"cache"}
    with VerdictCache(cache) as kept:
        assert len(kept) == 6  # 3 distinct answers x 2 versions of the function


def test_score_from_python_with_the_llm_judge_keeps_the_default_cache(tmp_path, loopback_openai):
    server = loopback_openai(exact_match_judge)
    source = tmp_path / "gens.jsonl"
    source.write_text(
        json.dumps(
            {
                "id": "q",
                "question": "Which letter?",
                "answer": "a",
                "predictions": [f"\\boxed{{{letter}}}" for letter in CARD_PREDICTIONS],
            }
        )
        + "\n"
    )
    results = gpassk_opencompass.score(
        source, k=[4], judge="llm", judge_url=server.url, judge_model="loopback-model", progress=False
    )
    assert results.complete and results.gpassk.judge == "llm"
    assert results.metrics["G-Pass@4_1.0"] == pytest.approx(100 * float(g_pass(16, 8, 4, 1.0)))
    assert results.gpassk.cache is not None and results.gpassk.cache.verdicts == 0
    with VerdictCache(results.gpassk.cache.file) as cache:  # the default place: the user's cache folder
        assert len(cache) == 3
    again = gpassk_opencompass.score(
        source, k=[4], judge="llm", judge_url=server.url, judge_model="loopback-model", progress=False
    )
    assert again.gpassk.judge_stats["cached"] == 3 and again.gpassk.judge_stats["requests"] == 0
    assert again.gpassk.cache == results.gpassk.cache.model_copy(update={"verdicts": 3})


def test_settings_are_declared_contracts_whose_mistakes_are_input_errors():
    with pytest.raises(InputError, match="unknown judge kind 'lmm'; did you mean 'llm'"):
        JudgeSettings(kind="lmm")
    with pytest.raises(InputError, match="unknown field 'concurency'; did you mean 'concurrency'"):
        JudgeSettings(concurency=4)
    with pytest.raises(InputError, match="ks must name at least one k"):
        gpassk_opencompass.ScoringRequest(ks=())
    schema = gpassk_opencompass.ScoringRequest.model_json_schema()
    assert schema["required"] == ["ks"] and schema["additionalProperties"] is False
    assert gpassk_opencompass.ScoringRequest(ks=4).replace(ks=[4, 8]).ks == (4, 8)


def test_a_module_judge_from_a_folder_with_braces_and_quotes_in_its_name_is_imported_by_its_workers(
    tmp_path, monkeypatch
):
    """The workers get the judge's name and the search path as data (argv), never written into their code."""
    from gpassk_opencompass.judges.registry import load_judge

    folder = tmp_path / "checks {read} {x} ' \" folder"
    folder.mkdir()
    write_module(folder, "brace_checks", "def same(prediction, reference):\n    return prediction == reference\n")
    monkeypatch.syspath_prepend(str(folder))
    judge = load_judge("brace_checks:same")
    items = [JudgeItem("q", "7", "7"), JudgeItem("q", "7", "8")]
    assert [verdict.correct for verdict in judge.judge(items, progress=False).verdicts] == [True, False]


@pytest.mark.e2e  # two gpassk processes, each with its judge's worker interpreters
def test_gpassk_score_judges_again_when_a_module_constant_the_function_reads_is_edited(tmp_path):
    """The function's bytecode is unchanged, only the tolerance it reads is edited: the cache must not answer."""
    (tmp_path / "near.jsonl").write_text(
        json.dumps({"id": "q", "question": "", "answer": "1", "predictions": ["1", "1.3", "2"]}) + "\n"
    )
    body = "TOLERANCE = {}\n\ndef near(prediction, reference):\n    return abs(float(prediction) - float(reference)) <= TOLERANCE\n"
    options = ("--k", "1", "--judge", "near_checks:near", "--cache", "verdicts.jsonl", "--output", "s.json", "--quiet")
    scores = []
    for tolerance in ("0.5", "0.25"):  # of different lengths: a stale .pyc of the same size and second is no question
        write_module(tmp_path, "near_checks", body.format(tolerance))
        done = run_gpassk("score", "near.jsonl", *options, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        document = json.loads((tmp_path / "s.json").read_text())
        scores.append((document["G-Pass@1_1.0"], document["gpassk"]["judge_stats"]["cached"]))
    # By hand: |1-1| = 0 and |1.3-1| = 0.3 are within 0.5, |2-1| = 1 is not (2 of 3); within 0.25 only "1" (1 of 3).
    assert scores == [(pytest.approx(100 * 2 / 3), 0), (pytest.approx(100 / 3), 0)]


@pytest.mark.e2e  # two gpassk processes, each with its judge's worker interpreters
def test_gpassk_score_finds_its_cached_verdicts_again_under_another_hash_seed(tmp_path):
    """A set the function reads lists its items in another order under each hash seed: the key must not."""
    write_module(
        tmp_path,
        "set_checks",
        "SAME = {'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'}\n\n"
        "def same(prediction, reference):\n    return prediction == reference or prediction in SAME\n",
    )
    (tmp_path / "card.jsonl").write_text(json.dumps(card_questions()[0]) + "\n")
    cached = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "gpassk_opencompass.cli", "score", "card.jsonl", "--k", "4", "--judge",
             "set_checks:same", "--cache", "verdicts.jsonl", "--output", "s.json", "--quiet"],
            check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300,
            env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        cached.append(json.loads((tmp_path / "s.json").read_text())["gpassk"]["judge_stats"]["cached"])
    assert cached == [0, 3]  # the card's 3 distinct answers, found again


class Within:
    """A checker object: its tolerance is an attribute, not code."""

    def __init__(self, tolerance):
        self.tolerance = tolerance

    def __call__(self, prediction, reference):
        return abs(float(prediction) - float(reference)) <= self.tolerance


def test_a_checker_objects_attributes_are_in_its_cache_key(tmp_path):
    cache = tmp_path / "verdicts.jsonl"
    items = [JudgeItem("q", "1", prediction) for prediction in ("1", "1.3", "2")]

    def run(check):
        report = PythonJudge(check).with_cache(cache).judge(items, progress=False)
        return [verdict.correct for verdict in report.verdicts], report.stats.cached

    assert run(Within(0.5)) == ([True, True, False], 0)
    assert run(Within(0.25)) == ([True, False, False], 0)  # |1.3 - 1| = 0.3 > 0.25: judged again, not served
    assert run(Within(0.5)) == ([True, True, False], 3)
