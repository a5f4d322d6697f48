"""Names found in a saved config, resolved against an allow-list: the one door between a results folder and code.

OpenCompass's registry imports *any* module for a ``type='...'`` string it does not hold (and
``<scope>.registry`` for a ``_scope_``), so a shared results folder's config could run code.
:func:`resolve_config_types`, called by every consumer of a saved config before OpenCompass sees it, replaces
every ``type`` by the object it names, looked up only in OpenCompass's registries of the kind its place calls for
(:data:`SLOTS`), the classes of that kind in :data:`HOMES`, and ``TEXT_POSTPROCESSORS`` /
``DICT_POSTPROCESSORS`` for postprocessors; anything else is refused in one line naming the file, key path, value
and rule. Nothing is imported for a name. May import OpenCompass (through :mod:`opencompass.registry`).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from opencompass import registry as opencompass_registry

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges.replies import short


@dataclass(frozen=True)
class Kind:
    """What may stand at one kind of place in a config.

    Attributes:
        name: the kind, as a message says it ("a dataset").
        registries: OpenCompass's registries for it (names in :mod:`opencompass.registry`).
        callables: functions are accepted too (postprocessors); otherwise only classes.
    """

    name: str
    registries: tuple[str, ...]
    callables: bool = False


DATASET = Kind("a dataset", ("LOAD_DATASET",))
MODEL = Kind("a model", ("MODELS",))
EVALUATOR = Kind("an evaluator", ("ICL_EVALUATORS",))
INFERENCER = Kind("an inferencer", ("ICL_INFERENCERS",))
RETRIEVER = Kind("a retriever", ("ICL_RETRIEVERS",))
PROMPT_TEMPLATE = Kind("a prompt template", ("ICL_PROMPT_TEMPLATES",))
PARTITIONER = Kind("a partitioner", ("PARTITIONERS",))
RUNNER = Kind("a runner", ("RUNNERS",))
TASK = Kind("a task", ("TASKS",))
SUMMARIZER = Kind("a summarizer", ())
TEXT_POSTPROCESSOR = Kind("a text postprocessor registered in OpenCompass", ("TEXT_POSTPROCESSORS",), callables=True)
DICT_POSTPROCESSOR = Kind("a dict postprocessor registered in OpenCompass", ("DICT_POSTPROCESSORS",), callables=True)

#: The kind a ``type`` must be, by the key of the entry it is in (``datasets[0].type``: a dataset).
#: A key ending in ``postprocessor`` wants a text postprocessor; any other key, any kind above.
SLOTS: Mapping[str, Kind] = {
    "models": MODEL,
    "judge_models": MODEL,
    "judge_cfg": MODEL,
    "datasets": DATASET,
    "dataset_cfg": DATASET,
    "evaluator": EVALUATOR,
    "llm_evaluator": EVALUATOR,
    "rule_evaluator": EVALUATOR,
    "inferencer": INFERENCER,
    "retriever": RETRIEVER,
    "prompt_template": PROMPT_TEMPLATE,
    "ice_template": PROMPT_TEMPLATE,
    "partitioner": PARTITIONER,
    "runner": RUNNER,
    "task": TASK,
    "summarizer": SUMMARIZER,
    "dict_postprocessor": DICT_POSTPROCESSOR,
}

#: Packages whose own classes of a kind are accepted though not registered:
#: ``(kind, module to import, base class)``; a class must be defined inside the
#: module's top-level package and subclass the base (``None``: any class).
HOMES: tuple[tuple[Kind, str, str | None], ...] = (
    (DATASET, "opencompass.datasets", "opencompass.datasets.base.BaseDataset"),
    (DATASET, "gpassk_opencompass.plugin.datasets", "opencompass.datasets.base.BaseDataset"),
    (DATASET, "gpassk_opencompass.plugin.datasets.competition", "opencompass.datasets.base.BaseDataset"),
    (MODEL, "opencompass.models", "opencompass.models.base.BaseModel"),
    (MODEL, "gpassk_opencompass.plugin.models", "opencompass.models.base.BaseModel"),
    (EVALUATOR, "opencompass.openicl.icl_evaluator", "opencompass.openicl.icl_evaluator.BaseEvaluator"),
    (EVALUATOR, "opencompass.evaluator", "opencompass.openicl.icl_evaluator.BaseEvaluator"),
    (EVALUATOR, "gpassk_opencompass.plugin.evaluator", "opencompass.openicl.icl_evaluator.BaseEvaluator"),
    (SUMMARIZER, "opencompass.summarizers", None),
)

_RULE = (
    "names in a saved config resolve only to OpenCompass's registered classes and gpassk's own, "
    "postprocessors only to OpenCompass's registered ones, so nothing from a results folder is imported or run"
)


class UnsafeConfigType(InputError):
    """A saved config names something outside the allow-list (see :func:`resolve_config_types`)."""


@dataclass(frozen=True)
class _Allowed:
    """What one kind accepts: registered names, dotted paths, and the objects themselves."""

    names: Mapping[str, object]
    paths: Mapping[str, object]
    objects: frozenset[int]

    def lookup(self, name: str) -> object | None:
        return self.names.get(name, self.paths.get(name))


def resolve_config_types(config: Mapping, source: Path | str) -> dict:
    """``config`` with every ``type`` replaced by the registered object it names; refused otherwise.

    Every mapping at any depth is visited; its ``type`` must be a name
    OpenCompass registered for the kind its key calls for (:data:`SLOTS`),
    a dotted path importing such an object, a class of that kind defined in
    one of :data:`HOMES`, or such an object itself (a config built in-process,
    resolved again).  A ``_scope_`` key is refused (mmengine imports
    ``<scope>.registry`` for it).  Nothing is imported for a name.

    Args:
        config: a saved config as read by :func:`~gpassk_opencompass.plugin.runs.load_saved_config`,
            or a task config built from one.
        source: the file it came from, for messages.

    Returns:
        A copy whose ``type`` values are classes and functions, never names.

    Raises:
        UnsafeConfigType: one line naming ``source``, the key path
            (``datasets[0].eval_cfg.pred_postprocessor.type``), the value and the rule.

    >>> resolve_config_types({"datasets": [{"type": "types.SimpleNamespace"}]}, "run/configs/c.py")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.plugin.config_types.UnsafeConfigType: saved config run/configs/c.py: datasets[0].type = 'types.SimpleNamespace' is not a dataset: names in a saved config resolve only to OpenCompass's registered classes and gpassk's own, postprocessors only to OpenCompass's registered ones, so nothing from a results folder is imported or run; remove it (or name a registered one)
    >>> resolve_config_types({"models": [{"type": "OpenAISDK", "abbr": "m"}]}, "c.py")["models"][0]["type"].__name__
    'OpenAISDK'
    """
    resolved = _resolve(config, "", None, str(source))
    assert isinstance(resolved, dict)  # a mapping resolves to a dict
    return resolved


def _resolve(value: object, path: str, slot: str | None, source: str) -> object:
    """``value`` with its ``type`` keys resolved; ``slot`` is the nearest key above it (list indices skipped)."""
    if isinstance(value, Mapping):
        resolved = {}
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key == "_scope_":
                raise _refusal(source, where, item, "is a _scope_, for which mmengine imports <scope>.registry")
            if key == "type":
                resolved[key] = _resolve_type(item, where, slot, source)
            else:
                resolved[key] = _resolve(item, where, str(key), source)
        return resolved
    if isinstance(value, (list, tuple)):
        items = [_resolve(item, f"{path}[{index}]", slot, source) for index, item in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    return value


def _slot_kind(slot: str | None) -> Kind | None:
    """The kind a ``type`` under key ``slot`` must be (``None``: any kind)."""
    if slot is None:
        return None
    if slot in SLOTS:
        return SLOTS[slot]
    return TEXT_POSTPROCESSOR if slot.endswith("postprocessor") else None


def _resolve_type(value: object, where: str, slot: str | None, source: str) -> object:
    kind = _slot_kind(slot)
    allowed = _allowed()
    candidates = [allowed[kind]] if kind is not None else list(allowed.values())
    if isinstance(value, str):
        found = {id(obj): obj for obj in (entry.lookup(value) for entry in candidates) if obj is not None}
        if len(found) == 1:
            return found.popitem()[1]
    elif any(id(value) in entry.objects for entry in candidates):
        return value
    what = kind.name if kind is not None else "a registered OpenCompass or gpassk class or postprocessor"
    raise _refusal(source, where, value, f"is not {what}")


def _refusal(source: str, where: str, value: object, problem: str) -> UnsafeConfigType:
    shown = short(repr(value), 120) if isinstance(value, str) else f"a {type(value).__name__}"
    return UnsafeConfigType(
        f"saved config {source}: {where} = {shown} {problem}: {_RULE}; remove it (or name a registered one)"
    )


@cache
def _allowed() -> dict[Kind, _Allowed]:
    """Every kind's allow-list, built once from OpenCompass's registries and :data:`HOMES` (imports only those)."""
    homes = [(kind, importlib.import_module(module), base) for kind, module, base in HOMES]  # registers gpassk's
    members: dict[Kind, dict[str, object]] = {}
    objects: dict[Kind, list[object]] = {}
    for kind in {*SLOTS.values(), TEXT_POSTPROCESSOR}:
        names: dict[str, object] = {}
        for registry_name in kind.registries:
            registry = getattr(opencompass_registry, registry_name)
            registry.import_from_location()
            names.update(registry.module_dict)
        members[kind] = names
        objects[kind] = list(names.values())
    for kind, module, base_name in homes:
        base = _dotted(base_name) if base_name is not None else object
        package = module.__name__.split(".")[0]
        objects[kind] += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, base) and obj.__module__.split(".")[0] == package
        ]
    return {
        kind: _Allowed(
            names={name: obj for name, obj in members[kind].items() if _fits(kind, obj)},
            paths={path: obj for obj in objects[kind] if _fits(kind, obj) for path in _import_paths(obj)},
            objects=frozenset(id(obj) for obj in objects[kind] if _fits(kind, obj)),
        )
        for kind in members
    }


def _fits(kind: Kind, obj: object) -> bool:
    return inspect.isclass(obj) or (kind.callables and callable(obj))


def _dotted(name: str) -> type:
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def _import_paths(obj: object) -> list[str]:
    """The dotted paths that import ``obj``: its module's, and each loaded parent package's that re-exports it.

    >>> _import_paths(InputError)
    ['gpassk_opencompass.errors.InputError']
    """
    module, name = getattr(obj, "__module__", None), getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return []
    qualname = getattr(obj, "__qualname__", name)
    parts = module.split(".")
    packages = (".".join(parts[:end]) for end in range(1, len(parts)))
    return [f"{module}.{qualname}"] + [
        f"{package}.{name}"
        for package in packages
        if package in sys.modules and getattr(sys.modules[package], name, None) is obj
    ]
