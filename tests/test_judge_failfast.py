"""The LLM judge under real faults: transient ones retried, the rest stopping the run at once, secrets never shown.

Real HTTP servers on 127.0.0.1 (tests/loopback_openai.py); no timing assertions: requests are counted.
"""

import asyncio
import gc
import io
import json
import threading

import pytest
from loguru import logger

from gpassk_opencompass.judges import JudgeError, JudgeItem, JudgeSettings, build_judge_prompt, judge_items
from gpassk_opencompass.judges import llm as llm_module
from gpassk_opencompass.log import enable_logging
from loopback_judge import exact_match_judge, shown
from loopback_openai import Fault, Overloaded

MODEL = "loopback-model"


def settings_for(*servers, **overrides):
    options = dict(
        kind="llm",
        urls=tuple(server.url for server in servers),
        model=MODEL,
        backoff_base=0.01,
        backoff_max=0.05,
        request_timeout=5.0,
    )
    options.update(overrides)
    return JudgeSettings(**options)


def items_for(answers, reference="12"):
    return [JudgeItem("How many edges has a cube?", reference, f"... \\boxed{{{answer}}}") for answer in answers]


# Three fault sequences in the quick loop, ten in the full run (each is 60 real HTTP exchanges).
@pytest.mark.parametrize("seed", [*range(3), *(pytest.param(seed, marks=pytest.mark.e2e) for seed in range(3, 10))])
def test_an_overloaded_judge_loses_no_verdict_and_every_verdict_is_right(loopback_openai, seed):
    # 15% HTTP 500, 10% 429, 5% replies without a verdict, 3% dropped connections on every attempt, uncapped:
    # retries go on while the judge makes progress (no fixed few attempts), so every verdict arrives.
    faults = Overloaded(exact_match_judge, seed)
    servers = [loopback_openai(faults), loopback_openai(faults)]
    items = [
        JudgeItem(
            f"Question {question}: what is {question}?",
            str(question),
            f"\\boxed{{{question if sample == 0 else question + sample}}}",
        )
        for question in range(30)
        for sample in range(2)
    ]
    report = judge_items(
        items, settings_for(*servers, concurrency=8, backoff_base=0.001, backoff_max=0.005), progress=False
    )
    truth = [
        exact_match_judge(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": build_judge_prompt(
                            item.question, item.reference, item.response[len("\\boxed{") : -1], "en"
                        ),
                    }
                ]
            }
        )
        for item in items
    ]
    assert [verdict.correct for verdict in report.verdicts] == [said.endswith("{yes}") for said in truth]
    assert report.stats.unresolved == 0
    assert report.stats.retries == sum(faults.injected.values())


def wrong_model_server(loopback_openai):
    def respond(body):
        return Fault(
            status=400,
            body=json.dumps(
                {"error": {"message": f"The model `{body['model']}` does not exist.", "type": "NotFoundError"}}
            ),
        )

    return loopback_openai(respond, model_name="judge-7b")


def test_a_judge_refusing_every_request_stops_after_the_probe(loopback_openai):
    server = wrong_model_server(loopback_openai)
    settings = settings_for(server, model="judge-7B", check_endpoints=False)
    with pytest.raises(JudgeError) as raised:
        judge_items(items_for(str(number) for number in range(100)), settings, progress=False)
    message = str(raised.value)
    assert "HTTP 400" in message and "The model `judge-7B` does not exist." in message
    assert "it serves: judge-7b" in message
    assert "\n" not in message
    assert len(server.requests) == 1  # the probe alone
    assert raised.value.arrived == 0


def test_a_generic_400_on_the_probe_stops_the_run(loopback_openai):
    server = loopback_openai(
        lambda body: Fault(status=400, body='{"error": {"message": "temperature is not supported"}}')
    )
    with pytest.raises(JudgeError, match="HTTP 400 for model 'loopback-model': temperature is not supported"):
        judge_items(
            items_for(str(number) for number in range(100)), settings_for(server, concurrency=8), progress=False
        )
    assert len(server.requests) == 1


def test_each_url_is_probed_alone_before_the_workers_start(loopback_openai):
    servers = [wrong_model_server(loopback_openai), wrong_model_server(loopback_openai)]
    with pytest.raises(JudgeError, match="does not exist"):
        judge_items(
            items_for(str(number) for number in range(100)),
            settings_for(*servers, model="judge-7B", check_endpoints=False, concurrency=16),
            progress=False,
        )
    assert [len(server.requests) for server in servers] == [1, 1]


def test_rejections_in_a_row_after_a_verdict_stop_the_run(loopback_openai):
    verdicts = iter(range(1))

    def respond(body):
        if next(verdicts, None) is not None:
            return exact_match_judge(body)
        return Fault(status=400, body='{"error": {"message": "maximum context length exceeded"}}')

    server = loopback_openai(respond)
    with pytest.raises(JudgeError, match="3 requests refused in a row") as raised:
        judge_items(
            items_for(str(number) for number in range(100)), settings_for(server, concurrency=2), progress=False
        )
    assert len(server.requests) <= 1 + 3 + 2  # the probe, three refusals, what was in flight
    assert raised.value.arrived == 1


class DyingJudge:
    """Judges ``lives`` requests exactly, then dies: drops every connection; the test stops the server."""

    def __init__(self, lives):
        self.lives = lives
        self.lock = threading.Lock()
        self.dead = threading.Event()

    def __call__(self, body):
        with self.lock:
            alive = self.lives > 0
            self.lives -= 1
        if alive:
            return exact_match_judge(body)
        self.dead.set()
        return Fault(drop=True)


