"""The LLM judge's reply classifier (``judges.replies.classify``) on a table of real replies.

Each case is what a request came back with in another test of the judge (named beside it), built as the
``openai`` client builds it: a reply parsed into its ``ChatCompletion``, an HTTP error made by the client
from the server's response, a fault raised by the bounded transport. The classifier is pure, so the table
needs no server; the loop that acts on each kind is tested end to end in those other files.
"""

from __future__ import annotations

import json

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletion

from gpassk_opencompass.judges.prompts import judge_protocol
from gpassk_opencompass.judges.replies import classify
from gpassk_opencompass.judges.transport import MAX_REPLY_BYTES, RedirectRefused, ReplyTooLarge, TransportFault

URL = "http://127.0.0.1:9/v1"
SECRET = "sk-test-0123456789abcdef"
CUT = "the reply was cut at the token limit ({} tokens) before a verdict; raise the judge's token limit"


def completion(content: str | None, finish_reason: str = "stop", reasoning: str | None = None) -> ChatCompletion:
    """A reply as tests/loopback_openai.py sends it (``Reply``), parsed as the client parses it."""
    message = {"role": "assistant", "content": content, **({"reasoning_content": reasoning} if reasoning else {})}
    return ChatCompletion.model_validate(
        {
            "id": "loopback",
            "object": "chat.completion",
            "created": 0,
            "model": "loopback-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        }
    )


def http_error(status: int, body: object = None, **headers: str) -> openai.APIStatusError:
    """An HTTP error as the openai client raises it for the server's reply (tests/loopback_openai.py ``Fault``)."""
    content = b"" if body is None else json.dumps(body).encode()
    response = httpx2.Response(
        status,
        headers={
            "content-type": "application/json",
            **{name.replace("_", "-"): value for name, value in headers.items()},
        },
        content=content,
        request=httpx2.Request("POST", URL + "/chat/completions"),
    )
    return openai.AsyncOpenAI(api_key="EMPTY", base_url=URL)._make_status_error_from_response(response)


def error_body(message: str) -> dict:
    return {"error": {"message": message, "type": "BadRequestError"}}


# where the reply comes from: (what came back, what it means[, the request's state when not the default])
TABLE = {
    "exact_match_judge, same answer (loopback_judge.py)": (
        completion(r"The two answers agree. \boxed{yes}"),
        dict(kind="verdict", correct=True, problem=r"judge said \boxed{yes}", finish_reason="stop"),
    ),
    "exact_match_judge, another answer (loopback_judge.py)": (
        completion(r"They differ. \boxed{no}"),
        dict(kind="verdict", correct=False, problem=r"judge said \boxed{no}"),
    ),
    "a reply without a box (test_judge_truncation.py)": (
        completion("They match."),
        dict(kind="no verdict", problem="no verdict in the reply: They match.", outage=False),
    ),
    "the verdict only in reasoning_content (test_judge_protocols.py)": (
        completion("\n\n", reasoning=r"Analysis: they agree. \boxed{yes}"),
        dict(kind="no verdict", outage=False),
    ),
    "cut by the token limit, a box inside (test_judge_truncation.py)": (
        completion(r"Let me think... \boxed{yes", finish_reason="length"),
        dict(kind="cut", problem=CUT.format(2048) + " (--judge-max-tokens, max_tokens)", outage=False),
    ),
    "cut under the server's default limit": (
        completion("Let me", finish_reason="length"),
        dict(kind="cut", problem=CUT.format("the server default") + " (--judge-max-tokens, max_tokens)"),
        dict(max_tokens=None),
    ),
    "500 (test_llm_judge.py)": (http_error(500), dict(kind="fault", status=500, problem="HTTP 500", outage=True)),
    "503 (test_llm_judge.py)": (http_error(503), dict(kind="fault", status=503, outage=True, retry_after=None)),
    "429 with Retry-After (test_llm_judge.py)": (
        http_error(429, retry_after="0.2"),
        dict(kind="fault", status=429, problem="HTTP 429", outage=False, retry_after=0.2),
    ),
    "429 with retry-after-ms": (http_error(429, retry_after_ms="300"), dict(kind="fault", retry_after=0.3)),
    "408": (http_error(408), dict(kind="fault", status=408, outage=True)),
    "400 maximum context length, before any verdict (test_judge_failfast.py)": (
        http_error(400, error_body("maximum context length exceeded")),
        dict(kind="rejected", status=400, problem="maximum context length exceeded"),
        dict(confirmed=False),
    ),
    "400 This model's maximum context length (test_llm_judge.py)": (
        http_error(400, error_body("This model's maximum context length is 4096 tokens")),
        dict(kind="rejected", problem="This model's maximum context length is 4096 tokens"),
    ),
    "400 the model does not exist, after verdicts (test_judge_failfast.py)": (
        http_error(400, error_body("The model `judge-7B` does not exist.")),
        dict(kind="stop", status=400, problem="The model `judge-7B` does not exist."),
    ),
    "400 temperature is not supported, before any verdict (test_judge_failfast.py)": (
        http_error(400, error_body("temperature is not supported")),
        dict(kind="stop", status=400, problem="temperature is not supported"),
        dict(confirmed=False),
    ),
    "400 temperature is not supported, after verdicts": (
        http_error(400, error_body("temperature is not supported")),
        dict(kind="rejected", status=400),
    ),
    "400 quoting the API key back (test_judge_failfast.py)": (
        http_error(400, error_body(f"bad header Authorization: Bearer {SECRET} (key {SECRET})")),
        dict(kind="rejected", problem="bad header Authorization: Bearer [REDACTED] (key [REDACTED])"),
    ),
    "401 key refused": (http_error(401, error_body("invalid api key")), dict(kind="stop", status=401)),
    "404 wrong URL (test_llm_judge.py)": (http_error(404), dict(kind="stop", status=404)),
    "a body that is not JSON (test_llm_judge.py, garbage body)": (
        TransportFault("reply is not JSON ('<html>502 Bad Gateway</html>')"),
        dict(kind="fault", problem="reply is not JSON ('<html>502 Bad Gateway</html>')", outage=True),
    ),
    "a reply over the size limit (test_judge_bounds.py)": (
        ReplyTooLarge(f"reply over {MAX_REPLY_BYTES} bytes"),
        dict(kind="fault", outage=True, oversized=True, problem=f"reply over {MAX_REPLY_BYTES} bytes"),
    ),
    "a dropped connection (test_llm_judge.py)": (
        TransportFault("connection failed (ServerDisconnectedError: Server disconnected)"),
        dict(kind="fault", outage=True, oversized=False),
    ),
    "a redirect (test_judge_bounds.py)": (
        RedirectRefused(f"judge server {URL} redirected to http://elsewhere.example/v1; not followed"),
        dict(kind="redirect", problem=f"judge server {URL} redirected to http://elsewhere.example/v1; not followed"),
    ),
}


@pytest.mark.parametrize("case", TABLE, ids=list(TABLE))
def test_each_reply_is_classified_as_what_it_means(case):
    outcome, expected, *state = TABLE[case]
    request = {"confirmed": True, "max_tokens": 2048, **(state[0] if state else {})}
    reply = classify(outcome, judge_protocol("gpassk-v2").read, **request)
    assert {name: getattr(reply, name) for name in expected} == expected


def test_under_the_livemathbench_protocol_a_box_is_a_verdict_and_a_reply_without_one_is_not():
    read = judge_protocol("livemathbench").read
    assert classify(completion(r"so \boxed{no}"), read, confirmed=False, max_tokens=None).kind == "verdict"
    assert classify(completion("yes"), read, confirmed=False, max_tokens=None).kind == "no verdict"
    assert classify(completion(" \n"), read, confirmed=False, max_tokens=None).kind == "no verdict"
    assert classify(completion("yes", finish_reason="length"), read, confirmed=True, max_tokens=8).kind == "cut"
