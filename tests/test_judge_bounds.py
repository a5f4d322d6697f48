"""Every judge request is bounded: a total deadline, capped waits, capped reply sizes, no redirects, a sane concurrency.

Real HTTP servers on 127.0.0.1 (tests/loopback_openai.py); no timing assertions: the server records what it sent,
scheduled delays are recorded, memory is measured with tracemalloc.
"""

import contextlib
import io
import json
import socket
import threading
import tracemalloc
import zlib

import pytest
from loguru import logger

from gpassk_opencompass.cli import main
from gpassk_opencompass.judges import JudgeError, JudgeItem, JudgeSettings, judge_items
from gpassk_opencompass.judges import llm as llm_module
from gpassk_opencompass.judges.transport import MAX_REPLY_BYTES
from gpassk_opencompass.log import enable_logging
from loopback_judge import exact_match_judge
from loopback_openai import Drip, Fault, Raw

MODEL = "loopback-model"


def settings_for(server, **overrides):
    options = dict(kind="llm", urls=(server.url,), model=MODEL, backoff_base=0.01, backoff_max=0.05)
    options.update(overrides)
    return JudgeSettings(**options)


ITEMS = [JudgeItem("How many edges has a cube?", "12", r"so \boxed{12}")]


def test_a_dripping_server_cannot_keep_a_request_past_its_total_deadline(loopback_openai):
    # one byte every 0.25 s: every read is quick, so a per-read timeout never fires; the whole reply takes 7.5 s
    server = loopback_openai(lambda body: Drip(r"\boxed{yes}", count=30, interval=0.25))
    report = judge_items(ITEMS, settings_for(server, request_timeout=1.0, max_retries=0), progress=False)
    (verdict,) = report.verdicts
    assert verdict.correct is None
    assert "no complete reply within 1s (the request's total deadline, --request-timeout)" in verdict.reason
    ((sent, whole),) = server.wait_for_drips(1)
    assert not whole and sent < 30  # the client hung up mid-drip


@pytest.mark.parametrize(
    "asked, window, waited",
    [
        (99999999, 600.0, llm_module.MAX_RETRY_AFTER),  # a huge Retry-After: capped
        (30, 2.0, 2.0),  # never past the progress window
    ],
)
def test_retry_after_is_capped_and_a_long_wait_is_said(loopback_openai, monkeypatch, asked, window, waited):
    scheduled = []
    monkeypatch.setattr(
        llm_module, "retry_delay", lambda retry, base, cap, retry_after, rng: scheduled.append(retry_after) or 0.0
    )
    answers = iter([Fault(status=429, retry_after=asked)])
    server = loopback_openai(lambda body: next(answers, None) or exact_match_judge(body))
    log = io.StringIO()
    enable_logging()
    sink = logger.add(log, level="INFO")
    try:
        report = judge_items(ITEMS, settings_for(server, progress_window=window), progress=False)
    finally:
        logger.remove(sink)
    assert report.verdicts[0].correct is True
    assert scheduled == [waited]
    assert f"asks to wait {asked:g}s before retrying (Retry-After); waiting {waited:g}s at most" in log.getvalue()


def test_a_retry_line_says_why_the_attempt_failed_in_our_words(loopback_openai, monkeypatch):
    """The line that says a request waits names the failure (HTTP 503, no verdict, the connection), never the
    judge's reply: it is untrusted, may be long, may hold a key."""
    monkeypatch.setattr(llm_module, "LOGGED_WAIT", -1.0)  # every wait is said (the backoff here is milliseconds)
    reply = "They look alike. Authorization: Bearer sk-judgereplysecret123 " + "blah " * 2000
    answers = iter([Fault(status=503), reply, Fault(drop=True)])
    server = loopback_openai(lambda body: next(answers, None) or exact_match_judge(body))
    log = io.StringIO()
    enable_logging()
    sink = logger.add(log, level="INFO")
    try:
        report = judge_items(ITEMS, settings_for(server), progress=False)
    finally:
        logger.remove(sink)
    assert report.verdicts[0].correct is True
    waits = [line for line in log.getvalue().splitlines() if "before retry" in line]
    assert [line.partition(" failed (")[2].partition("); waiting")[0] for line in waits[:2]] == [
        "HTTP 503",
        "no verdict in the reply",
    ]
    assert "failed (connection failed (" in waits[2] and len(waits) == 3
    assert "They look alike" not in log.getvalue() and "sk-judgereplysecret123" not in log.getvalue()
    assert max(len(line) for line in waits) < 300


