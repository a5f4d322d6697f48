"""Samples as they are really laid out: one generation per row, one file per seed, a replicated dataset.

One dataset (6 questions x 8 samples, known right and wrong answers: ``scoring_fixtures.generations``) is written
in every layout and scored through the real ``gpassk score`` with the rule judge; each must give exactly the
metrics of the one-line-per-question file, whose values are checked against the exact oracle (Fraction +
math.comb, ``tests/exact.py``). Then each refusal: one line naming the file.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpassk_opencompass import score
from gpassk_opencompass.scoring.readers import detect_format, read_input, read_questions
from in_process import run_main
from scoring_fixtures import expected_metrics, generations, write_jsonl

DATA = Path(__file__).parent / "data"
COUNTS = [0, 1, 3, 5, 7, 8]
N = 8
QUESTIONS = generations(COUNTS, n=N)
KS = ("2", "4", "8")


def sample_rows(questions=QUESTIONS) -> list[dict]:
    """One row per (question, sample), with the seed that made it."""
    return [
        {"id": q["id"], "question": q["question"], "answer": q["answer"], "prediction": p, "language": q["language"]}
        | {"seed": seed}
        for q in questions
        for seed, p in enumerate(q["predictions"])
    ]


def metrics(path: Path) -> dict:
    """The metric values of a results file (every number at the top level)."""
    document = json.loads(path.read_text())
    values = {key: value for key, value in document.items() if isinstance(value, float)}
    counts = {question["id"]: (question["n"], question["c"]) for question in document["details"]}
    return {"metrics": values, "counts": counts}


def scored(capsys, tmp_path: Path, source: str | Path, *extra: str, ks=KS) -> tuple[dict, str]:
    output = tmp_path / f"scores-{len(list(tmp_path.glob('scores-*')))}.json"
    options = ("--k", *ks, "--judge", "rule", "--quiet", "--output", str(output), *extra)
    done = run_main(capsys, "score", str(source), *options)
    assert done.returncode == 0, done.stderr
    return metrics(output), done.stderr


@pytest.fixture
def reference(tmp_path, capsys) -> dict:
    """The one-line-per-question file's metrics, checked against the exact oracle."""
    found, said = scored(capsys, tmp_path, write_jsonl(tmp_path / "wide.jsonl", QUESTIONS))
    assert said == ""  # one record per question: nothing to say about the layout
    for key, value in expected_metrics(COUNTS, N, [int(k) for k in KS]).items():
        assert found["metrics"][key] == pytest.approx(value, abs=1e-9), key
    assert found["counts"] == {f"q{i}": (N, c) for i, c in enumerate(COUNTS)}
    return found


def write_long(tmp_path: Path) -> Path:
    rows = sample_rows()
    random.Random(24).shuffle(rows)
    return write_jsonl(tmp_path / "long.jsonl", rows)


def write_seeds(tmp_path: Path, drop: tuple[int, str] | None = None) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in range(N):
        rows = [row for row in sample_rows() if row["seed"] == seed and (seed, row["id"]) != drop]
        write_jsonl(folder / f"seed{seed}.jsonl", rows[::-1] if seed % 2 else rows)  # any order within a file
    return folder


def write_replicated(tmp_path: Path) -> Path:
    """The dataset repeated 8 times, one sample per record, as Qwen2.5-Math's math_eval.py writes it."""
    records = [
        {
            "idx": seed * len(QUESTIONS) + i,
            "question": q["question"],
            "gt": q["answer"],
            "code": [q["predictions"][seed]],
            "pred": [""],
            "score": [seed < COUNTS[i]],  # generations() puts the right answers first
        }
        for seed in range(N)
        for i, q in enumerate(QUESTIONS)
    ]
    return write_jsonl(tmp_path / "test_math-cot_-1_seed0_t0.7_s0_e-1.jsonl", records)


