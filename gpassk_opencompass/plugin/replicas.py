"""OpenCompass's replica layout: n copies of a dataset, one after the other.

For G-Pass@k a dataset of M questions is repeated n times
(``concatenate_datasets([dataset] * n)``), so the generation of replica ``r``
for question ``q`` sits at row ``r * M + q``. These pure functions check that
layout and regroup flat per-row lists into per-question lists, before any
judging happens.

>>> by_question([10, 11, 12, 20, 21, 22], n=2)
[[10, 20], [11, 21], [12, 22]]
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from typing import TypeVar

from gpassk_opencompass.errors import InputError

T = TypeVar("T")


def question_count(rows: int, n: int) -> int:
    """The number of questions M in ``rows = M * n`` rows; a clear error otherwise.

    >>> question_count(96, 48)
    2
    >>> question_count(95, 48)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: 95 predictions cannot be n=48 replicas of one dataset (95 is not a multiple of 48)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"n (generations per question) must be a positive integer; got n={n!r}")
    if rows == 0:
        raise InputError("there are no predictions to evaluate")
    if rows % n:
        raise InputError(
            f"{rows} predictions cannot be n={n} replicas of one dataset ({rows} is not a multiple of {n})"
        )
    return rows // n


def by_question(rows: Sequence[T], n: int) -> list[list[T]]:
    """Regroup replica-major rows into one list of ``n`` values per question."""
    questions = question_count(len(rows), n)
    return [[rows[replica * questions + question] for replica in range(n)] for question in range(questions)]


def check_replicas_align(keys: Sequence[Hashable], n: int, what: str = "question") -> None:
    """Every replica must hold the same questions in the same order.

    Args:
        keys: one identifying key per row (e.g. ``(subdivision, idx)``, or the
            question text with its gold answer: a replica misordered under the same ids).
        n: the number of replicas.
        what: how to name a key in the error.

    >>> check_replicas_align(["a", "b", "a", "b"], 2)
    >>> check_replicas_align(["a", "b", "b", "a"], 2)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: replica 1 does not repeat replica 0: row 2 has question 'b' where row 0 has 'a'; the dataset must be n=2 copies of the same questions in the same order
    """
    questions = question_count(len(keys), n)
    for replica in range(1, n):
        for question in range(questions):
            row = replica * questions + question
            if keys[row] != keys[question]:
                raise InputError(
                    f"replica {replica} does not repeat replica 0: row {row} has {what} {keys[row]!r:.100} "
                    f"where row {question} has {keys[question]!r:.100}; the dataset must be n={n} copies "
                    "of the same questions in the same order"
                )


def data_changed(subject: str, predictions: int, rows: int, n: int, data: str, then: str) -> str:
    """The one line for a run whose predictions are not as many as the rows its data gives now.

    OpenCompass pairs the i-th prediction with the i-th row of the dataset it builds from the config (each
    question n times): data changed or moved since the run (a newer download, another ``COMPASS_DATA_CACHE``)
    gives another number of rows. ``data`` names the data read (``""`` where it is not known), ``then`` what to
    run once it is the run's again.

    >>> print(data_changed("m x d", 64, 80, 8, "", "run it again"))  # doctest: +ELLIPSIS
    m x d: the run has 64 predictions (8 questions x n=8) but its data now gives 80 rows (10 questions x n=8): ...
    """
    cache = os.environ.get("COMPASS_DATA_CACHE")
    return (
        f"{subject}: the run has {predictions} predictions ({_questions(predictions, n)}) but its data"
        f"{', ' + data + ',' if data else ''} now gives {rows} rows ({_questions(rows, n)}): the data changed or "
        f"moved since the run; give the data the run used (COMPASS_DATA_CACHE, "
        f"{'now ' + repr(cache) if cache else 'not set now'}, or DATASET_SOURCE as for the run, or restore its "
        f"files), then {then}"
    )


def _questions(count: int, n: int) -> str:
    """``'6 questions x n=8'`` for 48 rows, or just ``'n=8'`` when they do not divide."""
    return f"{count // n} questions x n={n}" if count % n == 0 else f"n={n}"
