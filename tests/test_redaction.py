"""Redaction: tokens in judge URLs never printed or written; the compiled redactor masks all it masked before."""

from __future__ import annotations

import json
import re

import pytest

from gpassk_opencompass import redaction
from gpassk_opencompass.cli import main
from gpassk_opencompass.redaction import MASK, redact, redact_data
from loopback_judge import exact_match_judge
from loopback_openai import Fault
from scoring_fixtures import COUNTS, MODEL, generations, write_jsonl

HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
B64 = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2Rl"
# (how the URL carries the secret, a function of the server's base URL http://127.0.0.1:PORT/v1, the secret)
URL_SECRETS = [
    ("query token", lambda url: f"{url}?token=tok{HEX[:20]}", f"tok{HEX[:20]}"),
    ("query api_key", lambda url: f"{url}?api-version=2024&api_key=AKey{B64[:18]}", f"AKey{B64[:18]}"),
    ("query access_token", lambda url: f"{url}?access_token=ya29.a0Af{HEX[:12]}", f"ya29.a0Af{HEX[:12]}"),
    ("query sig", lambda url: f"{url}?sv=2022&sig=Qm9vc3QlMkJzZWNyZXQ%3D", "Qm9vc3QlMkJzZWNyZXQ%3D"),
    ("query key", lambda url: f"{url}?key=AIzaSyD{HEX[:24]}", f"AIzaSyD{HEX[:24]}"),
    (
        "fragment access_token",
        lambda url: f"{url}#access_token=ya29.b0Xy{HEX[:10]}&token_type=bearer",
        f"ya29.b0Xy{HEX[:10]}",
    ),
    ("sk- key in the path", lambda url: url.replace("/v1", "/sk-proj-Ab12Cd34Ef56Gh78/v1"), "sk-proj-Ab12Cd34Ef56Gh78"),
    ("hex token in the path", lambda url: url.replace("/v1", f"/u/{HEX}/v1"), HEX),
    ("base64 token in the path", lambda url: url.replace("/v1", f"/{B64}/v1"), B64),
    ("user:password@", lambda url: url.replace("http://", "http://alice:pa55word-x@"), "pa55word-x"),
]


@pytest.mark.parametrize("make_url, secret", [case[1:] for case in URL_SECRETS], ids=[case[0] for case in URL_SECRETS])
def test_a_token_in_the_judge_url_is_in_no_output_log_or_file(loopback_openai, tmp_path, capsys, make_url, secret):
    """The judge refuses (HTTP 404: the message names the URL), then answers: in no run is the token printed.

    A query in the judge URL goes with every request (the route comes before it).
    """
    refusing = loopback_openai(lambda body: Fault(status=404))
    answering = loopback_openai(exact_match_judge)
    source = write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))
    printed, written = [], []
    for server in (refusing, answering):
        output, cache = tmp_path / f"scores-{server.port}.json", tmp_path / f"cache-{server.port}.jsonl"
        code = main(
            [
                "score",
                str(source),
                "--k",
                "4",
                "--judge",
                "llm",
                "--judge-url",
                make_url(server.url),
                "--judge-model",
                MODEL,
                "--output",
                str(output),
                "--cache",
                str(cache),
                "--max-retries",
                "0",
            ]
        )
        captured = capsys.readouterr()
        printed.append((code, captured.out + captured.err))
        written += [path.read_text() for path in (output, cache) if path.exists()]
    assert not any(secret in text for _, text in printed), printed
    assert printed[0][0] == 4 and MASK in printed[0][1], printed  # the refusal names the server, redacted
    assert not any(secret in text for text in written)
    assert printed[1][0] == 0, printed
    results = json.loads((tmp_path / f"scores-{answering.port}.json").read_text())
    assert results["gpassk"]["judge_hosts"] == [f"127.0.0.1:{answering.port}"]
    query = make_url(answering.url).partition("?")[2]
    assert answering.requests and set(answering.queries) == {query}


