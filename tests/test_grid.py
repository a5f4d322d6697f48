"""The pure grid: template validation, expansion, names, manifest."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.catalog import BENCHMARKS
from gpassk_opencompass.contracts import Contract
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid.overrides import apply_overrides, parse_override
from gpassk_opencompass.grid.spec import (
    GridTemplate,
    ModelEntry,
    config_file_name,
    dataset_abbr,
    expand,
    manifest,
    model_abbr,
    parse_template,
)

BASE = dict(
    backend="turbomind",
    models=[
        dict(path="Qwen/Qwen2.5-7B-Instruct", tp=1, batch_size=64),
        dict(path="deepseek-ai/deepseek-math-7b-rl", tp=2),
    ],
    benchmarks=["LiveMathBench-202412", "AIME2025"],
    temperatures=[0.3, 1.0],
    k=[4, 8, 16],
    n=48,
    top_p=0.8,
    top_k=50,
    repetition_penalty=1.0,
    seed=42,
    max_out_len=8192,
    greedy=True,
)


def template(**changes):
    variables = {**BASE, **changes}
    return parse_template({key: value for key, value in variables.items() if value is not ...}, "t.py")


# ------------------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "settings_, expected",
    [
        (
            dict(temperature=0.3, top_p=0.8, top_k=50, repetition_penalty=1.0, seed=42, max_out_len=8192),
            "deepseek-math-7b-rl_t0.3_p0.8_k50_rp1.0_rs42_l8192",
        ),  # the seed README's example
        (
            dict(temperature=1.0, top_p=None, top_k=None, repetition_penalty=None, seed=None, max_out_len=8192),
            "deepseek-math-7b-rl_t1.0_l8192",
        ),
        (
            dict(temperature=0.0, top_p=None, top_k=None, repetition_penalty=1.05, seed=None, max_out_len=32768),
            "deepseek-math-7b-rl_t0.0_rp1.05_l32768",
        ),
    ],
)
def test_model_abbr(settings_, expected):
    assert model_abbr("deepseek-math-7b-rl", **settings_) == expected


def test_file_name_replaces_dots_in_both_parts():
    model = "deepseek-math-7b-rl_t0.3_p0.8_k50_rp1.0_rs42_l8192"
    assert (
        config_file_name(model, dataset_abbr("LiveMathBench-202412", (4, 8, 16), 48))
        == "deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-202412_k4-8-16_n48.py"
    )
    assert config_file_name("m.v2_t1.0_l5", "X.Y_k1_n1") == "m-v2_t1-0_l5@X-Y_k1_n1.py"


# ---------------------------------------------------------------------------------- expansion


def test_expand_orders_and_counts_runs():
    runs = expand(template())
    assert len(runs) == 2 * 3 * 2  # models x (greedy + 2 temperatures) x benchmarks
    assert [(r.model.display_name, r.temperature, r.benchmark) for r in runs[:6]] == [
        ("Qwen2.5-7B-Instruct", 0.0, "LiveMathBench-202412"),
        ("Qwen2.5-7B-Instruct", 0.0, "AIME2025"),
        ("Qwen2.5-7B-Instruct", 0.3, "LiveMathBench-202412"),
        ("Qwen2.5-7B-Instruct", 0.3, "AIME2025"),
        ("Qwen2.5-7B-Instruct", 1.0, "LiveMathBench-202412"),
        ("Qwen2.5-7B-Instruct", 1.0, "AIME2025"),
    ]


def test_greedy_runs_are_distinct_from_sampled_runs():
    runs = expand(template())
    greedy = [r for r in runs if r.greedy]
    sampled = [r for r in runs if not r.greedy]
    assert len(greedy) == 4 and len(sampled) == 8
    for run in greedy:
        assert (run.temperature, run.k, run.n, run.top_p, run.top_k, run.seed) == (0.0, (1,), 1, None, None, None)
        assert run.repetition_penalty == 1.0
        assert run.dataset_abbr.endswith("_k1_n1") and "_t0.0_" in run.model_abbr
    for run in sampled:
        assert (run.k, run.n, run.top_p, run.top_k, run.seed) == ((4, 8, 16), 48, 0.8, 50, 42)
        assert run.dataset_abbr.endswith("_k4-8-16_n48")
    assert not {(r.model_abbr, r.dataset_abbr) for r in greedy} & {(r.model_abbr, r.dataset_abbr) for r in sampled}


def test_no_greedy_unless_asked():
    assert not any(run.greedy for run in expand(template(greedy=...)))
    assert len(expand(template(greedy=False))) == 8


def test_greedy_only_grid_is_said_with_temperatures_none():
    runs = expand(template(temperatures=None, greedy=True))
    assert len(runs) == 4 and all(run.greedy for run in runs)


def test_an_empty_temperature_list_is_not_a_greedy_only_grid():
    with pytest.raises(
        InputError,
        match=re.escape(
            "temperatures is empty; list at least one temperature (for a "
            "greedy-only grid set greedy = True and temperatures = None)"
        ),
    ):
        template(temperatures=[], greedy=True)


def test_two_models_with_one_name_are_refused_naming_both():
    with pytest.raises(
        InputError, match=re.escape("models[0] and models[1] are both named 'Model'; give one of them a distinct name=")
    ):
        template(models=[dict(path="org1/Model"), dict(path="org2/Model")])


def test_collision_through_dot_replacement():
    with pytest.raises(InputError, match="both be written to 'm-1_t"):
        expand(template(models=[dict(path="a/m.1"), dict(path="b/m-1")], greedy=False))


def test_display_names():
    runs = expand(template(models=["org/Model/", dict(path="/models/local dir", name="My Model/v2")], greedy=False))
    assert runs[0].model.display_name == "Model"
    assert runs[-1].model.display_name == "My-Model-v2"
    assert runs[-1].model.path == "/models/local dir"
    assert all("/" not in run.file and ".." not in run.file for run in runs)


def test_manifest_matches_runs():
    runs = expand(template())
    document = manifest(runs, "templates/t.py")
    assert document["generator"] == "gpassk-opencompass 0.1.0"
    assert document["template"] == "templates/t.py"
    assert len(document["runs"]) == len(runs)
    entry = document["runs"][2]
    assert entry == {
        "file": "Qwen2-5-7B-Instruct_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-202412_k4-8-16_n48.py",
        "model_abbr": "Qwen2.5-7B-Instruct_t0.3_p0.8_k50_rp1.0_rs42_l8192",
        "dataset_abbr": "LiveMathBench-202412_k4-8-16_n48",
        "model_path": "Qwen/Qwen2.5-7B-Instruct",
        "display_name": "Qwen2.5-7B-Instruct",
        "temperature": 0.3,
        "top_p": 0.8,
        "top_k": 50,
        "repetition_penalty": 1.0,
        "seed": 42,
        "max_out_len": 8192,
        "benchmark": "LiveMathBench-202412",
        "k": [4, 8, 16],
        "n": 48,
        "greedy": False,
        "server": None,
    }


# --------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(n=...), "t.py: n is missing; add it"),
        (dict(models=...), "t.py: models is missing; add it"),
        (dict(temperaturs=[1.0]), "t.py: unknown field 'temperaturs'; did you mean 'temperatures'?"),
        (dict(n=8), "t.py: n = 8 is less than max(k) = 16; every k needs at least k generations"),
        (dict(models=[]), "t.py: models is empty; list at least one dict(path=...)"),
        (dict(benchmarks=["AIME2052"]), "t.py: benchmarks[0]: unknown benchmark 'AIME2052'; did you mean 'AIME2026'?"),
        (dict(benchmarks=[]), "t.py: benchmarks is empty"),
        (dict(benchmarks=["AIME2025", "AIME2025"]), "benchmarks lists 'AIME2025' twice"),
        (dict(backend="vllm"), "backend = 'vllm': input should be 'turbomind', 'openai-api' or 'openai-local'"),
        (dict(temperatures=[0.0, 1.0]), "temperatures must be > 0, got 0.0 (greedy decoding: set greedy = True)"),
        (dict(temperatures=[1.0, 1.0]), "temperatures lists 1.0 twice: [1.0, 1.0]; list each value once"),
        (dict(temperatures=[0.7, 1, 1.0]), "temperatures lists 1.0 twice"),
        (dict(temperatures=[], greedy=False), "temperatures is empty; list at least one temperature"),
        (dict(temperatures=None, greedy=False), "temperatures = None means a greedy-only grid, but greedy is False"),
        (dict(k=[4, 4]), "k lists 4 twice"),
        (dict(k=[]), "k is empty; list at least one k"),
        (dict(n=100_001), "n = 100001: input should be less than or equal to 100000"),
        (
            dict(temperatures=[round(0.01 * i, 2) for i in range(1, 2502)]),
            "the grid has 10008 runs (2 models x 2502 settings x 2 benchmarks), above the limit of 10000 config files",
        ),
        (dict(eval_urls=["http://j/v1", "http://j/v1"]), "eval_urls lists 'http://j/v1' twice"),
        (dict(server="vllm"), "models[0] (Qwen/Qwen2.5-7B-Instruct): server = 'vllm' is for the API backends"),
        (dict(k=[0, 4]), "k[0] = 0: input should be greater than or equal to 1"),
        (dict(k="4"), "k[0] = '4': input should be a valid integer"),
        (dict(n=True), "n = True: input should be a valid integer"),
        (dict(n=48.0), "n = 48.0: input should be a valid integer"),
        (dict(greedy="yes"), "greedy = 'yes': input should be a valid boolean"),
        (dict(top_p=1.5), "top_p = 1.5: input should be less than or equal to 1"),
        (dict(top_p=0), "top_p = 0: input should be greater than 0"),
        (dict(top_k=0), "top_k = 0: input should be greater than or equal to 1"),
        (dict(seed=1.5), "seed = 1.5: input should be a valid integer"),
        (dict(max_seq_len=4096), "max_seq_len = 4096 leaves no room for the prompt"),
        (dict(judge="gpt"), "judge = 'gpt': input should be 'auto', 'rule', 'llm' or 'cascade'"),
        (dict(eval_urls=[""]), "eval_urls[0] = '': string should have at least 1 character"),
        (dict(models=[dict(path="a/b", gpus=2)]), "unknown field 'gpus'; known: path, name, tp"),
        (
            dict(models=[dict(path="a/b", batchsize=2)]),
            "unknown field 'batchsize'; did you mean 'batch_size'?",
        ),
        (dict(models=[dict(tp=2)]), "models[0].path is missing; add it"),
        (dict(models=[42]), "models[0] = 42: input should be a valid dictionary"),
        (dict(models=[dict(path="a/b", tp=0)]), "models[0].tp = 0: input should be greater than or equal to 1"),
        (dict(models=[dict(path="a/b", url="http://x/v1")]), "backend 'turbomind' runs the model in-process"),
        (dict(model_url="http://x/v1"), "model_url is set, but backend 'turbomind'"),
        (dict(models=[dict(path="a/b", name="../..")]), "model name '../..' has no usable characters"),
        (dict(backend="openai-api"), "seed = 42 is not supported with backend 'openai-api': one seed sent with all n"),
        (dict(backend="openai-local", seed=None), "models[0] (Qwen/Qwen2.5-7B-Instruct) has no url; set model_url"),
    ],
)
def test_bad_templates_fail_with_one_line(changes, message):
    with pytest.raises(InputError) as error:
        template(**changes)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_the_template_is_one_declared_contract():
    """The variables, which are required and each model's keys come from the one declaration."""
    assert issubclass(GridTemplate, Contract) and issubclass(ModelEntry, Contract)
    schema = GridTemplate.model_json_schema()
    assert set(schema["required"]) == {"backend", "models", "benchmarks", "temperatures", "k", "n", "max_out_len"}
    assert {"greedy", "top_p", "eval_urls", "judge", "server"} <= set(schema["properties"])
    parsed = template()
    with pytest.raises(Exception, match="frozen"):
        parsed.n = 16


