r"""The LLM judge: many prompts over one or more OpenAI-compatible endpoints.

:func:`ask_judges` sends each prompt to a judge model with the official ``openai`` async client,
``concurrency`` requests in flight per URL drawing from one queue, at temperature 0, and reads a
``\boxed{yes}``/``\boxed{no}`` verdict back. What a reply means is decided by the pure
:func:`~gpassk_opencompass.judges.replies.classify`; the loop here probes each URL first, counts,
retries while the judge makes progress (``progress_window``), gives up a prompt as ``correct=None``
with the reason, or stops the run with :class:`JudgeError` (the policy, with its limits, is
docs/evaluator.md, "Judges"). Every message passes through
:func:`~gpassk_opencompass.redaction.redact`; the API key (``OC_JUDGE_API_KEY``, else
``OPENAI_API_KEY``, else ``EMPTY``) is never logged.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from gpassk_opencompass.errors import clause
from gpassk_opencompass.judges.prompts import judge_protocol
from gpassk_opencompass.judges.replies import KEY_STATUSES, Reply, classify, retry_reason, server_message, short
from gpassk_opencompass.judges.transport import RedirectRefused, TransportFault, connection_failed, judge_http_client
from gpassk_opencompass.judges.types import JudgeSettings
from gpassk_opencompass.log import logger
from gpassk_opencompass.redaction import redact

if TYPE_CHECKING:
    from openai import RequestOptions

#: Environment variables holding the judge API key, in order of preference.
API_KEY_VARIABLES = ("OC_JUDGE_API_KEY", "OPENAI_API_KEY")
#: Longest ``Retry-After`` honoured, seconds (also never past the progress window).
MAX_RETRY_AFTER = 60.0
#: A wait before a retry longer than this many seconds is logged (a run that seems stuck says why).
LOGGED_WAIT = 5.0
#: Replies without a verdict (complete, but no final box) after which a prompt is given up.
REPLIES_WITHOUT_VERDICT = 6
#: A reply cut by the token limit is asked again with twice the budget, up to this many times ``max_tokens``.
MAX_TOKENS_GROWTH = 4
#: Item-level rejections (4xx) in a row, with no verdict between them, that stop the run.
REJECTIONS_IN_A_ROW = 3
#: Replies over the size limit in a row, with no verdict between them, that stop the run.
OVERSIZED_IN_A_ROW = 3
#: Least number of failed requests in a row (no verdict between) that means the judge stopped answering.
MIN_FAILURES_IN_A_ROW = 12


class JudgeError(RuntimeError):
    """The judge endpoints cannot serve this run (unreachable, wrong model, refused key, stopped answering).

    The message is redacted on construction (no API key can be printed from it).

    Attributes:
        arrived: verdicts that arrived (and were handed on) before the run
            stopped; ``0`` when it stopped before any judging.
        mid_run: whether judging had started (some requests were sent).

    >>> str(JudgeError("server said: Authorization: Bearer abc123secret"))
    'server said: Authorization: Bearer [REDACTED]'
    """

    def __init__(self, message: str, *, arrived: int = 0, mid_run: bool = False) -> None:
        super().__init__(redact(" ".join(str(message).split())))
        self.arrived = arrived
        self.mid_run = mid_run


@dataclass(frozen=True)
class JudgeAnswer:
    """What the judge model said about one prompt: ``correct`` is ``None`` when it could not say.

    ``finish_reason`` is the server's for the reply that gave the verdict
    (``"stop"``; ``None`` when the server did not say or there is no verdict).
    """

    correct: bool | None
    reason: str
    finish_reason: str | None = None


@dataclass(frozen=True)
class LlmStats:
    """Requests sent (retries included) and how many of them were retries."""

    requests: int
    retries: int


@dataclass
class _Attempt:
    index: int
    max_tokens: int | None
    failures: int = 0
    without_verdict: int = 0  # complete replies that held no verdict


class _Stop(Exception):
    """A fault no retry can fix (raised inside a request, turned into :class:`JudgeError`)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def api_key() -> str:
    """The judge API key from the environment (``EMPTY`` for local servers)."""
    for name in API_KEY_VARIABLES:
        value = os.environ.get(name)
        if value:
            return value
    return "EMPTY"


