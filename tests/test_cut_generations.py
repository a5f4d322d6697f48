"""Generations cut at the output limit: counted per generation, recorded in the results, shown by the console report,
the leaderboard (Markdown, CSV, HTML) and its warning, through the real ``gpassk score`` then ``gpassk leaderboard``.

The run: 4 questions x 4 samples; the 4th sample of each question ran out of tokens (a server's finish_reason
``length``, the text stopping mid-sentence), and one more sample says no answer ("I do not know."). A quarter of the
generations are cut, so G-Pass@4_1.0 is 0 whatever the others: the counts and metrics are asserted against what the
file holds and the exact oracle (``tests/exact.py``), never against the code under test.
"""

from __future__ import annotations

import copy
import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from exact import exact_g_pass
from gpassk_opencompass.cli import main
from gpassk_opencompass.scoring import load_results, read_results
from gpassk_opencompass.scoring.cut import CUT_REASONS, count_ends, generation_end
from gpassk_opencompass.scoring.questions import Question
from in_process import run_main
from leaderboard_workdirs import dataset_cfg, model_cfg, write_config
from scoring_fixtures import write_jsonl

REPO = Path(__file__).resolve().parents[1]
V2 = REPO / "tests" / "data" / "results-v2"
INSPECT_LOG = REPO / "tests" / "data" / "inspect" / "gpassk-math-0.3.285.json"
TS = "20261127_101500"

CUT_TEXT = "Let me work through this step by step. First we compute the sum of the"
NO_ANSWER = "I do not know."
# (gold, its four samples); the last of each is cut at the output limit
QUESTIONS = [
    ("5", [r"So the answer is \boxed{5}.", r"Adding gives \boxed{5}.", NO_ANSWER, CUT_TEXT]),
    ("42", [r"\boxed{42}", r"\boxed{41}", r"Hence \boxed{42}.", CUT_TEXT + " two"]),
    ("7", [r"\boxed{7}", r"We get \boxed{7}.", r"It is \boxed{7}.", CUT_TEXT + " three"]),
    ("9", [r"\boxed{8}", r"\boxed{10}", r"\boxed{9}", CUT_TEXT + " four"]),
]
CORRECT = [2, 2, 3, 1]  # the boxed answers equal to the gold, counted by hand
N, CUT, UNANSWERED = 4, 4, 1


def rows(with_finish_reasons: bool) -> list[dict]:
    rows = []
    for index, (gold, predictions) in enumerate(QUESTIONS):
        row = {"id": f"q{index}", "question": f"Question {index}?", "answer": gold, "predictions": predictions}
        if with_finish_reasons:
            row["finish_reasons"] = ["stop", "stop", "stop", "length"]
        rows.append(row)
    return rows


@pytest.mark.parametrize(
    "text, reason, end",
    [
        (r"\boxed{12}", "stop", "answered"),
        (r"\boxed{12} and then I kept going until", "length", "cut"),  # the record wins: cut, answer or not
        ("First 12, then we need to bound", "max_tokens", "cut"),  # inspect_ai's name
        ("The context ran out", "model_length", "cut"),
        ("First 12, then we need to bound", "stop", "no_answer"),  # recorded as finished: not cut, no answer
        ("First 12, then we need to bound", None, "cut"),  # nothing recorded: it stops mid-sentence
        (r"Hence \boxed{12", None, "cut"),  # an open box
        ("<think>so we need to bound the sum of the", None, "cut"),  # cut inside its reasoning
        ("<think>long reasoning</think>The answer is 12.", None, "answered"),
        ("I do not know.", None, "no_answer"),
        ("So the area is 12 square units", None, "answered"),
    ],
)
def test_each_generation_ends_answered_cut_or_without_an_answer(text, reason, end):
    assert generation_end(text, reason) == end


def test_the_cut_reasons_are_the_tools_own_words():
    assert {"length", "max_tokens", "model_length"} <= CUT_REASONS and "stop" not in CUT_REASONS
    assert generation_end("x", "LENGTH") == "cut"  # Gemini writes MAX_TOKENS, others lower case


def test_counted_per_question_and_whether_the_tool_said_so():
    recorded = count_ends([Question("a", "q", "1", ("x", "y."), finish_reasons=("length", None))])
    assert recorded.cut.tolist() == [1] and recorded.no_answer.tolist() == [1]
    assert recorded.recorded == 1 and recorded.source == "mixed"


@pytest.fixture(params=[True, False], ids=["finish_reason", "extraction"])
def scored(request, tmp_path, capsys):
    return score_run(request.param, tmp_path, capsys)


