"""The ``gpassk`` entry point: one error contract, one logging set-up, lazy subcommands, one exit-code table.

Every subcommand is driven through :func:`gpassk_opencompass.cli.main` with its ``run`` replaced by a probe, so
what is checked is what ``main`` does around any command: an ``InputError`` is one redacted line and exit 2, any
other exception (an internal ``ValueError`` included) keeps its traceback, and every log record is redacted.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpassk_opencompass.cli import EXIT_OK, EXIT_USAGE, SUBCOMMANDS, exit_codes, main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.log import logger

REPOSITORY = Path(__file__).resolve().parent.parent
SECRET = "sk-cli-probe-0123456789abcdef"

# argv that parses for each subcommand, and the name of the module function it runs
COMMANDS = {
    "calc": (["calc", "--n", "4", "--c", "1", "--k", "2"], "run"),
    "score": (["score", "gens.jsonl", "--k", "2"], "run"),
    "rejudge": (["rejudge", "RUN"], "run"),
    "leaderboard": (["leaderboard", "outputs"], "run"),
    "grid": (["grid", "status", "configs"], "status"),
    "data": (["data", "check"], "run"),
    "agree": (["agree", "a.json", "b.json"], "run"),
    "compare": (["compare", "a.json", "b.json"], "run"),
    "plan": (["plan", "pilot.json", "--n", "8"], "run"),
    "view": (["view", "scores.json"], "run"),
}


def test_every_subcommand_is_probed():
    assert set(COMMANDS) == set(SUBCOMMANDS)


def probe(monkeypatch, command: str, behaviour) -> list[str]:
    argv, function = COMMANDS[command]
    module = importlib.import_module(f"gpassk_opencompass.cli.{command}")
    monkeypatch.setattr(module, function, behaviour)
    return argv


@pytest.fixture(autouse=True)
def _restore_logging():
    yield
    logger.remove()
    logger.configure(patcher=None)
    logger.add(sys.stderr)


@pytest.mark.parametrize("command", COMMANDS)
def test_an_internal_value_error_is_a_bug_with_its_traceback(monkeypatch, command):
    def broken(args):
        raise ValueError("an internal invariant broke")

    with pytest.raises(ValueError, match="an internal invariant broke"):
        main(probe(monkeypatch, command, broken))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_user_mistake_is_one_redacted_line_and_exit_2(monkeypatch, capsys, command):
    def mistaken(args):
        raise InputError(f"--judge-url http://host/v1?token={SECRET} is not served; the fix")

    assert main(probe(monkeypatch, command, mistaken)) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err == f"gpassk {command}: error: --judge-url http://host/v1?token=[REDACTED] is not served; the fix\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_logs_through_one_redacted_sink(monkeypatch, capsys, command):
    monkeypatch.setenv("OC_JUDGE_API_KEY", SECRET)

    def logging(args):
        logger.warning("the judge at http://host/v1 refused key {}", SECRET)
        return EXIT_OK

    assert main(probe(monkeypatch, command, logging)) == EXIT_OK
    err = capsys.readouterr().err
    assert SECRET not in err
    assert err == "WARNING: the judge at http://host/v1 refused key [REDACTED]\n"


def test_a_logged_exception_is_redacted_with_its_traceback(monkeypatch, capsys):
    monkeypatch.setenv("OC_JUDGE_API_KEY", SECRET)

    def logging(args):
        try:
            raise ConnectionError(f"refused key {SECRET}")
        except ConnectionError:
            logger.exception("the judge failed")
        return EXIT_OK

    assert main(probe(monkeypatch, "calc", logging)) == EXIT_OK
    err = capsys.readouterr().err
    assert "ConnectionError: refused key [REDACTED]" in err and SECRET not in err


def test_version_imports_no_subcommand_and_no_heavy_dependency():
    code = (
        "import json, sys\nfrom gpassk_opencompass.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPOSITORY, timeout=120, check=True
    )
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("gpassk ")
    modules = set(json.loads(lines[1]))
    subcommands = {f"gpassk_opencompass.cli.{name}" for name in SUBCOMMANDS}
    assert not modules & subcommands
    heavy = ("scipy", "openai", "pydantic", "math_verify", "opencompass", "loguru", "tqdm", "jinja2", "matplotlib")
    assert not {name for name in modules if name.split(".")[0] in heavy}


def test_help_lists_every_subcommand_with_its_line_and_the_exit_codes(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "300")  # one line per subcommand: no hyphen broken by the wrapping
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name, summary in SUBCOMMANDS.items():
        assert f"{name} {' '.join(summary.split())}" in out
    for code in exit_codes():
        assert f" {code} " in out


def test_a_subcommand_help_keeps_its_own_epilog(capsys):
    with pytest.raises(SystemExit):
        main(["calc", "--help"])
    assert "exit codes" not in capsys.readouterr().out  # the table is gpassk's, not added to every subcommand


def test_the_exit_codes_page_is_the_table_of_the_code():
    page = (REPOSITORY / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    documented = {int(code) for code in re.findall(r"^\| (\d+)(?: / \d+)? \|", page, re.M)}
    assert documented == set(exit_codes())
    for other in (
        "README.md",
        "docs/scoring.md",
        "docs/grid.md",
        "docs/leaderboard.md",
        "docs/data.md",
        "docs/uncertainty.md",
    ):
        assert "exit-codes.md" in (REPOSITORY / other).read_text(encoding="utf-8"), other
