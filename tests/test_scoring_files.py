"""``gpassk score`` never destroys a file: same-file input/output/cache and unwritable places are refused first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpassk_opencompass.cli import EXIT_OK, EXIT_USAGE, main
from gpassk_opencompass.errors import InputError
from loopback_judge import exact_match_judge
from scoring_fixtures import MODEL, generations, write_jsonl


def llm(server, source, *extra):
    return [
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
        *extra,
    ]


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--output", "{input}"], "--output is the same file as INPUT"),
        (["--output", "{folder}/./gens.jsonl"], "--output is the same file as INPUT"),
        (["--cache", "{input}"], "--cache is the same file as INPUT"),
        (["--output", "{folder}/same.json", "--cache", "{folder}/same.json"], "--cache is the same file as --output"),
        (["--cache", "{folder}/absent-folder/cache.jsonl"], "folder {folder}/absent-folder does not exist"),
    ],
)
def test_same_file_or_unwritable_cache_is_refused_before_judging(loopback_openai, tmp_path, capsys, extra, message):
    server = loopback_openai(exact_match_judge)
    source = write_jsonl(tmp_path / "gens.jsonl", generations([3, 5]))
    before = source.read_bytes()
    argv = llm(server, source, *[part.format(input=source, folder=tmp_path) for part in extra])
    assert main(argv) == EXIT_USAGE
    error = capsys.readouterr().err.strip()
    assert message.format(folder=tmp_path) in error and len(error.splitlines()) == 1
    assert server.requests == []  # refused before any judging
    assert source.read_bytes() == before  # the input is untouched
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gens.jsonl"]


def test_default_cache_in_an_unusable_folder_says_how_to_choose_another(tmp_path, capsys, monkeypatch):
    source = write_jsonl(tmp_path / "gens.jsonl", generations([3]))
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))  # a file where the cache folder would be
    argv = ["score", str(source), "--k", "4", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"]
    assert main(argv) == EXIT_USAGE
    error = capsys.readouterr().err
    assert "verdict cache folder" in error and "--cache PATH" in error and "--no-cache" in error


def test_results_are_written_atomically_and_redacted(tmp_path, monkeypatch):
    secret = "sk-test-abcdefghijklmnop"
    monkeypatch.setenv("OC_JUDGE_API_KEY", secret)
    rows = generations([3, 5])
    rows[0]["predictions"][0] = f"my key is \\boxed{{{secret}}}"  # the extracted answer lands in details
    source = write_jsonl(tmp_path / "gens.jsonl", rows)
    output = tmp_path / "scores.json"
    output.write_text("old results\n")
    assert main(["score", str(source), "--k", "4", "--output", str(output), "--quiet"]) == EXIT_OK
    text = output.read_text()
    assert secret not in text and json.loads(text)["unresolved"] == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gens.jsonl", "scores.json"]  # no temporary


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_rejudge_output_inside_the_run_is_refused_before_any_work(tmp_path, capsys):
    run = tmp_path / "outputs" / "20250101_000000"
    (run / "predictions" / "model").mkdir(parents=True)
    (run / "configs").mkdir()
    from gpassk_opencompass.plugin.rejudge import RejudgeTarget, rejudge

    target = RejudgeTarget(run, "model", "data", {}, {}, run / "configs" / "c.py")
    for output in (run, run / "rejudged"):
        with pytest.raises(InputError, match="is inside the run being re-judged"):
            rejudge([target], output, dict(judge="rule"))
    assert sorted(str(path.relative_to(run)) for path in run.rglob("*")) == [
        "configs",
        "predictions",
        str(Path("predictions/model")),
    ]