def score_run(recorded: bool, tmp_path: Path, capsys):
    """``gpassk score`` of the run, its output written where OpenCompass puts a run's results."""
    source = write_jsonl(tmp_path / "gens.jsonl", rows(recorded))
    run_dir = tmp_path / "outputs" / TS
    write_config(
        run_dir,
        f"{TS}_4242",
        [model_cfg("cut-model_t0-7", "acme/cut-model", 0.7)],
        [dataset_cfg("AIME2025_k2-4_n4", "AIME2025", (2, 4), N)],
    )
    output = run_dir / "results" / "cut-model_t0-7" / "AIME2025_k2-4_n4.json"
    output.parent.mkdir(parents=True)
    done = run_main(
        capsys, "score", str(source), "--k", "2", "4", "--judge", "rule", "--no-cache", "--output", str(output)
    )
    assert done.returncode == 0, done.stderr
    return recorded, output, done, tmp_path


def test_gpassk_score_records_and_prints_the_cut_generations(scored):
    recorded, output, done, _ = scored
    source = "finish_reason" if recorded else "extraction"
    document = json.loads(output.read_text())
    assert document["gpassk"]["schema_version"] == 5
    assert document["gpassk"]["cut"] == {
        "generations": N * len(QUESTIONS),
        "cut": CUT,
        "no_answer": UNANSWERED,
        "recorded": N * len(QUESTIONS) if recorded else 0,
        "source": source,
    }
    assert [(q["c"], q["cut"], q["no_answer"]) for q in document["details"]] == [
        (c, 1, int(index == 0)) for index, c in enumerate(CORRECT)
    ]
    said = "from the recorded finish_reason" if recorded else "no finish_reason recorded: no final answer and the text"
    at_least = "" if recorded else "at least "  # the text check misses a cut at a sentence's end: a lower bound
    assert f"cut at the output limit: {at_least}{CUT} of 16 generations (25 %, {said}" in done.stdout
    assert done.stdout.rstrip().endswith("; 1 more end without a final answer")
    assert document["G-Pass@4_1.0"] == 0.0  # every question lost a sample to the limit
    expected = sum(exact_g_pass(N, c, 2, Fraction(1)) for c in CORRECT) / len(CORRECT) * 100
    assert document["G-Pass@2_1.0"] == pytest.approx(float(expected), abs=1e-9)
    assert load_results(output).problems == ()


def test_the_leaderboard_shows_the_cut_share_and_warns(scored, capsys, monkeypatch):
    recorded, _, _, folder = scored
    monkeypatch.chdir(folder)
    assert main(["leaderboard", "outputs", "-o", "board.md", "-o", "board.csv", "-o", "board.html"]) == 0
    err = capsys.readouterr().err
    share = (
        "25 % of generations cut at the output limit"
        if recorded
        else ("at least 25 % of generations cut at the output limit (no finish_reason recorded: counted from the text)")
    )
    warning = f"cut-model on AIME2025: {share}; G-Pass@4_1.0 is bounded by it; raise max_out_len"
    assert f"WARNING: {warning}" in err
    composition = "AIME2025: 4 questions, the published column has 15; results will not compare one to one"
    assert f"WARNING: {composition}" in err
    markdown = (folder / "board.md").read_text()
    assert "| LLMs | Greedy | G-Pass@4_0.5 | G-Pass@4_0.75 | G-Pass@4_1.0 | mG-Pass@4 | Cut | Measured |" in markdown
    assert "| cut-model | - | " in markdown and "| 0.0 | " in markdown
    assert f"| {'' if recorded else '≥ '}25 % ⚠ | pilot: 4 of 15 questions, n = 4, rule judge ‡ |" in markdown
    assert f"‡ {warning}" in markdown and f"‡ {composition}" in markdown
    (record,) = csv.DictReader(io.StringIO((folder / "board.csv").read_text()))
    assert (record["questions"], record["n"], record["judge"], record["protocol"]) == ("4", "4", "rule", "")
    assert (record["generations"], record["cut"], record["no_answer"], record["cut_share"]) == ("16", "4", "1", "0.25")
    assert record["cut_source"] == ("finish_reason" if recorded else "extraction")
    assert warning in record["warnings"] and composition in record["warnings"]
    page = (folder / "board.html").read_text()
    assert '<td class="cut warned" data-value="0.25" title="4 of 16 generations cut at the output limit' in page
    assert '">pilot: 4 of 15 questions, n = 4, rule judge ‡</td>' in page
    assert f"<p>‡ {warning}</p>" in page
    assert f"<li>{warning}</li>" not in page and "note(s) from reading the runs" not in page  # said once, not twice
    assert main(["leaderboard", "outputs", "--format", "json", "--ci"]) == 0  # the shape with room for them
    document = json.loads(capsys.readouterr().out)
    assert document["measured"] == [
        {
            "model": "cut-model",
            "benchmark": "AIME2025",
            "questions": 4,
            "n": 4,
            "judge": "rule",
            "protocol": None,
            "generations": 16,
            "cut": 4,
            "no_answer": 1,
            "cut_share": 0.25,
            "cut_source": "finish_reason" if recorded else "extraction",
            "curtail": None,
            "fixed_n_generations": None,
            "claims": "pilot: 4 of 15 questions",
        }
    ]
    assert [entry["warning"] for entry in document["warnings"]] == [
        warning,
        composition + " (see 'Benchmark composition' in docs/generator.md)",
    ]


