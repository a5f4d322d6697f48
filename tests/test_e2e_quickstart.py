"""The README's laptop walkthrough, literally, with a loopback server playing llama.cpp.

Steps as the README gives them: ``python save_opencompass_configs.py`` (the default,
quickstart template; only ``model_url`` points at the loopback server), the data under
``~/.cache/opencompass/data`` with ``COMPASS_DATA_CACHE`` unset, ``gpassk data check
AIME2025``, ``gpassk grid run opencompass_configs -w outputs/`` (real ``opencompass``
processes), then ``gpassk leaderboard outputs/ -o
outputs/leaderboard.html`` and ``gpassk leaderboard outputs/``; the printed row must be the exact
G-Pass@8 of the scripted answers (``tests/exact.py``), each row must say what it measured (4 questions,
n = 8, the judge; the share of generations cut at the output limit: every wrong answer here is a reply cut
mid-sentence with ``finish_reason: "length"``, as the README's real run's were at ``max_out_len=128``, counted
exactly from the finish reasons the grid's model class recorded beside the predictions) with its warnings, and
what each step prints (stderr, then
stdout) must be what the README shows under ``<!-- walkthrough output: COMMAND -->``, up to the
numbers, the model's name and the home folder (the README's run used SmolLM2 on 5 questions; the
progress bar, which the README shows in its last state, is left out).
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import re
from pathlib import Path

import pytest

from exact import exact_mean
from gpassk_opencompass.cli import main
from opencompass_e2e import ScriptedModel, TinyQuestion
from tiny_data import write_aime2025

#: Every test here launches the real opencompass CLI (minutes): `pytest -m "not e2e"` skips them.
pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
MODEL = "qwen2.5-0.5b-instruct"  # the quickstart template's model name
N = 8
CORRECT = [8, 5, 3, 0]  # right answers out of the 8 samples, per question


README_MODEL = "SmolLM2-135M-Instruct"  # the model of the README's real run
README_HOME = "/tmp/walk/home"


def shown_outputs() -> dict[str, str]:
    """``{command: the output the README shows for it}``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- walkthrough output: (.+?) -->\n```\n(.*?)```", text, re.S))


def shape(text: str, model: str, home: str) -> list[str]:
    """The lines of an output with the numbers, the model and the home folder masked, spacing collapsed."""
    text = re.sub(r"[^\n]*\r", "", text.replace(model, "MODEL").replace(home, "~"))  # a redrawn bar: its last state
    lines = (" ".join(re.sub(r"\d+(\.\d+)?", "#", line).split()) for line in text.splitlines())
    return [line for line in lines if not line.startswith("grid: ")]


def check_printed(command: str, captured, home: Path) -> None:
    shown = shown_outputs()[command]
    assert shape(captured.err + captured.out, MODEL, str(home)) == shape(shown, README_MODEL, README_HOME)


def _save_configs(*argv: str) -> int:
    spec = importlib.util.spec_from_file_location("save_opencompass_configs", REPO / "save_opencompass_configs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(list(argv))


def test_laptop_walkthrough_ends_in_an_exact_leaderboard(tmp_path, monkeypatch, loopback_openai, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("COMPASS_DATA_CACHE", "DATASET_SOURCE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-tiktoken"))
    work = tmp_path / "repo"
    work.mkdir()
    monkeypatch.chdir(work)

    questions = [
        TinyQuestion("all", "en", f"Compute {i} + {i * 7}.", str(8 * i), {MODEL: c})
        for i, c in enumerate(CORRECT, start=1)
    ]
    write_aime2025(home / ".cache" / "opencompass", [(q.question, q.answer) for q in questions])
    server = loopback_openai(ScriptedModel(questions, N, cut_wrong=True), model_name=MODEL)

    assert _save_configs("--set", f"model_url={server.url}") == 0
    assert capsys.readouterr().out == "wrote 2 configs + manifest.json to opencompass_configs\n"
    assert main(["data", "check", "AIME2025"]) == 0  # 4 questions, not 15: a warning, still usable
    check_printed("gpassk data check AIME2025", capsys.readouterr(), home)

    assert main(["grid", "run", "opencompass_configs", "-w", "outputs/"]) == 0
    check_printed("gpassk grid run opencompass_configs -w outputs/", capsys.readouterr(), home)
    assert main(["leaderboard", "outputs/", "-o", "outputs/leaderboard.html"]) == 0  # k and manifest found
    check_printed("gpassk leaderboard outputs/ -o outputs/leaderboard.html", capsys.readouterr(), home)
    assert (work / "outputs" / "leaderboard.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["leaderboard", "outputs/"]) == 0
    check_printed("gpassk leaderboard outputs/", capsys.readouterr(), home)
    assert (
        main(
            [
                "leaderboard",
                "outputs/",
                "--k",
                "8",
                "--manifest",
                "opencompass_configs/manifest.json",
                "--format",
                "json",
            ]
        )
        == 0
    )
    (row,) = json.loads(capsys.readouterr().out).values()
    greedy = 100 * sum(c > 0 for c in CORRECT) / len(CORRECT)  # a greedy request is right iff the model ever is
    assert row["Greedy"]["AIME2025"] == greedy
    for tau in ("0.5", "0.75", "1.0"):
        assert abs(row[f"G-Pass@8-{tau}"]["AIME2025"] - exact_mean(CORRECT, N, 8, tau)) < 1e-9
    assert abs(row["mG-Pass@8"]["AIME2025"] - exact_mean(CORRECT, N, 8)) < 1e-9
    assert main(["leaderboard", "outputs/", "--format", "csv"]) == 0
    (record,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    wrong = sum(N - c for c in CORRECT)  # every wrong answer was cut
    assert (record["questions"], record["n"], record["generations"]) == (
        str(len(CORRECT)),
        str(N),
        str(N * len(CORRECT)),
    )
    assert (record["cut"], record["no_answer"], record["cut_source"]) == (str(wrong), "0", "finish_reason")
    assert record["judge"] and float(record["cut_share"]) == wrong / (N * len(CORRECT))
    # the grid's model class recorded every finish_reason: the share is exact, and says so
    share = f"{100 * wrong // (N * len(CORRECT))} % of generations cut at the output limit; G-Pass@8_1.0"
    assert f"{MODEL} on AIME2025: {share}" in record["warnings"] and "at least" not in record["warnings"]
    greedy_cut = sum(c == 0 for c in CORRECT)  # a greedy request is cut iff the model is never right
    greedy_share = f"{100 * greedy_cut // len(CORRECT)} % of generations cut at the output limit; Greedy is bounded"
    assert f"{MODEL} on AIME2025 (greedy): {greedy_share}" in record["warnings"]
    page = (work / "outputs" / "leaderboard.html").read_text(encoding="utf-8")
    assert f"{wrong} of {N * len(CORRECT)} generations cut at the output limit, from the recorded finish_reason" in page
    assert "G-Pass@8_1.0 is bounded by it; raise max_out_len" in record["warnings"]
    assert f"AIME2025: {len(CORRECT)} questions, the published column has 15" in record["warnings"]
