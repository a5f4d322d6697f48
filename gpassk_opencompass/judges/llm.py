r"""The LLM judge: many prompts over one or more OpenAI-compatible endpoints.

:func:`ask_judges` sends each prompt to a judge model with the official
``openai`` async client and reads a ``\boxed{yes}``/``\boxed{no}`` verdict
back.  It keeps ``concurrency`` requests in flight per URL, all URLs drawing
from one queue (a fast server takes more work), at temperature 0.

**Probe first.**  Before the concurrent workers start, the first prompts are
sent one per URL, alone (real work: their verdicts are kept).  An answer that
no retry can fix stops the run there, with one line, instead of a flood of
identical failures.

**Transient faults are retried**, each retry free to land on any URL, up to
``max_retries`` times per prompt after an exponential backoff with full
jitter (or after ``Retry-After`` when the server names a longer wait):

* 429, 408, 5xx, timeouts, dropped connections, a body that is not JSON;
* a reply without a readable final ``\boxed{yes}``/``\boxed{no}``.

A prompt whose retries run out gets ``correct=None`` with the reason --
counted, never silently wrong.

**Faults retrying cannot fix stop the run** with :class:`JudgeError`:

* 401/403 (key refused), 404 and "model not found" answers (wrong URL or
  model name; the message lists the models the server serves);
* any other 4xx (400, 422, ...) before the endpoint has given one verdict;
  after that, a 4xx that names the item (e.g. "maximum context length") makes
  that prompt alone unresolved, but :data:`REJECTIONS_IN_A_ROW` of them with
  no verdict in between stop the run;
* a judge that stops answering: :func:`failures_in_a_row_limit` failed
  requests in a row (connections, timeouts, 5xx; not 429s or replies without
  a verdict) with no verdict in between.  The message says how many verdicts
  arrived; they were already handed to ``on_answer`` (and so cached).

Every message this module produces (errors, reasons, log lines) passes
through :func:`~gpassk_opencompass.redaction.redact`: a server that quotes
the ``Authorization`` header back never gets the key printed.

The API key comes from ``OC_JUDGE_API_KEY``, else ``OPENAI_API_KEY``, else
``EMPTY`` (what local vLLM/lmdeploy/SGLang servers accept); it is never
logged.  Nothing on this path downloads tokenizers or touches the Hub.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from loguru import logger

from gpassk_opencompass.judges.prompts import parse_judge_reply
from gpassk_opencompass.judges.types import JudgeSettings
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.errors import clause

#: Environment variables holding the judge API key, in order of preference.
API_KEY_VARIABLES = ("OC_JUDGE_API_KEY", "OPENAI_API_KEY")
#: Longest ``Retry-After`` honoured, seconds (a sanity bound on odd headers).
MAX_RETRY_AFTER = 600.0
#: Item-level rejections (4xx) in a row, with no verdict between them, that stop the run.
REJECTIONS_IN_A_ROW = 3
#: Least number of failed requests in a row (no verdict between) that means the judge stopped answering.
MIN_FAILURES_IN_A_ROW = 12
#: Longest server message quoted in a reason or an error.
MESSAGE_CHARS = 200
_KEY_STATUSES = (401, 403)
# A 4xx whose message names the request itself (too long), not the endpoint: that item alone fails.
_ITEM_SPECIFIC = re.compile(r"context[ _-]?length|too long|too many tokens|maximum .*tokens|max_tokens|"
                            r"prompt is too|exceeds? .*(?:limit|length)", re.IGNORECASE)
_MODEL_MISSING = re.compile(r"model\b.{0,80}\b(?:not found|does not exist|doesn't exist|not exist|unknown|"
                            r"not served|not available|invalid)|(?:no such|unknown|invalid) model", re.IGNORECASE)


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
    """What the judge model said about one prompt: ``correct`` is ``None`` when it could not say."""

    correct: bool | None
    reason: str


@dataclass(frozen=True)
class LlmStats:
    """Requests sent (retries included) and how many of them were retries."""

    requests: int
    retries: int


@dataclass
class _Attempt:
    index: int
    failures: int = 0


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
    delay = rng.uniform(0.0, min(cap, base * 2 ** retry))
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY_AFTER))
    return delay


def parse_retry_after(headers) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date), or ``None``.

    >>> parse_retry_after({"retry-after": "2.5"}), parse_retry_after({"retry-after-ms": "300"}), parse_retry_after({})
    (2.5, 0.3, None)
    """
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None and _is_number(milliseconds):
        return max(0.0, float(milliseconds) / 1000)
    value = headers.get("retry-after")
    if value is None:
        return None
    if _is_number(value):
        seconds = float(value)
    else:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def failures_in_a_row_limit(urls: int, concurrency: int) -> int:
    """Failed requests in a row (no verdict between) after which the judge is taken to have stopped answering.

    Three rounds of every in-flight request, at least :data:`MIN_FAILURES_IN_A_ROW`.

    >>> failures_in_a_row_limit(1, 32), failures_in_a_row_limit(1, 1)
    (96, 12)
    """
    return max(MIN_FAILURES_IN_A_ROW, 3 * urls * concurrency)


