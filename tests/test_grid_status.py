"""`gpassk grid run` / `gpassk grid status` end to end, and the status rules on hand-made work dirs.

The end-to-end test launches a real two-config grid (self_served template,
loopback OpenAI server): LiveMathBench-202412 has data and finishes,
LiveMathBench-202505 has none and fails inside OpenCompass (which still
exits 0).  Status must say done / failed with the log that explains it, the
exit code must be 1, and a second `grid run` must launch only the failed
config, resuming its run folder with ``-r``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from generated_configs import generate_configs, sleeping_opencompass, stand_in_grid
from gpassk_opencompass.cli import main
from gpassk_opencompass.grid import status as grid_status
from gpassk_opencompass.grid.status import GridRun, config_status
from loopback_openai import Fault
from opencompass_e2e import ScriptedModel, TinyQuestion, write_livemathbench

N, KS = 2, (1, 2)


def recording_opencompass(folder: Path) -> tuple[Path, Path]:
    """An executable standing in for ``opencompass`` that records its arguments and does nothing."""
    record = folder / "launches.txt"
    script = folder / "fake_opencompass"
    script.write_text(
        f"#!{sys.executable}\nimport shlex, sys\nopen({str(record)!r}, 'a').write(shlex.join(sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(0o755)
    return script, record


@pytest.mark.e2e
def test_grid_run_real_opencompass_done_failed_then_resume(tmp_path, offline_env, loopback_openai, capsys):
    places = [(split, language) for split in ("CNMO", "CCEE", "AMC", "WLPMC") for language in ("cn", "en")]
    questions = [
        TinyQuestion(split, language, f"{split} {language}: what is {i} + 10?", str(i + 10), {"scripted": 1 + i % 2})
        for i, (split, language) in enumerate(places)
    ]
    write_livemathbench(offline_env, questions)
    scripted = ScriptedModel(questions, N)
    server = loopback_openai(
        lambda body: scripted(body) if body.get("model") == "scripted" else Fault(status=400), model_name="scripted"
    )
    configs = tmp_path / "configs"
    good, bad = generate_configs(
        "self_served.py",
        configs,
        f"model_url={server.url}",
        "models=[{'path': 'scripted', 'batch_size': 8}, {'path': 'broken'}]",
        "benchmarks=[LiveMathBench-202412]",
        "retry=1",
        f"n={N}",
        f"k={list(KS)}",
        "greedy=False",
        "judge=rule",
        "max_out_len=64",
    )
    assert (good["model_path"], bad["model_path"]) == ("scripted", "broken")
    work = tmp_path / "outputs"

    code = main(["grid", "run", str(configs), "-w", str(work), "--max-parallel", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "2 configs: 1 done, 1 failed" in out

    code = main(["grid", "status", str(configs), "-w", str(work), "--json"])
    statuses = {Path(item["config"]).name: item for item in json.loads(capsys.readouterr().out)}
    assert code == 1
    done, failed = statuses[good["file"]], statuses[bad["file"]]
    assert done["state"] == "done", done
    result = json.loads(Path(done["result"]).read_text())
    assert result["gpassk"]["benchmark"] == "LiveMathBench-202412"
    assert Path(done["result"]).parent.parent.parent.parent == work / Path(good["file"]).stem

    assert failed["state"] == "failed", failed
    log = Path(failed["log"])
    assert log.is_file() and log.is_relative_to(work / Path(bad["file"]).stem)
    # The model's task failed (HTTP 400) while the opencompass process exited 0: the infer log says so.
    assert log.parent == Path(failed["run_dir"]) / "logs" / "infer" / bad["model_abbr"]
    assert "Calling OpenAI API failed" in log.read_text(errors="replace")
    bad_launch = next(Path(failed["run_dir"]).glob("gpassk_launch_*.log")).read_text()
    assert bad_launch.rstrip().endswith("# opencompass exited 0")
    assert failed["detail"]
    # The launch log of each config is kept in its run folder, with the command on top.
    launch_logs = sorted((work / Path(good["file"]).stem).glob("*/gpassk_launch_*.log"))
    assert len(launch_logs) == 1 and str(configs / good["file"]) in launch_logs[0].read_text().splitlines()[0]

    # The leaderboard finds the finished run under the grid's work dir.
    from gpassk_opencompass.leaderboard import collect_runs

    (identified,) = collect_runs([work], manifests=[configs / "manifest.json"]).runs
    assert (identified.benchmark, identified.n) == ("LiveMathBench-202412", N)

    # Running again skips the done config and resumes the failed one in its own run folder.
    fake, record = recording_opencompass(tmp_path)
    code = main(["grid", "run", str(configs), "-w", str(work), "--opencompass", str(fake), "--no-progress"])
    assert code == 1  # the stand-in did nothing, so the config is still failed
    (launch,) = [shlex.split(line) for line in record.read_text().splitlines()]
    failed_run_dir = Path(failed["run_dir"])
    assert launch == [str(configs / bad["file"]), "-w", str(work / Path(bad["file"]).stem), "-r", failed_run_dir.name]


# --------------------------------------------------------------------------- status on made-up dirs

RUN = GridRun(Path("configs/m@d.py"), "m_t1.0", "d_k1_n2")


def make_run(work: Path, timestamp: str = "20250101_120000") -> Path:
    run_dir = work / RUN.stem / timestamp
    (run_dir / "configs").mkdir(parents=True)
    return run_dir


def write_result(run_dir: Path, document: dict) -> Path:
    path = run_dir / "results" / RUN.model_abbr / f"{RUN.dataset_abbr}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    return path


def test_status_missing_when_never_launched(tmp_path):
    assert config_status(RUN, tmp_path).state == "missing"
    (tmp_path / RUN.stem / "not-a-timestamp").mkdir(parents=True)
    assert config_status(RUN, tmp_path).state == "missing"


@pytest.mark.parametrize(
    "document, state",
    [
        ({"accuracy": 1.0, "unresolved": 0, "gpassk": {"complete": True}}, "done"),
        ({"unresolved": 4, "gpassk": {"complete": False, "judge_stats": {"unresolved": 4}}}, "incomplete"),
        ({"accuracy": 1.0, "gpassk": {"judge_stats": {"unresolved": 0}}}, "done"),  # legacy
        ({"accuracy": 1.0, "gpassk": {"judge_stats": {"unresolved": 1}}}, "incomplete"),  # legacy, unresolved
        ({"error": "boom"}, "failed"),
    ],
)
def test_status_reads_the_results_file(tmp_path, document, state):
    path = write_result(make_run(tmp_path), document)
    status = config_status(RUN, tmp_path)
    assert (status.state, status.result) == (state, path)
    if state == "incomplete":
        assert "4 unresolved verdicts" in status.detail or "1 unresolved verdict;" in status.detail
        assert "gpassk grid run" in status.detail


def test_status_done_in_an_older_run_counts(tmp_path):
    write_result(make_run(tmp_path, "20250101_120000"), {"unresolved": 0, "gpassk": {"complete": True}})
    make_run(tmp_path, "20250102_120000")  # a later launch that produced nothing
    status = config_status(RUN, tmp_path)
    assert status.state == "done" and status.run_dir.name == "20250101_120000"


def test_failed_points_at_the_infer_log_of_the_part_without_predictions(tmp_path):
    run_dir = make_run(tmp_path)
    infer = run_dir / "logs" / "infer" / RUN.model_abbr
    infer.mkdir(parents=True)
    (infer / f"{RUN.dataset_abbr}_0.out").write_text("fine\n")
    (infer / f"{RUN.dataset_abbr}_1.out").write_text("Traceback...\nConnectionError: http://user:secret@h/v1 down\n")
    predictions = run_dir / "predictions" / RUN.model_abbr
    predictions.mkdir(parents=True)
    (predictions / f"{RUN.dataset_abbr}_0.json").write_text("{}")
    eval_log = run_dir / "logs" / "eval" / RUN.model_abbr / f"{RUN.dataset_abbr}.out"
    eval_log.parent.mkdir(parents=True)
    eval_log.write_text("FileNotFoundError: predictions\n")
    status = config_status(RUN, tmp_path)
    assert (status.state, status.log) == ("failed", infer / f"{RUN.dataset_abbr}_1.out")
    assert status.detail.startswith("ConnectionError") and "secret" not in status.detail

    (predictions / f"{RUN.dataset_abbr}_1.json").write_text("{}")  # inference finished: the eval log
    assert config_status(RUN, tmp_path).log == eval_log


def test_failed_without_task_logs_points_at_the_launch_log(tmp_path):
    run_dir = make_run(tmp_path)
    log = run_dir / "gpassk_launch_20250101_120000.log"
    log.write_text("# opencompass ...\nAssertionError: --partition(-p) must be set\n")
    status = config_status(RUN, tmp_path)
    assert (status.state, status.log) == ("failed", log)
    assert "partition" in status.detail


def test_running_while_the_launch_process_lives(tmp_path):
    run_dir = make_run(tmp_path)
    import socket

    (run_dir / grid_status.PID_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))
    assert config_status(RUN, tmp_path).state == "running"
    assert config_status(RUN, tmp_path, is_alive=lambda pid: False).state == "failed"  # a stale pid file
    (run_dir / grid_status.PID_FILE).write_text(json.dumps({"host": "elsewhere-node", "pid": 1}))
    status = config_status(RUN, tmp_path)
    assert (status.state, status.detail) == ("running", "launched by host elsewhere-node")


def test_queued_while_the_grid_run_that_will_launch_it_lives(tmp_path):
    """A config a live `gpassk grid run` has not launched yet is queued, not missing (nor failed, if resumed)."""
    import socket

    queue = tmp_path / RUN.stem / grid_status.QUEUE_FILE
    queue.parent.mkdir(parents=True)
    queue.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))
    status = config_status(RUN, tmp_path)
    assert (status.state, status.detail) == ("queued", f"queued by gpassk grid run (pid {os.getpid()})")
    assert config_status(RUN, tmp_path, is_alive=lambda pid: False).state == "missing"  # that grid run is gone
    run_dir = make_run(tmp_path)  # a failed run, to be resumed when its turn comes
    assert (config_status(RUN, tmp_path).state, config_status(RUN, tmp_path).run_dir) == ("queued", run_dir)
    assert config_status(RUN, tmp_path, is_alive=lambda pid: pid != os.getpid()).state == "failed"
    (run_dir / grid_status.PID_FILE).write_text(json.dumps({"host": "elsewhere-node", "pid": 1}))
    assert config_status(RUN, tmp_path).state == "running"  # its launch started
    (run_dir / grid_status.PID_FILE).unlink()
    queue.write_text(json.dumps({"host": "elsewhere-node", "pid": 1}))
    assert config_status(RUN, tmp_path).detail == "queued by gpassk grid run (host elsewhere-node)"


#: An ``opencompass`` that starts a child (as OpenCompass starts its tasks) and sleeps, writing nothing.
def sleeping_grid(tmp_path) -> tuple[Path, list[dict], Path]:
    """Three configs and an ``opencompass`` stand-in that sleeps and writes nothing."""
    configs = tmp_path / "configs"
    runs = stand_in_grid(configs, "AIME2025", "MATH500-L5", "LiveMathBench-202412")
    fake = sleeping_opencompass(tmp_path)
    return configs, runs, fake


def states(configs: Path, work: Path, capsys) -> dict[str, dict]:
    """`gpassk grid status --json`, by config stem."""
    main(["grid", "status", str(configs), "-w", str(work), "--json"])
    return {Path(item["config"]).stem: item for item in json.loads(capsys.readouterr().out)}


def test_the_launches_waiting_for_a_slot_are_queued(tmp_path, capsys):
    """The grid run's launcher, one launch at a time: the others are `queued` until it stops, then `missing`."""
    from gpassk_opencompass.grid.launch import Launcher, LaunchOptions, plan

    configs, runs, fake = sleeping_grid(tmp_path)
    work = tmp_path / "outputs"
    grid = grid_status.load_grid(configs)
    options = LaunchOptions(work_dir=work, opencompass=str(fake), max_parallel=1)
    launches, _ = plan(grid_status.grid_status(grid, work)[:2], options, "20250101_120000")  # the third: not asked
    launcher = Launcher(options, kill_after=5)
    thread = threading.Thread(target=lambda: launcher.run(launches, progress=False))
    thread.start()
    try:
        for _ in range(3000):
            if next(work.glob("*/*/gpassk_launch.pid"), None) is not None:
                break
            time.sleep(0.01)
        shown = states(configs, work, capsys)
        first, second, third = (Path(run["file"]).stem for run in runs)
        assert [shown[stem]["state"] for stem in (first, second, third)] == ["running", "queued", "missing"]
        assert shown[second]["detail"] == f"queued by gpassk grid run (pid {os.getpid()})"
        main(["grid", "status", str(configs), "-w", str(work)])
        lines = capsys.readouterr().out.splitlines()
        assert f"queued      {second}  (queued by gpassk grid run (pid {os.getpid()}))" in lines
        assert lines[-1] == "3 configs: 1 running, 1 queued, 1 missing"
    finally:
        launcher.stop()
        thread.join(timeout=60)
    shown = states(configs, work, capsys)
    assert [shown[stem]["state"] for stem in (first, second, third)] == ["failed", "missing", "missing"]
    assert not list(work.glob(f"*/{grid_status.QUEUE_FILE}"))


