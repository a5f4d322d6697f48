"""Saved OpenCompass configs (``<run>/configs/*.py``) are read as data: nothing in them ever runs.

A run folder can come from anywhere (a colleague, a download); ``gpassk leaderboard``
and ``gpassk score <run>`` read its dumped config. Every hostile config below would
create a marker file if any of it were executed; the tests assert the marker never
appears and the file is reported (a notice on the leaderboard, one line from re-judge).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from mmengine.config import Config

from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard import collect_runs
from gpassk_opencompass.plugin.rejudge import find_targets
from gpassk_opencompass.plugin.runs import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    UnreadableConfig,
    load_saved_config,
    parse_saved_config,
)
from leaderboard_workdirs import Spec, write_manifest, write_run

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e

TS = "20250213_101500"


def hostile_configs(marker: Path) -> dict[str, tuple[str, str]]:
    """name -> (config text that would create ``marker`` if run, what the refusal must say)."""
    touch = f"__import__('os').system('touch {marker}')"
    return {
        "import call": (f"_ = {touch}\n", "line 1: a call to __import__('os').system"),
        "call in a value": (f"models = [dict(abbr='m', path={touch})]\n", "line 1: a call to"),
        "after good lines": (f"work_dir = 'x'\nn = 1\nx = dict(a=1, b={touch})\n", "line 3: a call to"),
        "lambda": (f"f = (lambda: {touch})()\n", "line 1: a call to lambda"),
        "bare lambda": ("f = lambda: 1\n", "line 1: a lambda"),
        "import os": (f"import os\nos.system('touch {marker}')\n", "line 1: an import"),
        "from import": (f"from os import system\n_ = system('touch {marker}')\n", "line 1: an import from"),
        "attribute": (f"p = __import__('pathlib').Path('{marker}').touch\n", "line 1: an attribute"),
        "exec": (f"exec(\"open('{marker}', 'w')\")\n", "line 1: an expr, not a 'name = value'"),
        "open in dict": (f"x = dict(a=open('{marker}', 'w'))\n", "line 1: a call to open"),
        "comprehension": (f"x = [open('{marker}', 'w') for _ in range(1)]\n", "line 1: a list comp"),
        "f-string": (f"x = f\"{{open('{marker}', 'w')}}\"\n", "line 1: a joined str"),
        "name": ("x = y\n", "line 1: a name"),
        "dict splat": (f"x = dict(**{{'a': open('{marker}', 'w')}})\n", "line 1: dict(...) with other than"),
        "base": ("_base_ = ['../other.py']\n", "line 1: _base_ loads other config files"),
        "function def": (f"def f():\n    open('{marker}', 'w')\nx = f()\n", "line 1: a function def"),
        "walrus": (f"x = [(y := open('{marker}', 'w'))]\n", "line 1: a named expr"),
        "binop": ("x = 10 ** 10 ** 10\n", "line 1: a bin op"),
        "deep nesting": (
            "x = " + "[" * (MAX_CONFIG_DEPTH + 1) + "]" * (MAX_CONFIG_DEPTH + 1) + "\n",
            f"nested deeper than {MAX_CONFIG_DEPTH} levels",
        ),
        "deeper than the parser": ("x = " + "dict(a=" * 500 + "1" + ")" * 500 + "\n", "not Python"),
    }


HOSTILE = sorted(hostile_configs(Path("/m")))


def hostile_run(tmp_path: Path, text: str) -> Path:
    """A run whose results are fine and whose saved config is ``text``; a manifest identifies it."""
    spec = Spec("acme/model-7b", "AIME2025", 0.7, 8, (4, 8), 0.5, questions=4)
    run_dir = write_run(tmp_path / "outputs", TS, [spec], with_config=False)
    (run_dir / "configs" / f"{TS}_1.py").write_text(text, encoding="utf-8")
    write_manifest(tmp_path / "outputs", [spec])
    return run_dir


@pytest.mark.parametrize("name", HOSTILE)
def test_the_leaderboard_never_runs_a_saved_config(tmp_path, monkeypatch, name):
    marker = tmp_path / "PWNED"
    text, reason = hostile_configs(marker)[name]
    monkeypatch.chdir(tmp_path)
    run_dir = hostile_run(tmp_path, text)
    collection = collect_runs([tmp_path / "outputs"])
    assert not marker.exists()
    (notice,) = [notice for notice in collection.notices if notice.path and notice.path.suffix == ".py"]
    assert notice.message.startswith(f"saved config {run_dir / 'configs' / f'{TS}_1.py'} not read: ")
    assert reason in notice.message and "nothing in it was run" in notice.message
    assert "\n" not in notice.message
    # the run is still on the board, identified by the manifest alone
    assert [run.display_name for run in collection.runs] == ["model-7b"]


@pytest.mark.parametrize("name", ["import call", "import os", "exec", "call in a value"])
def test_the_leaderboard_command_warns_and_still_builds(tmp_path, monkeypatch, capsys, name):
    marker = tmp_path / "PWNED"
    text, reason = hostile_configs(marker)[name]
    monkeypatch.chdir(tmp_path)
    hostile_run(tmp_path, text)
    assert main(["leaderboard", str(tmp_path / "outputs"), "--k", "8"]) == 0
    assert not marker.exists()
    captured = capsys.readouterr()
    assert reason in captured.err and "| model-7b |" in captured.out


@pytest.mark.parametrize("name", ["import call", "import os", "attribute", "base"])
def test_rejudge_refuses_a_saved_config_with_code_in_one_line(tmp_path, monkeypatch, capsys, name):
    marker = tmp_path / "PWNED"
    text, reason = hostile_configs(marker)[name]
    monkeypatch.chdir(tmp_path)
    run_dir = hostile_run(tmp_path, text)
    (run_dir / "predictions" / "model-7b_t0-7").mkdir(parents=True)
    with pytest.raises(InputError, match="not read: ") as error:  # UnreadableConfig, as a user's InputError
        find_targets(run_dir)
    assert reason in str(error.value)
    assert main(["rejudge", str(run_dir), "--judge", "rule", "--output", str(tmp_path / "rejudged")]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err
    assert not marker.exists()
    assert not (tmp_path / "rejudged" / "results").exists()


def test_a_file_over_the_size_cap_is_not_even_parsed(tmp_path, monkeypatch):
    marker = tmp_path / "PWNED"
    path = tmp_path / "huge.py"
    payload = f"_ = __import__('os').system('touch {marker}')\n"
    path.write_text(payload + "#" * MAX_CONFIG_BYTES + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        UnreadableConfig,
        match=r"not read: [\d,]+ bytes, over the limit of 8,388,608 bytes for a dumped OpenCompass config$",
    ):
        load_saved_config(path)
    assert not marker.exists()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"x = 'caf\xe9'\n", "not UTF-8 text"),
        (b"x = dict(\n", r"not Python \(line 1"),
    ],
)
def test_unreadable_text_is_named(tmp_path, content, message):
    path = tmp_path / "bad.py"
    path.write_bytes(content)
    with pytest.raises(UnreadableConfig, match=message):
        load_saved_config(path)


def test_mmengine_dumps_read_back_to_what_was_dumped(tmp_path):
    """Every form mmengine's ``Config.dump`` writes (OpenCompass dumps with it): ``dict(k=v)``,
    ``dict({...})`` for keys that are not identifiers, tuples, negative numbers, None, booleans."""
    data = {
        "models": [
            {
                "abbr": "m_t0-7",
                "path": "acme/m",
                "temperature": 0.7,
                "top_k": -1,
                "generation_kwargs": {"do_sample": True, "stop": ("</s>", "<|im_end|>")},
                "meta_template": {"round": [{"role": "HUMAN", "api_role": "HUMAN"}]},
                "run_cfg": {"num_gpus": 0},
                "seed": None,
            }
        ],
        "datasets": [
            {
                "abbr": "d",
                "k": [4, 8],
                "n": 8,
                "weird keys": {"a-b": 1, "2x": [{"c d": -2.5}]},
                "empty": {},
                "nested": [[1, [2, (3,)]], []],
            }
        ],
        "work_dir": "outputs/20250213_101500",
        "big": 1e300,
    }
    path = tmp_path / "dumped.py"
    Config(data).dump(str(path))
    text = path.read_text()
    assert "dict({" in text and "(\n" in text  # the forms under test are really there
    assert load_saved_config(path) == data


@pytest.fixture(scope="module")
def real_dump(tmp_path_factory):
    """The config ``opencompass --dry-run`` dumps for the e2e tiny config (no model is called)."""
    from opencompass_e2e import TINY_MODELS, run_opencompass, tiny_livemathbench, tiny_run_config, write_livemathbench

    tmp = tmp_path_factory.mktemp("dump")
    questions = tiny_livemathbench(TINY_MODELS)
    data_root = write_livemathbench(tmp / "data_root", questions)
    write_livemathbench(data_root, [replace(q, split="all", language="en") for q in questions], version="202505")
    (tmp / "outputs").mkdir()
    (tmp / "tiny_run.py").write_text(tiny_run_config("http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"))
    run_dir = run_opencompass(tmp / "tiny_run.py", tmp / "outputs", data_root, "--dry-run")
    (path,) = (run_dir / "configs").glob("*.py")
    return path


def test_a_real_opencompass_dump_reads_as_mmengine_loads_it(real_dump):
    # Config.fromfile runs the file: acceptable here only because the file came from a config we wrote
    expected = Config.fromfile(str(real_dump), format_python_code=False).to_dict()
    parsed = load_saved_config(real_dump)
    assert parsed == expected
    assert [model["abbr"] for model in parsed["models"]] == ["strong_t0-7", "weak_t0-7", "strong_greedy", "weak_greedy"]
    assert parsed["datasets"][1]["eval_cfg"]["evaluator"]["url"] == ["http://127.0.0.1:9/v1"]


def test_grammar_examples():
    assert parse_saved_config("") == {}
    assert parse_saved_config("a = {1, 2}\nb = +3\nc = -1j\nd = b'x'\ne = {'k': None}") == {
        "a": {1, 2},
        "b": 3,
        "c": -1j,
        "d": b"x",
        "e": {"k": None},
    }
    with pytest.raises(UnreadableConfig, match="a set of unhashable values"):
        parse_saved_config("a = {[1]}")
    with pytest.raises(UnreadableConfig, match="a dict key that is not a constant"):
        parse_saved_config("a = {(1, 2): 3}")


def test_a_refused_line_is_quoted_with_its_api_key_masked(tmp_path):
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0" * 2
    path = tmp_path / "leaky.py"
    path.write_text(f"models = [dict(key='{key}', path=__import__('os').getcwd())]\n", encoding="utf-8")
    with pytest.raises(UnreadableConfig, match="line 1: a call to") as error:
        load_saved_config(path)
    assert key not in str(error.value) and "dict(key=" in str(error.value)
