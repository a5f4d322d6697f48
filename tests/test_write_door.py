"""One door for writing: outputs and caches only ever replace a regular file or create a new one, and a write
the disk refuses is one line with exit code 5, leaving nothing partial.

As root (the usual case in GPU containers) ``gpassk score … --output /dev/null`` turned ``/dev/null`` into a
regular file holding the results, exit 0; ``--output /dev/stdout`` (also ``gpassk leaderboard -o /dev/stdout``)
replaced the ``/dev/stdout`` symlink, a FIFO was replaced for any user, ``--cache FIFO`` hung the command, and a
full disk was a traceback. Each case runs the real ``gpassk`` (a subprocess where a device, a descriptor or a
resource limit is involved, with a timeout so a hang fails the test). Repeated ``--k``/``--thresholds`` add up.
"""

from __future__ import annotations

import json
import os
import pathlib
import resource
import shutil
import stat
import subprocess
import sys
import threading

import pytest

from gpassk_opencompass.cli import EXIT_OK, EXIT_USAGE, EXIT_WRITE_FAILED, main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files.writing import write_chunks_atomic
from gpassk_opencompass.judges.cache import VerdictCache
from leaderboard_workdirs import standard_grid, write_manifest, write_run
from scoring_fixtures import COUNTS, generations, write_jsonl

ROOT = os.geteuid() == 0
REFUSED = "not a regular file; only a regular file is ever written (or a new one created): give the path of a file"
TIMEOUT = 120  # seconds: far above a refusal (a second or two); a hang fails the test instead of blocking it


def gpassk(*args, cwd=None, limit_file_size=None, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """The real ``gpassk`` in a subprocess (this worktree's package: PYTHONPATH is inherited)."""

    def limits() -> None:  # Python ignores SIGXFSZ, so a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    return subprocess.run(
        [sys.executable, "-m", "gpassk_opencompass.cli", *map(str, args)],
        cwd=cwd,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=limits if limit_file_size is not None else None,
    )


