"""``analysis.agreement``: two judges on the same generations, from results files (golden values: scikit-learn,
the exact oracle, and counting by hand)."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from analysis_docs import write
from exact import exact_mean
from gpassk_opencompass.analysis.agreement import agree, agree_results
from gpassk_opencompass.analysis.inputs import load_with_details
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items
from gpassk_opencompass.render import reports

T, F, N = True, False, None


def random_verdicts(rng, questions, n, unresolved_share=0.0):
    values = rng.random((questions, n)) < rng.random((questions, 1))
    matrix = [[bool(v) for v in row] for row in values]
    for i in range(questions):
        for g in range(n):
            if rng.random() < unresolved_share:
                matrix[i][g] = None
    return matrix


def flip(rng, matrix, share):
    return [[(not v if v is not None and rng.random() < share else v) for v in row] for row in matrix]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_table_kappa_and_disagreements_match_an_independent_count(tmp_path, seed):
    rng = np.random.default_rng(seed)
    a = random_verdicts(rng, 12, 6, unresolved_share=0.05)
    b = flip(rng, a, 0.2)
    b[3][2] = None
    path_a, path_b = write(tmp_path / "a.json", a), write(tmp_path / "b.json", b, judge="llm", judge_model="J")
    report = agree_results(load_with_details(path_a), load_with_details(path_b))
    both = [(x, y) for row_a, row_b in zip(a, b) for x, y in zip(row_a, row_b) if x is not None and y is not None]
    table = (
        (sum(x and y for x, y in both), sum(x and not y for x, y in both)),
        (sum(y and not x for x, y in both), sum(not x and not y for x, y in both)),
    )
    assert report.agreement.table == table
    assert report.agreement.kappa == pytest.approx(
        cohen_kappa_score([x for x, _ in both], [y for _, y in both]), abs=1e-12
    )
    assert report.judge_a.unresolved == sum(v is None for row in a for v in row)
    assert report.judge_b.unresolved == sum(v is None for row in b for v in row)
    expected = [
        (f"q{i}", g)
        for i in range(12)
        for g in range(6)
        if a[i][g] is not None and b[i][g] is not None and a[i][g] != b[i][g]
    ]
    expected += [(f"q{i}", g) for i in range(12) for g in range(6) if (a[i][g] is None) != (b[i][g] is None)]
    assert [(d.question, d.generation) for d in report.disagreements] == expected
    first = report.disagreements[0]
    i, g = int(first.question[1:]), first.generation
    assert (first.correct_a, first.correct_b, first.extracted_a) == (a[i][g], b[i][g], f"a{i}.{g}")
    assert first.reason_b == f"said {b[i][g]}"
    assert not report.complete and report.shifts == () and "withheld" in report.shifts_withheld


def test_metric_shift_is_every_metric_recomputed_from_each_judges_verdicts(tmp_path):
    a = [[T, T, F, F], [T, F, F, F], [T, T, T, T], [F, F, F, F]]
    b = [[T, T, T, F], [T, F, T, F], [T, T, T, T], [F, F, F, T]]
    report = agree_results(
        load_with_details(write(tmp_path / "a.json", a, ks=(2, 4))),
        load_with_details(write(tmp_path / "b.json", b, ks=(2, 4), judge="llm")),
    )
    shifts = {s.metric: s for s in report.shifts}
    counts_a, counts_b = [2, 1, 4, 0], [3, 2, 4, 1]
    assert shifts["accuracy (4 runs average)"].under_a == pytest.approx(100 * 7 / 16)
    for k in (2, 4):
        for tau in ("0.5", "1.0"):
            shift = shifts[f"G-Pass@{k}_{tau}"]
            assert shift.under_a == pytest.approx(exact_mean(counts_a, 4, k, tau), abs=1e-9)
            assert shift.under_b == pytest.approx(exact_mean(counts_b, 4, k, tau), abs=1e-9)
            assert shift.difference == pytest.approx(shift.under_b - shift.under_a)
        assert shifts[f"mG-Pass@{k}"].under_b == pytest.approx(exact_mean(counts_b, 4, k), abs=1e-9)
    assert report.complete and report.shifts_withheld is None


def test_questions_are_aligned_by_id_whatever_their_order(tmp_path):
    a = [[T, F], [F, F], [T, T]]
    answers = [["x0", "x1"], ["y0", "y1"], ["z0", "z1"]]  # the same generations, reordered
    report = agree_results(
        load_with_details(write(tmp_path / "a.json", a, ids=["x", "y", "z"], extracted=answers)),
        load_with_details(
            write(
                tmp_path / "b.json",
                [a[2], a[0], a[1]],
                ids=["z", "x", "y"],
                extracted=[answers[2], answers[0], answers[1]],
            )
        ),
    )
    assert report.agreement.agreement == 1.0 and report.disagreements == ()


@pytest.mark.parametrize(
    "other, options, message",
    [
        ([[T, F], [F, F]], dict(ids=["q0", "q9"]), "do not hold the same questions: 1 only in"),
        ([[T, F, T], [F, F, F]], {}, "question 'q0' has n=2 in"),
    ],
)
def test_files_of_different_questions_or_n_are_refused_in_one_line(tmp_path, other, options, message):
    path_a = write(tmp_path / "a.json", [[T, F], [F, F]])
    path_b = write(tmp_path / "b.json", other, **options)
    with pytest.raises(InputError) as info:
        agree(path_a, path_b)
    assert message in str(info.value) and "\n" not in str(info.value)


# --------------------------------------------------------------------------- one cascade file

CASCADE = dict(
    matrix=[[T, T, T, F], [T, F, T, N], [T, T, T, T]],
    sources=[["rule", "rule", "llm", "llm"], ["rule", "llm", "cache", "llm"], ["rule"] * 4],
    rule_correct=[[N, N, F, F], [N, F, F, F], [N] * 4],
)


def test_one_cascade_file_compares_its_rule_judge_with_its_model_on_the_items_sent_on(tmp_path):
    path = write(
        tmp_path / "c.json",
        CASCADE["matrix"],
        judge="cascade",
        judge_model="J",
        sources=CASCADE["sources"],
        rule_correct=CASCADE["rule_correct"],
    )
    report = agree_results(load_with_details(path))
    # the 5 items the rule judge did not confirm: rule says wrong on all; the model: T, F, F?, T, N
    assert report.mode == "cascade" and report.items == 5
    assert report.agreement.table == ((0, 0), (2, 2)) and report.judge_b.unresolved == 1
    assert "5 of 12 generations the rule judge did not confirm" in report.selection
    assert [(d.question, d.generation, d.correct_a, d.correct_b) for d in report.disagreements] == [
        ("q0", 2, F, T),
        ("q1", 2, F, T),
        ("q1", 3, F, N),
    ]
    assert report.shifts == ()  # the cascade left one unresolved
    text = reports.to_markdown(report)
    assert "not informative here" in text and "the model accepted 2 of the 4" in text


def test_cascade_metric_shift_is_rule_only_against_cascade(tmp_path):
    matrix = [[T, T, T, F], [T, F, T, F], [T, T, T, T]]
    path = write(
        tmp_path / "c.json",
        matrix,
        judge="cascade",
        judge_model="J",
        sources=CASCADE["sources"],
        rule_correct=CASCADE["rule_correct"],
        ks=(2,),
        thresholds=(1.0,),
    )
    shifts = {s.metric: s for s in agree_results(load_with_details(path)).shifts}
    assert shifts["G-Pass@2_1.0"].under_a == pytest.approx(exact_mean([2, 1, 4], 4, 2, "1.0"), abs=1e-9)
    assert shifts["G-Pass@2_1.0"].under_b == pytest.approx(exact_mean([3, 2, 4], 4, 2, "1.0"), abs=1e-9)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(judge="llm"), "was judged by 'llm', not the cascade"),
        (dict(judge="cascade", sources=CASCADE["sources"]), "none of its 5 model verdicts records the rule judge"),
    ],
)
def test_one_file_that_cannot_be_audited_is_refused(tmp_path, options, message):
    path = write(tmp_path / "c.json", CASCADE["matrix"], **options)
    with pytest.raises(InputError, match=message):
        agree(path)


def test_the_cascade_records_the_rule_verdict_on_every_model_verdict(loopback_openai, tmp_path):
    server = loopback_openai(lambda body: r"\boxed{yes}")  # a lenient judge
    items = [
        JudgeItem("q1", r"\frac{1}{2}", r"\boxed{0.5}"),  # rule: equivalent, model not asked
        JudgeItem("q2", "B", r"\boxed{C}"),  # rule: wrong letter -> model says yes
        JudgeItem("q3", "7", "no boxed answer at all"),
    ]  # rule: no answer -> model
    settings = JudgeSettings(
        kind="cascade", urls=(server.url,), model="loopback-model", cache_path=str(tmp_path / "cache.jsonl")
    )
    for expected_source in ("llm", "cache"):  # the second run reads the model verdicts back from the cache
        verdicts = judge_items(items, settings, progress=False).verdicts
        assert [(v.source, v.correct, v.rule_correct) for v in verdicts] == [
            ("rule", True, None),
            (expected_source, True, False),
            (expected_source, True, False),
        ]
    llm_only = judge_items(
        items, JudgeSettings(kind="llm", urls=(server.url,), model="loopback-model"), progress=False
    ).verdicts
    assert [v.rule_correct for v in llm_only] == [None, None, None]


# --------------------------------------------------------------------------- outputs


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_page_is_self_contained_and_escapes_model_text(tmp_path):
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    a = [[T, F], [F, F]]
    b = [[T, T], [F, F]]
    path_a = write(tmp_path / "a.json", a, extracted=[["1", hostile], ["2", "3"]])
    path_b = write(
        tmp_path / "b.json",
        b,
        judge="llm",
        judge_model="J",
        reasons=[["ok", hostile], ["no", "no"]],
        extracted=[["1", hostile], ["2", "3"]],
    )
    answer = agree(
        path_a,
        path_b,
        html_path=tmp_path / "agree.html",
        json_path=tmp_path / "agree.json",
        markdown_path=tmp_path / "agree.md",
    )
    page = (tmp_path / "agree.html").read_text()
    parsed = _Text()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags and "link" not in parsed.tags
    assert hostile in "".join(parsed.text)  # shown as text
    assert "cdn" not in page.lower() and "http" not in page.replace("http-equiv", "")
    data = json.loads((tmp_path / "agree.json").read_text())
    assert data["schema"] == "gpassk-agree/1" and data["agreement"]["table"] == [[1, 0], [1, 2]]
    assert data["disagreements"][0]["extracted_a"] == hostile and data["complete"] is True
    assert answer.complete and "| q0 | 1 | wrong | correct |" in answer.text
    assert (tmp_path / "agree.md").read_text().startswith("# Judge agreement")


def test_an_output_over_an_input_is_refused_before_anything_is_written(tmp_path):
    path_a = write(tmp_path / "a.json", [[T, F]])
    path_b = write(tmp_path / "b.json", [[T, T]])
    before = path_b.read_text()
    with pytest.raises(InputError, match="--json is the same file as RESULTS_B"):
        agree(path_a, path_b, json_path=path_b)
    assert path_b.read_text() == before
