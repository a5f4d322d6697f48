"""Issue 24's pieces together, as a user runs them: each sample layout through the real ``gpassk score`` with its
cut generations counted, the tools' own verdicts with ``--judge source`` and ``gpassk agree``, an OpenCompass run's
folders, and the leaderboard of a run OpenCompass's own evaluator judged.

One run of 4 questions x 4 samples is written in every layout. Its counts are stated by hand from the texts below
(never taken from the code under test): a sample recorded ``length`` is cut whatever it says; without a record, a
text that stops mid-sentence is cut and one that ends without an answer is not; a text recorded ``stop`` that stops
mid-sentence has no answer but was not cut.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
from collections.abc import Collection
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from in_process import run_main
from scoring_fixtures import write_jsonl

DATA = Path(__file__).parent / "data"
NEMO = DATA / "nemo-skills" / "math"
OC_RUN = DATA / "opencompass-details"
OC_MODEL = "strong_t0-7"

CUT = "Let me work through this step by step. First we compute the sum of the"
#: per question: gold, its four samples as (text, finish_reason), and by hand (right answers, cut, no answer)
#: with the reasons recorded and without them
RUN = [
    ("5", [(r"So \boxed{5}.", "stop"), (r"\boxed{5}", "stop"), ("I do not know.", "stop"), (CUT, "length")],
     (2, 1, 1), (2, 1, 1)),
    ("42", [(r"\boxed{42}", "stop"), (r"\boxed{41}", "stop"), (r"Hence \boxed{42}.", "stop"), (CUT + " two", "length")],
     (2, 1, 0), (2, 1, 0)),
    # recorded: "stop" after a half sentence is no answer, not cut; "length" after a boxed answer is cut (and right)
    ("7", [(r"\boxed{7}", "stop"), ("We then compute the", "stop"), (r"\boxed{7}", "stop"), (r"\boxed{7} and then", "length")],
     (3, 1, 1), (3, 1, 0)),
    ("9", [(r"\boxed{8}", "stop"), (r"\boxed{10}", "stop"), (r"\boxed{9}", "stop"), (CUT + " four", "length")],
     (1, 1, 0), (1, 1, 0)),
]  # fmt: skip
N, KS = 4, ("2", "4")
SAID = {
    "finish_reason": "from the recorded finish_reason",
    "extraction": "no finish_reason recorded: no final answer and the text stops mid-sentence",
    "mixed": "from the recorded finish_reason where there is one, else the text stopping mid-sentence",
}


ALL = frozenset(range(len(RUN)))


def rows(recorded: Collection[int] = ALL) -> list[dict]:
    """One row per sample; ``recorded``: the questions whose finish_reason the rows carry."""
    return [
        {"id": f"q{q}", "question": f"Question {q}?", "answer": gold, "prediction": text, "seed": seed}
        | ({"finish_reason": reason} if q in recorded else {})
        for q, (gold, samples, _, _) in enumerate(RUN)
        for seed, (text, reason) in enumerate(samples)
    ]


def long_file(folder: Path) -> Path:
    shuffled = rows()
    random.Random(24).shuffle(shuffled)
    return write_jsonl(folder / "gens.jsonl", shuffled)


def half_recorded(folder: Path) -> Path:
    return write_jsonl(folder / "gens.jsonl", rows(recorded=(2, 3)))


def seed_files(folder: Path, glob: bool = False, drop: tuple[int, str] | None = None) -> Path:
    runs = folder / "runs"
    runs.mkdir()
    for seed in range(N):
        kept = [row for row in rows() if row["seed"] == seed and (seed, row["id"]) != drop]
        write_jsonl(runs / f"seed{seed}.jsonl", kept[::-1] if seed % 2 else kept)
    return runs / "seed*.jsonl" if glob else runs


def seed_files_one_question_per_line(folder: Path) -> Path:
    """gpassk's own format, one seed per file: each line a question with one prediction and its finish_reason."""
    runs = folder / "runs"
    runs.mkdir()
    for seed in range(N):
        lines = [
            {"id": row["id"], "question": row["question"], "answer": row["answer"]}
            | {"predictions": [row["prediction"]], "finish_reasons": [row["finish_reason"]]}
            for row in rows()
            if row["seed"] == seed
        ]
        write_jsonl(runs / f"seed{seed}.jsonl", lines)
    return runs


def replicated(folder: Path) -> Path:
    """The dataset repeated n times, each replica its own id: grouped by question text and gold answer."""
    by_seed = sorted(rows(), key=lambda row: row["seed"])
    return write_jsonl(folder / "aime25x4.jsonl", [row | {"id": f"{row['id']}-{row['seed']}"} for row in by_seed])


