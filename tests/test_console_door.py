"""The console door: no text from an input reaches a terminal with a character the terminal would act on.

Three layers: the door itself (``console.inert``) against an independent definition of what a terminal acts on
(Unicode's categories, not the door's own table), on a table of real attack sequences and on any text
(hypothesis); a walk over the package's source proving no writer to the console goes around it; and the real
``gpassk`` on a pseudo-terminal (``pty.openpty``) for ``grid status``, ``leaderboard``, ``score`` errors and
``score`` progress, whose inputs carry an OSC title, ``ESC c`` (a terminal reset), CSI, C1 and bidi controls.
"""

from __future__ import annotations

import ast
import fcntl
import io
import json
import os
import pty
import select
import shutil
import socket
import struct
import subprocess
import sys
import termios
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpassk_opencompass.console import ConsoleStream, console_streams, inert, progress, without_sequences
from scoring_fixtures import write_jsonl

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gpassk_opencompass"
RUNNING = Path(__file__).parent / "data" / "opencompass" / "running"

#: An OSC window title (BEL-ended) and a full reset, a CSI clear, C1 CSI and OSC (ST-ended), the bidi override
#: and isolates, a backspace, DEL and a carriage return: each would be obeyed by a terminal.
HOSTILE = "\x1b]0;pwned\x07\x1bc\x1b[2J\x9b31m\x9d2;t\x9c\u202eevil\u2066x\u2069\u200f\x08\x7f\r!"
#: The bidirectional formatting characters a terminal (or the eye) reorders text by (Unicode's Bidi_Control
#: property, minus the Arabic letter mark's neighbours none of which are controls).
BIDI = {chr(code) for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def acted_on(text: str, newline: str = "\n\t") -> set[str]:
    """The characters of ``text`` a terminal would act on rather than show: controls (Unicode's ``Cc``) but
    ``newline``, bidi controls, lone surrogates (``Cs``). Independent of the door's own table."""
    return {
        char
        for char in text
        if (unicodedata.category(char) == "Cc" and char not in newline)
        or char in BIDI
        or unicodedata.category(char) == "Cs"
    }


# ------------------------------------------------------------------------------ the door itself

ATTACKS = {
    "OSC title, BEL": "\x1b]0;owned\x07",
    "OSC hyperlink, ST": "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
    "RIS reset": "\x1bc",
    "CSI clear and home": "\x1b[2J\x1b[H",
    "CSI colour": "\x1b[31;1mred\x1b[0m",
    "DCS": "\x1bPq#0;2;0;0;0\x1b\\",
    "SOS PM APC": "\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\",
    "two-byte ESC": "\x1b7\x1b8\x1b(0\x1bM",
    "C1 CSI and OSC": "\x9b2J\x9d0;t\x9c\x90q\x9c",
    "NEL and RI": "a\x85b\x8dc",
    "bidi override": "abc\u202edcba\u202c",
    "bidi isolates": "\u2066x\u2067y\u2068z\u2069",
    "bidi marks": "\u200e\u200f\u061c",
    "line rewrite": "safe\rEVIL",
    "backspace, bell, DEL, NUL": "x\x08\x07\x7f\x00",
    "lone surrogate": "a\ud800b",
}


@pytest.mark.parametrize("text", ATTACKS.values(), ids=ATTACKS.keys())
def test_every_kind_of_sequence_comes_out_as_visible_escapes(text):
    shown = inert(text)
    assert not acted_on(shown)
    assert all(f"\\u{ord(char):04x}" in shown for char in acted_on(text))  # shown, not dropped
    assert inert(shown) == shown
    shown.encode("utf-8")  # printable on a UTF-8 terminal (a lone surrogate would raise)


@given(st.text(alphabet=st.characters(codec=None, blacklist_categories=())))
def test_any_text_is_inert_after_the_door_and_nothing_else_changes(text):
    shown = inert(text)
    assert not acted_on(shown)
    assert inert(shown) == shown
    if not acted_on(text):
        assert shown == text  # text with nothing to escape is left alone, every language included


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=8))
def test_a_json_document_through_the_door_still_means_the_same(document):
    for ensure_ascii in (False, True):
        text = json.dumps(document, ensure_ascii=ensure_ascii)
        assert json.loads(inert(text)) == document


