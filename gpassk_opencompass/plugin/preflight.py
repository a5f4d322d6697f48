"""Can this machine run a config?  Checked before OpenCompass starts, one line per problem.

OpenCompass finds a missing GPU or package only inside a task (a traceback in a log, exit 0). This module
reads the config **as data** (its ``models`` parsed with :mod:`ast`, nothing executed): an in-process backend
needs its package (lmdeploy, vllm, transformers), a model with ``num_gpus`` > 0 or a GPU-only backend needs a
CUDA GPU under the local runner (``--slurm``/``--dlc``: packages only), an API model needs neither.
:func:`launch_settings` reads a launch's arguments with OpenCompass's own parser. See docs/grid.md, "Preflight".

>>> models = models_from_source('''
... from gpassk_opencompass.plugin.models import TurboMindDistinctSeeds
... models = [dict(type=TurboMindDistinctSeeds, abbr='m', run_cfg=dict(num_gpus=1))]
... ''')
>>> models
(ModelInfo(abbr='m', type='gpassk_opencompass.plugin.models.TurboMindDistinctSeeds', num_gpus=1),)
>>> requirement(models[0])
Requirement(label='lmdeploy (TurboMind)', packages=('lmdeploy',), gpu=True)
>>> problem("c.py", requirement(models[0]), Environment(gpu=False, packages=frozenset()))
'config c.py needs lmdeploy (TurboMind) and a CUDA GPU: lmdeploy is not installed, no CUDA GPU is visible; use the self_served template with an OpenAI-compatible server on this machine, or run on GPU nodes (--slurm)'
>>> problem("c.py", requirement(models[0]), Environment(gpu=True, packages=frozenset({"lmdeploy"}))) is None
True
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpassk_opencompass.checks import question_range
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import read_bytes_bounded
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.data_check import ERROR, check_benchmark
from gpassk_opencompass.plugin.runs import MAX_CONFIG_BYTES

#: Model class name fragments -> (label, packages, GPU needed whatever num_gpus says).
BACKEND_NEEDS = (
    ("TurboMind", "lmdeploy (TurboMind)", ("lmdeploy",), True),
    ("Lmdeploy", "lmdeploy", ("lmdeploy",), True),
    ("LMDeploy", "lmdeploy", ("lmdeploy",), True),
    ("VLLM", "vLLM", ("vllm",), True),
    ("HuggingFace", "Hugging Face transformers", ("transformers",), False),
)
ADVICE = "use the self_served template with an OpenAI-compatible server on this machine, or run on GPU nodes (--slurm)"
CLUSTER_ADVICE = "install it in this Python environment: the cluster's tasks run with the same interpreter"
#: The settings of an ``opencompass`` launch that ``gpassk grid run`` chooses itself (OpenCompass's names).
LAUNCH_SETTINGS = ("slurm", "dlc", "partition", "quotatype", "qos", "aliyun_cfg", "work_dir", "reuse")


class _Unknown:
    """A value the reader could not work out (a call, an expression...)."""

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class ModelInfo:
    """What preflight needs of one entry of a config's ``models``.

    Attributes:
        abbr: the model's abbr (``None`` when unset or not readable).
        type: the model class as ``module.Name`` when imported with
            ``from module import Name``, else the bare name (``None`` when not readable).
        num_gpus: ``run_cfg.num_gpus`` (0 when unset, as OpenCompass defaults it).
    """

    abbr: str | None
    type: str | None
    num_gpus: int


@dataclass(frozen=True)
class Requirement:
    """What a model needs of the machine running its tasks.

    Attributes:
        label: the backend, for messages (``''`` for API models).
        packages: importable packages it needs.
        gpu: whether it needs a CUDA GPU.
    """

    label: str
    packages: tuple[str, ...]
    gpu: bool


@dataclass(frozen=True)
class Environment:
    """What this machine offers: a CUDA GPU, and which of the asked-for packages import."""

    gpu: bool
    packages: frozenset[str]


# ------------------------------------------------------------------------------- reading configs


def _value(node: ast.AST, names: Mapping[str, Any]) -> Any:
    """A config expression as data: literals, ``dict(...)``, lists, ``a + b`` of lists, known names."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, UNKNOWN)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item, names) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict = {}
        for key, value in zip(node.keys, node.values):
            if key is None:  # {**base}
                base = _value(value, names)
                if isinstance(base, dict):
                    result.update(base)
            else:
                result[_value(key, names)] = _value(value, names)
        return result
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        result = {}
        for argument in node.args:
            base = _value(argument, names)
            if isinstance(base, dict):
                result.update(base)
        for keyword in node.keywords:
            if keyword.arg is None:
                base = _value(keyword.value, names)
                if isinstance(base, dict):
                    result.update(base)
            else:
                result[keyword.arg] = _value(keyword.value, names)
        return result
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, names), _value(node.right, names)
        if isinstance(left, list) and isinstance(right, list):
            return left + right
    return UNKNOWN