def retry_delay(retry: int, base: float, cap: float, retry_after: float | None, rng: random.Random) -> float:
    """Seconds to wait before retry number ``retry`` (0-based).

    Full jitter: uniform in ``[0, min(cap, base * 2**retry)]``; a server's
    ``Retry-After`` is a floor (up to :data:`MAX_RETRY_AFTER`).

    >>> rng = random.Random(0)
    >>> 0 <= retry_delay(3, 1.0, 60.0, None, rng) <= 8.0
    True
    >>> retry_delay(0, 1.0, 60.0, 5.0, rng) >= 5.0
    True
    """
    delay = rng.uniform(0.0, min(cap, base * 2**retry))
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY_AFTER))
    return delay


def failures_in_a_row_limit(urls: int, concurrency: int) -> int:
    """Failed requests in a row (no verdict between) after which the judge is taken to have stopped answering.

    Three rounds of every in-flight request, at least :data:`MIN_FAILURES_IN_A_ROW`.

    >>> failures_in_a_row_limit(1, 32), failures_in_a_row_limit(1, 1)
    (96, 12)
    """
    return max(MIN_FAILURES_IN_A_ROW, 3 * urls * concurrency)


async def ask_judges(
    prompts: Sequence[str], settings: JudgeSettings, on_answer: Callable[[int, JudgeAnswer], None], *, seed: int = 0
) -> LlmStats:
    """Ask the judge model about every prompt; report each answer as it arrives.

    Args:
        prompts: the judge prompts.
        settings: URLs, model, concurrency, timeouts, retry budget.
        on_answer: called as ``on_answer(index, answer)`` exactly once per
            prompt, from the event loop, as soon as its answer is final
            (before any :class:`JudgeError` is raised for a later one).
        seed: seeds the backoff jitter.

    Returns:
        How many requests were sent.

    Raises:
        JudgeError: an endpoint is unreachable at the start, does not serve
            the model, refuses the key or the requests, redirects, or stops
            answering mid-run (see the module docstring).
    """
    if not prompts:
        return LlmStats(0, 0)
    endpoints = [_Endpoint(url, settings) for url in settings.urls]
    try:
        if settings.check_endpoints:
            await asyncio.gather(*(_check_endpoint(endpoint, settings) for endpoint in endpoints))
        return await _AskAll(prompts, settings, on_answer, random.Random(seed)).run(endpoints)
    finally:
        await asyncio.gather(*(endpoint.close() for endpoint in endpoints), return_exceptions=True)


def _list_deadline(settings: JudgeSettings) -> float:
    # one request per URL: give a busy server time even when request_timeout is short
    return min(max(settings.request_timeout, 10.0), 30.0)


