"""Cut generations recorded, not guessed: the grid's model class in a real ``opencompass`` run records each
reply's ``finish_reason`` beside the predictions, and every reader counts the cuts from it exactly.

A loopback server plays the model: per question four scripted replies, some stopped at the output limit
(``finish_reason: "length"``). Two of those the text alone cannot see (one ends at a sentence's end, one after
its boxed answer) and one reply that looks cut stopped on its own (``"stop"``), so the extraction's lower bound
(2 cut) and the recorded count (3 cut) differ. The results file of GPassKEvaluator, ``gpassk score`` of the
predictions (the ``opencompass`` reader), ``gpassk rejudge``, and the leaderboard's Markdown, CSV, warnings and
HTML page must all say 3 of 12, exactly; without the sidecar the same predictions give the lower bound again.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from generated_configs import generate_configs
from gpassk_opencompass.cli import main
from gpassk_opencompass.view import Viewer, parse_key
from loopback_openai import Reply, last_user_message
from opencompass_e2e import offline_environment, read_result, run_opencompass
from tiny_data import write_aime2025

pytestmark = pytest.mark.e2e

N = 4
#: Per question, its gold answer and its four replies: (text, finish_reason).
REPLIES = {
    "Compute 2 + 3.": (
        "5",
        [
            ("The answer is \\boxed{5}.", "stop"),
            ("Adding them gives \\boxed{5}.", "stop"),
            ("We add the two numbers and get", "length"),  # cut, and the text shows it
            ("We add the two numbers.", "length"),  # cut at a sentence's end: the text cannot tell
        ],
    ),
    "Compute 4 + 4.": (
        "8",
        [
            ("\\boxed{8} and then we check that", "length"),  # cut after its answer: the text cannot tell
            ("Thinking about it and", "stop"),  # looks cut, but stopped on its own: no answer, not cut
            ("So \\boxed{8}.", "stop"),
            ("Hence \\boxed{8}.", "stop"),
        ],
    ),
    "Compute 1 + 6.": ("7", [(f"Attempt {i}: \\boxed{{7}}.", "stop") for i in range(N)]),
}
GENERATIONS = N * len(REPLIES)
CUT = sum(reason == "length" for _, replies in REPLIES.values() for _, reason in replies)  # 3
NO_ANSWER = 1  # "Thinking about it and"
TEXT_CUT, TEXT_NO_ANSWER = 2, 1  # what the text alone finds: "... and get" and "Thinking about it and"; "...numbers."


class Scripted:
    """The i-th request with a question's prompt gets that question's i-th reply."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        prompt = last_user_message(body)
        question = next(text for text in REPLIES if text in prompt)
        with self._lock:
            index = self._seen[question]
            self._seen[question] += 1
        text, reason = REPLIES[question][1][index % N]
        return Reply(text, finish_reason=reason)


def cut_block(results: dict) -> dict:
    return results["gpassk"]["cut"]


