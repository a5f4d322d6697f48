"""The NeMo-Skills reader on seed files NeMo-Skills wrote (tests/data/nemo-skills, see PROVENANCE.md there).

Golden values are read from the same files with plain ``json`` here (NeMo-Skills' own accuracy is the mean of
its ``symbolic_correct``), never through the reader.
"""

from __future__ import annotations

import json
import os
import pathlib
import resource
import shutil
from fractions import Fraction
from math import comb

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring.readers import detect_format, format_of, input_files, read_questions
from gpassk_opencompass.scoring.readers import nemo_skills as reader
from in_process import run_main

DATA = pathlib.Path(__file__).parent / "data"
RUN = DATA / "nemo-skills" / "math"
SEEDS = [RUN / f"output-rs{seed}.jsonl" for seed in range(3)]


def seed_lines(file: pathlib.Path = SEEDS[0]) -> list[dict]:
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def by_question() -> list[list[dict]]:
    """Line i of every seed file, as NeMo-Skills' summarize_results pairs them (zip of the sorted files)."""
    return [list(lines) for lines in zip(*(seed_lines(file) for file in SEEDS), strict=True)]


def copy_run(tmp_path: pathlib.Path, edit=None, seed: int = 1) -> pathlib.Path:
    """A copy of the real run; ``edit(lines)`` rewrites the lines of seed file ``seed`` (a list of dicts/str)."""
    folder = tmp_path / "math"
    shutil.copytree(RUN, folder)
    if edit is not None:
        lines = edit(seed_lines(SEEDS[seed]))
        text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
        (folder / SEEDS[seed].name).write_text(text, encoding="utf-8")
    return folder


def test_the_real_seed_files_join_into_questions_of_n_3():
    questions = read_questions(RUN)
    expected = by_question()
    assert len(questions) == 20 and len(expected) == 20
    for question, lines in zip(questions, expected, strict=True):
        assert question.id == lines[0]["id"] and question.question == lines[0]["problem"]
        assert question.reference == lines[0]["expected_answer"]
        assert list(question.predictions) == [line["generation"] for line in lines]
        extracted = [line["predicted_answer"] for line in lines]
        assert question.source_extracted == (tuple(extracted) if any(extracted) else None)  # none: no list
        assert list(question.source_verdicts) == [line["symbolic_correct"] for line in lines]
        assert question.finish_reasons is None  # these files record none


def test_one_seed_file_alone_is_n_1():
    questions = read_questions(SEEDS[2])
    assert [list(q.predictions) for q in questions] == [[line["generation"]] for line in seed_lines(SEEDS[2])]


def score(capsys, path: pathlib.Path, output: pathlib.Path, *args: str) -> dict:
    """``gpassk score PATH ARGS --output OUTPUT`` run through the real CLI; the results document."""
    done = run_main(capsys, "score", str(path), *args, "--no-cache", "--quiet", "--output", str(output))
    assert done.returncode == 0, done.stderr
    return json.loads(output.read_text(encoding="utf-8"))


