"""``gpassk agree``: exit codes, one-line errors, outputs."""

from __future__ import annotations

import json

import pytest

from analysis_docs import write
from gpassk_opencompass.cli import main

T, F, N = True, False, None


def test_complete_agreement_exits_0_and_writes_every_format(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, F, T], [F, F, T]])
    b = write(tmp_path / "b.json", [[T, T, T], [F, F, T]], judge="llm", judge_model="J")
    assert (
        main(
            [
                "agree",
                str(a),
                str(b),
                "--json",
                str(tmp_path / "x.json"),
                "--html",
                str(tmp_path / "x.html"),
                "--markdown",
                str(tmp_path / "x.md"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "A = rule, B = llm J (prompt v2)" in out and "| A correct | 3 | 0 |" in out
    assert json.loads((tmp_path / "x.json").read_text())["agreement"]["compared"] == 6
    assert (tmp_path / "x.html").read_text().startswith("<!DOCTYPE html>")


def test_unresolved_verdicts_exit_3_with_the_report_printed(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, F, T], [F, F, T]])
    b = write(tmp_path / "b.json", [[T, N, T], [F, F, T]], judge="llm", judge_model="J")
    assert main(["agree", str(a), str(b)]) == 3
    out = capsys.readouterr().out
    assert "unresolved: 0 by A, 1 by B" in out and "Metric shift withheld" in out


@pytest.mark.parametrize(
    "make_b, extra, message",
    [
        (lambda p: write(p, [[T, F]], ids=["other"]), [], "do not hold the same questions"),
        (lambda p: write(p, [[T, F, T]]), [], "has n=2 in"),
        (lambda p: p.parent, [], "is a folder; give a results file"),
        (lambda p: write(p, [[T, F]]), ["--limit", "-1"], "--limit must be >= 0"),
        (lambda p: write(p, [[T, F]]), ["--ci", "2"], "ci must be in (0, 1)"),
    ],
)
def test_bad_input_exits_2_in_one_line(tmp_path, capsys, make_b, extra, message):
    a = write(tmp_path / "a.json", [[T, F]], ids=["q0"])
    b = make_b(tmp_path / "b.json")
    assert main(["agree", str(a), str(b), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_help_carries_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["agree", "--help"])
    assert "example: gpassk agree" in capsys.readouterr().out


def test_files_sharing_no_id_are_explained_and_matched_by_position(tmp_path, capsys):
    a = write(tmp_path / "run.json", [[T, F, T], [F, F, T]], ids=["AIME2025/0", "AIME2025/1"])
    b = write(tmp_path / "score.json", [[T, T, T], [F, F, T]], ids=["q0", "q1"], judge="llm", judge_model="J")
    assert main(["agree", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "share no question id" in err and "--match-by position" in err
    assert main(["agree", str(a), str(b), "--match-by", "position"]) == 0
    assert "| A correct | 3 | 0 |" in capsys.readouterr().out  # A's 3 correct are B's too, paired in order
    assert main(["agree", str(a), str(b), "--match-by", "position", "--json", str(tmp_path / "x.json")]) == 0
    assert json.loads((tmp_path / "x.json").read_text())["agreement"]["compared"] == 6


def test_match_by_position_needs_as_many_questions(tmp_path, capsys):
    a = write(tmp_path / "a.json", [[T, F]])
    b = write(tmp_path / "b.json", [[T, F], [F, F]], ids=["x", "y"])
    assert main(["agree", str(a), str(b), "--match-by", "position"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs as many in both files" in err


@pytest.mark.parametrize(
    "b_matrix, options, why",
    [
        # the case: unrelated files of 6 and 5 questions; position pairing fails on the sizes
        ([[T, F]] * 5, {}, "has 6, "),
        # as many questions, but other generations (their extracted answers differ): not the same generations
        ([[T, F]] * 6, dict(extracted=[["x", "y"]] * 6), "hold different generations"),
        # as many questions, another n
        ([[T, F, T]] * 6, {}, "has n=2 in"),
    ],
)
def test_no_position_hint_when_pairing_in_order_would_fail(tmp_path, capsys, b_matrix, options, why):
    a = write(tmp_path / "a.json", [[T, F]] * 6, ids=[f"AIME2025/{i}" for i in range(6)])
    b = write(tmp_path / "b.json", b_matrix, ids=[f"x{i}" for i in range(len(b_matrix))], **options)
    assert main(["agree", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "share no question id" in err and why in err
    assert "pass --match-by position" not in err
