"""`gpassk grid run`: commands, skipping, resuming, parallel launches, stopping, argument errors.

OpenCompass is replaced by a stand-in executable (``--opencompass``) that
records its arguments and writes what OpenCompass would (a results file in
``<-w>/<-r>/results/<model>/<dataset>.json``), so these tests run in
seconds; the real launch is in test_grid_status.py.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from pathlib import Path

import pytest

from generated_configs import stand_in_grid
from gpassk_opencompass.cli import main
from gpassk_opencompass.grid.launch import Launch, Launcher, LaunchOptions, opencompass_command
from gpassk_opencompass.grid.status import GridRun, load_grid
from tiny_data import write_grid_data

FAKE = """\
import json, os, shlex, sys, time
from pathlib import Path

args = sys.argv[1:]
with open(os.environ["FAKE_RECORD"], "a") as record:
    record.write(shlex.join(args) + "\\n")
config = Path(args[0])
work, timestamp = Path(args[args.index("-w") + 1]), args[args.index("-r") + 1]
(run,) = [r for r in json.loads((config.parent / "manifest.json").read_text())["runs"] if r["file"] == config.name]
mode = os.environ.get("FAKE_MODE", "complete")
print("fake opencompass", mode, flush=True)
if mode == "sleep":
    time.sleep(120)
if mode.startswith("barrier:"):  # wait until this many launches are running at once
    folder, count = Path(mode.split(":")[1]), int(mode.split(":")[2])
    (folder / str(os.getpid())).touch()
    for _ in range(600):
        if len(list(folder.iterdir())) >= count:
            break
        time.sleep(0.05)
    else:
        sys.exit("not enough launches in parallel")
unresolved = 2 if mode == "incomplete" else 0
results = work / timestamp / "results" / run["model_abbr"]
results.mkdir(parents=True, exist_ok=True)
(results / (run["dataset_abbr"] + ".json")).write_text(json.dumps(
    {"unresolved": unresolved, "gpassk": {"complete": unresolved == 0}}))
"""


@pytest.fixture
def fake_opencompass(tmp_path, monkeypatch):
    """The stand-in's path; ``.record`` lists the argument lists it was called with."""
    script = tmp_path / "fake_opencompass"
    script.write_text(f"#!{sys.executable}\n{FAKE}")
    script.chmod(0o755)
    record = tmp_path / "launches.txt"
    record.touch()
    monkeypatch.setenv("FAKE_RECORD", str(record))

    class Fake:
        path = str(script)

        @staticmethod
        def launches() -> list[list[str]]:
            return [shlex.split(line) for line in record.read_text().splitlines()]

    return Fake


@pytest.fixture(autouse=True)
def grid_data(compass_cache):
    """The benchmarks' data, so the preflight's data check passes (test_preflight.py refuses without it)."""
    write_grid_data(compass_cache)


@pytest.fixture
def grid(tmp_path):
    """Three self-served configs (no server is contacted: OpenCompass is the stand-in)."""
    configs = tmp_path / "configs"
    runs = stand_in_grid(configs, "AIME2025", "MATH500-L5", "LiveMathBench-202412")
    return configs, runs