def _model_info(entry: Any) -> ModelInfo | None:
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    run_cfg = entry.get("run_cfg")
    num_gpus = run_cfg.get("num_gpus", 0) if isinstance(run_cfg, dict) else 0
    abbr = entry.get("abbr")
    return ModelInfo(
        abbr=abbr if isinstance(abbr, str) else None,
        type=kind if isinstance(kind, str) else None,
        num_gpus=num_gpus if isinstance(num_gpus, int) and not isinstance(num_gpus, bool) else 0,
    )


def _top_level(source: str) -> dict[str, Any]:
    """A config's top-level names as data: ``from module import Name`` -> ``'module.Name'``, assignments."""
    names: dict[str, Any] = {}
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                names[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            names[statement.targets[0].id] = _value(statement.value, names)
    return names


def models_from_source(source: str) -> tuple[ModelInfo, ...] | None:
    """The ``models`` of a config's source text, read as data; ``None`` when there is no readable list.

    Names imported with ``from module import Name`` stand for ``'module.Name'``;
    top-level assignments before ``models`` may be referenced (``dict(base, abbr=...)``).

    >>> models_from_source("models = [dict(type='OpenAISDK', abbr='api')]")
    (ModelInfo(abbr='api', type='OpenAISDK', num_gpus=0),)
    >>> models_from_source("from x import models") is None
    True
    """
    models = _top_level(source).get("models")
    if not isinstance(models, list):
        return None
    infos = [_model_info(entry) for entry in models]
    return tuple(info for info in infos if info is not None)


#: Keys of a config's dataset entry that are OpenCompass's own; the others are its loader's arguments.
OPENCOMPASS_DATASET_KEYS = frozenset({"type", "abbr", "k", "n", "reader_cfg", "infer_cfg", "eval_cfg"})


def _plain(value: Any) -> bool:
    """Whether a value read from a config is plain data (nothing :data:`UNKNOWN` in it)."""
    if isinstance(value, (list, tuple)):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(_plain(item) for item in value.values())
    return value is not UNKNOWN


def datasets_from_source(source: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """``(benchmark, loader arguments)`` of each dataset a config scores as a catalog benchmark, read as data.

    The benchmark is ``eval_cfg.evaluator.benchmark``; the loader arguments are the entry's other
    keys (``path``, ``files``, ``test_range``...; not :data:`OPENCOMPASS_DATASET_KEYS`) whose values
    are plain data.

    >>> datasets_from_source("datasets = [dict(abbr='a', path='/d/a.jsonl', test_range='[:5]', "
    ...                      "eval_cfg=dict(evaluator=dict(benchmark='AIME2025'))), dict(abbr='b')]")
    (('AIME2025', {'path': '/d/a.jsonl', 'test_range': '[:5]'}),)
    """
    datasets = _top_level(source).get("datasets")
    found = []
    for entry in datasets if isinstance(datasets, list) else ():
        value: Any = entry
        for key in ("eval_cfg", "evaluator", "benchmark"):
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str):
            arguments = {
                key: item
                for key, item in entry.items()
                if isinstance(key, str) and key not in OPENCOMPASS_DATASET_KEYS and _plain(item)
            }
            found.append((value, arguments))
    return tuple(found)


def _read(config: str | os.PathLike, reader: Callable[[str], Any]) -> Any:
    data = read_bytes_bounded(config, MAX_CONFIG_BYTES, "a config")
    try:
        return reader(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"config {config}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except SyntaxError as error:
        raise InputError(f"config {config} line {error.lineno}: {error.msg}") from None


def models_of(config: str | os.PathLike) -> tuple[ModelInfo, ...] | None:
    """:func:`models_from_source` of a config file (``None`` if it has no readable ``models``)."""
    return _read(config, models_from_source)


# ---------------------------------------------------------------------------------- requirements


def requirement(model: ModelInfo) -> Requirement:
    """What a model needs: its backend's package and a GPU (by class name, or ``num_gpus > 0``).

    >>> requirement(ModelInfo("api", "opencompass.models.OpenAISDK", 0))
    Requirement(label='', packages=(), gpu=False)
    >>> requirement(ModelInfo("hf", "opencompass.models.HuggingFacewithChatTemplate", 1))
    Requirement(label='Hugging Face transformers', packages=('transformers',), gpu=True)
    """
    name = (model.type or "").rsplit(".", 1)[-1]
    for fragment, label, packages, gpu in BACKEND_NEEDS:
        if fragment in name:
            return Requirement(label, packages, gpu or model.num_gpus > 0)
    return Requirement("", (), model.num_gpus > 0)


def combined(requirements: Iterable[Requirement]) -> Requirement:
    """One requirement covering several models (labels joined, packages merged)."""
    requirements = list(requirements)
    labels = list(dict.fromkeys(item.label for item in requirements if item.label))
    packages = tuple(dict.fromkeys(package for item in requirements for package in item.packages))
    return Requirement(" + ".join(labels), packages, any(item.gpu for item in requirements))


def cuda_gpu_visible() -> bool:
    """Whether a CUDA GPU is visible: ``torch.cuda.is_available()`` when torch imports, else ``nvidia-smi -L``."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if importlib.util.find_spec("torch") is not None:
        try:
            import torch

            return bool(torch.cuda.is_available())
        except Exception as error:  # noqa: BLE001 - a broken torch install: fall back to the driver
            logger.debug("torch does not import ({}); asking nvidia-smi", error)
    executable = shutil.which("nvidia-smi")
    if executable is None:
        return False
    try:
        listing = subprocess.run([executable, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return listing.returncode == 0 and "GPU" in listing.stdout


def detect_environment(
    packages: Iterable[str], gpu: bool, gpu_probe: Callable[[], bool] = cuda_gpu_visible
) -> Environment:
    """The packages of ``packages`` that are installed, and a GPU if ``gpu`` asks to look for one."""
    installed = frozenset(package for package in packages if importlib.util.find_spec(package) is not None)
    return Environment(gpu=gpu_probe() if gpu else False, packages=installed)


def problem(config: str, need: Requirement, environment: Environment, *, check_gpu: bool = True) -> str | None:
    """The one-line reason ``config`` cannot run here, or ``None``.

    Args:
        config: the config's name, for the message.
        need: what its models need.
        environment: what the machine has.
        check_gpu: whether the tasks run on this machine (local runner).
    """
    missing = [f"{package} is not installed" for package in need.packages if package not in environment.packages]
    if check_gpu and need.gpu and not environment.gpu:
        missing.append("no CUDA GPU is visible")
    if not missing:
        return None
    wanted = " and ".join(part for part in (need.label, "a CUDA GPU" if need.gpu else "") if part)
    advice = ADVICE if check_gpu else CLUSTER_ADVICE
    return f"config {config} needs {wanted}: {', '.join(missing)}; {advice}"


@dataclass(frozen=True)
class ConfigCheck:
    """The preflight of one config: what it needs (``None``: models unreadable) and the problem, if any."""

    config: str
    need: Requirement | None
    problem: str | None


def check_configs(
    configs: Iterable[str | os.PathLike], *, local: bool = True, gpu_probe: Callable[[], bool] | None = None
) -> list[ConfigCheck]:
    """Preflight every config; the GPU is probed once, and only if some config needs one locally.

    Args:
        configs: config files (read as data).
        local: the tasks run on this machine (OpenCompass's local runner);
            ``False`` for ``--slurm``/``--dlc``: packages are still checked.
        gpu_probe: how to tell whether a CUDA GPU is visible (default :func:`cuda_gpu_visible`).
    """
    paths = [Path(config) for config in configs]
    needs = {}
    for path in paths:
        models = models_of(path)
        if models is None:
            logger.debug("{}: no models list readable as data; not checked", path)
        needs[path] = None if models is None else combined(requirement(model) for model in models)
    known = [need for need in needs.values() if need is not None]
    environment = detect_environment(
        {package for need in known for package in need.packages},
        gpu=local and any(need.gpu for need in known),
        gpu_probe=gpu_probe or cuda_gpu_visible,
    )
    return [
        ConfigCheck(path.name, need, None if need is None else problem(path.name, need, environment, check_gpu=local))
        for path, need in needs.items()
    ]


def summarize_problems(checks: Iterable[ConfigCheck]) -> list[str]:
    """One line per distinct reason: the first config's message, with how many others share it.

    >>> need = Requirement("vLLM", ("vllm",), True)
    >>> checks = [ConfigCheck(name, need, problem(name, need, Environment(True, frozenset())))
    ...           for name in ("a.py", "b.py", "c.py")]
    >>> summarize_problems(checks)
    ['config a.py needs vLLM and a CUDA GPU: vllm is not installed; use the self_served template with an OpenAI-compatible server on this machine, or run on GPU nodes (--slurm) (and 2 more configs for the same reason)']
    """
    groups: dict[str, list[str]] = {}
    for check in checks:
        if check.problem is not None:
            reason = check.problem.replace(f"config {check.config} ", "", 1)
            groups.setdefault(reason, []).append(check.problem)
    lines = []
    for messages in groups.values():
        more = len(messages) - 1
        lines.append(
            messages[0] + (f" (and {more} more config{'s' if more > 1 else ''} for the same reason)" if more else "")
        )
    return lines


def data_problems(configs: Iterable[str | os.PathLike]) -> list[str]:
    """One line per benchmark whose data a config needs and the loaders cannot read here (``gpassk data check``).

    A run without its data fails in every task, each retried by OpenCompass, so this is checked
    before anything is launched: each benchmark the configs name (``datasets[].benchmark``), with
    the loader arguments each config gives it (a template's ``data_paths`` is the config's
    ``path``), once per distinct set, by :func:`gpassk_opencompass.plugin.data_check.check_benchmark`;
    a ``test_range`` that selects none of the questions found is a problem too.
    """
    users: dict[str, tuple[str, dict[str, Any], list[str]]] = {}
    for config in configs:
        for name, arguments in _read(config, datasets_from_source):
            key = repr((name, sorted(arguments.items())))
            users.setdefault(key, (name, arguments, []))[2].append(Path(config).name)
    lines = []
    for name, arguments, names in users.values():
        check = check_benchmark(name, arguments)
        test_range = arguments.get("test_range")
        if not check.usable:
            error = next(problem.message for problem in check.problems if problem.severity == ERROR)
        elif isinstance(test_range, str) and check.questions is not None:
            if range(check.questions)[question_range(test_range, "test_range")]:
                continue
            error = f"test_range {test_range!r} selects none of its {check.questions} questions ({check.where})"
        else:
            continue
        more = len(names) - 1
        lines.append(
            f"config {names[0]}{f' (and {more} more)' if more else ''} needs the {name} data: {error} "
            f"(`gpassk data check {name}` says more)"
        )
    return lines


def launch_settings(arguments: Sequence[str]) -> dict[str, Any]:
    """:data:`LAUNCH_SETTINGS` as OpenCompass's own parser reads them from ``opencompass ARGUMENTS``.

    Abbreviations (``--part=``), attached values (``-pgpu``) and every other rule of its parser
    apply as they will in the launch; nothing runs (the parser only reads the arguments).

    Raises:
        InputError: OpenCompass would refuse the arguments (its own message, one line).
    """
    from opencompass.cli.main import parse_args

    saved, refusal = sys.argv, io.StringIO()
    sys.argv = ["opencompass", *arguments]
    try:
        with contextlib.redirect_stderr(refusal), contextlib.redirect_stdout(io.StringIO()):
            parsed = parse_args()
    except SystemExit:
        lines = refusal.getvalue().strip().splitlines() or ["(no message)"]
        raise InputError(f"opencompass would refuse them: {lines[-1].removeprefix('opencompass: error: ')}") from None
    except AssertionError as error:  # its own checks: --slurm without -p, --dlc without its settings file
        raise InputError(f"opencompass would refuse them: {error}") from None
    finally:
        sys.argv = saved
    return {name: getattr(parsed, name) for name in LAUNCH_SETTINGS}