def test_private_names_are_ignored():
    assert template(_helper=[1, 2]).n == 48


def test_api_backends():
    local = template(backend="openai-local", seed=None, model_url="http://127.0.0.1:8000/v1", server="vllm")
    assert {model.url for model in local.models} == {"http://127.0.0.1:8000/v1"}
    assert {model.server for model in local.models} == {"vllm"}
    api = template(
        backend="openai-api",
        seed=None,
        top_k=None,
        repetition_penalty=None,
        greedy=False,
        temperatures=[1.0],
        models=[dict(path="o3-mini", url="https://api.x/v1"), "gpt-4o"],
    )
    assert [model.url for model in api.models] == ["https://api.x/v1", None]
    assert [model.server for model in api.models] == [None, None]


def test_scalar_k_and_string_eval_url():
    parsed = template(k=16, eval_urls="http://judge/v1")
    assert parsed.k == (16,) and parsed.eval_urls == ("http://judge/v1",)


# ---------------------------------------------------------------------------------- properties

names = st.from_regex(r"[A-Za-z][A-Za-z0-9 ._-]{0,12}", fullmatch=True)
grid_templates = st.fixed_dictionaries(
    {
        "backend": st.just("turbomind"),
        "models": st.lists(
            st.builds(lambda name, tp: dict(path=f"org/{name}", tp=tp), names, st.integers(1, 8)),
            min_size=1,
            max_size=3,
            unique_by=lambda m: re.sub(r"[^A-Za-z0-9]", "", m["path"]),
        ),
        "benchmarks": st.lists(st.sampled_from([b.name for b in BENCHMARKS]), min_size=1, max_size=4, unique=True),
        "temperatures": st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.7, 1.0, 1.3]), max_size=3, unique=True),
        "k": st.lists(st.integers(1, 32), min_size=1, max_size=4, unique=True),
        "n": st.integers(32, 64),
        "max_out_len": st.integers(1, 40000),
        "greedy": st.booleans(),
        "top_p": st.none() | st.sampled_from([0.8, 0.95, 1.0]),
        "top_k": st.none() | st.integers(1, 100),
        "seed": st.none() | st.integers(0, 2**31),
    }
)


