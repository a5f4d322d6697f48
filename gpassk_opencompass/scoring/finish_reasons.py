"""How each generation of an OpenCompass run stopped, as its server said: the finish-reason sidecar.

OpenCompass keeps the generations' texts only. The grid's model classes (:mod:`gpassk_opencompass.plugin.models`)
see each reply's finish reason and append it, one line per generation, to the sidecar of the predictions file
OpenCompass is writing, beside it::

    predictions/<model abbr>/<dataset abbr>.json                    # OpenCompass's (or its _0, _1... parts)
    predictions/<model abbr>/<dataset abbr>.finish_reasons.jsonl    # {"sha256": "<hex>", "finish_reason": "length"}

A line is keyed by the SHA-256 of the generation's text (:func:`text_digest`), so it needs no row number: a
resumed run, a partitioned one and a re-judged one (whose predictions folder is a link to the run's) all find
their lines, and a line of a text OpenCompass never saved (the task killed before it wrote) matches nothing.
A text recorded twice with different reasons has none (:func:`finish_reasons_of`). Readers look up the texts they
hold: the evaluator (so ``gpassk rejudge`` too), the ``opencompass`` reader (``gpassk score``, ``gpassk view``).
Without a sidecar (a run made with other model classes) a generation has no recorded reason, and its cut is the
extraction's lower bound (:mod:`~gpassk_opencompass.scoring.cut`). Docs: docs/grid.md, "Cut generations".

>>> import pathlib, tempfile
>>> predictions = pathlib.Path(tempfile.mkdtemp()) / "AIME2025.json"
>>> sidecar_path(predictions).name
'AIME2025.finish_reasons.jsonl'
>>> append_finish_reasons(predictions, ["\\\\boxed{7}", "First we add the"], ["stop", "length"])
>>> finish_reasons_of(["First we add the", "\\\\boxed{7}", "never generated"], [sidecar_path(predictions)])
('length', 'stop', None)
>>> finish_reasons_of(["x"], [sidecar_path(predictions.with_name("other.json"))]) is None  # no sidecar
True
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpassk_opencompass.files import UnreadableFile, load_json_text, read_raw_lines
from gpassk_opencompass.files.writing import append_locked, open_for_appending
from gpassk_opencompass.judges.types import text_bytes
from gpassk_opencompass.log import logger

#: What follows a predictions file's stem in its sidecar's name.
SUFFIX = ".finish_reasons.jsonl"
#: The longest finish reason kept (a server's own word: ``stop``, ``length``, ``max_tokens``...); longer is cut.
MAX_REASON_CHARS = 64
#: The longest line read back; a longer one makes the sidecar unreadable (its generations fall back to the text).
MAX_LINE_BYTES = 1024


def sidecar_path(predictions_file: str | os.PathLike) -> Path:
    """The sidecar of a predictions file: ``X.json`` -> ``X.finish_reasons.jsonl`` in the same folder."""
    path = Path(predictions_file)
    return path.with_name(path.stem + SUFFIX)


def text_digest(text: str) -> str:
    """The key of a generation's line: hex SHA-256 of its text's bytes (:func:`~gpassk_opencompass.judges.types.text_bytes`).

    >>> text_digest("")
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    return hashlib.sha256(text_bytes(text)).hexdigest()


def record_lines(texts: Sequence[str], reasons: Sequence[str | None]) -> bytes:
    """The sidecar lines of generations and their reasons (none for a generation without a reason).

    >>> record_lines(["a", "b"], ["stop", None])
    b'{"sha256": "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb", "finish_reason": "stop"}\\n'
    """
    return b"".join(
        json.dumps({"sha256": text_digest(text), "finish_reason": reason[:MAX_REASON_CHARS]}).encode("ascii") + b"\n"
        for text, reason in zip(texts, reasons, strict=True)
        if isinstance(reason, str)
    )


def append_finish_reasons(
    predictions_file: str | os.PathLike, texts: Sequence[str], reasons: Sequence[str | None]
) -> None:
    """Append the reasons of ``texts`` to the sidecar of ``predictions_file`` (one locked write, as the verdict
    cache appends: :func:`~gpassk_opencompass.files.writing.append_locked`)."""
    data = record_lines(texts, reasons)
    if not data:
        return
    path = sidecar_path(predictions_file)
    descriptor = open_for_appending(path)
    try:
        append_locked(descriptor, path, data, left="the lines written before it are kept")
    finally:
        os.close(descriptor)


def finish_reasons_of(texts: Sequence[str], sidecars: Iterable[str | os.PathLike]) -> tuple[str | None, ...] | None:
    """Per text, the finish reason the sidecars recorded for it (``None`` where none did, or where two lines
    disagree); ``None`` when no sidecar exists (nothing was recorded: the run's model classes are not ours).

    Read through the read door, bounded (:data:`MAX_LINE_BYTES` a line); only the lines of ``texts`` are kept.
    A line that is not a record is skipped (counted in one warning); a sidecar that cannot be read (not a
    regular file, a line over the limit, not UTF-8) is left out with a warning naming it: its generations'
    cuts are then the text's lower bound, never a failure.
    """
    digests = [text_digest(text) for text in texts]
    wanted = dict.fromkeys(digests)
    found: dict[str, str | None] = {}
    existing = [Path(path) for path in sidecars if os.path.lexists(path)]
    if not existing:
        return None
    for path in existing:
        try:
            read, skipped = _read_sidecar(path, wanted)
        except UnreadableFile as error:
            logger.warning("finish reasons not read: {}; the cut counts of its generations come from the text", error)
            continue
        if skipped:
            logger.warning("{}: skipped {} line(s) that are not finish-reason records", path, skipped)
        for digest, reason in read.items():
            found[digest] = reason if found.get(digest, reason) == reason else None
    return tuple(found.get(digest) for digest in digests)


def _read_sidecar(path: Path, wanted: dict[str, None]) -> tuple[dict[str, str | None], int]:
    """The reasons of the ``wanted`` digests in one sidecar (``None``: two lines disagree), and the lines skipped."""
    read: dict[str, str | None] = {}
    skipped = 0
    for line in read_raw_lines(path, MAX_LINE_BYTES):
        if not line.strip():
            continue
        try:
            record = load_json_text(line, source=f"{path}: a line", max_bytes=MAX_LINE_BYTES)
        except UnreadableFile:
            skipped += 1
            continue
        digest = record.get("sha256") if isinstance(record, dict) else None
        reason = record.get("finish_reason") if isinstance(record, dict) else None
        if not isinstance(digest, str) or not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS:
            skipped += 1
            continue
        if digest in wanted:
            read[digest] = reason if read.get(digest, reason) == reason else None
    return read, skipped
