"""The LLM and cascade judges against real HTTP servers on 127.0.0.1."""

import asyncio
import base64
import collections
import io
import threading
import time

import pytest
from loguru import logger

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import (
    PROMPT_VERSION,
    JudgeError,
    JudgeItem,
    JudgeSettings,
    build_judge_prompt,
    judge_items,
    parse_judge_reply,
)
from gpassk_opencompass.log import enable_logging
from loopback_judge import exact_match_judge, shown
from loopback_openai import Fault, Reply, last_user_message

MODEL = "loopback-model"


def items_for(answers, reference="12", question="How many edges has a cube?", language="en"):
    return [
        JudgeItem(question, reference, f"Counting carefully ... \\boxed{{{answer}}}", language) for answer in answers
    ]


def llm(*servers, **overrides):
    options = dict(
        kind="llm", urls=tuple(server.url for server in servers), model=MODEL, backoff_base=0.01, backoff_max=0.05
    )
    options.update(overrides)
    return JudgeSettings(**options)


def test_verdicts_follow_the_judge_and_keep_input_order(loopback_openai):
    server = loopback_openai(exact_match_judge)
    answers = ["12", "8", "12", "6", "twelve"]
    report = judge_items(items_for(answers), llm(server), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [True, False, True, False, False]
    assert [verdict.extracted for verdict in report.verdicts] == answers
    assert {verdict.source for verdict in report.verdicts} == {"llm"}
    assert report.verdicts[0].reason == r"judge said \boxed{yes}"
    assert report.prompt_version == PROMPT_VERSION
    assert report.stats.unique == 4 and report.stats.deduplicated == 1
    assert report.stats.requests == 4 == len(server.requests)


def test_request_is_temperature_zero_and_prompt_shows_the_extracted_answer(loopback_openai):
    server = loopback_openai(exact_match_judge)
    response = "Long chain of thought that must not reach the judge. " * 20 + r"So \boxed{\frac{1}{2}}."
    judge_items([JudgeItem("Solve $2x = 1$ for {x}.", "1/2", response)], llm(server, max_tokens=64), progress=False)
    (body,) = server.requests
    assert body["temperature"] == 0 and body["model"] == MODEL and body["max_tokens"] == 64
    prompt = last_user_message(body)
    assert shown(body, "student_answer") == r"\frac{1}{2}"
    assert shown(body, "problem") == "Solve $2x = 1$ for {x}."  # $ and braces left alone
    assert "chain of thought" not in prompt
    assert prompt.count(r"\boxed{yes}") == 1 and r"\boxed{{yes}}" not in prompt


def test_chinese_items_get_the_chinese_prompt(loopback_openai):
    server = loopback_openai(exact_match_judge)
    judge_items(items_for(["12"], language="cn") + items_for(["12"], language="en"), llm(server), progress=False)
    prompts = sorted(last_user_message(body) for body in server.requests)
    assert len(prompts) == 2  # the language is part of what makes a judgment distinct
    assert sum("标准答案" in prompt for prompt in prompts) == 1


def test_without_a_final_answer_the_judge_sees_the_tail(loopback_openai):
    server = loopback_openai(exact_match_judge)
    response = "x" * 5000 + " ... and so I conclude it is probably twelve"
    report = judge_items([JudgeItem("q", "12", response)], llm(server, response_tail_chars=100), progress=False)
    assert report.verdicts[0].extracted is None
    assert shown(server.requests[0], "student_answer") == response[-100:].strip()
    assert "marked no final answer" in last_user_message(server.requests[0])


def test_identical_answers_are_judged_once(loopback_openai):
    server = loopback_openai(exact_match_judge)
    items = items_for(["12", "8"] * 24) + items_for(["12"] * 48, question="Edges of a cube?")
    report = judge_items(items, llm(server), progress=False)
    assert len(server.requests) == 3
    assert report.stats.total == 96 and report.stats.unique == 3 and report.stats.deduplicated == 93
    assert sum(verdict.correct for verdict in report.verdicts) == 24 + 48


def test_all_urls_share_the_work_within_the_concurrency(loopback_openai):
    servers = [loopback_openai(exact_match_judge, latency=0.02) for _ in range(3)]
    answers = [str(i) for i in range(150)]
    report = judge_items(items_for(answers), llm(*servers, concurrency=4), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [answer == "12" for answer in answers]
    assert sum(len(server.requests) for server in servers) == 150
    for server in servers:
        assert len(server.requests) >= 10, "a URL was left idle"
        assert 2 <= server.max_in_flight <= 4


def authorization(server):
    """The Authorization header of the server's first request (header names are case-insensitive)."""
    return {name.lower(): value for name, value in server.headers_seen[0].items()}["authorization"]


class FlakyJudge:
    """Fails the first ``failures`` requests about each answer with ``fault``, then judges exactly."""

    def __init__(self, fault, failures=1):
        self.fault = fault
        self.failures = failures
        self.seen = collections.Counter()
        self.times = collections.defaultdict(list)
        self.lock = threading.Lock()

    def __call__(self, body):
        answer = shown(body, "student_answer")
        with self.lock:
            self.seen[answer] += 1
            self.times[answer].append(time.monotonic())
            attempt = self.seen[answer]
        return self.fault if attempt <= self.failures else exact_match_judge(body)


FAULTS = {
    "500": Fault(status=500),
    "503": Fault(status=503),
    "429 with Retry-After": Fault(status=429, retry_after=0.2),
    "dropped connection": Fault(drop=True),
    "slow reply beyond the timeout": Reply(r"\boxed{no}", delay=1.5),
    "garbage body": Fault(status=200, body="<html>502 Bad Gateway</html>"),
    "reply without a verdict": "I think they are the same.",
    "empty reply": "",
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_a_fault_on_the_first_attempt_still_gives_the_right_verdicts(loopback_openai, fault):
    judge = FlakyJudge(fault)
    servers = [loopback_openai(judge), loopback_openai(judge)]
    answers = ["12", "8", "13", "twelve", "12.0"]
    report = judge_items(items_for(answers), llm(*servers, request_timeout=0.5), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [True, False, False, False, False]
    assert report.stats.unresolved == 0
    assert report.stats.requests == 10 and report.stats.retries == 5
    assert all(count == 2 for count in judge.seen.values())


def test_retry_after_is_honoured(loopback_openai, monkeypatch):
    # Counted, not timed: every delay scheduled after a 429 is at least the server's Retry-After.
    from gpassk_opencompass.judges import llm as llm_module

    scheduled = []
    original = llm_module.retry_delay

    def recording(retry, base, cap, retry_after, rng):
        delay = original(retry, base, cap, retry_after, rng)
        scheduled.append((retry_after, delay))
        return delay

    monkeypatch.setattr(llm_module, "retry_delay", recording)
    judge = FlakyJudge(Fault(status=429, retry_after=0.4))
    server = loopback_openai(judge)
    judge_items(items_for(["12", "8"]), llm(server), progress=False)
    assert len(scheduled) == 2
    assert all(retry_after == 0.4 and delay >= 0.4 for retry_after, delay in scheduled)


def test_persistent_failures_give_unresolved_verdicts_with_the_reason(loopback_openai):
    server = loopback_openai(lambda body: Fault(status=500))
    report = judge_items(items_for(["12", "8"]), llm(server, max_retries=2), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [None, None]
    assert report.verdicts[0].reason == "judge request failed after 3 attempt(s): HTTP 500"
    assert report.stats.unresolved == 2 and report.stats.requests == 6 == len(server.requests)


def test_a_reply_that_stays_unparseable_is_unresolved_never_wrong(loopback_openai):
    # a reply without a verdict is retried within the same max_retries budget as a 500
    server = loopback_openai(lambda body: r"Hmm. \boxed{12}")
    report = judge_items(items_for(["12"]), llm(server, max_retries=2), progress=False)
    (verdict,) = report.verdicts
    assert verdict.correct is None
    assert verdict.reason == r"judge request failed after 3 attempt(s): no verdict in the reply: Hmm. \boxed{12}"
    assert len(server.requests) == 3 and report.stats.unresolved == 1


def test_an_item_specific_rejection_after_the_probe_is_unresolved_and_not_retried(loopback_openai):
    too_long = Fault(status=400, body='{"error": {"message": "This model\'s maximum context length is 4096 tokens"}}')
    server = loopback_openai(
        lambda body: too_long if "13" in shown(body, "student_answer") else exact_match_judge(body)
    )
    report = judge_items(items_for(["12", "13", "8"]), llm(server), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [True, None, False]
    assert report.verdicts[1].reason == (
        "judge rejected the request (HTTP 400): This model's maximum context length is 4096 tokens"
    )
    assert len(server.requests) == 3


def test_a_wrong_model_name_fails_before_any_judging(loopback_openai):
    server = loopback_openai(exact_match_judge)
    with pytest.raises(JudgeError, match=r"'Qwen2\.5-72B' is not served at .*it serves: loopback-model"):
        judge_items(items_for(["12"]), llm(server, model="Qwen2.5-72B"), progress=False)
    assert server.requests == []


def test_an_unreachable_url_fails_before_any_judging(loopback_openai):
    server = loopback_openai(exact_match_judge)
    dead = loopback_openai(exact_match_judge)
    dead_url = dead.url
    dead.stop()
    settings = JudgeSettings(kind="llm", urls=(server.url, dead_url), model=MODEL)
    with pytest.raises(JudgeError, match="cannot reach the judge server at " + dead_url):
        judge_items(items_for(["12"]), settings, progress=False)
    assert server.requests == []


def test_a_404_while_judging_stops_the_run(loopback_openai):
    server = loopback_openai(lambda body: Fault(status=404))
    with pytest.raises(JudgeError, match="HTTP 404"):
        judge_items(items_for(["12", "8"]), llm(server, check_endpoints=False), progress=False)


def test_the_api_key_is_sent_but_never_logged(loopback_openai, monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OC_JUDGE_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")
    server = loopback_openai(FlakyJudge(Fault(status=500)))
    log = io.StringIO()
    enable_logging()
    sink = logger.add(log, level="DEBUG")
    try:
        judge_items(items_for(["12"]), llm(server), progress=False)
    finally:
        logger.remove(sink)
    assert authorization(server) == f"Bearer {secret}"
    assert "retry 1" in log.getvalue() and secret not in log.getvalue()


def test_without_a_key_local_servers_get_EMPTY(loopback_openai, monkeypatch):
    monkeypatch.delenv("OC_JUDGE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = loopback_openai(exact_match_judge)
    judge_items(items_for(["12"]), llm(server), progress=False)
    assert authorization(server) == "Bearer EMPTY"


def test_credentials_in_the_judge_url_are_sent_as_basic_auth(loopback_openai):
    # as openai's own client sends them (HTTP basic auth from the URL's user:password), through the bounded transport
    server = loopback_openai(exact_match_judge)
    url = server.url.replace("http://", "http://alice:pa55word@")
    report = judge_items(items_for(["12", "13"]), llm(server, urls=(url,)), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [True, False]
    assert authorization(server) == "Basic " + base64.b64encode(b"alice:pa55word").decode()


def test_cascade_asks_the_model_only_what_the_rule_judge_cannot_confirm(loopback_openai):
    server = loopback_openai(lambda body: r"\boxed{yes}")  # a lenient judge: says yes to all it is asked
    items = [
        JudgeItem("q1", r"\frac{1}{2}", r"\boxed{0.5}"),  # rule: equivalent
        JudgeItem("q1", r"\frac{1}{2}", r"\boxed{0.5}"),  # duplicate
        JudgeItem("q2", r"\text{odd}", r"\boxed{\text{an odd number}}"),  # rule cannot confirm
        JudgeItem("q3", "B", r"\boxed{C}"),  # rule: wrong letter
    ]
    report = judge_items(items, JudgeSettings(kind="cascade", urls=(server.url,), model=MODEL), progress=False)
    assert [verdict.source for verdict in report.verdicts] == ["rule", "rule", "llm", "llm"]
    assert [verdict.correct for verdict in report.verdicts] == [True, True, True, True]
    assert sorted(shown(body, "student_answer") for body in server.requests) == ["C", r"\text{an odd number}"]
    assert report.stats.by_rule == 1 and report.stats.requests == 2


def test_cascade_keeps_the_rule_reason_when_the_model_fails(loopback_openai):
    server = loopback_openai(lambda body: Fault(status=500))
    report = judge_items(
        [JudgeItem("q", "7", r"\boxed{8}")],
        JudgeSettings(kind="cascade", urls=(server.url,), model=MODEL, max_retries=0),
        progress=False,
    )
    assert report.verdicts[0].correct is None
    assert report.verdicts[0].reason.endswith("the rule judge said: math-verify: not equivalent")


def test_callable_from_inside_a_running_event_loop(loopback_openai):
    server = loopback_openai(exact_match_judge)

    async def notebook_cell():
        return judge_items(items_for(["12", "8"]), llm(server), progress=False)

    report = asyncio.run(notebook_cell())
    assert [verdict.correct for verdict in report.verdicts] == [True, False]


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(kind="llm", urls=()), "needs at least one judge URL"),
        (dict(kind="cascade", urls=("http://127.0.0.1:1/v1",), model=""), "needs the judge model's served name"),
        (dict(kind="rule", urls=("http://127.0.0.1:1/v1",)), "uses no judge model but URLs were given"),
        (dict(kind="llm", urls=("ftp://host/v1",), model="m"), "is not an http"),
        (dict(kind="llm", urls=("http://host:port/v1",), model="m"), "is malformed"),
        (dict(kind="llm", urls=("http://a:1/v1", "http://a:1/v1"), model="m"), "repeat"),
        (dict(kind="llm", urls=3, model="m"), "judge URL(s) must be a string or a list of strings, got 3"),
        (dict(concurrency=0), "concurrency = 0: input should be greater than or equal to 1"),
        (dict(concurrency=2000), "concurrency = 2000: input should be less than or equal to 1024"),
        (dict(concurrency=2.5), "concurrency = 2.5: input should be a valid integer"),
        (dict(request_timeout=0), "request_timeout = 0: input should be greater than 0"),
        (dict(request_timeout=float("inf")), "request_timeout = inf: input should be a finite number"),
        (dict(max_retries=-1), "max_retries = -1: input should be greater than or equal to 0"),
        (dict(rule_timeout=0.5), "rule_timeout = 0.5: input should be a valid integer"),
        (dict(kind="auto"), "unknown judge kind 'auto'"),
    ],
)
def test_bad_settings_are_refused_on_construction(overrides, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        JudgeSettings(**overrides)


def test_bad_items_are_refused_before_any_request(loopback_openai):
    server = loopback_openai(exact_match_judge)
    with pytest.raises(ValueError, match="item 1 must be a JudgeItem, got dict"):
        judge_items([JudgeItem("q", "1", "1"), {"question": "q"}], llm(server), progress=False)
    with pytest.raises(InputError, match="language must be one of en, cn, got 'fr'"):
        JudgeItem("q", "1", "1", language="fr")
    assert server.requests == []


@pytest.mark.parametrize(
    "reply, verdict",
    [
        (r"The forms are equivalent. \boxed{yes}", True),
        (r"\boxed{no}", False),
        (r"\boxed{ Yes. }", True),
        (r"\boxed{\text{No}}", False),
        (r"\boxed{\textbf{yes}}", True),
        (r"\boxed{{yes}}", True),  # echoing a doubled-brace prompt
        (r"First \boxed{yes}, but on reflection \boxed{no}", False),  # the last verdict counts
        (r"\boxed{maybe}", None),
        (r"\boxed{12}", None),
        ("yes", None),  # the protocol is a boxed verdict
        (r"\boxed{yes", None),  # truncated
        ("", None),
        (None, None),
    ],
)
def test_parse_judge_reply(reply, verdict):
    assert parse_judge_reply(reply) is verdict


@pytest.mark.parametrize("language", ["en", "cn"])
def test_prompts_fill_every_slot_and_keep_latex_and_dollars_verbatim(language):
    question = r"Let $f(x) = x^{2}$ and ${a_n}$ be given; find $$f(2)$$."
    prompt = build_judge_prompt(question, r"\{4\}", "$4$", language)
    assert question in prompt and r"\{4\}" in prompt and "\n$4$\n" in prompt
    assert "$question" not in prompt and "$answer" not in prompt and "$reference" not in prompt
    assert prompt.count(r"\boxed{yes}") == 1 and prompt.count(r"\boxed{no}") == 1


def test_an_empty_batch_sends_nothing(loopback_openai):
    server = loopback_openai(exact_match_judge)
    report = judge_items([], llm(server), progress=False)
    assert report.verdicts == () and report.stats.total == 0 and server.requests == []
