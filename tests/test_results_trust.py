"""Results that cannot be believed are flagged, never tabulated or analysed as they are.

Every document here is written by the real scoring flow (``score_questions``, rule judge), then edited the
way a hand edit or a corruption would; golden values come from exact rationals (``exact.py``).
"""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from loguru import logger

from exact import exact_mg_pass
from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import JudgeSettings
from gpassk_opencompass.scoring.flow import score_questions
from gpassk_opencompass.scoring.questions import Question
from gpassk_opencompass.scoring.request import ScoringRequest
from gpassk_opencompass.scoring.results_io import read_results, write_results
from leaderboard_workdirs import Spec, standard_grid, write_manifest, write_run
from leaderboard_workdirs import write_results as write_run_results
from scoring_fixtures import generations

TS = "20250213_101500"
COUNTS = [0, 3, 9, 16, 20, 25, 31, 32]


@pytest.fixture(autouse=True)
def _no_stale_log_sinks():
    """``gpassk leaderboard`` points loguru at the stderr of its test; later logging must not write there."""
    logger.remove()


def scored(counts=COUNTS, n=32, ks=(4, 8, 16), benchmark="AIME2025", subsets=(), topic="Question") -> dict:
    """A results document from the real scoring flow: ``counts[i]`` right answers out of ``n`` for question i."""
    questions = [
        Question(
            row["id"],
            row["question"].replace("Question", topic),
            row["answer"],
            tuple(row["predictions"]),
            labels={"language": row["language"]},
        )
        for row in generations(counts, n=n)
    ]
    request = ScoringRequest(ks=ks, thresholds=(0.5, 0.75, 1.0), subsets=subsets, benchmark=benchmark)
    return score_questions(questions, request, JudgeSettings(kind="rule"), progress=False)


def test_an_untouched_document_is_believed_subsets_and_intervals_included():
    document = scored(subsets=("language",))
    assert "en/mG-Pass@16" in document
    assert [question["c"] for question in document["details"]] == COUNTS
    assert read_results(document).problems == ()


def _set(key, value):
    def edit(document):
        document[key] = value

    return edit


def _set_count(position, **counts):
    def edit(document):
        document["details"][position].update(counts)
        document["details"][position].pop("verdicts")  # as the leaderboard fixtures keep them: counts only

    return edit


MG16 = float(100 * sum(exact_mg_pass(32, c, 16) for c in COUNTS) / len(COUNTS))


def _unresolve():
    """The first wrong verdict made unresolved, the counts and ``complete: true`` left as they were."""

    def edit(document):
        verdicts = next(
            question["verdicts"]
            for question in document["details"]
            if any(verdict["correct"] is False for verdict in question["verdicts"])
        )
        wrong = next(index for index, verdict in enumerate(verdicts) if verdict["correct"] is False)
        verdicts[wrong] = {**verdicts[wrong], "correct": None, "reason": "judge timed out"}

    return edit


def _set_block(**fields):
    def edit(document):
        document["gpassk"].update(fields)

    return edit


def _swap_interval(key):
    def edit(document):
        entry = document["gpassk"]["uncertainty"][key]
        entry["ci_low"], entry["ci_high"] = entry["ci_high"] + 1, entry["ci_low"]

    return edit


#: A document that contradicts itself (issue 22): each is a problem, so it is not compared nor tabulated.
CONTRADICTIONS = [
    (_unresolve(), "gpassk.complete is true but its details hold 1 unresolved verdict(s)"),
    (_set_block(n=48), "gpassk.n = 48 but its details have n = 32"),
    (_set_block(questions=500), "gpassk.questions = 500 but it has 8 question details"),
    (_swap_interval("G-Pass@8_0.5"), "gpassk.uncertainty['G-Pass@8_0.5'] has its low end"),
    (_set_block(k=[4, 8, 16, 64]), "k = 64 is above n = 32 (G-Pass@k needs k <= n)"),
    (_set("unresolved", 3), "unresolved = 3 but its details hold 0 unresolved verdict(s)"),
]


@pytest.mark.parametrize("edit, problem", CONTRADICTIONS)
def test_a_document_that_contradicts_itself_is_flagged(edit, problem):
    document = scored()
    edit(document)
    problems = read_results(json.loads(json.dumps(document))).problems
    assert any(problem in sentence for sentence in problems), problems


