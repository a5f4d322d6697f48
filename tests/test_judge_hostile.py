"""Hostile generations: bounded work and output per answer, and text that is not valid Unicode.

No timing here (see benchmarks/bench_hostile.py): memory (tracemalloc peak) and output sizes.
"""

import hashlib
import json
import re
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items
from gpassk_opencompass.judges.cache import verdict_key
from gpassk_opencompass.judges.extraction import MAX_ANSWER_CHARS, boxed_spans, extract, extract_answer
from loopback_openai import last_user_message

NESTED = 12_500

HOSTILE = {
    "12,500 nested boxes": "\\boxed{" * NESTED + "5" + "}" * NESTED,
    "1 MB of $": "$" * 1_000_000,
    "1 MB of {": "{" * 1_000_000,
    "1 MB of }": "}" * 1_000_000,
    "boxes never closed": "\\boxed{" * 30_000,
    "bare boxes": "\\boxed 1 " * 10_000,
    "a box, then 1 MB of {": "\\boxed{1} " + "{" * 1_000_000,
    "a 1 MB last line": "so " * 330_000 + "$x$",
    "a 1 MB answer phrase": "The answer is " + "7" * 1_000_000,
    "open \\( everywhere": "\\(" * 200_000,
    "1 MB of digits": "9" * 1_000_000,
}