def test_recorded_finish_reasons_give_exact_cut_counts_everywhere(tmp_path, loopback_openai, capsys, monkeypatch):
    cache = tmp_path / "cache"
    for name, value in offline_environment(cache, tmp_path).items():  # gpassk rejudge loads the data in-process
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    write_aime2025(cache, [(question, answer) for question, (answer, _) in REPLIES.items()])
    server = loopback_openai(Scripted())
    configs = tmp_path / "configs"
    (run,) = generate_configs(
        "self_served.py",
        configs,
        f"model_url={server.url}",
        "benchmarks=[AIME2025]",
        f"n={N}",
        "k=[2,4]",
        "greedy=False",
        "max_out_len=64",
    )
    workdir = tmp_path / "outputs"
    workdir.mkdir()
    run_dir = run_opencompass(configs / run["file"], workdir, cache)
    model, dataset = run["model_abbr"], run["dataset_abbr"]
    assert len(server.requests) == GENERATIONS

    # the sidecar beside the predictions: one line per generation, keyed by its text's digest
    predictions = run_dir / "predictions" / model / f"{dataset}.json"
    sidecar = predictions.with_name(f"{dataset}.finish_reasons.jsonl")
    lines = [json.loads(line) for line in sidecar.read_text().splitlines()]
    assert sorted(line["finish_reason"] for line in lines) == sorted(
        reason for _, replies in REPLIES.values() for _, reason in replies
    )

    # GPassKEvaluator inside OpenCompass: the results' cut block is the recorded count
    exact = dict(generations=GENERATIONS, cut=CUT, no_answer=NO_ANSWER, recorded=GENERATIONS, source="finish_reason")
    assert cut_block(read_result(run_dir, model, dataset)) == exact

    # gpassk score on the predictions file: the opencompass reader fills finish_reasons
    scored = tmp_path / "scored.json"
    assert main(["score", str(predictions), "--judge", "rule", "--k", "2", "4", "--output", str(scored)]) == 0
    assert cut_block(json.loads(scored.read_text())) == exact

    # gpassk rejudge: the rejudged run's predictions folder is the run's (linked), sidecar included
    rejudged = tmp_path / "rejudged"
    assert main(["rejudge", str(run_dir), "--judge", "rule", "--output", str(rejudged)]) == 0
    assert cut_block(read_result(rejudged, model, dataset)) == exact
    capsys.readouterr()

    # the leaderboard: an exact share, no "≥", no "at least"
    share = f"{100 * CUT // GENERATIONS} %"  # 25 %
    assert main(["leaderboard", str(workdir), "--format", "csv"]) == 0
    (record,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert (record["cut"], record["no_answer"], record["cut_source"]) == (str(CUT), str(NO_ANSWER), "finish_reason")
    warning = f"on AIME2025: {share} of generations cut at the output limit; G-Pass@4_1.0 is bounded by it"
    assert warning in record["warnings"] and "at least" not in record["warnings"]
    assert main(["leaderboard", str(workdir)]) == 0
    printed = capsys.readouterr()
    assert f"| {share} ⚠ |" in printed.out and "≥" not in printed.out
    assert warning in printed.err and "no finish_reason recorded" not in printed.err
    page = tmp_path / "board.html"
    assert main(["leaderboard", str(workdir), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert f"{share} ⚠" in html and "≥" not in html
    assert f"{CUT} of {GENERATIONS} generations cut at the output limit, from the recorded finish_reason" in html

    # gpassk view: the run's Cut is the recorded count, and the map's cut cells are the generations cut
    with Viewer([workdir]) as viewer:
        (run_doc,) = viewer.document(parse_key("index"))["runs"]
        assert run_doc["cut"] == {"count": CUT, "total": GENERATIONS, "exact": True}
        rows = viewer.document(parse_key(f"runs/{run_doc['id']}/map"))["questions"]
        assert sum(row["cells"].count("C") for row in rows) == CUT

    # without the sidecar the same predictions give the text's lower bound, and say so
    sidecar.unlink()
    assert main(["score", str(predictions), "--judge", "rule", "--k", "2", "4", "--output", str(scored)]) == 0
    lower = dict(generations=GENERATIONS, cut=TEXT_CUT, no_answer=TEXT_NO_ANSWER, recorded=0, source="extraction")
    assert cut_block(json.loads(scored.read_text())) == lower


def test_replies_without_an_infer_task_record_nothing(tmp_path, loopback_openai, monkeypatch):
    """The model class used on its own (no OpenCompass infer task on the stack) generates as OpenAISDK does."""
    from gpassk_opencompass.plugin.models import OfflineOpenAISDK

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-tiktoken"))
    monkeypatch.chdir(tmp_path)
    server = loopback_openai(Scripted())
    model = OfflineOpenAISDK(path="loopback-model", openai_api_base=server.url, retry=1, query_per_second=100)
    texts = model.generate(["Compute 2 + 3.", "Compute 2 + 3."], max_out_len=64)
    assert sorted(texts) == ["Adding them gives \\boxed{5}.", "The answer is \\boxed{5}."]
    assert all(type(text) is str for text in texts)
    assert not list(Path(tmp_path).rglob("*.finish_reasons.jsonl"))