def one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def bounded(call):
    """``call()`` in a daemon thread: what it returns or raises, or a failed test if it hangs (a FIFO opened)."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except Exception as error:  # noqa: BLE001 - handed to the test, which raises it again
            outcome.append((False, error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert outcome, f"hung for {TIMEOUT} s"
    returned, value = outcome[0]
    if not returned:
        raise value
    return value


def leftovers(folder: pathlib.Path) -> list[str]:
    """Temporary files the atomic writer left behind (``.NAME.XXXX.tmp``)."""
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


@pytest.fixture
def gens(tmp_path):
    return write_jsonl(tmp_path / "gens.jsonl", generations(COUNTS))


@pytest.fixture
def dev_null_guard():
    """If a regression turns /dev/null into a file, put the device back (root) and fail, rather than break the
    machine for everything else that runs on it."""
    yield
    if not stat.S_ISCHR(os.lstat("/dev/null").st_mode):
        os.unlink("/dev/null")
        os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.chmod("/dev/null", 0o666)
        pytest.fail("/dev/null was replaced by a file (restored)")


@pytest.mark.e2e
@pytest.mark.skipif(not ROOT, reason="only root can replace /dev/null: the case this guards against")
def test_score_output_dev_null_is_refused_and_stays_a_device(gens, dev_null_guard):
    done = gpassk("score", gens, "--k", "2", "--output", "/dev/null", "--quiet")
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert f"--output /dev/null is a character device, {REFUSED}" in one_line(done.stderr)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def special_files(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    """A FIFO, a character device (root only: mknod) and a symlink to the FIFO, made in ``folder``."""
    made = {"FIFO": folder / "out.fifo"}
    os.mkfifo(made["FIFO"])
    (folder / "link.json").symlink_to(made["FIFO"])
    made["a symlink to a FIFO"] = folder / "link.json"
    if ROOT:
        made["character device"] = folder / "null.dev"
        os.mknod(made["character device"], 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return made


def file_kind_of(path: pathlib.Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["FIFO", "a symlink to a FIFO", "character device"])
def test_score_output_that_is_not_a_regular_file_is_refused_before_any_work(tmp_path, gens, kind):
    made = special_files(tmp_path)
    if kind not in made:
        pytest.skip("mknod of a character device needs root")
    output = made[kind]
    before = file_kind_of(output)
    done = gpassk("score", gens, "--k", "2", "--output", output, "--quiet")
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert f"--output {output}" in one_line(done.stderr) and REFUSED in done.stderr
    assert file_kind_of(output) == before and file_kind_of(made["FIFO"]) == stat.S_IFIFO
    assert leftovers(tmp_path) == []


@pytest.mark.e2e
def test_score_output_dev_stdout_is_refused_and_stays_a_link(gens):
    done = gpassk("score", gens, "--k", "2", "--output", "/dev/stdout", "--quiet")
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert "--output /dev/stdout is a process's open file descriptor" in one_line(done.stderr)
    assert os.path.islink("/dev/stdout")


@pytest.mark.e2e
def test_score_output_dev_stdout_redirected_to_a_file_is_refused_and_the_file_kept(tmp_path, gens):
    """Writing through the descriptor would replace the file the shell opened (``> out.txt``) behind its back."""
    redirected = tmp_path / "out.txt"
    with open(redirected, "w") as stdout:
        done = gpassk("score", gens, "--k", "2", "--output", "/dev/stdout", "--quiet", stdout=stdout)
    assert done.returncode == EXIT_USAGE and "open file descriptor" in one_line(done.stderr)
    assert redirected.read_text() == ""


@pytest.fixture
def outputs(tmp_path):
    specs = standard_grid()[:4]
    run_dir = write_run(tmp_path / "outputs", "20250213_101500", specs)
    write_manifest(run_dir.parent, specs)
    return run_dir.parent


@pytest.mark.e2e
def test_leaderboard_output_dev_stdout_is_refused_and_stays_a_link(outputs):
    done = gpassk("leaderboard", outputs, "-o", "/dev/stdout", "--format", "md")
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert "--output /dev/stdout is a process's open file descriptor" in one_line(done.stderr)
    assert os.path.islink("/dev/stdout")


@pytest.mark.e2e
def test_leaderboard_output_fifo_is_refused_without_hanging(tmp_path, outputs):
    fifo = tmp_path / "board.md"
    os.mkfifo(fifo)
    done = gpassk("leaderboard", outputs, "-o", fifo)
    assert done.returncode == EXIT_USAGE
    assert f"--output {fifo} is a FIFO (named pipe), {REFUSED}" in one_line(done.stderr)
    assert file_kind_of(fifo) == stat.S_IFIFO


def test_leaderboard_plots_that_is_a_file_is_refused_before_any_work(tmp_path, capsys, outputs):
    plots = tmp_path / "plots"
    plots.write_text("not a folder\n")
    assert main(["leaderboard", str(outputs), "--plots", str(plots)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert f"--plots {plots} is a regular file, not a folder" in one_line(captured.err)
    assert captured.out == "" and plots.read_text() == "not a folder\n"


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["plan", "agree", "compare"])
def test_report_outputs_that_are_fifos_are_refused(tmp_path, gens, command):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["score", str(gens), "--k", "2", "--output", str(first), "--quiet"]) == EXIT_OK
    shutil.copy(first, second)
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    inputs = [first, "--n", "16"] if command == "plan" else [first, second]
    done = gpassk(command, *inputs, "--json", fifo)
    assert done.returncode == EXIT_USAGE
    assert f"--json {fifo} is a FIFO (named pipe), {REFUSED}" in one_line(done.stderr)
    assert file_kind_of(fifo) == stat.S_IFIFO


@pytest.mark.e2e
def test_score_cache_fifo_is_refused_without_hanging_and_no_judge_is_asked(tmp_path, gens, loopback_openai):
    from loopback_judge import exact_match_judge

    server = loopback_openai(exact_match_judge)
    fifo = tmp_path / "verdicts.jsonl"
    os.mkfifo(fifo)
    done = gpassk(
        "score", gens, "--k", "2", "--judge", "llm", "--judge-url", server.url, "--judge-model", "loopback-model",
        "--cache", fifo, "--quiet",
    )  # fmt: skip
    assert done.returncode == EXIT_USAGE and server.requests == []
    assert f"the verdict cache {fifo} is a FIFO (named pipe), not a regular file" in one_line(done.stderr)
    assert "choose another place with --cache PATH" in done.stderr
    assert file_kind_of(fifo) == stat.S_IFIFO


@pytest.fixture
def data_env(tiny_opencompass_run, monkeypatch):
    """A real OpenCompass run whose dataset loads as it did for the run (as tests/test_rejudge.py)."""
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tiny_opencompass_run.data_root))
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    return tiny_opencompass_run


@pytest.mark.e2e
def test_rejudge_refuses_an_output_that_is_a_file_or_holds_a_fifo_for_results(data_env, tmp_path):
    predictions = data_env.run_dir / "predictions" / "weak_t0-7"
    a_file = tmp_path / "rejudged.txt"
    a_file.write_text("mine\n")
    done = gpassk("rejudge", predictions, "--judge", "rule", "--output", a_file, "--quiet")
    assert done.returncode == EXIT_USAGE
    assert f"--output {a_file} is a regular file, not a folder" in one_line(done.stderr)
    assert a_file.read_text() == "mine\n"
    output = tmp_path / "rejudged"
    fifo = output / "results" / "weak_t0-7" / "tiny_rule.json"  # where OpenCompass opens its results to write
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    done = gpassk("rejudge", predictions, "--judge", "rule", "--output", output, "--quiet")
    assert done.returncode == EXIT_USAGE
    assert f"--output {fifo} is a FIFO (named pipe), {REFUSED}" in one_line(done.stderr)
    assert file_kind_of(fifo) == stat.S_IFIFO and not (output / "predictions").exists()


def test_the_config_generator_with_force_writes_nothing_when_a_planned_file_is_a_fifo(tmp_path, capsys):
    """save_opencompass_configs.py --force replaces its own configs, never a FIFO in their place (checked before
    the first file is written, so the grid is never left half old, half new)."""
    from test_save_configs import REPO, contents, generate

    template = str(REPO / "opencompass_config_templates" / "self_served.py")
    out = tmp_path / "out"
    assert generate(tmp_path, "-tc", template) == 0
    before = {name: data for name, data in contents(out).items() if name != "manifest.json"}
    fifo = out / "manifest.json"
    fifo.unlink()
    os.mkfifo(fifo)
    capsys.readouterr()
    assert bounded(lambda: generate(tmp_path, "-tc", template, "--set", "n=16", "--force")) == EXIT_USAGE
    assert f"{fifo} is a FIFO (named pipe), {REFUSED}" in one_line(capsys.readouterr().err)
    assert file_kind_of(fifo) == stat.S_IFIFO
    assert {name: (out / name).read_bytes() for name in before} == before and leftovers(out) == []


def test_the_verdict_cache_checks_the_file_it_opened(tmp_path, monkeypatch):
    """A FIFO put in the cache's place after the check is refused on the open descriptor (O_NONBLOCK: no hang)."""
    import gpassk_opencompass.judges.cache as cache_module

    fifo = tmp_path / "verdicts.jsonl"
    os.mkfifo(fifo)
    monkeypatch.setattr(cache_module, "check_cache_file", lambda path: None)  # as if it changed after the check
    with pytest.raises(InputError, match="is a FIFO"):
        bounded(lambda: VerdictCache(fifo).close())
    assert file_kind_of(fifo) == stat.S_IFIFO