def test_one_generation_per_line_scores_as_one_line_per_question(reference, tmp_path, capsys):
    path = write_long(tmp_path)
    assert detect_format(path) == "long"
    found, said = scored(capsys, tmp_path, path)
    assert found == reference
    assert said.strip() == "48 rows → 6 questions × 8 samples, grouped by id"


@pytest.mark.parametrize("as_glob", [False, True], ids=["folder", "glob"])
def test_one_file_per_seed_scores_as_one_line_per_question(reference, tmp_path, capsys, as_glob):
    folder = write_seeds(tmp_path)
    found, said = scored(capsys, tmp_path, f"{folder}/seed*.jsonl" if as_glob else folder)
    assert found == reference
    assert said.strip() == "8 files → 6 questions × 8 samples, joined by question id"


def test_a_replicated_dataset_scores_as_one_line_per_question(reference, tmp_path, capsys):
    found, said = scored(capsys, tmp_path, write_replicated(tmp_path))
    ids = {f"q{i}": str(i) for i in range(len(QUESTIONS))}  # a replicated question keeps its first record's id
    assert found["metrics"] == reference["metrics"]
    assert found["counts"] == {ids[key]: value for key, value in reference["counts"].items()}
    assert said.strip() == "48 records → 6 questions × 8 samples, grouped by question text and answer"


def test_a_long_file_with_an_id_per_replica_is_a_replicated_dataset(reference, tmp_path, capsys):
    rows = [row | {"id": f"{row['id']}-seed{row['seed']}"} for row in sample_rows()]
    found, said = scored(capsys, tmp_path, write_jsonl(tmp_path / "replicas.jsonl", rows))
    assert found["metrics"] == reference["metrics"]
    assert said.strip() == "48 rows → 6 questions × 8 samples, grouped by question text and answer"


def test_parquet_and_csv_sample_tables_score_as_one_line_per_question(reference, tmp_path, capsys):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(sample_rows()).sample(frac=1, random_state=24)
    frame.to_parquet(tmp_path / "long.parquet", index=False)
    frame.to_csv(tmp_path / "long.csv", index=False)
    for name in ("long.parquet", "long.csv"):
        assert detect_format(tmp_path / name) == "long"
        found, said = scored(capsys, tmp_path, tmp_path / name)
        assert found == reference, name
        assert said.strip() == "48 rows → 6 questions × 8 samples, grouped by id"


def test_a_dataframe_of_sample_rows_scores_as_one_line_per_question(reference, tmp_path):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(sample_rows())
    frame.loc[0, "finish_reason"] = "length"  # a column set on one row only: NaN elsewhere, read as absent
    result = score(frame, k=[int(k) for k in KS], judge="rule", output=tmp_path / "frame.json", progress=False)
    assert metrics(tmp_path / "frame.json") == reference and result.complete


# ---------------------------------------------------------------- refusals: one line naming the file


def refused(capsys, source: str, *options: str) -> str:
    done = run_main(capsys, "score", source, "--k", "2", "--judge", "rule", "--quiet", *options)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_rows_of_one_id_with_different_questions_are_refused(tmp_path, capsys):
    rows = sample_rows()
    rows[9] = rows[9] | {"question": "Question 1, reworded"}
    path = write_jsonl(tmp_path / "long.jsonl", rows)
    line = refused(capsys, str(path))
    assert f"{path} line 10: id 'q1' has question 'Question 1, reworded'" in line
    assert f"{path} line 9 has 'Question 1: 3 + 4 = ?'" in line and "give each question its own id" in line


def test_a_question_missing_from_a_seeds_file_is_refused_unless_allowed(tmp_path, capsys):
    folder = write_seeds(tmp_path, drop=(3, "q4"))
    line = refused(capsys, str(folder))
    assert line.endswith(
        f"{folder}/seed3.jsonl: question 'q4' is missing ({folder}/seed0.jsonl has it); each seed's file must hold "
        "every question once: add it, or give --allow-missing to score it with the samples found"
    )
    found, said = scored(capsys, tmp_path, folder, "--allow-missing", ks=("2", "4"))
    assert found["counts"]["q4"] == (7, 6)  # seed 3's sample of q4 was right: 7 of 8 right, 6 of 7 found
    assert (
        said.strip() == "8 files → 6 questions × 7–8 samples, joined by question id; 1 sample missing (--allow-missing)"
    )


