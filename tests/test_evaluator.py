"""GPassKEvaluator called the way OpenCompass calls it, on a real OpenCompass dataset."""

from __future__ import annotations

import json

import pytest
from datasets import Dataset
from opencompass.openicl.icl_evaluator import BaseEvaluator

from evaluator_fixtures import KS, QUESTIONS, N, TinyDataset, make_dataset, make_predictions, run
from exact import exact_mean
from gpassk_opencompass import GPassKEvaluator
from gpassk_opencompass.errors import InputError
from loopback_openai import last_user_message

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e


def check_against_exact(results, counts):
    for k in KS:
        for tau in ("0", "0.25", "0.5", "0.75", "1"):
            assert results[f"G-Pass@{k}_{float(tau)}"] == pytest.approx(exact_mean(counts, N, k, tau), abs=1e-9)
    assert results[f"accuracy ({N} runs average)"] == pytest.approx(100 * sum(counts) / (N * len(counts)))


def test_rule_judge_gives_exact_metrics_overall_and_per_subset():
    results = run(GPassKEvaluator(judge="rule", benchmark="LiveMathBench-202412"))
    counts = [c for _, _, c in QUESTIONS]
    check_against_exact(results, counts)
    by_split = {"CNMO": [8, 5, 7], "AMC": [0, 3, 1]}
    by_language = {"en": [8, 0, 1, 7], "cn": [5, 3]}
    for label, subset in {**by_split, **by_language, "CNMO_en": [8, 7], "AMC_cn": [3]}.items():
        assert results[f"{label}/G-Pass@4_0.5"] == pytest.approx(exact_mean(subset, N, 4, "0.5"), abs=1e-9), label
    assert "CNMO_cn/mG-Pass@8" in results and "AMC_en/G-Pass@2_1.0" in results
    info = results["gpassk"]
    assert info["benchmark"] == "LiveMathBench-202412" and info["n"] == N and info["k"] == KS
    assert info["judge"] == "rule" and info["questions"] == len(QUESTIONS)
    assert info["identical_replicas_share"] == 0.0
    uncertainty = info["uncertainty"]["G-Pass@8_0.75"]
    assert uncertainty["ci_low"] <= results["G-Pass@8_0.75"] <= uncertainty["ci_high"]
    details = results["details"]
    assert [detail["c"] for detail in details] == counts
    assert details[1]["id"] == "tiny/1" and details[1]["split"] == "CNMO" and details[1]["language"] == "cn"
    assert [verdict["extracted"] for verdict in details[2]["verdicts"]] == ["-1"] * N
    assert [verdict["correct"] for verdict in details[2]["verdicts"]] == [False] * N
    json.dumps(results)  # OpenCompass dumps it as JSON


def test_agrees_with_opencompass_base_evaluator_on_the_same_verdicts():
    """OpenCompass's own BaseEvaluator.evaluate path, fed the same correctness, gives the same numbers."""
    dataset = make_dataset()
    predictions = make_predictions(dataset)
    ours = run(GPassKEvaluator(judge="rule"), dataset, predictions)

    class ExactMatch(BaseEvaluator):
        def score(self, predictions, references):
            details = [{"pred": p, "correct": p.endswith(f"\\boxed{{{r}}}$.")} for p, r in zip(predictions, references)]
            return {"accuracy": 100 * sum(d["correct"] for d in details) / len(details), "details": details}

    theirs = ExactMatch().evaluate(KS, N, dataset, predictions=predictions, references=dataset["answer"])
    compared = [key for key in theirs if key.startswith(("G-Pass@", "mG-Pass@"))]
    assert len(compared) == 18
    for key in compared:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-9), key
    assert ours[f"accuracy ({N} runs average)"] == pytest.approx(theirs[f"accuracy ({N} runs average)"])


def test_llm_judge_is_asked_once_per_distinct_answer(loopback_openai):
    def judge(body):  # wrong answers are -1, which no question or reference contains
        return "Different. \\boxed{no}" if "-1" in last_user_message(body) else "Equivalent. \\boxed{yes}"

    server = loopback_openai(judge)
    evaluator = GPassKEvaluator(model_name="loopback-model", url=server.url)
    results = run(evaluator)
    check_against_exact(results, [c for _, _, c in QUESTIONS])
    distinct = sum((c > 0) + (c < N) for _, _, c in QUESTIONS)  # right and wrong answers per question
    assert len(server.requests) == distinct
    assert all(request["temperature"] == 0 for request in server.requests)
    info = results["gpassk"]
    assert info["judge"] == "llm" and info["prompt_version"]
    assert info["judge_stats"]["requests"] == distinct