@pytest.mark.e2e  # a real `gpassk grid run` (preflight imports OpenCompass), stopped by a signal
def test_a_real_grid_run_queues_what_it_has_not_launched(tmp_path, compass_cache, capsys):
    from test_grid_signals import start_grid_run, stop_and_check
    from tiny_data import write_grid_data

    write_grid_data(compass_cache)
    configs, _, fake = sleeping_grid(tmp_path)
    work = tmp_path / "outputs"
    process = start_grid_run(configs, work, "--opencompass", str(fake), "--max-parallel", "2")
    try:
        for _ in range(3000):
            if len(list(work.glob("*/*/gpassk_launch.pid"))) == 2:
                break
            time.sleep(0.1)
        shown = sorted((item["state"], item["detail"]) for item in states(configs, work, capsys).values())
        assert [state for state, _ in shown] == ["queued", "running", "running"]
        assert shown[0][1] == f"queued by gpassk grid run (pid {process.pid})"
        # a second grid run leaves it to the first: it launches nothing
        assert main(["grid", "run", str(configs), "-w", str(work), "--opencompass", str(fake), "--dry-run"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert sorted(line.split()[2] for line in lines if line.startswith("# skip")) == [
            "(queued)",
            "(running)",
            "(running)",
        ]
        assert lines[-1] == "# dry run: 0 launch(es), 3 skipped; 3 configs: 2 running, 1 queued"
        stop_and_check(process, work, signal.SIGTERM)
    finally:
        if process.poll() is None:
            process.kill()
    assert sorted(item["state"] for item in states(configs, work, capsys).values()) == ["failed", "failed", "missing"]


#: What a real OpenCompass 0.5.4 run had written while inferring and while evaluating (tests/data/opencompass/PROVENANCE.md).
RUNNING = Path(__file__).parent / "data" / "opencompass" / "running"
OBSERVED = GridRun(Path("configs/strong@tiny.py"), "strong_t0-7", "tiny_rule")


def running_config(work: Path, moment: str) -> Path:
    """The captured run folder of ``moment`` as a config's latest run, its launch alive (this process)."""
    import socket

    run_dir = work / OBSERVED.stem / "20261127_105447"
    shutil.copytree(RUNNING / moment, run_dir)
    (run_dir / grid_status.PID_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))
    return run_dir


def saved_answers(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_a_running_config_says_how_far_it_has_got(tmp_path, capsys):
    """`gpassk grid status` on what a real run had written: batches inferred, answers saved, then the judge's bar."""
    configs, work = tmp_path / "configs", tmp_path / "outputs"
    configs.mkdir()
    (configs / "strong@tiny.py").write_text("# a generated config\n")
    (configs / "manifest.json").write_text(
        json.dumps({"runs": [{"file": "strong@tiny.py", "model_abbr": "strong_t0-7", "dataset_abbr": "tiny_rule"}]})
    )
    run_dir = running_config(work, "inferring")
    saved = saved_answers(run_dir / "predictions" / "strong_t0-7" / "tmp_tiny_rule.jsonl")
    assert saved == 32
    assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    # the infer task's last bar in its log reads "4/8 [00:02<00:02"
    assert line == (
        f"running     strong@tiny  (launched by pid {os.getpid()}; inferring: 4 of 8 batches, {saved} answers saved, "
        "~00:02 left)"
    )
    assert main(["grid", "status", str(configs), "-w", str(work), "--json"]) == 1
    (shown,) = json.loads(capsys.readouterr().out)
    assert shown["progress"] == {
        "stage": "inferring",
        "bar": {"desc": "", "done": 4, "total": 8, "left": "00:02", "unit": "it"},
        "saved": saved,
    }
    shutil.rmtree(run_dir)
    running_config(work, "evaluating")
    assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
    # GPassKEvaluator's bar over the 13 distinct answers, at its start
    assert capsys.readouterr().out.splitlines()[0].endswith("; evaluating: rule judge 0 of 13 answers)")


def test_the_batches_of_every_part_are_summed(tmp_path):
    """A partitioned run: part 0 inferred (its log's bar at 8/8, its predictions written), part 1 at 4/8."""
    run_dir = running_config(tmp_path, "inferring")
    infer, predictions = run_dir / "logs" / "infer" / "strong_t0-7", run_dir / "predictions" / "strong_t0-7"
    (infer / "tiny_rule.out").rename(infer / "tiny_rule_1.out")
    (predictions / "tmp_tiny_rule.jsonl").rename(predictions / "tmp_tiny_rule_1.jsonl")
    finished = RUNNING / "evaluating"
    shutil.copy(finished / "logs" / "infer" / "strong_t0-7" / "tiny_rule.out", infer / "tiny_rule_0.out")
    shutil.copy(finished / "predictions" / "strong_t0-7" / "tiny_rule.json", predictions / "tiny_rule_0.json")
    progress = config_status(OBSERVED, tmp_path).progress
    assert progress is not None and progress.stage == "inferring"
    assert (progress.bar.done, progress.bar.total, progress.bar.left) == (12, 16, "00:02")
    assert progress.saved == saved_answers(predictions / "tmp_tiny_rule_1.jsonl")


def test_a_launch_before_any_task_log_is_starting(tmp_path):
    run_dir = make_run(tmp_path)
    (run_dir / grid_status.PID_FILE).write_text(json.dumps({"host": "elsewhere-node", "pid": 1}))
    assert config_status(RUN, tmp_path).progress == grid_status.Progress("starting")


def test_status_cli_lines_and_exit_codes(tmp_path, capsys):
    configs = tmp_path / "configs"
    runs = stand_in_grid(configs, "AIME2025", "MATH500-L5")
    work = tmp_path / "outputs"
    assert main(["grid", "status", str(configs), "-w", str(work)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "2 configs: 2 missing"

    for run, unresolved in zip(runs, (0, 2)):
        path = work / Path(run["file"]).stem / "20250101_120000" / "results" / run["model_abbr"]
        path.mkdir(parents=True)
        (path / f"{run['dataset_abbr']}.json").write_text(
            json.dumps({"unresolved": unresolved, "gpassk": {"complete": unresolved == 0}})
        )
    assert main(["grid", "status", str(configs / "manifest.json"), "-w", str(work)]) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "2 configs: 1 done, 1 incomplete"
    assert lines[0].startswith(f"incomplete  {Path(runs[1]['file']).stem}") and "2 unresolved verdicts" in lines[0]
    assert main(["grid", "status", str(configs), "-w", str(work), "--all"]) == 3
    assert capsys.readouterr().out.splitlines()[0] == f"done        {Path(runs[0]['file']).stem}"


@pytest.mark.parametrize(
    "target, message",
    [
        ("nowhere", "'{tmp}/nowhere' does not exist; expected a config folder or its manifest.json"),
        ("empty", "'{tmp}/empty' has no manifest.json"),
    ],
)
def test_status_bad_target_is_one_line_exit_2(tmp_path, capsys, target, message):
    (tmp_path / "empty").mkdir()
    assert main(["grid", "status", str(tmp_path / target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(tmp=tmp_path) in err


def test_manifest_listing_a_config_that_is_gone(tmp_path, capsys):
    configs = tmp_path / "configs"
    (run,) = generate_configs("self_served.py", configs, "benchmarks=[AIME2025]", "greedy=False", "n=2", "k=[1]")
    (configs / run["file"]).unlink()
    assert main(["grid", "status", str(configs), "-w", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert f"lists {run['file']} but" in err and "regenerate" in err


TRACEBACK = """\
03/02 10:11:09 - OpenCompass - INFO - Task [m_t1.0/d_k1_n2]
Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/opencompass/tasks/openicl_infer.py", line 161, in <module>
    inferencer.run()
FileNotFoundError: [Errno 2] No such file or directory: '/data/oc/data/aime2025/aime2025.jsonl'
"""
# What srun and slurmstepd (Slurm 22.05.8, Debian's slurm-wlm) wrote into task logs of a real one-node
# cluster when the task exited non-zero, was terminated, or could not be placed.
EXITED = "srun: error: vm: task 0: Exited with exit code 1\n"
STEP_SIGNAL = "srun: launch/slurm: _step_signal: Terminating StepId=48213.0\n"
ABORTED = "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
TERMINATED = (
    "srun: forcing job termination\n"
    + ABORTED
    + "slurmstepd-vm: error: *** STEP 8.0 ON vm CANCELLED AT 2026-11-23T15:42:16 ***\n"
    + "srun: error: vm: task 0: Killed\n"
)
TIME_LIMIT = (
    "slurmstepd: error: *** STEP 48213.0 ON gpu-node-07 CANCELLED AT 2025-03-02T10:11:12 DUE TO TIME LIMIT ***\n"
)
GRES = "srun: error: Invalid generic resource (gres) specification\n"


@pytest.mark.parametrize(
    "log, shown",
    [
        (
            TRACEBACK + EXITED,
            "FileNotFoundError: [Errno 2] No such file or directory: '/data/oc/data/aime2025/aime2025.jsonl'",
        ),
        (TRACEBACK + STEP_SIGNAL + ABORTED + EXITED, "FileNotFoundError: [Errno 2]"),
        (GRES, GRES.strip()),
        ("03/02 10:11:09 - OpenCompass - INFO - Task\n" + ABORTED + TIME_LIMIT + EXITED, TIME_LIMIT.strip()),
        ("OpenCompass - INFO - Task\n" + TERMINATED, "slurmstepd-vm: error: *** STEP 8.0 ON vm CANCELLED AT"),
        (EXITED, EXITED.strip()),  # nothing else to show
    ],
    ids=["traceback", "traceback-and-abort", "gres", "time-limit", "terminated", "trailer-only"],
)
def test_failed_detail_is_the_reason_not_the_srun_trailer(tmp_path, log, shown):
    run_dir = make_run(tmp_path)
    infer = run_dir / "logs" / "infer" / RUN.model_abbr / f"{RUN.dataset_abbr}.out"
    infer.parent.mkdir(parents=True)
    infer.write_text(log)
    status = config_status(RUN, tmp_path)
    assert (status.state, status.log) == ("failed", infer)
    assert status.detail.startswith(shown), status.detail