class _Endpoint:
    """One judge URL and its ``openai.AsyncOpenAI`` client, on the bounded transport.

    Every call is held to a total deadline; what ``openai`` raises is mapped
    back: ``openai.APIStatusError`` (a non-2xx answer) is passed on,
    :class:`RedirectRefused` is raised as is, and anything else that leaves no
    usable reply (a timeout, a dropped connection, an oversized or unreadable
    body) becomes a :class:`TransportFault` with the reason.
    """

    def __init__(self, url: str, settings: JudgeSettings) -> None:
        import openai  # deferred: openai loads when a judge model is asked, not when the judges are imported

        self.base_url = url
        http_client = judge_http_client(settings.concurrency + 2)
        # A query in the judge URL (``?token=...``) goes with every request: openai would put the route after it.
        parts = urlsplit(url)
        self.client = openai.AsyncOpenAI(
            base_url=urlunsplit(parts._replace(query="")),
            api_key=api_key(),
            default_query=dict(parse_qsl(parts.query, keep_blank_values=True)) or None,
            max_retries=0,
            timeout=settings.request_timeout,
            http_client=http_client,
        )

    async def complete(self, body: dict, deadline: float):
        """A chat completion (``openai``'s ``ChatCompletion``) for ``body``, within ``deadline`` seconds.

        Sent with the client's generic POST (its documented way to send a body
        as-is), as ``chat.completions.create`` sends it -- the same route, key,
        errors and reply type -- without its typed-request transform of the
        body: 1,800 Python calls per request instead of 3,200, a fifth less of
        the client's CPU, which bounds the judge at hundreds of requests a second.
        """
        from openai.types.chat import (
            ChatCompletion,
        )  # deferred: openai loads when a judge model is asked, not when the judges are imported

        options: RequestOptions = {"timeout": deadline, "security": {"bearer_auth": True}}
        reply = await self._within(
            self.client.post("/chat/completions", body=body, cast_to=ChatCompletion, options=options), deadline
        )
        if isinstance(reply, str):  # openai hands back the text of a reply that is not JSON
            raise TransportFault(f"reply is not JSON ({reply[:80]!r})")
        return reply

    async def models(self, deadline: float):
        """The server's model list page (``GET /models``), within ``deadline`` seconds."""
        return await self._within(self.client.models.list(timeout=deadline), deadline)

    async def close(self) -> None:
        """Close every connection."""
        await self.client.close()

    @staticmethod
    async def _within(call: Awaitable, deadline: float):
        import openai  # deferred: openai loads when a judge model is asked, not when the judges are imported

        try:
            return await _by_deadline(call, deadline)
        except (asyncio.TimeoutError, openai.APITimeoutError):
            raise TransportFault(
                f"no complete reply within {deadline:g}s (the request's total deadline, --request-timeout)"
            ) from None
        except openai.APIConnectionError as error:
            cause = error.__cause__
            if isinstance(cause, (TransportFault, RedirectRefused)):
                raise cause from None
            raise TransportFault(connection_failed(cause or error)) from None
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, openai.APIResponseValidationError) as error:
            # the body did not parse (a bug elsewhere keeps its traceback)
            raise TransportFault(f"reply is not JSON ({type(error).__name__}: {str(error)[:80]})") from None


async def _by_deadline(call: Awaitable, deadline: float):
    """``await call``, cancelled after ``deadline`` seconds (``asyncio.TimeoutError``).

    Unlike ``asyncio.wait_for`` before Python 3.12, a cancellation of the
    caller (Ctrl-C) is never swallowed when it meets the call's own end: the
    call runs as a task of its own, cancelled whenever the caller leaves. A
    call that ends in an error after the caller left (a connection closed by
    the cancellation) has its error taken, so asyncio never prints it.
    """
    task = asyncio.ensure_future(call)
    task.add_done_callback(_taken)
    try:
        done, _ = await asyncio.wait({task}, timeout=deadline)
        if task not in done:
            raise asyncio.TimeoutError
        return task.result()
    finally:
        task.cancel()


def _taken(task: asyncio.Future) -> None:
    """Take a finished call's error, so that one nobody awaits is not reported as never retrieved."""
    if not task.cancelled():
        task.exception()


async def _served_models(endpoint: _Endpoint, settings: JudgeSettings) -> list[str] | None:
    """The model names a server lists (``GET /models``), ``None`` if it does not say."""
    import openai  # deferred: openai loads when a judge model is asked, not when the judges are imported

    try:
        page = await endpoint.models(_list_deadline(settings))
    except (openai.APIStatusError, TransportFault, RedirectRefused):
        return None
    return _model_ids(page)


def _model_ids(page) -> list[str] | None:
    """The ids of a ``/models`` page, ``None`` if it is not one.

    >>> from openai.types import Model
    >>> class Page: data = [Model.construct(id="judge-7b")]
    >>> class Odd: data = 3
    >>> _model_ids(Page()), _model_ids(Odd())
    (['judge-7b'], None)
    """
    data = getattr(page, "data", None)
    if not isinstance(data, list):
        return None
    return [str(model.id) for model in data if getattr(model, "id", None) is not None]


