r"""The LLM judge: many prompts over one or more OpenAI-compatible endpoints.

:func:`ask_judges` sends each prompt to a judge model with the official
``openai`` async client and reads a ``\boxed{yes}``/``\boxed{no}`` verdict
back.  It keeps ``concurrency`` requests in flight per URL, all URLs drawing
from one queue (a fast server takes more work), at temperature 0.

Failures are retried, each retry free to land on any URL:

* 429, 5xx, timeouts and dropped connections: up to ``max_retries`` times,
  after an exponential backoff with full jitter, or after ``Retry-After``
  when the server names a longer wait;
* a body that is not JSON: like a 5xx;
* a reply without a readable verdict: asked again up to
  ``unparseable_attempts`` times in all, then ``correct=None`` with the reply
  quoted in the reason -- counted, never silently wrong;
* 401/403/404 (wrong key, URL or model name) stop the whole run with
  :class:`JudgeError`: every other request would fail the same way;
  other 4xx answers give ``correct=None`` for that prompt alone.

The API key comes from ``OC_JUDGE_API_KEY``, else ``OPENAI_API_KEY``, else
``EMPTY`` (what local vLLM/lmdeploy/SGLang servers accept); it is never
logged.  Nothing on this path downloads tokenizers or touches the Hub.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from loguru import logger

from gpassk_opencompass.judges.prompts import parse_judge_reply
from gpassk_opencompass.judges.types import JudgeSettings

#: Environment variables holding the judge API key, in order of preference.
API_KEY_VARIABLES = ("OC_JUDGE_API_KEY", "OPENAI_API_KEY")
#: Longest ``Retry-After`` honoured, seconds (a sanity bound on odd headers).
MAX_RETRY_AFTER = 600.0
_FATAL_STATUSES = (401, 403, 404)


class JudgeError(RuntimeError):
    """The judge endpoints cannot serve this run (unreachable, wrong model, refused key)."""


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
    unparseable: int = 0


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


async def ask_judges(prompts: Sequence[str], settings: JudgeSettings,
                     on_answer: Callable[[int, JudgeAnswer], None], *, seed: int = 0) -> LlmStats:
    """Ask the judge model about every prompt; report each answer as it arrives.

    Args:
        prompts: the judge prompts.
        settings: URLs, model, concurrency, timeouts, retry budget.
        on_answer: called as ``on_answer(index, answer)`` exactly once per
            prompt, from the event loop, as soon as its answer is final.
        seed: seeds the backoff jitter.

    Returns:
        How many requests were sent.

    Raises:
        JudgeError: an endpoint is unreachable at the start, does not serve
            the model, or refuses the request outright (401/403/404).
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


async def _check_endpoint(client, url: str, settings: JudgeSettings) -> None:
    import openai

    try:
        # one request per URL before judging: give a busy server time even when request_timeout is short
        page = await client.models.list(timeout=min(max(settings.request_timeout, 10.0), 30.0))
    except openai.NotFoundError:
        logger.debug("judge server {} has no model list; not checking the model name", url)
        return
    except openai.APIStatusError as error:
        if error.status_code in (401, 403):
            raise JudgeError(f"judge server {url} refused the API key (HTTP {error.status_code}); "
                             f"set {' or '.join(API_KEY_VARIABLES)}") from None
        logger.debug("judge server {} answered HTTP {} to the model list; not checking the model name",
                     url, error.status_code)
        return
    except openai.APIConnectionError as error:
        raise JudgeError(f"cannot reach the judge server at {url}: {error}; is it running?") from None
    served = [model.id for model in page.data]
    if served and settings.model not in served:
        raise JudgeError(f"judge model {settings.model!r} is not served at {url}; it serves: {', '.join(served)}")


class _AskAll:
    """One run of :func:`ask_judges`: a shared queue, ``concurrency`` workers per client."""

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
        self.failure: BaseException | None = None

    async def run(self, clients) -> LlmStats:
        for index in range(len(self.prompts)):
            self.queue.put_nowait(_Attempt(index))
        # Interleaved across URLs: the queue serves waiting workers first come, first served,
        # so even a batch smaller than the concurrency is spread over every URL.
        workers = [asyncio.create_task(self._work(client, url))
                   for _ in range(self.settings.concurrency)
                   for client, url in zip(clients, self.settings.urls)]
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

    def _retry_later(self, attempt: _Attempt, delay: float) -> None:
        asyncio.get_running_loop().call_later(delay, self.queue.put_nowait, attempt)

    async def _work(self, client, url: str) -> None:
        while True:
            attempt = await self.queue.get()
            try:
                await self._ask(client, url, attempt)
            except Exception as error:  # noqa: BLE001 - handed to run(), which re-raises it
                # A worker must not die quietly: the run would wait forever for its prompt.
                self.failure = error
                self.done.set()
                return

    async def _ask(self, client, url: str, attempt: _Attempt) -> None:
        import openai

        settings = self.settings
        if attempt.failures or attempt.unparseable:
            self.retries += 1
        self.requests += 1
        retry_after = None
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
            if status in _FATAL_STATUSES:
                raise JudgeError(f"judge server {url} answered HTTP {status} for model {settings.model!r}: "
                                 f"{_short(str(error))}") from None
            if status != 429 and status < 500 and status != 408:
                self._finish(attempt, JudgeAnswer(None, f"judge rejected the request (HTTP {status}): "
                                                        f"{_short(str(error))}"))
                return
            problem = f"HTTP {status}"
            retry_after = parse_retry_after(error.response.headers)
        except openai.APITimeoutError:
            problem = f"timed out after {settings.request_timeout:g}s"
        except openai.APIConnectionError as error:
            problem = f"connection failed ({_short(repr(error.__cause__ or error))})"
        except (openai.APIResponseValidationError, ValueError) as error:  # ValueError: a body that is not JSON
            problem = f"malformed response ({type(error).__name__}: {_short(str(error))})"
        else:
            content = reply_content(reply)
            correct = parse_judge_reply(content)
            if correct is not None:
                label = "yes" if correct else "no"
                self._finish(attempt, JudgeAnswer(correct, f"judge said \\boxed{{{label}}}"))
                return
            attempt.unparseable += 1
            if attempt.unparseable >= settings.unparseable_attempts:
                self._finish(attempt, JudgeAnswer(None, f"unparseable judge reply after {attempt.unparseable} "
                                                        f"attempt(s): {_short(content or '<empty>')}"))
            else:
                self.queue.put_nowait(attempt)
            return
        if attempt.failures >= settings.max_retries:
            self._finish(attempt, JudgeAnswer(None, f"judge request failed after {attempt.failures + 1} "
                                                    f"attempt(s): {problem}"))
            return
        delay = retry_delay(attempt.failures, settings.backoff_base, settings.backoff_max, retry_after, self.rng)
        attempt.failures += 1
        logger.debug("judge request {} to {}: {}; retry {} in {:.2f}s", attempt.index, url, problem,
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


def _short(text: str, limit: int = 160) -> str:
    """``text`` on one line, its tail kept when longer than ``limit``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else "…" + text[-limit:]
