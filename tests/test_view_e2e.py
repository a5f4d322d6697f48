"""``gpassk view --export`` on a real OpenCompass run (the shared tiny run: the real ``opencompass`` CLI, scripted
models on loopback): every run of the grid (sampled and greedy, rule and LLM judged) with its texts, its counts the
scripted models' own, every text the predictions' row by OpenCompass's numbering (row r x M + i)."""

from __future__ import annotations

import pytest

from gpassk_opencompass.view import Viewer
from gpassk_opencompass.view.keys import Key
from in_process import run_main
from opencompass_e2e import TINY_N, read_predictions
from view_fixtures import receive

pytestmark = pytest.mark.e2e


def test_a_real_grid_run_exports_every_run_with_its_texts(tiny_opencompass_run, tmp_path, capsys):
    run = tiny_opencompass_run
    with Viewer([run.workdir]) as viewer:
        index = viewer.document(Key("index"))
        kinds = sorted((entry["label"].split(" · ")[0], entry["kind"]) for entry in index["runs"])
        assert kinds == sorted(
            [(model, "sampled") for model in ("strong", "weak") for _ in ("tiny_rule", "tiny_llm")]
            + [(model, "greedy") for model in ("strong", "weak")]
        )
        rows = {row["label"] for table in index["leaderboard"]["tables"] for row in table["rows"]}
        assert {"strong", "weak"} <= rows
        for entry in index["runs"]:
            assert entry["has_texts"], entry["source"]
            view_run = viewer.runs[entry["id"]]
            model_abbr, dataset_abbr = view_run.run.model_abbr, view_run.run.dataset_abbr
            records = read_predictions(run.run_dir, model_abbr, dataset_abbr)
            board = viewer.document(Key("map", run=entry["id"]))
            questions = len(board["questions"])
            n = 1 if dataset_abbr == "tiny_greedy" else TINY_N
            assert len(records) == questions * n
            if n > 1:  # the scripted model answers exactly correct[m] of a question's n replicas right
                model = model_abbr.split("_")[0]
                assert sorted(question["c"] for question in board["questions"]) == sorted(
                    question.correct[model] for question in run.questions
                )
            for question in board["questions"]:
                for j in range(n):
                    key = Key("generation", run=entry["id"], i=question["i"], j=j)
                    expected = records[j * questions + question["i"]]["prediction"]
                    assert viewer.document(key)["text"] == expected
    site = tmp_path / "site"
    done = run_main(capsys, "view", str(run.workdir), "--export", str(site))
    assert done.returncode == 0, done.stderr
    _, document = receive((site / "data" / "index.js").read_bytes())
    assert len(document["runs"]) == 6
