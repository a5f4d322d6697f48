"""The user's own judge: any ``check_correct_fn(prediction, reference) -> bool``, as in the G-Pass@k metric card.

:class:`PythonJudge` calls it once per distinct (prediction, reference) pair, recorded as
``python:module:function``; ``True``/``False`` is the verdict, an exception, any other value or no answer within
``timeout`` (:data:`DEFAULT_TIMEOUT`) is unresolved with the reason, never "wrong". It runs in worker processes
(:mod:`~gpassk_opencompass.judges.workers`: a ``module:function`` is imported again, a lambda or closure reaches
them by ``fork``); verdicts are cached only given a cache, keyed on the judge's name and code.
See docs/scoring.md, "Your own judge".

>>> from gpassk_opencompass.judges import JudgeItem
>>> def same_letter(prediction, reference):
...     return prediction.strip().upper() == reference.upper()
>>> judge = PythonJudge(same_letter)
>>> judge.name
'python:gpassk_opencompass.judges.user:same_letter'
>>> report = judge.judge([JudgeItem("q", "A", " a"), JudgeItem("q", "A", "b"), JudgeItem("q", "A", "")],
...                      progress=False)
>>> [verdict.correct for verdict in report.verdicts]
[True, False, False]
>>> flaky = PythonJudge(lambda prediction, reference: int(prediction) == int(reference), name="python:tests:as_int")
>>> [(verdict.correct, verdict.reason) for verdict in flaky.judge([JudgeItem("q", "2", "two")]).verdicts]
[(None, "python:tests:as_int raised ValueError: invalid literal for int() with base 10: 'two'")]
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import multiprocessing
import os
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from gpassk_opencompass.checks import finite_number
from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.files import UnreadableFile, open_regular
from gpassk_opencompass.judges.batch import check_items, judge_stats
from gpassk_opencompass.judges.cache import VerdictCache, verdict_key
from gpassk_opencompass.judges.kinds import CACHE, PYTHON, USER_PREFIX
from gpassk_opencompass.judges.types import JudgeItem, JudgeReport, Verdict, text_bytes
from gpassk_opencompass.judges.workers import Start, Worker, default_processes, forked, in_interpreter, judge_in_workers

#: Longest reason kept from a user function's exception message.
MAX_REASON_CHARS = 300
# Containers nested deeper than this in a global the function reads are taken by their repr (a cycle ends there).
_NESTING = 8
#: Seconds the function may take on one answer (``--judge-timeout``, ``judge_timeout``) by default.
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class PythonJudge:
    """A :class:`~gpassk_opencompass.judges.protocol.Judge` calling ``check(prediction, reference)``.

    Args:
        check: the user's ``check_correct_fn(prediction, reference) -> bool``.
        name: what the results record; default ``python:<module>:<qualified name>`` of ``check``.
        cache_path: a verdict cache to keep the verdicts in (``None``: none).
        timeout: seconds ``check`` may take on one answer before its verdict is unresolved.
        spec: the ``--judge`` name that imports ``check`` (``module:function`` or an entry point): its
            workers import it again; ``None``: they are forked copies of this process.

    Raises:
        InputError: ``timeout`` is not a positive number; ``check`` has no ``spec`` and there is no ``fork``.
    """

    check: Callable[[str, str], object]
    name: str = ""
    cache_path: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    spec: str | None = None
    asks_model: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if not callable(self.check):
            raise TypeError(f"check must be a function (prediction, reference) -> bool, got {self.check!r}")
        if finite_number(self.timeout, "judge_timeout") <= 0:
            raise InputError(f"judge_timeout must be a number of seconds > 0, got {self.timeout!r}")
        if self.spec is None and "fork" not in multiprocessing.get_all_start_methods():
            raise InputError(
                f"{self.check!r:.80}: a function given from Python reaches its worker processes by fork, which "
                "this platform lacks; name it as module:function instead (--judge my_checks:same)"
            )
        if not self.name:
            module = getattr(self.check, "__module__", None) or "?"
            function = getattr(self.check, "__qualname__", None) or type(self.check).__qualname__
            object.__setattr__(self, "name", f"{USER_PREFIX}{module}:{function}")

    def identity(self) -> dict[str, object]:
        return {"judge": self.name, "judge_model": None}

    def with_cache(self, path: str | os.PathLike | None) -> PythonJudge:
        return PythonJudge(self.check, self.name, None if path is None else Path(path), self.timeout, self.spec)

    def with_timeout(self, timeout: float) -> PythonJudge:
        """The same judge with another time limit per answer."""
        return PythonJudge(self.check, self.name, self.cache_path, timeout, self.spec)

    def judge(
        self, items: Sequence[JudgeItem], *, progress: bool = True, repeats: Sequence[int] | None = None
    ) -> JudgeReport:
        """One verdict per item; each distinct (prediction, reference) pair is checked once."""
        check_items(items)
        position: dict[tuple[str, str], int] = {}
        pair_of_item = [position.setdefault((item.response, item.reference), len(position)) for item in items]
        pairs = list(position)
        verdicts: list[Verdict | None] = [None] * len(pairs)
        cached = 0
        cache = VerdictCache(self.cache_path) if self.cache_path is not None else None
        try:
            keys: list[str] = []
            if cache is not None:
                digest = code_digest(self.check)  # once: it reads the module's file and reprs the globals
                keys = [self._key(digest, reference, prediction) for prediction, reference in pairs]
            for index, key in enumerate(keys):
                hit = cache.get(key) if cache is not None else None
                if hit is not None:
                    verdicts[index] = Verdict(hit.correct, None, hit.reason, CACHE)
                    cached += 1
            todo = [index for index, found in enumerate(verdicts) if found is None]

            def arrived(position: int, verdict: Verdict) -> None:  # kept at once: a stopped run resumes from it
                index = todo[position]
                verdicts[index] = verdict
                if cache is not None and verdict.correct is not None:
                    cache.put(keys[index], verdict.correct, verdict.reason, finish_reason=None, judge=self.name)

            self._in_workers([pairs[index] for index in todo], progress, arrived)
        finally:
            if cache is not None:
                cache.close()
        item_verdicts = tuple(cast(Verdict, verdicts[index]) for index in pair_of_item)  # every pair judged above
        stats = judge_stats(self.name, item_verdicts, repeats, unique=len(pairs), cached=cached)
        return JudgeReport(item_verdicts, stats, None)

    def _in_workers(
        self, pairs: list[tuple[str, str]], progress: bool, arrived: Callable[[int, Verdict], None]
    ) -> list[Verdict]:
        """The verdicts of ``pairs``, each from a worker process within :attr:`timeout` or unresolved, each given to
        ``arrived(index, verdict)`` as it arrives."""
        if not pairs:
            return []
        start: Start = (
            forked(self._verdict)
            if self.spec is None
            else in_interpreter(
                "import sys; from gpassk_opencompass.judges.registry import serve; "
                "serve({read}, {write}, sys.argv[1], sys.argv[2], sys.argv[3:])",
                (self.spec, self.name, *sys.path),
            )
        )
        return judge_in_workers(
            pairs,
            lambda: Worker(start),
            processes=default_processes(len(pairs)),
            progress=progress and len(pairs) > 1,
            desc=f"judging with {self.name}",
            unresolved=lambda index, reason: Verdict(None, None, reason, PYTHON),
            deadline=self.timeout,
            silent=f"{self.name} gave no verdict within {self.timeout:g} s (the judge_timeout); make it return "
            "sooner on this answer or give it longer (--judge-timeout S, judge_timeout=S)",
            died=f"{self.name}'s worker process died on this answer (out of memory, a crash, os._exit)",
            arrived=arrived,
        )

    def _verdict(self, prediction: str, reference: str) -> Verdict:
        try:
            answer = self.check(prediction, reference)
        except Exception as error:  # noqa: BLE001 - the user's code failed on this item: unresolved, with why
            message = clause(error)[:MAX_REASON_CHARS]
            return Verdict(None, None, f"{self.name} raised {type(error).__name__}: {message}".rstrip(": "), PYTHON)
        if type(answer).__name__ == "bool_" and type(answer).__module__ == "numpy":
            answer = bool(answer)
        if not isinstance(answer, bool):
            shown = repr(answer)[:80]
            return Verdict(
                None, None, f"{self.name} returned {type(answer).__name__} {shown}, not True or False", PYTHON
            )
        return Verdict(answer, None, f"{self.name} returned {answer}", PYTHON)

    def _key(self, digest: str, reference: str, prediction: str) -> str:
        return verdict_key(self.name, f"code {digest}", "", "", reference, prediction)


def code_digest(function: Callable) -> str:
    """A digest of what decides a function's answers, as far as it can be seen: it changes when any of it is edited.

    It covers the function's code (nested functions included), its defaults and captured values (for a callable
    object or a bound method, its class's ``__call__`` or the method, and the object's attributes); the values of
    the globals its code names (a tolerance, a table; a function among them is followed the same way, a module
    stands by its name, an object whose repr is only its address by its type); and the bytes of the source file
    of the function's module and of every module whose functions it reaches so (for a function typed into a
    notebook or ``python -c``, which has none, the rest still counts). Not covered: the contents of other
    modules it imports (``import mytools`` then ``mytools.TOL``), data files it reads, the environment, installed
    packages.

    >>> code_digest(lambda a, b: a == b) == code_digest(lambda a, b: a != b)
    False
    >>> TOLERANCE = 0.5
    >>> def near(a, b):
    ...     return abs(float(a) - float(b)) <= TOLERANCE
    >>> before = code_digest(near)
    >>> TOLERANCE = 0.25
    >>> code_digest(near) == before
    False
    """
    digest = hashlib.sha256()
    seen: set[object] = set()
    files: set[str] = set()
    pending: list[object] = [function]
    while pending:
        for part in _function_parts(pending.pop(), seen, files, pending):
            digest.update(part)
            digest.update(b"\0")
    for path in sorted(files):
        digest.update(text_bytes(path) + b"\0")
        digest.update(_file_digest(path))
    return digest.hexdigest()[:16]


def _function_parts(function: object, seen: set[object], files: set[str], pending: list[object]) -> list[bytes]:
    """The bytes of one function (its code, defaults, closure, the globals its code names) for :func:`code_digest`.

    Functions among its captured values and globals are appended to ``pending``, their modules' files to ``files``.
    """
    if isinstance(function, functools.partial):
        pending.append(function.func)
        return [b"partial", _stable_repr(function.args), _stable_repr(function.keywords)]
    target: Any = getattr(function, "__func__", function)  # a bound method: its function, and its object's state
    instance = getattr(function, "__self__", None)
    if getattr(target, "__code__", None) is None:  # a callable object: its class's __call__; a builtin: its name
        target, instance = (type(function).__call__ if callable(function) else None), function
        if getattr(target, "__code__", None) is None:
            return [f"{type(function).__module__}.{type(function).__qualname__}".encode()]
    state = [_stable_repr(vars(instance))] if hasattr(instance, "__dict__") else []
    if target in seen:
        return state
    seen.add(target)
    module = sys.modules.get(getattr(target, "__module__", None) or "")
    source = getattr(module, "__file__", None)
    if isinstance(source, str) and os.path.isfile(source):
        files.add(source)

    def value_part(value: object) -> bytes:
        if getattr(getattr(value, "__func__", value), "__code__", None) is not None:
            pending.append(value)  # a function: followed, not its repr (which holds its address)
            return b"function"
        return _stable_repr(value)

    code = target.__code__
    parts = [*state, marshal.dumps(code), _stable_repr(target.__defaults__), _stable_repr(target.__kwdefaults__)]
    parts += [value_part(cell.cell_contents) for cell in target.__closure__ or ()]
    namespace = target.__globals__
    parts += [
        name.encode() + b"=" + value_part(namespace[name]) for name in sorted(_names_read(code)) if name in namespace
    ]
    return parts


def _names_read(code: types.CodeType) -> set[str]:
    """The names a code object and the code nested in it look up (globals among them)."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_read(constant)
    return names


