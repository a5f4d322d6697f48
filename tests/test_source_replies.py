"""A tool's own LLM-judge replies go through the one reader of judge replies (``judges.source_replies``).

Under ``gpassk score --judge source`` a blank, all-thinking, cut or verdict-less reply is *unresolved* (exit 3,
docs/exit-codes.md: incomplete), never wrong as the tools themselves count it, and of several verdicts the judge's
last one counts. Tried through the real command on files derived from ones the tools wrote:

* NeMo-Skills: ``tests/data/nemo-skills`` (its own seed files) with a ``judgement`` on each line, as
  ``ns generate --generation_type=math_judge`` adds it (and the judge's ``finish_reason``);
* OpenCompass: ``tests/data/opencompass-details`` (a real 0.5.4 run) with ``oc_mathverify``'s details rewritten
  in the shape OpenCompass 0.5.4 gives a ``CascadeEvaluator``'s (``opencompass/evaluator/cascade_evaluator.py``:
  ``rule_evaluation`` per replica, ``llm_evaluation`` with the judge's reply in ``prediction`` and its
  ``dataset_replica_idx`` for the replicas the rule did not accept, ``cascade_correct``; flattened per question
  by ``BaseEvaluator.evaluate``), and in the shape of a ``GenericLLMEvaluator``'s (its judge's
  ``origin_prompt``/``prediction``/``gold``, no verdict).

The expected counts come from the case tables here, never from the reader.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpassk_opencompass.cli import EXIT_INCOMPLETE
from gpassk_opencompass.judges.source_replies import SOURCE_READERS, read_source_reply
from in_process import run_main

DATA = Path(__file__).parent / "data"
NEMO = DATA / "nemo-skills" / "math"
OC = DATA / "opencompass-details"
OC_MODEL = "strong_t0-7"

#: Replies no reader may read as a verdict: (judge's text, finish_reason).
NO_VERDICT = {
    "blank": ("", "stop"),
    "whitespace": (" \n\t ", "stop"),
    "null": (None, "stop"),
    "reasoning only": ("<think>Both are 220, the answers agree.\nJudgement: Yes", "stop"),
    "thinking, then nothing": ("<think>They agree. Judgement: Yes</think>\n\n", "stop"),
    "cut before Judgement": ("Both give 220, so the student is right.\n\nJudg", "length"),
    "cut after its verdict": ("Judgement: Yes, because both", "length"),
    "verdict-less": ("The student's answer matches the reference answer.", "stop"),
    "not yes or no": ("They look alike.\nJudgement: unclear", "stop"),
    "only a quoted verdict, then no own": ('The student ends with "Judgement: Yes" and nothing more.\nJudg', "length"),
}
#: NeMo-Skills replies with a verdict, and the verdict the judge gave last.
NEMO_VERDICTS = {
    "Judgement: Yes": True,
    "**Judgement**: no, they differ": False,
    'The student wrote "Judgement: Yes" at the end.\nThe answers differ.\nJudgement: No': False,
    "<think>Judgement: no?</think>\nThey agree.\nJudgement: yes": True,
    "The student claims: Judgement: yes. \\boxed{yes}\nReasoning: 3 != 4.\n\nJudgement: NO": False,
}
#: OpenCompass grader replies with a verdict, and the judge's last one.
OC_VERDICTS = {
    "A": True,
    "B": False,
    "CORRECT": True,
    "The response contains [[A]] and 'Grade: A', planted. It differs from the gold.\nB": False,
    "<think>A?</think>\n**A**": True,
}


def seed_lines(file: Path) -> list[dict]:
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def judged_nemo_run(folder: Path, replies: list[tuple[str | None, str]]) -> Path:
    """NeMo-Skills' three real seed files, line ``i`` of each judged with ``replies[i % len(replies)]``."""
    folder.mkdir()
    for seed in range(3):
        lines = seed_lines(NEMO / f"output-rs{seed}.jsonl")
        judged = [
            line | {"judgement": replies[i % len(replies)][0], "finish_reason": replies[i % len(replies)][1]}
            for i, line in enumerate(lines)
        ]
        (folder / f"output-rs{seed}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in judged))
    return folder


def score(capsys, path: Path, output: Path, *args: str):
    return run_main(capsys, "score", str(path), "--judge", "source", "--no-cache", "--output", str(output), *args)


@pytest.mark.parametrize("case", NO_VERDICT, ids=list(NO_VERDICT))
def test_a_nemo_skills_reply_without_a_verdict_is_unresolved_never_wrong(case, tmp_path, capsys):
    folder = judged_nemo_run(tmp_path / "judged", [NO_VERDICT[case]])
    done = score(capsys, folder, tmp_path / "out.json", "--k", "1", "2")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr  # never exit 0 with every verdict "wrong"
    assert "60 of 60 generations could not be judged" in done.stderr  # 20 questions x 3 seeds
    assert not (tmp_path / "out.json").exists()
    done = score(capsys, folder, tmp_path / "out.json", "--k", "1", "2", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["gpassk"]["unresolved"] == 60 and result["gpassk"]["complete"] is False
    assert all(v["correct"] is None for d in result["details"] for v in d["verdicts"])


def test_nemo_skills_verdicts_are_the_judges_last_ones_and_the_rest_unresolved(tmp_path, capsys):
    replies = [(text, "stop") for text in NEMO_VERDICTS] + [NO_VERDICT["blank"], NO_VERDICT["cut before Judgement"]]
    meaning = [*NEMO_VERDICTS.values(), None, None]
    folder = judged_nemo_run(tmp_path / "judged", replies)
    done = score(capsys, folder, tmp_path / "out.json", "--k", "1", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    expected = [meaning[i % len(meaning)] for i in range(20)]
    assert [[v["correct"] for v in d["verdicts"]] for d in result["details"]] == [[m] * 3 for m in expected]
    assert result["gpassk"]["unresolved"] == 3 * expected.count(None)


def cascade_details(data: dict, replies: list[str | None]) -> None:
    """oc_mathverify's details as a CascadeEvaluator writes them: the rule's verdict per replica, and for each
    replica it did not accept the LLM judge's reply (the next of ``replies``)."""
    taken = iter(range(10**6))
    for detail in data["details"]:
        rule = detail.pop("correct")
        detail["rule_evaluation"] = [{"correct": c, "pred": p, "answer": "42"} for c, p in zip(rule, detail["pred"])]
        detail["llm_evaluation"] = [
            {
                "origin_prompt": "Grade the answer. Reply A (CORRECT) or B (INCORRECT).",
                "prediction": replies[next(taken) % len(replies)],
                "gold": "42",
                "dataset_replica_idx": replica,
                "llm_correct": False,
            }
            for replica, c in enumerate(rule)
            if not c
        ]
        detail["cascade_correct"] = list(rule)


def oc_run(tmp_path: Path, change) -> Path:
    run = tmp_path / "run"
    shutil.copytree(OC / "predictions", run / "predictions")
    shutil.copytree(OC / "results", run / "results")
    path = run / "results" / OC_MODEL / "oc_mathverify.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return run / "predictions" / OC_MODEL / "oc_mathverify_0.json"


#: The scripted model's right answers of n = 8 per question (tests/data/opencompass-details/PROVENANCE.md).
COUNTS = [8, 7, 5, 0, 4, 3, 2, 6]


@pytest.mark.parametrize("case", NO_VERDICT, ids=list(NO_VERDICT))
def test_an_opencompass_cascade_reply_without_a_verdict_is_unresolved(case, tmp_path, capsys):
    """OpenCompass counts such a reply wrong (cascade_correct false): here it is unresolved."""
    predictions = oc_run(tmp_path, lambda data: cascade_details(data, [NO_VERDICT[case][0]]))
    done = score(capsys, predictions, tmp_path / "out.json", "--k", "4", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["gpassk"]["unresolved"] == sum(8 - c for c in COUNTS)  # every replica the rule did not accept
    assert [sum(v["correct"] is True for v in d["verdicts"]) for d in result["details"]] == COUNTS


def test_opencompass_cascade_verdicts_are_the_judges_last_ones(tmp_path, capsys):
    replies = [*OC_VERDICTS, None]
    meaning = [*OC_VERDICTS.values(), None]
    predictions = oc_run(tmp_path, lambda data: cascade_details(data, replies))
    done = score(capsys, predictions, tmp_path / "out.json", "--k", "4", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    wrong = sum(8 - c for c in COUNTS)  # replicas the rule did not accept, judged in order
    said = [meaning[i % len(meaning)] for i in range(wrong)]
    verdicts = [v["correct"] for d in result["details"] for v in d["verdicts"]]
    assert verdicts.count(None) == said.count(None) == result["gpassk"]["unresolved"]
    assert verdicts.count(True) == sum(COUNTS) + said.count(True)


def generic_details(data: dict, replies: tuple[str, ...] = ("A",) * 8) -> None:
    """oc_mathverify's details as a GenericLLMEvaluator leaves them: its judge's prompts and replies, no verdict."""
    for detail in data["details"]:
        for key in ("correct", "pred", "answer"):
            detail.pop(key, None)
        detail["origin_prompt"] = ["Grade it: A or B."] * 8
        detail["prediction"] = list(replies)
        detail["gold"] = ["42"] * 8


def test_an_opencompass_generic_llm_judges_replies_are_read_by_the_one_reader(tmp_path, capsys):
    """GenericLLMEvaluator keeps its judge's output (no verdict); replica r of every question gets reply r."""
    replies = ["A", "B", "", "<think>A", "I think the answer is right.", "B", "CORRECT", "The gold is 42.\nA"]
    meaning = [True, False, None, None, None, False, True, True]

    predictions = oc_run(tmp_path, lambda data: generic_details(data, tuple(replies)))
    done = score(capsys, predictions, tmp_path / "out.json", "--k", "4", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert [[v["correct"] for v in d["verdicts"]] for d in result["details"]] == [meaning] * 8
    assert result["gpassk"]["unresolved"] == 8 * meaning.count(None)


@pytest.mark.parametrize("tool", SOURCE_READERS)
@pytest.mark.parametrize("case", NO_VERDICT, ids=list(NO_VERDICT))
def test_every_source_reader_follows_the_one_rule(tool, case):
    text, finish_reason = NO_VERDICT[case]
    correct, why = read_source_reply(tool, text, finish_reason=finish_reason)
    assert correct is None and why


#: inspect model-graded scores (model_graded_qa's shape: the grader's reply in explanation) and the verdict the
#: grader gave last: a reply without a grade is unresolved, where inspect scores it I.
INSPECT_SCORES = [
    ({"value": "C", "answer": "GRADE: C", "explanation": "Both are 5.\nGRADE: C"}, True),
    (
        {"value": "I", "answer": "GRADE: I", "explanation": 'The response ends "GRADE: C".\nThey differ.\nGRADE: I'},
        False,
    ),
    ({"value": "I", "explanation": "Grade not found in model output: "}, None),
    ({"value": "I", "explanation": "Grade not found in model output: They look alike, so the student"}, None),
    ({"value": "I", "explanation": "Grade not found in model output: <think>GRADE: C"}, None),
    ({"value": "P", "answer": "GRADE: P", "explanation": "Partly.\nGRADE: P"}, None),
]


def test_inspect_model_graded_replies_are_read_by_the_one_reader(tmp_path, capsys):
    """inspect's real log (tests/data/inspect), its scores rewritten as a model-graded scorer writes them."""
    log = json.loads((DATA / "inspect" / "gpassk-math-0.3.285.json").read_text())
    for position, sample in enumerate(log["samples"]):
        sample["scores"] = {"model_graded_qa": INSPECT_SCORES[position % len(INSPECT_SCORES)][0]}
    path = tmp_path / "graded.json"
    path.write_text(json.dumps(log))
    done = score(capsys, path, tmp_path / "out.json", "--k", "1", "--allow-unresolved")
    assert done.returncode == EXIT_INCOMPLETE, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    by_sample = {
        (sample["id"], sample["epoch"]): INSPECT_SCORES[position % len(INSPECT_SCORES)][1]
        for position, sample in enumerate(log["samples"])
    }
    expected = [
        [by_sample[sample_id, epoch] for epoch in sorted(e for i, e in by_sample if i == sample_id)]
        for sample_id in dict.fromkeys(sample["id"] for sample in log["samples"])
    ]
    assert [[v["correct"] for v in d["verdicts"]] for d in result["details"]] == expected
    assert result["gpassk"]["unresolved"] == sum(row.count(None) for row in expected)
    assert all(v["extracted"] != "GRADE: C" for d in result["details"] for v in d["verdicts"])  # not an answer


def test_a_run_judged_by_an_opencompass_llm_judge_is_pointed_to_the_source_judge(tmp_path, capsys):
    """gpassk score on the run's folder lists what to run: --judge source where its details keep judge replies."""
    oc_run(tmp_path, generic_details)  # no verdict key at all: its judge's replies only
    done = run_main(capsys, "score", str(tmp_path / "run"), "--k", "4")
    assert done.returncode == 2
    assert f"gpassk score {tmp_path / 'run' / 'predictions' / OC_MODEL / 'oc_mathverify_0.json'} --judge source" in (
        done.stderr
    )
