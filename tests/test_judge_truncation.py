r"""Only a complete judge reply is a verdict: a reply cut by the token limit, or one that only restates the
instruction ("output \boxed{yes} if …, or \boxed{no} if …"), is asked again and never cached as a verdict.

Real HTTP servers on 127.0.0.1 (tests/loopback_openai.py); requests are counted.
"""

import json

import pytest

from gpassk_opencompass.judges import PROMPT_VERSION, JudgeItem, JudgeSettings, judge_items, parse_judge_reply
from gpassk_opencompass.judges import llm as llm_module
from gpassk_opencompass.judges.cache import verdict_key
from loopback_judge import exact_match_judge
from loopback_openai import Reply

MODEL = "loopback-model"
#: What a thinking judge cut off by its token limit says: the prompt's own instruction, restated.
RESTATED = (
    r"Let me recall the rules. I must compare, then output \boxed{yes} if the student's answer is "
    r"correct, or \boxed{no} if"
)
ITEMS = [JudgeItem("How many edges has a cube?", "12", r"so \boxed{12}")]


def settings_for(server, **overrides):
    options = dict(kind="llm", urls=(server.url,), model=MODEL, backoff_base=0.01, backoff_max=0.05, max_tokens=64)
    options.update(overrides)
    return JudgeSettings(**options)


def thinking_judge(needs_tokens):
    """A judge whose reasoning needs ``needs_tokens``: with fewer its reply is cut mid-reasoning."""

    def respond(body):
        if body.get("max_tokens", 0) < needs_tokens:
            return Reply(RESTATED, finish_reason="length")
        return exact_match_judge(body)

    return respond


def test_a_cut_reply_is_asked_again_with_a_larger_budget_and_only_the_verdict_is_cached(loopback_openai, tmp_path):
    server = loopback_openai(thinking_judge(256))
    cache = tmp_path / "verdicts.jsonl"
    report = judge_items(ITEMS, settings_for(server, cache_path=cache), progress=False)
    assert report.verdicts[0].correct is True and report.stats.unresolved == 0
    assert [body["max_tokens"] for body in server.requests] == [64, 128, 256]
    (line,) = cache.read_text().splitlines()
    assert json.loads(line)["correct"] is True and json.loads(line)["finish_reason"] == "stop"


def test_a_reply_always_cut_is_unresolved_naming_the_option_and_not_cached(loopback_openai, tmp_path):
    server = loopback_openai(thinking_judge(10**6))
    cache = tmp_path / "verdicts.jsonl"
    report = judge_items(ITEMS, settings_for(server, cache_path=cache), progress=False)
    (verdict,) = report.verdicts
    assert verdict.correct is None  # not "no": the restated instruction is no verdict
    assert "cut at the token limit (256 tokens)" in verdict.reason and "--judge-max-tokens" in verdict.reason
    growth = llm_module.MAX_TOKENS_GROWTH
    assert [body["max_tokens"] for body in server.requests] == [64, 128, 64 * growth]
    assert cache.read_text() == ""


def test_a_complete_reply_that_only_restates_the_instruction_is_no_verdict(loopback_openai, tmp_path):
    server = loopback_openai(lambda body: RESTATED + " it is not.")
    cache = tmp_path / "verdicts.jsonl"
    report = judge_items(ITEMS, settings_for(server, cache_path=cache), progress=False)
    (verdict,) = report.verdicts
    assert verdict.correct is None
    assert f"{llm_module.REPLIES_WITHOUT_VERDICT} replies without a verdict" in verdict.reason
    assert len(server.requests) == llm_module.REPLIES_WITHOUT_VERDICT and cache.read_text() == ""