def test_two_samples_of_one_question_in_a_seeds_file_are_refused(tmp_path, capsys):
    folder = write_seeds(tmp_path)
    with (folder / "seed2.jsonl").open("a") as file:
        file.write(json.dumps(sample_rows()[0]) + "\n")
    line = refused(capsys, str(folder))
    assert f"{folder}/seed2.jsonl line 7: a second sample of question 'q0' in this file" in line


def test_replicas_with_different_gold_answers_are_refused_never_merged(tmp_path, capsys):
    path = write_replicated(tmp_path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[13]["gt"] = "8"  # question 1's third replica
    write_jsonl(path, records)
    line = refused(capsys, str(path))
    assert line.startswith(f"gpassk score: error: {path} (qwen-math): records '1' and '13' have the same question text")
    assert "different gold answers ('7', '8')" in line


def test_replicas_are_grouped_only_where_k_needs_them_and_texts_repeat_evenly(tmp_path, capsys):
    """k = 1: a file of one sample per question is scored as it is, whatever its texts (grouping then would change
    the questions of a result that is given without it). k = 2: texts that repeat unevenly are not a replicated
    dataset (two questions that share a text stay two), and the refusal says so."""
    rows = [{"id": "a", "question": "Compute it.", "answer": "1", "predictions": ["1"]},
            {"id": "b", "question": "Compute it.", "answer": "1", "predictions": ["3"]},
            {"id": "c", "question": "Other.", "answer": "1", "predictions": ["1"]},
            {"id": "d", "question": "Other.", "answer": "1", "predictions": ["1"]}]  # fmt: skip
    path = write_jsonl(tmp_path / "gens.jsonl", rows)
    output = tmp_path / "scores.json"
    done = run_main(capsys, "score", str(path), "--k", "1", "--judge", "rule", "--quiet", "--output", str(output))
    assert done.returncode == 0 and done.stderr == ""
    assert [(q["id"], q["c"]) for q in json.loads(output.read_text())["details"]] == [
        ("a", 1),
        ("b", 0),
        ("c", 1),
        ("d", 1),
    ]
    write_jsonl(path, rows[:3])
    line = refused(capsys, str(path))
    assert "3 records, of which 2 distinct question texts (a replicated dataset is grouped only when every text" in line


def test_an_output_or_cache_is_never_read_as_a_seed(tmp_path, capsys):
    """Refused before it is written: the next run would read the results as one more seed's file."""
    folder = write_seeds(tmp_path)
    llm = ("--judge", "llm", "--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m")  # never asked
    for role, written in (("--output", folder / "scores.json"), ("--cache", folder / "verdicts.jsonl")):
        line = refused(capsys, str(folder), role, str(written), *llm)
        assert f"{role} {written} is, or once written would be, read as one seed's file of {folder}" in line
        assert not written.exists()
    glob = f"{folder}/seed*.jsonl"
    line = refused(capsys, glob, "--output", str(folder / "seed-scores.jsonl"))
    assert f"read as one seed's file of {glob}" in line
    (folder / "seed.judge-cache.jsonl").write_text("")  # a verdict cache (the default's name) is never a seed
    (folder / "notes.json").write_text("{}")  # outside the glob
    assert scored(capsys, tmp_path, glob)[1].startswith("8 files → 6 questions")
    line = refused(capsys, str(folder))  # the folder holds a file that is not samples
    assert line.endswith(f"{folder}/notes.json: not a file of samples gpassk score knows; a folder read as one "
                         f"file per seed must hold only sample files (*.jsonl, *.json, *.parquet, *.csv): move it "
                         f"out, or give a glob that picks the seeds' files ('{folder}/seed*.jsonl')")  # fmt: skip


def test_a_malformed_row_is_one_line_naming_the_file_and_row(tmp_path, capsys):
    rows = sample_rows()
    rows[4] = rows[4] | {"id": 1.5}
    path = write_jsonl(tmp_path / "long.jsonl", rows)
    assert refused(capsys, str(path)).endswith(f'{path} line 5: "id" must be a string or an integer, got float 1.5')
    table = tmp_path / "long.csv"
    with table.open("w", newline="") as file:
        csv.writer(file).writerows(
            [["id", "question", "answer", "prediction", "source_verdict"], ["a", "q", "1", "1", "yes"]]
        )
    assert refused(capsys, str(table), "--format", "long").endswith(
        f"{table} row 1: \"source_verdict\" must be true, false or empty, got 'yes'"
    )


def test_a_csv_cell_longer_than_csvs_default_limit_is_read_and_the_limit_set_back(tmp_path, capsys):
    long_generation = "Let us think. " * 20_000 + r"\boxed{7}"  # 280 kB: over csv's 128 KiB default cell
    rows = [row | {"prediction": long_generation} if row["id"] == "q5" else row for row in sample_rows()]
    table = tmp_path / "long.csv"
    with table.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=["id", "question", "answer", "prediction", "language", "seed"])
        writer.writeheader()
        writer.writerows(rows)
    limit = csv.field_size_limit()
    found, _ = scored(capsys, tmp_path, table)
    assert found["counts"]["q5"] == (8, 8) and csv.field_size_limit() == limit