def _stable_repr(value: object, depth: int = 0) -> bytes:
    """``repr(value)`` as it reads in every run: a set's items in sorted order (a set of strings is listed in
    another order under each hash seed), and its type's name where the repr is only a memory address.

    >>> _stable_repr({"cm", "m", "km"}), _stable_repr({"units": frozenset({2, 1})})
    (b"set['cm', 'km', 'm']", b"{'units': frozenset[1, 2]}")
    """
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}".encode()
    if type(value).__repr__ is object.__repr__:
        return f"{type(value).__module__}.{type(value).__qualname__} object".encode()
    if depth < _NESTING and isinstance(value, (set, frozenset)):
        listed = b", ".join(sorted(_stable_repr(item, depth + 1) for item in value))
        return f"{type(value).__name__}[".encode() + listed + b"]"
    if depth < _NESTING and isinstance(value, dict) and type(value) is dict:
        pairs = (_stable_repr(key, depth + 1) + b": " + _stable_repr(item, depth + 1) for key, item in value.items())
        return b"{" + b", ".join(pairs) + b"}"
    if depth < _NESTING and isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        listed = b", ".join(_stable_repr(item, depth + 1) for item in value)
        return b"[" + listed + b"]" if isinstance(value, list) else b"(" + listed + b")"
    try:
        return text_bytes(repr(value))
    except Exception:  # noqa: BLE001 - a repr that fails (or recurses without end): its type stands for it
        return f"{type(value).__module__}.{type(value).__qualname__} unrepresentable".encode()


def _file_digest(path: str) -> bytes:
    """sha256 of a module's source file, read in chunks (``b""`` if it cannot be read)."""
    digest = hashlib.sha256()
    try:
        with open_regular(path) as source:  # the read door: a module path that is a FIFO never blocks
            while chunk := source.read(1 << 20):
                digest.update(chunk)
    except (OSError, UnreadableFile):
        return b""
    return digest.digest()