def grid_run(configs: Path, work: Path, fake, *extra: str) -> int:
    return main(["grid", "run", str(configs), "-w", str(work), "--opencompass", fake.path, "--no-progress", *extra])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_dry_run_prints_the_exact_slurm_commands_and_launches_nothing(tmp_path, grid, fake_opencompass, capsys):
    configs, runs = grid
    work = tmp_path / "outputs"
    code = grid_run(
        configs,
        work,
        fake_opencompass,
        "--dry-run",
        "--slurm",
        "-p",
        "gpu",
        "-q",
        "reserved",
        "--qos",
        "high",
        "--max-num-workers",
        "8",
        "--retry",
        "3",
        "--opencompass-arg=--dump-eval-details",
        "--opencompass-arg=False",
    )
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    commands = [shlex.split(line) for line in lines if not line.startswith("#")]
    assert len(commands) == len(runs)
    for command, run in zip(commands, runs):
        stem = Path(run["file"]).stem
        assert command[:5] == [fake_opencompass.path, str(configs / run["file"]), "-w", str(work / stem), "-r"]
        assert command[6:] == [
            "--slurm",
            "-p",
            "gpu",
            "-q",
            "reserved",
            "--qos",
            "high",
            "--max-num-workers",
            "8",
            "--retry",
            "3",
            "--dump-eval-details",
            "False",
        ]
    assert len({command[5] for command in commands}) == 1  # the new runs' timestamp
    assert lines[-1].startswith("# dry run: 3 launch(es), 0 skipped")
    assert fake_opencompass.launches() == [] and not work.exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_run_then_rerun_skips_what_is_done(tmp_path, grid, fake_opencompass, capsys):
    configs, runs = grid
    work = tmp_path / "outputs"
    assert grid_run(configs, work, fake_opencompass) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3 configs: 3 done"
    first = fake_opencompass.launches()
    assert sorted(command[0] for command in first) == sorted(str(configs / run["file"]) for run in runs)
    for run in runs:  # each launch's output is kept in its run folder, ending with the exit code
        (log,) = (work / Path(run["file"]).stem).glob("*/gpassk_launch_*.log")
        text = log.read_text()
        assert "fake opencompass complete" in text and text.rstrip().endswith("# opencompass exited 0")
        assert not (log.parent / "gpassk_launch.pid").exists()

    assert grid_run(configs, work, fake_opencompass) == 0
    assert fake_opencompass.launches() == first  # nothing launched again
    assert capsys.readouterr().out.splitlines() == ["3 configs: 3 done"]
    assert (
        main(["grid", "run", str(configs), "-w", str(work), "--dry-run", "--opencompass", fake_opencompass.path]) == 0
    )
    assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith("# skip (done)")] == [
        "# dry run: 0 launch(es), 3 skipped; 3 configs: 3 done"
    ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_max_parallel_runs_launches_at_once(tmp_path, grid, fake_opencompass, monkeypatch):
    configs, runs = grid
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    monkeypatch.setenv("FAKE_MODE", f"barrier:{barrier}:{len(runs)}")
    # Each stand-in waits until all three are running: only a pool of three lets them finish.
    assert grid_run(configs, tmp_path / "outputs", fake_opencompass, "--max-parallel", str(len(runs))) == 0
    assert len(list(barrier.iterdir())) == len(runs)


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_incomplete_results_are_set_aside_and_rejudged(tmp_path, grid, fake_opencompass, monkeypatch, capsys):
    configs, runs = grid
    work = tmp_path / "outputs"
    monkeypatch.setenv("FAKE_MODE", "incomplete")
    assert grid_run(configs, work, fake_opencompass) == 3
    assert capsys.readouterr().out.splitlines()[-1] == "3 configs: 3 incomplete"
    first = fake_opencompass.launches()

    monkeypatch.setenv("FAKE_MODE", "complete")
    assert grid_run(configs, work, fake_opencompass) == 0
    second = fake_opencompass.launches()[len(first) :]
    assert len(second) == len(runs)
    for before, after in zip(sorted(first), sorted(second)):
        assert after == before  # same config, same -w, same -r <timestamp>: the run folder is resumed
    for run in runs:
        results = next((work / Path(run["file"]).stem).glob("*/results")) / run["model_abbr"]
        kept = sorted(path.name for path in results.iterdir())
        assert kept[0] == f"{run['dataset_abbr']}.json"
        assert kept[1].startswith(f"{run['dataset_abbr']}.json.incomplete-") and len(kept) == 2


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_dry_run_shows_the_set_aside_of_an_incomplete_result(tmp_path, grid, fake_opencompass, monkeypatch, capsys):
    configs, runs = grid
    work = tmp_path / "outputs"
    monkeypatch.setenv("FAKE_MODE", "incomplete")
    grid_run(configs, work, fake_opencompass)
    capsys.readouterr()
    assert grid_run(configs, work, fake_opencompass, "--dry-run") == 0
    lines = capsys.readouterr().out.splitlines()
    moves = [shlex.split(line) for line in lines if line.startswith("mv ")]
    assert len(moves) == len(runs)
    assert all(Path(move[1]).is_file() and move[2].startswith(move[1] + ".incomplete-") for move in moves)


def test_stop_terminates_the_running_launches(tmp_path, grid, fake_opencompass, monkeypatch):
    configs, _ = grid
    monkeypatch.setenv("FAKE_MODE", "sleep")
    (run, *_) = load_grid(configs).runs
    options = LaunchOptions(work_dir=tmp_path / "outputs", opencompass=fake_opencompass.path)
    launch = Launch(run, "start", "20250101_120000", opencompass_command(run, options, "20250101_120000"))
    launcher = Launcher(options)
    codes = []
    thread = threading.Thread(target=lambda: codes.append(launcher.execute(launch)))
    thread.start()
    pid_file = launch.run_dir / "gpassk_launch.pid"
    for _ in range(2000):
        if pid_file.exists() and fake_opencompass.launches():
            break
        threading.Event().wait(0.01)
    assert pid_file.exists()
    launcher.stop()
    thread.join(timeout=60)
    assert codes == [-signal.SIGTERM]
    assert not pid_file.exists()
    assert launcher.execute(launch) == -1  # a stopped launcher starts nothing more
    assert len(fake_opencompass.launches()) == 1


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--slurm"], "--slurm needs -p/--partition PARTITION"),
        (["-q", "spot"], "-q/--quotatype 'spot' needs --slurm"),
        (["-p", "gpu"], "-p/--partition 'gpu' needs --slurm"),
        (["--max-parallel", "0"], "--max-parallel must be at least 1, got 0"),
        (["--slurm", "-p", "gpu", "--dlc", "--aliyun-cfg", "x"], "--slurm and --dlc exclude each other"),
        (["--dlc", "--aliyun-cfg", "missing.py"], "--aliyun-cfg 'missing.py' does not exist"),
    ],
)
def test_bad_arguments_are_one_line_exit_2_before_any_launch(
    tmp_path, grid, fake_opencompass, capsys, arguments, message
):
    configs, _ = grid
    assert grid_run(configs, tmp_path / "outputs", fake_opencompass, *arguments) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert fake_opencompass.launches() == [] and not (tmp_path / "outputs").exists()


