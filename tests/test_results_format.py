"""The results format: one owner (scoring.results), a real document round-trips, every version reads, every
malformed field is a one-line error; the Bayesian block is wired through the one flow; one name per judge setting."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import gpassk_opencompass
from exact import exact_g_pass
from gpassk_opencompass.cli import EXIT_OK, EXIT_USAGE, main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import JudgeSettings
from gpassk_opencompass.judges.types import judge_endpoint
from gpassk_opencompass.render.score_report import format_report
from gpassk_opencompass.scoring import (
    SCHEMA_VERSION,
    Question,
    ScoringRequest,
    compute,
    consistency,
    load_results,
    read_results,
    score_questions,
    write_results,
)

N = 8
COUNTS = [0, 3, 5, 8]


def questions(counts=COUNTS, n=N):
    """Question i has counts[i] right answers ("7") among n; the rule judge judges them."""
    return [
        Question(
            id=f"q{index}",
            question="3 + 4?",
            reference="7",
            predictions=tuple(
                [f"\\boxed{{7}} ({j})" for j in range(c)] + [f"\\boxed{{{10 + j}}}" for j in range(n - c)]
            ),
            labels={"split": "a" if index % 2 else "b"},
        )
        for index, c in enumerate(counts)
    ]


def document(interval="bootstrap", **extra):
    request = ScoringRequest(ks=(2, 4), thresholds=(0.5, 1.0), subsets=("split",), interval=interval, **extra)
    return score_questions(questions(), request, JudgeSettings(kind="rule"), progress=False)


@pytest.fixture(scope="module")
def both():
    return document("both", prior=(1.0, 1.0))


def test_a_real_document_round_trips(tmp_path, both):
    path = tmp_path / "r.json"
    write_results(path, both)
    record = load_results(path)
    assert record.schema_version == SCHEMA_VERSION == 5 and record.complete and record.unresolved == 0
    assert record.ks == (2, 4) and record.n == N and record.thresholds == (0.5, 1.0)
    assert record.counts()[0].tolist() == COUNTS
    assert [question.labels["split"] for question in record.details] == ["b", "a", "b", "a"]
    for k in (2, 4):  # the metrics against the exact oracle
        expected = 100 * np.mean([float(exact_g_pass(N, c, k, 0.5)) for c in COUNTS])
        assert record.metrics[f"G-Pass@{k}_0.5"] == pytest.approx(expected, abs=1e-9)
    assert set(record.uncertainty) >= {"G-Pass@2_0.5", "mG-Pass@4"} and set(record.bayes) == {
        "G-Pass@2_0.5",
        "G-Pass@2_1.0",
        "mG-Pass@2",
        "G-Pass@4_0.5",
        "G-Pass@4_1.0",
        "mG-Pass@4",
    }
    assert json.loads(path.read_text()) == json.loads(json.dumps(both))
    report = format_report(record)
    assert "95% credible (Beta(1, 1) prior)" in report and "G-Pass@4_0.5" in report


def test_bayes_block_matches_a_monte_carlo_posterior(both):
    """Independent check: sample p_i ~ Beta(1 + c_i, 1 + n - c_i), average P(Bin(k, p_i) >= m)."""
    rng = np.random.default_rng(7)
    draws = np.stack([rng.beta(1 + c, 1 + N - c, size=200_000) for c in COUNTS])
    for k, tau in ((2, 0.5), (4, 1.0)):
        m = max(int(np.ceil(tau * k)), 1)
        theta = 100 * stats.binom.sf(m - 1, k, draws).mean(axis=0)
        entry = both["gpassk"]["bayes"][f"G-Pass@{k}_{tau}"]
        assert entry["mean"] == pytest.approx(theta.mean(), abs=0.1)
        assert entry["std"] == pytest.approx(theta.std(), abs=0.1)
        assert entry["prior"] == [1.0, 1.0] and entry["level"] == 0.95 and entry["method"] == "normal"


def test_interval_choice_decides_the_blocks():
    bootstrap, bayes = document("bootstrap"), document("bayes", prior=(0.5, 0.5))
    assert bootstrap["gpassk"]["uncertainty"] and "bayes" not in bootstrap["gpassk"]
    assert bayes["gpassk"]["uncertainty"] == {} and bayes["gpassk"]["bayes"]["mG-Pass@2"]["prior"] == [0.5, 0.5]
    assert read_results(bayes).bayes["mG-Pass@2"].prior == (0.5, 0.5)


def test_schema_1_and_0_files_read(both):
    legacy = copy.deepcopy(both)
    for field in ("schema_version", "complete", "unresolved", "allow_unresolved", "unresolved_reasons"):
        legacy["gpassk"].pop(field)
    legacy.pop("unresolved")
    record = read_results(legacy)
    assert record.schema_version == 1 and record.complete and record.metrics == read_results(both).metrics
    legacy["gpassk"]["judge_stats"]["unresolved"] = 3
    assert not read_results(legacy).complete and read_results(legacy).unresolved == 3
    other = read_results({"accuracy": 40.0, "details": []})
    assert other.schema_version == 0 and other.complete and other.metrics == {"accuracy": 40.0}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(unresolved="many"), "unresolved = 'many': input should be a valid integer"),
        (lambda d: d["gpassk"].update(complete="no"), "gpassk.complete = 'no': input should be a valid boolean"),
        (lambda d: d["gpassk"].update(schema_version=9), "unknown results schema_version 9"),
        (lambda d: d["gpassk"].update(k=[0]), "gpassk.k[0] = 0: input should be greater than or equal to 1"),
        (lambda d: d["gpassk"].update(k="x"), "gpassk.k = 'x': input should be a valid integer"),
        (lambda d: d["gpassk"].update(n="8"), "gpassk.n = '8': input should be a valid integer"),
        (lambda d: d["gpassk"].update(thresholds=["x"]), "gpassk.thresholds[0] = 'x': input should be a valid number"),
        (lambda d: d["gpassk"].update(benchmark=3), "gpassk.benchmark = 3: input should be a valid string"),
        (lambda d: d["gpassk"].update(bounds={"a": [1]}), "gpassk.bounds.a[1] is missing; add it"),
        (
            lambda d: d["gpassk"].update(identical_replicas_share=2),
            "gpassk.identical_replicas_share = 2: input should be less than or equal to 1",
        ),
        (lambda d: d["gpassk"].update(judge_stats=[]), "gpassk.judge_stats = []: input should be an object"),
        (
            lambda d: d["gpassk"]["uncertainty"]["mG-Pass@2"].update(ci_low="x"),
            "gpassk.uncertainty['mG-Pass@2'].ci_low = 'x': input should be a valid number",
        ),
        (
            lambda d: d["gpassk"]["bayes"]["mG-Pass@2"].update(prior=[1.0]),
            "gpassk.bayes['mG-Pass@2'].prior[1] is missing; add it",
        ),
        (lambda d: d.update(details={}), "details = {}: input should be a valid array"),
        (lambda d: d.update(gpassk=list(range(100))), "gpassk = [0, 1, 2, 3, 4, 5, ...]: input should be an object"),
        (lambda d: d["details"][1].update(c=-1), "details[1].c = -1: input should be greater than or equal to 0"),
        (lambda d: d["details"][1].update(split=3), "details[1].split = 3: input should be a valid string"),
        (lambda d: d["details"][1].update(c=4), "details[1]: c=4, n=8 do not match its 8 verdicts"),
        (
            lambda d: d["details"][0]["verdicts"][2].update(correct="yes"),
            "details[0].verdicts[2].correct = 'yes': input should be a valid boolean",
        ),
        (
            lambda d: d["details"][0]["verdicts"][2].update(rule_correct=1.5),
            "details[0].verdicts[2].rule_correct = 1.5: input should be a valid boolean",
        ),
    ],
)
def test_each_malformed_field_is_a_one_line_error(both, change, message):
    broken = copy.deepcopy(both)
    change(broken)
    with pytest.raises(InputError) as error:
        read_results(broken, "r.json")
    text = str(error.value)
    assert text.startswith("r.json: ") and message in text and "\n" not in text


def test_rule_correct_is_read_when_recorded(both):
    recorded = copy.deepcopy(both)
    verdicts = recorded["details"][1]["verdicts"]  # equal verdicts may share one record: replace it
    verdicts[0] = {**verdicts[0], "rule_correct": False}
    record = read_results(recorded)
    assert record.details[1].verdicts[0].rule_correct is False and record.details[1].verdicts[1].rule_correct is None


def test_a_malformed_file_on_disk(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match=r"r.json: not valid JSON \(.* at line 1 column \d+\)$"):
        load_results(path)


@pytest.mark.parametrize(
    "given, expected",
    [
        (dict(url="http://h:1/v1", model_name="J"), {"urls": ("http://h:1/v1",), "model": "J"}),
        (
            dict(eval_urls=["http://a:1/v1", "http://b:1/v1"], eval_model_name="J"),
            {"urls": ("http://a:1/v1", "http://b:1/v1"), "model": "J"},
        ),
        (
            dict(judge_url=["http://a:1/v1"], judge_model="J", url="http://a:1/v1"),
            {"urls": ("http://a:1/v1",), "model": "J"},
        ),
        (dict(url=None, model_name=""), {"urls": (), "model": ""}),
    ],
)
def test_one_name_per_judge_setting(given, expected):
    assert judge_endpoint(**given) == expected


def test_two_different_values_for_one_setting_are_refused():
    with pytest.raises(InputError, match="the judge model is given twice with different values"):
        judge_endpoint(model_name="A", eval_model_name="B")


def test_score_cli_interval_both_and_a_bad_prior(tmp_path, capsys):
    source = tmp_path / "gens.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": q.id, "question": q.question, "answer": q.reference, "predictions": list(q.predictions)})
            + "\n"
            for q in questions()
        )
    )
    output = tmp_path / "scores.json"
    assert (
        main(
            [
                "score",
                str(source),
                "--k",
                "2",
                "4",
                "--thresholds",
                "0.5",
                "1.0",
                "--interval",
                "both",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == EXIT_OK
    )
    written = json.loads(output.read_text())
    assert written["gpassk"]["bayes"]["G-Pass@4_1.0"]["mean"] == pytest.approx(
        document("both")["gpassk"]["bayes"]["G-Pass@4_1.0"]["mean"], abs=1e-9
    )
    assert "credible" in capsys.readouterr().out
    assert main(["score", str(source), "--k", "2", "--interval", "bayes", "--prior", "1", "-1"]) == EXIT_USAGE
    assert capsys.readouterr().err.strip() == "gpassk score: error: --prior beta0 must be a finite number > 0; got -1.0"


def test_score_on_a_run_folder_points_to_rejudge(tmp_path, capsys):
    run = tmp_path / "outputs" / "20250101_000000"
    (run / "predictions").mkdir(parents=True)
    assert main(["score", str(run), "--k", "1"]) == EXIT_USAGE
    error = capsys.readouterr().err.strip()
    assert error.splitlines()[-1].endswith(f"use: gpassk rejudge {run}")


def test_the_overall_metrics_are_the_bootstrap_means_computed_once(monkeypatch):
    """With intervals, each overall metric is its bootstrap estimate's mean: ``summarize`` is not run again."""

    def again(*args, **kwargs):
        raise AssertionError("the overall means were computed a second time")

    expected = compute.gpassk_results(COUNTS, N, [2, 4], [0.5, 1.0], bootstrap=False).metrics
    monkeypatch.setattr(compute, "summarize", again)
    results = compute.gpassk_results(COUNTS, N, [2, 4], [0.5, 1.0], bootstrap=True)
    assert results.metrics == expected
    assert all(results.metrics[key] == interval.mean for key, interval in results.uncertainty.items() if "@" in key)


def test_a_bug_while_checking_a_document_keeps_its_traceback(both, monkeypatch):
    """A ValueError from the metrics while a document is checked is a bug: raised, never listed as a problem."""

    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(consistency, "gpassk_results", broken)
    with pytest.raises(ValueError, match="boom"):
        read_results(both)


@pytest.mark.parametrize(
    "module",
    [
        "scoring/results.py",
        "scoring/details.py",
        "scoring/compute.py",
        "scoring/results_io.py",
        "scoring/consistency.py",
    ],
)
def test_the_results_modules_import_the_package_at_the_top_only(module):
    """No import of the package inside a function dodges a circle (results <-> consistency was one)."""
    path = Path(gpassk_opencompass.__file__).parent / module
    inside = [
        node.lineno
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpassk_opencompass")
    ]
    assert not inside, f"{module}: imports inside functions at lines {inside}"