def csv_file(folder: Path) -> Path:
    path = folder / "gens.csv"
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, ["id", "question", "answer", "prediction", "finish_reason", "seed"])
        writer.writeheader()
        writer.writerows(rows())
    return path


def by_hand(recorded: Collection[int], dropped: tuple[int, int] | None = None) -> dict[str, tuple[int, int, int, int]]:
    """Per question (n, right, cut, no answer), from the hand counts of :data:`RUN`; ``dropped``: (question, its
    right answers lost) when one sample is missing."""
    counts = {}
    for q, (_, _, with_reasons, without) in enumerate(RUN):
        c, cut, no_answer = with_reasons if q in recorded else without
        n = N
        if dropped is not None and dropped[0] == q:
            n, c = n - 1, c - dropped[1]
        counts[f"q{q}"] = (n, c, cut, no_answer)
    return counts


#: layout -> (writer, extra options, the layout line, questions recorded, (question, right answers lost) if one is dropped)
LAYOUTS = {
    "one generation per line": (long_file, (), "16 rows → 4 questions × 4 samples, grouped by id", ALL, None),
    "per line, half recorded": (half_recorded, (), "16 rows → 4 questions × 4 samples, grouped by id", {2, 3}, None),
    "one file per seed": (seed_files, (), "4 files → 4 questions × 4 samples, joined by question id", ALL, None),
    "a glob of seeds' files": (
        lambda folder: seed_files(folder, glob=True), (), "4 files → 4 questions × 4 samples, joined by question id",
        ALL, None,
    ),
    "a seed's file short, --allow-missing": (
        lambda folder: seed_files(folder, drop=(2, "q1")), ("--allow-missing",),
        "4 files → 4 questions × 3–4 samples, joined by question id; 1 sample missing (--allow-missing)",
        ALL, (1, 1),  # seed 2 of q1 is "Hence \boxed{42}.": right
    ),
    "seeds of one question per line": (
        seed_files_one_question_per_line, (), "4 files → 4 questions × 4 samples, joined by question id", ALL, None,
    ),
    "a replicated dataset": (
        replicated, (), "16 rows → 4 questions × 4 samples, grouped by question text and answer", ALL, None,
    ),
    "a CSV of sample rows": (csv_file, (), "16 rows → 4 questions × 4 samples, grouped by id", ALL, None),
}  # fmt: skip


def scored(capsys, source: Path, output: Path, *options: str) -> tuple[dict, str, str]:
    done = run_main(capsys, "score", str(source), *options, "--no-cache", "--output", str(output))
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text()), done.stdout, done.stderr


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_counts_its_cut_generations_from_the_record_or_the_text(layout, tmp_path, capsys):
    write, options, said, recorded, dropped = LAYOUTS[layout]
    ks = ("2",) if "--allow-missing" in options else KS  # a question of n = 3 then: k = 4 would be refused
    document, out, err = scored(
        capsys, write(tmp_path), tmp_path / "scores.json", "--k", *ks, "--judge", "rule", "--quiet", *options
    )
    expected = by_hand(recorded, dropped)
    details = {detail["id"].split("-")[0]: detail for detail in document["details"]}  # a replica's id: q1-0
    assert {q: (d["n"], d["c"], d["cut"], d["no_answer"]) for q, d in details.items()} == expected
    generations = sum(n for n, *_ in expected.values())
    source = "finish_reason" if recorded == ALL else "mixed"
    assert document["gpassk"]["cut"] == {
        "generations": generations,
        "cut": sum(cut for _, _, cut, _ in expected.values()),
        "no_answer": sum(no_answer for *_, no_answer in expected.values()),
        "recorded": sum(expected[f"q{q}"][0] for q in recorded),
        "source": source,
    }
    share = round(100 * document["gpassk"]["cut"]["cut"] / generations)
    at_least = "" if source == "finish_reason" else "at least "  # some found by the text check: a lower bound
    assert f"cut at the output limit: {at_least}4 of {generations} generations ({share} %, {SAID[source]})" in out
    assert err.strip() == said


def nemo_copies(folder: Path, reason=lambda position: "length" if position % 5 == 0 else "stop") -> Path:
    """NeMo-Skills' real seed files with the server's finish_reason added to each line (as newer versions write)."""
    copies = folder / "math"
    copies.mkdir()
    for file in sorted(NEMO.glob("output-rs*.jsonl")):
        lines = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
        write_jsonl(copies / file.name, [line | {"finish_reason": reason(i)} for i, line in enumerate(lines)])
    return copies