def test_ordinary_urls_and_model_names_stay_readable():
    for text in (
        "http://10.0.0.5:8000/v1/chat/completions",
        "https://host/models/Qwen2.5-Math-7B-Instruct/v1",
        "https://host/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B/v1?api-version=2024-06-01",
        "the answer is x = 2 and y=3",
        "http://h:8000/v1?model=gpt-4o&max_tokens=512",
        "https://host/v1?design=a&monkey=b&keys=3",
    ):
        assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://h/v1?token=abc123: connection failed", "http://h/v1?token=[REDACTED]: connection failed"),
        ("(judge http://h/v1?key=abc123), retrying", "(judge http://h/v1?key=[REDACTED]), retrying"),
        ("see http://h/v1?sig=abc123.", "see http://h/v1?sig=[REDACTED]."),
        ("http://h/v1?token=abc:123&x=1", "http://h/v1?token=[REDACTED]&x=1"),
        ("http://h/v1?token=sk-0123456789abcdef is not served", "http://h/v1?token=[REDACTED] is not served"),
    ],
)
def test_the_sentence_around_a_masked_url_token_keeps_its_punctuation(text, expected):
    assert redact(text) == expected
    assert "abc" not in redact(text)


# What the redaction before the compiled redactor masked (its own patterns and environment lookup, per string):
# the compiled one must mask all of it too, in texts and inside documents.
_OLD_PATTERNS = (
    (re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]+"), r"\1" + MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)(\b(?:api[_-]?key|x-api-key)\b[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=\-]{6,}"), r"\1" + MASK),
    (re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]*@", re.IGNORECASE), r"\1" + MASK + "@"),
)


def _old_redact(text: str, secrets: tuple[str, ...]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    for pattern, replacement in _OLD_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


TEXTS = [
    "HTTP 401: Authorization: Bearer abc.DEF-123 refused",
    "key sk-proj-AbCdEf0123456789xyz was refused",
    "x-api-key: 'zzzzzz123456'",
    "api_key=abcdef123456 in the query",
    "http://me:pw@host:8000/v1",
    "the env key env-secret-value-1 leaked",
    "OPENAI env-secret-value-2, twice env-secret-value-2",
    "nothing here",
    "sk-short",
    "bearer",
    "Bearer sk-abcdefghijklmnop and http://u:p@h/",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_compiled_redactor_masks_every_secret_the_old_redaction_masked(monkeypatch, text):
    monkeypatch.setenv("OC_JUDGE_API_KEY", "env-secret-value-1")
    monkeypatch.setenv("OPENAI_API_KEY", "env-secret-value-2")
    old = _old_redact(text, ("env-secret-value-1", "env-secret-value-2"))
    new = redact(text)
    assert new == old  # same masks (none of these texts has a URL query or path token)
    assert redact_data({"reason": text, "list": [text, {"k": text}]}) == {"reason": old, "list": [old, {"k": old}]}


def test_the_environment_is_read_per_call_so_a_new_key_is_masked(monkeypatch):
    monkeypatch.setenv("OC_JUDGE_API_KEY", "first-secret-123")
    assert redact("a first-secret-123 b") == f"a {MASK} b"
    monkeypatch.setenv("OC_JUDGE_API_KEY", "second-secret-456")
    assert redact("a first-secret-123 b second-secret-456") == f"a first-secret-123 b {MASK}"


def test_a_document_of_shared_records_is_redacted_once_per_distinct_string_and_stays_shared(monkeypatch):
    calls = []
    real = redaction.Redactor.__call__
    monkeypatch.setattr(redaction.Redactor, "__call__", lambda self, text: calls.append(text) or real(self, text))
    record = {"correct": None, "reason": "HTTP 500 from http://u:secret-pw@h/v1"}
    document = {"details": [{"id": f"q{i}", "verdicts": [record] * 100} for i in range(50)]}
    redacted = redaction.redact_data(document)
    verdicts = [verdict for detail in redacted["details"] for verdict in detail["verdicts"]]
    assert len(verdicts) == 5000 and all(verdict is verdicts[0] for verdict in verdicts)
    assert verdicts[0]["reason"] == f"HTTP 500 from http://{MASK}@h/v1"
    assert len(calls) == len(set(calls)) == 5 + 50 + 1  # 5 keys, 50 ids, the reason