def test_a_verdict_cached_without_a_record_of_a_complete_reply_is_asked_again(loopback_openai, tmp_path):
    # what an older gpassk wrote for a cut reply it read as "no"
    cache = tmp_path / "verdicts.jsonl"
    key = verdict_key(MODEL, PROMPT_VERSION, "en", ITEMS[0].question, "12", "12")
    cache.write_text(json.dumps({"key": key, "correct": False, "reason": r"judge said \boxed{no}"}) + "\n")
    server = loopback_openai(exact_match_judge)
    report = judge_items(ITEMS, settings_for(server, cache_path=cache), progress=False)
    assert report.stats.cached == 0 and len(server.requests) == 1
    assert report.verdicts[0].correct is True


@pytest.mark.parametrize(
    "reply, verdict",
    [
        (RESTATED, None),
        (r"Finish with \boxed{yes} if the student's answer is correct or \boxed{no} if it is not.", None),
        (r"请先简要比较，最后以 \boxed{yes}（正确）或 \boxed{no}（错误）结尾。", None),
        (r"The answer must be \boxed{yes} or \boxed{no}.", None),
        (RESTATED + r" it is not. They match: \boxed{yes}", True),
        (RESTATED + r" it is not. 12 differs from 13. \boxed{no}", False),
        (r"最终结论：\boxed{yes}（正确）", True),
        (r"They differ, so \boxed{no}. If the reference were 13, it would be right.", False),
    ],
)
def test_boxes_restating_the_instruction_are_not_verdicts(reply, verdict):
    assert parse_judge_reply(reply) is verdict


#: A judge that only echoes its instruction, complete (``finish_reason: "stop"``), under each protocol.
ECHOES = {
    "gpassk-v2": r"I must finish with \boxed{yes} if the student's answer is correct or \boxed{no} if it is not.",
    "livemathbench": (
        r"If they match, output \boxed{yes}, otherwise output \boxed{no}. If it is difficult to judge, also "
        r"output \boxed{no}."
    ),
}


@pytest.mark.parametrize(
    "kind, protocol", [("llm", "gpassk-v2"), ("llm", "livemathbench"), ("cascade", "livemathbench")]
)
def test_gpassk_score_never_reads_or_caches_an_echoed_instruction_as_a_verdict(
    loopback_openai, tmp_path, monkeypatch, kind, protocol
):
    from gpassk_opencompass.cli import EXIT_INCOMPLETE, main

    monkeypatch.setattr(llm_module, "retry_delay", lambda *args: 0.0)  # the CLI's backoff is not what is tested
    server = loopback_openai(lambda body: ECHOES[protocol])
    source = tmp_path / "gens.jsonl"
    row = {"id": "q0", "question": "3 + 4 = ?", "answer": "7", "predictions": [r"\boxed{8}", r"\boxed{8}"]}
    source.write_text(json.dumps(row) + "\n")
    cache, output = tmp_path / "verdicts.jsonl", tmp_path / "scores.json"
    args = ["score", str(source), "--k", "1", "--judge", kind, "--judge-url", server.url, "--judge-model", MODEL,
            "--judge-prompt", protocol, "--cache", str(cache), "--output", str(output), "--quiet"]  # fmt: skip
    assert main(args) == EXIT_INCOMPLETE and not output.exists()
    assert len(server.requests) == llm_module.REPLIES_WITHOUT_VERDICT  # one distinct answer, asked until given up
    assert not cache.exists() or cache.read_text() == ""


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_opencompass_evaluator_leaves_an_echoed_instruction_unresolved(loopback_openai):
    from evaluator_fixtures import QUESTIONS, N, run
    from gpassk_opencompass import GPassKEvaluator

    server = loopback_openai(lambda body: ECHOES["livemathbench"])
    evaluator = GPassKEvaluator(
        model_name=MODEL,
        url=server.url,
        judge="llm",
        judge_prompt="livemathbench",
        backoff_base=0.001,
        backoff_max=0.001,
    )
    document = run(evaluator)
    assert document["unresolved"] == N * len(QUESTIONS)  # no generation read as wrong
    assert not any(key.startswith("G-Pass@") for key in document)
    distinct = sum((c > 0) + (c < N) for _, _, c in QUESTIONS)
    assert len(server.requests) == distinct * llm_module.REPLIES_WITHOUT_VERDICT
