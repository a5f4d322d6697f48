"""Nothing from a results folder runs: every ``type`` in a saved config resolves against an allow-list.

The hostile runs are the session's real OpenCompass run (``tests/opencompass_e2e.py``) copied, with one entry
of its saved config changed the way a shared ``outputs/<timestamp>`` folder could change it, and re-judged by
``gpassk rejudge`` through the real OpenCompass.  OpenCompass's registry imports any module for a name it does
not hold, so each planted name would run code: a shell command in a prediction, a Python expression in one, or
a module on ``sys.path`` that records its import.  Each is refused in one line (exit 2) before any task is
built, and the code never runs.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from mmengine.config import Config
from mmengine.utils import get_object_from_string
from opencompass.datasets import LiveMathBenchDataset as OpenCompassLiveMathBench
from opencompass.models import VLLM, HuggingFaceCausalLM, OpenAISDK
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.utils.text_postprocessors import first_capital_postprocess

from generated_configs import generate_configs
from gpassk_opencompass.catalog import BENCHMARKS
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard import collect_runs
from gpassk_opencompass.plugin.config_types import UnsafeConfigType, resolve_config_types
from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
from gpassk_opencompass.plugin.evaluator import GPassKEvaluator
from gpassk_opencompass.plugin.models import OfflineOpenAISDK
from gpassk_opencompass.plugin.rejudge import _role_lookup
from gpassk_opencompass.plugin.runs import load_saved_config

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e

MODEL, DATASET = "strong_t0-7", "tiny_rule"

#: (name, entry the key path starts in, key path inside it, planted value, what the rejudged prediction says)
#: ``{module}`` is a module on sys.path that records its import; ``{marker}`` a file that must never appear.
ENTRY_POINTS = [
    ("evaluator postprocessor", DATASET, "eval_cfg.evaluator.pred_postprocessor", "subprocess.getoutput", "shell"),
    ("eval_cfg postprocessor", DATASET, "eval_cfg.pred_postprocessor", "os.system", "shell"),
    ("dataset postprocessor", DATASET, "eval_cfg.dataset_postprocessor", "{module}.postprocess", None),
    ("model postprocessor", MODEL, "pred_postprocessor", "builtins.eval", "python"),
    ("model postprocessor module", MODEL, "pred_postprocessor", "{module}.postprocess", None),
    ("dataset type", DATASET, "", "types.SimpleNamespace", None),
    ("dataset type module", DATASET, "", "{module}.Loader", None),
    ("evaluator type", DATASET, "eval_cfg.evaluator", "{module}.Evaluator", None),
    ("model type", MODEL, "", "{module}.Model", None),
    ("inferencer type", DATASET, "infer_cfg.inferencer", "{module}.Inferencer", None),
]


def planted_module(site: Path, name: str, imported: Path) -> None:
    """A package ``name`` under ``site`` whose import (or its ``registry``'s) writes ``imported``."""
    package = site / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(imported)!r}).write_text('imported')\n"
        "def postprocess(text, **options):\n    return text\n"
        "class Loader:\n    pass\n\nEvaluator = Model = Inferencer = Loader\n"
    )
    (package / "registry.py").write_text("")


def edit_entries(config: dict, abbr: str, change) -> int:
    """Apply ``change`` to every entry of the config with this abbr (models and datasets appear several times)."""
    count = 0
    stack: list[object] = [config]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("abbr") == abbr:
                change(node)
                count += 1
            stack += node.values()
        elif isinstance(node, (list, tuple)):
            stack += node
    return count


def set_type(entry: dict, path: str, value: str) -> None:
    """``entry[path...]["type"] = value``, creating the dicts on the way."""
    for key in filter(None, path.split(".")):
        entry = entry.setdefault(key, {})
    entry["type"] = value