def test_the_writer_looks_again_right_before_it_replaces(tmp_path):
    """The destination may change between a command's check and its write: a FIFO made meanwhile is not replaced."""
    path = tmp_path / "scores.json"

    def chunks():
        yield "{"
        os.mkfifo(path)  # appears while the document is being written
        yield "}\n"

    with pytest.raises(InputError, match="is a FIFO"):
        write_chunks_atomic(path, chunks())
    assert file_kind_of(path) == stat.S_IFIFO and leftovers(tmp_path) == []


def test_a_symlink_to_a_regular_file_is_written_through_and_stays_a_link(tmp_path, gens, capsys):
    target = tmp_path / "run3.json"
    target.write_text("{}\n")
    link = tmp_path / "latest.json"
    link.symlink_to(target.name)
    assert main(["score", str(gens), "--k", "2", "--output", str(link), "--quiet"]) == EXIT_OK
    assert link.is_symlink() and os.readlink(link) == target.name
    assert json.loads(target.read_text())["gpassk"]["n"] == 8
    assert leftovers(tmp_path) == []


@pytest.mark.e2e
def test_a_file_too_large_is_one_line_exit_5_and_the_old_file_intact(tmp_path, gens):
    output = tmp_path / "scores.json"
    output.write_text('{"old": true}\n')
    done = gpassk("score", gens, "--k", "2", "--output", output, "--quiet", limit_file_size=2048)
    assert done.returncode == EXIT_WRITE_FAILED and done.stdout == ""
    line = one_line(done.stderr)
    assert f"{output}: cannot write (File too large)" in line and "ulimit -f" in line
    assert output.read_text() == '{"old": true}\n' and leftovers(tmp_path) == []


@pytest.mark.e2e
def test_a_verdict_cache_the_disk_refuses_is_one_line_exit_5_and_keeps_what_was_written(
    tmp_path, gens, loopback_openai
):
    from loopback_judge import exact_match_judge

    server = loopback_openai(exact_match_judge)
    cache = tmp_path / "verdicts.jsonl"
    judge = ["--judge", "llm", "--judge-url", server.url, "--judge-model", "loopback-model", "--cache", cache]
    done = gpassk("score", gens, "--k", "2", *judge, "--quiet", limit_file_size=1500)
    assert done.returncode == EXIT_WRITE_FAILED and done.stdout == ""
    line = one_line(done.stderr)
    assert f"{cache}: cannot write (File too large); the verdicts written before it are kept" in line
    kept = len(verdict_keys(cache))
    asked = len(server.requests)
    again = gpassk("score", gens, "--k", "2", *judge, "--quiet")  # no limit: resumes from what was kept
    assert again.returncode == EXIT_OK and kept > 0
    assert len(server.requests) - asked == len(verdict_keys(cache)) - kept  # only the verdicts not kept are asked


