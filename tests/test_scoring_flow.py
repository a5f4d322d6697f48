"""The scoring flow's own rules, each in one place: one parse of a question, validation by checking (never by
computing), one pass of deduplication, ``score()``'s keywords, no circle between the flow and the readers."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import gpassk_opencompass
from gpassk_opencompass import metrics
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.scoring import readers
from gpassk_opencompass.scoring.flow import distinct_generations, score
from gpassk_opencompass.scoring.questions import Question
from gpassk_opencompass.scoring.readers import read_questions
from gpassk_opencompass.scoring.request import ScoringRequest, check_questions
from gpassk_opencompass.uncertainty import bayes

DATA = Path(__file__).parent / "data"
GOOD = {"id": "a", "question": "q", "answer": "1", "predictions": ["1", "2", "3", "4"]}

# ------------------------------------------------------------ one parse of a question


@pytest.mark.parametrize(
    "record, message",
    [
        ({"id": "b", "question": "q", "answer": "1"}, "questions line 2: missing 'predictions'"),
        ({**GOOD, "id": "b", "prediction": []}, "questions line 2: unknown field(s) 'prediction'"),
        (
            {**GOOD, "id": "b", "answer": 42},
            'questions line 2: "answer" must be a string, got int 42 (write it as "42")',
        ),
        ({**GOOD, "id": "b", "predictions": ["1", None, "2", "3"]}, '"predictions"[1] must be a string, got NoneType'),
        ({**GOOD, "id": "b", "predictions": ["1", "2"]}, "question 'b' has 2 prediction(s); at least 4 are needed"),
        ({**GOOD, "id": "b", "language": "fr"}, 'questions line 2: "language" must be one of en, cn'),
        (dict(GOOD), "questions line 2: id 'a' repeats line 1"),
        ({**GOOD, "id": "b", "predictions": {"1", "2", "3", "4"}}, '"predictions" must be a list of strings, got set'),
        ({**GOOD, "id": "b", "source_verdicts": [True]}, '"source_verdicts" has 1 value(s) for 4 prediction(s)'),
    ],
)
def test_questions_in_memory_are_checked_as_the_lines_of_a_file_are(record, message):
    """The same one-line errors, naming the record; a value JSON cannot hold (a set) is one too, not a TypeError."""
    with pytest.raises(InputError) as error:
        score([GOOD, record], k=4, judge="rule", progress=False)
    assert message in str(error.value)


def test_a_tuple_of_predictions_in_memory_is_a_list_of_them():
    results = score([{**GOOD, "predictions": ("1", "1", "2", "1")}], k=2, judge="rule", progress=False)
    assert [question.c for question in results.details] == [3]


def test_a_readers_records_are_checked_as_they_are_never_written_as_json_again(monkeypatch):
    def no_dumps(*args, **kwargs):
        raise AssertionError("a record was serialised to be parsed again")

    monkeypatch.setattr(json, "dumps", no_dumps)
    questions = read_questions(DATA / "qwen-math" / "test_qwen25-math-cot_-1_seed0_t0.7_s0_e-1.jsonl")
    assert questions and all(isinstance(question, Question) for question in questions)


# ------------------------------------------------------------ validation by checking, never by computing


def test_a_request_is_checked_against_the_questions_without_computing_a_metric(monkeypatch):
    def computed(*args, **kwargs):
        raise AssertionError("a metric was computed to validate the request")

    monkeypatch.setattr(metrics, "per_question_values", computed)
    monkeypatch.setattr(bayes, "posterior_moments", computed)
    request = ScoringRequest(ks=(2, 4), thresholds=(0.5, 1.0), interval="both", subsets=("split",))
    check_questions([Question("a", "q", "1", ("1",) * 4, labels={"split": "x"})], request)
    with pytest.raises(InputError, match=r"^question 'a' has 3 prediction\(s\); at least 4 are needed"):
        check_questions([Question("a", "q", "1", ("1",) * 3, labels={"split": "x"})], request)
    with pytest.raises(InputError, match=r"has 100,001 predictions, over the limit of 100,000 \(MAX_N"):
        check_questions([Question("a", "q", "1", ("1",) * 100_001, labels={"split": "x"})], request)


@pytest.mark.parametrize(
    "settings, message",
    [
        (dict(seed=-1), "seed = -1: input should be greater than or equal to 0"),  # numpy's seed: non-negative
        (dict(ci=float("nan")), "ci must be in (0, 1), got nan"),
        (dict(identical_warning=1.5), "identical_warning = 1.5: input should be less than or equal to 1"),
        (dict(interval="credible"), "interval = 'credible': input should be 'bootstrap', 'bayes' or 'both'"),
        (dict(benchmark="AIME2052"), "unknown benchmark 'AIME2052'; did you mean 'AIME2026'?"),
        (dict(ks=(4, 0)), "k must satisfy k >= 1; got k=0"),
        (dict(thresholds=1.5), "tau must be in [0, 1]; got tau=1.5"),
    ],
)
def test_a_bad_request_is_one_line_on_construction(settings, message):
    with pytest.raises(InputError) as error:
        ScoringRequest(**{"ks": 4, **settings})
    assert message in str(error.value)


def test_a_request_takes_one_value_or_several_and_numpy_numbers():
    request = ScoringRequest(ks=np.array([4, 8]), thresholds=np.float64(0.5), subsets="split", n_boot=np.int64(10))
    assert (request.ks, request.thresholds, request.subsets, request.n_boot) == ((4, 8), (0.5,), ("split",), 10)
    assert type(request.ks[0]) is int and type(request.n_boot) is int


# ------------------------------------------------------------ one pass of deduplication


@pytest.mark.parametrize(
    "predictions, verdicts",
    [
        ([("x", "x"), ("x", "y"), ("z",)], None),
        ([("x", "x", "x"), ("x", "x")], [(True, None, True), None]),  # same text, the tool's verdicts differ
        ([("y",), ("y",)], None),
    ],
)
def test_generations_are_deduplicated_in_one_pass_with_the_share_of_identical_ones(predictions, verdicts):
    verdicts = verdicts or [None] * len(predictions)
    questions = [
        Question(str(i), "q", "1", texts, source_verdicts=found)
        for i, (texts, found) in enumerate(zip(predictions, verdicts))
    ]
    found = distinct_generations(questions)
    sampled = [texts for texts in predictions if len(texts) > 1]
    assert found.identical == (sum(len(set(texts)) == 1 for texts in sampled) / len(sampled) if sampled else 0.0)
    assert sum(found.repeats) == len(found.slots) == sum(map(len, predictions))
    keys = [(item.response, item.source_correct) for item in found.items]
    assert len(keys) == len(set(keys)) or any(verdicts)  # a text from a tool with its verdicts is another key
    for question, start, end in zip(questions, found.offsets, found.offsets[1:]):
        assert [found.items[slot].response for slot in found.slots[start:end]] == list(question.predictions)


# ------------------------------------------------------------ score()'s keywords


@pytest.mark.parametrize(
    "keyword, suggestion",
    [
        ("n_boots", "n_boot"),
        ("progres", "progress"),
        ("concurency", "concurrency"),
        ("ks", "k"),
        ("intervall", "interval"),
    ],
)
def test_an_unknown_keyword_of_score_is_named_with_the_nearest_of_all_of_its_keywords(keyword, suggestion):
    with pytest.raises(InputError, match=rf"^unknown score\(\) keyword '{keyword}'; did you mean '{suggestion}'\?"):
        gpassk_opencompass.score([GOOD], k=4, judge="rule", progress=False, **{keyword: 5})


# ------------------------------------------------------------ no circle


def test_the_readers_never_import_the_flow():
    """The flow imports the readers; the readers (and the questions they build) import neither the flow nor the
    request, at the top or inside a function."""
    folder = Path(readers.__file__).parent
    for path in [*folder.glob("*.py"), folder.parent / "questions.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.module not in ("gpassk_opencompass.scoring.flow", "gpassk_opencompass.scoring.request"), (
                    path
                )
