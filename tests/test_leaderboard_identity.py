"""A results file is what it is, not what it is called: the leaderboard reads one file reached under two names (a
hard link, as ``cp -al`` snapshots make; a run folder whose ``results/`` is a symlink; a ``latest`` symlink given
beside the run it names) once, by its ``(st_dev, st_ino)``, with one notice naming both names. Not an error: a
work dir with a ``latest`` symlink is normal.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from in_process import run_main
from leaderboard_workdirs import standard_grid, write_run

FIRST, SECOND = "20250210_101500", "20250211_101500"
SPECS = standard_grid()[:2]  # one model on one benchmark, sampled and greedy


def results_files(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "results").glob("*/*.json"))


def leaderboard(capsys, tmp_path: Path, *paths: Path):
    return run_main(capsys, "leaderboard", *map(str, paths), "--output", str(tmp_path / "board.md"))


def test_a_hard_linked_snapshot_of_a_run_is_read_once(tmp_path, capsys):
    first = write_run(tmp_path / "outputs", FIRST, SPECS)
    second = tmp_path / "outputs" / SECOND  # cp -al: the configs copied, every results file hard-linked
    shutil.copytree(first / "configs", second / "configs")
    for path in results_files(first):
        (second / path.relative_to(first)).parent.mkdir(parents=True, exist_ok=True)
        os.link(path, second / path.relative_to(first))
    result = leaderboard(capsys, tmp_path, tmp_path / "outputs")
    assert result.returncode == 0, result.stderr
    assert f"from {len(SPECS)} results file(s)" in result.stderr
    assert "ran more than once" not in result.stderr  # one file is one run, never a run of its own
    for path in results_files(first):
        twin = second / path.relative_to(first)
        assert f"{twin} and {path} are one results file under two names (a link); read once" in result.stderr


def test_a_run_folder_whose_results_are_a_symlink_is_read_once(tmp_path, capsys):
    first = write_run(tmp_path / "outputs", FIRST, SPECS)
    second = tmp_path / "outputs" / SECOND
    shutil.copytree(first / "configs", second / "configs")
    os.symlink(first / "results", second / "results")
    result = leaderboard(capsys, tmp_path, tmp_path / "outputs")
    assert result.returncode == 0, result.stderr
    assert f"from {len(SPECS)} results file(s)" in result.stderr
    assert "ran more than once" not in result.stderr
    for path in results_files(first):
        twin = second / path.relative_to(first)
        assert f"{twin} and {path} are one results file under two names" in result.stderr


def test_a_latest_symlink_given_beside_its_run_is_one_run(tmp_path, capsys):
    first = write_run(tmp_path / "outputs", FIRST, SPECS)
    os.symlink(FIRST, tmp_path / "outputs" / "latest")
    result = leaderboard(capsys, tmp_path, tmp_path / "outputs" / "latest", tmp_path / "outputs")
    assert result.returncode == 0, result.stderr
    assert f"from {len(SPECS)} results file(s)" in result.stderr
    assert f"{first} and {tmp_path / 'outputs' / 'latest'} are one run folder under two names; read once" in (
        result.stderr
    )