@settings(max_examples=150, deadline=None)
@given(grid_templates)
def test_expansion_properties(variables):
    if not variables["temperatures"]:
        variables["temperatures"], variables["greedy"] = None, True
    parsed = parse_template(variables)
    runs = expand(parsed)
    settings_per_model = len(variables["temperatures"] or ()) + variables["greedy"]
    assert len(runs) == len(variables["models"]) * settings_per_model * len(variables["benchmarks"])
    assert len({run.file for run in runs}) == len(runs)
    for run in runs:
        assert run.file == config_file_name(run.model_abbr, run.dataset_abbr)
        assert "/" not in run.file and ".." not in run.file and run.file.endswith(".py")
        assert run.model_abbr.startswith(run.model.display_name + "_t")
        assert run.dataset_abbr == dataset_abbr(run.benchmark, run.k, run.n)
        assert max(run.k) <= run.n
        assert run.greedy == (run.temperature == 0.0)
    assert manifest(runs, "t")["runs"] == [run.manifest_entry() for run in runs]


@pytest.mark.parametrize(
    "assignment, expected",
    [
        ("n=16", ("n", 16)),
        ("temperatures=[0.7,1.0]", ("temperatures", [0.7, 1.0])),
        ("greedy=False", ("greedy", False)),
        ("seed=None", ("seed", None)),
        ("k=16", ("k", 16)),
        ("benchmarks=[AIME2025, MATH500-L5]", ("benchmarks", ["AIME2025", "MATH500-L5"])),
        ("benchmarks=['AIME2025']", ("benchmarks", ["AIME2025"])),
        ("benchmarks=[]", ("benchmarks", [])),
        ("models=[{'path': 'org/m', 'tp': 2}]", ("models", [{"path": "org/m", "tp": 2}])),
        ("model_url=http://gpu7:8000/v1", ("model_url", "http://gpu7:8000/v1")),
        ("eval_model_name=Qwen/Qwen2.5-72B-Instruct", ("eval_model_name", "Qwen/Qwen2.5-72B-Instruct")),
        (" judge = llm ", ("judge", "llm")),
        ("models.0.tp=4", ("models.0.tp", 4)),
    ],
)
def test_parse_override(assignment, expected):
    assert parse_override(assignment) == expected


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("n", "--set expects KEY=VALUE, got 'n'"),
        ("=3", "--set expects KEY=VALUE"),
        ("", "--set expects KEY=VALUE"),
        ("models=[dict(path='a')]", "--set models: cannot read"),
        ("models={'path': 'a'", "--set models: cannot read"),
        ("benchmarks=[AIME 2025]", "--set benchmarks: cannot read"),
    ],
)
def test_parse_override_refuses_what_it_cannot_read(assignment, message):
    with pytest.raises(InputError, match=re.escape(message)):
        parse_override(assignment)


