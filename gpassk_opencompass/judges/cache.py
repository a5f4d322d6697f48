"""A durable cache of judge-model verdicts: an append-only JSONL file.

One line per verdict, keyed by :func:`verdict_key` (SHA-256 of judge model, prompt version, language, question,
reference and answer shown), written the moment it arrives (one ``write()`` under ``flock`` on an ``O_APPEND``
file). Reading skips and counts torn or unreadable lines; only resolved verdicts from complete replies are
stored, and a line without a ``finish_reason`` or with ``"length"`` is stale (asked again).
:func:`check_cache_file` refuses an existing file that is not a cache before it is opened. See docs/scoring.md.

A cache is trusted only when its user chose it: the default one lives in the user's own cache folder
(:func:`user_cache_dir`), one file per input and judge (:func:`default_cache_file`, keyed by what the input *is*,
its files' ``(st_dev, st_ino)``, and by the judge); a cache that came with the input (a shared folder) is read only
when named (``--cache``, ``cache=PATH``), since anyone holding the generations can write lines it would trust.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "verdicts.jsonl"
>>> key = verdict_key("judge-7b", "v1", "en", "1+1?", "2", "2")
>>> with VerdictCache(path) as cache:
...     cache.put(key, True, "judge said \\\\boxed{yes}", finish_reason="stop")
>>> with VerdictCache(path) as cache:
...     cache.get(key)
CachedVerdict(correct=True, reason='judge said \\\\boxed{yes}')
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import UnreadableJSON, load_json_text, open_regular, read_raw_lines
from gpassk_opencompass.files.writing import append_locked, check_replaceable, open_for_appending
from gpassk_opencompass.judges.types import text_bytes, valid_unicode
from gpassk_opencompass.log import logger
from gpassk_opencompass.redaction import redact_data


@dataclass(frozen=True)
class CachedVerdict:
    """A verdict read back from the cache."""

    correct: bool
    reason: str


def verdict_key(model: str, prompt_version: str, language: str, question: str, reference: str, answer: str) -> str:
    """The cache key of one judgment: hex SHA-256 of its inputs (JSON-encoded, so no separator can collide).

    >>> verdict_key("m", "v1", "en", "q", "r", "a") == verdict_key("m", "v1", "en", "q", "r", "a")
    True
    >>> verdict_key("m", "v1", "en", "q", "r", "a") == verdict_key("m", "v2", "en", "q", "r", "a")
    False
    """
    payload = json.dumps([model, prompt_version, language, question, reference, answer], ensure_ascii=False)
    return hashlib.sha256(text_bytes(payload)).hexdigest()


#: The package's folder in the platform's cache folder.
CACHE_FOLDER = "gpassk-opencompass"


def user_cache_dir(environ: Mapping[str, str] | None = None, platform: str | None = None) -> pathlib.Path:
    """The user's own cache folder of the package: ``$XDG_CACHE_HOME/gpassk-opencompass`` when set, else the
    platform's (``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows, ``~/.cache`` elsewhere).

    >>> str(user_cache_dir({"XDG_CACHE_HOME": "/tmp/c"})), str(user_cache_dir({"HOME": "/home/a"}, "linux"))
    ('/tmp/c/gpassk-opencompass', '/home/a/.cache/gpassk-opencompass')
    >>> str(user_cache_dir({"HOME": "/Users/a"}, "darwin"))
    '/Users/a/Library/Caches/gpassk-opencompass'
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = pathlib.Path(environ.get("HOME") or pathlib.Path.home())
    if environ.get("XDG_CACHE_HOME"):
        base = pathlib.Path(environ["XDG_CACHE_HOME"])
    elif platform == "darwin":
        base = home / "Library" / "Caches"
    elif platform == "win32" and environ.get("LOCALAPPDATA"):
        base = pathlib.Path(environ["LOCALAPPDATA"])
    else:
        base = home / ".cache"
    return base / CACHE_FOLDER


def default_cache_file(input_identity: object, judge: Mapping[str, object]) -> pathlib.Path:
    """Where a judge's verdicts on one input are kept by default: in :func:`user_cache_dir`, named by a digest
    of the input's identity (its files' ``(st_dev, st_ino)``, or what identifies an in-memory input) and the
    judge (its name and model): the same input judged again resumes there, and no file beside the input is read.

    >>> a = default_cache_file([[64768, 1001]], {"judge": "llm", "judge_model": "J"})
    >>> a.parent.name, a == default_cache_file([[64768, 1001]], {"judge": "llm", "judge_model": "J"})
    ('verdicts', True)
    >>> a == default_cache_file([[64768, 1002]], {"judge": "llm", "judge_model": "J"})
    False
    """
    payload = json.dumps([input_identity, judge], sort_keys=True, default=str, ensure_ascii=False)
    return user_cache_dir() / "verdicts" / f"{hashlib.sha256(text_bytes(payload)).hexdigest()[:32]}.jsonl"


