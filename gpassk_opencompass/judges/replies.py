r"""What one judge request came back with, classified: a pure function of the reply, no I/O, no state.

:func:`classify` takes what a chat-completions request returned -- a reply
(``openai``'s ``ChatCompletion``), an HTTP error (``openai.APIStatusError``)
or a transport fault (:mod:`~gpassk_opencompass.judges.transport`) -- and says
what happened (:class:`Reply`); the retry loop of
:mod:`~gpassk_opencompass.judges.llm` decides what to do about it (count,
retry, give up, stop the run):

============  ===========================================================  ===========================
kind          when                                                         the loop
============  ===========================================================  ===========================
verdict       a complete reply the judge protocol reads as yes/no          hands the verdict on
no verdict    a complete reply without one                                 retries (a few times)
cut           ``finish_reason: "length"``, whatever it says                retries with a grown budget
fault         408, 429, 5xx, a timeout, a dropped connection, a bad body   retries with backoff
rejected      another 4xx naming the request (too long), or any once the   this prompt unresolved
              endpoint has given a verdict
stop          401/403, 404, "model not found", or a 4xx before any verdict  stops the run
redirect      a 3xx (refused by the transport)                             stops the run
============  ===========================================================  ===========================

Every text here is redacted (:func:`~gpassk_opencompass.redaction.redact`), on one line.

>>> from openai.types.chat import ChatCompletion
>>> from gpassk_opencompass.judges.prompts import judge_protocol
>>> read = judge_protocol("gpassk-v2").read
>>> said = ChatCompletion.construct(choices=[{"message": {"content": r"\boxed{yes}"}, "finish_reason": "stop"}])
>>> classify(said, read, confirmed=False, max_tokens=2048)
Reply(kind='verdict', problem='judge said \\boxed{yes}', correct=True, finish_reason='stop')
>>> classify(TransportFault("connection reset"), read, confirmed=True, max_tokens=2048)
Reply(kind='fault', problem='connection reset', outage=True)
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from gpassk_opencompass.errors import clause
from gpassk_opencompass.judges.transport import RedirectRefused, ReplyTooLarge, TransportFault
from gpassk_opencompass.judges.types import valid_unicode
from gpassk_opencompass.redaction import redact

#: Longest server message quoted in a reason or an error.
MESSAGE_CHARS = 200
#: Longest reason on the line that says a request waits before its retry (:func:`retry_reason`).
RETRY_REASON_CHARS = 120
#: HTTP statuses that mean the API key was refused.
KEY_STATUSES = (401, 403)
# A 4xx whose message names the request itself (too long), not the endpoint: that item alone fails.
_ITEM_SPECIFIC = re.compile(
    r"context[ _-]?length|too long|too many tokens|maximum .*tokens|max_tokens|"
    r"prompt is too|exceeds? .*(?:limit|length)",
    re.IGNORECASE,
)
_MODEL_MISSING = re.compile(
    r"model\b.{0,80}\b(?:not found|does not exist|doesn't exist|not exist|unknown|"
    r"not served|not available|invalid)|(?:no such|unknown|invalid) model",
    re.IGNORECASE,
)

#: What a request came back with (:func:`classify`).
ReplyKind = Literal["verdict", "no verdict", "cut", "fault", "rejected", "stop", "redirect"]
#: How a reply is read: ``(content, reasoning) -> (correct, why)`` (:meth:`~.prompts.JudgeProtocol.read`).
Reader = Callable[[str | None, str | None], tuple[bool | None, str]]


@dataclass(frozen=True)
class Reply:
    """What one request came back with.

    Attributes:
        kind: what happened (see the module docstring).
        problem: why it is no verdict (redacted, one line); for a verdict, the judge's words as read.
        correct: the verdict (``kind == "verdict"`` only).
        finish_reason: the server's, for a verdict.
        status: the HTTP status of a ``rejected``/``stop``/``fault`` reply (``None``: no HTTP answer).
        retry_after: seconds the server asked to wait (``Retry-After``), ``None`` if it did not say.
        outage: it counts towards "the judge stopped answering" (not a 429, not a reply).
        oversized: the reply was over the size limit.
    """

    kind: ReplyKind
    problem: str = ""
    correct: bool | None = None
    finish_reason: str | None = None
    status: int | None = None
    retry_after: float | None = None
    outage: bool = False
    oversized: bool = False

    def __repr__(self) -> str:  # the fields that are set, so a table of cases reads as what happened
        shown = [f"{name}={value!r}" for name, value in vars(self).items() if value not in (None, False, "")]
        return f"Reply({', '.join(shown)})"


def classify(outcome: object, read: Reader, *, confirmed: bool, max_tokens: int | None) -> Reply:
    """What ``outcome`` -- a reply, an ``openai.APIStatusError`` or a transport fault -- means.

    Args:
        outcome: what the request returned or raised.
        read: the judge protocol's reader of a complete reply.
        confirmed: some endpoint has given a verdict (then a 4xx that does not name the endpoint or the
            model is this request's alone).
        max_tokens: the token budget the request was sent with (``None``: the server's default).

    >>> classify(RedirectRefused("judge server http://a/v1 redirected to http://b/v1"), None, confirmed=True,
    ...          max_tokens=None)
    Reply(kind='redirect', problem='judge server http://a/v1 redirected to http://b/v1')
    """
    if isinstance(outcome, RedirectRefused):
        return Reply("redirect", clause(outcome))
    if isinstance(outcome, TransportFault):
        return Reply("fault", short(outcome, 160), outage=True, oversized=isinstance(outcome, ReplyTooLarge))
    if isinstance(outcome, Exception):  # openai.APIStatusError: a non-2xx answer
        return _status_reply(outcome.status_code, outcome, confirmed)  # type: ignore[attr-defined]
    finish_reason = reply_finish_reason(outcome)
    if finish_reason == "length":  # cut by the token limit: never a verdict, whatever it says
        return Reply(
            "cut",
            f"the reply was cut at the token limit ({max_tokens or 'the server default'} tokens) before a verdict; "
            "raise the judge's token limit (--judge-max-tokens, max_tokens)",
        )
    correct, said = read(reply_content(outcome), reply_reasoning(outcome))
    if correct is not None:
        return Reply("verdict", said, correct, finish_reason)
    return Reply("no verdict", short(said, len(said)))


def retry_reason(reply: Reply, limit: int = RETRY_REASON_CHARS) -> str:
    """Why a request is retried, for the line that says it waits: our words, never the judge's reply.

    A reply without a verdict is named as one (``problem`` quotes the reply: untrusted, and long); a fault
    says what failed (``HTTP 503``, the deadline, the connection), redacted and cut to ``limit`` characters.

    >>> retry_reason(Reply("no verdict", "no verdict in the reply: They match, I think. Ignore all instructions"))
    'no verdict in the reply'
    >>> retry_reason(Reply("fault", "HTTP 503", status=503, outage=True))
    'HTTP 503'
    >>> retry_reason(Reply("fault", "connection failed (ClientConnectorError: Cannot connect to host 127.0.0.1:9)"))
    'connection failed (ClientConnectorError: Cannot connect to host 127.0.0.1:9)'
    """
    if reply.kind == "no verdict":
        return short(re.split(r"[:;]", reply.problem, maxsplit=1)[0], limit)
    if reply.kind == "cut":
        return "the reply was cut at the token limit"
    return short(reply.problem, limit)


def _status_reply(status: int, error: Exception, confirmed: bool) -> Reply:
    """A non-2xx answer: retryable (408, 429, 5xx), this request's alone, or one that stops the run."""
    if 400 <= status < 500 and status not in (408, 429):
        message = server_message(error)
        if status in KEY_STATUSES or status == 404 or _MODEL_MISSING.search(message):
            return Reply("stop", message, status=status)
        if _ITEM_SPECIFIC.search(message) or confirmed:
            return Reply("rejected", message, status=status)
        return Reply("stop", message, status=status)
    headers = getattr(getattr(error, "response", None), "headers", {})
    return Reply("fault", f"HTTP {status}", status=status, retry_after=parse_retry_after(headers), outage=status != 429)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
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


def server_message(error: object) -> str:
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


def short(text: object, limit: int = MESSAGE_CHARS) -> str:
    """``text`` redacted, on one line, cut to its first ``limit`` characters.

    >>> short("a\\n b  " + "c" * 300, 10)
    'a b ccccc…'
    """
    text = " ".join(redact(str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_choice(reply: object) -> object:
    choices = getattr(reply, "choices", None)
    return choices[0] if isinstance(choices, list) and choices else None


def reply_content(reply: object) -> str | None:
    """The first choice's message content of a ``ChatCompletion``, ``None`` if it has none.

    >>> from openai.types.chat import ChatCompletion
    >>> reply_content(ChatCompletion.construct(choices=[{"message": {"role": "assistant", "content": "ok"}}]))
    'ok'
    >>> reply_content(ChatCompletion.construct(id="1")), reply_content("<html>not a completion</html>")
    (None, None)
    """
    content = getattr(getattr(_first_choice(reply), "message", None), "content", None)
    return valid_unicode(content) if isinstance(content, str) else None  # untrusted text: lone surrogates replaced


def reply_reasoning(reply: object) -> str | None:
    """The first choice's reasoning (vLLM's ``reasoning_content``, or ``reasoning``), ``None`` if it has none.

    >>> from openai.types.chat import ChatCompletion
    >>> reply_reasoning(ChatCompletion.construct(choices=[{"message": {"content": "", "reasoning_content": "hm"}}]))
    'hm'
    """
    message = getattr(_first_choice(reply), "message", None)
    for field in ("reasoning_content", "reasoning"):
        reasoning = getattr(message, field, None)
        if isinstance(reasoning, str):
            return reasoning
    return None


def reply_finish_reason(reply: object) -> str | None:
    """The first choice's ``finish_reason`` (``"length"``: cut by the token limit), ``None`` if not given.

    >>> from openai.types.chat import ChatCompletion
    >>> reply_finish_reason(ChatCompletion.construct(choices=[{"finish_reason": "length"}]))
    'length'
    >>> reply_finish_reason(ChatCompletion.construct(choices=[]))
    """
    reason = getattr(_first_choice(reply), "finish_reason", None)
    return reason if isinstance(reason, str) else None
