"""save_opencompass_configs.py: templates -> config files + manifest, refusals, overrides, no secrets."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from mmengine.config import Config

from gpassk_opencompass.grid.spec import SERVERS, config_file_name
from test_data_newest import LAYOUTS, read_back, write_standin

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = sorted((REPO / "opencompass_config_templates").glob("*.py"))
SECRET = "sk-test-this-must-never-be-written"


def _load_script():
    spec = importlib.util.spec_from_file_location("save_opencompass_configs", REPO / "save_opencompass_configs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = _load_script()


def generate(tmp_path, *args, out="out"):
    return script.main(["--output_dir", str(tmp_path / out), *args])


def contents(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def read_manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text(encoding="utf-8"))


def test_templates_directory_has_the_five_templates():
    assert [path.name for path in TEMPLATES] == ["close.py", "nono1.py", "o1.py", "quickstart.py", "self_served.py"]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_every_template_expands_into_loadable_files_matching_the_manifest(tmp_path, monkeypatch, template):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert generate(tmp_path, "-tc", str(template)) == 0
    out = tmp_path / "out"
    document = read_manifest(out)
    assert document["generator"] == "gpassk-opencompass 0.1.0" and document["template"] == str(template)
    assert set(contents(out)) == {run["file"] for run in document["runs"]} | {"manifest.json"}
    # close.py has no greedy runs: its reasoning models cannot be sent temperature 0 (see test_grid)
    assert any(run["greedy"] for run in document["runs"]) is (template.name != "close.py")
    assert any(not run["greedy"] for run in document["runs"])
    for run in document["runs"]:
        text = (out / run["file"]).read_text(encoding="utf-8")
        assert SECRET not in text
        config = Config.fromfile(str(out / run["file"]))
        assert len(config.models) == 1 and len(config.datasets) == 1
        model, dataset = config.models[0], config.datasets[0]
        assert run["file"] == config_file_name(model["abbr"], dataset["abbr"])
        assert (model["abbr"], dataset["abbr"]) == (run["model_abbr"], run["dataset_abbr"])
        assert model["path"] == run["model_path"] and model["max_out_len"] == run["max_out_len"]
        assert dataset["infer_cfg"]["inferencer"]["max_out_len"] == run["max_out_len"]
        assert (list(dataset["k"]), dataset["n"]) == (run["k"], run["n"])
        evaluator = dataset["eval_cfg"]["evaluator"]
        assert evaluator["benchmark"] == run["benchmark"]
        assert (
            evaluator["question_column"] in dataset["reader_cfg"]["input_columns"]
            or evaluator["question_column"] == "question"
        )
        _check_sampling(model, run)
    assert SECRET not in (out / "manifest.json").read_text(encoding="utf-8")


def _check_sampling(model: dict, run: dict) -> None:
    """The model dict samples exactly as the manifest says."""
    if "gen_config" in model:  # TurboMind
        gen = model["gen_config"]
        assert gen["do_sample"] is not run["greedy"]
        assert gen.get("temperature") == (None if run["greedy"] else run["temperature"])
        assert (gen.get("top_p"), gen.get("top_k"), gen.get("random_seed")) == (run["top_p"], run["top_k"], run["seed"])
        assert gen.get("repetition_penalty") == run["repetition_penalty"]
        assert model["run_cfg"]["num_gpus"] == model["engine_config"]["tp"] >= 1
    else:  # OpenAI-compatible
        assert model["key"] == "ENV" and model["temperature"] == run["temperature"]
        assert model.get("openai_extra_kwargs", {}).get("top_p") == run["top_p"]
        extra = model.get("extra_body", {})
        penalty_name = SERVERS[run["server"]].repetition_penalty if run["server"] else None
        assert extra == {
            name: value
            for name, value in (("top_k", run["top_k"]), (penalty_name, run["repetition_penalty"]))
            if value is not None
        }
        assert run["seed"] is None and "seed" not in json.dumps(model.to_dict(), default=str)
        assert model["max_seq_len"] > model["max_out_len"]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    "template, model_class, dataset_bases",
    [
        ("nono1.py", "TurboMindDistinctSeeds", ()),
        ("self_served.py", "OfflineOpenAISDK", ()),
        ("close.py", "OpenAISDK", ()),
    ],
)
def test_types_in_generated_files_import(tmp_path, template, model_class, dataset_bases):
    from opencompass.datasets.base import BaseDataset
    from opencompass.models.base import BaseModel
    from opencompass.openicl.icl_evaluator import BaseEvaluator

    assert generate(tmp_path, "-tc", str(REPO / "opencompass_config_templates" / template)) == 0
    out = tmp_path / "out"
    for run in read_manifest(out)["runs"][:6]:  # one of each benchmark
        config = Config.fromfile(str(out / run["file"]))
        model_type, dataset = config.models[0]["type"], config.datasets[0]
        assert model_type.__name__ == model_class and issubclass(model_type, BaseModel)
        assert issubclass(dataset["type"], BaseDataset)
        assert issubclass(dataset["eval_cfg"]["evaluator"]["type"], BaseEvaluator)
        assert dataset["eval_cfg"]["evaluator"]["type"].__name__ == "GPassKEvaluator"


def test_rerun_refuses_and_changes_nothing(tmp_path, capsys):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    assert generate(tmp_path, "-tc", template) == 0
    before = contents(tmp_path / "out")
    capsys.readouterr()
    assert generate(tmp_path, "-tc", template, "--set", "n=16") == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--force" in error and "nothing was written" in error
    # n=16 renames the 6 sampled files; the 6 greedy ones and the manifest clash
    assert error.startswith("save_opencompass_configs.py: error: 7 of the 13 files already exist")
    assert contents(tmp_path / "out") == before
    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--force") == 0
    assert {run["n"] for run in read_manifest(tmp_path / "out")["runs"] if not run["greedy"]} == {16}


def test_force_removes_the_configs_of_the_manifest_it_replaces(tmp_path, capsys):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    out = tmp_path / "out"
    assert generate(tmp_path, "-tc", template) == 0
    old = {run["file"] for run in read_manifest(out)["runs"]}
    (out / "notes.py").write_text("# mine\n")  # not listed by the manifest: never touched
    capsys.readouterr()
    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--force") == 0
    new = {run["file"] for run in read_manifest(out)["runs"]}
    assert len(old - new) == 6 and len(new) == 12  # n=16 renames the 6 sampled runs
    assert {path.name for path in out.glob("*.py")} == new | {"notes.py"}
    assert (out / "notes.py").read_text() == "# mine\n"
    assert "removed 6 config(s) of the previous manifest.json that are not in this grid" in capsys.readouterr().err


def test_force_keeps_what_the_generator_did_not_write_and_says_why(tmp_path, capsys):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    out = tmp_path / "out"
    assert generate(tmp_path, "-tc", template) == 0
    document = read_manifest(out)
    edited, *_ = sorted(run["file"] for run in document["runs"] if not run["greedy"])
    (out / edited).write_text("# my own config now\n")
    outside = tmp_path / "outside.py"
    outside.write_text("# generated elsewhere\n")
    document["runs"].append(dict(document["runs"][0], file="../outside.py"))
    (out / "manifest.json").write_text(json.dumps(document))
    capsys.readouterr()
    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--force") == 0
    err = capsys.readouterr().err
    assert (out / edited).read_text() == "# my own config now\n" and outside.read_text() == "# generated elsewhere\n"
    assert "removed 5 config(s) of the previous manifest.json" in err
    assert "2 file(s) listed by the previous manifest.json stay in" in err and "remove them by hand" in err
    assert len(list(out.glob("*.py"))) == 13  # the 12 of the new grid and the edited one


def test_an_existing_manifest_alone_blocks_the_write(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "manifest.json").write_text("{}")
    assert generate(tmp_path, "-tc", str(REPO / "opencompass_config_templates" / "self_served.py")) == 2
    assert contents(tmp_path / "out") == {"manifest.json": b"{}"}


def test_set_overrides_template_variables(tmp_path):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    assert (
        generate(
            tmp_path,
            "-tc",
            template,
            "--set",
            "temperatures=[0.7,1.0]",
            "n=16",
            "model_url=http://gpu7:8000/v1",
            "benchmarks=[AIME2025]",
        )
        == 0
    )
    runs = read_manifest(tmp_path / "out")["runs"]
    assert [(run["temperature"], run["n"], run["benchmark"]) for run in runs] == [
        (0.0, 1, "AIME2025"),
        (0.7, 16, "AIME2025"),
        (1.0, 16, "AIME2025"),
    ]
    config = Config.fromfile(str(tmp_path / "out" / runs[1]["file"]))
    assert config.models[0]["openai_api_base"] == "http://gpu7:8000/v1"


def test_set_takes_python_literals(tmp_path):
    template = str(REPO / "opencompass_config_templates" / "nono1.py")
    assert (
        generate(
            tmp_path,
            "-tc",
            template,
            "--set",
            "models=[{'path': 'org/My.Model', 'tp': 2}]",
            "benchmarks=[LiveMathBench-Hard-202412, AIME2025]",
            "greedy=False",
        )
        == 0
    )
    runs = read_manifest(tmp_path / "out")["runs"]
    assert [(run["display_name"], run["benchmark"]) for run in runs] == [
        ("My.Model", "LiveMathBench-Hard-202412"),
        ("My.Model", "AIME2025"),
    ]


def test_set_reaches_inside_a_variable(tmp_path):
    template = str(REPO / "opencompass_config_templates" / "nono1.py")
    assert generate(tmp_path, "-tc", template, "--set", "models.0.tp=2", "benchmarks=[AIME2025]", "greedy=False") == 0
    run = read_manifest(tmp_path / "out")["runs"][0]
    assert Config.fromfile(str(tmp_path / "out" / run["file"])).models[0]["engine_config"]["tp"] == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--set", "temprature=0.5"],
            "--set temprature: 'temprature' is not a template variable; did you mean 'temperatures'?",
        ),
        (["--set", "n=8"], "n = 8 is less than max(k) = 16"),
        (["--set", "benchmarks=[MATH500]"], "unknown benchmark 'MATH500'; did you mean 'MATH500-L5'?"),
        (["--set", "models=[]"], "models is empty"),
        (["--set", "n"], "--set expects KEY=VALUE, got 'n'"),
        (
            ["--set", "models=[dict(path='a/b')]"],
            "--set models: cannot read \"[dict(path='a/b')]\"; write a Python literal",
        ),
        (["-tc", "no/such/template.py"], "template 'no/such/template.py' does not exist"),
        (["--set", "models.99.tp=2"], "--set models.99.tp: models has 9 entries (0..8); got index 99"),
        (["--set", "models.x.tp=2"], "--set models.x.tp: models is a list; 'x' is not an index"),
        (["--set", "models.0.tpp=2"], "--set models.0.tpp: models.0 has no key 'tpp'; did you mean 'tp'?"),
        (["--set", "top_k.3=2"], "--set top_k.3: top_k is 50, not a list or dict; write --set top_k=VALUE"),
        (
            ["--set", "temperatures=[]"],
            "temperatures is empty; list at least one temperature (for a greedy-only "
            "grid set greedy = True and temperatures = None)",
        ),
        (["--set", "temperatures=None", "greedy=False"], "temperatures = None means a greedy-only grid"),
        (["--set", "k=[]"], "k is empty"),
        (["--set", "k=[4,4,16]"], "k lists 4 twice: [4, 4, 16]"),
        (["--set", "temperatures=[0.7,1.0,0.7]"], "temperatures lists 0.7 twice"),
        (["--set", "benchmarks=[AIME2025,MATH500-L5,AIME2025]"], "benchmarks lists 'AIME2025' twice"),
        (["--set", "models=['a/M', 'b/M']"], "models[0] and models[1] are both named 'M'; give one of them a distinct"),
        (["--set", "n=100001"], "n = 100001: input should be less than or equal to 100000"),
        (
            ["--set", f"temperatures={[round(0.01 * i, 2) for i in range(1, 200)]}"],
            "the grid has 10800 runs (9 models x 200 settings x 6 benchmarks), above the limit of 10000 config files",
        ),
        (["--set", "server=vllm"], "server = 'vllm' is for the API backends (openai-api, openai-local)"),
        (
            ["-tc", str(REPO / "opencompass_config_templates" / "self_served.py"), "--set", "server=llama-cpp"],
            "server = 'llama-cpp': input should be 'vllm', 'sglang', 'lmdeploy', 'llama.cpp', 'ollama' or 'openai'",
        ),
        (
            ["-tc", str(REPO / "opencompass_config_templates" / "self_served.py"), "--set", "server=ollama"],
            "server 'ollama' (Ollama's OpenAI-compatible endpoint) has no top_k parameter, so top_k = 50 would not be "
            "applied; set top_k = None",
        ),
        (
            ["-tc", str(REPO / "opencompass_config_templates" / "self_served.py"), "--set", "server=None"],
            "top_k = 50 is not a standard OpenAI parameter and no server is set",
        ),
        (
            ["-tc", str(REPO / "opencompass_config_templates" / "close.py"), "--set", "top_k=40"],
            "models[0] (gpt-4o-2024-11-20): server 'openai' (the OpenAI API) has no top_k parameter",
        ),
        (
            ["-tc", str(REPO / "opencompass_config_templates" / "close.py"), "--set", "greedy=True"],
            "models[1] (o1-mini-2024-09-12): OpenCompass sends no temperature to models named like 'o1'",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    if "-tc" not in args:
        args = ["-tc", str(REPO / "opencompass_config_templates" / "nono1.py"), *args]
    assert generate(tmp_path, *args) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "backend = 'turbomind'\nmodels = ['a/b']\nbenchmarks = ['AIME2025']\ntemperatures = [1.0]\nk = [4]\n"
            "max_out_len = 100\n",
            "template.py: n is missing; add it",
        ),
        ("backend = 'turbomind'\nmodels = [\n", "template.py line 2: '[' was never closed"),
        (
            "backend = 'turbomind'\nmodels = [undefined_name]\n",
            "template.py: cannot read the template: NameError: name 'undefined_name' is not defined",
        ),
    ],
)
def test_bad_template_files(tmp_path, capsys, text, message):
    path = tmp_path / "template.py"
    path.write_text(text)
    assert generate(tmp_path, "-tc", str(path)) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_dry_run_prints_and_writes_nothing(tmp_path, capsys):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    assert generate(tmp_path, "-tc", template, "--dry-run") == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 14 and printed[-1].startswith("dry run: 12 configs + manifest.json")
    assert printed[-2] == f"write {tmp_path / 'out' / 'manifest.json'}"
    assert not (tmp_path / "out").exists()


def test_force_dry_run_lists_what_force_removes_and_keeps(tmp_path, capsys):
    """`--force --dry-run` says every config the forced write would remove, and those it would leave and why."""
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    out = tmp_path / "out"
    assert generate(tmp_path, "-tc", template) == 0
    old = {run["file"] for run in read_manifest(out)["runs"]}
    edited, *_ = sorted(run["file"] for run in read_manifest(out)["runs"] if not run["greedy"])
    (out / edited).write_text("# my own config now\n")
    before = contents(out)
    capsys.readouterr()

    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--dry-run") == 0
    printed = capsys.readouterr().out.splitlines()
    assert not [line for line in printed if line.startswith(("remove ", "keep "))]  # without --force: refused
    assert printed[-1].endswith(
        "nothing written; 7 exist (needs --force, which also removes 5 config(s) of the previous manifest.json "
        "not in this grid)"
    )

    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--force", "--dry-run") == 0
    printed = capsys.readouterr().out.splitlines()
    assert contents(out) == before  # a dry run changes nothing
    new = {line.split()[1] for line in printed if line.startswith(("write ", "overwrite "))}
    removed = {line.split(" ", 1)[1] for line in printed if line.startswith("remove ")}
    assert removed == {str(out / name) for name in old - {edited}} - new and len(removed) == 5
    kept = [line for line in printed if line.startswith("keep ")]
    assert kept == [f"keep {out / edited}  (not written by this generator (its first line is not the generator's))"]
    assert printed[-1] == (
        f"dry run: 12 configs + manifest.json in {out}, nothing written; --force overwrites 7 and removes 5 "
        "config(s) of the previous manifest.json not in this grid"
    )

    assert generate(tmp_path, "-tc", template, "--set", "n=16", "--force") == 0  # and it does what it said
    assert {str(path) for path in out.iterdir()} == new | {str(out / edited)}


def test_bare_run_writes_the_laptop_grid_to_opencompass_configs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert script.main([]) == 0
    document = read_manifest(tmp_path / "opencompass_configs")
    assert document["template"].endswith("opencompass_config_templates/quickstart.py")
    assert capsys.readouterr().out == "wrote 2 configs + manifest.json to opencompass_configs\n"
    greedy, sampled = sorted(document["runs"], key=lambda run: run["n"])
    assert (greedy["greedy"], greedy["n"], sampled["greedy"], sampled["n"], sampled["k"]) == (True, 1, False, 8, [4, 8])
    assert {run["benchmark"] for run in document["runs"]} == {"AIME2025"}
    for run in document["runs"]:  # a local llama.cpp server, no GPU, the rule judge
        config = Config.fromfile(str(tmp_path / "opencompass_configs" / run["file"]))
        assert config.models[0]["openai_api_base"] == "http://127.0.0.1:8080/v1" and run["server"] == "llama.cpp"
        assert config.models[0]["run_cfg"]["num_gpus"] == 0
        assert config.datasets[0]["eval_cfg"]["evaluator"].get("url") in (None, [], "")


def test_llama_cpp_gets_its_own_name_for_the_repetition_penalty(tmp_path):
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    assert generate(tmp_path, "-tc", template, "--set", "server=llama.cpp", "benchmarks=[AIME2025]") == 0
    runs = read_manifest(tmp_path / "out")["runs"]
    assert {run["server"] for run in runs} == {"llama.cpp"}
    greedy, sampled = (Config.fromfile(str(tmp_path / "out" / run["file"])).models[0] for run in runs)
    assert sampled["extra_body"] == {"top_k": 50, "repeat_penalty": 1.0}
    assert sampled["openai_extra_kwargs"] == {"top_p": 0.8} and sampled["temperature"] == 1.0
    assert greedy["extra_body"] == {"repeat_penalty": 1.0} and greedy["temperature"] == 0.0
    assert "openai_extra_kwargs" not in greedy


MARKER = "sk-marker-0123456789-never-in-a-file"


@pytest.mark.parametrize(
    "where, line",
    [
        ("an mmengine {{$VAR}} in the template", "eval_model_name = '{{$OPENAI_API_KEY:none}}'\n"),
        ("the key pasted into a URL", f"model_url = 'http://127.0.0.1:8000/v1?api_key={MARKER}'\n"),
        ("URL credentials", "model_url = 'http://user:hunter2pass@127.0.0.1:8000/v1'\n"),
    ],
)
def test_a_plan_holding_a_secret_is_refused_and_nothing_written(tmp_path, capsys, monkeypatch, where, line):
    monkeypatch.setenv("OPENAI_API_KEY", MARKER)
    text = (REPO / "opencompass_config_templates" / "self_served.py").read_text(encoding="utf-8")
    path = tmp_path / "template.py"
    path.write_text(text + line, encoding="utf-8")
    assert generate(tmp_path, "-tc", str(path)) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "would contain a secret" in error and "nothing was written" in error
    assert MARKER not in error and "hunter2pass" not in error
    assert not (tmp_path / "out").exists()


def test_a_secret_given_with_set_is_refused_and_not_echoed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", MARKER)
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    assert generate(tmp_path, "-tc", template, "--set", f"eval_model_name={MARKER}") == 2
    error = capsys.readouterr().err
    assert "would contain a secret" in error and MARKER not in error
    assert not (tmp_path / "out").exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_pilot_and_a_data_path_reach_the_config_and_load_in_opencompass(tmp_path, capsys):
    from opencompass.utils.build import build_dataset_from_cfg

    from tiny_data import write_aime2025

    data = write_aime2025(tmp_path / "elsewhere", [(f"what is {i} + 1?", str(i + 1)) for i in range(5)])
    assert generate(tmp_path, "--set", "test_range=[1:3]", f"data_paths={{'AIME2025': '{data}'}}") == 0
    runs = read_manifest(tmp_path / "out")["runs"]
    assert {run["test_range"] for run in runs} == {"[1:3]"}
    sampled = next(run for run in runs if not run["greedy"])
    assert sampled["dataset_abbr"].endswith("_q1-3")
    (dataset,) = Config.fromfile(str(tmp_path / "out" / sampled["file"])).datasets
    assert dataset["path"] == str(data) and dataset["test_range"] == "[1:3]" and dataset["abbr"].endswith("_q1-3")
    built = build_dataset_from_cfg(dataset).test  # OpenCompass repeats the 2 chosen questions n times
    assert len(built) == 2 * sampled["n"]
    assert sorted(set(built["question"])) == ["what is 1 + 1?", "what is 2 + 1?"]

    assert generate(tmp_path, "--set", "max_questions=3", out="pilot") == 0
    (dataset,) = Config.fromfile(str(next((tmp_path / "pilot").glob("*_t1-0*.py")))).datasets
    assert dataset["test_range"] == "[:3]"


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_pilot_of_each_newest_benchmark_builds_through_opencompass(tmp_path, compass_cache, name):
    """Every loader takes the ``test_range`` a pilot's config passes it (the competition loader did not)."""
    from opencompass.utils.build import build_dataset_from_cfg

    path = write_standin(compass_cache, name)
    assert generate(tmp_path, "--set", f"benchmarks=[{name}]", "greedy=False", "test_range=[1:3]") == 0
    (run,) = read_manifest(tmp_path / "out")["runs"]
    (dataset,) = Config.fromfile(str(tmp_path / "out" / run["file"])).datasets
    built = build_dataset_from_cfg(dataset).test  # the 2 chosen questions, each repeated n times
    assert len(built) == 2 * run["n"]
    assert sorted(set(built["question"])) == sorted(record["problem"] for record in read_back(path)[1:3])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize("name", ["AIME2025", "MATH500-L5", "LiveMathBench-202412", *LAYOUTS])
