"""Preflight: a config that cannot run here fails with one line before OpenCompass starts.

The configs come from the real generator; their models are read as data.
This machine has no lmdeploy and no CUDA GPU (CPU torch), which the first
tests rely on (they skip elsewhere).
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from generated_configs import generate_configs, stand_in_grid
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin import preflight
from gpassk_opencompass.plugin.preflight import Environment, ModelInfo, Requirement, check_configs, problem
from opencompass_e2e import tiny_run_config
from test_data_newest import write_standin
from tiny_data import write_aime2025, write_grid_data

no_lmdeploy = pytest.mark.skipif(importlib.util.find_spec("lmdeploy") is not None, reason="lmdeploy is installed")


@pytest.fixture(autouse=True)
def grid_data(compass_cache):
    """The benchmarks' data (the data check has its own tests below, which take it away)."""
    write_grid_data(compass_cache)
    return compass_cache


@pytest.fixture
def turbomind_grid(tmp_path):
    configs = tmp_path / "turbomind"
    runs = generate_configs(
        "nono1.py",
        configs,
        "models=[{'path': 'org/m', 'tp': 1}]",
        "benchmarks=[AIME2025, MATH500-L5]",
        "temperatures=[1.0]",
        "greedy=False",
    )
    return configs, runs


@pytest.fixture
def recorder(tmp_path):
    """An ``opencompass`` stand-in that records being called (it must not be)."""
    record = tmp_path / "called"
    script = tmp_path / "oc"
    script.write_text(f"#!{sys.executable}\nopen({str(record)!r}, 'a').write('called\\n')\n")
    script.chmod(0o755)
    return str(script), record


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@no_lmdeploy
def test_turbomind_grid_on_a_machine_without_lmdeploy_or_gpu(tmp_path, turbomind_grid, recorder, capsys, monkeypatch):
    configs, runs = turbomind_grid
    monkeypatch.setattr(preflight, "cuda_gpu_visible", lambda: False)
    code = main(["grid", "run", str(configs), "-w", str(tmp_path / "out"), "--opencompass", recorder[0]])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (
        f"config {runs[0]['file']} needs lmdeploy (TurboMind) and a CUDA GPU: lmdeploy is not installed, "
        "no CUDA GPU is visible; use the self_served template with an OpenAI-compatible server on this "
        "machine"
    ) in err
    assert "(and 1 more config for the same reason)" in err
    assert not recorder[1].exists() and not (tmp_path / "out").exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@no_lmdeploy
def test_with_slurm_only_the_package_is_checked(tmp_path, turbomind_grid, recorder, capsys, monkeypatch):
    configs, _ = turbomind_grid
    monkeypatch.setattr(preflight, "cuda_gpu_visible", lambda: pytest.fail("no GPU probe for Slurm"))
    code = main(
        [
            "grid",
            "run",
            str(configs),
            "-w",
            str(tmp_path / "out"),
            "--opencompass",
            recorder[0],
            "--slurm",
            "-p",
            "gpu",
            "--dry-run",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "lmdeploy is not installed; install it in this Python environment" in err and "GPU is visible" not in err


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_gpu_configs_locally_run_one_launch_at_a_time(tmp_path, turbomind_grid, recorder, capsys, monkeypatch):
    configs, _ = turbomind_grid
    monkeypatch.setattr(preflight, "cuda_gpu_visible", lambda: True)
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args, real=importlib.util.find_spec: object() if name == "lmdeploy" else real(name, *args),
    )
    code = main(
        ["grid", "run", str(configs), "-w", str(tmp_path / "out"), "--opencompass", recorder[0], "--max-parallel", "2"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--max-parallel 2 with 2 config(s) that need GPUs" in err and "--max-parallel 1" in err
    assert not recorder[1].exists()


def test_api_configs_need_neither_package_nor_gpu(tmp_path):
    configs = tmp_path / "served"
    generate_configs("self_served.py", configs, "benchmarks=[AIME2025]", "n=2", "k=[1]")
    checks = check_configs(sorted(configs.glob("*.py")), gpu_probe=lambda: pytest.fail("API models need no GPU probe"))
    assert [check.problem for check in checks] == [None, None]
    assert all(check.need == Requirement("", (), False) for check in checks)


def test_hand_written_config_with_shared_bases_is_read_as_data(tmp_path):
    config = tmp_path / "tiny.py"
    config.write_text(tiny_run_config("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"))
    models = preflight.models_of(config)
    assert [model.abbr for model in models] == ["strong_t0-7", "weak_t0-7", "strong_greedy", "weak_greedy"]
    assert {model.type for model in models} == {"gpassk_opencompass.plugin.models.OfflineOpenAISDK"}
    assert {model.num_gpus for model in models} == {0}


def test_reading_never_executes_the_config(tmp_path):
    marker = tmp_path / "executed"
    config = tmp_path / "evil.py"
    config.write_text(f"open({str(marker)!r}, 'w')\nmodels = [dict(type='VLLM', run_cfg=dict(num_gpus=2))]\n")
    (check,) = check_configs([config], gpu_probe=lambda: False)
    assert not marker.exists()
    assert check.need == Requirement("vLLM", ("vllm",), True)


def test_unreadable_models_are_not_checked(tmp_path):
    config = tmp_path / "based.py"
    config.write_text("from mmengine.config import read_base\nwith read_base():\n    from .models import models\n")
    assert check_configs([config], gpu_probe=lambda: False)[0].need is None


@pytest.mark.parametrize(
    "model, environment, expected",
    [
        (
            ModelInfo("hf", "opencompass.models.HuggingFacewithChatTemplate", 0),
            Environment(False, frozenset()),
            "config c.py needs Hugging Face transformers: transformers is not installed;",
        ),
        (
            ModelInfo("hf", "opencompass.models.HuggingFacewithChatTemplate", 1),
            Environment(False, frozenset({"transformers"})),
            "config c.py needs Hugging Face transformers and a CUDA GPU: no CUDA GPU is visible;",
        ),
        (ModelInfo("v", "opencompass.models.VLLMwithChatTemplate", 1), Environment(True, frozenset({"vllm"})), None),
        (
            ModelInfo("x", "my.models.Custom", 2),
            Environment(False, frozenset()),
            "config c.py needs a CUDA GPU: no CUDA GPU is visible;",
        ),
    ],
)
def test_problem_lines(model, environment, expected):
    message = problem("c.py", preflight.requirement(model), environment)
    assert message == expected if expected is None else message.startswith(expected)


def test_a_syntax_error_is_one_line(tmp_path):
    config = tmp_path / "broken.py"
    config.write_text("models = [dict(\n")
    with pytest.raises(InputError, match=r"^config .*broken.py line \d+: "):
        check_configs([config])


@pytest.fixture
def api_grid(tmp_path):
    configs = tmp_path / "api"
    runs = generate_configs(
        "self_served.py",
        configs,
        "model_url=http://127.0.0.1:9/v1",
        "models=[{'path': 'org/a'}, {'path': 'org/b'}]",
        "benchmarks=[AIME2025, MATH500-L5]",
        "greedy=False",
        "n=2",
        "k=[1]",
    )
    return configs, runs


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]], ids=["run", "dry-run"])
def test_missing_data_is_one_line_before_any_launch(tmp_path, api_grid, recorder, capsys, monkeypatch, dry_run):
    configs, runs = api_grid
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "empty-cache"))  # AIME2025 and MATH500 nowhere
    code = main(["grid", "run", str(configs), "-w", str(tmp_path / "out"), "--opencompass", recorder[0], *dry_run])
    captured = capsys.readouterr()
    assert code == 2 and captured.err.count("\n") == 1, captured.err
    aime = [run["file"] for run in runs if run["benchmark"] == "AIME2025"]
    assert f"config {aime[0]} (and 1 more) needs the AIME2025 data: no data for 'opencompass/aime2025'" in captured.err
    assert "needs the MATH500-L5 data" in captured.err and "gpassk data check AIME2025" in captured.err
    assert captured.out == "" and not recorder[1].exists() and not (tmp_path / "out").exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_data_present_or_check_skipped_launches(tmp_path, api_grid, recorder, monkeypatch):
    configs, runs = api_grid
    assert (
        main(["grid", "run", str(configs), "-w", str(tmp_path / "out"), "--opencompass", recorder[0], "--no-progress"])
        == 1
    )  # launched (the stand-in writes no results)
    assert recorder[1].read_text().count("called") == len(runs)
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "empty-cache"))
    assert (
        main(
            [
                "grid",
                "run",
                str(configs),
                "-w",
                str(tmp_path / "out2"),
                "--opencompass",
                recorder[0],
                "--no-progress",
                "--skip-data-check",
            ]
        )
        == 1
    )
    assert recorder[1].read_text().count("called") == 2 * len(runs)


