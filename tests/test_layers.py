"""The layers hold: the core (metrics, judges, scoring, the commands of docs/architecture.md's core list) runs
without any optional dependency.

Each check runs in a fresh interpreter where OpenCompass, mmengine, datasets,
torch, matplotlib, jinja2 and the heavy friends cannot be imported (an import hook
raises), so an accidental import anywhere on the core path fails here, and an
option that needs an extra says which in one line.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analysis_docs import write
from leaderboard_workdirs import standard_grid, write_run
from loopback_judge import exact_match_judge

REPOSITORY = Path(__file__).resolve().parent.parent
# tiktoken: OpenCompass's OpenAI models download its encodings; the LLM judge must not need it.
# jinja2/markupsafe, matplotlib: the `plots` extra (HTML pages, PNG plots).
HEAVY = (
    "opencompass",
    "mmengine",
    "datasets",
    "torch",
    "matplotlib",
    "transformers",
    "tiktoken",
    "jinja2",
    "markupsafe",
)

BLOCKER = textwrap.dedent(f"""
    import importlib.abc, sys
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {HEAVY!r}:
                raise ModuleNotFoundError(f"blocked heavy import: {{name}}", name=name)
            return None
    sys.meta_path.insert(0, Blocker())
    sys.path.insert(0, {str(REPOSITORY)!r})
""")


def run_blocked(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPOSITORY,
    )


def test_the_blocker_blocks():
    completed = run_blocked("import opencompass")
    assert completed.returncode != 0 and "blocked heavy import: opencompass" in completed.stderr


CORE = (
    "gpassk_opencompass",
    "gpassk_opencompass.metrics",
    "gpassk_opencompass.card",
    "gpassk_opencompass.judges",
    "gpassk_opencompass.scoring",
    "gpassk_opencompass.uncertainty",
    "gpassk_opencompass.plugin",
    "gpassk_opencompass.cli",
    "gpassk_opencompass.files",
    "gpassk_opencompass.redaction",
    "gpassk_opencompass.log",
    "gpassk_opencompass.catalog",
    "gpassk_opencompass.errors",
    "gpassk_opencompass.analysis",
    "gpassk_opencompass.analysis.agreement",
    "gpassk_opencompass.analysis.comparison",
    "gpassk_opencompass.analysis.planning",
    "gpassk_opencompass.plugin.runs",
    "gpassk_opencompass.leaderboard.collect",
)


def test_core_modules_import_without_opencompass():
    completed = run_blocked(f"import importlib\nfor name in {CORE!r}: importlib.import_module(name)")
    assert completed.returncode == 0, completed.stderr[-2000:]


@pytest.mark.e2e  # a real gpassk process (and its rule-judge worker)
def test_gpassk_score_runs_without_opencompass(tmp_path):
    generations = tmp_path / "gens.jsonl"
    lines = [
        {"id": "q1", "question": "1+1?", "answer": "2", "predictions": [r"\boxed{2}", "3", "2", r"\boxed{2}"]},
        {"id": "q2", "question": "2+2?", "answer": "4", "predictions": ["4", "5", "5", "5"]},
    ]
    generations.write_text("".join(json.dumps(line) + "\n" for line in lines))
    output = tmp_path / "scores.json"
    completed = run_blocked(
        """
        import sys
        from gpassk_opencompass.cli import main
        sys.exit(main(sys.argv[1:]))
    """,
        "score",
        str(generations),
        "--k",
        "2",
        "--output",
        str(output),
        "--quiet",
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    results = json.loads(output.read_text())
    # q1: 3 of 4 correct, q2: 1 of 4 -> accuracy 50
    assert results["accuracy (4 runs average)"] == pytest.approx(50.0)


@pytest.mark.e2e  # a real gpassk process and a real judge server
def test_gpassk_score_with_an_llm_judge_runs_without_opencompass_or_tiktoken(loopback_openai, tmp_path):
    server = loopback_openai(exact_match_judge)
    generations = tmp_path / "gens.jsonl"
    generations.write_text(
        json.dumps({"id": "q1", "question": "1+1?", "answer": "2", "predictions": [r"\boxed{2}", r"\boxed{3}"]}) + "\n"
    )
    output = tmp_path / "scores.json"
    completed = run_blocked(
        """
        import sys
        from gpassk_opencompass.cli import main
        sys.exit(main(sys.argv[1:]))
    """,
        "score",
        str(generations),
        "--k",
        "1",
        "--judge-url",
        server.url,
        "--judge-model",
        "loopback-model",
        "--output",
        str(output),
        "--quiet",
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert json.loads(output.read_text())["accuracy (2 runs average)"] == pytest.approx(50.0)
    assert len(server.requests) == 2


# Every command below runs in ONE blocked interpreter, one after the other (a blocked import fails whichever
# command attempts it); each gets its own output folder and its own captured stderr.
RUN_ALL = """
    import contextlib, io, json, sys, traceback
    from gpassk_opencompass.cli import main
    results = {}
    for name, argv in json.loads(sys.argv[1]).items():
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except BaseException:  # the test looks for the traceback
                traceback.print_exc(file=err)
                code = None
        results[name] = [code, err.getvalue()]
    print(json.dumps(results))
