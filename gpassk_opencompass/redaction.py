"""Secrets never printed: one redaction for every message the project prints or writes.

:func:`redact` removes from a text

* the API keys in use (the values of :data:`KEY_VARIABLES` in the
  environment, and any ``extra`` secrets passed in), wherever they appear;
* ``Bearer <token>`` (an ``Authorization`` header quoted back by a server);
* ``sk-…``-shaped keys (OpenAI and most compatible gateways);
* the ``user:password@`` part of a URL.

Console messages, log records (:func:`redact_log_record`, a loguru patcher),
verdict reasons, caches, results and details all pass through it.  Imports
nothing from the package (anything may import it).

>>> redact("HTTP 400: bad header Authorization: Bearer abc.DEF-123 for http://me:pw@host:8000/v1")
'HTTP 400: bad header Authorization: Bearer [REDACTED] for http://[REDACTED]@host:8000/v1'
>>> redact("key sk-proj-AbCdEf0123456789xyz was refused")
'key [REDACTED] was refused'
>>> redact("my key is hunter2-secret-value", extra=("hunter2-secret-value",))
'my key is [REDACTED]'
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

#: Environment variables that may hold an API key (the judge's and the models').
KEY_VARIABLES = ("OC_JUDGE_API_KEY", "OPENAI_API_KEY")
#: What a secret is replaced with.
MASK = "[REDACTED]"
#: Values never treated as secrets (placeholders local servers accept).
_NOT_SECRETS = frozenset({"", "EMPTY", "ENV", "none", "None", "null"})
# A key must be this long to be masked wherever it appears (a 2-letter "key" would mask half the text).
_MIN_SECRET_CHARS = 6

_PATTERNS = (
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]+"), r"\1" + MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)(\b(?:api[_-]?key|x-api-key)\b[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=\-]{6,}"), r"\1" + MASK),
    (re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]*@", re.IGNORECASE), r"\1" + MASK + "@"),
)


def secrets_in_use(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The secret values to mask: key variables set in the environment, plus ``extra``; longest first.

    >>> secrets_in_use(("tok-123456",))[-1]
    'tok-123456'
    """
    values = {os.environ.get(name, "") for name in KEY_VARIABLES} | set(extra)
    kept = [value for value in values if value not in _NOT_SECRETS and len(value) >= _MIN_SECRET_CHARS]
    return tuple(sorted(kept, key=len, reverse=True))


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every secret replaced by :data:`MASK` (see the module docstring).

    >>> redact("nothing secret here")
    'nothing secret here'
    """
    if not isinstance(text, str):
        text = str(text)
    for secret in secrets_in_use(extra):
        text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_data(value, extra: Iterable[str] = ()):
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string redacted.

    >>> redact_data({"reason": "Bearer abcdef123", "c": 3, "list": ["sk-abcdefghijkl"]})
    {'reason': 'Bearer [REDACTED]', 'c': 3, 'list': ['[REDACTED]']}
    """
    if isinstance(value, str):
        return redact(value, extra)
    if isinstance(value, dict):
        return {redact_data(key, extra) if isinstance(key, str) else key: redact_data(item, extra)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_data(item, extra) for item in value)
    return value


def redact_log_record(record: dict) -> None:
    """A loguru patcher: redacts the message (and exception text) of every record.

    Installed by entry points with ``logger.configure(patcher=redact_log_record)``.

    >>> record = {"message": "key sk-abcdefghijklmnop refused", "exception": None}
    >>> redact_log_record(record); record["message"]
    'key [REDACTED] refused'
    """
    record["message"] = redact(record["message"])