async def _check_endpoint(endpoint: _Endpoint, settings: JudgeSettings) -> None:
    import openai  # deferred: openai loads when a judge model is asked, not when the judges are imported

    url = endpoint.base_url
    try:
        page = await endpoint.models(_list_deadline(settings))
    except RedirectRefused as error:
        raise JudgeError(str(error)) from None
    except openai.APIStatusError as error:
        if error.status_code in KEY_STATUSES:
            raise JudgeError(
                f"judge server {url} refused the API key (HTTP {error.status_code}: "
                f"{server_message(error)}); set {' or '.join(API_KEY_VARIABLES)}"
            ) from None
        logger.debug(
            "judge server {} answered HTTP {} to the model list; not checking the model name",
            url,
            error.status_code,
        )
        return
    except TransportFault as error:
        raise JudgeError(f"cannot reach the judge server at {url}: {clause(short(error))}; is it running?") from None
    served = _model_ids(page)
    if served and settings.model not in served:
        raise JudgeError(f"judge model {settings.model!r} is not served at {url}; it serves: {', '.join(served)}")


class _AskAll:
    """One run of :func:`ask_judges`: a probe per URL, then a shared queue, ``concurrency`` workers per client."""

    def __init__(self, prompts, settings, on_answer, rng):
        self.prompts = prompts
        self.settings = settings
        self.protocol = judge_protocol(settings.judge_prompt)  # the reply is read as the prompt's protocol says
        self.on_answer = on_answer
        self.rng = rng
        self.queue: asyncio.Queue[_Attempt] = asyncio.Queue()
        self.remaining = len(prompts)
        self.done = asyncio.Event()
        self.requests = 0
        self.retries = 0
        self.arrived = 0
        self.failure: BaseException | None = None
        # Set when the first stop is seen, before its message is built (which asks the server for its
        # models): a second worker's later refusal must neither be asked for nor reported instead.
        self.stopping = False
        self.confirmed = False  # some endpoint has given a verdict
        self.rejections_in_a_row = 0
        self.oversized_in_a_row = 0
        self.failures_in_a_row = 0
        self.failure_limit = failures_in_a_row_limit(len(settings.urls), settings.concurrency)
        self.last_verdict = time.monotonic()  # when a verdict last arrived (the run's start before the first)

    async def run(self, endpoints: list[_Endpoint]) -> LlmStats:
        attempts = [_Attempt(index, self.settings.max_tokens) for index in range(len(self.prompts))]
        probes = attempts[: len(endpoints)]
        for attempt in attempts[len(probes) :]:
            self.queue.put_nowait(attempt)
        # The probe: one real prompt per URL, alone, before the flood.
        await asyncio.gather(*(self._guarded(endpoint, attempt) for endpoint, attempt in zip(endpoints, probes)))
        if self.failure is None and self.remaining:
            # Interleaved across URLs: the queue serves waiting workers first come, first served,
            # so even a batch smaller than the concurrency is spread over every URL.
            workers = [
                asyncio.create_task(self._work(endpoint))
                for _ in range(self.settings.concurrency)
                for endpoint in endpoints
            ]
            try:
                await self.done.wait()
            finally:
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
        if self.failure is not None:
            raise self.failure
        return LlmStats(self.requests, self.retries)

    def _finish(self, attempt: _Attempt, answer: JudgeAnswer) -> None:
        self.on_answer(attempt.index, answer)
        self.remaining -= 1
        if self.remaining == 0:
            self.done.set()

    def _fail(self, error: BaseException) -> None:
        if self.failure is None:
            self.failure = error
        self.done.set()

    def _retry_later(self, attempt: _Attempt, delay: float) -> None:
        asyncio.get_running_loop().call_later(delay, self.queue.put_nowait, attempt)

    async def _work(self, endpoint: _Endpoint) -> None:
        while self.failure is None and not self.stopping:
            attempt = await self.queue.get()
            await self._guarded(endpoint, attempt)

    async def _guarded(self, endpoint: _Endpoint, attempt: _Attempt) -> None:
        """Ask; a fault that stops the run is recorded for run() to raise."""
        try:
            await self._ask(endpoint, attempt)
        except _Stop as stop:
            if self.stopping:
                return  # the first stop is the one reported
            self.stopping = True
            self._fail(await self._stop_error(endpoint, stop))
        except JudgeError as error:
            self._fail(error)
        except Exception as error:  # noqa: BLE001 - handed to run(), which re-raises it
            # A worker must not die quietly: the run would wait forever for its prompt.
            self._fail(error)

    async def _stop_error(self, endpoint: _Endpoint, stop: _Stop) -> JudgeError:
        settings = self.settings
        text = (
            f"judge server {endpoint.base_url} answered HTTP {stop.status} for model {settings.model!r}: {stop.message}"
        )
        if stop.status in KEY_STATUSES:
            text += f"; the API key was refused: set {' or '.join(API_KEY_VARIABLES)}"
        else:
            served = await _served_models(endpoint, settings)
            if served and settings.model not in served:
                text += f"; model {settings.model!r} is not served there, it serves: {', '.join(served)}"
        if self.arrived:
            text += f"; {self.arrived} of {len(self.prompts)} verdicts arrived before that"
        return JudgeError(text, arrived=self.arrived, mid_run=True)

    async def _ask(self, endpoint: _Endpoint, attempt: _Attempt) -> None:
        """Send ``attempt``'s prompt once and act on what came back (:func:`~.replies.classify`)."""
        import openai  # deferred: loaded with the client (_Endpoint), not when the judges are imported

        if attempt.failures:
            self.retries += 1
        self.requests += 1
        body = {
            "model": self.settings.model,
            "messages": [{"role": "user", "content": self.prompts[attempt.index]}],
            "temperature": 0.0,
            **({"max_tokens": attempt.max_tokens} if attempt.max_tokens is not None else {}),
        }
        try:
            outcome = await endpoint.complete(body, self.settings.request_timeout)
        except (RedirectRefused, TransportFault, openai.APIStatusError) as error:
            outcome = error
        reply = classify(outcome, self.protocol.read, confirmed=self.confirmed, max_tokens=attempt.max_tokens)
        if reply.kind == "verdict":
            self.confirmed = True
            self.rejections_in_a_row = self.oversized_in_a_row = self.failures_in_a_row = 0
            self.arrived += 1
            self.last_verdict = time.monotonic()
            self._finish(attempt, JudgeAnswer(reply.correct, reply.problem, reply.finish_reason))
        elif reply.kind == "redirect":
            raise self._stopped(reply.problem)
        elif reply.kind in ("stop", "rejected"):
            self._rejected(attempt, reply)
        else:
            self._retry(endpoint.base_url, attempt, reply)

    def _stopped(self, text: str) -> JudgeError:
        """The run's stop: ``text`` and how many verdicts arrived before it."""
        so_far = f"{self.arrived} of {len(self.prompts)} verdicts arrived before that"
        return JudgeError(f"{clause(text)}; {so_far}", arrived=self.arrived, mid_run=True)

    def _rejected(self, attempt: _Attempt, reply: Reply) -> None:
        """A 4xx: the run stops, or this prompt alone is unresolved (until too many come in a row)."""
        status = cast(int, reply.status)
        if reply.kind == "stop":
            raise _Stop(status, reply.problem)
        self.rejections_in_a_row += 1
        if self.rejections_in_a_row >= REJECTIONS_IN_A_ROW:
            raise _Stop(status, f"{reply.problem} ({self.rejections_in_a_row} requests refused in a row)")
        self._finish(attempt, JudgeAnswer(None, f"judge rejected the request (HTTP {status}): {reply.problem}"))

    def _retry(self, url: str, attempt: _Attempt, reply: Reply) -> None:
        """A fault, a reply without a verdict or a cut one: count it, then retry ``attempt`` or give it up."""
        problem = reply.problem
        if reply.oversized:
            self.oversized_in_a_row += 1
            if self.oversized_in_a_row >= OVERSIZED_IN_A_ROW:
                raise JudgeError(
                    f"the judge's replies are too large: {self.oversized_in_a_row} in a row with no verdict between "
                    f"them (last: {problem} at {url}); is it a chat-completions endpoint? {self.arrived} of "
                    f"{len(self.prompts)} verdicts arrived before that",
                    arrived=self.arrived,
                    mid_run=True,
                )
        if reply.kind == "cut":
            attempt.max_tokens = self._grown_budget(attempt.max_tokens)
            if attempt.max_tokens is None:
                self._finish(
                    attempt,
                    JudgeAnswer(None, f"judge request failed after {attempt.failures + 1} attempt(s): {problem}"),
                )
                return
        elif reply.kind == "no verdict":
            attempt.without_verdict += 1
        if reply.outage:
            self.failures_in_a_row += 1
            if self.failures_in_a_row >= self.failure_limit:
                raise self._stopped(
                    f"the judge stopped answering: {self.failures_in_a_row} requests in a row failed with no "
                    f"verdict between them (last: {problem} at {url})"
                )
        given_up = self._given_up(attempt)
        if given_up is not None:
            self._finish(
                attempt,
                JudgeAnswer(None, f"judge request failed after {attempt.failures + 1} attempt(s){given_up}: {problem}"),
            )
            return
        delay = 0.0 if reply.kind == "cut" else self._delay(attempt, reply, url)
        attempt.failures += 1
        logger.debug(
            "judge request {} to {}: {}; retry {} in {:.2f}s", attempt.index, url, problem, attempt.failures, delay
        )
        self._retry_later(attempt, delay)

    def _given_up(self, attempt: _Attempt) -> str | None:
        """Why ``attempt`` is not retried (``""``: its retry budget is spent), ``None`` to retry it."""
        settings = self.settings
        if settings.max_retries is not None and attempt.failures >= settings.max_retries:
            return ""
        if attempt.without_verdict >= REPLIES_WITHOUT_VERDICT:
            return f", {attempt.without_verdict} replies without a verdict"
        if time.monotonic() - self.last_verdict >= settings.progress_window:
            return (
                f", the judge gave no verdict to any request for {settings.progress_window:g}s "
                "(the progress window, --progress-window)"
            )
        return None

    def _grown_budget(self, max_tokens: int | None) -> int | None:
        """The token budget to retry a cut reply with, ``None`` when it may not grow further."""
        configured = self.settings.max_tokens
        if configured is None or max_tokens is None or max_tokens >= configured * MAX_TOKENS_GROWTH:
            return None
        return min(2 * max_tokens, configured * MAX_TOKENS_GROWTH)

    def _delay(self, attempt: _Attempt, reply: Reply, url: str) -> float:
        """The backoff before the next attempt; a server's ``Retry-After`` is capped, and a long wait logged with
        why the attempt failed (:func:`~.replies.retry_reason`)."""
        settings, retry_after = self.settings, reply.retry_after
        if retry_after is not None:
            capped = min(retry_after, MAX_RETRY_AFTER, settings.progress_window)
            if retry_after > LOGGED_WAIT:
                logger.warning(
                    "judge server {} answered {} and asks to wait {:g}s before retrying (Retry-After); "
                    "waiting {:g}s at most",
                    url,
                    retry_reason(reply),
                    retry_after,
                    capped,
                )
            retry_after = capped
        delay = retry_delay(attempt.failures, settings.backoff_base, settings.backoff_max, retry_after, self.rng)
        if delay > LOGGED_WAIT and (reply.retry_after is None or reply.retry_after <= LOGGED_WAIT):
            logger.info(
                "judge request to {} failed ({}); waiting {:.1f}s before retry {}",
                url,
                retry_reason(reply),
                delay,
                attempt.failures + 1,
            )
        return delay
