"""`gpassk grid run --slurm` inside a Slurm job: each task must be a job of its own, not a step of this one.

Inside a job, ``srun`` starts steps of the enclosing job (on its CPUs, one after another; GPU
tasks fail with "Invalid generic resource"). The launches therefore run without the job's
``SLURM_*``/``SRUN_*`` variables; an ``opencompass`` stand-in records the environment it got.
"""

from __future__ import annotations

import json
import sys

import pytest

from generated_configs import stand_in_grid
from gpassk_opencompass.cli import main
from tiny_data import write_grid_data

#: Every test launches through OpenCompass's own runners (imports it): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e

JOB = {
    "SLURM_JOB_ID": "48213",
    "SLURM_JOBID": "48213",
    "SLURM_STEP_ID": "0",
    "SLURM_STEPID": "0",
    "SLURM_NTASKS": "1",
    "SLURM_CPUS_ON_NODE": "2",
    "SLURM_JOB_NODELIST": "cpu-node-3",
    "SRUN_CPUS_PER_TASK": "2",
    "SLURM_CONF": "/etc/slurm/slurm.conf",
    "SLURM_ACCOUNT": "lab",
}


@pytest.fixture
def recorded(tmp_path, compass_cache, monkeypatch):
    """Run ``gpassk grid run ARGS`` inside a fake job; return the environments the launches got."""
    write_grid_data(compass_cache)
    configs = tmp_path / "configs"
    stand_in_grid(configs, "AIME2025")
    record = tmp_path / "environments.jsonl"
    fake = tmp_path / "opencompass"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os\nopen({str(record)!r}, 'a').write(json.dumps(dict(os.environ)) + '\\n')\n"
    )
    fake.chmod(0o755)
    for name, value in JOB.items():
        monkeypatch.setenv(name, value)

    def run(*arguments: str) -> list[dict]:
        assert (
            main(
                [
                    "grid",
                    "run",
                    str(configs),
                    "-w",
                    str(tmp_path / "w"),
                    "--opencompass",
                    str(fake),
                    "--no-progress",
                    *arguments,
                ]
            )
            == 1
        )  # the stand-in writes no results
        return [json.loads(line) for line in record.read_text().splitlines()]

    return run


def test_with_slurm_the_launch_runs_without_the_jobs_slurm_variables(recorded):
    (environment,) = recorded("--slurm", "-p", "gpu")
    assert not [
        name
        for name in environment
        if name.startswith(("SLURM_", "SRUN_")) and name not in ("SLURM_CONF", "SLURM_ACCOUNT")
    ]
    assert environment["SLURM_CONF"] == JOB["SLURM_CONF"] and environment["SLURM_ACCOUNT"] == "lab"
    assert "PATH" in environment and environment.get("COMPASS_DATA_CACHE")


def test_the_local_runner_keeps_the_job_environment(recorded):
    (environment,) = recorded()  # tasks run inside this job, on its GPUs
    assert {name: environment.get(name) for name in JOB} == JOB


def test_dry_run_says_so(tmp_path, recorded, capsys):
    main(
        [
            "grid",
            "run",
            str(tmp_path / "configs"),
            "-w",
            str(tmp_path / "w"),
            "--opencompass",
            sys.executable,
            "--slurm",
            "-p",
            "gpu",
            "--dry-run",
        ]
    )
    assert (
        "# inside Slurm job 48213: the launches run without the job's SLURM_*/SRUN_* variables"
        in capsys.readouterr().out
    )