def test_nemo_skills_seeds_count_the_recorded_cuts_and_keep_its_verdicts(tmp_path, capsys):
    """Lines 0, 5, 10, 15 of each seed recorded ``length``: 12 cut, each question's from its lines; the verdicts
    stay NeMo-Skills' own (44 of 60 symbolic_correct: 73.33 %, tests/data/nemo-skills/PROVENANCE.md)."""
    folder = nemo_copies(tmp_path)
    document, out, err = scored(capsys, folder, tmp_path / "source.json", "--k", "1", "3", "--judge", "source")
    assert document["gpassk"]["cut"] | {"no_answer": None} == {
        "generations": 60, "cut": 12, "no_answer": None, "recorded": 60, "source": "finish_reason",
    }  # fmt: skip
    ids = [json.loads(line)["id"] for line in (NEMO / "output-rs0.jsonl").read_text().splitlines()]
    assert {d["id"]: d["cut"] for d in document["details"]} == {q: 3 * (i % 5 == 0) for i, q in enumerate(ids)}
    assert document["accuracy (3 runs average)"] == pytest.approx(100 * 44 / 60)
    assert "cut at the output limit: 12 of 60 generations (20 %, from the recorded finish_reason)" in out
    assert "3 files → 20 questions × 3 samples, joined by question id" in err


def oc_copy(folder: Path) -> Path:
    """The real OpenCompass run (own evaluators, --dump-eval-details), its first generation cut mid-sentence."""
    run = folder / "outputs" / "20261127_105959"
    shutil.copytree(OC_RUN, run)
    part = run / "predictions" / OC_MODEL / "oc_livemath_0.json"
    rows = json.loads(part.read_text(encoding="utf-8"))
    rows["0"]["prediction"] = CUT
    part.write_text(json.dumps(rows, ensure_ascii=False, indent=4), encoding="utf-8")
    return run


def test_opencompass_verdicts_count_cuts_from_the_extraction(tmp_path, capsys):
    """OpenCompass keeps no finish_reason: the one cut text is found by the extraction; the verdicts stay its own
    (54.6875 %, what its results file says)."""
    run = oc_copy(tmp_path)
    predictions = run / "predictions" / OC_MODEL / "oc_livemath_0.json"
    document, out, _ = scored(capsys, predictions, tmp_path / "r.json", "--k", "4", "8", "--judge", "source")
    assert document["gpassk"]["cut"] == {
        "generations": 64, "cut": 1, "no_answer": 0, "recorded": 0, "source": "extraction",
    }  # fmt: skip
    assert [d["cut"] for d in document["details"]] == [1] + [0] * 7  # row 0 is replica 0 of question 0
    theirs = json.loads((run / "results" / OC_MODEL / "oc_livemath.json").read_text())
    assert document["accuracy (8 runs average)"] == pytest.approx(theirs["accuracy (8 runs average)"])
    assert f"cut at the output limit: at least 1 of 64 generations (2 %, {SAID['extraction']})" in out


