"""``gpassk leaderboard``: one command from finished runs to every output; clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from matplotlib.image import imread

from gpassk_opencompass.cli import main
from leaderboard_workdirs import Spec, read_results, standard_grid, write_run

TS = "20250213_101500"


@pytest.fixture
def outputs(tmp_path):
    write_run(tmp_path / "outputs", TS, standard_grid())
    return tmp_path / "outputs"


def test_one_command_writes_every_format_and_the_plots(outputs, tmp_path, capsys):
    out = tmp_path / "board"
    out.mkdir()
    code = main(
        [
            "leaderboard",
            str(outputs),
            "-o",
            str(out / "board.md"),
            "-o",
            str(out / "board.json"),
            "-o",
            str(out / "board.html"),
            "-o",
            str(out / "board.csv"),
            "--plots",
            str(out / "plots"),
        ]
    )
    assert code == 0
    stderr = capsys.readouterr().err
    assert "6 row(s) on 2 benchmark(s) from 12 results file(s)" in stderr
    markdown = (out / "board.md").read_text(encoding="utf-8")
    assert markdown.startswith("### *LiveMathBench-202412*")
    strong = read_results(outputs / TS / "results" / "strong-math-7b_t0-7" / "AIME2025_k4-8-16_n32.json")
    assert "| strong-math-7b | " in markdown and f"{strong['mG-Pass@16']:.1f} |" in markdown
    shaped = json.loads((out / "board.json").read_text(encoding="utf-8"))
    assert shaped["strong-math-7b"]["mG-Pass@16"]["AIME2025"] == strong["mG-Pass@16"]
    assert (out / "board.csv").read_text(encoding="utf-8").startswith("benchmark,model,Greedy,")
    assert (out / "board.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    pngs = sorted(path.name for path in (out / "plots").iterdir())
    assert pngs == ["gpass_vs_tau_AIME2025.png", "gpass_vs_tau_LiveMathBench-202412.png", "greedy_vs_mgpass.png"]
    for name in pngs:
        pixels = imread(out / "plots" / name)
        assert pixels.shape[0] > 300 and pixels.shape[1] > 300
        assert pixels[..., :3].std() > 0.05  # something was drawn


def test_markdown_on_stdout_by_default_and_format_flag(outputs, capsys):
    assert main(["leaderboard", str(outputs)]) == 0
    assert capsys.readouterr().out.startswith("### *LiveMathBench-202412*\n\n| LLMs | Greedy |")
    assert main(["leaderboard", str(outputs), "--format", "json", "--benchmarks", "AIME2025"]) == 0
    shaped = json.loads(capsys.readouterr().out)
    assert {benchmark for metrics in shaped.values() for by in metrics.values() for benchmark in by} == {"AIME2025"}


@pytest.mark.parametrize("spelling", ["aime-2025", "AIME_2025", "livemathbench 202412"])
def test_benchmarks_are_matched_without_regard_to_case_and_separators(outputs, capsys, spelling):
    assert main(["leaderboard", str(outputs), "--format", "json", "--benchmarks", spelling]) == 0
    shaped = json.loads(capsys.readouterr().out)
    canonical = "AIME2025" if "aime" in spelling.lower() else "LiveMathBench-202412"
    assert {benchmark for metrics in shaped.values() for by in metrics.values() for benchmark in by} == {canonical}


def test_a_benchmark_only_the_runs_name_is_matched_too(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, [Spec("Qwen/Qwen2.5-7B-Instruct", "My-Bench", 0.7, 32, (16,), 0.6)])
    assert main(["leaderboard", str(tmp_path / "outputs"), "--benchmarks", "my_bench"]) == 0
    assert capsys.readouterr().out.startswith("### *My-Bench*")


def test_compare_published_on_stdout(tmp_path, capsys):
    write_run(
        tmp_path / "outputs",
        TS,
        [
            Spec("Qwen/Qwen2.5-7B-Instruct", "AIME2025", 0.7, 32, (16,), 0.6),
            Spec("Qwen/Qwen2.5-7B-Instruct", "AIME2025", 0.0, 1, (1,), 0.6),
        ],
    )
    assert main(["leaderboard", str(tmp_path / "outputs"), "--compare-published", "--tolerance", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "| LLMs | Greedy | Δ | G-Pass@16_0.5 | Δ |" in out
    assert "⚠" in out and "⚠ marks |Δ| > 0.5." in out


def test_partial_outputs_give_warnings_and_a_partial_table(outputs, tmp_path, capsys):
    corrupt = outputs / TS / "results" / "weak-1b_t0-7" / "AIME2025_k4-8-16_n32.json"
    corrupt.write_text("{", encoding="utf-8")
    write_run(tmp_path / "other", TS, standard_grid()[:1], with_config=False)
    assert main(["leaderboard", str(outputs), str(tmp_path / "other")]) == 0
    captured = capsys.readouterr()
    assert f"WARNING: skipped {corrupt}: not readable JSON" in captured.err
    assert "no saved config or manifest names the model" in captured.err
    greedy = read_results(outputs / TS / "results" / "weak-1b_t0-0" / "AIME2025_k1_n1.json")["accuracy"]
    assert f"| weak-1b | {greedy:.1f} | - | - | - | - |" in captured.out  # AIME2025: greedy run only


def test_no_usable_results_is_an_error_after_the_warnings(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, standard_grid()[:2], with_config=False)
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 2
    err = capsys.readouterr().err
    assert "WARNING: skipped" in err
    assert err.strip().splitlines()[-1] == (
        "gpassk leaderboard: error: no leaderboard rows from 0 usable results file(s); see the warnings above"
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--k", "0"], "--k must be a positive integer, got 0"),
        (["--thresholds", "0.5", "1.5"], "--thresholds must lie in [0, 1], got 1.5"),
        (["--tolerance", "-1", "--compare-published"], "--tolerance must be >= 0, got -1"),
        (["--benchmarks", "AIME-2O25"], "unknown benchmark 'AIME-2O25'; did you mean 'AIME2025'?"),
        (["-o", "a.md", "-o", "b.json", "--format", "md"], "--format applies to a single --output"),
        (["-o", "board.txt"], "cannot tell the format of 'board.txt' from its suffix '.txt'"),
        (["-o", "missing-folder/board.md"], "--output missing-folder/board.md: folder missing-folder does not exist"),
        (["--published", "nope.json"], "cannot read published figures 'nope.json'"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(outputs, capsys, monkeypatch, tmp_path, extra, message):
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", str(outputs), *extra]) == 2
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("gpassk leaderboard: error:")]
    assert len(lines) == 1 and message in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert not (Path(tmp_path) / "a.md").exists()


def test_a_missing_outputs_folder(tmp_path, capsys):
    assert main(["leaderboard", str(tmp_path / "nowhere")]) == 2
    assert "is not a directory; expected an OpenCompass work dir" in capsys.readouterr().err


# --- the k of the columns -------------------------------------------------------------------


def self_served_grid() -> list[Spec]:
    """Runs as the self-served template makes them: k = [4, 8], plus greedy."""
    return [
        Spec("acme/alpha-7b", "AIME2025", 0.7, 8, (4, 8), 0.6),
        Spec("acme/beta-7b", "AIME2025", 0.7, 8, (4, 8), 0.3, seed=1),
        Spec("acme/alpha-7b", "AIME2025", 0.0, 1, (1,), 0.6, seed=2),
    ]


def test_without_k_the_largest_shared_k_is_used_and_named(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, self_served_grid())
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 0
    captured = capsys.readouterr()
    assert (
        "INFO: k = 8: the largest k all 2 sampled runs were scored at (present: 4, 8; choose another "
        "with --k)" in captured.err
    )
    alpha = read_results(tmp_path / "outputs" / TS / "results" / "alpha-7b_t0-7" / "AIME2025_k4-8_n8.json")
    assert "| LLMs | Greedy | G-Pass@8_0.5 | G-Pass@8_0.75 | G-Pass@8_1.0 | mG-Pass@8 |" in captured.out
    assert f"{alpha['mG-Pass@8']:.1f} |" in captured.out
    assert main(["leaderboard", str(tmp_path / "outputs"), "--k", "4"]) == 0
    assert "| mG-Pass@4 |" in capsys.readouterr().out


def test_a_k_no_run_has_is_an_error_naming_the_k_present(tmp_path, capsys):
    write_run(tmp_path / "outputs", TS, self_served_grid())
    assert main(["leaderboard", str(tmp_path / "outputs"), "--k", "16", "--plots", str(tmp_path / "plots")]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines()[-1] == (
        "gpassk leaderboard: error: no sampled run was scored at k = 16; the runs have k = 4, 8 (pass --k with "
        "one of those, or leave --k out to use the largest shared one)"
    )
    assert captured.out == "" and not (tmp_path / "plots").exists()


def test_runs_without_a_shared_k_use_the_k_most_have(tmp_path, capsys):
    specs = [
        Spec("acme/a", "AIME2025", 0.7, 16, (16,), 0.5),
        Spec("acme/b", "AIME2025", 0.7, 16, (16,), 0.4),
        Spec("acme/c", "AIME2025", 0.7, 8, (4, 8), 0.5),
    ]
    write_run(tmp_path / "outputs", TS, specs)
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 0
    captured = capsys.readouterr()
    assert (
        "INFO: k = 16: no k is shared by all 3 sampled runs; 16 is the largest of those most runs (2) have "
        "(present: 4, 8, 16; choose another with --k); the runs without it are left out"
    ) in captured.err
    assert "c on AIME2025 was scored at k = [4, 8], not 16; left out" in captured.err
    assert "| a |" in captured.out and "| c |" not in captured.out
