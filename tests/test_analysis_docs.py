"""docs/uncertainty.md: the example files block runs, and every ``$ gpassk ...`` example prints what the page shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "uncertainty.md"
TEXT = PAGE.read_text(encoding="utf-8")
COMMANDS = re.findall(r"```console\n\$ (gpassk [^\n]+)\n(.*?)```", TEXT, flags=re.S)
SETUP = re.search(r"## The commands, worked.*?```python\n(.*?)```", TEXT, flags=re.S).group(1)


def test_the_page_shows_one_example_per_command():
    assert [command.split()[1] for command, _ in COMMANDS] == ["agree", "compare", "plan", "plan"]


@pytest.mark.parametrize("command, shown", COMMANDS, ids=[f"{c.split()[1]}-{i}" for i, (c, _) in enumerate(COMMANDS)])
def test_each_example_prints_what_the_page_shows(tmp_path, monkeypatch, capsys, command, shown):
    monkeypatch.chdir(tmp_path)
    exec(compile(SETUP, str(PAGE), "exec"), {})
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.rstrip() == shown.rstrip()
