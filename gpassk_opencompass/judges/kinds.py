"""The judge names, in one place: the built-in kinds, the other names a judge goes by, and where a verdict came from.

It imports no judge, so every module (the judges themselves, the grid's
templates, the CLI) reads the names here without a circle;
:mod:`~gpassk_opencompass.judges.registry` resolves a name to a judge.

>>> judge_kind("cascade"), judge_kind(RULE).model
(JudgeKind(name='cascade', rule=True, model=True), False)
>>> judge_kind("lmm")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: unknown judge kind 'lmm'; did you mean 'llm'? known: rule, llm, cascade
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from gpassk_opencompass.checks import unknown

#: The rule judge (math-verify), and ``Verdict.source`` of its verdicts.
RULE: Final = "rule"
#: The LLM judge (a judge model), and ``Verdict.source`` of a judge model's verdicts.
LLM: Final = "llm"
#: The rule judge first, the judge model for what it cannot confirm.
CASCADE: Final = "cascade"
#: ``Verdict.source`` of a verdict read back from the durable verdict cache.
CACHE: Final = "cache"
#: ``Verdict.source`` of a user judge's verdict (its function's).
PYTHON: Final = "python"
#: The judge that takes the source tool's own verdicts (:mod:`~gpassk_opencompass.judges.source`),
#: the prefix of its recorded name, and ``Verdict.source`` of its verdicts.
SOURCE: Final = "source"
#: The name that picks ``llm`` or ``rule`` by whether judge URLs are given.
AUTO: Final = "auto"
#: The entry-point group where packages register their judges (a ``check_correct_fn`` or a ``Judge``).
ENTRY_POINT_GROUP: Final = "gpassk.judges"
#: The prefix of a user judge's recorded name: ``python:module:function``.
USER_PREFIX: Final = PYTHON + ":"

#: Where a verdict came from (``Verdict.source``); empty in files that did not record it.
VerdictSource = Literal["rule", "llm", "python", "cache", "source", ""]


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
        JudgeKind(RULE, rule=True, model=False),
        JudgeKind(LLM, rule=False, model=True),
        JudgeKind(CASCADE, rule=True, model=True),
    )
}
#: The names of the built-in kinds.
KINDS = tuple(BUILTIN)


def judge_kind(name: object) -> JudgeKind:
    """The built-in kind called ``name``; :class:`~gpassk_opencompass.errors.InputError` with "did you mean" otherwise."""
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
        return LLM if len(urls) else RULE
    return kind


def is_builtin(name: object) -> bool:
    """Whether ``name`` is ``auto`` or a built-in kind (judged with :class:`~gpassk_opencompass.judges.JudgeSettings`).

    >>> is_builtin("auto"), is_builtin("cascade"), is_builtin("checks:same_letter")
    (True, True, False)
    """
    return name == AUTO or name in BUILTIN
