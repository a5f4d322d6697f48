"""Checks of user-given values, written once: each failure is one :class:`InputError` line.

Every message names the offending value, the rule it breaks and, where there is
one, the fix. Modules check their inputs with these instead of their own
``_is_number``/``_positive_int``/"did you mean" helpers.

>>> positive_int(8, "--n")
8
>>> positive_int(0, "--n")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: --n must be a positive integer, got 0
>>> unknown("judge kind", "lmm", ["rule", "llm", "cascade"])
InputError("unknown judge kind 'lmm'; did you mean 'llm'? known: rule, llm, cascade")
>>> is_number(1.5), is_number(True), is_number(float("nan")), is_number("2")
(True, False, False, False)
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from gpassk_opencompass.errors import InputError


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """``"did you mean 'x'? known: a, b"``, or ``"known: a, b"`` when nothing is close.

    >>> did_you_mean("AIME2052", ["AIME2024", "AIME2025"])
    "did you mean 'AIME2025'? known: AIME2024, AIME2025"
    >>> did_you_mean("zzz", ["rule", "llm"])
    'known: rule, llm'
    >>> did_you_mean("olymmath-en-hrd", ["OlymMATH-ZH-Hard", "OlymMATH-EN-Hard"])
    "did you mean 'OlymMATH-EN-Hard'? known: OlymMATH-ZH-Hard, OlymMATH-EN-Hard"
    """
    known = list(known)
    folded = {entry.casefold(): entry for entry in known}  # the nearest without regard to case
    close = [folded[match] for match in difflib.get_close_matches(str(name).casefold(), list(folded), n=1)]
    listing = f"known: {', '.join(known)}"
    return f"did you mean {close[0]!r}? {listing}" if close else listing


def unknown(what: str, name: object, known: Iterable[str]) -> InputError:
    """The error for a name that is not one of ``known`` (returned, for the caller to raise)."""
    return InputError(f"unknown {what} {name!r}; {did_you_mean(name, known)}")


def is_number(value: object) -> bool:
    """A finite real number that is not a bool (JSON ``true`` is not ``1``)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value))


def is_int(value: object) -> bool:
    """An integer that is not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def positive_int(value: object, what: str) -> int:
    """``value`` as an ``int`` >= 1, else :class:`InputError` naming ``what``."""
    if not is_int(value) or value < 1:  # type: ignore[operator]
        raise InputError(f"{what} must be a positive integer, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def non_negative_int(value: object, what: str) -> int:
    """``value`` as an ``int`` >= 0, else :class:`InputError` naming ``what``.

    >>> non_negative_int(-1, "c")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: c must be an integer >= 0, got -1
    """
    if not is_int(value) or value < 0:  # type: ignore[operator]
        raise InputError(f"{what} must be an integer >= 0, got {value!r}")
    return int(value)  # type: ignore[call-overload]


def positive_ints(values: Iterable[object], what: str) -> list[int]:
    """A non-empty list of ints >= 1 (``--n 8 16``), else :class:`InputError` naming ``what``.

    >>> positive_ints([8, 16], "--n")
    [8, 16]
    >>> positive_ints([8, 0], "--n")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --n must be positive integers, got 0
    """
    values = list(values)
    if not values:
        raise InputError(f"{what} must name at least one value")
    for value in values:
        if not is_int(value) or value < 1:  # type: ignore[operator]
            raise InputError(f"{what} must be positive integers, got {value!r}")
    return [int(value) for value in values]  # type: ignore[call-overload]


def examples(items: Iterable[object], limit: int = 3) -> str:
    """The first ``limit`` items for a message, ``...`` when there are more.

    >>> examples(["q1", "q2", "q3", "q4"]), examples([7])
    ("'q1', 'q2', 'q3', ...", '7')
    """
    items = list(items)
    shown = ", ".join(repr(item) for item in items[:limit])
    return shown + (", ..." if len(items) > limit else "")


def finite_number(value: object, what: str) -> float:
    """``value`` as a finite ``float``, else :class:`InputError` naming ``what``."""
    if not is_number(value):
        raise InputError(f"{what} must be a finite number, got {value!r}")
    return float(value)  # type: ignore[arg-type]


def open_unit(value: object, what: str) -> float:
    """``value`` as a ``float`` strictly between 0 and 1 (a level, a probability that is not certain).

    >>> open_unit(0.95, "level"), open_unit(1, "level")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: level must be in (0, 1), got 1
    """
    if not is_number(value) or not 0 < float(value) < 1:  # type: ignore[arg-type]
        raise InputError(f"{what} must be in (0, 1), got {value!r}")
    return float(value)  # type: ignore[arg-type]


#: OpenCompass's ``test_range`` slice of questions, ``[start:stop]`` (read as a string, never as a list, by ``--set``).
QUESTION_RANGE = re.compile(r"\[\s*(\d*)\s*:\s*(\d*)\s*\]")


def question_range(value: object, what: str) -> slice:
    """A pilot's question range, OpenCompass's ``test_range`` syntax ``'[start:stop]'``, as a :class:`slice`.

    >>> question_range("[:5]", "test_range"), question_range("[10:20]", "test_range")
    (slice(None, 5, None), slice(10, 20, None))
    >>> question_range("[::2]", "test_range")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: test_range must be '[start:stop]' (e.g. '[:5]', the first 5 questions), got '[::2]'
    """
    match = QUESTION_RANGE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise InputError(f"{what} must be '[start:stop]' (e.g. '[:5]', the first 5 questions), got {value!r}")
    start, stop = (int(bound) if bound else None for bound in match.groups())
    if start is not None and stop is not None and stop <= start:
        raise InputError(f"{what} = {value!r} selects no question; stop must be above start")
    return slice(start, stop)


def int_array(name: str, value: ArrayLike) -> np.ndarray:
    """``value`` as an int64 array; non-integers and NaN raise :class:`InputError` naming ``name``.

    >>> int_array("counts", [3, 4.0]).tolist()
    [3, 4]
    >>> int_array("counts", [3, 4.5])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: counts must be integers; got counts=4.5 (question 1)
    """
    array = np.asarray(value)
    if array.dtype == object:
        try:
            array = array.astype(float)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be integers; got {value!r}") from None
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "b":
        raise InputError(f"{name} must be integers, not booleans; got {value!r}")
    if array.dtype.kind != "f":
        raise InputError(f"{name} must be integers; got {value!r} (dtype {array.dtype})")
    bad = ~np.isfinite(array) | (array != np.round(array))
    if bad.any():
        raise InputError(f"{name} must be integers; got {name}={first_offender(array, bad)}")
    return array.astype(np.int64)


def first_offender(array: np.ndarray, bad: np.ndarray) -> str:
    """The first offending element, with its position when there are several."""
    if array.size == 1:
        return repr(array.item())
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{array[index].item()!r} (question {index[0] if len(index) == 1 else index})"
