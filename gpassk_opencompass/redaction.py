"""Secrets never printed: one redaction for every message the project prints or writes.

:func:`redact` removes the API keys in use (:data:`KEY_VARIABLES`, and ``extra`` secrets), ``Bearer`` tokens,
``sk-…`` keys, ``api_key=…`` assignments, and in URLs the ``user:password@`` part, credential-named query and
fragment parameters and token-like path segments. Console messages, log records (:func:`redact_log_record`),
verdict reasons, caches, results and details all pass through it; a :class:`Redactor` is compiled once per set
of secrets and skips with one search a text with nothing secret-like. Imports nothing from the package.

>>> redact("HTTP 400: bad header Authorization: Bearer abc.DEF-123 for http://me:pw@host:8000/v1")
'HTTP 400: bad header Authorization: Bearer [REDACTED] for http://[REDACTED]@host:8000/v1'
>>> redact("key sk-proj-AbCdEf0123456789xyz was refused")
'key [REDACTED] was refused'
>>> redact("my key is hunter2-secret-value", extra=("hunter2-secret-value",))
'my key is [REDACTED]'
>>> redact("cannot reach https://judge.example/v1?api-version=2&token=abc123&sig=Zm9v%3D for model J")
'cannot reach https://judge.example/v1?api-version=2&token=[REDACTED]&sig=[REDACTED] for model J'
>>> redact("judge server http://10.0.0.5:8000/u/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b/v1 answered HTTP 500")
'judge server http://10.0.0.5:8000/u/[REDACTED]/v1 answered HTTP 500'
>>> redact("http://host:8000/models/Qwen2.5-Math-7B-Instruct/v1/chat/completions")
'http://host:8000/models/Qwen2.5-Math-7B-Instruct/v1/chat/completions'
"""

from __future__ import annotations

import functools
import operator
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loguru's record type exists in its stubs only
    from loguru import Record

#: Environment variables that may hold an API key (the judge's and the models').
KEY_VARIABLES = ("OC_JUDGE_API_KEY", "OPENAI_API_KEY")
#: What a secret is replaced with.
MASK = "[REDACTED]"
#: Values never treated as secrets (placeholders local servers accept).
_NOT_SECRETS = frozenset({"", "EMPTY", "ENV", "none", "None", "null"})
# A key must be this long to be masked wherever it appears (a 2-letter "key" would mask half the text).
_MIN_SECRET_CHARS = 6

# Punctuation that ends the sentence a URL stands in, not the URL's last parameter value ("...?token=abc: failed");
# not "]", which ends MASK (a value masked already stays one mask).
_SENTENCE_PUNCTUATION = "".join([":", ",", ";", ".", ")"])


def _mask_value(found: re.Match) -> str:
    """A credential parameter's value masked, the sentence's punctuation after it kept.

    >>> redact("GET http://h/v1?token=abc123: connection failed")
    'GET http://h/v1?token=[REDACTED]: connection failed'
    """
    value = found.group(2)
    return found.group(1) + MASK + value[len(value.rstrip(_SENTENCE_PUNCTUATION)) :]


# A query parameter named as a credential (``token``, ``access_token``, ``api_key``, ``X-Amz-Signature``...).
_CREDENTIAL_NAME = (
    r"(?:[A-Za-z0-9_.\-]*[_.\-])?(?:access_?token|token|api_?key|key|sig|signature|secret|password|"
    r"passwd|pwd|auth|authorization|credentials?|session(?:_?id)?|code)"
)
_PATTERNS = (
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]+"), r"\1" + MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)(\b(?:api[_-]?key|x-api-key)\b[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=\-]{6,}"), r"\1" + MASK),
    (re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]*@", re.IGNORECASE), r"\1" + MASK + "@"),
    (re.compile(rf"(?i)([?&;#]{_CREDENTIAL_NAME}=)([^&#\s\"'<>]+)"), _mask_value),
)
# A URL's path (after scheme://authority), up to its query, fragment or the end of the URL.
_URL_PATH = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^/\s?#\"'<>]*)(/[^\s?#\"'<>]*)")
# A path segment that looks like a token: 16+ letters and digits mixing both, or 24+ of either.
_TOKEN_RUN = re.compile(r"(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9]{16,}|[A-Za-z0-9]{24,}")
# Everything above needs one of these in the text: a text without any is returned at once.
_TRIGGER = re.compile(r"(?i)bearer|sk-|key|://|=")


