"""The judge interface as data: what is judged, how, and what comes back.

Everything here is a frozen dataclass but :class:`JudgeSettings`, a declared
setting (:class:`~gpassk_opencompass.contracts.Setting`) that validates itself
on construction, so a bad URL or a zero concurrency is an :class:`InputError`
naming the value before any answer is extracted or any request is sent.

>>> settings = JudgeSettings(kind="llm", urls=("http://127.0.0.1:8000/v1",), model="LiveMath-Judge")
>>> settings.concurrency, settings.max_retries, settings.progress_window
(32, None, 600.0)
>>> JudgeSettings(kind="lmm")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: unknown judge kind 'lmm'; did you mean 'llm'? known: rule, llm, cascade
>>> JudgeSettings(kind="llm", model="LiveMath-Judge")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: judge kind 'llm' needs at least one judge URL (http://host:port/v1)
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field, fields
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from gpassk_opencompass.contracts import Setting
from gpassk_opencompass.defaults import CONCURRENCY, MAX_RULE_TIMEOUT, REQUEST_TIMEOUT
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges.kinds import RULE, VerdictSource, judge_kind
from gpassk_opencompass.judges.prompts import DEFAULT_JUDGE_PROMPT, judge_protocol

#: Prompt languages; they select the judge prompt.
LANGUAGES = ("en", "cn")
#: Most judge requests in flight per URL (each is a connection and a task).
MAX_CONCURRENCY = 1024
#: Most rule-judge worker processes (each an interpreter of ~100 MB; the default is at most one per core).
MAX_RULE_PROCESSES = 64
#: Most retries of one judge request, most tokens of one judge reply, most characters of a response's tail shown.
MAX_RETRIES, MAX_JUDGE_TOKENS, MAX_TAIL_CHARS = 100, 1_048_576, 1_000_000


def check_url(url: str) -> str:
    """``url`` if it is an ``http(s)://host[:port]/path`` base URL, else :class:`InputError`.

    >>> check_url("https://api.example.com/v1")
    'https://api.example.com/v1'
    >>> check_url("localhost:8000/v1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: judge URL 'localhost:8000/v1' is not an http(s) URL; expected e.g. http://HOST:PORT/v1
    >>> check_url("http://127.0.0.1:8000")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: judge URL 'http://127.0.0.1:8000' has no path; OpenAI-compatible servers (vLLM, lmdeploy, SGLang) answer under /v1: did you mean 'http://127.0.0.1:8000/v1'?
    """
    if not isinstance(url, str):
        raise InputError(f"judge URL must be a string, got {type(url).__name__} {url!r}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as error:
        raise InputError(f"judge URL {url!r} is malformed ({error}); expected e.g. http://HOST:PORT/v1") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"judge URL {url!r} is not an http(s) URL; expected e.g. http://HOST:PORT/v1")
    if parts.path in ("", "/"):
        raise InputError(
            f"judge URL {url!r} has no path; OpenAI-compatible servers (vLLM, lmdeploy, SGLang) "
            f"answer under /v1: did you mean {url.rstrip('/') + '/v1'!r}?"
        )
    return url


def _builtin_kind(name: str) -> str:
    judge_kind(name)  # an unknown name: InputError with "did you mean"
    return name


def _protocol_name(name: str) -> str:
    judge_protocol(name)  # an unknown protocol: InputError with "did you mean"
    return name


@dataclass(frozen=True)
class JudgeItem:
    """One generation to judge.

    Text that is not valid Unicode (a lone surrogate, e.g. from a response
    cut mid-character and decoded leniently) is replaced by U+FFFD on
    construction, so cache keys, JSON files and HTTP bodies never fail on it.

    >>> JudgeItem("q", "1", "cut mid-emoji \\ud83d").response
    'cut mid-emoji \ufffd'

    Attributes:
        question: the problem statement shown to the model.
        reference: the gold answer.
        response: the raw model output (chain of thought and all).
        language: ``"en"`` or ``"cn"``; selects the judge prompt.
        source_correct: the verdict the tool that made the sample gave it (``None``: none), read by
            ``--judge source`` (:mod:`~gpassk_opencompass.judges.source`); other judges ignore it.
        source_extracted: the answer that tool extracted (``None``: none).
    """

    question: str
    reference: str
    response: str
    language: str = "en"
    source_correct: bool | None = None
    source_extracted: str | None = None

    def __post_init__(self) -> None:
        for name in ("question", "reference", "response"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"JudgeItem.{name} must be a string, got {type(value).__name__} {value!r}")
            object.__setattr__(self, name, valid_unicode(value))
        if self.language not in LANGUAGES:
            raise InputError(f"JudgeItem.language must be one of {', '.join(LANGUAGES)}, got {self.language!r}")


@dataclass(frozen=True)
class Verdict:
    """The judgment of one generation: what the judges return and what ``details[].verdicts[]`` of the
    results file records (:class:`~gpassk_opencompass.scoring.results.ResultsFile` reads it back as this type).

    Attributes:
        correct: ``True``/``False``, or ``None`` when it could not be judged
            (timeout, unparseable judge reply, failed requests) -- never a
            silent ``False``.
        extracted: the extracted final answer, ``None`` if none was found.
        reason: a short human-readable why (empty in files that did not record it).
        source: where it came from (:data:`~gpassk_opencompass.judges.kinds.VerdictSource`): ``"rule"``,
            ``"llm"``, ``"python"`` (a user judge's function), ``"source"`` (the source tool's own) or
            ``"cache"`` (a verdict read back from the durable cache); empty in files that did not record it.
        rule_correct: on a verdict of the cascade's judge model (``"llm"`` or
            ``"cache"``), what the rule judge said before it: ``False`` or
            ``None`` (it had not confirmed the answer, which is why the model
            was asked); ``None`` everywhere else. Recorded so that one cascade
            run yields the rule-vs-model audit (``gpassk agree``). Left out of
            the repr: only the cascade sets it.
    """

    correct: bool | None
    extracted: str | None = None
    reason: str = ""
    source: VerdictSource = ""
    rule_correct: bool | None = field(default=None, repr=False)


class JudgeSettings(Setting):
    """How to judge with a built-in judge.  Validated on construction (:class:`InputError`).

    Attributes:
        kind: ``"rule"`` (math-verify), ``"llm"`` (a judge model) or
            ``"cascade"`` (rule first; only what it cannot confirm goes to
            the judge model): a name of :data:`~gpassk_opencompass.judges.registry.KINDS`.
        urls: base URLs of OpenAI-compatible servers (``http://host:port/v1``);
            required for ``llm``/``cascade``, refused for ``rule``.
        model: the judge model's served name; required for ``llm``/``cascade``.
        concurrency: requests in flight per URL (1 to :data:`MAX_CONCURRENCY`).
        request_timeout: total seconds one request may take (connecting,
            waiting, reading every byte) before it is abandoned and retried.
        max_retries: a fixed cap on the retries of one request after
            transient faults (a 429, a 5xx, a timeout, a dropped connection,
            a malformed body, a reply without a readable
            ``\\boxed{yes}``/``\\boxed{no}``); ``None`` (the default): retry
            while the judge makes progress (see ``progress_window``).
        progress_window: seconds without a verdict from any request after
            which failing requests are no longer retried (their verdicts are
            ``correct=None``); keep it above ``request_timeout``.
        cache_path: append-only JSONL file of judge-model verdicts; ``None``
            disables the durable cache (the rule judge, cheap and
            deterministic, never uses it).
        max_tokens: cap on the judge's reply length (``None``: server default).
        backoff_base: first retry delay in seconds (doubles per retry, full
            jitter); a ``Retry-After`` header is honoured when longer.
        backoff_max: cap on one backoff delay, seconds.
        rule_timeout: seconds math-verify may spend parsing or comparing one
            answer (whole seconds: it uses ``signal.alarm``), at most
            :data:`~gpassk_opencompass.defaults.MAX_RULE_TIMEOUT`.
        rule_processes: worker processes for the rule judge; ``None`` picks:
            in-process when called from the main thread with a small batch,
            otherwise one process per core.
        response_tail_chars: when no final answer can be extracted the judge
            model sees this many trailing characters of the response instead.
        check_endpoints: ask each URL for its model list before judging, so a
            wrong URL or model name fails at once with a clear error.
        judge_prompt: the judge protocol of ``llm``/``cascade``: ``"gpassk-v2"``
            (the project's fenced prompt) or ``"livemathbench"`` (OpenCompass's
            LiveMathBench judge prompt word for word, its reply read as
            OpenCompass reads it); see :mod:`~gpassk_opencompass.judges.prompts`.
            Another than the default is refused for the rule judge (it sends no prompt).
    """

    kind: Annotated[str, AfterValidator(_builtin_kind)] = RULE
    urls: Annotated[tuple[Annotated[str, AfterValidator(check_url)], ...], BeforeValidator(_as_urls)] = ()
    model: str = ""
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = CONCURRENCY
    request_timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)] = REQUEST_TIMEOUT
    max_retries: Annotated[int, Field(ge=0, le=MAX_RETRIES)] | None = None
    progress_window: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 600.0
    cache_path: Annotated[pathlib.Path | None, Field(strict=False)] = None  # a str is taken as a path
    max_tokens: Annotated[int, Field(ge=1, le=MAX_JUDGE_TOKENS)] | None = 2048
    backoff_base: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    backoff_max: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 60.0
    rule_timeout: Annotated[int, Field(ge=1, le=MAX_RULE_TIMEOUT)] = 3
    rule_processes: Annotated[int, Field(ge=1, le=MAX_RULE_PROCESSES)] | None = None
    response_tail_chars: Annotated[int, Field(ge=1, le=MAX_TAIL_CHARS)] = 2000
    check_endpoints: bool = True
    judge_prompt: Annotated[str, AfterValidator(_protocol_name)] = DEFAULT_JUDGE_PROMPT

    @model_validator(mode="after")
    def _consistent(self) -> JudgeSettings:
        """The rules between fields: URLs and a model exactly for a kind that asks a model, each URL once."""
        kind, urls = judge_kind(self.kind), self.urls
        if len(set(urls)) != len(urls):
            raise InputError(
                f"judge URLs repeat: {list(urls)}; give each server once (raise concurrency to send it more requests)"
            )
        if not kind.model:
            if self.judge_prompt != DEFAULT_JUDGE_PROMPT:
                raise InputError(
                    f"judge prompt {self.judge_prompt!r} is for a judge model, but judge kind {kind.name!r} "
                    "sends no prompt; use kind 'llm' or 'cascade' with it"
                )
            if urls:
                raise InputError(
                    f"judge kind {kind.name!r} uses no judge model but URLs were given "
                    f"({', '.join(urls)}); use kind 'llm' or 'cascade' to use them"
                )
        elif not urls:
            raise InputError(f"judge kind {kind.name!r} needs at least one judge URL (http://host:port/v1)")
        elif not self.model.strip():
            raise InputError(f"judge kind {kind.name!r} needs the judge model's served name, got {self.model!r}")
        return self

    @property
    def uses_model(self) -> bool:
        """Whether a judge model is asked (``llm`` and ``cascade``)."""
        return judge_kind(self.kind).model

    @property
    def prompt_version(self) -> str | None:
        """The judge protocol's version (recorded in results and cache keys); ``None`` when no model is asked."""
        return judge_protocol(self.judge_prompt).version if self.uses_model else None


@dataclass(frozen=True)
class JudgeStats:
    """What judging a batch took.

    Attributes:
        total: items judged.
        unique: distinct (question, reference, answer, language) tuples.
        deduplicated: items that reused another item's verdict
            (``total - unique``).
        cached: distinct tuples answered from the durable cache.
        requests: HTTP requests sent to judge models, retries included.
        retries: requests that repeated an earlier one (after an error or
            a reply without a verdict).
        unresolved: items whose verdict is ``correct=None``.
        by_rule: distinct tuples the rule judge settled (all of them for
            ``rule``; those it confirmed for ``cascade``; 0 for ``llm``).
    """

    total: int
    unique: int
    deduplicated: int
    cached: int
    requests: int
    retries: int
    unresolved: int
    by_rule: int = 0

    def as_dict(self) -> dict[str, int]:
        """The stats as a plain dict, in field order."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


@dataclass(frozen=True)
class JudgeReport:
    """The result of :func:`~gpassk_opencompass.judges.judge_items`.

    Attributes:
        verdicts: one per input item, in input order.
        stats: what judging took.
        prompt_version: the judge prompt's version, ``None`` for the rule judge.
    """

    verdicts: tuple[Verdict, ...]
    stats: JudgeStats
    prompt_version: str | None


def text_bytes(text: str) -> bytes:
    """The UTF-8 bytes of any ``str`` to hash, lone surrogates (valid JSON: ``"\\ud800"``) passed through as themselves.

    Every digest of untrusted text is taken of these bytes: one text, one byte string, never an error. Text that
    is sent or written is made valid instead (:func:`valid_unicode`).

    >>> text_bytes("é"), text_bytes("a\\ud800")
    (b'\\xc3\\xa9', b'a\\xed\\xa0\\x80')
    """
    return text.encode("utf-8", "surrogatepass")


def valid_unicode(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (a surrogate pair written as two code points is joined).

    What is sent to a judge or written to a file goes through it (:class:`JudgeItem` on construction).

    >>> valid_unicode("ok"), valid_unicode("a\\udfffb"), valid_unicode("\\ud83d\\ude00")
    ('ok', 'a\ufffdb', '😀')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


#: The judge's URL(s) and model under the names used at the edges, by the one internal name
#: (:class:`JudgeSettings` ``urls``/``model``): GPassKEvaluator's ``url``/``model_name`` (as OpenCompass's
#: LiveMathBenchEvaluator), the CLI's ``--judge-url``/``--judge-model``, the templates'
#: ``eval_urls``/``eval_model_name``.
JUDGE_NAMES = {
    "urls": ("urls", "url", "judge_url", "eval_urls"),
    "model": ("model", "model_name", "judge_model", "eval_model_name"),
}


def judge_endpoint(**given) -> dict:
    """Map the judge URL(s) and model, under any of their edge names (:data:`JUDGE_NAMES`), onto ``urls``/``model``.

    The one place where the ecosystem names meet the internal ones. A single
    URL string becomes a one-element tuple; ``None`` means not given.

    >>> judge_endpoint(url="http://10.0.0.5:8000/v1", model_name="LiveMath-Judge")
    {'urls': ('http://10.0.0.5:8000/v1',), 'model': 'LiveMath-Judge'}
    >>> judge_endpoint(eval_urls=["http://a:1/v1", "http://b:1/v1"], eval_model_name="J")
    {'urls': ('http://a:1/v1', 'http://b:1/v1'), 'model': 'J'}
    >>> judge_endpoint(judge_url=None, judge_model="")
    {'urls': (), 'model': ''}
    >>> judge_endpoint(url="http://a:1/v1", eval_urls=["http://b:1/v1"])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: the judge URL is given twice with different values (url='http://a:1/v1', eval_urls=['http://b:1/v1']); give it once
    >>> judge_endpoint(urll="x")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown judge setting 'urll'; expected one of urls, url, judge_url, eval_urls, model, model_name, judge_model, eval_model_name
    """
    known = [name for names in JUDGE_NAMES.values() for name in names]
    for name in given:
        if name not in known:
            raise InputError(f"unknown judge setting {name!r}; expected one of {', '.join(known)}")
    endpoint = {}
    for concept, names in JUDGE_NAMES.items():
        present = {name: given[name] for name in names if given.get(name) not in (None, "", (), [])}
        values = {name: _as_urls(value) if concept == "urls" else value for name, value in present.items()}
        if len(set(values.values())) > 1:
            shown = ", ".join(f"{name}={value!r}" for name, value in present.items())
            what = "judge URL" if concept == "urls" else "judge model"
            raise InputError(f"the {what} is given twice with different values ({shown}); give it once")
        endpoint[concept] = next(iter(values.values()), () if concept == "urls" else "")
    return endpoint


def _as_urls(value: Any) -> tuple:
    """One URL given as a string, or several in any sequence, as a tuple."""
    if isinstance(value, str):
        return (value,)
    try:
        return tuple(value)
    except TypeError:
        raise InputError(f"judge URL(s) must be a string or a list of strings, got {value!r}") from None