# ------------------------------------------------------------------ servers: names never claim an unsent setting

API = dict(backend="openai-local", seed=None, model_url="http://127.0.0.1:8000/v1")


@pytest.mark.parametrize("server", ["vllm", "sglang", "lmdeploy", "llama.cpp"])
def test_servers_that_take_top_k_and_a_repetition_penalty(server):
    parsed = template(**API, server=server)
    assert {model.server for model in parsed.models} == {server}
    assert {run.model_abbr.split("_k")[1][:2] for run in expand(parsed) if not run.greedy} == {"50"}


@pytest.mark.parametrize(
    "server, changes, message",
    [
        (
            "ollama",
            dict(repetition_penalty=None),
            "server 'ollama' (Ollama's OpenAI-compatible endpoint) has no top_k parameter, so top_k = 50 would not be "
            "applied; set top_k = None",
        ),
        (
            "ollama",
            dict(top_k=None),
            "server 'ollama' (Ollama's OpenAI-compatible endpoint) has no repetition_penalty parameter",
        ),
        (
            "openai",
            dict(top_k=None),
            "server 'openai' (the OpenAI API) has no repetition_penalty parameter, so "
            "repetition_penalty = 1.0 would not be applied; set repetition_penalty = None",
        ),
        (
            None,
            dict(),
            "models[0] (Qwen/Qwen2.5-7B-Instruct): top_k = 50 is not a standard OpenAI parameter and no "
            "server is set to say what to call it; set server = one of vllm, sglang, lmdeploy, llama.cpp, "
            "or top_k = None",
        ),
        (
            "tgi",
            dict(),
            "server = 'tgi': input should be 'vllm', 'sglang', 'lmdeploy', 'llama.cpp', 'ollama' or 'openai'",
        ),
    ],
)
def test_a_parameter_the_server_cannot_take_is_refused(server, changes, message):
    with pytest.raises(InputError) as error:
        template(**API, server=server, **changes)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("server", ["ollama", "openai", None])