def reply_body(content):
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}
    ).encode()


def gzip_bomb(inflated_bytes):
    """A gzip body of a verdict reply padded with blanks to ``inflated_bytes`` (JSON allows leading blanks)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b" " * 2**20
    parts = [packer.compress(block) for _ in range(inflated_bytes // len(block))]
    return b"".join(parts) + packer.compress(reply_body(r"\boxed{yes}")) + packer.flush()


@pytest.mark.parametrize("kind", ["plain", "gzip bomb"])
def test_an_oversized_reply_is_refused_with_bounded_memory(loopback_openai, kind):
    if kind == "plain":
        raw = Raw(reply_body("x" * (2 * MAX_REPLY_BYTES) + r" \boxed{yes}"))
    else:  # ~130 KB on the wire, 128 MiB inflated
        raw = Raw(gzip_bomb(128 * 2**20), (("Content-Encoding", "gzip"),))
    server = loopback_openai(lambda body: raw)
    # a first judgment, so that what the first use of the client imports is not counted
    judge_items(ITEMS, settings_for(loopback_openai(exact_match_judge)), progress=False)
    tracemalloc.start()
    try:
        report = judge_items(ITEMS, settings_for(server, max_retries=0), progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (verdict,) = report.verdicts
    assert verdict.correct is None and f"over the limit of {MAX_REPLY_BYTES} bytes" in verdict.reason
    assert peak < 4 * MAX_REPLY_BYTES, peak  # the bomb inflates to 32 times that


@pytest.mark.parametrize("kind", ["plain", "gzip bomb"])
def test_a_judge_whose_replies_are_always_too_large_stops_the_run_after_a_few(loopback_openai, kind):
    # no retry makes such a server's replies smaller: a few in a row stop the run (not a long backoff to the outage limit)
    if kind == "plain":
        raw = Raw(reply_body("x" * (2 * MAX_REPLY_BYTES) + r" \boxed{yes}"))
    else:
        raw = Raw(gzip_bomb(8 * MAX_REPLY_BYTES), (("Content-Encoding", "gzip"),))
    server = loopback_openai(lambda body: raw)
    items = [JudgeItem("How many edges has a cube?", "12", rf"so \boxed{{{answer}}}") for answer in range(4)]
    with pytest.raises(JudgeError, match=r"the judge's replies are too large: 3 in a row") as raised:
        judge_items(items, settings_for(server, concurrency=1), progress=False)
    assert "0 of 4 verdicts arrived" in str(raised.value) and server.url in str(raised.value)
    assert len(server.requests) == llm_module.OVERSIZED_IN_A_ROW


def test_a_verdict_between_oversized_replies_keeps_the_run_going(loopback_openai):
    oversized = Raw(reply_body("x" * (2 * MAX_REPLY_BYTES) + r" \boxed{yes}"))
    answers = iter([oversized, oversized, None, oversized, oversized, None])
    server = loopback_openai(lambda body: next(answers, None) or exact_match_judge(body))
    items = [JudgeItem("How many edges has a cube?", "12", rf"so \boxed{{{answer}}}") for answer in (12, 13)]
    report = judge_items(items, settings_for(server, concurrency=1), progress=False)
    assert [verdict.correct for verdict in report.verdicts] == [True, False]
    assert len(server.requests) == 6


def test_a_gzip_reply_within_the_limit_is_read(loopback_openai):
    server = loopback_openai(
        lambda body: Raw(zlib.compress(reply_body(r"\boxed{yes}")), (("Content-Encoding", "deflate"),))
    )
    assert judge_items(ITEMS, settings_for(server), progress=False).verdicts[0].correct is True


def test_the_judge_speaks_through_the_openai_client_asking_only_for_encodings_it_bounds(loopback_openai):
    server = loopback_openai(exact_match_judge)
    assert judge_items(ITEMS, settings_for(server), progress=False).verdicts[0].correct is True
    headers = {name.lower(): value for name, value in server.headers_seen[0].items()}
    assert headers["user-agent"].startswith("AsyncOpenAI/Python")
    assert headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    "raw, reason",
    [
        (Raw(b"\x00" * 64, (("Content-Encoding", "br"),)), "reply in an unsupported content encoding 'br'"),
        (Raw(b"<html>busy</html>"), "reply is not JSON"),
        (Raw(b"[" * 100_000), "reply is not JSON"),
    ],
)
def test_an_unreadable_reply_is_a_fault_not_a_verdict(loopback_openai, raw, reason):
    server = loopback_openai(lambda body: raw)
    (verdict,) = judge_items(ITEMS, settings_for(server, max_retries=1), progress=False).verdicts
    assert verdict.correct is None and "after 2 attempt(s)" in verdict.reason and reason in verdict.reason
    assert len(server.requests) == 2


def test_a_dropped_connection_is_named_as_one_not_as_a_timeout(loopback_openai):
    server = loopback_openai(lambda body: Fault(drop=True))
    (verdict,) = judge_items(ITEMS, settings_for(server, max_retries=1), progress=False).verdicts
    assert verdict.correct is None and "after 2 attempt(s)" in verdict.reason
    assert "connection failed (ServerDisconnectedError" in verdict.reason, verdict.reason


@pytest.fixture
def not_http_url():
    """The URL of a TCP server on 127.0.0.1 that answers every connection with an SSH banner, not HTTP."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer():
        with contextlib.suppress(OSError):  # the listener closed: the test is over
            while True:
                connection, _ = listener.accept()
                with connection:
                    connection.recv(65536)
                    connection.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    threading.Thread(target=answer, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    listener.close()


def test_a_server_that_does_not_speak_http_cannot_be_reached_in_one_line(not_http_url):
    with pytest.raises(JudgeError) as raised:
        judge_items(ITEMS, JudgeSettings(kind="llm", urls=(not_http_url,), model=MODEL), progress=False)
    message = str(raised.value)
    assert message.startswith(f"cannot reach the judge server at {not_http_url}: connection failed (")
    assert "SSH-2.0" in message and "\n" not in message


def test_a_refused_connection_is_named_as_one_not_as_a_timeout():
    with socket.create_server(("127.0.0.1", 0)) as closed:
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
    with pytest.raises(JudgeError) as raised:
        judge_items(ITEMS, JudgeSettings(kind="llm", urls=(url,), model=MODEL), progress=False)
    assert str(raised.value).startswith(f"cannot reach the judge server at {url}: connection failed (")


def test_a_redirect_to_another_host_is_refused_naming_both(loopback_openai):
    target = loopback_openai(exact_match_judge)
    elsewhere = target.url.replace("127.0.0.1", "localhost") + "/chat/completions"
    server = loopback_openai(lambda body: Fault(status=307, headers=(("Location", elsewhere),)))
    with pytest.raises(JudgeError) as raised:
        judge_items(ITEMS, settings_for(server), progress=False)
    message = str(raised.value)
    assert f"host 127.0.0.1:{server.port} -> localhost:{target.port}" in message
    assert "redirects are not followed" in message and "\n" not in message
    assert target.requests == []


def test_an_absurd_concurrency_is_one_line_exit_2(tmp_path, capsys):
    source = tmp_path / "gens.jsonl"
    source.write_text(json.dumps({"id": "q", "question": "1+1?", "answer": "2", "predictions": ["2", "2"]}) + "\n")
    code = main(
        [
            "score",
            str(source),
            "--k",
            "1",
            "--judge-url",
            "http://127.0.0.1:9/v1",
            "--judge-model",
            "m",
            "--concurrency",
            "2000000",
            "--quiet",
        ]
    )
    error = capsys.readouterr().err.strip()
    assert code == 2
    assert error == "gpassk score: error: --concurrency 2000000: input should be less than or equal to 1024"


@pytest.mark.parametrize(
    ("field", "value"),
    [("rule_processes", 100_000), ("max_retries", 10**9), ("max_tokens", 10**9), ("response_tail_chars", 10**9)],
)
def test_every_number_that_sizes_the_work_is_bounded_where_it_is_read(field, value):
    """A saved evaluator's or a user's number that sizes work (processes, retries, sizes) is refused in one line."""
    from gpassk_opencompass.errors import InputError
    from gpassk_opencompass.plugin.evaluator import GPassKEvaluator

    with pytest.raises(InputError, match=rf"{field} = {value}: input should be less than or equal to"):
        JudgeSettings(kind="rule", **{field: value})
    with pytest.raises(InputError, match=field):
        GPassKEvaluator(judge="rule", **{field: value})