def test_tab_newline_and_every_language_are_kept():
    text = "模型\tname\nمرحبا עברית ñ — 😀"
    assert inert(text) == text


def test_a_log_reads_without_its_sequences():
    """What grid status reads from OpenCompass's logs: tqdm's cursor moves and any colour gone before parsing."""
    assert (
        without_sequences("\x1b[A\x1b[2K\x1b]0;t\x07\x1b]8;;u\x1b\\rule judge\x1b[0m: 50%\x9b1m") == "rule judge: 50%"
    )


def test_the_console_streams_pass_every_write_through_the_door(capsys):
    with console_streams():
        assert isinstance(sys.stdout, ConsoleStream) and isinstance(sys.stderr, ConsoleStream)
        print(HOSTILE)
        print(HOSTILE, file=sys.stderr)
        sys.stdout.writelines([HOSTILE, "\n"])
    assert not isinstance(sys.stdout, ConsoleStream)
    out, err = capsys.readouterr()
    assert out == f"{inert(HOSTILE)}\n" * 2 and err == f"{inert(HOSTILE)}\n"


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_bar_draws_its_description_and_postfix_inert_and_only_on_a_terminal(monkeypatch):
    """However the description and postfix are set, the bar draws them inert on a terminal; elsewhere nothing."""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", ConsoleStream(terminal))  # as under gpassk: the bar draws on the raw stream
    bar = progress(total=2, desc=HOSTILE, mininterval=0)
    bar.update(1)
    bar.set_description(HOSTILE + "again")
    bar.set_postfix_str(HOSTILE + "postfix")
    bar.update(1)
    bar.close()
    drawn = terminal.getvalue()
    assert "\r" in drawn and "2/2" in drawn  # drawn, with its own redraws
    assert not acted_on(drawn.replace("\r", "")), drawn
    assert "\\u001b]0;pwned" in drawn and "again" in drawn and "postfix" in drawn
    redirected = io.StringIO()
    monkeypatch.setattr(sys, "stderr", redirected)
    for _ in progress(range(3), desc="rule judge"):
        pass
    assert redirected.getvalue() == ""  # `2> log`: no frames


# ------------------------------------------------------------------------------ nothing goes around it

#: Where the package may write to the console itself: the CLI (run inside ``console_streams`` by ``main``) and
#: the door.
CONSOLE_WRITERS = ("cli/", "console.py")
#: Attributes of ``sys`` that reach the process's streams around ``sys.stdout`` / ``sys.stderr``.
AROUND = {"__stdout__", "__stderr__", "__displayhook__"}


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return "?"


def _is_inert_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "inert"