"""

CORE_COMMANDS = {
    "calc": ["calc", "--n", "16", "--c", "8", "--k", "4", "8"],
    "agree": ["agree", "A", "B"],
    "agree --json --markdown": ["agree", "A", "B", "--json", "OUT/a.json.out", "--markdown", "OUT/a.md"],
    "compare": ["compare", "A", "B", "--json", "OUT/c.json", "--markdown", "OUT/c.md"],
    "plan": ["plan", "A", "--n", "4", "8", "--target", "20", "--json", "OUT/p.json"],
    "leaderboard md csv json": ["leaderboard", "RUNS", "-o", "OUT/l.md", "-o", "OUT/l.csv", "-o", "OUT/l.json"],
}

NEEDS_AN_EXTRA = {
    "agree --html": (["agree", "A", "B", "--html", "OUT/a.html"], "--html needs jinja2"),
    "plan --calibration-plot": (
        ["plan", "A", "--n", "4", "--calibration-plot", "OUT/p.png"],
        "--calibration-plot needs matplotlib",
    ),
    "leaderboard -o page.html": (["leaderboard", "RUNS", "-o", "OUT/l.html"], "needs jinja2"),
    "leaderboard --plots": (["leaderboard", "RUNS", "--plots", "OUT/plots"], "needs matplotlib"),
}


def _argv(words: list[str], inputs: dict) -> list[str]:
    for name, value in inputs.items():
        words = [word.replace(name, value, 1) if word.startswith(name) else word for word in words]
    return words


@pytest.fixture(scope="module")
def blocked_runs(tmp_path_factory):
    """``{command: (exit code, stderr, its output folder)}`` of every command, run once without the extras."""
    root = tmp_path_factory.mktemp("layers")
    a = write(root / "a.json", [[True, False, True, True], [False, False, True, False]])
    b = write(root / "b.json", [[True, True, True, True], [False, False, True, False]], judge="llm", judge_model="J")
    write_run(root / "outputs", "20250213_101500", standard_grid())
    inputs = {"A": str(a), "B": str(b), "RUNS": str(root / "outputs")}
    words = {**CORE_COMMANDS, **{name: argv for name, (argv, _) in NEEDS_AN_EXTRA.items()}}
    folders = {name: root / f"out{number}" for number, name in enumerate(words)}
    for folder in folders.values():
        folder.mkdir()
    argvs = {name: _argv(argv, {**inputs, "OUT": str(folders[name])}) for name, argv in words.items()}
    completed = run_blocked(RUN_ALL, json.dumps(argvs))
    assert completed.returncode == 0, completed.stderr[-2000:]
    results = json.loads(completed.stdout.splitlines()[-1])
    return {name: (code, err, folders[name]) for name, (code, err) in results.items()}


@pytest.mark.parametrize("command", CORE_COMMANDS)
def test_commands_of_the_core_install_need_no_extra(command, blocked_runs):
    """calc, agree/compare/plan without --html or a plot, and the leaderboard's text formats: no jinja2,
    matplotlib, OpenCompass or torch (docs/architecture.md)."""
    code, err, _ = blocked_runs[command]
    assert code == 0, err[-2000:]
    assert "Traceback" not in err


@pytest.mark.parametrize("command", NEEDS_AN_EXTRA)
def test_an_option_needing_an_extra_names_it_in_one_line_before_any_work(command, blocked_runs):
    _, message = NEEDS_AN_EXTRA[command]
    code, err, folder = blocked_runs[command]
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert code == 2, err[-2000:]
    assert "Traceback" not in err
    assert len(errors) == 1 and message in errors[0] and "pip install 'gpassk-opencompass[plots]'" in errors[0]
    assert list(folder.iterdir()) == []  # nothing written


def test_the_renderer_sits_below_analysis_and_leaderboard():
    """Both import gpassk_opencompass.render; it imports neither (no circle), nor jinja2/matplotlib until asked."""
    completed = run_blocked("""
        import sys
        import gpassk_opencompass.render.formats, gpassk_opencompass.render.reports
        above = sorted(name for name in sys.modules
                       if name.startswith(("gpassk_opencompass.analysis", "gpassk_opencompass.leaderboard")))
        assert not above, above
    """)
    assert completed.returncode == 0, completed.stderr[-2000:]


ARCHITECTURE = REPOSITORY / "docs" / "architecture.md"


def _imports_at_run_time(tree: ast.Module) -> set[str]:
    """The ``gpassk_opencompass.<subsystem>`` names imported, but not under ``if TYPE_CHECKING:`` (annotations)."""
    found = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name.split(".")[1] for name in found if name.startswith("gpassk_opencompass.")}


def test_the_layer_table_of_the_architecture_page_is_the_import_graph():
    """docs/architecture.md's table says what each subsystem may import from the package; the code keeps to it."""
    allowed = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").split("## Layers")[1].splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not cells[1].strip().startswith("`"):
            continue
        names = {name.split(".")[0] for name in re.findall(r"`([\w.]+)`", cells[2])}
        for subsystem in re.findall(r"`(\w+)`", cells[1]):
            allowed[subsystem] = names
    package = REPOSITORY / "gpassk_opencompass"
    wrong = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).parts
        subsystem = parts[0].removesuffix(".py")
        if subsystem in ("__init__", "__main__", "cli"):  # the package's lazy exports; cli may import everything
            continue
        assert subsystem in allowed, f"{subsystem} is not in the layer table of docs/architecture.md"
        beyond = _package_imports(ast.parse(path.read_text(encoding="utf-8"))) - allowed[subsystem] - {subsystem}
        if beyond:
            wrong[str(path.relative_to(package))] = sorted(beyond)
    assert not wrong, f"imports the layer table does not allow: {wrong}"


