"""``gpassk rejudge`` on a finished OpenCompass run: its saved predictions judged again, no generation."""

from __future__ import annotations

import json
import shutil

import pytest

from gpassk_opencompass.cli import main
from opencompass_e2e import read_result, scripted_judge

#: Every test here launches the real opencompass CLI (minutes): `pytest -m "not e2e"` skips them.
pytestmark = pytest.mark.e2e


@pytest.fixture
def data_env(tiny_opencompass_run, monkeypatch):
    """The dataset must load as it did for the original run."""
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tiny_opencompass_run.data_root))
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    return tiny_opencompass_run


def test_rule_judged_run_rejudged_by_an_llm_gives_the_same_numbers(data_env, loopback_openai, tmp_path, capsys):
    run = data_env
    judge = loopback_openai(scripted_judge, model_name="judge")
    output = tmp_path / "rejudged"
    part = sorted((run.run_dir / "predictions" / "strong_t0-7").glob("tiny_rule*.json"))[0]
    assert (
        main(
            [
                "rejudge",
                str(part),
                "--judge-url",
                judge.url,
                "--judge-model",
                "judge",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == 0
    )
    original = read_result(run.run_dir, "strong_t0-7", "tiny_rule")
    again = json.loads((output / "results" / "strong_t0-7" / "tiny_rule.json").read_text())
    metric_keys = [key for key in original if key not in ("gpassk", "details")]
    assert len(metric_keys) > 20
    for key in metric_keys:
        assert again[key] == pytest.approx(original[key], abs=1e-9), key
    assert again["gpassk"]["judge"] == "llm" and again["gpassk"]["judge_model"] == "judge"
    distinct = sum((q.correct["strong"] > 0) + (q.correct["strong"] < 8) for q in run.questions)
    assert len(judge.requests) == distinct
    assert list((output / "configs").glob("*.py")), "the re-judged run carries its config for the leaderboard"
    printed = capsys.readouterr().out
    assert "== strong_t0-7 x tiny_rule" in printed and "llm judge" in printed

    # the same command again: the result exists, nothing is asked
    assert (
        main(
            [
                "rejudge",
                str(part),
                "--judge-url",
                judge.url,
                "--judge-model",
                "judge",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == 0
    )
    assert len(judge.requests) == distinct


def test_a_whole_run_with_a_new_k(data_env, tmp_path):
    run = data_env
    output = tmp_path / "rejudged"
    assert (
        main(
            [
                "rejudge",
                str(run.run_dir / "predictions" / "weak_t0-7"),
                "--judge",
                "rule",
                "--k",
                "2",
                "--thresholds",
                "0.5",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == 0
    )
    for dataset in ("tiny_rule", "tiny_llm"):
        result = json.loads((output / "results" / "weak_t0-7" / f"{dataset}.json").read_text())
        original = read_result(run.run_dir, "weak_t0-7", dataset)
        assert result["gpassk"]["k"] == [2] and result["gpassk"]["thresholds"] == [0.5]
        assert set(key for key in result if key.startswith("G-Pass@")) == {"G-Pass@2_0.5"}
        assert result["accuracy (8 runs average)"] == pytest.approx(original["accuracy (8 runs average)"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--judge", "llm"], "needs at least one judge URL"),
        (["--judge-url", "localhost:1/v1", "--judge-model", "m"], "is not an http(s) URL"),
        (["--k", "16"], "k must be"),
        (["--interval", "bayes", "--prior", "0", "1"], "prior alpha0 must be a finite number > 0"),
        (["--rule-timeout", "-1"], "--rule-timeout -1 is out of range"),
    ],
)
def test_bad_options_fail_before_anything_is_judged(data_env, tmp_path, capsys, argv, message):
    output = tmp_path / "never"
    code = main(["rejudge", str(data_env.run_dir), "--output", str(output), *argv])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (output / "results").exists()


def test_not_an_opencompass_run(tmp_path, capsys):
    folder = tmp_path / "predictions" / "model"
    folder.mkdir(parents=True)
    (folder / "data.json").write_text("{}")
    assert main(["rejudge", str(folder / "data.json")]) == 2
    assert "has no saved config" in capsys.readouterr().err


def test_rule_timeout_reaches_the_evaluator():
    """``--rule-timeout`` is a GPassKEvaluator keyword: the rule judge (and a cascade's rule stage) gets it."""
    from gpassk_opencompass.cli import build_parser
    from gpassk_opencompass.cli.rejudge import evaluator_keywords
    from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

    for argv, kind in [
        ([], "rule"),
        (["--judge", "cascade", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"], "cascade"),
    ]:
        keywords = evaluator_keywords(build_parser().parse_args(["rejudge", "RUN", "--rule-timeout", "7", *argv]))
        settings = GPassKEvaluator(**keywords).judge_settings
        assert (settings.kind, settings.rule_timeout) == (kind, 7)


def test_a_rejudge_with_another_judge_or_k_into_the_same_output_judges_again(
    data_env, loopback_openai, tmp_path, capsys
):
    """rule, then llm, then another k, judge prompt or intervals, into the default output: each is judged (or its
    intervals computed) again, never the earlier result returned."""
    run = data_env
    judge = loopback_openai(scripted_judge, model_name="judge")
    part = sorted((run.run_dir / "predictions" / "strong_t0-7").glob("tiny_rule*.json"))[0]
    result = run.run_dir.with_name(run.run_dir.name + "_rejudged") / "results" / "strong_t0-7" / "tiny_rule.json"
    llm = ["--judge-url", judge.url, "--judge-model", "judge", "--quiet"]
    try:
        assert main(["rejudge", str(part), "--judge", "rule", "--quiet"]) == 0
        assert json.loads(result.read_text())["gpassk"]["judge"] == "rule" and judge.requests == []

        assert main(["rejudge", str(part), *llm]) == 0
        again = json.loads(result.read_text())["gpassk"]
        distinct = sum((q.correct["strong"] > 0) + (q.correct["strong"] < 8) for q in run.questions)
        assert (again["judge"], again["judge_model"], len(judge.requests)) == ("llm", "judge", distinct)
        assert "llm judge" in capsys.readouterr().out

        assert main(["rejudge", str(part), *llm, "--k", "2"]) == 0
        assert json.loads(result.read_text())["gpassk"]["k"] == [2]
        assert len(judge.requests) == distinct  # the verdicts came from the judge cache of the output run

        assert main(["rejudge", str(part), *llm, "--k", "2"]) == 0  # made as asked: kept
        assert json.loads(result.read_text())["gpassk"]["k"] == [2] and len(judge.requests) == distinct

        # other intervals (Bayesian at 90%, prior Beta(2, 2)): computed again, never the bootstrap ones returned
        bayes = ["--k", "2", "--interval", "bayes", "--ci", "0.9", "--prior", "2", "2"]
        assert main(["rejudge", str(part), *llm, *bayes]) == 0
        made = json.loads(result.read_text())["gpassk"]
        assert made["bayes"] and not made["uncertainty"] and len(judge.requests) == distinct
        assert {(estimate["level"], tuple(estimate["prior"])) for estimate in made["bayes"].values()} == {(0.9, (2, 2))}
        assert main(["rejudge", str(part), *llm, "--k", "2", "--interval", "both", "--ci", "0.9"]) == 0
        made = json.loads(result.read_text())["gpassk"]
        assert {interval["ci"] for interval in made["uncertainty"].values()} == {0.9}
        assert {tuple(estimate["prior"]) for estimate in made["bayes"].values()} == {(1, 1)}

        # another judge prompt: judged again (its verdicts are asked anew: the protocol is part of every cache key)
        assert main(["rejudge", str(part), *llm, "--k", "2", "--judge-prompt", "livemathbench"]) == 0
        made = json.loads(result.read_text())["gpassk"]
        assert made["prompt_version"] != again["prompt_version"] and len(judge.requests) == 2 * distinct
    finally:
        import shutil

        shutil.rmtree(result.parents[2], ignore_errors=True)  # the session's run is shared


def test_a_user_judge_rejudges_a_run_and_is_identified_on_rerun(data_env, tmp_path, monkeypatch, capsys):
    """``--judge module:function`` (from the current directory) through OpenCompass's eval task: the results say
    ``python:module:function``; the same command again keeps them (no call), another judge judges again."""
    run = data_env
    (tmp_path / "my_checks.py").write_text(
        "import pathlib\n"
        "from gpassk_opencompass.judges import extract_answer, rule_verdict\n\n"
        "def as_rule(prediction, reference):\n"
        "    with open(pathlib.Path(__file__).with_name('calls.txt'), 'a') as calls:\n"
        "        calls.write('.')\n"
        "    return rule_verdict(reference, extract_answer(prediction)).correct\n"
    )
    monkeypatch.chdir(tmp_path)
    part = sorted((run.run_dir / "predictions" / "strong_t0-7").glob("tiny_rule*.json"))[0]
    output = tmp_path / "rejudged"
    command = ["rejudge", str(part), "--judge", "my_checks:as_rule", "--output", str(output), "--quiet"]
    assert main(command) == 0
    again = json.loads((output / "results" / "strong_t0-7" / "tiny_rule.json").read_text())
    original = read_result(run.run_dir, "strong_t0-7", "tiny_rule")
    assert again["gpassk"]["judge"] == "python:my_checks:as_rule" and again["gpassk"]["judge_model"] is None
    for key in (key for key in original if key not in ("gpassk", "details")):
        assert again[key] == pytest.approx(original[key], abs=1e-9), key
    calls = (tmp_path / "calls.txt").read_text()
    assert calls and "python:my_checks:as_rule" in capsys.readouterr().out

    assert main(command) == 0  # identified as made by this judge: kept, the function not called again
    assert (tmp_path / "calls.txt").read_text() == calls
    assert main([*command[:3], "rule", *command[4:]]) == 0
    assert json.loads((output / "results" / "strong_t0-7" / "tiny_rule.json").read_text())["gpassk"]["judge"] == "rule"


def test_a_run_missing_a_middle_part_is_refused_naming_it(data_env, tmp_path, capsys):
    """The real run's parts _0, _1 of tiny_rule kept as _0 and _2: rejudge names tiny_rule_1.json, judges nothing."""
    run = tmp_path / "run"
    shutil.copytree(data_env.run_dir / "configs", run / "configs")
    folder = run / "predictions" / "strong_t0-7"
    folder.mkdir(parents=True)
    real = data_env.run_dir / "predictions" / "strong_t0-7"
    assert sorted(part.name for part in real.glob("tiny_rule_*.json")) == ["tiny_rule_0.json", "tiny_rule_1.json"]
    shutil.copy(real / "tiny_rule_0.json", folder / "tiny_rule_0.json")
    shutil.copy(real / "tiny_rule_1.json", folder / "tiny_rule_2.json")
    output = tmp_path / "rejudged"
    assert main(["rejudge", str(run), "--output", str(output), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{folder}: tiny_rule_1.json is missing" in err and len(err.strip().splitlines()) == 1, err
    assert not output.exists()


def test_a_run_whose_data_changed_names_the_data_the_counts_and_the_fix(data_env, tmp_path, monkeypatch, capsys):
    """The run's data with two questions more (as after a newer download): one line before anything is judged,
    naming the data read, what the run had and how to give it the data it used (was: a bare length mismatch)."""
    changed = tmp_path / "changed_root"
    shutil.copytree(data_env.data_root, changed)
    amc_en = changed / "data" / "LiveMathBench" / "202412" / "AMC_en.jsonl"
    lines = amc_en.read_text(encoding="utf-8").splitlines()
    extra = [
        json.dumps({"question": f"What is {i} + 100?", "answer": str(i + 100), "question_type": "问答"}) for i in (1, 2)
    ]
    amc_en.write_text("\n".join(lines + extra) + "\n", encoding="utf-8")
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(changed))
    questions = len(data_env.questions)  # 8, each n = 8 times in the run
    output = tmp_path / "rejudged"
    code = main(["rejudge", str(data_env.run_dir / "predictions" / "strong_t0-7"), "--output", str(output), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    (line,) = [line for line in err.splitlines() if "error:" in line]  # the datasets library's bars aside
    assert f"strong_t0-7 x tiny_rule: the run has {questions * 8} predictions ({questions} questions x n=8)" in line
    assert (
        f"its data, {changed / 'data' / 'LiveMathBench'} (path='opencompass/LiveMathBench'), now gives "
        f"{(questions + 2) * 8} rows ({questions + 2} questions x n=8)"
    ) in line
    assert "give the data the run used" in line and "COMPASS_DATA_CACHE" in line
    assert "must have the same length" not in line
    assert not (output / "results").exists()


def test_a_shared_runs_saved_settings_say_what_was_evaluated_never_how(data_env, tmp_path, monkeypatch, capsys):
    """The saved evaluator asks for 100,000 rule judge processes, a cache path, an endpoint, timeouts and retries:
    ``gpassk rejudge`` takes the benchmark and the columns from it, everything else from its own options, and says
    in one line which keywords it ignored."""
    from gpassk_opencompass.judges import workers

    run = tmp_path / "shared"
    shutil.copytree(data_env.run_dir, run, symlinks=True)
    (config,) = (run / "configs").glob("*.py")
    hostile = (
        "judge='rule', rule_processes=100000, concurrency=100000, request_timeout=0.001, max_retries=1000000000, "
        f"cache_path='{tmp_path / 'planted.jsonl'}', url=['http://127.0.0.1:9/v1'], model_name='planted'"
    )
    text = config.read_text()
    assert "judge='rule'" in text
    config.write_text(text.replace("judge='rule'", hostile))
    started = []
    real = workers.in_interpreter

    def counting(code, arguments=()):
        start = real(code, arguments)

        def counted(*args):
            started.append(1)
            return start(*args)

        return counted

    monkeypatch.setattr(workers, "in_interpreter", counting)
    part = sorted((run / "predictions" / "strong_t0-7").glob("tiny_rule*.json"))[0]
    output = tmp_path / "rejudged"
    code = main(["rejudge", str(part), "--judge", "rule", "--output", str(output)])
    err = capsys.readouterr().err
    assert code == 0, err
    # the default, as the person running the command left it: a small batch from the main thread is judged
    # in-process (no interpreter started; a large one, at most one per core); the saved 100,000 is never read
    assert not started
    (line,) = [line for line in err.splitlines() if "ignored" in line]
    for keyword in (
        "cache_path",
        "concurrency",
        "max_retries",
        "model_name",
        "request_timeout",
        "rule_processes",
        "url",
    ):
        assert keyword in line
    assert "benchmark" not in line.split("ignored")[0]  # what was evaluated is kept
    results = json.loads((output / "results" / "strong_t0-7" / "tiny_rule.json").read_text())
    assert results["gpassk"]["benchmark"] == "LiveMathBench-202412" and results["gpassk"]["judge"] == "rule"
    assert not (tmp_path / "planted.jsonl").exists()