class VerdictCache:
    """The verdicts in one JSONL file, loaded on open; appends are durable at once.

    Args:
        path: the cache file; created (with its directory) if missing.

    Raises:
        InputError: ``path`` exists and is not a verdict cache (:func:`check_cache_file`), or is not a
            regular file (a device, a FIFO: checked again on the open descriptor).

    Attributes:
        skipped_lines: unreadable lines met while loading.
        stale_lines: verdicts not trusted on loading (no record of a
            complete reply); they are asked again.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        check_cache_file(path)
        self.path = pathlib.Path(path)
        self._entries: dict[str, CachedVerdict] = {}
        self.skipped_lines = 0
        self.stale_lines = 0
        self._fd: int | None = open_for_appending(self.path)  # a FIFO put there since the check is refused
        self._load()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> CachedVerdict | None:
        """The cached verdict for ``key``, or ``None``."""
        return self._entries.get(key)

    def put(self, key: str, correct: bool, reason: str, *, finish_reason: str | None, **context: str) -> None:
        """Append one verdict (``correct`` must be a bool); ``context`` is stored alongside for people reading the file.

        ``finish_reason`` is the server's for the reply (``None`` if it gave
        none); a reply cut by the token limit (``"length"``) is refused. The
        reason and the context are redacted (no API key reaches the file).
        """
        if not isinstance(correct, bool):
            raise ValueError(f"only resolved verdicts are cached, got correct={correct!r}")
        if finish_reason == "length":
            raise ValueError("a reply cut by the token limit is not a verdict and is not cached")
        record = redact_data(
            {"key": key, "correct": correct, "reason": reason, "finish_reason": finish_reason, **context}
        )
        reason = record["reason"]
        self._append(valid_unicode(json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        self._entries[key] = CachedVerdict(correct, reason)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> VerdictCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _load(self) -> None:
        for line in read_raw_lines(self.path):
            if not line.strip():
                continue
            entry = _parse_line(line)
            if entry is None:
                self.skipped_lines += 1
                continue
            if entry is _STALE:
                self.stale_lines += 1
                continue
            key, verdict = entry
            self._entries[key] = verdict
        if self.skipped_lines:
            logger.warning(
                "judge cache {}: skipped {} unreadable line(s) (a torn write is re-asked)",
                self.path,
                self.skipped_lines,
            )
        if self.stale_lines:
            logger.warning(
                "judge cache {}: {} verdict(s) without a record of a complete judge reply (an older "
                "gpassk, or a reply cut by the token limit) are asked again",
                self.path,
                self.stale_lines,
            )

    def _append(self, data: bytes) -> None:
        if self._fd is None:
            raise ValueError(f"judge cache {self.path} is closed")
        append_locked(
            self._fd,
            self.path,
            data,
            left="the verdicts written before it are kept (the same command asks only for the others)",
        )


_STALE = object()  # a readable line whose verdict is not trusted


#: How much of an existing file's first line :func:`check_cache_file` reads.
FIRST_LINE_LIMIT = 4 * 1024 * 1024


def check_cache_file(path: str | os.PathLike) -> None:
    """Raise ``InputError`` if ``path`` exists and is not a verdict cache (empty, or a verdict on its first line).

    Reads the first line only (up to :data:`FIRST_LINE_LIMIT` bytes).

    >>> import tempfile
    >>> results = pathlib.Path(tempfile.mkdtemp()) / "results.json"
    >>> _ = results.write_text('{\\n  "accuracy": 50.0\\n}\\n')
    >>> check_cache_file(results)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: .../results.json is not a verdict cache (its first line is not a verdict); appending verdicts would corrupt it
    >>> check_cache_file(results.with_name("new.jsonl"))  # missing: created on open
    """
    check_replaceable(None, path)  # a regular file or none: never a device or a FIFO (which would block the open)
    if not os.path.exists(path):  # created on open (through a dangling symlink too)
        return
    with open_regular(path) as file:
        first = file.readline(FIRST_LINE_LIMIT)
    if first and _parse_line(first) is None:
        raise InputError(
            f"{path} is not a verdict cache (its first line is not a verdict); appending verdicts would corrupt it"
        )


def _parse_line(line: bytes):
    """``(key, verdict)``, ``None`` for an unreadable line, :data:`_STALE` for a verdict without a complete reply."""
    try:
        record = load_json_text(line, source="a cache line")
    except UnreadableJSON:
        return None
    if not isinstance(record, dict):
        return None
    key, correct, reason = record.get("key"), record.get("correct"), record.get("reason", "")
    if not isinstance(key, str) or not isinstance(correct, bool) or not isinstance(reason, str):
        return None
    if "finish_reason" not in record or record["finish_reason"] == "length":
        return _STALE
    return key, CachedVerdict(correct, reason)
