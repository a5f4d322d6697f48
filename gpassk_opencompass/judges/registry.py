"""Judges resolved in one place: a name or an object -> a :class:`~gpassk_opencompass.judges.protocol.Judge`,
and the one verdict-cache policy.

One name wherever a judge is chosen (``--judge``, ``GPassKEvaluator(judge=)``, a grid template,
:func:`gpassk_opencompass.score`): ``auto``, a built-in kind (:data:`~.kinds.KINDS`), ``source`` (the tool's own
verdicts, :mod:`~gpassk_opencompass.judges.source`), ``module:function`` or an entry point of
:data:`~.kinds.ENTRY_POINT_GROUP`. Only a name the user gave is imported; a judge recorded in a results file is
read as a name, never imported.

>>> resolve_judge("cascade", judge_url="http://10.0.0.5:8000/v1", judge_model="J").name
'cascade'
>>> load_judge("no_such_module_here:check").__class__.__name__
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: --judge no_such_module_here:check: no module named 'no_such_module_here' on sys.path or in the current directory
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from contextlib import redirect_stdout
from importlib.metadata import entry_points
from pathlib import Path
from typing import cast

from gpassk_opencompass.checks import did_you_mean, unknown
from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.judges.batch import BuiltinJudge
from gpassk_opencompass.judges.cache import default_cache_file
from gpassk_opencompass.judges.kinds import (
    AUTO,
    ENTRY_POINT_GROUP,
    KINDS,
    PYTHON,
    SOURCE,
    USER_PREFIX,
    is_builtin,
    resolve_kind,
)
from gpassk_opencompass.judges.protocol import CheckCorrectFn, Judge
from gpassk_opencompass.judges.source import SourceJudge
from gpassk_opencompass.judges.types import JUDGE_NAMES, JudgeSettings, Verdict, judge_endpoint
from gpassk_opencompass.judges.user import MAX_REASON_CHARS, PythonJudge
from gpassk_opencompass.judges.workers import serve_with
from gpassk_opencompass.log import logger


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
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(
            f"--judge {spec!r}: expected auto, {', '.join(KINDS)}, module:function or the name of "
            f"a {ENTRY_POINT_GROUP} entry point"
        )
    if spec == SOURCE:
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


def judge_settings(kind: str = AUTO, *, cache_path: str | os.PathLike | None = None, **options) -> JudgeSettings:
    """:class:`JudgeSettings` from edge names (``judge_url``/``url``/``eval_urls``, ``judge_model``/...):
    ``"auto"`` resolved, every mistake an :class:`InputError`.

    >>> judge_settings("auto", judge_url=["http://10.0.0.5:8000/v1"], judge_model="J", check_endpoints=False).kind
    'llm'
    >>> judge_settings("llm")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: judge kind 'llm' needs at least one judge URL (http://host:port/v1)
    """
    endpoint, rest = _endpoint(options)
    return JudgeSettings(
        kind=resolve_kind(kind, endpoint["urls"]),
        **endpoint,
        cache_path=None if cache_path is None else Path(cache_path),
        **rest,
    )


def _endpoint(options: Mapping) -> tuple[dict, dict]:
    """The judge URL(s) and model under their internal names, and the other options."""
    names = {name for aliases in JUDGE_NAMES.values() for name in aliases}
    endpoint = judge_endpoint(**{name: value for name, value in options.items() if name in names})
    return endpoint, {name: value for name, value in options.items() if name not in names}


def resolve_judge(judge: str | Judge | JudgeSettings | CheckCorrectFn = AUTO, **options) -> Judge:
    """The judge a name or object stands for (:mod:`~gpassk_opencompass.judges.registry`).

    A built-in name (``auto``, ``rule``, ``llm``, ``cascade``) takes the
    :func:`judge_settings` options; a user judge (``module:function``, an
    entry point, a ``check_correct_fn``) asks no judge model, so judge URLs or a
    judge model given with it are refused; ``judge_timeout`` (seconds its
    function may take on one answer) applies to it alone (other options do not).

    >>> resolve_judge("cascade", judge_url="http://10.0.0.5:8000/v1", judge_model="J").name
    'cascade'
    >>> resolve_judge(lambda prediction, reference: True, judge_url="http://10.0.0.5:8000/v1").name
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: judge 'python:gpassk_opencompass.judges.registry:<lambda>' asks no judge model but a judge URL or model was given (http://10.0.0.5:8000/v1); give them with --judge llm or cascade
    """
    judge_timeout = options.pop("judge_timeout", None)
    builtin = isinstance(judge, str) and is_builtin(judge)
    if isinstance(judge, str):
        found = as_judge(judge_settings(judge, **options)) if builtin else load_judge(judge)
    else:
        found = as_judge(judge)
    if judge_timeout is not None:
        if not isinstance(found, PythonJudge):
            raise InputError(
                f"judge_timeout {judge_timeout!r} bounds a check_correct_fn's time per answer, but the judge is "
                f"{found.name!r}; the rule judge's bound is --rule-timeout (rule_timeout)"
            )
        found = found.with_timeout(judge_timeout)
    if builtin:
        return found
    endpoint, _ = _endpoint(options)
    given = [*endpoint["urls"], *([endpoint["model"]] if endpoint["model"] else [])]
    if given and not found.asks_model:
        raise InputError(
            f"judge {found.name!r} asks no judge model but a judge URL or model was given "
            f"({', '.join(given)}); give them with --judge llm or cascade"
        )
    if options.get("judge_prompt") is not None and not found.asks_model:
        raise InputError(
            f"judge {found.name!r} asks no judge model, so a judge prompt ({options['judge_prompt']!r}) does not "
            "apply to it; give --judge-prompt with --judge llm or cascade"
        )
    return found


def beside_input_cache(input_path: str | os.PathLike) -> Path:
    """``runs/gens.jsonl`` -> ``runs/gens.judge-cache.jsonl``: where a verdict cache beside an input is looked for
    (older versions kept it there by default). It is never read unless named (``--cache``): only warned of.

    >>> str(beside_input_cache("runs/gens.jsonl"))
    'runs/gens.judge-cache.jsonl'
    """
    path = Path(input_path)
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(stem + ".judge-cache.jsonl")


def with_verdict_cache(judge: Judge, cache: bool | str | os.PathLike, input_identity: object | None) -> Judge:
    """The one verdict-cache policy (``gpassk score``, :func:`score`, ``GPassKEvaluator`` and so ``gpassk rejudge``).

    A cache is trusted only when its user chose it. ``cache=True`` (the default): the judge's own cache if it has
    one (set by its user); else, for a judge that asks a model, :func:`~gpassk_opencompass.judges.cache.default_cache_file`
    in the user's cache folder, keyed by ``input_identity`` (what the input is: its files' ``(st_dev, st_ino)``)
    and the judge (with none, no cache and a warning); no cache for a judge that runs local code (rule, a user
    function: cheap to run again). ``False``: no cache. A path: that file, the user's choice (the rule judge
    keeps none, and says so). A cache beside the input is never read unless named.

    >>> judge = resolve_judge("llm", judge_url="http://10.0.0.5:8000/v1", judge_model="J")
    >>> cached = with_verdict_cache(judge, True, [[64768, 1001]]).cache_path
    >>> cached.parent.parent.name, cached.parent.name
    ('gpassk-opencompass', 'verdicts')
    >>> with_verdict_cache(judge, False, [[64768, 1001]]).cache_path, with_verdict_cache(resolve_judge("rule"),
    ...     True, [[64768, 1001]]).cache_path
    (None, None)
    """
    if cache is False:
        return judge.with_cache(None)
    if cache is not True:
        cached = judge.with_cache(cache)
        if cached.cache_path is None:
            logger.warning(
                "cache {}: the {} judge keeps no verdict cache (deterministic and cheap, it judges again on every "
                "run); nothing is written there",
                cache,
                judge.name,
            )
        return cached
    if judge.cache_path is not None or not judge.asks_model:
        return judge
    if input_identity is None:
        logger.warning(
            "no verdict cache: the {} judge's verdicts are lost if the run stops; give cache=PATH "
            "(or an output file, by which the cache is keyed)",
            judge.name,
        )
        return judge
    identity = judge.identity()
    path = default_cache_file(
        input_identity, {"judge": identity.get("judge"), "judge_model": identity.get("judge_model")}
    )
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the user's own: private
    except OSError as error:
        raise InputError(
            f"cannot make the verdict cache folder {path.parent} ({error.strerror}); choose another place with "
            "--cache PATH (cache=PATH), set XDG_CACHE_HOME, or give --no-cache"
        ) from None
    return judge.with_cache(path)


def serve(read_fd: int, write_fd: int, spec: str, name: str, path: list[str]) -> None:
    """A user judge's worker main loop (:class:`~gpassk_opencompass.judges.user.PythonJudge`): ``spec`` imported
    again here, with the parent's ``sys.path``.

    If it does not import here, each answer is unresolved with the reason (the worker is not restarted per answer).
    """
    sys.path[:] = path
    try:
        judge = load_judge(spec)
    except Exception as error:  # noqa: BLE001 - an import that worked in the parent failed here: say so per answer
        reason = f"{name}: its worker process could not import {spec}: {type(error).__name__}: {clause(error)}"
        serve_with(
            lambda prediction, reference: Verdict(None, None, reason[:MAX_REASON_CHARS], PYTHON), read_fd, write_fd
        )
        return
    serve_with(cast(PythonJudge, judge)._verdict, read_fd, write_fd)