def test_greedy_run_reports_accuracy_and_the_k_1_keys_it_asked_for():
    dataset = TinyDataset(
        reader_cfg=dict(input_columns=["question"], output_column="answer"), k=1, n=1, abbr="tiny"
    ).test
    predictions = [f"\\boxed{{{2 * q if c >= 4 else 0}}}" for q, (_, _, c) in enumerate(QUESTIONS)]
    results = run(GPassKEvaluator(judge="rule"), dataset, predictions, k=1, n=1)
    assert results["accuracy"] == pytest.approx(100 * 3 / 6)  # what the leaderboard reads for greedy runs
    assert results["en/accuracy"] == pytest.approx(50.0)
    for tau in (0.0, 0.25, 0.5, 0.75, 1.0):  # one draw: G-Pass@1_tau is the accuracy, whatever tau
        assert results[f"G-Pass@1_{tau}"] == pytest.approx(100 * 3 / 6)
    assert results["mG-Pass@1"] == 0.0 and results["unresolved"] == 0


def test_identical_replicas_are_reported(loguru_messages):
    dataset = make_dataset()
    same = ["\\boxed{0}"] * len(dataset)
    results = run(GPassKEvaluator(judge="rule"), dataset, same)
    assert results["gpassk"]["identical_replicas_share"] == 1.0
    assert any("byte-identical generations" in message for message in loguru_messages)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(k=[4, 16]), "dataset k must be integers with 1 <= k <= n=8; got k=16"),
        (dict(n=5, k=[2, 4]), "48 predictions cannot be n=5 replicas"),
        (
            dict(drop_prediction=True),
            "the run has 47 predictions (n=8) but its data now gives 48 rows (6 questions x n=8)",
        ),
        (dict(shuffle=True), "replica 1 does not repeat replica 0"),
        (
            dict(misorder=True),
            "replica 1 does not repeat replica 0: row 6 has question text and gold answer ('What is 1 + 1?', '2') "
            "where row 0 has ('What is 0 + 0?', '0')",
        ),
        (dict(evaluator=dict(question_column="problem")), "question_column='problem' is not a dataset column"),
        (dict(evaluator=dict(subset_columns=["difficulty"])), "subset column 'difficulty' is not a dataset column"),
        (dict(none_prediction=True), "prediction 3 is a NoneType"),
    ],
)
def test_bad_input_fails_before_any_judge_request(loopback_openai, change, message):
    server = loopback_openai(lambda body: "\\boxed{yes}")
    dataset = make_dataset()
    predictions = make_predictions(dataset)
    if change.get("drop_prediction"):
        predictions = predictions[:-1]
    if change.get("none_prediction"):
        predictions[3] = None
    if change.get("misorder"):  # replica 1's first two questions swapped under unchanged ids (subdivision, idx)
        rows = dataset.to_list()
        for field in ("question", "answer"):
            rows[6][field], rows[7][field] = rows[7][field], rows[6][field]
        dataset = Dataset.from_list(rows)
    if change.get("shuffle"):
        order = list(range(len(dataset)))
        order[6], order[7] = order[7], order[6]
        dataset = dataset.select(order)
    evaluator = GPassKEvaluator(model_name="loopback-model", url=server.url, **change.get("evaluator", {}))
    with pytest.raises(InputError) as error:
        run(evaluator, dataset, predictions, k=change.get("k", KS), n=change.get("n", N))
    assert message in str(error.value)
    assert server.requests == []