@pytest.fixture
def hostile(tiny_opencompass_run, tmp_path, monkeypatch):
    """A copy of the real run and a module name on ``sys.path`` that records its import; returns a planter."""
    run = tiny_opencompass_run
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(run.data_root))
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    copy = tmp_path / "outputs" / run.run_dir.name
    shutil.copytree(run.run_dir / "configs", copy / "configs")
    shutil.copytree(run.run_dir / "predictions", copy / "predictions")
    module = f"gpassk_planted_{tmp_path.name.replace('-', '_')}"
    imported = tmp_path / "IMPORTED"
    planted_module(tmp_path / "site", module, imported)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.chdir(tmp_path)
    (config_path,) = (copy / "configs").glob("*.py")

    def plant(edit) -> Path:
        config = load_saved_config(config_path)
        edit(config, module)
        config_path.unlink()
        Config(config).dump(str(config_path))
        return config_path

    yield copy, plant, imported, module
    for name in [name for name in sys.modules if name == module or name.startswith(module + ".")]:
        del sys.modules[name]


def payload(kind: str | None, marker: Path) -> str | None:
    """A prediction that creates ``marker`` if run as a shell command or evaluated as Python."""
    if kind == "shell":
        return f"touch {marker}"
    if kind == "python":
        return f"__import__('pathlib').Path({str(marker)!r}).touch()"
    return None


@pytest.mark.parametrize(
    "entry, path, value, prediction", [case[1:] for case in ENTRY_POINTS], ids=[case[0] for case in ENTRY_POINTS]
)
def test_rejudge_refuses_a_planted_name_before_anything_runs(hostile, tmp_path, capsys, entry, path, value, prediction):
    run_dir, plant, imported, module = hostile
    marker = tmp_path / "PWNED"
    value = value.format(module=module)
    config_path = plant(lambda config, _: edit_entries(config, entry, lambda node: set_type(node, path, value)))
    part = run_dir / "predictions" / MODEL / f"{DATASET}_0.json"
    if (text := payload(prediction, marker)) is not None:
        records = json.loads(part.read_text())
        for record in records.values():
            record["prediction"] = text
        part.write_text(json.dumps(records))
    output = tmp_path / "rejudged"

    code = main(["rejudge", str(part), "--judge", "rule", "--output", str(output), "--quiet"])

    err = capsys.readouterr().err
    assert code == 2, err[-3000:]
    key_path = ".".join(filter(None, [path, "type"]))
    assert re.search(
        rf"saved config {re.escape(str(config_path))}: \S+\.{re.escape(key_path)} = {re.escape(repr(value))} is not ",
        err,
    ), err
    assert "nothing from a results folder is imported or run" in err and err.strip().count("\n") == 0, err
    assert not marker.exists() and not imported.exists() and module not in sys.modules
    assert not (output / "results").exists() and not (output / "predictions").exists()


API_META_TEMPLATE = {
    "round": [{"role": "HUMAN", "api_role": "HUMAN"}, {"role": "BOT", "api_role": "BOT", "generate": True}]
}


def test_registered_postprocessors_and_a_pred_role_still_rejudge_to_the_same_numbers(
    hostile, tiny_opencompass_run, tmp_path
):
    """A legitimate config OpenCompass accepts: a registered postprocessor at each place (by registered name and
    by two import paths), a ``pred_role`` with the model's ``meta_template``.  OpenCompass's eval task gets the
    resolved functions and classes and judges exactly as the original run did."""
    run_dir, plant, _, _ = hostile
    identity = "extract-non-reasoning-content"  # OpenCompass's: leaves a reply without <think> unchanged

    def legitimate(config: dict, _: str) -> None:
        def dataset(node: dict) -> None:
            set_type(node, "eval_cfg.evaluator.pred_postprocessor", identity)
            set_type(
                node,
                "eval_cfg.pred_postprocessor",
                "opencompass.utils.text_postprocessors.extract_non_reasoning_content",
            )
            node["eval_cfg"]["pred_role"] = "BOT"

        def model(node: dict) -> None:
            set_type(node, "pred_postprocessor", "opencompass.utils.extract_non_reasoning_content")
            node["meta_template"] = API_META_TEMPLATE

        assert edit_entries(config, DATASET, dataset) and edit_entries(config, MODEL, model)

    plant(legitimate)
    part = run_dir / "predictions" / MODEL / f"{DATASET}_0.json"
    output = tmp_path / "rejudged"
    assert main(["rejudge", str(part), "--judge", "rule", "--output", str(output), "--quiet"]) == 0
    again = json.loads((output / "results" / MODEL / f"{DATASET}.json").read_text())
    original = json.loads((tiny_opencompass_run.run_dir / "results" / MODEL / f"{DATASET}.json").read_text())
    metric_keys = [key for key in original if key not in ("gpassk", "details")]
    assert len(metric_keys) > 20
    for key in metric_keys:
        assert again[key] == pytest.approx(original[key], abs=1e-9), key


