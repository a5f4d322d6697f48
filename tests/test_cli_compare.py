"""``gpassk compare``: exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest

from analysis_docs import write
from gpassk_opencompass.cli import main

T, F, N = True, False, None


def test_compare_prints_every_metric_and_exits_0(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, T, F, T], [T, F, F, F], [T, T, T, T]])
    b = write(tmp_path / "b.json", [[T, F, F, F], [F, F, F, F], [T, T, T, F]])
    assert main(["compare", str(a), str(b), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    # accuracy A = 8/12, B = 4/12: +33.33; three questions, all better: exact p = 2/8
    assert "| accuracy (4 runs average) | 66.67 | 33.33 | +33.33 |" in out and "| 0.25 | exact (8) |" in out


def test_unresolved_verdicts_exit_3(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, N]])
    b = write(tmp_path / "b.json", [[T, T]])
    assert main(["compare", str(a), str(b)]) == 3
    assert "1 unresolved verdict(s)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "b_matrix, options, message",
    [
        ([[T, F], [F, F]], dict(ids=["q0", "x"]), "do not share their questions"),
        ([[T, F, T], [F, F, F]], {}, "n differs"),
    ],
)
def test_runs_not_sharing_questions_or_n_exit_2(tmp_path, capsys, b_matrix, options, message):
    a = write(tmp_path / "a.json", [[T, F], [F, F]])
    b = write(tmp_path / "b.json", b_matrix, **options)
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_help_carries_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "example: gpassk compare" in capsys.readouterr().out


def test_runs_sharing_no_id_are_explained_and_matched_by_position(tmp_path, capsys):
    # a run's ids against a gpassk score file's: the same questions, spelled differently
    a = write(tmp_path / "run.json", [[T, T, F, T], [T, F, F, F]], ids=["AIME2025/0", "AIME2025/1"])
    b = write(tmp_path / "score.json", [[T, F, F, F], [F, F, F, F]], ids=["q0", "q1"])
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "share no question id" in err and "--match-by position" in err
    assert "'AIME2025/0'" in err and "'q0'" in err
    assert main(["compare", str(a), str(b), "--match-by", "position", "--seed", "1"]) == 0
    # accuracy A = 4/8, B = 1/8: +37.50 over the two questions paired in order
    assert "| accuracy (4 runs average) | 50.00 | 12.50 | +37.50 |" in capsys.readouterr().out


def test_match_by_position_needs_as_many_questions(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, F], [F, F]])
    b = write(tmp_path / "b.json", [[T, F], [F, F], [T, T]], ids=["x", "y", "z"])
    assert main(["compare", str(a), str(b), "--match-by", "position"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs as many in both files" in err and "has 2" in err and "has 3" in err
    assert main(["compare", str(a), str(b), "--match-by", "order"]) == 2
    assert "unknown --match-by 'order'" in capsys.readouterr().err


def _with_question_digests(path, digests):
    document = json.loads(path.read_text(encoding="utf-8"))
    for question, digest in zip(document["details"], digests):
        question["question_sha256"] = digest
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "b_matrix, b_digests, why",
    [
        ([[T, F], [F, F], [T, T]], None, "has 2, "),  # the sizes differ
        ([[T, F], [F, F]], ["c" * 64, "d" * 64], "differ in text or gold answer"),  # other questions, in order
        ([[T, F, T], [F, F, F]], None, "n differs"),  # another n
    ],
)
def test_no_position_hint_when_pairing_in_order_would_fail(tmp_path, capsys, b_matrix, b_digests, why):
    a = _with_question_digests(write(tmp_path / "a.json", [[T, F], [F, F]], ids=["r0", "r1"]), ["a" * 64, "b" * 64])
    b = write(tmp_path / "b.json", b_matrix, ids=[f"x{i}" for i in range(len(b_matrix))])
    if b_digests is not None:
        _with_question_digests(b, b_digests)
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "share no question id" in err and why in err
    assert "pass --match-by position" not in err