def test_a_file_no_reader_knows_is_named_with_its_fields_in_a_short_line(tmp_path, capsys):
    path = write_jsonl(tmp_path / "vllm.jsonl", [{"qid": 1, "prompt": "p", "output": "o", "gold": "1"}])
    line = refused(capsys, str(path))
    assert (
        "its first record has qid, prompt, output, gold; one generation per line needs id, question, answer, " in line
    )
    assert len(line) < 450


def test_one_sample_per_question_with_k_over_1_says_which_layouts_give_n(tmp_path, capsys):
    rows = [{"id": q["id"], "question": q["question"], "answer": q["answer"], "predictions": q["predictions"][:1]}
            for q in QUESTIONS]  # fmt: skip
    line = refused(capsys, str(write_jsonl(tmp_path / "gens.jsonl", rows)))
    assert "every question has 1 sample, and at least 2 are needed (the largest k); 6 records, of which 6" in line
    assert "one file per seed (a folder or a glob)" in line


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    counts=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=6),
    order=st.randoms(use_true_random=False),
)
def test_every_layout_reads_the_same_samples_as_one_line_per_question(tmp_path_factory, counts, order):
    """Property: any n per question, rows in any order, seeds' files in any order within: the same questions."""
    folder = tmp_path_factory.mktemp("layouts")
    questions = [
        {"id": f"q{i}", "question": f"Q{i}", "answer": str(i), "predictions": [f"{i}/{s}" for s in range(n)]}
        for i, n in enumerate(counts)
    ]
    rows = [
        {"id": q["id"], "question": q["question"], "answer": q["answer"], "prediction": p, "seed": s}
        for q in questions
        for s, p in enumerate(q["predictions"])
    ]
    wide = {q.id: sorted(q.predictions) for q in read_questions(write_jsonl(folder / "wide.jsonl", questions))}
    shuffled = rows[:]
    order.shuffle(shuffled)
    long = read_input(write_jsonl(folder / "long.jsonl", shuffled))
    assert {q.id: sorted(q.predictions) for q in long.questions} == wide
    assert long.layout.read == len(rows) and long.layout.questions == len(questions)
    seeds = folder / "seeds"
    seeds.mkdir()
    for seed in range(max(counts)):
        in_seed = [row for row in shuffled if row["seed"] == seed]
        write_jsonl(seeds / f"seed{seed}.jsonl", in_seed)
    joined = read_input(seeds, allow_missing=True)
    assert {q.id: sorted(q.predictions) for q in joined.questions} == wide
    assert joined.layout.missing == max(counts) * len(counts) - len(rows)