def test_a_scope_key_is_refused_before_mmengine_imports_its_registry(hostile, tmp_path, capsys):
    """``_scope_`` in an entry OpenCompass builds makes mmengine import ``<scope>.registry``."""
    run_dir, plant, imported, module = hostile
    config_path = plant(lambda config, module: edit_entries(config, DATASET, lambda node: node.update(_scope_=module)))
    part = run_dir / "predictions" / MODEL / f"{DATASET}_0.json"
    assert main(["rejudge", str(part), "--judge", "rule", "--output", str(tmp_path / "rejudged"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"saved config {config_path}: " in err and err.strip().count("\n") == 0, err
    assert f"._scope_ = {module!r} is a _scope_, for which mmengine imports <scope>.registry: " in err, err
    assert not imported.exists() and module not in sys.modules


def test_the_leaderboard_reads_a_planted_config_without_importing_a_name(hostile, tiny_opencompass_run):
    """The leaderboard reads saved configs for abbrs, paths and settings; no ``type`` is ever resolved."""
    run_dir, plant, imported, module = hostile
    shutil.copytree(tiny_opencompass_run.run_dir / "results", run_dir / "results")

    def everywhere(config: dict, module: str) -> None:
        edit_entries(config, DATASET, lambda node: node.update(type=f"{module}.Loader", _scope_=module))
        edit_entries(config, MODEL, lambda node: set_type(node, "pred_postprocessor", f"{module}.postprocess"))

    plant(everywhere)
    collection = collect_runs([run_dir.parent])
    assert (MODEL, DATASET) in {(run.model_abbr, run.dataset_abbr) for run in collection.runs}
    assert not imported.exists() and module not in sys.modules


# ---------------------------------------------------------------------------------------------------------------
# the allow-list itself (OpenCompass imported, no run)


EVERY_BENCHMARK = f"benchmarks={[benchmark.name for benchmark in BENCHMARKS]!r}"


@pytest.mark.parametrize(  # the three model backends, every benchmark's dataset class
    "template, assignments", [("quickstart.py", [EVERY_BENCHMARK]), ("close.py", []), ("o1.py", [])]
)
def test_every_type_of_our_generated_configs_resolves_to_what_opencompass_loads(tmp_path, template, assignments):
    """A generated config of each benchmark, loaded by mmengine as OpenCompass loads it and dumped as OpenCompass
    dumps it, reads back through the door with every type the very object mmengine imports for its name (an
    independent resolution)."""
    runs = generate_configs(template, tmp_path / "configs", *assignments)
    one_per_benchmark = {run["benchmark"]: run["file"] for run in runs}
    for config_name in sorted(one_per_benchmark.values()):
        loaded = Config.fromfile(str(tmp_path / "configs" / config_name), format_python_code=False)  # ours
        dumped = tmp_path / "dumped.py"
        loaded.dump(str(dumped))
        resolved = resolve_config_types(load_saved_config(dumped), dumped)
        pairs = list(_types(loaded.to_dict(), resolved))
        assert len(pairs) >= 5, config_name  # model, dataset, evaluator, inferencer, retriever, template
        for where, name, got in pairs:  # mmengine imports the name: fine for a file we generated
            assert got is get_object_from_string(name), (config_name, where)


def _types(expected: object, resolved: object, where: str = ""):
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key == "type":
                yield where, value, resolved[key]
            else:
                yield from _types(value, resolved[key], f"{where}.{key}")
    elif isinstance(expected, (list, tuple)):
        for index, value in enumerate(expected):
            yield from _types(value, resolved[index], f"{where}[{index}]")


@pytest.mark.parametrize(
    "config, message",
    [
        ({"datasets": [{"type": "os.system"}]}, "datasets[0].type = 'os.system' is not a dataset"),
        (
            {"datasets": [{"eval_cfg": {"pred_postprocessor": {"type": "LiveMathBenchDataset"}}}]},
            "datasets[0].eval_cfg.pred_postprocessor.type = 'LiveMathBenchDataset' is not a text postprocessor",
        ),
        (
            {"models": [{"pred_postprocessor": {"type": "opencompass.models.OpenAISDK"}}]},
            "models[0].pred_postprocessor.type = 'opencompass.models.OpenAISDK' is not a text postprocessor",
        ),
        ({"models": [{"type": "first-capital"}]}, "models[0].type = 'first-capital' is not a model"),
        ({"whatever": {"type": "subprocess.Popen"}}, "whatever.type = 'subprocess.Popen' is not a registered"),
        ({"models": [{"type": None}]}, "models[0].type = a NoneType is not a model"),
        ({"models": [{"type": print}]}, "models[0].type = a builtin_function_or_method is not a model"),
        ({"datasets": [{"type": "opencompass.datasets.os"}]}, "is not a dataset"),
    ],
)
def test_refusals_name_the_key_path_value_and_rule(config, message):
    with pytest.raises(UnsafeConfigType) as error:
        resolve_config_types(config, "c.py")
    assert str(error.value).startswith("saved config c.py: ") and message in str(error.value)
    assert "\n" not in str(error.value)


def test_names_resolve_by_registry_and_import_path_and_objects_pass_again():

    config = {
        "models": [
            {"type": "OpenAISDK"},
            {"type": "opencompass.models.VLLM", "pred_postprocessor": {"type": "first-capital"}},
        ],
        "datasets": [
            {
                "type": "gpassk_opencompass.plugin.datasets.livemathbench.LiveMathBenchDataset",
                "infer_cfg": {"inferencer": {"type": "opencompass.openicl.icl_inferencer.GenInferencer"}},
                "eval_cfg": {"evaluator": {"type": "GPassKEvaluator"}},
            },
            {"type": "opencompass.datasets.LiveMathBenchDataset"},
        ],
        "work_dir": "type",
    }
    resolved = resolve_config_types(config, "c.py")
    assert resolved["models"][0]["type"] is OpenAISDK and resolved["models"][1]["type"] is VLLM
    assert resolved["models"][1]["pred_postprocessor"]["type"] is first_capital_postprocess
    assert resolved["datasets"][0]["type"] is LiveMathBenchDataset
    assert resolved["datasets"][1]["type"] is OpenCompassLiveMathBench
    assert resolved["datasets"][0]["infer_cfg"]["inferencer"]["type"] is GenInferencer
    assert resolved["datasets"][0]["eval_cfg"]["evaluator"]["type"] is GPassKEvaluator
    assert resolve_config_types(resolved, "c.py") == resolved and config["models"][0]["type"] == "OpenAISDK"


def test_a_pred_role_is_handed_to_opencompass_as_its_eval_task_reads_it():
    """OpenICLEvalTask looks the model up by name for ``pred_role`` (``MODELS.get(type).is_api``)."""

    dataset = {"abbr": "d", "eval_cfg": {"pred_role": "BOT", "evaluator": {}}}
    for api_model in (OpenAISDK, OfflineOpenAISDK):  # an API model: OpenCompass ignores the role
        model, data = _role_lookup({"type": api_model, "meta_template": {}}, dataset)
        assert model["type"] is api_model and "pred_role" not in data["eval_cfg"]
    model, data = _role_lookup({"type": HuggingFaceCausalLM, "meta_template": {}}, dataset)
    assert model["type"] == "HuggingFaceCausalLM" and data == dataset
    with pytest.raises(InputError, match="its MODELS registry does not hold VLLM"):
        _role_lookup({"abbr": "m", "type": VLLM, "meta_template": {}}, dataset)
    assert _role_lookup({"type": VLLM}, dataset) == ({"type": VLLM}, dataset)  # no meta_template: no lookup


def test_gpassk_evaluator_calls_a_resolved_postprocessor_and_looks_a_name_up():

    by_function = GPassKEvaluator(judge="rule", pred_postprocessor={"type": first_capital_postprocess})
    by_name = GPassKEvaluator(judge="rule", pred_postprocessor={"type": "first-capital"})
    assert by_function.pred_postprocess(["the answer is B", "x"]) == by_name.pred_postprocess(["the answer is B", "x"])
    assert by_function.pred_postprocess(["the answer is B"]) == ["B"]
