"""One viewer: the runs read at start-up, the text store, and every data document by its key.

Documents are built when first asked for; the index, the maps and the per-question values are kept (a few bytes
per question), questions, generation texts and comparisons are built anew each time (a text is never kept).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence

import numpy as np

from gpassk_opencompass.view.documents import (
    compare_document,
    generation_document,
    index_document,
    map_document,
    pairs_of,
    question_document,
    question_texts,
    question_values,
    text_document,
)
from gpassk_opencompass.view.keys import Key, document_script, parse_key
from gpassk_opencompass.view.runs import Loaded, ViewRun, load_runs
from gpassk_opencompass.view.texts import TextStore


class Viewer:
    """The data documents of the runs ``paths`` name (:func:`~gpassk_opencompass.view.runs.load_runs`).

    Raises:
        InputError: as :func:`~gpassk_opencompass.view.runs.load_runs`, before anything is served or written.
    """

    def __init__(self, paths: Sequence[str | os.PathLike]) -> None:
        self.store = TextStore()
        try:
            self.loaded: Loaded = load_runs(paths, self.store)
        except BaseException:
            self.store.close()
            raise
        self.runs: dict[str, ViewRun] = {view_run.id: view_run for view_run in self.loaded.runs}
        self.pairs = pairs_of(self.loaded.runs)
        self._lock = threading.Lock()
        self._index: dict | None = None
        self._maps: dict[str, dict] = {}
        self._values: dict[str, tuple[list[str], np.ndarray] | None] = {}

    @property
    def inputs(self) -> tuple:
        """Every file the runs were read from (no output may be one of them)."""
        return self.loaded.inputs

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def values(self, view_run: ViewRun) -> tuple[list[str], np.ndarray] | None:
        with self._lock:
            if view_run.id not in self._values:
                self._values[view_run.id] = question_values(view_run)
            return self._values[view_run.id]

    def document(self, key: Key) -> dict | None:
        """The document ``key`` names, or ``None`` when there is none (an unknown run, question or generation)."""
        if key.kind == "index":
            with self._lock:
                if self._index is None:
                    self._index = index_document(self.loaded, self.pairs)
                return self._index
        view_run = self.runs.get(key.run or "")
        if view_run is None:
            return None
        if key.kind == "map":
            values = self.values(view_run)
            with self._lock:
                if view_run.id not in self._maps:
                    self._maps[view_run.id] = map_document(view_run, values)
                return self._maps[view_run.id]
        if key.kind == "question":
            assert key.i is not None
            return question_document(view_run, key.i, self.values(view_run), self.store)
        if key.kind == "generation":
            assert key.i is not None and key.j is not None
            return generation_document(view_run, key.i, key.j, self.store)
        other = self.runs.get(key.other or "")
        if other is None or other.id == view_run.id:
            return None
        return compare_document(view_run, other, self.values(view_run), self.values(other))

    def script(self, text: str) -> bytes | None:
        """The bytes of ``data/KEY.js`` for a key's text, or ``None`` when the grammar or the runs have no such key."""
        key = parse_key(text)
        if key is None:
            return None
        document = self.document(key)
        return None if document is None else document_script(key.text, document)

    def document_keys(self) -> Iterator[Key]:
        """Every document there is: the index, each run's map, questions and texts, each pair offered."""
        yield Key("index")
        for view_run in self.loaded.runs:
            yield Key("map", run=view_run.id)
            for i in range(len(view_run.details)):
                yield Key("question", run=view_run.id, i=i)
                for j, generation in enumerate(view_run.generations(i)):
                    if view_run.texts[generation] >= 0:
                        yield Key("generation", run=view_run.id, i=i, j=j)
        for a, b in self.pairs:
            yield Key("compare", run=a, other=b)

    def documents(self) -> Iterator[tuple[Key, dict]]:
        """Every document with its key, in :meth:`document_keys`' order; a question's texts read together (a line
        of a generations file parsed once, not once per generation)."""
        for key in self.document_keys():
            if key.kind == "generation":
                continue
            document = self.document(key)
            if document is None:
                continue
            yield key, document
            if key.kind == "question":
                assert key.i is not None and key.run is not None
                view_run = self.runs[key.run]
                for j, text in question_texts(view_run, key.i, self.store):
                    yield Key("generation", run=key.run, i=key.i, j=j), text_document(view_run, key.i, j, text)