def test_standard_parameters_only_servers_accept_temperature_and_top_p(server):
    runs = expand(template(**API, server=server, top_k=None, repetition_penalty=None))
    assert {(run.top_p, run.top_k, run.repetition_penalty) for run in runs if not run.greedy} == {(0.8, None, None)}


def test_a_greedy_only_grid_never_sends_top_k_so_a_server_without_it_is_fine():
    parsed = template(**API, server="ollama", repetition_penalty=None, temperatures=None, greedy=True)
    assert all(run.top_k is None for run in expand(parsed))


def test_a_model_server_overrides_the_template_server():
    parsed = template(**API, server="vllm", models=[dict(path="a/x"), dict(path="b/y", server="llama.cpp")])
    assert [model.server for model in parsed.models] == ["vllm", "llama.cpp"]
    with pytest.raises(InputError, match=re.escape("models[1] (b/y): server 'ollama' (Ollama's")):
        template(**API, server="vllm", models=[dict(path="a/x"), dict(path="b/y", server="ollama")])
    with pytest.raises(InputError, match=re.escape("models[0].server = 'vLLM': input should be 'vllm',")):
        template(**API, models=[dict(path="a/x", server="vLLM")])


@pytest.mark.parametrize("changes", [dict(greedy=True, temperatures=[1.0]), dict(greedy=False, temperatures=[0.7])])
def test_reasoning_models_get_no_temperature_from_opencompass_so_only_its_default_is_named(changes):
    api = dict(backend="openai-api", seed=None, top_k=None, repetition_penalty=None, server="openai")
    with pytest.raises(
        InputError,
        match=re.escape("models[1] (o3-mini-2025-01-31): OpenCompass sends no temperature to models named like 'o3'"),
    ):
        template(**api, models=["gpt-4o", "o3-mini-2025-01-31"], **changes)
    assert template(**api, models=["gpt-4o", "o3-mini-2025-01-31"], greedy=False, temperatures=[1.0])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_reasoning_model_list_is_opencompass_own():
    from opencompass.models.openai_api import OAI_REASONING_MODEL_LIST

    from gpassk_opencompass.grid.spec import OPENCOMPASS_REASONING_MODELS

    assert list(OPENCOMPASS_REASONING_MODELS) == OAI_REASONING_MODEL_LIST