def test_every_loader_keeps_only_the_question_ids_a_round_two_config_names(tmp_path, compass_cache, name):
    """Round 2 of a curtailed run names its questions (``question_ids=``); every loader keeps those, in the data's
    order, each repeated n times, and refuses an id its data do not hold."""
    from opencompass.utils.build import build_dataset_from_cfg

    from gpassk_opencompass.errors import InputError
    from tiny_data import write_grid_data

    write_grid_data(compass_cache)
    if name in LAYOUTS:
        write_standin(compass_cache, name)
    assert generate(tmp_path, "--set", f"benchmarks=[{name}]", "greedy=False", "n=3", "k=[1]") == 0
    (run,) = read_manifest(tmp_path / "out")["runs"]
    (dataset,) = Config.fromfile(str(tmp_path / "out" / run["file"])).datasets
    every = build_dataset_from_cfg(dataset).test
    ids = list(dict.fromkeys(every["question_id"]))
    chosen = [ids[-1], ids[0]] if len(ids) > 1 else ids
    built = build_dataset_from_cfg(dict(dataset, question_ids=chosen)).test
    assert built["question_id"] == [question for question in ids if question in chosen] * 3
    with pytest.raises(InputError, match="question_ids names 'nope', which the data do not hold"):
        build_dataset_from_cfg(dict(dataset, question_ids=[*chosen, "nope"]))