class Redactor:
    """Redaction compiled for one set of secret values; call it on a text.

    >>> Redactor(("hunter2-secret",))("pw hunter2-secret, Bearer x1")
    'pw [REDACTED], Bearer [REDACTED]'
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        secrets = sorted(set(secrets), key=len, reverse=True)
        self.secrets = tuple(secrets)
        self._secret = re.compile("|".join(map(re.escape, secrets))) if secrets else None

    def __call__(self, text) -> str:
        if not isinstance(text, str):
            text = str(text)
        if self._secret is not None:
            text = self._secret.sub(MASK, text)
        if not _TRIGGER.search(text):
            return text
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return _URL_PATH.sub(_redact_path, text)

    def data(self, value):
        """``value`` (JSON-like) with every string redacted: each distinct string and each container once.

        A container with nothing to redact is returned as it is, not copied;
        a redacted copy is made once per container, so a record shared by many
        generations stays shared.

        >>> shared = {"reason": "ok"}
        >>> document = {"verdicts": [shared, shared], "url": "http://u:pw@h/v1"}
        >>> redacted = Redactor().data(document)
        >>> redacted["url"], redacted["verdicts"] is document["verdicts"], redacted is document
        ('http://[REDACTED]@h/v1', True, False)
        """
        strings: dict[str, str] = {}
        containers: dict[int, tuple] = {}  # id -> (original, redacted copy); holding the original keeps its id unique

        def text(string: str) -> str:
            done = strings.get(string)
            if done is None:
                done = strings[string] = self(string)
            return done

        def walk(item):
            kind = item.__class__
            if kind in _SCALARS:
                return item
            if kind is str:
                return text(item)
            if not isinstance(item, (dict, list, tuple)):
                return text(item) if isinstance(item, str) else item
            hit = containers.get(id(item))
            if hit is not None:
                return hit[1]
            done: dict | list | tuple
            if isinstance(item, dict):
                done = {text(name) if name.__class__ is str else name: walk(entry) for name, entry in item.items()}
                unchanged = all(map(operator.is_, done, item)) and all(map(operator.is_, done.values(), item.values()))
            else:
                done = [walk(entry) for entry in item]
                unchanged = all(map(operator.is_, done, item))
                done = done if isinstance(item, list) else type(item)(done)
            if unchanged:  # nothing secret inside: no copy, nothing remembered (a million details stay one)
                return item
            containers[id(item)] = (item, done)
            return done

        return walk(value)


# Values returned as they are by Redactor.data without a call per value.
_SCALARS = frozenset({int, float, bool, type(None)})


def _redact_path(match: re.Match) -> str:
    path = "/".join(MASK if _TOKEN_RUN.search(segment) else segment for segment in match[2].split("/"))
    return match[1] + path


def secrets_in_use(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The secret values to mask: key variables set in the environment, plus ``extra``; longest first.

    >>> secrets_in_use(("tok-123456",))[-1]
    'tok-123456'
    """
    values = {os.environ.get(name, "") for name in KEY_VARIABLES} | set(extra)
    kept = [value for value in values if value not in _NOT_SECRETS and len(value) >= _MIN_SECRET_CHARS]
    return tuple(sorted(kept, key=len, reverse=True))


@functools.lru_cache(maxsize=16)
def _compiled(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


def redactor(extra: Iterable[str] = ()) -> Redactor:
    """The :class:`Redactor` for the secrets in use now (the environment read once; compiled once per set).

    >>> redactor(("tok-123456",))("a tok-123456 b")
    'a [REDACTED] b'
    """
    return _compiled(secrets_in_use(extra))


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every secret replaced by :data:`MASK` (see the module docstring).

    >>> redact("nothing secret here")
    'nothing secret here'
    """
    return redactor(extra)(text)


def redact_data(value, extra: Iterable[str] = ()):
    """``value`` (JSON-like: dicts, lists, strings, numbers) with every string redacted.

    >>> redact_data({"reason": "Bearer abcdef123", "c": 3, "list": ["sk-abcdefghijkl"]})
    {'reason': 'Bearer [REDACTED]', 'c': 3, 'list': ['[REDACTED]']}
    """
    return redactor(extra).data(value)


def redact_log_record(record: Record) -> None:
    """A loguru patcher: redacts the message of every record (a sink that formats a traceback redacts it too).

    The package's logger applies it to every record it logs (:mod:`gpassk_opencompass.log`).

    >>> record = {"message": "key sk-abcdefghijklmnop refused", "exception": None}
    >>> redact_log_record(record); record["message"]
    'key [REDACTED] refused'
    """
    record["message"] = redact(record["message"])