# ------------------------------------------------------------------------------------ --set paths

VARIABLES = dict(models=["org/a", dict(path="org/b", tp=2), "org/c"], n=48, top_k=50)


@pytest.mark.parametrize(
    "overrides, expected",
    [
        ({"models.1.tp": 4}, dict(VARIABLES, models=["org/a", dict(path="org/b", tp=4), "org/c"])),
        (
            {"models.0.name": "A"},
            dict(VARIABLES, models=[dict(path="org/a", name="A"), dict(path="org/b", tp=2), "org/c"]),
        ),
        ({"n": 16, "models": ["x/y"]}, dict(VARIABLES, n=16, models=["x/y"])),
    ],
)
def test_apply_overrides(overrides, expected):
    assert apply_overrides(VARIABLES, overrides) == expected
    assert VARIABLES["models"][1] == dict(path="org/b", tp=2)  # the input is not changed


@pytest.mark.parametrize(
    "key, message",
    [
        ("models.99.tp", "--set models.99.tp: models has 3 entries (0..2); got index 99"),
        ("models.3", "--set models.3: models has 3 entries (0..2); got index 3"),
        ("models.-1.tp", "--set models.-1.tp: models is a list; '-1' is not an index (models has 3 entries (0..2))"),
        ("models.x.tp", "--set models.x.tp: models is a list; 'x' is not an index (models has 3 entries (0..2))"),
        (
            "models.1.tpp",
            "--set models.1.tpp: models.1 has no key 'tpp'; did you mean 'tp'? "
            "known: path, name, tp, batch_size, url, tokenizer_path, server",
        ),
        ("models.1.tp.0", "--set models.1.tp.0: models.1.tp is 2, not a list or dict; write --set models.1.tp=VALUE"),
        ("top_k.3", "--set top_k.3: top_k is 50, not a list or dict; write --set top_k=VALUE"),
        ("top_p.1", "--set top_p.1: the template does not set top_p; set the whole variable: --set top_p=..."),
        (
            "modles.0.tp",
            "--set modles.0.tp: 'modles' is not a template variable; did you mean 'models'? known: "
            "backend, model_url, server, models, benchmarks, greedy, temperatures, k, n, max_out_len, seed, "
            "max_seq_len, query_per_second, retry, eval_urls, eval_model_name, judge, judge_prompt, top_p, top_k, "
            "repetition_penalty, test_range, max_questions, data_paths, curtail",
        ),
    ],
)
def test_apply_overrides_refuses_paths_that_lead_nowhere(key, message):
    with pytest.raises(InputError) as error:
        apply_overrides(VARIABLES, {key: 2})
    assert str(error.value) == message