def server_message(error) -> str:
    """The server's own words in an HTTP error (its JSON ``message``/``detail``, else the body), redacted, one line.

    >>> class Error: body = {"message": "bad header: Authorization: Bearer tok-123456789", "type": "x"}
    >>> server_message(Error())
    'bad header: Authorization: Bearer [REDACTED]'
    """
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        text = body.get("message") or body.get("detail") or body.get("error") or json.dumps(body, ensure_ascii=False)
        text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    elif isinstance(body, str) and body:
        text = body
    else:
        response = getattr(error, "response", None)
        text = getattr(response, "text", "") or str(error)
    return short(text)


def short(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` redacted, on one line, cut to its first ``limit`` characters.

    >>> short("a\\n b  " + "c" * 300, 10)
    'a b ccccc…'
    """
    text = " ".join(redact(str(text)).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


async def ask_judges(prompts: Sequence[str], settings: JudgeSettings,
                     on_answer: Callable[[int, JudgeAnswer], None], *, seed: int = 0) -> LlmStats:
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
            the model, refuses the key or the requests, or stops answering
            mid-run (see the module docstring).
    """
    import openai

    if not prompts:
        return LlmStats(0, 0)
    clients = [openai.AsyncOpenAI(base_url=url, api_key=api_key(), max_retries=0, timeout=settings.request_timeout)
               for url in settings.urls]
    try:
        if settings.check_endpoints:
            await asyncio.gather(*(_check_endpoint(client, url, settings) for client, url in zip(clients, settings.urls)))
        return await _AskAll(prompts, settings, on_answer, random.Random(seed)).run(clients)
    finally:
        await asyncio.gather(*(client.close() for client in clients), return_exceptions=True)


async def _served_models(client, settings: JudgeSettings) -> list[str] | None:
    """The model names a server lists (``GET /models``), ``None`` if it does not say."""
    import openai

    try:
        # one request per URL: give a busy server time even when request_timeout is short
        page = await client.models.list(timeout=min(max(settings.request_timeout, 10.0), 30.0))
    except (openai.APIStatusError, openai.APIResponseValidationError, ValueError):
        return None
    return [str(model.id) for model in page.data]


async def _check_endpoint(client, url: str, settings: JudgeSettings) -> None:
    import openai

    try:
        page = await client.models.list(timeout=min(max(settings.request_timeout, 10.0), 30.0))
    except openai.NotFoundError:
        logger.debug("judge server {} has no model list; not checking the model name", redact(url))
        return
    except openai.APIStatusError as error:
        if error.status_code in _KEY_STATUSES:
            raise JudgeError(f"judge server {url} refused the API key (HTTP {error.status_code}: "
                             f"{server_message(error)}); set {' or '.join(API_KEY_VARIABLES)}") from None
        logger.debug("judge server {} answered HTTP {} to the model list; not checking the model name",
                     redact(url), error.status_code)
        return
    except openai.APIConnectionError as error:
        raise JudgeError(f"cannot reach the judge server at {url}: {clause(short(error))}; is it running?") from None
    served = [model.id for model in page.data]
    if served and settings.model not in served:
        raise JudgeError(f"judge model {settings.model!r} is not served at {url}; it serves: {', '.join(served)}")


class _AskAll:
    """One run of :func:`ask_judges`: a probe per URL, then a shared queue, ``concurrency`` workers per client."""

    def __init__(self, prompts, settings, on_answer, rng):
        self.prompts = prompts
        self.settings = settings
        self.on_answer = on_answer
        self.rng = rng
        self.queue: asyncio.Queue[_Attempt] = asyncio.Queue()
        self.remaining = len(prompts)
        self.done = asyncio.Event()
        self.requests = 0
        self.retries = 0
        self.arrived = 0
        self.failure: BaseException | None = None
        self.confirmed = False  # some endpoint has given a verdict
        self.rejections_in_a_row = 0
        self.failures_in_a_row = 0
        self.failure_limit = failures_in_a_row_limit(len(settings.urls), settings.concurrency)

    async def run(self, clients) -> LlmStats:
        urls = self.settings.urls
        attempts = [_Attempt(index) for index in range(len(self.prompts))]
        probes = attempts[:len(clients)]
        for attempt in attempts[len(probes):]:
            self.queue.put_nowait(attempt)
        # The probe: one real prompt per URL, alone, before the flood.
        await asyncio.gather(*(self._guarded(client, url, attempt)
                               for client, url, attempt in zip(clients, urls, probes)))
        if self.failure is None and self.remaining:
            # Interleaved across URLs: the queue serves waiting workers first come, first served,
            # so even a batch smaller than the concurrency is spread over every URL.
            workers = [asyncio.create_task(self._work(client, url))
                       for _ in range(self.settings.concurrency)
                       for client, url in zip(clients, urls)]
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

    async def _work(self, client, url: str) -> None:
        while self.failure is None:
            attempt = await self.queue.get()
            await self._guarded(client, url, attempt)

    async def _guarded(self, client, url: str, attempt: _Attempt) -> None:
        """Ask; a fault that stops the run is recorded for run() to raise."""
        try:
            await self._ask(client, url, attempt)
        except _Stop as stop:
            self._fail(await self._stop_error(client, url, stop))
        except JudgeError as error:
            self._fail(error)
        except Exception as error:  # noqa: BLE001 - handed to run(), which re-raises it
            # A worker must not die quietly: the run would wait forever for its prompt.
            self._fail(error)

    async def _stop_error(self, client, url: str, stop: _Stop) -> JudgeError:
        settings = self.settings
        text = f"judge server {url} answered HTTP {stop.status} for model {settings.model!r}: {stop.message}"
        if stop.status in _KEY_STATUSES:
            text += f"; the API key was refused: set {' or '.join(API_KEY_VARIABLES)}"
        else:
            served = await _served_models(client, settings)
            if served and settings.model not in served:
                text += f"; model {settings.model!r} is not served there, it serves: {', '.join(served)}"
        if self.arrived:
            text += f"; {self.arrived} of {len(self.prompts)} verdicts arrived before that"
        return JudgeError(text, arrived=self.arrived, mid_run=True)

    def _classify_rejection(self, status: int, message: str) -> str:
        """``"stop"`` (no retry can fix it) or ``"item"`` (this prompt alone is refused)."""
        if status in _KEY_STATUSES or status == 404 or _MODEL_MISSING.search(message):
            return "stop"
        if _ITEM_SPECIFIC.search(message):
            return "item"
        return "item" if self.confirmed else "stop"

    async def _ask(self, client, url: str, attempt: _Attempt) -> None:
        import openai

        settings = self.settings
        if attempt.failures:
            self.retries += 1
        self.requests += 1
        retry_after = None
        outage = True  # the failure counts towards "the judge stopped answering"
        body = {"model": settings.model, "messages": [{"role": "user", "content": self.prompts[attempt.index]}],
                "temperature": 0.0}
        if settings.max_tokens is not None:
            body["max_tokens"] = settings.max_tokens
        try:
            # The client's generic POST (its documented way to send a request as-is): same auth,
            # timeouts and errors as chat.completions.create, a third less CPU per request
            # (no typed-request transform, no response model), which counts at hundreds per second.
            reply = await client.post("/chat/completions", cast_to=object, body=body)
        except openai.APIStatusError as error:
            status = error.status_code
            if 400 <= status < 500 and status not in (408, 429):
                message = server_message(error)
                if self._classify_rejection(status, message) == "stop":
                    raise _Stop(status, message) from None
                self.rejections_in_a_row += 1
                if self.rejections_in_a_row >= REJECTIONS_IN_A_ROW:
                    raise _Stop(status, f"{message} ({self.rejections_in_a_row} requests refused in a row)") from None
                self._finish(attempt, JudgeAnswer(None, f"judge rejected the request (HTTP {status}): {message}"))
                return
            problem = f"HTTP {status}"
            outage = status != 429  # rate limiting: the server is there, asking us to slow down
            retry_after = parse_retry_after(error.response.headers)
        except openai.APITimeoutError:
            problem = f"timed out after {settings.request_timeout:g}s"
        except openai.APIConnectionError as error:
            problem = f"connection failed ({short(repr(error.__cause__ or error), 120)})"
        except (openai.APIResponseValidationError, ValueError) as error:  # ValueError: a body that is not JSON
            problem = f"malformed response ({type(error).__name__}: {short(error, 120)})"
        else:
            content = reply_content(reply)
            correct = parse_judge_reply(content)
            if correct is not None:
                self.confirmed = True
                self.rejections_in_a_row = self.failures_in_a_row = 0
                self.arrived += 1
                label = "yes" if correct else "no"
                self._finish(attempt, JudgeAnswer(correct, f"judge said \\boxed{{{label}}}"))
                return
            problem = f"no verdict in the reply: {short(content or '<empty>', 120)}"
            outage = False  # the server answers; this reply just lacks a verdict
        if outage:
            self.failures_in_a_row += 1
            if self.failures_in_a_row >= self.failure_limit:
                raise JudgeError(
                    f"the judge stopped answering: {self.failures_in_a_row} requests in a row failed with no "
                    f"verdict between them (last: {problem} at {url}); {self.arrived} of {len(self.prompts)} "
                    "verdicts arrived before that", arrived=self.arrived, mid_run=True)
        if attempt.failures >= settings.max_retries:
            self._finish(attempt, JudgeAnswer(None, f"judge request failed after {attempt.failures + 1} "
                                                    f"attempt(s): {problem}"))
            return
        delay = retry_delay(attempt.failures, settings.backoff_base, settings.backoff_max, retry_after, self.rng)
        attempt.failures += 1
        logger.debug("judge request {} to {}: {}; retry {} in {:.2f}s", attempt.index, redact(url), problem,
                     attempt.failures, delay)
        self._retry_later(attempt, delay)


def reply_content(reply) -> str | None:
    """The first choice's message content of a chat-completions reply, ``None`` if it has none.

    >>> reply_content({"choices": [{"message": {"role": "assistant", "content": "ok"}}]}), reply_content({"id": 1})
    ('ok', None)
    """
    try:
        content = reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None
