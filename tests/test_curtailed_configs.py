"""A curtailed grid's configs: the template key ``curtail``, round 1's config, the manifest's design, refusals.

``curtail = dict(first=N1, rule=...)`` makes every sampled config round 1 of a curtailed run (N1 replicas, the
dataset abbr ``..._c{N1}-{rule}_r1``, the questions kept for combining the rounds), the manifest record the
design per config (its ``dataset_abbr`` is the combined run's), and leaves greedy configs byte for byte as they
were. The rules are the design's own (``curtailed.RULES``, ``Curtailed``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from mmengine.config import Config

from gpassk_opencompass.curtailed import RULES

REPO = Path(__file__).resolve().parent.parent
COMMON = ("model_url=http://127.0.0.1:9/v1", "benchmarks=[AIME2025, LiveMathBench-202412]", "n=8", "k=[2, 4]")


def _script():
    spec = importlib.util.spec_from_file_location("save_opencompass_configs", REPO / "save_opencompass_configs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


script = _script()


def generate(out: Path, *assignments: str) -> int:
    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    return script.main(["-tc", template, "--output_dir", str(out), "--set", *COMMON, *assignments])


def manifest(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["runs"]


@pytest.mark.parametrize("rule", list(RULES))
def test_curtail_writes_round_one_configs_and_records_the_design(tmp_path, rule):
    out = tmp_path / "configs"
    assert generate(out, f"curtail={{'first': 4, 'rule': '{rule}'}}") == 0
    runs = manifest(out)
    sampled = [run for run in runs if not run["greedy"]]
    assert len(sampled) == 2 and len(runs) == 4
    for run in sampled:
        assert run["curtail"] == {"n1": 4, "n": 8, "rule": rule} and run["n"] == 8 and run["k"] == [2, 4]
        assert run["dataset_abbr"] == f"{run['benchmark']}_k2-4_n8_c4-{rule}"
        assert run["file"].endswith(f"@{run['benchmark']}_k2-4_n8_c4-{rule}.py")
        text = (out / run["file"]).read_text(encoding="utf-8")
        assert "curtailed at 4" in text.splitlines()[1] and "gpassk grid run draws round 2" in text.splitlines()[1]
        (dataset,) = Config.fromfile(str(out / run["file"])).datasets
        assert (dataset["abbr"], dataset["n"], dataset["k"]) == (run["dataset_abbr"] + "_r1", 4, [2, 4])
        assert dataset["eval_cfg"]["evaluator"]["keep_questions"] is True
    for run in runs:
        if run["greedy"]:
            assert "curtail" not in run and (run["k"], run["n"]) == ([1], 1)


def test_the_default_rule_is_all_wrong(tmp_path):
    assert generate(tmp_path / "c", "curtail={'first': 4}", "greedy=False") == 0
    assert {run["curtail"]["rule"] for run in manifest(tmp_path / "c")} == {"all-wrong"}


def test_greedy_configs_are_unaffected_and_a_grid_without_curtail_unchanged(tmp_path):
    assert generate(tmp_path / "plain") == 0
    assert generate(tmp_path / "curtailed", "curtail={'first': 4}") == 0
    plain, curtailed = manifest(tmp_path / "plain"), manifest(tmp_path / "curtailed")
    greedy = [run for run in plain if run["greedy"]]
    assert greedy == [run for run in curtailed if run["greedy"]]
    for run in greedy:  # byte for byte
        assert (tmp_path / "plain" / run["file"]).read_bytes() == (tmp_path / "curtailed" / run["file"]).read_bytes()
    assert all("curtail" not in run for run in plain)
    assert not any("keep_questions" in path.read_text() for path in (tmp_path / "plain").glob("*.py"))


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("curtail={'first': 8}", "curtail first = 8 is not below n = 8: round 1 would draw every generation"),
        ("curtail={'first': 3}", "k = 4 is above curtail first = 3: every k must be at most the generations round 1"),
        ("curtail={'first': 4, 'rule': 'all-rong'}", "curtail.rule = 'all-rong': input should be 'all-wrong' or"),
        ("curtail={'first': 0}", "curtail.first = 0: input should be greater than or equal to 1"),
        ("curtail=4", "curtail = 4: input should be a valid dictionary"),
        ("n=4000", "curtailment must satisfy 1 <= n1 <= n <= 2048 (MAX_CURTAILED_N); got n1=4, n=4000"),
    ],
)
def test_what_the_design_cannot_be_is_one_line_and_nothing_is_written(tmp_path, capsys, assignment, message):
    extra = (assignment,) if assignment.startswith("curtail") else ("curtail={'first': 4}", assignment)
    assert generate(tmp_path / "out", *extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_a_greedy_only_grid_has_nothing_to_curtail(tmp_path, capsys):
    assert generate(tmp_path / "out", "curtail={'first': 4}", "temperatures=None", "greedy=True") == 2
    assert "curtail is set, but the grid has no sampled run (temperatures = None)" in capsys.readouterr().err