def test_missing_opencompass_executable_and_a_file_as_work_dir(tmp_path, grid, capsys):
    configs, _ = grid
    assert main(["grid", "run", str(configs), "-w", str(tmp_path / "o"), "--opencompass", "no-such-oc"]) == 2
    assert "--opencompass 'no-such-oc' is not an executable" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["grid", "status", str(configs), "-w", str(tmp_path / "file")]) == 2
    assert "is a file; expected a folder" in capsys.readouterr().err


def test_command_is_what_the_docs_say():
    options = LaunchOptions(work_dir=Path("outputs"), opencompass="opencompass", max_num_workers=4)
    run = GridRun(Path("configs/a@b.py"), "a", "b")
    assert opencompass_command(run, options, "20250101_000000") == (
        "opencompass",
        "configs/a@b.py",
        "-w",
        "outputs/a@b",
        "-r",
        "20250101_000000",
        "--max-num-workers",
        "4",
    )
    assert os.path.basename(opencompass_command(run, options, "t")[1]) == "a@b.py"


def test_docs_and_help_agree_on_exit_codes_and_the_command():
    from gpassk_opencompass.cli import exit_codes_epilog
    from gpassk_opencompass.cli.grid import RUN_CODES

    docs = (Path(__file__).resolve().parent.parent / "docs" / "grid.md").read_text()
    table = (Path(__file__).resolve().parent.parent / "docs" / "exit-codes.md").read_text()
    row = table.split("| `grid run` |", 1)[1].split("\n", 1)[0]
    for code in RUN_CODES:
        assert str(code) in row and f"\n  {code} " in exit_codes_epilog(RUN_CODES)
    assert "exit-codes.md" in docs.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    options = LaunchOptions(work_dir=Path("outputs"), opencompass="opencompass")
    command = " ".join(opencompass_command(GridRun(Path("configs/X.py"), "m", "d"), options, "<timestamp>"))
    assert command in docs


def test_the_progress_bar_is_drawn_on_a_terminal_only(tmp_path, grid, fake_opencompass, capsys):
    """`gpassk grid run ... > log 2>&1` wrote every redraw of the bar into the log (seen in the README's real run)."""
    configs, _ = grid
    assert (
        main(["grid", "run", str(configs), "-w", str(tmp_path / "outputs"), "--opencompass", fake_opencompass.path])
        == 0
    )
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "3 configs: 3 done"
    assert "grid:" not in captured.err and "\r" not in captured.err, captured.err
