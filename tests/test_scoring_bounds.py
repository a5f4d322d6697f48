"""Sizes are bounded and repeats refused: one line, exit 2, no allocation, no judging."""

from __future__ import annotations

import tracemalloc

import pytest

from gpassk_opencompass import score
from gpassk_opencompass.cli import EXIT_USAGE, main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import MAX_BOOTSTRAP, MAX_N, summarize_uncertainty
from loopback_judge import exact_match_judge
from scoring_fixtures import MODEL, generations, write_jsonl


def one_line_error(capsys) -> str:
    captured = capsys.readouterr()
    error = captured.err.strip()
    assert len(error.splitlines()) == 1 and captured.out == "" and "Traceback" not in error
    return error


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n", "100000000", "--c", "5", "--k", "100000000"], f"--n must satisfy --n <= {MAX_N} (MAX_N"),
        (["--n", "16", "--c", "5", "--k", "100000000"], f"--k must satisfy --k <= {MAX_N} (MAX_N"),
        (["--n", "16", "--c", "5", "--k", "4", "8", "4"], "--k repeat --k 4; give each --k once"),
        (
            ["--n", "16", "--c", "5", "--k", "4", "--thresholds", "0.5", "1", "0.50"],
            "--thresholds repeat --thresholds 0.5",
        ),
    ],
)
def test_calc_refuses_huge_sizes_and_repeats_without_allocating(capsys, argv, message):
    tracemalloc.start()
    try:
        code = main(["calc", *argv])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == EXIT_USAGE
    assert message in one_line_error(capsys)
    assert peak < 20_000_000  # the k = 1e8 tail table alone would be gigabytes


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--bootstrap", "10000000000"],
            f"--bootstrap 10000000000: input should be less than or equal to {MAX_BOOTSTRAP}",
        ),
        (["--k", "4", "4"], "--k repeat --k 4"),
        (["--thresholds", "0.25", "0.25"], "--thresholds repeat --thresholds 0.25"),
    ],
)
def test_score_refuses_them_before_any_judge_request(loopback_openai, tmp_path, capsys, extra, message):
    server = loopback_openai(exact_match_judge)
    source = write_jsonl(tmp_path / "gens.jsonl", generations([3, 5]))
    argv = ["score", str(source), "--judge-url", server.url, "--judge-model", MODEL, "--quiet", "--no-cache"]
    assert main(argv + (extra if "--k" in extra else ["--k", "4", *extra])) == EXIT_USAGE
    assert message in one_line_error(capsys)
    assert server.requests == []


def test_bootstrap_memory_is_bounded_with_a_message():
    with pytest.raises(InputError, match=r"n_boot=100000 x 1001 .* more than 50000000 \(MAX_BOOTSTRAP_CELLS\)"):
        summarize_uncertainty(list(range(1001)), 1000, k=[1], thresholds=[1.0], n_boot=100_000)


@pytest.mark.parametrize(
    "predictions, thresholds, cells",
    [
        ([["1", "2"]], [tau / 1000 for tau in range(600)], "100000 x 601"),  # metrics: per k, 600 taus and mG
        ([["1"] * n for n in range(1, 602)], [1.0], "100000 x 601"),  # 601 distinct n: 601 groups if all wrong
    ],
)
def test_a_bootstrap_too_big_is_refused_before_any_judging(loopback_openai, predictions, thresholds, cells):
    server = loopback_openai(exact_match_judge)
    questions = [{"id": f"q{i}", "question": "?", "answer": "1", "predictions": p} for i, p in enumerate(predictions)]
    options = dict(judge="llm", judge_url=server.url, judge_model=MODEL, cache=False, progress=False)
    with pytest.raises(InputError, match=rf"n_boot={cells} .* \(MAX_BOOTSTRAP_CELLS\); lower n_boot"):
        score(questions, k=1, thresholds=thresholds, n_boot=100_000, **options)
    assert server.requests == []


@pytest.mark.e2e
def test_evaluator_refuses_repeats_before_judging(loopback_openai):
    # deferred: imports OpenCompass (BaseDataset, BaseEvaluator), which only the e2e step pays for
    from evaluator_fixtures import run as run_evaluator
    from gpassk_opencompass import GPassKEvaluator

    with pytest.raises(InputError, match=r"thresholds repeat tau=0\.5"):
        GPassKEvaluator(judge="rule", thresholds=[0.5, 1.0, 0.5])
    server = loopback_openai(exact_match_judge)
    with pytest.raises(InputError, match="ks repeat k=4"):
        run_evaluator(GPassKEvaluator(model_name=MODEL, url=server.url), k=[4, 4])
    assert server.requests == []