def _package_imports(tree: ast.Module) -> set[str]:
    """:func:`_imports_at_run_time`, and ``from gpassk_opencompass import metrics`` too."""
    found = _imports_at_run_time(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "gpassk_opencompass" and node.level == 0:
            found.update(alias.name for alias in node.names if not alias.name.startswith("__"))  # not __version__
    return found


def _may_import(docstring: str) -> set[str] | None:
    """The package's subsystems a subpackage's docstring names in its "May import:" sentence (``None``: none)."""
    found = re.search(r"May import:(.*?)(?:;|\.\s|\.$|$)", docstring, re.S)
    return None if found is None else set(re.findall(r"gpassk_opencompass\.(\w+)", found.group(1)))


def test_each_subpackage_docstring_says_what_it_imports():
    """Every subpackage's "May import:" list is what its modules import at run time, no more and no less."""
    package = REPOSITORY / "gpassk_opencompass"
    wrong = {}
    for folder in sorted(path.parent for path in package.glob("*/__init__.py")):
        if folder.name == "cli":  # may import everything (the layer table)
            continue
        said = _may_import(ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or "")
        assert said is not None, f"{folder.name}/__init__.py's docstring has no 'May import:' sentence"
        actual = set()
        for path in folder.rglob("*.py"):
            actual |= _package_imports(ast.parse(path.read_text(encoding="utf-8")))
        actual.discard(folder.name)
        if said != actual:
            wrong[folder.name] = {"not said": sorted(actual - said), "said, not imported": sorted(said - actual)}
    assert not wrong, f"subpackage docstrings that disagree with their imports: {wrong}"
