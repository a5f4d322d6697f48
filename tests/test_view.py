"""``gpassk view``'s documents from runs made by the real commands, every value computed independently:
counts c/n from the inputs, G-Pass@k_tau from tests/exact.py (curtailed: its path counting)."""

from __future__ import annotations

import json
import os
from fractions import Fraction

import pytest

from exact import exact_curtailed_tail, exact_g_pass, exact_m, exact_mg_pass
from gpassk_opencompass.view import Viewer, run_id
from gpassk_opencompass.view.keys import Key
from in_process import run_main
from scoring_fixtures import COUNTS, generations, write_jsonl
from view_fixtures import DATA, opencompass_folder, score, scored

TAUS = (0.0, 0.25, 0.5, 0.75, 1.0)


def right_count(row: dict) -> int:
    """The fixture's right answers (the three spellings of 7), counted from the texts."""
    right = {r"Adding, we get \boxed{7}.", "So the answer is 7.", r"\boxed{\frac{14}{2}}"}
    return sum(text in right for text in row["predictions"])


def test_a_score_output_with_its_input(tmp_path, capsys):
    rows = generations(COUNTS)
    results, gens = scored(capsys, tmp_path, rows)
    with Viewer([results, gens]) as viewer:
        index = viewer.document(Key("index"))
        (run,) = index["runs"]
        assert run["id"] == run_id(results.read_bytes()) and len(run["id"]) == 12
        assert (run["kind"], run["n"], run["k"], run["questions"], run["has_texts"]) == ("scored", 8, [2, 4], 8, True)
        assert index["leaderboard"] is None and index["pairs"] == []
        assert run["metrics"]["mG-Pass@4"] == pytest.approx(
            float(100 * sum(exact_mg_pass(8, c, 4) for c in COUNTS) / len(COUNTS)), abs=1e-3
        )
        board = viewer.document(Key("map", run=run["id"]))
        assert board["k"] == 4
        for i, (row, question) in enumerate(zip(rows, board["questions"])):
            c = right_count(row)
            assert (question["i"], question["id"], question["c"], question["n"]) == (i, row["id"], c, 8)
            assert question["cells"].count("R") == c and len(question["cells"]) == 8
            for tau in TAUS:
                assert question["gpass"][str(tau)] == pytest.approx(float(100 * exact_g_pass(8, c, 4, tau)), abs=1e-3)
            assert question["gpass"]["mg"] == pytest.approx(float(100 * exact_mg_pass(8, c, 4)), abs=1e-3)
            assert question["snippet"] == row["question"] and question["disagree"] is None
        detail = viewer.document(Key("question", run=run["id"], i=2))
        assert (detail["text"], detail["gold"], detail["c"], detail["n"]) == (rows[2]["question"], "7", 3, 8)
        assert [entry["tau"] for entry in detail["gpass"]] == list(TAUS)
        for entry in detail["gpass"]:
            assert entry["value"] == pytest.approx(float(100 * exact_g_pass(8, 3, 4, entry["tau"])), abs=1e-3)
            assert entry["low"] <= entry["high"]
        assert sum(answer["count"] for answer in detail["answers"]) == 8
        assert sum(answer["count"] for answer in detail["answers"] if answer["right"]) == 3
        assert [g["verdict"] for g in detail["generations"]].count("right") == 3
        for j, text in enumerate(rows[2]["predictions"]):
            generation = viewer.document(Key("generation", run=run["id"], i=2, j=j))
            assert generation == {"run": run["id"], "i": 2, "j": j, "text": text, "chars": len(text)}
            assert detail["generations"][j]["chars"] == len(text) and detail["generations"][j]["has_text"]
        assert viewer.document(Key("generation", run=run["id"], i=2, j=8)) is None
        assert viewer.document(Key("question", run=run["id"], i=8)) is None
        assert viewer.document(Key("map", run="000000000000")) is None