@pytest.mark.parametrize("edit, problem", CONTRADICTIONS)
def test_gpassk_compare_refuses_a_scored_file_edited_to_contradict_itself(tmp_path, capsys, edit, problem):
    """Made by ``gpassk score``, then edited: compare refuses it in one line naming the file and the reason."""
    lines = [json.dumps(row) for row in generations(COUNTS, n=32)]
    (tmp_path / "generations.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name in ("a.json", "b.json"):
        argv = ["score", str(tmp_path / "generations.jsonl"), "--k", "4", "8", "16", "--quiet"]
        assert main([*argv, "--thresholds", "0.5", "0.75", "1.0", "--no-cache", "--output", str(tmp_path / name)]) == 0
    document = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    edit(document)
    (tmp_path / "b.json").write_text(json.dumps(document), encoding="utf-8")
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "b.json: cannot be believed (" in err and problem in err, err


@pytest.mark.parametrize(
    "edit, problem",
    [
        (_set("accuracy (32 runs average)", 150.0), "accuracy (32 runs average) = 150 is outside [0, 100]"),
        (_set("G-Pass@16_0.5", -5.0), "G-Pass@16_0.5 = -5 is outside [0, 100]"),
        (_set("mG-Pass@8", math.nan), "mG-Pass@8 is nan, not a finite percentage"),
        (_set("G-Pass@4_1.0", math.inf), "G-Pass@4_1.0 is inf, not a finite percentage"),
        (_set("G-Pass@4_1e-05", 150.0), "G-Pass@4_1e-05 = 150 is outside [0, 100]"),  # metric_key(4, 0.00001)
        (_set("mG-Pass@16", 95.0), f"mG-Pass@16 = 95 but its per-question details give {round(MG16, 2):g}"),
        (_set_count(2, c=999), "impossible details: question 'q2' has c = 999 > n = 32"),
        (_set_count(5, unresolved=30), "impossible details: question 'q5' has c + unresolved = 25 + 30 > n = 32"),
        (_set_count(1, n=0), "impossible details: question 'q1' has n = 0"),
    ],
)
def test_hand_edited_results_are_flagged_with_the_reason(edit, problem):
    document = scored()
    edit(document)
    assert problem in read_results(json.loads(json.dumps(document))).problems


def test_a_metric_off_by_float_rounding_is_believed():
    document = scored()
    document["mG-Pass@16"] += 0.001
    assert read_results(document).problems == ()


# ------------------------------------------------------------------ the leaderboard


def _grid(tmp_path):
    outputs = tmp_path / "outputs"
    specs = standard_grid()
    write_run(outputs, TS, specs)
    return outputs, next(
        spec
        for spec in specs
        if spec.model_path == "acme/middle-7b" and not spec.greedy and spec.benchmark == "AIME2025"
    )


def _replace_with_scored(outputs, spec: Spec, edit) -> str:
    """The spec's results file replaced by a real scored document of its counts, edited."""
    document = scored(spec.counts(), n=spec.n, ks=spec.ks, benchmark=spec.benchmark)
    edit(document)
    path = write_run_results(outputs / TS, spec.model_abbr, spec.dataset_abbr, document)
    return str(path)


@pytest.mark.parametrize(
    "edit, reason",
    [
        (_set("mG-Pass@16", 95.0), "mG-Pass@16 = 95 but its per-question details give"),
        (_set("G-Pass@16_0.5", -5.0), "G-Pass@16_0.5 = -5 is outside [0, 100]"),
        (_set_count(3, c=999), "c = 999 > n = 32"),
        (_unresolve(), "gpassk.complete is true but its details hold 1 unresolved verdict(s)"),
        (_set_block(questions=500), "gpassk.questions = 500 but it has"),
    ],
)
def test_the_leaderboard_leaves_out_what_cannot_be_believed_naming_the_file(tmp_path, capsys, edit, reason):
    outputs, spec = _grid(tmp_path)
    path = _replace_with_scored(outputs, spec, edit)
    assert main(["leaderboard", str(outputs), "--benchmarks", "AIME2025"]) == 1
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if "not tabulated" in line]
    assert len(warnings) == 1 and path in warnings[0] and reason in warnings[0]
    assert "--allow-inconsistent" in warnings[0]
    rows = [line for line in captured.out.splitlines() if line.startswith("| middle-7b |")]
    assert rows and all(line.split(" | ")[2] == "-" for line in rows)  # greedy only: no sampled values
    assert "95.0" not in captured.out and "-5.0" not in captured.out


def test_allowed_an_inconsistent_run_is_tabulated_marked_and_csv_keeps_numbers(tmp_path, capsys):
    outputs, spec = _grid(tmp_path)
    path = _replace_with_scored(outputs, spec, _set("G-Pass@16_0.5", -5.0))
    board = tmp_path / "board.csv"
    assert (
        main(
            [
                "leaderboard",
                str(outputs),
                "--benchmarks",
                "AIME2025",
                "--allow-inconsistent",
                "-o",
                str(board),
                "-o",
                str(tmp_path / "board.md"),
                "-o",
                str(tmp_path / "board.json"),
                "-o",
                str(tmp_path / "board.html"),
            ]
        )
        == 0
    )
    markdown = (tmp_path / "board.md").read_text(encoding="utf-8")
    assert "| middle-7b † | " in markdown and f"† middle-7b on AIME2025: cannot be believed ({path}: " in markdown
    rows = {row["model"]: row for row in csv.DictReader(io.StringIO(board.read_text(encoding="utf-8")))}
    assert rows["middle-7b"]["G-Pass@16_0.5"] == "-5.0" and rows["middle-7b"]["consistent"] == "false"
    assert rows["weak-1b"]["consistent"] == "true"
    shaped = json.loads((tmp_path / "board.json").read_text(encoding="utf-8"))
    assert shaped["inconsistent"][0]["model"] == "middle-7b" and path in shaped["inconsistent"][0]["problems"][0]
    page = (tmp_path / "board.html").read_text(encoding="utf-8")
    assert page.count('class="inconsistent-mark"') == 1 and "G-Pass@16_0.5 = -5 is outside [0, 100]" in page


