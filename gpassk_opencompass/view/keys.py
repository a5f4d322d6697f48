"""The names of the viewer's data documents (the KEY grammar of docs/viewer.md), a run's id, and a document's bytes.

A data document is loaded by the page only as ``<script src="data/KEY.js">``; the file is exactly
``GPASSK.receive("KEY", JSON);`` and a newline, its JSON written with ``ensure_ascii=True`` (no raw U+2028,
U+2029 or control byte reaches the page). The keys that exist (anything else is not a document):

>>> [parse_key(key) for key in ("index", "runs/ab12/map", "runs/ab12/q/3/g/0", "compare/ab12/cd34")]  # doctest: +NORMALIZE_WHITESPACE
[Key(kind='index', run=None, i=None, j=None, other=None), Key(kind='map', run='ab12', i=None, j=None, other=None),
 Key(kind='generation', run='ab12', i=3, j=0, other=None), Key(kind='compare', run='ab12', i=None, j=None, other='cd34')]
>>> [parse_key(key) for key in ("runs/AB/map", "runs/ab/q/01", "runs/../map", "index.js", "runs/ab/q/3/g/")]
[None, None, None, None, None]
>>> document_script("index", {"title": "</script>\\u2028"})
b'GPASSK.receive("index", {"title": "</script>\\\\u2028"});\\n'
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

#: A run's id: lower-case letters, digits and '-' (a results file's :func:`run_id` is 12 hex digits).
RUN_ID = r"[a-z0-9-]{1,40}"
#: A question's or generation's position: a non-negative decimal integer without leading zeros (at most 9 digits).
POSITION = r"0|[1-9][0-9]{0,8}"
#: The whole grammar of a data document's key.
KEY = re.compile(
    rf"index|runs/(?P<run>{RUN_ID})/(?:(?P<map>map)|q/(?P<i>{POSITION})(?:/g/(?P<j>{POSITION}))?)"
    rf"|compare/(?P<a>{RUN_ID})/(?P<b>{RUN_ID})"
)


@dataclass(frozen=True)
class Key:
    """A parsed key: ``kind`` is ``index``, ``map``, ``question``, ``generation`` or ``compare``."""

    kind: str
    run: str | None = None
    i: int | None = None
    j: int | None = None
    other: str | None = None

    @property
    def text(self) -> str:
        """The key as the page names it."""
        if self.kind == "index":
            return "index"
        if self.kind == "compare":
            return f"compare/{self.run}/{self.other}"
        if self.kind == "map":
            return f"runs/{self.run}/map"
        question = f"runs/{self.run}/q/{self.i}"
        return question if self.kind == "question" else f"{question}/g/{self.j}"


def parse_key(key: str) -> Key | None:
    """The :class:`Key` a string names, or ``None`` when the grammar has no such key."""
    match = KEY.fullmatch(key)
    if match is None:
        return None
    if key == "index":
        return Key("index")
    if match["a"] is not None:
        return Key("compare", run=match["a"], other=match["b"])
    if match["map"] is not None:
        return Key("map", run=match["run"])
    i = int(match["i"])
    if match["j"] is None:
        return Key("question", run=match["run"], i=i)
    return Key("generation", run=match["run"], i=i, j=int(match["j"]))


def run_id(results_bytes: bytes) -> str:
    """A run's id: the first 12 hex digits of sha256 of its results file's bytes (identity by content: the
    leaderboard page computes the same for its row links).

    >>> run_id(b'{"accuracy": 50.0}')
    '304baa642990'
    """
    return hashlib.sha256(results_bytes).hexdigest()[:12]


def document_script(key: str, document: object) -> bytes:
    """The bytes of ``data/KEY.js``: ``GPASSK.receive("KEY", JSON);`` and a newline, ASCII only."""
    body = json.dumps(document, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))
    return f"GPASSK.receive({json.dumps(key)}, {body});\n".encode("ascii")