def verdict_keys(cache: pathlib.Path) -> set[str]:
    """The keys of the whole verdict lines in a cache file (a torn last line is not one)."""
    keys = set()
    for line in cache.read_bytes().split(b"\n"):
        try:
            keys.add(json.loads(line)["key"])
        except ValueError:
            continue
    return keys


@pytest.fixture
def full_disk(tmp_path):
    """A 64 kB tmpfs holding an old ``scores.json``, filled to the last block (root with mount permission only)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or not ROOT:
        pytest.skip("mounting a tmpfs needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        (mount / "scores.json").write_text('{"old": true}\n')
        with open(mount / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:  # full
                pass
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.e2e
def test_a_full_disk_is_one_line_exit_5_and_the_old_file_intact(full_disk, gens):
    output = full_disk / "scores.json"
    done = gpassk("score", gens, "--k", "2", "--output", output, "--quiet")
    assert done.returncode == EXIT_WRITE_FAILED and done.stdout == ""
    assert f"{output}: cannot write (No space left on device)" in one_line(done.stderr)
    assert output.read_text() == '{"old": true}\n' and leftovers(full_disk) == []


def test_repeated_k_and_thresholds_add_up(gens, tmp_path, capsys):
    output = tmp_path / "scores.json"
    argv = ["score", str(gens), "--k", "2", "--k", "4", "--thresholds", "0.5", "--thresholds", "1", "--quiet"]
    assert main([*argv, "--output", str(output)]) == EXIT_OK
    metrics = json.loads(output.read_text())["gpassk"]
    assert metrics["k"] == [2, 4] and metrics["thresholds"] == [0.5, 1.0]
    capsys.readouterr()
    assert (
        main(["calc", "--n", "8", "--c", "4", "--k", "2", "--k", "4", "--thresholds", "0.5", "--thresholds", "1"]) == 0
    )
    table = capsys.readouterr().out
    assert "k=2" in table and "k=4" in table and "G-Pass@k_0.5" in table and "G-Pass@k_1.0" in table


def test_repeating_a_value_is_refused_in_one_line(gens, capsys):
    assert main(["score", str(gens), "--k", "2", "--k", "2", "--quiet"]) == EXIT_USAGE
    assert "--k repeat --k 2; give each --k once" in one_line(capsys.readouterr().err)


def test_the_leaderboard_k_given_twice_is_refused(outputs, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["leaderboard", str(outputs), "--k", "8", "--k", "16"])
    assert exit.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "argument --k: given twice (8, then 16); it takes one value: give it once" in err


@pytest.mark.parametrize(
    "command, argv",
    [
        ("score", ["gens.jsonl", "--k", "1"]),
        ("rejudge", ["outputs/run"]),
        ("calc", ["--n", "8", "--c", "4", "--k", "1"]),
        ("plan", ["pilot.json", "--n", "16"]),
        ("leaderboard", ["outputs"]),
    ],
)
def test_every_command_adds_up_repeated_thresholds(command, argv):
    """One definition (``cli.add_thresholds_option``, ``cli.add_k_option``) for every command."""
    from gpassk_opencompass.cli import build_parser

    parser = build_parser([command])
    args = parser.parse_args([command, *argv, "--thresholds", "0.25", "--thresholds", "0.5", "0.75"])
    assert args.thresholds == [0.25, 0.5, 0.75]
    if command != "leaderboard":  # after a required --k 1 it adds up too
        given = [1] if "--k" in argv else []
        assert parser.parse_args([command, *argv, "--k", "2", "--k", "4", "8"]).k == [*given, 2, 4, 8]


def test_the_other_list_options_add_up_too():
    from gpassk_opencompass.cli import build_parser

    plan = build_parser(["plan"]).parse_args(["plan", "p.json", "--n", "16", "--n", "32", "--questions", "30"])
    assert plan.n == [16, 32] and plan.questions == [30]
    board = build_parser(["leaderboard"]).parse_args(
        ["leaderboard", "o", "--benchmarks", "AIME2025", "--benchmarks", "HMMT"]
    )
    assert board.benchmarks == ["AIME2025", "HMMT"]