def test_a_believable_older_run_wins_over_a_newer_edited_one(tmp_path, capsys):
    outputs, spec = _grid(tmp_path)
    write_run(outputs, "20250214_093000", [spec])
    newer = outputs / "20250214_093000" / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"
    write_results(newer, {**scored(spec.counts(), n=spec.n, ks=spec.ks), "mG-Pass@16": 99.0})
    assert main(["leaderboard", str(outputs), "--benchmarks", "AIME2025", "--allow-inconsistent"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| middle-7b"))
    assert "†" not in row and "99.0" not in row


# ------------------------------------------------------------------ CSV formula injection


@pytest.mark.parametrize("name", ['=HYPERLINK("http://evil","x")', "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"])
def test_csv_text_cells_never_start_a_formula(tmp_path, name):
    outputs = tmp_path / "outputs"
    specs = [spec for spec in standard_grid() if spec.model_path == "acme/weak-1b"]
    write_run(outputs, TS, specs)
    manifest = write_manifest(tmp_path / "configs", specs, display_names={"acme/weak-1b": name})
    board = tmp_path / "board.csv"
    assert main(["leaderboard", str(outputs), "--manifest", str(manifest), "-o", str(board)]) == 0
    rows = list(csv.reader(io.StringIO(board.read_bytes().decode("utf-8"), newline="")))
    models = {row[1] for row in rows[1:]}
    assert models == {"'" + name.replace("\r", "\n")} and len(rows) == 3  # header, one row per benchmark
    assert all(not cell.startswith(("=", "+", "@", "\t", "\r")) for row in rows for cell in row)


# ------------------------------------------------------------------ agree: the same generations only


def _two_models(tmp_path, *, strip=()):
    """Two models' results over the same question ids (different generations), from the scoring flow."""
    a, b = scored([2, 5, 7, 1], n=8, ks=(4,)), scored([6, 0, 3, 8], n=8, ks=(4,))
    for document in (a, b):
        for question in document["details"]:
            for field in strip:
                question.pop(field, None)
                for verdict in question["verdicts"]:
                    verdict.pop(field, None)
    write_results(tmp_path / "model_a.json", a)
    write_results(tmp_path / "model_b.json", b)
    return str(tmp_path / "model_a.json"), str(tmp_path / "model_b.json")


def test_agree_refuses_two_models_results_in_one_line_naming_both_files(tmp_path, capsys):
    a, b = _two_models(tmp_path)
    assert main(["agree", a, b]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and a in err and b in err and "Traceback" not in err
    assert "hold different generations: 4 of 4 questions differ" in err and "gpassk compare" in err


def test_agree_on_files_without_digests_compares_the_extracted_answers(tmp_path, capsys):
    a, b = _two_models(tmp_path, strip=("generations_sha256",))
    assert main(["agree", a, b]) == 2
    assert "the extracted answers of " in capsys.readouterr().err


def test_agree_warns_when_the_generations_cannot_be_checked(tmp_path, capsys):
    a, b = _two_models(tmp_path, strip=("generations_sha256", "extracted"))
    assert main(["agree", a, b]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("WARNING: ")]
    assert any("cannot check that" in line and "4 question(s)" in line for line in warnings)


def test_agree_on_the_same_generations_judged_twice_goes_ahead(tmp_path, capsys):
    document = scored([2, 5, 7, 1], n=8, ks=(4,))
    assert len({question["generations_sha256"] for question in document["details"]}) == 4
    write_results(tmp_path / "one.json", document)
    write_results(tmp_path / "two.json", scored([2, 5, 7, 1], n=8, ks=(4,)))
    assert main(["agree", str(tmp_path / "one.json"), str(tmp_path / "two.json")]) == 0
    assert "agreement: 1.0000 on 32 items" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["agree", "compare"])
def test_analysis_refuses_a_file_that_cannot_be_believed(tmp_path, capsys, command):
    document = scored([2, 5, 7, 1], n=8, ks=(4,))
    write_results(tmp_path / "one.json", document)
    write_results(tmp_path / "edited.json", {**document, "mG-Pass@4": 95.0})
    assert main([command, str(tmp_path / "one.json"), str(tmp_path / "edited.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "edited.json: cannot be believed (mG-Pass@4 = 95 but" in err


# ------------------------------------------------------------------ compare: the same questions, any generations


def test_compare_pairs_two_models_on_the_same_questions(tmp_path, capsys):
    a, b = _two_models(tmp_path)
    assert main(["compare", a, b]) == 0
    assert "4 shared questions, n = 8" in capsys.readouterr().out


def test_compare_refuses_different_questions_under_the_same_ids(tmp_path, capsys):
    write_results(tmp_path / "a.json", scored([2, 5, 7, 1], n=8, ks=(4,)))
    write_results(tmp_path / "b.json", scored([6, 0, 3, 8], n=8, ks=(4,), topic="Problem"))
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hold different questions under the same ids: 4 of 4" in err
