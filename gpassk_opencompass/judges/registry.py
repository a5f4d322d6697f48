"""Judge kinds, resolved in one place: the built-in kinds and the user's own judges.

A judge is chosen by one name wherever it is chosen (``gpassk score --judge``,
``gpassk rejudge --judge``, ``GPassKEvaluator(judge=)``, a grid template,
:func:`gpassk_opencompass.score`):

* ``auto`` -- ``llm`` when judge URLs are given, ``rule`` otherwise (:func:`resolve_kind`);
* a built-in kind (:data:`KINDS`): ``rule`` (math-verify), ``llm`` (a judge
  model), ``cascade`` (rule first, the judge model for what it cannot confirm);
* ``source`` -- the per-sample verdicts of the tool that made the samples, as they are
  (:mod:`~gpassk_opencompass.judges.source`; recorded as ``source:<format>``);
* ``module:function`` -- the user's own ``check_correct_fn(prediction, reference) -> bool``,
  imported from ``module`` (on ``sys.path`` or in the current directory);
* the name of an entry point in the group :data:`ENTRY_POINT_GROUP` (a package's own judge).

Only a name the user gave (an argument, a config they wrote) is ever imported;
the judge recorded in a results file (``gpassk.judge``, e.g.
``python:checks:same_letter``) is read as a name, never imported.

>>> judge_kind("cascade"), judge_kind("rule").model
(JudgeKind(name='cascade', rule=True, model=True), False)
>>> judge_kind("lmm")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: unknown judge kind 'lmm'; did you mean 'llm'? known: rule, llm, cascade
>>> load_judge("no_such_module_here:check").__class__.__name__
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: --judge no_such_module_here:check: no module named 'no_such_module_here' on sys.path or in the current directory
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from gpassk_opencompass.checks import did_you_mean, unknown
from gpassk_opencompass.errors import InputError

if TYPE_CHECKING:
    from gpassk_opencompass.judges.protocol import Judge


@dataclass(frozen=True)
class JudgeKind:
    """A built-in judge kind and the stages it runs.

    Attributes:
        name: its name (recorded as ``gpassk.judge``).
        rule: it runs the rule judge (math-verify) on every distinct answer.
        model: it asks a judge model (needs URLs and the model's name; its
            verdicts go to the durable cache).
    """

    name: str
    rule: bool
    model: bool


#: The built-in kinds, by name: the one list of them.
BUILTIN = {
    kind.name: kind
    for kind in (
        JudgeKind("rule", rule=True, model=False),
        JudgeKind("llm", rule=False, model=True),
        JudgeKind("cascade", rule=True, model=True),
    )
}
#: The names of the built-in kinds.
KINDS = tuple(BUILTIN)
#: The name that picks ``llm`` or ``rule`` by whether judge URLs are given.
AUTO = "auto"
#: The name of the judge that takes the source tool's own verdicts (:mod:`~gpassk_opencompass.judges.source`).
SOURCE = "source"
#: The entry-point group where packages register their judges (a ``check_correct_fn`` or a ``Judge``).
ENTRY_POINT_GROUP = "gpassk.judges"
#: The prefix of a user judge's recorded name: ``python:module:function``.
USER_PREFIX = "python:"


def judge_kind(name: object) -> JudgeKind:
    """The built-in kind called ``name``; :class:`InputError` with "did you mean" otherwise."""
    kind = BUILTIN.get(name) if isinstance(name, str) else None
    if kind is None:
        raise unknown("judge kind", name, KINDS)
    return kind


def resolve_kind(kind: str, urls: Sequence[str]) -> str:
    """Resolve ``"auto"``: the LLM judge when URLs are given, the rule judge otherwise.

    Other kinds pass through unchanged (and are validated by :class:`~gpassk_opencompass.judges.JudgeSettings`).

    >>> resolve_kind("auto", ["http://127.0.0.1:8000/v1"]), resolve_kind("auto", []), resolve_kind("cascade", [])
    ('llm', 'rule', 'cascade')
    """
    if kind == AUTO:
        return "llm" if len(urls) else "rule"
    return kind


def is_builtin(name: object) -> bool:
    """Whether ``name`` is ``auto`` or a built-in kind (judged with :class:`~gpassk_opencompass.judges.JudgeSettings`).

    >>> is_builtin("auto"), is_builtin("cascade"), is_builtin("checks:same_letter")
    (True, True, False)
    """
    return name == AUTO or name in BUILTIN


def load_judge(spec: str) -> Judge:
    """The user judge named ``spec``: ``module:function`` or an entry point of :data:`ENTRY_POINT_GROUP`.

    The object found is either a :class:`~gpassk_opencompass.judges.protocol.Judge`
    or a ``check_correct_fn(prediction, reference) -> bool``, which is wrapped
    in a :class:`~gpassk_opencompass.judges.user.PythonJudge` recorded as
    ``python:module:function``.

    Raises:
        InputError: the name is not a built-in kind, not ``module:function``
            and no registered entry point; the module or function does not
            exist; the object is neither callable nor a judge.
    """
    from gpassk_opencompass.judges.protocol import Judge
    from gpassk_opencompass.judges.user import PythonJudge

    if not isinstance(spec, str) or not spec.strip():
        raise InputError(
            f"--judge {spec!r}: expected auto, {', '.join(KINDS)}, module:function or the name of "
            f"a {ENTRY_POINT_GROUP} entry point"
        )
    if spec == SOURCE:
        from gpassk_opencompass.judges.source import SourceJudge

        return SourceJudge()
    if ":" in spec:
        module_name, _, attribute = spec.partition(":")
        found = _import_attribute(spec, module_name, attribute)
        target = spec
    else:
        registered = {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}
        point = registered.get(spec)
        if point is None:
            raise InputError(
                f"{unknown('judge kind', spec, [AUTO, *KINDS, SOURCE, *registered])} (or module:function, "
                "a check_correct_fn(prediction, reference) -> bool)"
            )
        try:
            with redirect_stdout(sys.stderr):
                found = point.load()
        except Exception as error:  # noqa: BLE001 - the package's own import failed: say which, no traceback
            raise InputError(
                f"--judge {spec}: entry point {point.value} of {ENTRY_POINT_GROUP} does not load "
                f"({type(error).__name__}: {error})"
            ) from None
        target = point.value
    if isinstance(found, Judge):
        return found
    if not callable(found):
        raise InputError(
            f"--judge {spec}: {target} is a {type(found).__name__}, not a function; give a "
            "check_correct_fn(prediction, reference) -> bool"
        )
    return PythonJudge(found, name=USER_PREFIX + target, spec=spec)


def _import_attribute(spec: str, module_name: str, attribute: str) -> object:
    """``module_name.attribute``, the module imported from ``sys.path`` or the current directory.

    What the module prints as it is imported goes to stderr (a report on stdout stays the report).

    >>> _import_attribute(".checks:same", ".checks", "same")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --judge .checks:same: '.checks' is not a dotted name of Python identifiers; expected module:function, the module absolute (imported from sys.path or the current directory: no leading dot), e.g. my_checks:same_answer
    """
    for name in (module_name, attribute):
        if not all(part.isidentifier() for part in name.split(".")):
            raise InputError(
                f"--judge {spec}: {name!r} is not a dotted name of Python identifiers; expected module:function, "
                "the module absolute (imported from sys.path or the current directory: no leading dot), "
                "e.g. my_checks:same_answer"
            )
    here = os.getcwd()
    added = here not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        with redirect_stdout(sys.stderr):
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and module_name.startswith(error.name):
            raise InputError(
                f"--judge {spec}: no module named {error.name!r} on sys.path or in the current directory"
            ) from None
        raise
    finally:
        if added:
            sys.path.remove(here)
    found = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            names = [name for name in dir(found) if not name.startswith("_") and callable(getattr(found, name))]
            raise InputError(
                f"--judge {spec}: module {module_name!r} has no {attribute!r}; {did_you_mean(attribute, names)}"
            )
        found = getattr(found, part)
    return found


def as_judge(judge: object) -> Judge:
    """A :class:`~gpassk_opencompass.judges.protocol.Judge` of a judge, a
    :class:`~gpassk_opencompass.judges.JudgeSettings` (a built-in judge) or a ``check_correct_fn``.

    >>> as_judge(lambda prediction, reference: prediction == reference).name
    'python:gpassk_opencompass.judges.registry:<lambda>'
    >>> as_judge(3)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: judge must be a judge name, a Judge, a JudgeSettings or a check_correct_fn(prediction, reference) -> bool; got int 3
    """
    from gpassk_opencompass.judges.batch import BuiltinJudge
    from gpassk_opencompass.judges.protocol import Judge
    from gpassk_opencompass.judges.types import JudgeSettings
    from gpassk_opencompass.judges.user import PythonJudge

    if isinstance(judge, JudgeSettings):
        return BuiltinJudge(judge)
    if isinstance(judge, Judge):
        return judge
    if callable(judge) and not isinstance(judge, type):
        return PythonJudge(judge)
    raise InputError(
        "judge must be a judge name, a Judge, a JudgeSettings or a check_correct_fn(prediction, "
        f"reference) -> bool; got {type(judge).__name__} {judge!r:.80}"
    )