def test_a_results_file_alone_shows_everything_but_the_texts(tmp_path, capsys):
    results, _ = scored(capsys, tmp_path, generations(COUNTS))
    with Viewer([results]) as viewer:
        (run,) = viewer.document(Key("index"))["runs"]
        assert run["has_texts"] is False
        board = viewer.document(Key("map", run=run["id"]))
        assert [question["c"] for question in board["questions"]] == [right_count(r) for r in generations(COUNTS)]
        detail = viewer.document(Key("question", run=run["id"], i=0))
        assert detail["text"] is None and not any(g["has_text"] for g in detail["generations"])
        assert viewer.document(Key("generation", run=run["id"], i=0, j=0)) is None
        assert [key for key in viewer.document_keys() if key.kind == "generation"] == []


def test_generations_other_than_the_scored_ones_are_one_line(tmp_path, capsys):
    rows = generations(COUNTS)
    results, gens = scored(capsys, tmp_path, rows)
    rows[3]["predictions"][5] = "So the answer is 8."
    write_jsonl(gens, rows)
    done = run_main(capsys, "view", str(results), str(gens), "--export", str(tmp_path / "site"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "question 'q3' was not computed from these generations" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "site").exists()


def curtailed_tail(draws: list[int], k: int, tau) -> float:
    """One question's G-Pass@k_tau under the 4:12 all-wrong design, by exact path counting."""
    return float(100 * exact_curtailed_tail(4, 12, frozenset({0}), len(draws), sum(draws), k, exact_m(k, tau)))


def test_a_curtailed_run_has_rows_of_varying_n(tmp_path, capsys):
    draws = {
        "q0": [0, 0, 0, 0],
        "q1": [1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0],
        "q2": [1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1],
        "q3": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    }
    right, wrong = [r"\boxed{7}", "So the answer is 7."], [r"\boxed{8}", "The answer is 6."]
    rows = [
        {"id": name, "question": f"{name}: 3 + 4 = ?", "answer": "7",
         "predictions": [right[j % 2] if ok else wrong[j % 2] for j, ok in enumerate(d)]}
        for name, d in draws.items()
    ]  # fmt: skip
    results, gens = scored(capsys, tmp_path, rows, "--curtail", "4:12")
    with Viewer([results, gens]) as viewer:
        (run,) = viewer.document(Key("index"))["runs"]
        assert run["design"] == {"n1": 4, "n": 12, "rule": "all-wrong"} and run["n"] is None
        assert "curtailed: n1=4 of 12, all-wrong" in run["claims"]
        board = viewer.document(Key("map", run=run["id"]))
        assert [(q["c"], q["n"]) for q in board["questions"]] == [(sum(d), len(d)) for d in draws.values()]
        for question, d in zip(board["questions"], draws.values()):
            assert question["cells"] == "".join("R" if ok else "W" for ok in d)
            for tau in TAUS:
                assert question["gpass"][str(tau)] == pytest.approx(curtailed_tail(d, 4, tau), abs=1e-3)


def test_a_nemo_skills_folder_scored_with_its_own_verdicts(tmp_path, capsys):
    folder = DATA / "nemo-skills" / "math"
    results = tmp_path / "scores.json"
    score(capsys, folder, results, ks=("2",), judge="source")
    lines = {}
    for seed in sorted(folder.glob("output-rs*.jsonl")):
        for line in seed.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            lines.setdefault(record["id"], []).append(record)
    with Viewer([results, folder]) as viewer:
        (run,) = viewer.document(Key("index"))["runs"]
        assert run["has_texts"] and run["judge"].startswith("source")
        board = viewer.document(Key("map", run=run["id"]))
        assert len(board["questions"]) == len(lines) == 20
        for question in board["questions"]:
            records = lines[question["id"]]
            assert question["n"] == 3 and question["c"] == sum(r["symbolic_correct"] is True for r in records)
            assert question["disagree"] == 0  # scored with the tool's own verdicts: none differ
        first = board["questions"][0]
        for j, record in enumerate(lines[first["id"]]):
            text = viewer.document(Key("generation", run=run["id"], i=0, j=j))["text"]
            assert text == record["generation"]


def test_an_opencompass_folder_with_its_leaderboard(tmp_path, capsys):
    work = opencompass_folder(capsys, tmp_path)
    results = next(work.glob("*/results/*/*.json"))
    with Viewer([work]) as viewer:
        index = viewer.document(Key("index"))
        (run,) = index["runs"]
        assert run["id"] == run_id(results.read_bytes())
        assert (run["kind"], run["model"], run["benchmark"], run["has_texts"]) == (
            "sampled",
            "strong",
            "AIME2025",
            True,
        )
        (table,) = index["leaderboard"]["tables"]
        (row,) = table["rows"]
        assert row["runs"] == {"sampled": run["id"], "greedy": None}
        assert row["cells"]["mG-Pass@4"]["value"] == pytest.approx(run["metrics"]["mG-Pass@4"], abs=1e-3)
        predictions = {}
        for part in sorted(work.glob("*/predictions/*/tiny_llm_*.json")):
            for row_ in json.loads(part.read_text(encoding="utf-8")).values():
                predictions.setdefault(
                    (
                        row_["origin_prompt"]
                        if isinstance(row_["origin_prompt"], str)
                        else json.dumps(row_["origin_prompt"])
                    ),
                    [],
                ).append(row_["prediction"])
        texts = sorted(predictions.values())
        board = viewer.document(Key("map", run=run["id"]))
        shown = []
        for question in board["questions"]:
            assert question["n"] == 8
            shown.append(
                [viewer.document(Key("generation", run=run["id"], i=question["i"], j=j))["text"] for j in range(8)]
            )
        assert sorted(shown) == texts


def test_a_prediction_linked_from_outside_the_folder_is_not_read(tmp_path, capsys):
    work = opencompass_folder(capsys, tmp_path)
    part = next(work.glob("*/predictions/*/tiny_llm_0.json"))
    outside = tmp_path / "outside.json"
    outside.write_bytes(part.read_bytes())
    part.unlink()
    os.symlink(outside, part)
    with Viewer([work]) as viewer:
        (run,) = viewer.document(Key("index"))["runs"]
        assert run["has_texts"] is False
        assert str(outside) not in {identity.path for identity in viewer.store.files}


def test_two_runs_compared_on_their_shared_questions(tmp_path, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    counts_b = [2, 1, 5, 4, 6, 8, 3, 5]
    results_a, gens_a = scored(capsys, first, generations(COUNTS))
    results_b, gens_b = scored(capsys, second, generations(counts_b))
    with Viewer([results_a, gens_a, results_b, gens_b]) as viewer:
        a, b = (run["id"] for run in viewer.document(Key("index"))["runs"])
        assert viewer.document(Key("index"))["pairs"] == [[a, b]]
        compared = viewer.document(Key("compare", run=a, other=b))
        assert (compared["shared"], compared["only_a"], compared["only_b"], compared["metric"]) == (
            8,
            0,
            0,
            "mG-Pass@4",
        )
        for question, c_a, c_b in zip(compared["questions"], COUNTS, counts_b):
            expected = float(100 * (exact_mg_pass(8, c_b, 4) - exact_mg_pass(8, c_a, 4)))
            assert question["d_gpass"] == pytest.approx(expected, abs=1e-3)
            assert question["d_cn"] == pytest.approx(float(100 * Fraction(c_b - c_a, 8)), abs=1e-3)
            assert question["change"] == ("improved" if expected > 0 else "regressed" if expected < 0 else "same")
        paired = compared["paired"]
        mean = float(
            100 * sum(exact_mg_pass(8, cb, 4) - exact_mg_pass(8, ca, 4) for ca, cb in zip(COUNTS, counts_b)) / 8
        )
        assert paired["diff"] == pytest.approx(mean, abs=1e-3)
        assert paired["low"] <= paired["diff"] <= paired["high"]
        covers = paired["low"] <= 0 <= paired["high"]
        assert (paired["verdict"] == "cannot separate") == covers
        if covers:
            assert "cannot separate" in paired["sentence"]
