"""What a run claims, through the real ``gpassk leaderboard``: a pilot is named as one in its row, a run on the user's
own data file (the grid's ``data_paths``: an absolute ``path`` in the saved config) is named with that file's digest,
and every row carries the ids of its runs (sha256 of the results file's bytes, computed here with hashlib)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

from gpassk_opencompass.cli import main
from gpassk_opencompass.leaderboard import collect_runs
from leaderboard_workdirs import Spec, dataset_cfg, model_cfg, write_config, write_results

TS = "20250213_101500"
SAMPLED = Spec("acme/m-7b", "AIME2025", 0.7, 8, (4, 8), 0.5, questions=5)
GREEDY = Spec("acme/m-7b", "AIME2025", 0.0, 1, (1,), 0.5, questions=5)


def write_pilot(work_dir: Path, data_path: str | None = None) -> Path:
    """A sampled and a greedy run of 5 AIME2025 questions (15 published); with ``data_path`` the saved config's
    datasets read it, as the generator writes a template's ``data_paths``."""
    run_dir = work_dir / TS
    datasets = [dataset_cfg(spec.dataset_abbr, spec.benchmark, spec.ks, spec.n) for spec in (SAMPLED, GREEDY)]
    if data_path is not None:
        for dataset in datasets:
            dataset["path"] = data_path
    models = [model_cfg(spec.model_abbr, spec.model_path, spec.temperature) for spec in (SAMPLED, GREEDY)]
    write_config(run_dir, f"{TS}_4242", models, datasets)
    for spec in (SAMPLED, GREEDY):
        write_results(run_dir, spec.model_abbr, spec.dataset_abbr, spec.results())
    return run_dir


def results_path(run_dir: Path, spec: Spec) -> Path:
    return run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"


def csv_rows(capsys, *args: str) -> list[dict]:
    assert main(["leaderboard", *args, "--format", "csv"]) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_a_pilot_is_named_in_its_row_in_every_format(tmp_path, capsys):
    write_pilot(tmp_path / "outputs")
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 0
    captured = capsys.readouterr()
    (line,) = [line for line in captured.out.splitlines() if line.startswith("| m-7b |")]
    assert line.endswith("| pilot: 5 of 15 questions, n = 8, rule judge ‡ |")
    assert "5 questions, the published column has 15" in captured.err  # still warned about, too
    (row,) = csv_rows(capsys, str(tmp_path / "outputs"))
    assert row["claims"] == "pilot: 5 of 15 questions" and row["questions"] == "5"
    assert main(["leaderboard", str(tmp_path / "outputs"), "--format", "json", "--ci"]) == 0
    (measured,) = json.loads(capsys.readouterr().out)["measured"]
    assert measured["claims"] == "pilot: 5 of 15 questions"


def test_a_full_run_claims_nothing(tmp_path, capsys):
    full = Spec("acme/m-7b", "AIME2025", 0.7, 8, (4, 8), 0.5, questions=15)
    run_dir = tmp_path / "outputs" / TS
    write_config(
        run_dir,
        f"{TS}_4242",
        [model_cfg(full.model_abbr, full.model_path, full.temperature)],
        [dataset_cfg(full.dataset_abbr, full.benchmark, full.ks, full.n)],
    )
    write_results(run_dir, full.model_abbr, full.dataset_abbr, full.results())
    (row,) = csv_rows(capsys, str(tmp_path / "outputs"))
    assert row["claims"] == "" and row["warnings"] == ""


def test_own_data_is_named_with_its_digest_not_as_the_benchmark(tmp_path, capsys):
    data = tmp_path / "my data" / "aime.jsonl"
    data.parent.mkdir()
    data.write_bytes(b'{"question": "1+1?", "answer": "2"}\n')
    write_pilot(tmp_path / "outputs", str(data))
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    (row,) = csv_rows(capsys, str(tmp_path / "outputs"))
    assert row["claims"] == f"pilot: 5 of 15 questions; own data: {data} (sha256 {digest[:12]}…)"
    assert main(["leaderboard", str(tmp_path / "outputs")]) == 0
    assert f"| pilot: 5 of 15 questions, own data: {data} (sha256 {digest[:12]}…), n = 8," in capsys.readouterr().out
    (run, _) = sorted(collect_runs([tmp_path / "outputs"]).runs, key=lambda run: run.greedy)
    assert run.own_data is not None and run.own_data.sha256 == digest


def test_own_data_not_on_this_machine_says_it_has_no_digest(tmp_path, capsys):
    write_pilot(tmp_path / "outputs", "/cluster/data/aime2025.jsonl")
    (row,) = csv_rows(capsys, str(tmp_path / "outputs"))
    assert row["claims"].endswith(
        "own data: /cluster/data/aime2025.jsonl (no digest: a folder, too big, or not readable here)"
    )


def test_each_row_carries_its_runs_ids_from_the_results_bytes(tmp_path):
    run_dir = write_pilot(tmp_path / "outputs")
    runs = {run.greedy: run for run in collect_runs([tmp_path / "outputs"]).runs}
    for greedy, spec in ((False, SAMPLED), (True, GREEDY)):
        expected = hashlib.sha256(results_path(run_dir, spec).read_bytes()).hexdigest()[:12]
        assert runs[greedy].run_id == expected
