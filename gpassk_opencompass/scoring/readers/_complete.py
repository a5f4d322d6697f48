"""Completeness from the tool's own record: the one check of a dump against what its tool says it wrote.

Each reader states what its tool's record promises -- inspect's header (epochs, sample ids, total samples),
EvalScope's ``generation_index`` 0..n-1 per question, OpenCompass's part numbering and n replicas of every
question -- and hands over which repeats of which question it holds. A gap (a missing member, line or part)
is refused here in one line naming the file and the first missing piece (exit 2): a damaged dump is never
scored with a smaller n. Not a reader itself.

>>> check_complete("log", {"q1": {1, 2}, "q2": {1, 2}}, repeats=range(1, 3), says="epochs 2", name=str, fix="")
>>> check_complete("log", {"q1": {1, 2}, "q2": {2}}, repeats=range(1, 3), says="epochs: 2",
...                name=lambda q, i: f"epoch {i} of {q}", fix="give the whole log")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: log: epoch 1 of q2 is missing (epochs: 2); the dump is incomplete: give the whole log
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from gpassk_opencompass.errors import InputError


def check_complete(
    source: str,
    held: Mapping[str, Collection[int]],
    *,
    says: str,
    name: Callable[[str, int], str],
    fix: str,
    repeats: Sequence[int] | None = None,
    first: int = 0,
    ids: Sequence[str] | None = None,
    total: int | None = None,
) -> None:
    """Refuse ``held`` unless it is every repeat of every question the tool's record states.

    Args:
        source: the file, as the message names it.
        held: per question id, the repeat numbers the dump holds.
        says: what the tool's record says, for the message (``"the header says epochs: 4"``).
        name: the missing piece of question ``id``, repeat ``number`` as the tool names it
            (``"member samples/q2_epoch_3.json"``).
        fix: what to give instead.
        repeats: every question's repeat numbers as the record states them; ``None``: the tool repeats
            every question alike, ``first`` up to the most any question holds.
        first: the first repeat number when ``repeats`` is ``None`` (0 or 1).
        ids: the question ids the record states, when it does; each must be held.
        total: how many repeats in all the record states, when it does.

    Raises:
        InputError: a repeat missing or beyond the record, a question missing, or a total that differs.
    """
    if repeats is None:
        repeats = range(first, first + max((len(numbers) for numbers in held.values()), default=0))
    expected = set(repeats)
    for question in [*(ids or ()), *held]:
        numbers = held.get(question, ())
        missing = [number for number in repeats if number not in numbers]
        if missing:
            more = f" (and {len(missing) - 1} more of this question)" if len(missing) > 1 else ""
            raise InputError(
                f"{source}: {name(question, missing[0])} is missing{more} ({says}); the dump is incomplete: {fix}"
            )
        beyond = sorted(set(numbers) - expected)
        if beyond:
            raise InputError(f"{source}: {name(question, beyond[0])} is beyond the record ({says}); {fix}")
    if ids is not None and set(held) - set(ids):
        question = next(question for question in held if question not in set(ids))
        raise InputError(f"{source}: question {question!r} is not among the ones the record names ({says}); {fix}")
    held_total = sum(len(numbers) for numbers in held.values())
    if total is not None and held_total != total:
        raise InputError(f"{source}: holds {held_total} samples, not {total} ({says}); the dump is incomplete: {fix}")