def test_the_console_and_the_leaderboard_read_a_schema_2_file_without_cut_counts(tmp_path, capsys):
    """``tests/data/results-v2/results.json``: written by main's ``gpassk score`` before schema 3 (PROVENANCE.md)."""
    record = load_results(V2 / "results.json")
    assert record.schema_version == 2 and record.cut is None and record.problems == ()
    assert all(question.cut is None and question.no_answer is None for question in record.details)
    from gpassk_opencompass.render.score_report import format_report

    assert "cut at the output limit" not in format_report(record)  # unknown is not "none were cut"
    run_dir = tmp_path / "outputs" / TS
    write_config(
        run_dir,
        f"{TS}_4242",
        [model_cfg("old-model_t0-7", "acme/old-model", 0.7)],
        [dataset_cfg("AIME2025_k2_n4", "AIME2025", (2,), 4)],
    )
    (run_dir / "results" / "old-model_t0-7").mkdir(parents=True)
    (run_dir / "results" / "old-model_t0-7" / "AIME2025_k2_n4.json").write_bytes((V2 / "results.json").read_bytes())
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 0
    out = capsys.readouterr().out
    assert "| old-model | - | 83.3 | 16.7 | 16.7 | 16.7 | - | pilot: 2 of 15 questions, n = 4, rule judge ‡ |" in out


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda d: d["details"][0].update(cut=4, no_answer=1), "has cut + no_answer = 4 + 1 > n = 4"),
        (lambda d: d["gpassk"]["cut"].update(cut=3), "gpassk.cut = 3 but its details hold 4 cut generation(s)"),
        (lambda d: d["gpassk"]["cut"].update(no_answer=16), "gpassk.cut: cut + no_answer = 4 + 16 > its 16"),
        (lambda d: d["gpassk"]["cut"].update(generations=12), "gpassk.cut counts 12 generations but its details"),
        (lambda d: d["gpassk"]["cut"].update(recorded=3), "gpassk.cut: source 'finish_reason' but 3 of its 16"),
    ],
)
def test_impossible_cut_counts_are_not_believed(edit, problem, tmp_path, capsys, monkeypatch):
    _, output, _, folder = score_run(True, tmp_path, capsys)
    document = json.loads(output.read_text())
    edited = copy.deepcopy(document)
    edit(edited)
    assert any(problem in line for line in read_results(edited).problems), read_results(edited).problems
    output.write_text(json.dumps(edited))
    monkeypatch.chdir(folder)
    assert main(["leaderboard", "outputs"]) == 1  # left out, as any file that cannot be believed
    assert "cannot be believed" in capsys.readouterr().err


def test_inspect_records_max_tokens_and_gpassk_score_counts_it(tmp_path, capsys):
    """The real inspect log with epoch 2's stop reason as inspect writes a reply the server cut (finish_reason
    ``length`` -> ``max_tokens``)."""
    log = json.loads(INSPECT_LOG.read_text())
    for sample in log["samples"]:
        if sample["epoch"] == 2:
            sample["output"]["choices"][0]["stop_reason"] = "max_tokens"
    edited = tmp_path / "cut.json"
    edited.write_text(json.dumps(log))
    output = tmp_path / "scores.json"
    done = run_main(capsys, "score", str(edited), "--k", "2", "--judge", "rule", "--no-cache", "--output", str(output))
    assert done.returncode == 0, done.stderr
    cut = json.loads(output.read_text())["gpassk"]["cut"]
    assert (cut["cut"], cut["generations"], cut["source"]) == (3, 12, "finish_reason")
    assert "cut at the output limit: 3 of 12 generations (25 %, from the recorded finish_reason)" in done.stdout
