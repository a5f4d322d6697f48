"""A verdict is trusted when this user's judge gave it or this user named the cache that holds it.

A sharer scores generations with a judge that says yes to everything and ships the folder with its verdict
cache (and the old evaluator's ``judge_cache.jsonl`` in a run's results folder). The receiver's judge says no
to everything and must be asked: the shared cache changes no verdict unless the receiver names it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evaluator_fixtures import make_dataset, make_predictions, run
from gpassk_opencompass import GPassKEvaluator
from in_process import run_main
from scoring_fixtures import MODEL, generations, write_jsonl

YES, NO = "They agree. \\boxed{yes}", "They differ. \\boxed{no}"


def llm(server, *extra: str) -> tuple[str, ...]:
    return ("--judge", "llm", "--judge-url", server.url, "--judge-model", MODEL, "--quiet", *extra)


def shared_folder(tmp_path: Path, yes_server, capsys, seeds: bool) -> tuple[Path, str]:
    """The sharer's folder, its input (a file, or a folder of two seeds) and its cache beside it, as shipped."""
    folder = tmp_path / "shared"
    folder.mkdir()
    if seeds:
        given = folder / "runs"
        given.mkdir()
        for seed in range(2):
            rows = [dict(row, predictions=row["predictions"][seed : seed + 1]) for row in generations([1, 2, 0])]
            write_jsonl(given / f"seed{seed}.jsonl", rows)
        cache = folder / "runs.judge-cache.jsonl"
    else:
        given = write_jsonl(folder / "gens.jsonl", generations([1, 2, 0], n=4))
        cache = folder / "gens.judge-cache.jsonl"
    k = "2"
    made = run_main(capsys, "score", str(given), "--k", k, *llm(yes_server, "--cache", str(cache)))
    assert made.returncode == 0 and "100.00" in made.stdout, made.stderr  # the sharer's judge said yes to all
    return folder, given.name


def test_a_cache_shipped_beside_the_input_changes_no_verdict_unless_named(loopback_openai, tmp_path, capsys):
    for seeds in (False, True):
        work = tmp_path / ("seeds" if seeds else "file")
        work.mkdir()
        folder, name = shared_folder(work, loopback_openai(lambda body: YES), capsys, seeds)
        received = work / "received"
        shutil.copytree(folder, received)  # the shared folder, cache included
        beside = next(received.glob("*.judge-cache.jsonl"))
        no = loopback_openai(lambda body: NO)
        output = work / "scores.json"
        result = run_main(capsys, "score", str(received / name), "--k", "2", *llm(no, "--output", str(output)))
        assert result.returncode == 0, result.stderr
        document = json.loads(output.read_text())
        assert all(question["c"] == 0 for question in document["details"])  # the receiver's judge: no to all
        stats, cache = document["gpassk"]["judge_stats"], document["gpassk"]["cache"]
        assert len(no.requests) == stats["unique"] > 0 and stats["cached"] == 0
        assert cache["verdicts"] == 0 and Path(cache["file"]) != beside
        assert f"a verdict cache beside the input, {beside}, is not read" in result.stderr
        # named by the receiver: trusted, and said so
        named = work / "named.json"
        asked = len(no.requests)
        result = run_main(
            capsys, "score", str(received / name), "--k", "2", *llm(no, "--cache", str(beside), "--output", str(named))
        )
        assert result.returncode == 0, result.stderr
        document = json.loads(named.read_text())
        assert len(no.requests) == asked  # every verdict from the named cache
        assert document["gpassk"]["cache"] == {
            "file": str(beside),
            "verdicts": document["gpassk"]["judge_stats"]["unique"],
        }
        assert "is not read" not in result.stderr


def test_the_evaluator_never_reads_a_cache_found_in_a_run_folder(loopback_openai, tmp_path):
    """A shared run's results folder holding a cache (the evaluator's old place) decides nothing."""
    out_dir = tmp_path / "results" / "model" / "dataset"
    yes = loopback_openai(lambda body: YES)
    sharer = GPassKEvaluator(model_name=MODEL, url=yes.url, cache_path=str(out_dir / "judge_cache.jsonl"))
    sharer._out_dir = str(out_dir)
    assert run(sharer)["G-Pass@2_1.0"] == 100.0  # the sharer's judge said yes to all, kept where it named

    no = loopback_openai(lambda body: NO)
    receiver = GPassKEvaluator(model_name=MODEL, url=no.url)
    receiver._out_dir = str(out_dir)
    dataset = make_dataset()
    results = run(receiver, dataset, make_predictions(dataset))
    assert results["G-Pass@2_1.0"] == 0.0 and results["accuracy (8 runs average)"] == 0.0
    stats = results["gpassk"]["judge_stats"]
    assert len(no.requests) == stats["unique"] > 0 and stats["cached"] == 0
    assert str(out_dir) not in results["gpassk"]["cache"]["file"]
