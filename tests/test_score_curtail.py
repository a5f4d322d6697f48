"""``gpassk score --curtail N1:N[:RULE]`` through the real command: the oracle's values (path counting in
integers, tests/exact.py) on every layout that keeps a draw order, the design recorded and said, each refusal
as one line before any number is written, unresolved stage-1 verdicts, and ``--next-round`` for a user's loop.

Replicated datasets (Qwen2.5-Math's one record per sample) cannot hold a curtailed run: they are grouped only
when every question occurs equally often, which a stop breaks.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpassk_opencompass
from exact import exact_curtailed_tail, exact_m
from in_process import run_main
from scoring_fixtures import write_jsonl

RIGHT = [r"Adding, we get \boxed{7}.", "So the answer is 7.", r"\boxed{\frac{14}{2}}"]
WRONG = [r"\boxed{8}", "The answer is 6.", r"\boxed{7.5}", "I cannot decide."]
N1, N = 4, 12
#: Per question its verdicts in draw order (1 right, 0 wrong): stopped at 4 when the first 4 are all wrong.
DRAWS = {
    "q0": [0, 0, 0, 0],
    "q1": [0, 0, 0, 0],
    "q2": [1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0],
    "q3": [1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1],
    "q4": [0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1],
    "q5": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
}
KS = (2, 4)
TAUS = ("0.0", "0.25", "0.5", "0.75", "1.0")


def question(name: str, draws: list[int]) -> dict:
    texts = [RIGHT[i % 3] if right else WRONG[i % 4] for i, right in enumerate(draws)]
    return {"id": name, "question": f"{name}: 3 + 4 = ?", "answer": "7", "predictions": texts}


QUESTIONS = [question(name, draws) for name, draws in DRAWS.items()]


def expected(draws=DRAWS, n1=N1, n=N, stop=frozenset({0})) -> dict[str, float]:
    """Every metric key the results hold, from the exact path count (no code under test)."""
    outcomes = [(len(d), sum(d)) for d in draws.values()]

    def mean(m: int, k: int) -> Fraction:
        return sum((exact_curtailed_tail(n1, n, stop, N_, C, k, m) for N_, C in outcomes), Fraction(0)) / len(outcomes)

    values = {f"accuracy ({n} runs average)": mean(1, 1)}
    for k in KS:
        values.update((f"G-Pass@{k}_{float(Fraction(tau))}", mean(exact_m(k, tau), k)) for tau in TAUS)
        values[f"mG-Pass@{k}"] = Fraction(2, k) * sum((mean(i, k) for i in range((k + 1) // 2 + 1, k + 1)), Fraction(0))
    return {key: float(100 * value) for key, value in values.items()}


def score(capsys, tmp_path: Path, source, *extra: str, code: int = 0):
    output = tmp_path / "scores.json"
    output.unlink(missing_ok=True)
    done = run_main(
        capsys, "score", str(source), "--k", *map(str, KS), "--judge", "rule", "--quiet", "--no-cache",
        "--output", str(output), *extra,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    return (json.loads(output.read_text()) if output.exists() else None), done


def check_document(document: dict, draws=DRAWS, **design) -> None:
    for key, value in expected(draws, **design).items():
        assert document[key] == pytest.approx(value, abs=1e-9), key
    assert {q["id"]: (q["n"], q["c"]) for q in document["details"]} == {k: (len(d), sum(d)) for k, d in draws.items()}


def test_gpassk_jsonl_gives_the_oracle_and_records_the_design(tmp_path, capsys):
    document, done = score(capsys, tmp_path, write_jsonl(tmp_path / "gens.jsonl", QUESTIONS), "--curtail", "4:12")
    check_document(document)
    assert document["gpassk"]["curtail"] == {
        "n1": 4, "n": 12, "rule": "all-wrong", "stopped": 2, "generations": 56, "fixed_n_generations": 72,
    }  # fmt: skip
    assert document["gpassk"]["schema_version"] == 5 and document["gpassk"]["n"] is None
    assert "curtailed at 4 of 12 (all-wrong): 2 questions stopped, 16 of 72 generations not drawn (22 %)" in done.stdout
    # what the plug-in (the fixed-n formula on the same counts) would have said differs: accuracy is not c/N
    plug_in = 100 * sum(sum(d) / len(d) for d in DRAWS.values()) / len(DRAWS)
    assert abs(document["accuracy (12 runs average)"] - plug_in) > 1


def test_the_results_file_is_believed_and_reproduced_by_its_reader(tmp_path, capsys):
    from gpassk_opencompass.scoring.results_io import load_results

    document, _ = score(capsys, tmp_path, write_jsonl(tmp_path / "gens.jsonl", QUESTIONS), "--curtail", "4:12")
    record = load_results(tmp_path / "scores.json")
    assert record.problems == () and record.design == gpassk_opencompass.curtailed.Curtailed(4, 12)
    document["G-Pass@4_1.0"] += 3  # an edit the design's estimator does not reproduce
    (tmp_path / "edited.json").write_text(json.dumps(document))
    assert any("G-Pass@4_1.0" in problem for problem in load_results(tmp_path / "edited.json").problems)


def sample_rows() -> list[dict]:
    rows = [
        {"id": q["id"], "question": q["question"], "answer": q["answer"], "prediction": text, "seed": seed}
        for q in QUESTIONS
        for seed, text in enumerate(q["predictions"])
    ]
    return sorted(rows, key=lambda row: (row["seed"], row["id"]))  # questions interleaved, each in draw order


def test_one_generation_per_line_in_file_order(tmp_path, capsys):
    document, _ = score(capsys, tmp_path, write_jsonl(tmp_path / "long.jsonl", sample_rows()), "--curtail", "4:12")
    check_document(document)


def test_one_file_per_seed_in_seed_order_where_stopped_questions_are_absent_from_later_seeds(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in range(N):
        write_jsonl(folder / f"seed{seed:02d}.jsonl", [row for row in sample_rows() if row["seed"] == seed])
    document, _ = score(capsys, tmp_path, folder, "--curtail", "4:12")
    check_document(document)


def test_parquet_csv_and_a_dataframe_from_python(tmp_path, capsys):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(sample_rows())
    frame.to_parquet(tmp_path / "long.parquet", index=False)
    frame.to_csv(tmp_path / "long.csv", index=False)
    for name in ("long.parquet", "long.csv"):
        document, _ = score(capsys, tmp_path, tmp_path / name, "--curtail", "4:12")
        check_document(document)
    results = gpassk_opencompass.score(frame, k=list(KS), judge="rule", curtail="4:12", cache=False, progress=False)
    for key, value in expected().items():
        assert results.metrics[key] == pytest.approx(value, abs=1e-9), key


def test_all_wrong_or_right_stops_all_right_stage_ones_too(tmp_path, capsys):
    draws = dict(DRAWS, q3=[1, 1, 1, 1])  # all right in stage 1: stopped
    lines = [question(name, d) for name, d in draws.items()]
    document, done = score(
        capsys, tmp_path, write_jsonl(tmp_path / "g.jsonl", lines), "--curtail", "4:12:all-wrong-or-right"
    )
    check_document(document, draws, stop=frozenset({0, 4}))
    assert "(all-wrong-or-right): 3 questions stopped, 24 of 72 generations not drawn (33 %)" in done.stdout


@pytest.mark.parametrize(
    ("change", "option", "message"),
    [
        (
            {"q2": [1, 0, 0, 0, 0, 1, 0]},
            "4:12",
            "question 'q2' has 7 generations; curtailed at 4 of 12 each has 4 (stopped) or 12",
        ),
        (
            {"q0": [0, 0, 1, 0]},
            "4:12",
            "question 'q0' stopped at 4 generations with 1 correct, which does not meet all-wrong: its generations are not in draw order, or the stop was decided by another judge than rule; score with the judge that decided the stop",
        ),
        (
            {"q5": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]},
            "4:12",
            "question 'q5' drew on to 12 generations, but its first 4 verdicts meet all-wrong (0 correct)",
        ),
        ({}, "8:12", "question 'q0' has 4 generations; curtailed at 8 of 12"),
        ({}, "4:12:all-right", "unknown curtailment rule 'all-right'; did you mean"),
        ({}, "4/12", "--curtail must be N1:N or N1:N:RULE"),
    ],
)
def test_what_the_design_cannot_have_produced_is_one_line_and_nothing_is_written(
    tmp_path, capsys, change, option, message
):
    lines = [question(name, change.get(name, d)) for name, d in DRAWS.items()]
    document, done = score(capsys, tmp_path, write_jsonl(tmp_path / "g.jsonl", lines), "--curtail", option, code=2)
    assert document is None and done.stdout == ""
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_k_above_n1_is_refused_before_reading(tmp_path, capsys):
    done = run_main(capsys, "score", str(tmp_path / "absent.jsonl"), "--k", "8", "--curtail", "4:12", "--no-cache")
    assert done.returncode == 2
    assert "--k 8 is above n1=4 of --curtail 4:12:all-wrong: every --k must be at most" in done.stderr


def test_an_unresolved_stage_one_verdict_leaves_the_question_unresolved(tmp_path):
    def judge(prediction, reference):
        if prediction == WRONG[3]:  # the 4th generation of q0, q1 and q2 (and later ones): unresolved
            raise ValueError("undecidable")
        return "7" in prediction and "7.5" not in prediction

    options = dict(k=list(KS), judge=judge, curtail="4:12", cache=False, progress=False, allow_unresolved=True)
    results = gpassk_opencompass.score(QUESTIONS, **options)
    assert not results.complete and results.unresolved == 8  # counted by hand: i % 4 == 3 among the wrong ones
    for key, (low, high) in results.bounds.items():
        assert low <= results.metrics[key] <= high, key
    # q0 and q1 stopped at 4 with 3 wrong and 1 unresolved: only "wrong" is admissible, so their range is a point
    stopped = gpassk_opencompass.score(QUESTIONS[:2], **options)
    assert stopped.unresolved == 2 and all(low == high == 0 for low, high in stopped.bounds.values())


def test_next_round_lists_what_is_left_to_draw_then_scores_when_nothing_is(tmp_path, capsys):
    stage1 = [question(name, d[:N1]) for name, d in DRAWS.items()]
    source, todo = write_jsonl(tmp_path / "round1.jsonl", stage1), tmp_path / "todo.jsonl"
    document, done = score(capsys, tmp_path, source, "--curtail", "4:12", "--next-round", str(todo), code=3)
    assert document is None
    assert [json.loads(line) for line in todo.read_text().splitlines()] == [
        {"id": name, "draw": 8} for name in ("q2", "q3", "q4", "q5")
    ]
    assert "4 question(s) go on, 32 generations to draw (8 each), listed in" in done.stderr
    source = write_jsonl(tmp_path / "both.jsonl", QUESTIONS)
    document, done = score(capsys, tmp_path, source, "--curtail", "4:12", "--next-round", str(todo))
    check_document(document)
    assert todo.read_text() == ""


def test_next_round_without_curtail_is_one_line(tmp_path, capsys):
    source = write_jsonl(tmp_path / "g.jsonl", QUESTIONS)
    done = run_main(capsys, "score", str(source), "--k", "2", "--next-round", str(tmp_path / "t.jsonl"), "--no-cache")
    assert done.returncode == 2 and "--next-round lists the questions a curtailed run still draws" in done.stderr


def test_compare_of_two_curtailed_runs_uses_each_runs_estimator(tmp_path, capsys):
    """Each run's mean in the paired comparison is what its own results file reports (the design's estimate), and
    a curtailed run compares with a fixed-n run of the same n: both estimate the same per-question values."""
    other = dict(DRAWS, q1=[1] * N, q2=[0] * N1, q5=[0] * N1)  # B: q2 and q5 stopped, q1 always right
    runs = {}
    for name, draws in (("a", DRAWS), ("b", other)):
        lines = [question(q, d) for q, d in draws.items()]
        score(capsys, tmp_path, write_jsonl(tmp_path / f"{name}.jsonl", lines), "--curtail", "4:12")
        runs[name] = (tmp_path / "scores.json").rename(tmp_path / f"{name}.json")
    fixed = [question(q, d + [0] * (N - len(d))) for q, d in DRAWS.items()]  # a fixed n of 12 (not the same draws)
    score(capsys, tmp_path, write_jsonl(tmp_path / "fixed.jsonl", fixed))
    runs["fixed"] = (tmp_path / "scores.json").rename(tmp_path / "fixed.json")
    for first, second in (("a", "b"), ("a", "fixed")):
        report = tmp_path / f"{first}-{second}.json"
        done = run_main(capsys, "compare", str(runs[first]), str(runs[second]), "--json", str(report))
        assert done.returncode == 0, done.stderr
        rows = {row["metric"]: row for row in json.loads(report.read_text())["differences"]}
        documents = [json.loads(runs[name].read_text()) for name in (first, second)]
        for key in expected():
            assert rows[key]["mean_a"] == pytest.approx(documents[0][key], abs=1e-9), key
            assert rows[key]["mean_b"] == pytest.approx(documents[1][key], abs=1e-9), key
    check_document(json.loads(runs["b"].read_text()), other)  # and B's own values are the oracle's


def test_bayes_intervals_take_the_resolved_verdicts_of_a_curtailed_run(tmp_path):
    """An all-right stage 1 with one unresolved verdict (all-wrong-or-right): the metrics take the one count the
    design allows (4 of 4), the Beta posterior only the resolved ones (3 of 3), and nothing breaks."""

    def judge(prediction, reference):
        if prediction == RIGHT[2]:
            raise ValueError("undecidable")
        return "7" in prediction and "7.5" not in prediction

    lines = [question("q0", [1, 1, 1, 1]), question("q1", [0, 0, 0, 0])]
    results = gpassk_opencompass.score(
        lines, k=[2], judge=judge, curtail="4:12:all-wrong-or-right", interval="both", cache=False,
        progress=False, allow_unresolved=True,
    )  # fmt: skip
    assert results.unresolved == 1 and results.metrics["G-Pass@2_1.0"] == pytest.approx(50.0)
    assert set(results.bayes) >= {"G-Pass@2_1.0"}


def test_rank_intervals_of_curtailed_runs_score_each_with_its_design(tmp_path, capsys):
    """The leaderboard's ranks of curtailed runs: each row's score is what its own results file reports."""
    from gpassk_opencompass.scoring.results_io import load_results
    from gpassk_opencompass.uncertainty.ranks import adjacent_significance, rank_intervals

    other = dict(DRAWS, q1=[1] * N, q2=[0] * N1, q5=[0] * N1)
    records = []
    for name, draws in (("a", DRAWS), ("b", other)):
        score(
            capsys,
            tmp_path,
            write_jsonl(tmp_path / f"{name}.jsonl", [question(q, d) for q, d in draws.items()]),
            "--curtail",
            "4:12",
        )
        records.append(load_results((tmp_path / "scores.json").rename(tmp_path / f"{name}.json")))
    counts = [record.counts()[0] for record in records]
    drawn = [record.counts()[1] for record in records]
    designs = [record.design for record in records]
    for metric in ("G-Pass@4_0.5", "mG-Pass@4", f"accuracy ({N} runs average)"):
        ranks = rank_intervals(counts, drawn, metric, designs=designs, seed=1)
        assert [model.score for model in ranks.models] == pytest.approx([r.metrics[metric] for r in records], abs=1e-9)
        assert len(adjacent_significance(counts, drawn, metric, designs=designs)) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([True, False, None]), max_size=9), min_size=1, max_size=6), st.integers(0, 10))
def test_first_counts_are_a_plain_count_of_each_questions_first_verdicts(questions, draws):
    from gpassk_opencompass.judges.types import Verdict
    from gpassk_opencompass.scoring.details import CompactDetails

    verdicts = [Verdict(True, "1", "ok", "rule"), Verdict(False, "2", "no", "rule"), Verdict(None, None, "?", "rule")]
    slots = [[True, False, None].index(v) for q in questions for v in q]
    offsets = np.cumsum([0] + [len(q) for q in questions]).tolist()
    details = CompactDetails([f"q{i}" for i in range(len(questions))], {}, verdicts, slots, offsets)
    right, unsure = details.first_counts(draws)
    assert right.tolist() == [q[:draws].count(True) for q in questions]
    assert unsure.tolist() == [q[:draws].count(None) for q in questions]


def test_plan_from_a_curtailed_pilot_says_its_design(tmp_path, capsys):
    score(capsys, tmp_path, write_jsonl(tmp_path / "gens.jsonl", QUESTIONS), "--curtail", "4:12")
    done = run_main(capsys, "plan", str(tmp_path / "scores.json"), "--k", "4", "--n", "12", "24")
    assert done.returncode == 0, done.stderr
    assert "Pilot: 6 questions, n = 4 or 12 (curtailed, all-wrong)." in done.stdout
