"""Reading the results files the analysis commands are given, and checking where their answers go."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from gpassk_opencompass.checks import examples, unknown
from gpassk_opencompass.errors import IncompleteResults, InputError
from gpassk_opencompass.files.writing import check_distinct_paths, check_writable_file
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import load_results

#: How the questions of two results files are paired (``--match-by``): by their ids, or in file order.
MATCH_BY = ("id", "position")


def load_with_details(path: str | os.PathLike) -> ResultsFile:
    """A results file with its per-question ``details`` and believable values (one-line ``InputError`` otherwise:
    a file whose :attr:`~gpassk_opencompass.scoring.results.ResultsFile.problems` are not empty is refused).

    >>> load_with_details("/nonexistent/r.json")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.files.UnreadableJSON: /nonexistent/r.json: cannot read (No such file or directory)
    """
    if Path(path).is_dir():
        raise InputError(
            f"{path} is a folder; give a results file such as {Path(path) / 'results' / '<model>' / '<dataset>.json'}"
        )
    results = load_results(path)
    if not results.details:
        raise InputError(
            f"{path}: has no per-question details (GPassKEvaluator and gpassk score record "
            "them; other evaluators' results cannot be analysed per question)"
        )
    if results.problems:
        raise InputError(
            f"{path}: cannot be believed ({'; '.join(results.problems)}); it was edited or "
            "corrupted: score the run again (gpassk rejudge / gpassk score)"
        )
    return results


def check_outputs(
    inputs: Mapping[str, str | os.PathLike | None], outputs: Mapping[str, str | os.PathLike | None]
) -> None:
    """Refuse, before any work, an output that is an input or another output, or cannot be written."""
    check_distinct_paths({**inputs, **outputs})
    for role, path in outputs.items():
        if path is not None:
            check_writable_file(role, path)


def match_questions(
    a: ResultsFile, b: ResultsFile, match_by: str = "id", *, pair: Callable[[ResultsFile, ResultsFile], object]
) -> ResultsFile:
    """``b`` with its questions paired to ``a``'s: as it is (``"id"``), or renamed to ``a``'s ids in order (``"position"``).

    By id, two files that share no id at all are refused; ``--match-by position`` is suggested only when it would
    succeed: both hold as many questions and the command's own pairing (``pair``: its checks of the questions,
    their n and digests, raising ``InputError``) accepts them in order (a run's ``AIME2025/0`` and a ``gpassk
    score`` file's ``q0`` name the same question differently). By position, both must hold as many questions (the
    questions' digests, where both record them, are still checked by ``pair``).

    Raises:
        InputError: one line: an unknown ``match_by``, no shared id, or (by position) different numbers of questions.
    """
    if match_by not in MATCH_BY:
        raise unknown("--match-by", match_by, MATCH_BY)
    if match_by == "position":
        return by_position(a, b)
    ids_a, ids_b = a.question_ids(), b.question_ids()
    if ids_a and ids_b and not set(ids_a) & set(ids_b):
        raise InputError(
            f"{a.source} and {b.source} do not hold the same questions by id: they share no question id "
            f"({examples(ids_a, 2)} vs {examples(ids_b, 2)}); {_in_order(a, b, pair)}"
        )
    return b


def by_position(a: ResultsFile, b: ResultsFile) -> ResultsFile:
    """``b`` with its questions renamed to ``a``'s ids in file order (``--match-by position``).

    Raises:
        InputError: the files hold different numbers of questions.
    """
    if len(a.details) != len(b.details):
        raise InputError(
            f"--match-by position pairs the questions in order and needs as many in both files: {a.source} has "
            f"{len(a.details)}, {b.source} has {len(b.details)}; score the same questions in both"
        )
    details = tuple(
        question.model_copy(update={"id": ours.id}) for ours, question in zip(a.details, b.details, strict=True)
    )
    return b.model_copy(update={"details": details})


def _in_order(a: ResultsFile, b: ResultsFile, pair: Callable[[ResultsFile, ResultsFile], object]) -> str:
    """``--match-by position`` when pairing the files in order would succeed, else why it would not (no hint)."""
    try:
        pair(a, by_position(a, b))
    except (InputError, IncompleteResults) as error:
        return f"pairing them in order would not do either ({error})"
    return (
        f"paired in order, their {len(a.details)} questions pass every check: if both files list the same "
        "questions in the same order, pass --match-by position"
    )