def _run(tmp_path, configs, recorder, *extra):
    return main(["grid", "run", str(configs), "-w", str(tmp_path / "out"), "--opencompass", recorder[0], *extra])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_data_path_of_the_template_is_what_is_checked(tmp_path, grid_data, recorder, capsys, monkeypatch):
    """The check reads each config's own loader arguments: its data_paths, not the benchmark's default place."""
    missing = tmp_path / "nowhere" / "aime'2025.jsonl"
    stand_in_grid(tmp_path / "bad", "AIME2025", assignments=(f"data_paths={{'AIME2025': {str(missing)!r}}}",))
    assert _run(tmp_path, tmp_path / "bad", recorder, "--dry-run") == 2  # the default place has the data
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"needs the AIME2025 data: no data for {str(missing)!r}" in err, err
    assert "Offline: fetch" not in err  # the user's own file: no archive to fetch it from

    elsewhere = write_aime2025(tmp_path / "elsewhere", [("what is 1 + 1?", "2")])
    stand_in_grid(tmp_path / "good", "AIME2025", assignments=(f"data_paths={{'AIME2025': {str(elsewhere)!r}}}",))
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "empty-cache"))  # the default place is empty
    assert _run(tmp_path, tmp_path / "good", recorder, "--no-progress") == 1  # launched (the stand-in writes nothing)
    assert recorder[1].read_text().count("called") == 1


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_parquet_snapshot_given_as_data_path_is_read(tmp_path, recorder, capsys):
    snapshot = tmp_path / "hmmt"
    write_standin(snapshot, "HMMT-Feb-2025")  # MathArena's Hub layout under snapshot/data/MathArena/...
    folder = next(snapshot.rglob("*.parquet")).parents[1]
    stand_in_grid(tmp_path / "c", "HMMT-Feb-2025", assignments=(f"data_paths={{'HMMT-Feb-2025': {str(folder)!r}}}",))
    assert _run(tmp_path, tmp_path / "c", recorder, "--dry-run") == 0
    next(folder.rglob("*.parquet")).write_bytes(b"not parquet")
    assert _run(tmp_path, tmp_path / "c", recorder, "--dry-run") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs the HMMT-Feb-2025 data: " in err and "does not read" in err, err


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_pilot_beyond_the_data_is_one_line(tmp_path, recorder, capsys):
    stand_in_grid(tmp_path / "c", "AIME2025", assignments=("test_range=[5:9]",))  # AIME2025 has 1 question here
    assert _run(tmp_path, tmp_path / "c", recorder) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "test_range '[5:9]' selects none of its 1 questions" in err, err
    assert not recorder[1].exists()
