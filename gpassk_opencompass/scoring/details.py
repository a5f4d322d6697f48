"""The ``details`` of a results document: one question's record, and the compact storage of a scoring's.

:class:`QuestionRecord` is one entry of ``details[]`` (declared, validated when a file is read);
:class:`CompactDetails` holds a whole scoring's details in a few bytes per generation and builds each
record when it is read; :func:`detail_rows` gives either, row by row, to the writer. The digests of
a question's texts (:func:`texts_digest`) are computed here, once.
"""

from __future__ import annotations

import hashlib
import operator
import typing
import unicodedata
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from json.encoder import encode_basestring  # json.dumps' own string encoder
from typing import TypeVar

import numpy as np
from pydantic import ConfigDict, Field, model_validator

from gpassk_opencompass.contracts import Absent, Contract, Count
from gpassk_opencompass.judges.types import Verdict, text_bytes

#: The ``details[]`` fields holding :func:`texts_digest` of the question's generations, and of its text and gold.
DIGEST_FIELDS = ("generations_sha256", "question_sha256")
#: The ``details[]`` fields counting how a question's generations ended (:mod:`~gpassk_opencompass.scoring.cut`).
ENDS_FIELDS = ("cut", "no_answer")

T = TypeVar("T")


def texts_digest(texts: Sequence[str]) -> str:
    """sha256 (hex) of texts in order, each NFC-normalised: equal exactly when the texts are.

    Two results files of the same generations judged twice carry the same
    digests of the generations; two models' generations do not.

    >>> texts_digest(["\\boxed{2}", "3"]) == texts_digest(["\\boxed{2}", "3"])
    True
    >>> texts_digest(["\\boxed{2}", "3"]) == texts_digest(["3", "\\boxed{2}"])
    False
    """
    return texts_sha256(texts).hex()


def texts_sha256(texts: Iterable[str]) -> bytes:
    """The 32 bytes of :func:`texts_digest`: sha256 of the JSON list of the NFC-normalised texts (``json.dumps``
    with ``ensure_ascii=False``, built here from its own string encoder: the same bytes, a third of the time),
    encoded by :func:`~gpassk_opencompass.judges.types.text_bytes` (a lone surrogate is hashed as itself).

    >>> import json
    >>> texts = ["\\boxed{2}", "caf\\u0065\\u0301", 'say "x"\\n', ""]
    >>> normalized = [unicodedata.normalize("NFC", text) for text in texts]
    >>> texts_sha256(texts) == hashlib.sha256(json.dumps(normalized, ensure_ascii=False).encode("utf-8")).digest()
    True
    """
    encoded = ", ".join([encode_basestring(unicodedata.normalize("NFC", text)) for text in texts])
    return hashlib.sha256(text_bytes(f"[{encoded}]")).digest()