def test_the_tools_verdicts_and_ours_on_one_file_per_seed_are_audited_by_agree(tmp_path, capsys):
    """A script's own verdict per sample (source_verdict), split one file per seed: --judge source counts them,
    and gpassk agree names the one sample where they differ from the rule judge's."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for seed in range(N):
        kept = [row | {"source_verdict": row["prediction"] == r"\boxed{42}"} for row in rows() if row["seed"] == seed]
        write_jsonl(runs / f"seed{seed}.jsonl", kept)  # the script's checker: only \boxed{42} is right
    source, _, _ = scored(capsys, runs, tmp_path / "source.json", "--k", *KS, "--judge", "source", "--quiet")
    rule, _, _ = scored(capsys, runs, tmp_path / "rule.json", "--k", *KS, "--judge", "rule", "--quiet")
    assert [d["c"] for d in source["details"]] == [0, 1, 0, 0] and [d["c"] for d in rule["details"]] == [2, 2, 3, 1]
    assert source["gpassk"]["cut"] == rule["gpassk"]["cut"]  # how a generation ended is not a judge's call
    done = run_main(capsys, "agree", str(tmp_path / "source.json"), str(tmp_path / "rule.json"))
    assert done.returncode == 0, done.stderr
    # of the rule judge's 8 right answers the script's checker counts one (\boxed{42}): 7 differ, one of q1's
    assert "## Items the judges see differently (7)" in done.stdout
    assert "| q1 | 2 | wrong | correct |" in done.stdout


#: a folder of an OpenCompass run -> its part of the path, and the model it stands for (None: all)
FOLDERS = {
    "the run": ("", None),
    "its predictions": ("predictions", None),
    "its results": ("results", None),
    "a model's predictions": (f"predictions/{OC_MODEL}", OC_MODEL),
    "a model's results": (f"results/{OC_MODEL}", OC_MODEL),
    "the work dir above": ("..", None),
}


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_of_an_opencompass_run_names_the_files_to_score(folder, tmp_path, capsys):
    """No ping-pong: gpassk score of a run's folder names, per model x dataset, the command that scores it (its own
    evaluator kept verdicts: --judge source), and the first command named then scores."""
    run = oc_copy(tmp_path)
    given = (run / FOLDERS[folder][0]).resolve()
    done = run_main(capsys, "score", str(given), "--k", "4", "8", "--no-cache", "--quiet")
    (line,) = done.stderr.strip().splitlines()
    assert done.returncode == 2
    commands = [
        f"gpassk score {run / 'predictions' / OC_MODEL / f'{dataset}_0.json'} --judge source --k K"
        for dataset in ("oc_livemath", "oc_mathverify")
    ]
    assert line == (
        f"gpassk score: error: {given}: an OpenCompass run's folder; gpassk score takes one model x dataset's "
        f"predictions file: {'; '.join(commands)} (--judge source: the per-sample verdicts OpenCompass's own "
        "evaluator kept (--dump-eval-details))"
    )
    first = commands[0].removeprefix("gpassk ").replace(" K", " 4 8").split()
    assert run_main(capsys, *first, "--no-cache", "--quiet").returncode == 0


def test_a_runs_datasets_are_named_by_who_judged_them(tmp_path, capsys):
    """A dataset GPassKEvaluator judged is judged again with rejudge; one without verdicts with a judge of ours."""
    run = oc_copy(tmp_path)
    results = run / "results" / OC_MODEL
    (results / "oc_livemath.json").write_text(json.dumps({"G-Pass@4_0.5": 1.0, "gpassk": {"schema_version": 3}}))
    (results / "oc_mathverify.json").unlink()
    done = run_main(capsys, "score", str(run), "--k", "4", "--no-cache", "--quiet")
    assert done.returncode == 2
    predictions = run / "predictions" / OC_MODEL
    assert done.stderr.strip() == (
        f"gpassk score: error: {run}: an OpenCompass run's folder; gpassk score takes one model x dataset's "
        f"predictions file: gpassk score {predictions / 'oc_mathverify_0.json'} --judge rule --k K; gpassk rejudge "
        f"{run} (gpassk rejudge: a run GPassKEvaluator judged, judged again in place)"
    )


def test_a_folder_that_is_no_opencompass_run_is_not_taken_for_one(tmp_path, capsys):
    """A user's folder named predictions, of seeds' files, stays one file per seed."""
    runs = tmp_path / "predictions"
    runs.mkdir()
    for seed in range(N):
        write_jsonl(runs / f"seed{seed}.jsonl", [row for row in rows() if row["seed"] == seed])
    document, _, err = scored(capsys, runs, tmp_path / "r.json", "--k", *KS, "--judge", "rule", "--quiet")
    assert [d["c"] for d in document["details"]] == [2, 2, 3, 1]
    assert err.strip() == "4 files → 4 questions × 4 samples, joined by question id"


def test_the_leaderboard_reads_a_run_opencompass_own_evaluator_judged_with_details(tmp_path, capsys, monkeypatch):
    """--dump-eval-details writes OpenCompass's own per-question details into the results: the leaderboard skipped
    such a run ('details[0].id is missing; add it'); now its rows are OpenCompass's figures, as it wrote them."""
    run = oc_copy(tmp_path)
    manifest = [
        {"model_abbr": OC_MODEL, "dataset_abbr": dataset, "model_path": "acme/strong-7b", "temperature": 0.7,
         "benchmark": benchmark, "k": [4, 8], "n": 8, "greedy": False}
        for dataset, benchmark in (("oc_livemath", "LiveMathBench-202412"), ("oc_mathverify", "AIME2025"))
    ]  # fmt: skip
    (run.parent / "manifest.json").write_text(json.dumps({"generator": "test", "runs": manifest}))
    monkeypatch.chdir(tmp_path)
    assert main(["leaderboard", "outputs", "--k", "8", "-o", "board.csv"]) == 0
    assert "skipped" not in capsys.readouterr().err
    table = {row["benchmark"]: row for row in csv.DictReader((tmp_path / "board.csv").open(encoding="utf-8"))}
    for dataset, benchmark in (("oc_livemath", "LiveMathBench-202412"), ("oc_mathverify", "AIME2025")):
        theirs = json.loads((run / "results" / OC_MODEL / f"{dataset}.json").read_text())
        row = table[benchmark]
        for key in ("G-Pass@8_0.5", "G-Pass@8_0.75", "G-Pass@8_1.0", "mG-Pass@8"):
            assert float(row[key]) == pytest.approx(theirs[key]), (benchmark, key)
        assert (row["n"], row["cut"]) == ("8", "")  # OpenCompass's results record no cut counts: not guessed