def test_a_run_resumed_on_changed_data_names_the_counts_the_dataset_and_the_fix(tmp_path, monkeypatch):
    """``opencompass -r`` after the data gained questions: OpenCompass hands the evaluator the run's predictions
    (4 questions x n=8, from its predictions files) and the rows it builds from today's data (6 x 8), with
    ``_out_dir`` set to the results path as its eval task sets it (was: a bare length mismatch)."""
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "data"))
    dataset = make_dataset()
    run_predictions = [p for row, p in enumerate(make_predictions(dataset)) if row % len(QUESTIONS) < 4]
    evaluator = GPassKEvaluator(judge="rule")
    evaluator._out_dir = str(tmp_path / "outputs" / "20261127_101500" / "results" / "m_t0-7" / "tiny")
    with pytest.raises(InputError) as error:
        evaluator.evaluate(KS, N, dataset, predictions=run_predictions, references=dataset["answer"], test_set=dataset)
    message = str(error.value)
    assert message.startswith(
        "m_t0-7 x tiny: the run has 32 predictions (4 questions x n=8) but its data now gives 48 rows "
        "(6 questions x n=8): the data changed or moved since the run; give the data the run used "
        f"(COMPASS_DATA_CACHE, now {str(tmp_path / 'data')!r}, "
    ), message
    assert message.endswith(
        "then resume the run again (opencompass CONFIG -r 20261127_101500); or to infer anew on the new data, move "
        f"its predictions ({tmp_path / 'outputs' / '20261127_101500' / 'predictions' / 'm_t0-7' / 'tiny'}*.json) "
        "aside first"
    ), message
    assert "must have the same length" not in message and "\n" not in message


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(judge="lmm"), "unknown judge kind 'lmm'"),
        (dict(judge="llm"), "needs at least one judge URL"),
        (dict(url="localhost:8000"), "is not an http(s) URL"),
        (dict(thresholds=[0.5, 1.2]), "tau must be in [0, 1]; got tau=1.2"),
        (dict(benchmark="AIME2025x"), "did you mean 'AIME2025'"),
        (dict(language="fr"), '"language" must be one of en, cn'),
        (dict(use_extract_model=True), "use_extract_model=True"),
        (dict(concurrency=0), "concurrency = 0: input should be greater than or equal to 1"),
    ],
)
def test_bad_configuration_fails_at_construction(kwargs, message):
    with pytest.raises(InputError) as error:
        GPassKEvaluator(**kwargs)
    assert message in str(error.value)


def test_livemathbench_evaluator_keywords_are_accepted(loopback_openai):
    """Configs that do evaluator.update(dict(model_name=..., url=[...])) keep working."""
    server = loopback_openai(lambda body: "\\boxed{yes}")
    evaluator = GPassKEvaluator(
        model_name="Qwen2.5-72B-Instruct",
        url=[server.url],
        use_extract_model=False,
        extract_url=[],
        extract_model_name="",
    )
    assert evaluator.judge_settings.kind == "llm"
    assert evaluator.judge_settings.urls == (server.url,)


def test_a_rerun_in_the_same_output_dir_reuses_every_verdict(loopback_openai, tmp_path):
    """OpenCompass reruns an unfinished evaluation in the same results dir: nothing is asked twice."""
    server = loopback_openai(lambda body: "\\boxed{no}" if "-1" in last_user_message(body) else "\\boxed{yes}")
    first = GPassKEvaluator(model_name="loopback-model", url=server.url)
    first._out_dir = str(tmp_path / "results" / "model" / "dataset")
    results = run(first)
    asked = len(server.requests)
    assert asked > 0 and results["gpassk"]["cache"]["verdicts"] == 0
    assert not list((tmp_path / "results").rglob("*.jsonl"))  # the cache is in the user's cache folder, not the run

    second = GPassKEvaluator(model_name="loopback-model", url=server.url)
    second._out_dir = first._out_dir
    again = run(second)
    assert len(server.requests) == asked
    assert again["gpassk"]["judge_stats"]["cached"] == again["gpassk"]["judge_stats"]["unique"]
    assert {key: value for key, value in again.items() if key not in ("gpassk", "details")} == {
        key: value for key, value in results.items() if key not in ("gpassk", "details")
    }


def test_keep_questions_writes_the_questions_as_judged_beside_the_cache(tmp_path):
    """What ``gpassk grid run`` combines a curtailed run's rounds from: each question's id, text, gold answer,
    language and subset labels as the evaluator judged them, their digests the ones its results record."""
    from gpassk_opencompass.scoring.details import texts_digest
    from gpassk_opencompass.scoring.questions import QUESTIONS_FILE, read_questions_file

    plain = GPassKEvaluator(judge="rule")
    plain._out_dir = str(tmp_path / "plain")
    run(plain)
    assert not (tmp_path / "plain").exists()  # only when asked

    evaluator = GPassKEvaluator(judge="rule", keep_questions=True)
    evaluator._out_dir = str(tmp_path / "results" / "m" / "tiny")
    results = run(evaluator)
    questions = read_questions_file(tmp_path / "results" / "m" / "tiny" / QUESTIONS_FILE)
    assert [question.id for question in questions] == [detail["id"] for detail in results["details"]]
    assert [texts_digest([question.question, question.reference]) for question in questions] == [
        detail["question_sha256"] for detail in results["details"]
    ]
    assert [(question.labels["split"], question.language) for question in questions] == [
        (detail["split"], detail["language"]) for detail in results["details"]
    ]
    run(GPassKEvaluator(judge="rule", keep_questions=True))  # outside an eval task (no output folder): nothing