def test_gpassk_score_with_the_source_judge_is_nemo_skills_own_accuracy(tmp_path, capsys):
    """`--judge source` gives NeMo-Skills' pass@1[avg-of-3] symbolic_correct; G-Pass@k_tau from Fraction + comb."""
    result = score(capsys, RUN, tmp_path / "source.json", "--k", "1", "2", "3", "--judge", "source")
    assert result["gpassk"]["judge"] == "source:nemo-skills"
    correct = [sum(line["symbolic_correct"] for line in lines) for lines in by_question()]
    assert result["accuracy (3 runs average)"] == pytest.approx(100 * sum(correct) / 60)  # 44 of 60: 73.33
    for k in (1, 2, 3):
        for tau in (0.0, 0.5, 1.0):
            least = max(1, -(-Fraction(str(tau)) * k // 1))  # ceil(tau k), at least one right
            golden = sum(
                Fraction(sum(comb(c, j) * comb(3 - c, k - j) for j in range(int(least), k + 1)), comb(3, k))
                for c in correct
            ) / len(correct)
            assert result[f"G-Pass@{k}_{tau}"] == pytest.approx(100 * float(golden)), (k, tau)


def test_the_rule_judge_scores_them_and_agree_audits_nemo_skills_checker(tmp_path, capsys):
    source = score(capsys, RUN, tmp_path / "source.json", "--k", "3", "--judge", "source")
    rule = score(capsys, RUN, tmp_path / "rule.json", "--k", "3", "--judge", "rule")
    assert (source["gpassk"]["judge"], rule["gpassk"]["judge"]) == ("source:nemo-skills", "rule")
    done = run_main(capsys, "agree", str(tmp_path / "source.json"), str(tmp_path / "rule.json"))
    assert done.returncode == 0, done.stderr
    assert "A = source:nemo-skills, B = rule" in done.stdout and "all 60 generations of 20 questions" in done.stdout


def test_a_judged_run_is_scored_by_its_judgement(tmp_path):
    """`ns generate --generation_type=math_judge` adds `judgement` beside `symbolic_correct`: the judge's verdict
    (the text after the last "Judgement:", yes or no; no verdict at all is unresolved, where NeMo-Skills counts it
    wrong: tests/test_source_replies.py).
    Its `finish_reason` is the judge's reply's (NeMo-Skills overwrites the generation's): not read."""
    replies = ["Judgement: Yes", "They differ.\n\nJudgement: No", "Judgement: yes, both are 1/2", "I cannot tell."]
    meaning = [True, False, True, None]
    folder = tmp_path / "judged"
    folder.mkdir()
    for file in SEEDS:
        lines = [
            line | {"judgement": replies[i % 4], "finish_reason": "stop"} for i, line in enumerate(seed_lines(file))
        ]
        (folder / file.name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    questions = read_questions(folder)
    assert [q.source_verdicts for q in questions] == [(meaning[i % 4],) * 3 for i in range(20)]
    assert all(q.finish_reasons is None for q in questions)  # the judge's reply's, not the generation's


def test_finish_reason_and_missing_ids(tmp_path):
    """Newer NeMo-Skills records the server's finish_reason; data without ids is numbered by position."""

    def edit(lines: list[dict]) -> list[dict]:
        return [
            {key: value for key, value in line.items() if key != "id"} | {"finish_reason": ["stop", "length"][i % 2]}
            for i, line in enumerate(lines)
        ]

    folder = tmp_path / "run"
    folder.mkdir()
    for file in SEEDS:
        (folder / file.name).write_text("".join(json.dumps(line) + "\n" for line in edit(seed_lines(file))))
    questions = read_questions(folder)
    assert [q.id for q in questions] == [str(i) for i in range(20)]
    assert [q.finish_reasons for q in questions[:2]] == [("stop",) * 3, ("length",) * 3]


def test_seed_files_are_taken_in_seed_order_and_a_results_folder_names_its_benchmarks(tmp_path):
    folder = tmp_path / "seeds"
    folder.mkdir()
    for seed in (10, 2, 0):
        shutil.copy(SEEDS[0], folder / f"output-rs{seed}.jsonl")
    (folder / "metrics.json").write_text("{}")  # beside the seeds, as summarize_results leaves it: not read
    names = [file.name for file in input_files(folder)]
    assert names == ["output-rs0.jsonl", "output-rs2.jsonl", "output-rs10.jsonl"]
    results = tmp_path / "eval-results"
    shutil.copytree(RUN, results / "math")
    shutil.copytree(RUN, results / "aime25")
    for format in ("auto", "nemo-skills"):
        with pytest.raises(
            InputError, match=r"eval-results: no NeMo-Skills output .* benchmark folders aime25, math: give one$"
        ):
            read_questions(results, format)
    for seed in range(3):
        (results / "math" / f"output-rs{seed}.jsonl").unlink()
    with pytest.raises(InputError, match=r"math: no NeMo-Skills output \(output-rs\*\.jsonl or output\.jsonl\) in it$"):
        read_questions(results / "math", "nemo-skills")


def test_the_chunks_of_an_unfinished_run_are_refused(tmp_path, capsys):
    """`++num_chunks`: output-rs0_chunk_0.jsonl ... hold parts of the questions until NeMo-Skills merges them."""
    folder = tmp_path / "unfinished"
    folder.mkdir()
    for seed in range(2):
        for chunk in range(2):
            lines = seed_lines(SEEDS[seed])[chunk * 10 : chunk * 10 + 10]
            (folder / f"output-rs{seed}_chunk_{chunk}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = run_main(capsys, "score", str(folder), "--k", "1", "--allow-missing", "--no-cache", "--quiet")
    assert done.returncode == 2, done.stdout
    assert done.stderr.strip().endswith(
        "output-rs0_chunk_0.jsonl: one chunk of output-rs0.jsonl, not yet merged (NeMo-Skills joins the chunks into "
        "it once every chunk is done, then deletes them): the run is unfinished; score its files when it ends"
    ), done.stderr


def test_seed_files_are_joined_by_id_in_any_order(tmp_path):
    """With the data's ids, a seed file in another order pairs the same samples (NeMo-Skills would mix them)."""
    questions = read_questions(RUN)
    shuffled = copy_run(tmp_path, lambda lines: lines[::-1])
    assert read_questions(shuffled) == questions


def without_ids(lines: list[dict]) -> list[dict]:
    return [{key: value for key, value in line.items() if key != "id"} for line in lines]


def test_without_ids_the_files_are_joined_line_by_line_and_checked(tmp_path):
    """Data without ids: line i of every file is question i, as NeMo-Skills joins them; a line of another
    question at the same place is one line naming both."""
    folder = tmp_path / "run"
    folder.mkdir()
    for file in SEEDS:
        (folder / file.name).write_text("".join(json.dumps(line) + "\n" for line in without_ids(seed_lines(file))))
    assert [(q.id, q.predictions) for q in read_questions(folder)] == [
        (str(i), tuple(line["generation"] for line in lines)) for i, lines in enumerate(by_question())
    ]
    lines = without_ids(seed_lines(SEEDS[1]))
    lines[4], lines[5] = lines[5], lines[4]
    (folder / "output-rs1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError) as raised:
        read_questions(folder)
    message = str(raised.value)
    assert message.startswith(f"{folder / 'output-rs1.jsonl'} line 5: question ") and "\n" not in message
    assert f"but {folder / 'output-rs0.jsonl'} line 5, at the same place, has" in message
    # the ids are places, not the data's: the fix is files of one run in order, not an id per question
    assert message.endswith(
        "these files are not of one run, or their lines are out of order; give the files of one run as the tool wrote them"
    )
    assert "give each question its own id" not in message


MALFORMED = {
    "truncated line": (lambda lines: [*lines[:4], json.dumps(lines[4])[:100], *lines[5:]], "line 5", "not valid JSON"),
    "no generation": (
        lambda lines: [*lines[:4], {k: v for k, v in lines[4].items() if k != "generation"}, *lines[5:]],
        "line 5",
        'missing "generation"',
    ),
    "several gold answers": (
        lambda lines: [*lines[:4], lines[4] | {"expected_answer": ["1", "2"]}, *lines[5:]],
        "line 5",
        '"expected_answer" must be one gold answer',
    ),
    "a verdict as text": (
        lambda lines: [*lines[:4], lines[4] | {"symbolic_correct": "yes"}, *lines[5:]],
        "line 5",
        '"symbolic_correct" must be true, false or null',
    ),
    "another problem under the same id": (
        lambda lines: [*lines[:4], lines[4] | {"problem": "What is 2+2?"}, *lines[5:]],
        "line 5",
        "has question 'What is 2+2?' but ",
    ),
    "another gold answer under the same id": (
        lambda lines: [*lines[:4], lines[4] | {"expected_answer": "17"}, *lines[5:]],
        "line 5",
        "has gold answer '17' but ",
    ),
    "a line of another run": (lambda lines: [*lines, lines[0]], "line 21", "a second sample of question"),
    "a file cut short": (lambda lines: lines[:19], "", "output-rs0.jsonl has it); each seed's file must hold every"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_seed_files_are_one_line_naming_file_and_line(tmp_path, case, capsys):
    edit, line, expected = MALFORMED[case]
    folder = copy_run(tmp_path, edit)
    done = run_main(capsys, "score", str(folder), "--k", "1", "--judge", "source", "--no-cache", "--quiet")
    message = done.stderr.strip()
    assert done.returncode == 2 and "\n" not in message, message
    assert f"{folder / 'output-rs1.jsonl'}{' ' + line if line else ''}: " in message and expected in message, message


def test_a_seed_file_cut_short_is_scored_with_allow_missing(tmp_path, capsys):
    folder = copy_run(tmp_path, lambda lines: lines[:19])
    output = tmp_path / "scores.json"
    done = run_main(capsys, "score", str(folder), "--k", "1", "--judge", "source", "--no-cache", "--allow-missing",
                    "--output", str(output))  # fmt: skip
    assert done.returncode == 0, done.stderr
    correct = [sum(line["symbolic_correct"] for line in lines) for lines in by_question()]
    last = by_question()[-1]
    correct[-1] -= last[1]["symbolic_correct"]  # the one sample the cut file lacks
    ratios = [Fraction(c, 3) for c in correct[:-1]] + [Fraction(correct[-1], 2)]
    assert json.loads(output.read_text())["accuracy"] == pytest.approx(100 * float(sum(ratios) / 20))
    assert "3 files → 20 questions × 2–3 samples, joined by question id; 1 sample missing" in done.stderr


def test_detection_takes_nemo_skills_files_and_nothing_else(tmp_path):
    assert format_of(RUN) == detect_format(SEEDS[1]) == "nemo-skills"
    assert reader.detect(RUN.parent)  # a results folder of benchmark folders: read() names them
    greedy = tmp_path / "greedy"
    greedy.mkdir()
    shutil.copy(SEEDS[0], greedy / "output.jsonl")
    assert format_of(greedy) == "nemo-skills" and len(read_questions(greedy)[0].predictions) == 1
    others = [path for path in DATA.rglob("*") if "nemo-skills" not in path.parts]
    gens = tmp_path / "gens.jsonl"
    gens.write_text(json.dumps({"id": "a", "question": "q", "answer": "1", "predictions": ["1"]}) + "\n")
    binary = tmp_path / "output-rs0.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    for path in [*others, gens, binary, tmp_path / "missing.jsonl", DATA, RUN]:
        assert reader.detect(path) is False, path


def test_many_seeds_are_read_one_file_at_a_time(tmp_path):
    """200 seed files under a limit of 40 more open files: read one after the other, never all open at once."""
    folder = tmp_path / "many"
    folder.mkdir()
    lines = "".join(json.dumps(line) + "\n" for line in seed_lines()[:2])
    for seed in range(200):
        (folder / f"output-rs{seed}.jsonl").write_text(lines)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    open_now = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + 40, hard))
    try:
        questions = read_questions(folder)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert [len(q.predictions) for q in questions] == [200, 200]
