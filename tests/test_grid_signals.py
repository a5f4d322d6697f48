"""SIGTERM and SIGHUP stop `gpassk grid run` as Ctrl-C does: launches terminated, no pid file left.

`kill`, `timeout`, the end of a batch job and a closed terminal send these signals. The
command runs as a real subprocess; the end-to-end test launches the real ``opencompass`` on a
one-config grid whose model (a loopback server) never answers, so its inference task is
running when the signal arrives.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from generated_configs import REPO, generate_configs, sleeping_opencompass, stand_in_grid
from opencompass_e2e import TinyQuestion, write_livemathbench
from tiny_data import write_grid_data


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, read from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def wait_for(condition, what: str, tries: int = 3000):
    for _ in range(tries):
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def start_grid_run(configs: Path, work: Path, *extra: str) -> subprocess.Popen:
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpassk_opencompass.cli",
            "grid",
            "run",
            str(configs),
            "-w",
            str(work),
            "--no-progress",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )


def pid_file(work: Path) -> Path | None:
    return next(work.glob("*/*/gpassk_launch.pid"), None)


def stop_and_check(process: subprocess.Popen, work: Path, signum: int) -> str:
    """Send ``signum`` once a launch (and a child of it) runs; check everything of ours is gone."""
    path = wait_for(lambda: pid_file(work), "the launch's pid file")
    pgid = json.loads(path.read_text())["pid"]
    try:
        wait_for(lambda: len(group_members(pgid)) >= 2, "the launch and its child")
        process.send_signal(signum)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 128 + signum, err
        said = f"gpassk grid: terminated by {signal.Signals(signum).name}; the running launches were stopped; "
        assert said + "run the same command again to resume" in err
        assert not path.exists()
        wait_for(lambda: not group_members(pgid), "the launch's process group to end", tries=300)
    finally:  # never leave the launch behind, even when the test fails
        if group_members(pgid):
            os.killpg(pgid, signal.SIGKILL)
    return err


@pytest.mark.e2e  # a real gpassk process (and its launch's children), stopped by a signal
def test_sighup_stops_the_launches_and_their_children(tmp_path, compass_cache):
    write_grid_data(compass_cache)
    configs = tmp_path / "configs"
    stand_in_grid(configs, "AIME2025")
    fake = sleeping_opencompass(tmp_path)
    work = tmp_path / "outputs"
    process = start_grid_run(configs, work, "--opencompass", str(fake))
    stop_and_check(process, work, signal.SIGHUP)


@pytest.mark.e2e
def test_sigterm_stops_a_real_opencompass_launch(tmp_path, loopback_openai, offline_env):
    write_livemathbench(
        offline_env,
        [
            TinyQuestion(split, language, f"{split} {language}: 1 + 1?", "2", {"m": 1})
            for split in ("CNMO", "CCEE", "AMC", "WLPMC")
            for language in ("cn", "en")
        ],
    )
    release = threading.Event()
    server = loopback_openai(lambda body: release.wait(300) and "\\boxed{2}", model_name="m")
    configs = tmp_path / "configs"
    generate_configs(
        "self_served.py",
        configs,
        f"model_url={server.url}",
        "models=[{'path': 'm'}]",
        "benchmarks=[LiveMathBench-202412]",
        "greedy=False",
        "n=2",
        "k=[1]",
        "judge=rule",
        "max_out_len=64",
        "retry=1",
    )
    work = tmp_path / "outputs"
    process = start_grid_run(configs, work)
    try:
        wait_for(lambda: server.requests, "the inference task's first request")
        stop_and_check(process, work, signal.SIGTERM)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