def test_no_writer_to_the_console_goes_around_the_door():
    """Every way the package's source writes to a terminal, walked with ``ast``: ``print`` and ``.write`` on a
    standard stream only in the CLI (wrapped by ``main``) or with the text passed through ``inert``; no
    ``sys.__stdout__``, no ``.buffer`` of a standard stream, no ``os.write`` to fd 1 or 2, no ``/dev/tty``; tqdm
    only in the door (its bar factory); a loguru sink only in the CLI, writing through the door."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        at_console = where.startswith(CONSOLE_WRITERS)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _dotted(node.value) == "sys" and node.attr in AROUND:
                wrong.append(f"{where}:{node.lineno}: sys.{node.attr} goes around the console door")
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "buffer"
                and _dotted(node.value)
                in (
                    "sys.stdout",
                    "sys.stderr",
                )
            ):
                wrong.append(f"{where}:{node.lineno}: {_dotted(node)} writes bytes around the door")
            if isinstance(node, ast.Constant) and node.value == "/dev/tty":
                wrong.append(f"{where}:{node.lineno}: /dev/tty")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] + (
                    [node.module] if isinstance(node, ast.ImportFrom) else []
                )
                if any(name and name.split(".")[0] == "tqdm" for name in names) and where != "console.py":
                    wrong.append(f"{where}:{node.lineno}: tqdm outside console.progress")
        for call in _calls(tree):
            name = _dotted(call.func)
            if name == "print" and not at_console:
                wrong.append(f"{where}:{call.lineno}: print outside the CLI")
            if name == "print":
                target = next((keyword.value for keyword in call.keywords if keyword.arg == "file"), None)
                if target is not None and _dotted(target) != "sys.stderr":
                    wrong.append(f"{where}:{call.lineno}: print to {_dotted(target)}")
            receiver = name.rpartition(".")[0]
            to_console = name.endswith((".write", ".writelines")) and receiver.split(".")[-1] in ("stdout", "stderr")
            if to_console and not at_console and not (call.args and _is_inert_call(call.args[0])):
                wrong.append(f"{where}:{call.lineno}: {name} without inert() outside the CLI")
            if (
                name == "os.write"
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and call.args[0].value in (1, 2)
            ):
                wrong.append(f"{where}:{call.lineno}: os.write to a standard stream")
            if name.endswith("logger.add") and where != "cli/__init__.py":
                wrong.append(f"{where}:{call.lineno}: a log sink outside the CLI")
    assert not wrong, "\n".join(wrong)


def test_the_cli_log_sink_and_main_go_through_the_door():
    """The one sink writes with ``write_above_bars`` (inert); ``main`` runs every command inside ``console_streams``."""
    tree = ast.parse((PACKAGE / "cli" / "__init__.py").read_text(encoding="utf-8"))
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    sink = functions["configure_logging"]
    assert {_dotted(call.func) for call in _calls(sink)} >= {"write_above_bars", "logger.add"}
    assert "console_streams" in {_dotted(call.func) for call in _calls(functions["main"])}


def test_a_bug_traceback_goes_through_the_door(tmp_path):
    """The real ``main`` in a process of its own, a command raising a bug whose message carries sequences."""
    code = (
        "import sys\nimport gpassk_opencompass.cli.calc as calc\n"
        "def broken(args):\n    raise ValueError('an internal invariant broke: ' + sys.argv[1])\n"
        "calc.run = broken\nfrom gpassk_opencompass.cli import main\n"
        "sys.exit(main(['calc', '--n', '4', '--c', '1', '--k', '2']))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code, HOSTILE],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    err = completed.stderr.decode("utf-8")
    assert completed.returncode == 1
    assert "Traceback" in err and f"ValueError: an internal invariant broke: {inert(HOSTILE)}" in err
    assert not acted_on(err)


# ------------------------------------------------------------------------------ the real gpassk on a terminal


def gpassk_command() -> list[str]:
    script = Path(sys.executable).parent / "gpassk"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpassk_opencompass.cli"]


def on_terminal(folder: Path, *arguments: str, stderr: Path | None = None, timeout: float = 240) -> tuple[int, str]:
    """``gpassk ARGUMENTS`` with stdin, stdout (and stderr, unless a file is given) on a pseudo-terminal: its
    exit code and every byte the terminal received (decoded; undecodable bytes kept as surrogates)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    error_file = open(stderr, "wb") if stderr is not None else None  # noqa: SIM115 - closed below
    try:
        process = subprocess.Popen(
            [*gpassk_command(), *arguments],
            cwd=folder,
            stdin=slave,
            stdout=slave,
            stderr=error_file if error_file is not None else slave,
            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
            start_new_session=True,
        )
    finally:
        os.close(slave)
        if error_file is not None:
            error_file.close()
    received, ends = bytearray(), time.monotonic() + timeout
    try:
        while time.monotonic() < ends:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: every end of the terminal closed
                break
            if not chunk:
                break
            received += chunk
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    return code, received.decode("utf-8", errors="surrogateescape")


