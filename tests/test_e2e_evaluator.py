"""GPassKEvaluator inside real ``opencompass`` runs (subprocess tasks, loopback model and judge servers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opencompass.openicl.icl_evaluator import BaseEvaluator

from exact import exact_mean
from opencompass_e2e import TINY_KS, TINY_N, WRONG, read_predictions, read_result

#: Every test here launches the real opencompass CLI (minutes): `pytest -m "not e2e"` skips them.
pytestmark = pytest.mark.e2e


def counts_by(run, model, **where):
    return [q.correct[model] for q in run.questions if all(getattr(q, key) == value for key, value in where.items())]


def expected_block(counts):
    expected = {f"accuracy ({TINY_N} runs average)": 100 * sum(counts) / (TINY_N * len(counts))}
    for k in TINY_KS:
        for tau in ("0", "0.25", "0.5", "0.75", "1"):
            expected[f"G-Pass@{k}_{float(tau)}"] = exact_mean(counts, TINY_N, k, tau)
        expected[f"mG-Pass@{k}"] = exact_mean(counts, TINY_N, k)
    return expected


@pytest.mark.parametrize("dataset", ["tiny_rule", "tiny_llm"])
@pytest.mark.parametrize("model", ["strong", "weak"])
def test_results_equal_exact_computation_overall_and_per_split(tiny_opencompass_run, model, dataset):
    run = tiny_opencompass_run
    results = read_result(run.run_dir, f"{model}_t0-7", dataset)
    if dataset == "tiny_rule":  # LiveMathBench-202412 shaped: two splits, two languages
        subsets = {
            "": {},
            "CNMO/": dict(split="CNMO"),
            "AMC/": dict(split="AMC"),
            "en/": dict(language="en"),
            "cn/": dict(language="cn"),
            "CNMO_en/": dict(split="CNMO", language="en"),
            "AMC_cn/": dict(split="AMC", language="cn"),
        }
    else:  # LiveMathBench-202505 shaped: every question in split "all", English
        subsets = {"": {}, "all/": {}, "en/": {}, "all_en/": {}}
    for prefix, where in subsets.items():
        for key, value in expected_block(counts_by(run, model, **where)).items():
            assert results[prefix + key] == pytest.approx(value, abs=1e-9), prefix + key
    info = results["gpassk"]
    assert info["n"] == TINY_N and info["k"] == list(TINY_KS) and info["questions"] == len(run.questions)
    assert info["benchmark"] == ("LiveMathBench-202412" if dataset == "tiny_rule" else "LiveMathBench-202505")
    assert info["judge"] == ("rule" if dataset == "tiny_rule" else "llm")
    assert info["judge_stats"]["unresolved"] == 0
    details = results["details"]
    assert [detail["c"] for detail in details] == counts_by(run, model)
    assert {detail["split"] for detail in details} == ({"CNMO", "AMC"} if dataset == "tiny_rule" else {"all"})


def test_llm_judge_saw_each_distinct_answer_once(tiny_opencompass_run):
    run = tiny_opencompass_run
    distinct = sum((c > 0) + (c < TINY_N) for q in run.questions for c in q.correct.values())
    assert len(run.judge_requests) == distinct
    prompts = [body["messages"][-1]["content"] for body in run.judge_requests]
    assert sum(WRONG in prompt for prompt in prompts) == sum(
        c < TINY_N for q in run.questions for c in q.correct.values()
    )
    assert all(body["temperature"] == 0 for body in run.judge_requests)
    caches = {
        read_result(run.run_dir, f"{model}_t0-7", "tiny_llm")["gpassk"]["cache"]["file"] for model in ("strong", "weak")
    }
    assert len(caches) == 2, "each model's evaluation keeps its judge cache, keyed by its own output dir"
    assert all(Path(cache).is_file() and str(run.run_dir) not in cache for cache in caches)  # the user's folder
    assert not [path for path in run.run_dir.rglob("*.jsonl") if "cache" in path.name]  # none in the run


def test_greedy_run_reports_accuracy(tiny_opencompass_run):
    run = tiny_opencompass_run
    for model in ("strong", "weak"):
        results = read_result(run.run_dir, f"{model}_greedy", "tiny_greedy")
        expected = 100 * sum(c > 0 for c in counts_by(run, model)) / len(run.questions)
        assert results["accuracy"] == pytest.approx(expected)  # what the leaderboard reads for greedy runs
        assert results["G-Pass@1_0.5"] == pytest.approx(expected)  # k = 1 asked: G-Pass@1_tau is the accuracy
        assert results["unresolved"] == 0 and results["gpassk"]["complete"] is True


def test_opencompass_base_evaluator_agrees_on_the_same_predictions(tiny_opencompass_run):
    """OpenCompass's own G-Pass@k path (BaseEvaluator.evaluate), on the run's own predictions file."""
    import os

    from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset

    run = tiny_opencompass_run
    predictions = [record["prediction"] for record in read_predictions(run.run_dir, "strong_t0-7", "tiny_rule")]
    os.environ["COMPASS_DATA_CACHE"] = str(run.data_root)
    try:
        dataset = LiveMathBenchDataset(
            reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
            abbr="tiny_rule",
            path="opencompass/LiveMathBench",
            version="202412",
            dataset_splits=["CNMO", "AMC"],
            dataset_languages=["en", "cn"],
            n=TINY_N,
            k=list(TINY_KS),
        ).test
    finally:
        del os.environ["COMPASS_DATA_CACHE"]

    class BoxedExactMatch(BaseEvaluator):
        def score(self, predictions, references):
            details = [{"correct": p.endswith(f"\\boxed{{{r}}}$.")} for p, r in zip(predictions, references)]
            return {"accuracy": 100 * sum(d["correct"] for d in details) / len(details), "details": details}

    theirs = BoxedExactMatch().evaluate(
        list(TINY_KS), TINY_N, dataset, predictions=predictions, references=dataset["answer"]
    )
    ours = read_result(run.run_dir, "strong_t0-7", "tiny_rule")
    compared = [key for key in theirs if key.startswith(("G-Pass@", "mG-Pass@"))]
    assert len(compared) == len(TINY_KS) * 6
    for key in compared:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-9), key