def peak_bytes(function, *args):
    tracemalloc.start()
    try:
        result = function(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_extraction_memory_and_output_are_bounded(text):
    found, peak = peak_bytes(extract, text)
    assert found.answer is None or len(found.answer) <= MAX_ANSWER_CHARS
    # linear in the input (a stack entry per open box), never a multiple of its square
    assert peak < 32 * len(text) + 1_000_000


def test_nested_boxes_give_one_box_not_a_quadratic_join():
    text = "\\boxed{" * 1000 + "5" + "}" * 1000
    spans = boxed_spans(text)
    assert len(spans) == 1 and spans[0][:2] == (0, len(text))
    assert extract(text).answer is None and extract(text).overlong == len(text) - len("\\boxed{") - 1


@pytest.mark.parametrize(
    "text, overlong",
    [
        ("\\boxed{" + "x" * (MAX_ANSWER_CHARS + 1) + "}", MAX_ANSWER_CHARS + 1),
        ("The answer is " + "7" * 5000, 5000),
        ("We get\n" + "1" * 1500, 1500),  # the number on the last line
    ],
)
def test_an_answer_over_the_limit_is_refused_with_its_length(text, overlong):
    assert extract(text).answer is None and extract(text).overlong == overlong


def test_an_answer_at_the_limit_is_kept():
    answer = "x" * MAX_ANSWER_CHARS
    assert extract_answer("\\boxed{" + answer + "}") == answer


def test_the_rule_judge_marks_an_overlong_answer_wrong_and_says_why():
    items = [JudgeItem("q", "5", HOSTILE["12,500 nested boxes"]), JudgeItem("q", "5", r"\boxed{5}")]
    report = judge_items(items, JudgeSettings(kind="rule"), progress=False)
    verdict = report.verdicts[0]
    length = len(HOSTILE["12,500 nested boxes"]) - len("\\boxed{") - 1
    assert verdict.correct is False and verdict.extracted is None
    assert verdict.reason == f"extracted answer has {length} characters, over the limit of {MAX_ANSWER_CHARS}"
    assert report.verdicts[1].correct is True


LONE = "\ud800"


@pytest.mark.parametrize("field", ["question", "reference", "response"])
def test_lone_surrogates_are_replaced_on_construction(field):
    values = {"question": "q", "reference": "5", "response": r"\boxed{5}"}
    values[field] = values[field] + "\udfff" + LONE  # low before high: both lone
    item = JudgeItem(**values)
    text = getattr(item, field)
    assert "\ufffd\ufffd" in text
    text.encode("utf-8")  # would raise UnicodeEncodeError with a lone surrogate
    json.dumps(text, ensure_ascii=False).encode("utf-8")
    verdict_key("m", "v", "en", item.question, item.reference, item.response)


def test_a_valid_surrogate_pair_written_as_two_code_points_is_joined():
    assert JudgeItem("q", "5", "\ud83d\ude00").response == "\U0001f600"


def reference_spans(text):
    """The plain quadratic definition: scan forward from every box; keep those not inside another complete box."""
    spans = []
    for match in re.finditer(r"\\(?:boxed|fbox)\s*", text):
        start, position = match.start(), match.end()
        if text.startswith("{", position):
            depth = 0
            for index in range(position, len(text)):
                depth += {"{": 1, "}": -1}.get(text[index], 0)
                if depth == 0:
                    spans.append((start, index + 1, text[position + 1 : index]))
                    break
        else:
            token = re.match(r"[^\s$,;{}]+", text[position:])
            separated = match.end() > match.start() + len(match.group().rstrip())
            if token and (separated or not token.group()[0].isalpha()):
                content = token.group().rstrip(".")
                spans.append((start, position + len(content), content))
    braced = [span for span in spans if text[span[1] - 1] == "}"]  # a bare token never holds a brace
    return [span for span in spans if not any(box[0] < span[0] < box[1] for box in braced)]


@given(
    st.lists(
        st.sampled_from(["\\boxed{", "\\fbox{", "\\boxed ", "{", "}", "}}", "1", "a", ". ", ",", "$"]), max_size=25
    ).map("".join)
)
def test_one_pass_boxes_match_the_plain_definition(text):
    assert boxed_spans(text) == reference_spans(text)


# ------------------------------------------------------------------ lone surrogates through gpassk score

# Valid JSON ("\ud800" escapes a lone UTF-16 surrogate), as a model's broken tokenizer output writes it.
SURROGATE_LINE = (
    '{"id": "q\\ud800", "question": "1+1? \\ud800", "answer": "2", '
    '"predictions": ["\\\\boxed{2} \\ud800", "\\\\boxed{3}\\udfff"]}\n'
)


def surrogate_digest(texts):
    """texts_digest computed independently: the JSON list's UTF-8 bytes, lone surrogates passed through."""
    return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def score_surrogates(tmp_path, *options):
    source = tmp_path / "gens.jsonl"
    source.write_text(SURROGATE_LINE, encoding="utf-8")
    output = tmp_path / "scores.json"
    code = main(["score", str(source), "--k", "1", "--output", str(output), "--quiet", *options])
    return code, json.loads(output.read_text(encoding="utf-8"))


def check_surrogate_results(document):
    (question,) = document["details"]
    predictions = json.loads(SURROGATE_LINE)["predictions"]
    assert question["generations_sha256"] == surrogate_digest(predictions)
    assert question["question_sha256"] == surrogate_digest(["1+1? \ud800", "2"])
    assert [verdict["correct"] for verdict in question["verdicts"]] == [True, False]
    assert document["G-Pass@1_1.0"] == pytest.approx(50.0)  # 1 of 2 right


def test_gpassk_score_rule_judge_on_lone_surrogates(tmp_path):
    code, document = score_surrogates(tmp_path, "--judge", "rule")
    assert code == 0
    check_surrogate_results(document)


def test_gpassk_score_llm_judge_on_lone_surrogates_sends_valid_text_and_caches_a_reply_holding_one(
    tmp_path, loopback_openai
):
    # the judge's reply holds a lone surrogate too; under livemathbench its label reaches the reason and the cache
    def judge(body):
        fields = last_user_message(body)
        assert "\ud800" not in fields and "\udfff" not in fields and "\ufffd" in fields  # replaced before sending
        return r"\boxed{yes}" if "Examinee's Answer: 2\n" in fields else "\\boxed{no\ud800}"

    server = loopback_openai(judge)
    cache = tmp_path / "verdicts.jsonl"
    options = (
        "--judge",
        "llm",
        "--judge-url",
        server.url,
        "--judge-model",
        "loopback-model",
        "--judge-prompt",
        "livemathbench",
    )
    code, document = score_surrogates(tmp_path, *options, "--cache", str(cache))
    assert code == 0
    check_surrogate_results(document)
    assert document["details"][0]["verdicts"][1]["reason"] == "judge said \\boxed{no\ufffd}"
    lines = [json.loads(line) for line in cache.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["correct"] for line in lines) == [False, True]
    assert len(server.requests) == 2
    again = main(["score", str(tmp_path / "gens.jsonl"), "--k", "1", "--output", str(tmp_path / "again.json"),
                  "--quiet", *options, "--cache", str(cache)])  # fmt: skip
    assert again == 0 and len(server.requests) == 2  # both verdicts found in the cache