def test_a_data_path_names_its_benchmark_without_regard_to_case_and_separators(tmp_path):
    assert generate(tmp_path, "--set", "benchmarks=[AIME2025]", "data_paths={'aime-2025': '/data/a.jsonl'}") == 0
    runs = read_manifest(tmp_path / "out")["runs"]
    assert runs and {run["benchmark"] for run in runs} == {"AIME2025"}
    for run in runs:
        (dataset,) = Config.fromfile(str(tmp_path / "out" / run["file"])).datasets
        assert dataset["path"] == "/data/a.jsonl"


@pytest.mark.parametrize(
    "assignments, message",
    [
        (["test_range=[:2]", "max_questions=2"], "both choose the questions; set one of them"),
        (["test_range=[3:1]"], "selects no question"),
        (["test_range='[::2]'"], "test_range must be '[start:stop]'"),
        (["max_questions=0"], "max_questions = 0: input should be greater than or equal to 1"),
        (["data_paths={'AIME2052': '/data/a.jsonl'}"], "did you mean 'AIME2025'?"),
        (["data_paths={'AIME2025': 'data/a.jsonl'}"], "must be an absolute path"),
        (["data_paths={'AIME2025': '/data/a.jsonl', 'aime2025': '/data/b.jsonl'}"], "data_paths names AIME2025 twice"),
    ],
)
def test_pilot_and_data_path_mistakes_are_one_line(tmp_path, capsys, assignments, message):
    assert generate(tmp_path, "--set", *assignments) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "out").exists()