def test_the_tools_own_fields_are_carried_per_sample(tmp_path):
    """finish_reason, source_extracted and source_verdict of a row reach its question's lists, null where absent."""
    rows = [
        {"id": 3, "question": "q", "answer": 7, "prediction": "7", "finish_reason": "stop", "source_verdict": True},
        {"id": 3, "question": "q", "answer": "7", "prediction": "cut mid-", "finish_reason": "length"},
        {"id": 3, "question": "q", "answer": "7", "prediction": "6", "source_extracted": "6", "source_verdict": False},
    ]
    (question,) = read_questions(write_jsonl(tmp_path / "long.jsonl", rows))
    assert (question.id, question.reference, question.predictions) == ("3", "7", ("7", "cut mid-", "6"))
    assert question.finish_reasons == ("stop", "length", None)
    assert question.source_verdicts == (True, None, False) and question.source_extracted == (None, None, "6")


def test_seeds_files_of_one_question_per_line_are_joined_and_one_format_is_required(reference, tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in range(N):  # gpassk lines of one prediction each, as a script that writes one file per seed might
        lines = [q | {"predictions": q["predictions"][seed : seed + 1]} for q in QUESTIONS]
        write_jsonl(folder / f"seed{seed}.jsonl", lines)
    found, said = scored(capsys, tmp_path, folder)
    assert found == reference and said.strip() == "8 files → 6 questions × 8 samples, joined by question id"
    write_jsonl(folder / "seed8.jsonl", sample_rows()[:6])  # a long file among gpassk ones
    assert refused(capsys, str(folder)).endswith(
        f"{folder}/seed8.jsonl: long samples, but {folder}/seed0.jsonl holds gpassk ones; one file per seed means "
        "files of one format: give a glob that picks them (such as 'runs/seed*.jsonl')"
    )


def test_a_folder_of_one_file_is_that_file_and_a_tools_parts_are_not_seeds(capsys):
    """A folder holding one dump (n samples per line) reads as that file; OpenCompass's _0, _1 parts of one
    dataset are read together by its reader, never joined as seeds."""
    folder = DATA / "qwen-math"
    assert read_input(folder).questions == read_input(next(folder.glob("*.jsonl"))).questions
    parts = DATA / "opencompass" / "predictions" / "strong_t0-7"
    assert refused(capsys, f"{parts}/*.json").endswith(
        f"{parts}: its opencompass files are read together, not as one file per seed; give one of them "
        f"({parts}/tiny_llm_0.json)"
    )
    assert refused(capsys, str(parts)).endswith(  # the folder itself is a run's: its reader names the file
        f"{parts}: an OpenCompass run's folder; gpassk score takes one model x dataset's predictions file: "
        f"gpassk score {parts}/tiny_llm_0.json --judge rule --k K"
    )


def test_a_glob_the_shell_expanded_is_one_line_with_the_fix(tmp_path, capsys):
    folder = write_seeds(tmp_path)
    files = [str(folder / f"seed{seed}.jsonl") for seed in range(N)]  # what `gpassk score runs/seed*.jsonl` gets
    done = run_main(capsys, "score", *files, "--k", "2", "--judge", "rule", "--quiet")
    assert done.returncode == 2 and done.stderr.strip() == (
        f"gpassk score: error: gpassk score takes one input, got 8 ({', '.join(files[:3])}, ...); one file per "
        "seed is a folder, or a glob in quotes (the shell leaves it to gpassk): gpassk score 'runs/seed*.jsonl'"
    )
