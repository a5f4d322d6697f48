"""The gpassk generations JSONL: one question per line, ``gpassk score``'s own input format.

Each line is ``{"id", "question", "answer", "predictions"[, "language", "source_extracted", "source_verdicts"]}``
(:mod:`~gpassk_opencompass.scoring.flow`). :func:`read` yields the lines as text, so they are checked, and
numbered, as the file's lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import read_lines
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "gpassk"
DESCRIPTION = "gpassk's generations JSONL: one {id, question, answer, predictions} object per line"


def detect(path: Path) -> bool:
    """A ``.jsonl`` file whose first record has ``predictions`` and ``answer``."""
    record = first_record(path, suffixes=(".jsonl",))
    return isinstance(record, dict) and "predictions" in record and "answer" in record


def read(path: Path) -> Iterator[str]:
    """The file's lines, as text (blank lines included: they keep the line numbers)."""
    if path.is_dir():
        raise InputError(
            f"{path} is a folder; the gpassk format is one generations JSONL file (give the file, or another "
            f"--format; a finished OpenCompass run is judged again with: gpassk rejudge {path})"
        )
    yield from read_lines(path)