def shown_on_terminal(text: str) -> set[str]:
    """What a terminal would obey in ``text``, the ``\\r`` of its line discipline (``\\r\\n``) and of the bars'
    redraws aside (the inputs' own ``\\r`` arrives as ``\\u000d``: the tests look for it)."""
    return acted_on(text, newline="\n\t\r")


def hostile_running_grid(folder: Path) -> tuple[Path, Path]:
    """A grid of two configs: one whose file name carries :data:`HOSTILE` (missing), one running as a real
    OpenCompass 0.5.4 run was, its judge's bar in the eval log described by :data:`HOSTILE` and its launch
    host named by it."""
    configs, work = folder / "configs", folder / "outputs"
    configs.mkdir()
    hostile_file = f"m{HOSTILE}@d.py"
    (configs / "strong@tiny.py").write_text("# a generated config\n")
    (configs / hostile_file).write_text("# a generated config\n")
    runs = [
        {"file": "strong@tiny.py", "model_abbr": "strong_t0-7", "dataset_abbr": "tiny_rule"},
        {"file": hostile_file, "model_abbr": f"m{HOSTILE}", "dataset_abbr": "d"},
    ]
    (configs / "manifest.json").write_text(json.dumps({"runs": runs}))
    run_dir = work / "strong@tiny" / "20261127_105447"
    shutil.copytree(RUNNING / "evaluating", run_dir)
    with open(run_dir / "logs" / "eval" / "strong_t0-7" / "tiny_rule.out", "a", encoding="utf-8") as log:
        log.write(f"\r{HOSTILE}judge:  46%|████▌     | 6/13 [00:01<00:01,  5.00answer/s]")
    (run_dir / "gpassk_launch.pid").write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))
    return configs, work


def test_grid_status_on_a_terminal_shows_hostile_names_and_bars_inert(tmp_path):
    configs, work = hostile_running_grid(tmp_path)
    code, shown = on_terminal(tmp_path, "grid", "status", str(configs), "-w", str(work))
    assert code == 1, shown
    assert not shown_on_terminal(shown), shown
    assert "missing     m\\u001b]0;pwned\\u0007\\u001bc" in shown  # the config's name, there and inert
    assert "6 of 13 answers" in shown and "\\u202eevil" in shown  # the bar from the log, its description inert
    code, shown = on_terminal(tmp_path, "grid", "status", str(configs), "-w", str(work), "--json")
    assert not shown_on_terminal(shown), shown
    listed = json.loads(shown.replace("\r\n", "\n"))
    assert [item["state"] for item in listed] == ["running", "missing"]
    assert Path(listed[1]["config"]).name.startswith("m\x1b]0;pwned")  # the JSON still says what the file is called


def test_leaderboard_on_a_terminal_shows_a_hostile_model_inert(tmp_path):
    from leaderboard_workdirs import Spec, write_run

    specs = [
        Spec(f"acme/m{HOSTILE}-7b", "LiveMathBench-202412", 0.7, 8, (4, 8), 0.5, questions=6),
        Spec("acme/plain-7b", "LiveMathBench-202412", 0.7, 8, (4, 8), 0.3, questions=6),
    ]
    write_run(tmp_path / "outputs", "20250101_000000", specs)
    code, shown = on_terminal(tmp_path, "leaderboard", "outputs")
    assert code == 0, shown
    assert not shown_on_terminal(shown), shown
    assert "| m\\u001b]0;pwned\\u0007\\u001bc" in shown and "| plain-7b |" in shown
    # a file the command writes keeps the bytes the inputs gave
    code, shown = on_terminal(tmp_path, "leaderboard", "outputs", "-o", "board.md")
    assert code == 0 and not shown_on_terminal(shown)
    assert f"| m{HOSTILE}".replace("\r", "\\r") not in shown
    assert HOSTILE[:20] in (tmp_path / "board.md").read_text(encoding="utf-8")


