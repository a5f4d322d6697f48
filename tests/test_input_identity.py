"""A file is what it is, not what it is called: one file reached under two names (a symlink, a hard link) among
the files read as one input is one line naming both (exit 2), never one more seed or part; the input is resolved
once (its files, their identities, its format) and every step takes that value.

Counts stated by hand: seed 0 answers q1 wrong (3) and q2 right; seed 1 answers both right. Two seeds: n = 2.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gpassk_opencompass.errors import InputError
from in_process import run_main

DATA = Path(__file__).parent / "data"


def seed_folder(folder: Path) -> Path:
    folder.mkdir()
    for seed, q1 in enumerate(("3", "2")):
        rows = [
            {"id": "q1", "question": "1+1?", "answer": "2", "predictions": [rf"\boxed{{{q1}}}"]},
            {"id": "q2", "question": "2+2?", "answer": "4", "predictions": [r"\boxed{4}"]},
        ]
        (folder / f"seed{seed}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def symlink(folder: Path) -> tuple[str, Path, Path]:
    os.symlink("seed1.jsonl", folder / "latest.jsonl")
    return str(folder), folder / "latest.jsonl", folder / "seed1.jsonl"


def hard_link(folder: Path) -> tuple[str, Path, Path]:
    os.link(folder / "seed0.jsonl", folder / "seed2.jsonl")
    return str(folder), folder / "seed0.jsonl", folder / "seed2.jsonl"


def glob_over_both(folder: Path) -> tuple[str, Path, Path]:
    os.symlink(folder / "seed0.jsonl", folder / "seed9.jsonl")  # an absolute symlink, picked by the glob
    return str(folder / "seed*.jsonl"), folder / "seed0.jsonl", folder / "seed9.jsonl"


def symlinked_parent(folder: Path) -> tuple[str, Path, Path]:
    """A file reached through a symlinked folder's path (the file's own name differs only by its folder)."""
    os.symlink(folder, folder.parent / "alias")
    os.symlink(folder.parent / "alias" / "seed1.jsonl", folder / "seed5.jsonl")
    return str(folder), folder / "seed1.jsonl", folder / "seed5.jsonl"


@pytest.mark.parametrize("twice", [symlink, hard_link, glob_over_both, symlinked_parent])
def test_one_seed_file_under_two_names_is_one_line_naming_both(tmp_path, capsys, twice):
    given, first, second = twice(seed_folder(tmp_path / "seeds"))
    result = run_main(capsys, "score", given, "--k", "1", "--judge", "rule")
    assert result.returncode == 2, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    assert "one file under two names" in line and first.name in line and second.name in line
    assert "n=3" not in result.stderr and "3 files" not in result.stderr


def test_two_distinct_seeds_still_make_n_2(tmp_path, capsys):
    result = run_main(capsys, "score", str(seed_folder(tmp_path / "seeds")), "--k", "1", "--judge", "rule")
    assert result.returncode == 0, result.stderr
    assert "2 files → 2 questions × 2 samples" in result.stderr
    assert "75.00" in result.stdout  # 3 right of 4, by hand


def test_an_opencompass_part_under_two_names_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(DATA / "opencompass-details", run)
    parts = run / "predictions" / "strong_t0-7"
    (parts / "oc_mathverify_1.json").unlink()
    os.symlink("oc_mathverify_0.json", parts / "oc_mathverify_1.json")
    result = run_main(capsys, "score", str(parts / "oc_mathverify_0.json"), "--k", "1", "--judge", "rule")
    assert result.returncode == 2, result.stderr
    assert "one file under two names" in result.stderr and "oc_mathverify_1.json" in result.stderr


def test_the_input_is_resolved_once_per_command(tmp_path, capsys, monkeypatch):
    """One ``gpassk score`` of a folder of seeds asks each reader's ``detect`` about each path at most once."""
    from gpassk_opencompass.scoring import readers

    asked: list[tuple[str, str]] = []
    for module in readers.READERS:
        detect = module.detect

        def counted(path, detect=detect, name=module.NAME):
            asked.append((name, str(path)))
            return detect(path)

        monkeypatch.setattr(module, "detect", counted)
    folder = seed_folder(tmp_path / "seeds")
    result = run_main(capsys, "score", str(folder), "--k", "1", "--judge", "rule")
    assert result.returncode == 0, result.stderr
    assert len(asked) == len(set(asked)), sorted(asked)


# ---------------------------------------------------------------- a question is its id; its text only where it says


def test_compute_never_merges_two_questions_without_texts():
    """Two questions, one prediction each, equal references: k = 2 is above n = 1, never one question of n = 2."""
    from gpassk_opencompass.card import compute

    same = lambda prediction, reference: prediction == reference  # noqa: E731
    with pytest.raises(InputError, match=r"question '0' has 1 prediction\(s\); at least 2 are needed"):
        compute([["a"], ["b"]], ["a", "a"], k=2, check_correct_fn=same)
    # k = 1 scores them as the two questions they are: (1 + 0) / 2, by hand
    assert compute([["a"], ["b"]], ["a", "a"], k=1, thresholds=[1.0], check_correct_fn=same)["G-Pass@1_1.0"] == 0.5


def test_score_of_mappings_without_texts_never_merges(tmp_path):
    from gpassk_opencompass.scoring.flow import score

    rows = [{"id": f"q{i}", "question": " ", "answer": "4", "predictions": [r"\boxed{4}"]} for i in range(4)]
    with pytest.raises(InputError, match="at least 2 are needed"):
        score(rows, k=2, judge="rule", progress=False)
    assert len(score(rows, k=1, judge="rule", progress=False).details) == 4


def test_a_file_of_records_without_texts_is_not_grouped(tmp_path, capsys):
    rows = [{"id": f"q{i}", "question": "", "answer": "4", "prediction": r"\boxed{4}"} for i in range(4)]
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = run_main(capsys, "score", str(path), "--k", "2", "--judge", "rule")
    assert result.returncode == 2 and "at least 2 are needed" in result.stderr, result.stderr
    texts = [dict(row, question=f"Q{i % 2}") for i, row in enumerate(rows)]  # texts that repeat evenly: grouped
    path.write_text("".join(json.dumps(row) + "\n" for row in texts))
    result = run_main(capsys, "score", str(path), "--k", "2", "--judge", "rule")
    assert result.returncode == 0 and "2 questions × 2 samples" in result.stderr, result.stderr


# ---------------------------------------------------------------- validate at the entry, trust inside


def test_one_gpassk_score_checks_each_questions_count_once(tmp_path, capsys, monkeypatch):
    """Read (and checked) where the input enters; the flow takes the checked questions without checking again."""
    from gpassk_opencompass.scoring import questions as home
    from gpassk_opencompass.scoring import readers, request
    from gpassk_opencompass.scoring.readers import _samples

    checked: list[object] = []
    real = home.check_count

    def counted(name, *args, **kwargs):
        checked.append(name)
        return real(name, *args, **kwargs)

    for module in (home, readers, request, _samples):
        monkeypatch.setattr(module, "check_count", counted)
    rows = [
        {"id": f"q{i}", "question": f"{i}+1?", "answer": str(i + 1), "predictions": [rf"\boxed{{{i + 1}}}", "x"]}
        for i in range(3)
    ]
    path = tmp_path / "gens.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = run_main(capsys, "score", str(path), "--k", "2", "--judge", "rule", "--quiet")
    assert result.returncode == 0, result.stderr
    assert sorted(checked) == ["q0", "q1", "q2"]