class QuestionRecord(Contract):
    """One question of ``details``: its id, counts, subset labels (the other string fields), verdicts in
    generation order, and the digests of its generations and of its text and gold answer."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, str] = Field(init=False)

    id: str = Field(description="the question's id")
    c: Count = Field(description="correct generations")
    n: Count = Field(description="generations")
    unresolved: Count = Field(default=0, description="generations that could not be judged")
    cut: Absent[Count] = Field(default=None, description="generations cut at the output limit (schema 3)")
    no_answer: Absent[Count] = Field(
        default=None, description="generations not cut that end without a final answer (schema 3)"
    )
    generations_sha256: Absent[str] = Field(
        default=None, description="texts_digest of the question's n generations (gpassk agree checks it)"
    )
    question_sha256: Absent[str] = Field(
        default=None, description="texts_digest of [question, gold answer] (gpassk compare checks it)"
    )
    verdicts: tuple[Verdict, ...] = Field(
        default=(), description="every generation's verdict; correct is null when it could not be judged"
    )

    @model_validator(mode="after")
    def _counts_match_verdicts(self) -> QuestionRecord:
        if self.verdicts and (
            len(self.verdicts) != self.n or sum(verdict.correct is True for verdict in self.verdicts) != self.c
        ):
            # a validator's ValueError is pydantic's own report, worded by contracts.input_error after its place
            raise ValueError(f"c={self.c}, n={self.n} do not match its {len(self.verdicts)} verdicts")
        if "unresolved" not in self.model_fields_set and self.verdicts:  # written before the field
            object.__setattr__(self, "unresolved", sum(verdict.correct is None for verdict in self.verdicts))
        return self

    @property
    def labels(self) -> dict[str, str]:
        """The subset labels (``split``, ``language``, ...)."""
        return dict(self.__pydantic_extra__ or {})


class CompactDetails(Sequence[QuestionRecord]):
    """The ``details`` of a scoring, held compactly: each :class:`QuestionRecord` is built when it is read.

    Per generation a 4-byte index into the shared verdicts (one per distinct
    generation), per question its id, subset labels and 32-byte digests: a
    million questions cost ~150 bytes each, not a record's ~1.4 KB, and the
    results are written from them row by row (:func:`~gpassk_opencompass.scoring.results_io.write_results`).
    :func:`~gpassk_opencompass.scoring.flow.scored_results` returns its
    ``details`` so; a file read back holds a tuple of records. Both read the same.

    Args:
        ids: the question ids, in order.
        labels: ``{subset column: one label per question}``.
        verdicts: the distinct verdicts.
        slots: per generation (questions in order, then generations in order), its index in ``verdicts``.
        offsets: where each question's generations start in ``slots``, then the end (one more than ``ids``).
        digests: ``{field of DIGEST_FIELDS: 32 bytes per question, concatenated}`` (:func:`texts_sha256`).
        ends: ``(cut, no_answer)``, one count per question each (:func:`~gpassk_opencompass.scoring.cut.count_ends`);
            ``None``: not counted.

    >>> right, wrong = Verdict(True, "1", "ok", "rule"), Verdict(False, "2", "differ", "rule")
    >>> details = CompactDetails(["a", "b"], {"split": ["x", "y"]}, [right, wrong], [0, 1, 0], [0, 2, 3])
    >>> len(details), details[0].c, details[0].n, details[-1].labels, details[1].verdicts == (right,)
    (2, 1, 2, {'split': 'y'}, True)
    """

    def __init__(
        self,
        ids: Sequence[str],
        labels: Mapping[str, Sequence[str]],
        verdicts: Sequence[Verdict],
        slots: Iterable[int],
        offsets: Iterable[int],
        digests: Mapping[str, bytes | bytearray] | None = None,
        ends: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.ids = list(ids)
        self.labels = {column: list(values) for column, values in labels.items()}
        self.verdicts = list(verdicts)
        self.slots = slots if isinstance(slots, array) and slots.typecode == "i" else array("i", slots)
        self.offsets = offsets if isinstance(offsets, array) and offsets.typecode == "q" else array("q", offsets)
        self.digests = dict(digests or {})
        self.ends = ends
        self.n = np.diff(np.frombuffer(self.offsets, dtype=np.int64))
        self.c = self._count([verdict.correct is True for verdict in self.verdicts])
        self.unresolved = self._count([verdict.correct is None for verdict in self.verdicts])

    def _count(self, which: list[bool], within: int | None = None) -> np.ndarray:
        """Per question, how many of its generations' verdicts ``which`` marks (one flag per verdict), among its
        first ``within`` generations (``None``: all): a byte per generation while counting, not the 24 of an owner
        index and a weight each (10M generations: 240 MB)."""
        counts = np.zeros(len(self.ids), dtype=np.int64)
        starts = np.frombuffer(self.offsets, dtype=np.int64)[:-1][self.n > 0]  # reduceat: no empty segment
        if len(starts):
            marked = np.append(np.array(which, dtype=np.uint8)[self.slot_array()], np.uint8(0))
            ends = starts + np.minimum(self.n[self.n > 0], len(marked) if within is None else max(within, 1))
            sums = np.add.reduceat(marked, np.stack([starts, ends], axis=1).ravel(), dtype=np.int64)[::2]
            counts[self.n > 0] = sums if within is None or within > 0 else 0
        return counts

    def first_counts(self, draws: int) -> tuple[np.ndarray, np.ndarray]:
        """Per question, the correct and the unresolved verdicts among its first ``draws`` generations (draw order).

        >>> right, unknown = Verdict(True, "1", "ok", "rule"), Verdict(None, None, "timed out", "rule")
        >>> [a.tolist() for a in CompactDetails(["a", "b"], {}, [right, unknown], [1, 0, 0, 0], [0, 3, 4]).first_counts(2)]
        [[1, 1], [1, 0]]
        """
        return (
            self._count([verdict.correct is True for verdict in self.verdicts], draws),
            self._count([verdict.correct is None for verdict in self.verdicts], draws),
        )

    def slot_array(self) -> np.ndarray:
        """The per-generation indices into :attr:`verdicts` as a numpy array (no copy)."""
        return np.frombuffer(self.slots, dtype=np.int32)

    def __len__(self) -> int:
        return len(self.ids)

    @typing.overload
    def __getitem__(self, index: int) -> QuestionRecord: ...

    @typing.overload
    def __getitem__(self, index: slice) -> tuple[QuestionRecord, ...]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[position] for position in range(len(self))[index])
        position = range(len(self))[index]  # IndexError as a tuple's
        start, stop = self.offsets[position], self.offsets[position + 1]
        fields: dict[str, typing.Any] = {column: values[position] for column, values in self.labels.items()}
        fields.update(self._ends_of(position))  # set only when counted, as a record read back
        fields.update((field, data[32 * position : 32 * position + 32].hex()) for field, data in self.digests.items())
        return QuestionRecord(
            id=self.ids[position],
            c=int(self.c[position]),
            n=stop - start,
            unresolved=int(self.unresolved[position]),
            verdicts=tuple(self.verdicts[slot] for slot in self.slots[start:stop]),
            **fields,
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CompactDetails, tuple, list)):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple of its records, so not hashable

    def _ends_of(self, position: int) -> dict[str, int]:
        """``{"cut": .., "no_answer": ..}`` of the question at ``position`` (empty when not counted)."""
        if self.ends is None:
            return {}
        return {"cut": int(self.ends[0][position]), "no_answer": int(self.ends[1][position])}

    def rows(
        self, values: Sequence[T] | None = None
    ) -> Iterator[tuple[str, int, int, dict[str, str], dict[str, int], dict[str, str], list[T]]]:
        """Per question ``(id, c, n, labels, counts, digests, verdicts)``, as :func:`detail_rows` gives them;
        ``values``: what stands for each of :attr:`verdicts` in ``verdicts`` (the verdicts themselves by default)."""
        columns = list(self.labels.items())
        slots, offsets = self.slots, self.offsets
        verdicts = typing.cast(Sequence[T], self.verdicts) if values is None else values
        for position, (question_id, c, unresolved) in enumerate(
            zip(self.ids, self.c.tolist(), self.unresolved.tolist())
        ):
            start, stop = offsets[position], offsets[position + 1]
            yield (
                question_id,
                c,
                stop - start,
                {column: values[position] for column, values in columns},
                {"unresolved": unresolved, **self._ends_of(position)},
                {field: data[32 * position : 32 * position + 32].hex() for field, data in self.digests.items()},
                [verdicts[slot] for slot in slots[start:stop]],
            )


def detail_rows(
    details: Sequence[QuestionRecord],
) -> Iterator[tuple[str, int, int, dict[str, str], dict[str, int], dict[str, str], Sequence[Verdict]]]:
    """Per question ``(id, c, n, labels, counts, digests, verdicts)``: what ``details[]`` writes (``counts``:
    ``unresolved``, and ``cut`` and ``no_answer`` where they were counted)."""
    if isinstance(details, CompactDetails):
        yield from details.rows()
        return
    for question in details:
        digests = {field: getattr(question, field) for field in DIGEST_FIELDS if getattr(question, field) is not None}
        counts = {"unresolved": question.unresolved}
        counts.update((name, value) for name in ENDS_FIELDS if (value := getattr(question, name)) is not None)
        yield question.id, question.c, question.n, question.labels, counts, digests, question.verdicts