def test_score_errors_on_a_terminal_are_inert(tmp_path):
    code, shown = on_terminal(tmp_path, "score", "gens\x1b]0;pwned\x07\x1bc\u202e.jsonl", "--k", "2")
    assert code == 2 and not shown_on_terminal(shown), shown
    assert shown == "gpassk score: error: gens\\u001b]0;pwned\\u0007\\u001bc\\u202e.jsonl: no such file or folder\r\n"
    name = f"gens{HOSTILE}.jsonl"  # its "[" makes it a glob
    code, shown = on_terminal(tmp_path, "score", name, "--k", "2")
    assert code == 2 and not shown_on_terminal(shown), shown
    assert "gpassk score: error: gens\\u001b]0;pwned" in shown and "\\u000d!.jsonl: no file matches" in shown
    assert "INFO" not in shown  # nothing announced before the mistake
    write_jsonl(tmp_path / "gens.jsonl", [{"id": HOSTILE, "question": "q", "answer": "2", "predictions": ["2"]}])
    code, shown = on_terminal(tmp_path, "score", "gens.jsonl", "--k", "2")
    assert code == 2 and not shown_on_terminal(shown), shown
    assert "at least 2 are needed" in shown


def distinct_answers(folder: Path) -> Path:
    rows = [
        {"id": f"q{i}{HOSTILE}", "question": "q", "answer": str(i), "predictions": [str(i + d) for d in range(4)]}
        for i in range(6)
    ]
    return write_jsonl(folder / "gens.jsonl", rows)


def test_score_progress_draws_on_a_terminal_only(tmp_path):
    distinct_answers(tmp_path)
    code, shown = on_terminal(tmp_path, "score", "gens.jsonl", "--k", "2", "--no-cache")
    assert code == 0, shown
    assert "rule judge:" in shown and "answer/s" in shown  # the bar was drawn, on the terminal
    assert not shown_on_terminal(shown), shown
    log = tmp_path / "log.txt"
    code, shown = on_terminal(tmp_path, "score", "gens.jsonl", "--k", "2", "--no-cache", stderr=log)
    written = log.read_text(encoding="utf-8")
    assert code == 0 and "INFO: judged 24 generations" in written
    assert "\r" not in written and "rule judge:" not in written  # `2> log`: no frames in the log
    assert "G-Pass@2" in shown and not shown_on_terminal(shown)


def test_bars_draw_into_a_log_only_where_another_program_reads_them(monkeypatch):
    """Inside OpenCompass the task log is where ``gpassk grid status`` reads the judge's bar: the evaluator lets
    bars draw there (``console.draw_bars_into_logs``); without it, a log gets no frames."""
    from gpassk_opencompass import console
    from gpassk_opencompass.grid.status import last_bar

    monkeypatch.setitem(console._INTO_LOGS, "on", False)  # restored after the test
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    for _ in progress(range(3), desc="rule judge", unit="answer", mininterval=0):
        pass
    assert log.getvalue() == ""
    console.draw_bars_into_logs()
    for _ in progress(range(3), desc=f"{HOSTILE}rule judge", unit="answer", mininterval=0):
        pass
    bar = last_bar(log.getvalue())
    assert bar is not None and (bar.done, bar.total, bar.unit) == (3, 3, "answer")
    assert not acted_on(log.getvalue().replace("\r", ""))  # the frames' own \r only; the description inert


@pytest.mark.e2e  # imports OpenCompass (the evaluator's base class)
def test_the_evaluator_draws_its_judge_bar_into_the_task_log(monkeypatch):
    from evaluator_fixtures import run as run_evaluator
    from gpassk_opencompass import GPassKEvaluator, console
    from gpassk_opencompass.grid.status import last_bar

    monkeypatch.setitem(console._INTO_LOGS, "on", False)
    log = io.StringIO()  # OpenCompass's task log: no terminal
    monkeypatch.setattr(sys, "stderr", log)
    run_evaluator(GPassKEvaluator(judge="rule"))
    bar = last_bar(log.getvalue(), lambda bar: bar.unit == "answer")
    assert bar is not None and bar.desc == "rule judge" and bar.done == bar.total > 1
