"""``--set KEY=VALUE`` on a template: the command line's overrides of its variables.

:func:`parse_override` reads one ``KEY=VALUE``; :func:`apply_overrides` applies
them to a template's variables, a key being a variable or a dotted path into
one (``models.0.tp``), before :func:`~gpassk_opencompass.grid.spec.parse_template`
validates the result.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpassk_opencompass.checks import QUESTION_RANGE, did_you_mean
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid.spec import MODEL_KEYS, TEMPLATE_VARIABLES

_BARE_WORD = re.compile(r"[A-Za-z0-9_.+:/-]+")


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError):
        return text


def parse_override(assignment: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from the command line -> ``(key, value)``.

    The value is a Python literal when it parses as one (``16``, ``[0.7, 1.0]``,
    ``{'path': 'org/m'}``, ``None``, ``'text'``); a bracketed list of bare words
    is a list of strings; anything else is the string itself.

    >>> parse_override("temperatures=[0.7,1.0]")
    ('temperatures', [0.7, 1.0])
    >>> parse_override("benchmarks=[AIME2025, MATH500-L5]")
    ('benchmarks', ['AIME2025', 'MATH500-L5'])
    >>> parse_override("model_url=http://gpu7:8000/v1")
    ('model_url', 'http://gpu7:8000/v1')
    >>> parse_override("test_range=[:5]")
    ('test_range', '[:5]')
    """
    key, equals, text = assignment.partition("=")
    if not equals or not key.strip():
        raise InputError(f"--set expects KEY=VALUE, got {assignment!r}")
    text = text.strip()
    value = _literal(text)
    if value is not text or not text.startswith(("[", "{", "(")) or QUESTION_RANGE.fullmatch(text):
        return key.strip(), value
    words = [item.strip() for item in text[1:-1].split(",") if item.strip()]
    if text.startswith("[") and text.endswith("]") and all(_BARE_WORD.fullmatch(word) for word in words):
        return key.strip(), [_literal(word) for word in words]
    raise InputError(
        f"--set {key.strip()}: cannot read {text!r}; write a Python literal, "
        "e.g. \"models=[{'path': 'org/model', 'tp': 1}]\""
    )


def _entries(items: Sequence) -> str:
    """``'3 entries (0..2)'`` / ``'1 entry (0..0)'`` / ``'no entries'``."""
    if not items:
        return "no entries"
    return f"{len(items)} {'entry' if len(items) == 1 else 'entries'} (0..{len(items) - 1})"


def apply_overrides(variables: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A template's variables with ``--set`` overrides applied (the input is not changed).

    A key is a variable (replaced whole) or a dotted path into one
    (``models.0.tp``: list indices and dict keys, as mmengine's
    ``--cfg-options``); a path that leads nowhere is a one-line :class:`InputError`.

    >>> apply_overrides({"models": ["org/a", {"path": "org/b"}], "n": 48}, {"models.0.tp": 2, "n": 16})
    {'models': [{'path': 'org/a', 'tp': 2}, {'path': 'org/b'}], 'n': 16}
    >>> apply_overrides({"models": ["org/a", "org/b", "org/c"]}, {"models.99.tp": 2})
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --set models.99.tp: models has 3 entries (0..2); got index 99
    >>> apply_overrides({"models": [{"path": "org/a"}]}, {"models.0.tpp": 2})
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --set models.0.tpp: models.0 has no key 'tpp'; did you mean 'tp'? known: path, name, tp, batch_size, url, tokenizer_path, server
    """
    result = copy.deepcopy(dict(variables))
    for key, value in overrides.items():
        head, *path = key.split(".")
        if head not in TEMPLATE_VARIABLES:
            raise InputError(
                f"--set {key}: {head!r} is not a template variable; {did_you_mean(head, TEMPLATE_VARIABLES)}"
            )
        if not path:
            result[head] = value
            continue
        if head not in result:
            raise InputError(f"--set {key}: the template does not set {head}; set the whole variable: --set {head}=...")
        parent: Any = result  # the dict or list the next step indexes (a JSON-like tree)
        step: str | int = head
        where = head
        for next_step in path:
            node = parent[step]
            is_model = head == "models" and where.count(".") == 1  # node is models[i]
            if is_model and isinstance(node, str):
                node = parent[step] = {"path": node}  # a model given as its path
            if isinstance(node, list):
                if not next_step.isdigit():
                    raise InputError(
                        f"--set {key}: {where} is a list; {next_step!r} is not an index ({where} has {_entries(node)})"
                    )
                if int(next_step) >= len(node):
                    raise InputError(f"--set {key}: {where} has {_entries(node)}; got index {int(next_step)}")
                parent, step = node, int(next_step)
            elif isinstance(node, Mapping):
                known = MODEL_KEYS if is_model else tuple(node)
                if next_step not in known:
                    raise InputError(f"--set {key}: {where} has no key {next_step!r}; {did_you_mean(next_step, known)}")
                parent, step = node, next_step
            else:
                raise InputError(f"--set {key}: {where} is {node!r}, not a list or dict; write --set {where}=VALUE")
            where = f"{where}.{next_step}"
        parent[step] = value
    return result