def test_a_judge_that_dies_mid_run_stops_it_quickly_and_the_verdicts_are_cached(loopback_openai, tmp_path, monkeypatch):
    judge = DyingJudge(lives=20)
    server = loopback_openai(judge)
    threading.Thread(target=lambda: (judge.dead.wait(), server.stop()), daemon=True).start()
    retries = []
    original = llm_module.retry_delay
    monkeypatch.setattr(llm_module, "retry_delay", lambda *args: retries.append(args) or original(*args))
    cache = tmp_path / "verdicts.jsonl"
    answers = [str(number) for number in range(200)]
    settings = settings_for(server, concurrency=4, max_retries=5, cache_path=cache)
    with pytest.raises(JudgeError) as raised:
        judge_items(items_for(answers), settings, progress=False)
    error = raised.value
    lines = cache.read_text().splitlines()
    assert 1 <= error.arrived <= 20 and len(lines) == error.arrived
    message = str(error)
    assert "the judge stopped answering" in message and f"{error.arrived} of 200 verdicts arrived" in message
    assert f"kept in the judge cache {cache}: the same command resumes" in message
    # stopped after a dozen failures in a row, not after 180 answers x 5 retries
    assert len(retries) <= llm_module.failures_in_a_row_limit(1, 4)

    revived = loopback_openai(exact_match_judge)
    report = judge_items(items_for(answers), settings_for(revived, cache_path=cache), progress=False)
    assert report.stats.cached == error.arrived and len(revived.requests) == 200 - error.arrived
    assert [verdict.correct for verdict in report.verdicts] == [answer == "12" for answer in answers]


SECRET = "gpassk-test-secret-9f8e7d6c"


def test_a_server_quoting_the_key_never_gets_it_printed(loopback_openai, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OC_JUDGE_API_KEY", SECRET)
    quoted = json.dumps({"error": {"message": f"bad header Authorization: Bearer {SECRET} (key {SECRET})"}})
    refusing = loopback_openai(lambda body: Fault(status=400, body=quoted))
    log = io.StringIO()
    enable_logging()
    sink = logger.add(log, level="DEBUG")
    try:
        with pytest.raises(JudgeError) as raised:
            judge_items(items_for(["12", "8"]), settings_for(refusing), progress=True)
        # after a verdict: an item-specific refusal quoting the key becomes that item's reason
        too_long = json.dumps({"error": {"message": f"maximum context length exceeded; Authorization: {SECRET}"}})
        picky = loopback_openai(
            lambda body: (
                Fault(status=400, body=too_long) if shown(body, "student_answer") == "8" else exact_match_judge(body)
            )
        )
        cache = tmp_path / "verdicts.jsonl"
        items = [*items_for(["12", "8"]), JudgeItem("q", "1", f"my key is {SECRET}, so \\boxed{{{SECRET}}}")]
        report = judge_items(items, settings_for(picky, cache_path=cache, max_retries=0), progress=True)
    finally:
        logger.remove(sink)
    assert authorization_of(refusing) == f"Bearer {SECRET}"  # sent, as it must be
    assert SECRET not in str(raised.value) and "[REDACTED]" in str(raised.value)
    assert report.verdicts[1].correct is None and "maximum context length" in report.verdicts[1].reason
    for verdict in report.verdicts:
        assert SECRET not in verdict.reason
    assert SECRET not in cache.read_text() and cache.read_text().count("\n") == 2
    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    assert SECRET not in log.getvalue()


def authorization_of(server):
    return {name.lower(): value for name, value in server.headers_seen[0].items()}["authorization"]


def test_gpassk_score_says_once_where_the_verdicts_of_a_judge_dead_mid_run_are_kept(loopback_openai, tmp_path, capsys):
    from gpassk_opencompass.cli import EXIT_JUDGE_FAILED, main

    judge = DyingJudge(lives=5)
    server = loopback_openai(judge)
    threading.Thread(target=lambda: (judge.dead.wait(), server.stop()), daemon=True).start()
    source, cache = tmp_path / "gens.jsonl", tmp_path / "verdicts.jsonl"
    row = {"id": "q0", "question": "edges of a cube?", "answer": "12", "predictions": [str(i) for i in range(40)]}
    source.write_text(json.dumps(row) + "\n")
    args = ["score", str(source), "--k", "1", "--judge", "llm", "--judge-url", server.url, "--judge-model", MODEL,
            "--cache", str(cache), "--concurrency", "2", "--quiet"]  # fmt: skip
    assert main(args) == EXIT_JUDGE_FAILED
    (line,) = capsys.readouterr().err.strip().splitlines()
    arrived = len(cache.read_text().splitlines())
    assert arrived >= 1 and f"{arrived} of 40 verdicts arrived" in line
    assert line.count(str(cache)) == 1 and line.count("resume") == 1


def test_a_request_that_fails_while_being_cancelled_leaves_no_unretrieved_exception():
    """SIGTERM cancels the run while a request is in flight; the request's own task then ends with the
    connection's error (``APIConnectionError``). Nobody awaits that task any more: unless its exception is
    taken, asyncio prints "Task exception was never retrieved" with a traceback after the one-line goodbye
    (seen in `gpassk score` terminated by SIGTERM under load)."""
    reported: list[dict] = []

    async def request():
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            raise ConnectionError("Connection error.") from None

    async def run():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        caller = asyncio.ensure_future(llm_module._by_deadline(request(), 60))
        await asyncio.sleep(0.01)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await asyncio.sleep(0.01)
        gc.collect()

    asyncio.run(run())
    assert not [context for context in reported if "never retrieved" in context.get("message", "")], reported
