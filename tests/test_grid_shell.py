"""No value becomes shell: what `gpassk grid run` hands to OpenCompass's Slurm runner is checked first.

OpenCompass's ``SlurmRunner`` builds ``srun -p {partition} --quotatype={q} --qos={qos} ...`` as one
string and runs it with ``shell=True``.  The real runner is driven here with an ``srun`` on PATH
that records the arguments it receives: a plain partition arrives as one argument; a partition
with shell syntax, given to the runner directly, runs a command (the marker appears) — and
``gpassk grid run`` refuses that value in one line, ``--dry-run`` included, before any launch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from generated_configs import stand_in_grid
from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.grid.launch import LaunchOptions, validate_options

HOSTILE = "gpu; touch pwned #"


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    stand_in_grid(folder, "AIME2025")
    return folder


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    "arguments, named",
    [
        (["-p", HOSTILE], f"-p/--partition {HOSTILE!r}"),
        (["-p", "gpu", "-q", "spot$(id)"], "-q/--quotatype 'spot$(id)'"),
        (["-p", "gpu", "--qos", "high`id`"], "--qos 'high`id`'"),
        (["-p", "gpu", "--qos", "a b"], "--qos 'a b'"),
        (["-p", "gpu", "--opencompass-arg=--partition=x;id"], "--opencompass-arg '--partition=x;id'"),
        # What OpenCompass's own parser reads as a partition/QOS/quota: attached, abbreviated ...
        (["-p", "gpu", f"--opencompass-arg=-p{HOSTILE}"], "sets OpenCompass's partition ('gpu; touch pwned #')"),
        (["-p", "gpu", "--opencompass-arg=--part=x;id"], "sets OpenCompass's partition ('x;id')"),
        (["-p", "gpu", "--opencompass-arg=--qo=x;id"], "sets OpenCompass's qos ('x;id')"),
        (["-p", "gpu", "--opencompass-arg=--quota=x;id"], "sets OpenCompass's quotatype ('x;id')"),
        (["-p", "gpu", "--opencompass-arg=--work-dir=elsewhere"], "sets OpenCompass's work_dir ('elsewhere')"),
    ],
)
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "run"])
def test_shell_syntax_in_slurm_values_is_refused_before_any_launch(
    tmp_path, configs, capsys, arguments, named, dry_run, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    work = tmp_path / "outputs"
    code = main(
        [
            "grid",
            "run",
            str(configs),
            "-w",
            str(work),
            "--opencompass",
            sys.executable,
            "--slurm",
            *arguments,
            *(["--dry-run"] if dry_run else []),
        ]
    )
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and named in captured.err, captured.err
    assert captured.out == "" and not work.exists() and not (tmp_path / "pwned").exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    "arguments, named",
    [
        # without gpassk's --slurm: the whole Slurm launch given to OpenCompass directly
        (["--opencompass-arg=--slurm", "--opencompass-arg=-p", "--opencompass-arg=gpu;id"], "slurm (True)"),
        (["--opencompass-arg=--slu", f"--opencompass-arg=-p{HOSTILE}"], "slurm (True)"),
        (["--opencompass-arg=--dlc", "--opencompass-arg=--aliyun-cfg=/etc/hostname"], "dlc (True)"),
        (["--opencompass-arg=-r"], "reuse ('latest')"),
        (["--opencompass-arg=--no-such-option"], "opencompass would refuse them: unrecognized arguments"),
    ],
)
def test_opencompass_args_cannot_choose_the_runner_or_the_run_folder(tmp_path, configs, capsys, arguments, named):
    work = tmp_path / "outputs"
    code = main(["grid", "run", str(configs), "-w", str(work), "--skip-data-check", "--dry-run", *arguments])
    captured = capsys.readouterr()
    assert code == 2 and captured.err.count("\n") == 1 and named in captured.err, captured.err
    assert "--opencompass-arg " in captured.err and captured.out == "" and not work.exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_other_opencompass_args_reach_every_launch(tmp_path, configs, capsys):
    extra = [
        "--opencompass-arg=--max-num-workers=3",
        "--opencompass-arg=--dump-eval-details",
        "--opencompass-arg=False",
    ]
    code = main(["grid", "run", str(configs), "-w", str(tmp_path / "w"), "--skip-data-check", "--dry-run", *extra])
    launches = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    assert code == 0 and launches
    assert all(line.endswith(" --max-num-workers=3 --dump-eval-details False") for line in launches)


@pytest.mark.e2e  # OpenCompass's real SlurmRunner, through a shell
def test_the_real_slurm_runner_gets_a_checked_value_as_one_argument(tmp_path, configs, monkeypatch):
    from mmengine.config import Config
    from opencompass.runners import SlurmRunner
    from opencompass.tasks import OpenICLInferTask

    bin_dir, record = tmp_path / "bin", tmp_path / "srun.args"
    bin_dir.mkdir()
    (bin_dir / "srun").write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {str(record)!r}\n")
    (bin_dir / "srun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)  # the runner writes tmp/<pid>_params.py here
    config = Config.fromfile(str(next(configs.glob("*.py"))))
    # gpassk's -w is not checked: the runner never hands the work dir to the shell
    work_dir = tmp_path / "w; touch pwned-by-work-dir #"
    task = Config({"models": [config.models[0]], "datasets": [[config.datasets[0]]], "work_dir": str(work_dir)})

    def srun_arguments(partition: str, qos: str) -> list[str]:
        runner = SlurmRunner(task={"type": OpenICLInferTask}, partition=partition, qos=qos, debug=True)
        runner.launch([task])
        return record.read_text().splitlines()

    options = LaunchOptions(tmp_path / "w", "opencompass", slurm=True, partition="gpu_a100-80g", qos="normal")
    validate_options(options)  # accepted: reaches srun unchanged, one argument each
    arguments = srun_arguments(options.partition, options.qos)
    assert arguments[:3] == ["-p", "gpu_a100-80g", "--qos=normal"]
    assert not (tmp_path / "pwned-by-work-dir").exists() and not any("pwned" in item for item in arguments)

    # Given to the runner directly, the hostile partition runs a command: this is what is refused.
    srun_arguments(HOSTILE, "normal")
    assert (tmp_path / "pwned").exists()
    (tmp_path / "pwned").unlink()
    with pytest.raises(InputError, match="is not a plain Slurm name"):
        validate_options(LaunchOptions(tmp_path / "w", "opencompass", slurm=True, partition=HOSTILE))


def test_a_hand_edited_abbr_with_shell_syntax_is_refused_on_a_cluster(tmp_path, configs, capsys):
    import json

    manifest = configs / "manifest.json"
    document = json.loads(manifest.read_text())
    document["runs"][0]["model_abbr"] = "m'$(id)'"
    manifest.write_text(json.dumps(document))
    assert main(["grid", "run", str(configs), "-w", str(tmp_path / "w"), "--slurm", "-p", "gpu", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model_abbr \"m'$(id)'\" would be part of a cluster job name" in err
