"""The README and docs/*.md: links resolve, every page is reachable, shown commands are real.

The ``>>>`` examples of the pages run as doctests (``--doctest-glob=*.md`` in
pyproject.toml); this file checks the rest: relative links and their anchors,
that every page under docs/ can be reached from the README, that the console
examples that run offline print what the pages show, that every ``gpassk`` /
``save_opencompass_configs.py`` command line shown parses with the real
argument parsers, and that the package's messages have no doubled punctuation.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from gpassk_opencompass.cli import build_parser, main

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _load_script():
    spec = importlib.util.spec_from_file_location("save_opencompass_configs", REPO / "save_opencompass_configs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose(text: str) -> str:
    """The page without its fenced code blocks (links in code are not links)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading.

    >>> slug("## Evaluating in OpenCompass: `GPassKEvaluator`")
    'evaluating-in-opencompass-gpasskevaluator'
    """
    text = heading.lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line) for line in prose(page.read_text(encoding="utf-8")).splitlines() if line.startswith("#")}


def local_links(page: Path) -> list[tuple[str, Path, str]]:
    """(link as written, target file, anchor) for every relative link of ``page``."""
    found = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        found.append((target, (page.parent / path).resolve() if path else page, anchor))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_relative_links_and_anchors_resolve(page):
    broken = []
    for written, target, anchor in local_links(page):
        if not target.exists():
            broken.append(f"{written} (no {target.relative_to(REPO)})")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            broken.append(f"{written} (no heading #{anchor} in {target.name})")
    assert not broken, f"{page.relative_to(REPO)}: broken links: {broken}"


def test_every_docs_page_is_reachable_from_the_readme():
    seen, todo = {README}, [README]
    while todo:
        for _, target, _ in local_links(todo.pop()):
            if target.suffix == ".md" and target.exists() and target not in seen:
                seen.add(target)
                todo.append(target)
    unreachable = [page.name for page in PAGES if page not in seen]
    assert not unreachable, f"docs pages no link leads to from README.md: {unreachable}"


def test_the_readme_links_the_docs_pages_of_each_workflow():
    linked = {target.name for _, target, _ in local_links(README)}
    assert {
        "metrics.md",
        "scoring.md",
        "evaluator.md",
        "generator.md",
        "grid.md",
        "data.md",
        "leaderboard.md",
        "uncertainty.md",
        "benchmarks.md",
        "architecture.md",
        "development.md",
    } <= linked
    # every local link stays inside the repository: a user has nothing beside the clone
    assert all(REPO in target.resolve().parents for _, target, _ in local_links(README))


def test_the_headline_picture_is_a_png():
    picture = REPO / "docs" / "img" / "published_greedy_vs_mgpass.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "docs/img/published_greedy_vs_mgpass.png" in README.read_text(encoding="utf-8")


def console_examples() -> list[tuple[str, str, str]]:
    """(page, command, shown output) for every ``$ gpassk calc`` example of a console block."""
    examples = []
    for page in PAGES:
        for block in re.findall(r"^```console\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M):
            for command, output in re.findall(r"^\$ (gpassk calc[^\n]*)\n(.*?)(?=^\$ |\Z)", block, re.S | re.M):
                examples.append((page.name, command, output.strip()))
    return examples


def test_console_examples_are_found():
    assert {page for page, _, _ in console_examples()} >= {"README.md", "metrics.md"}


@pytest.mark.parametrize("page, command, shown", console_examples(), ids=lambda value: str(value)[:30])
def test_console_example_prints_what_the_page_shows(page, command, shown, capsys):
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.strip() == shown


def test_quick_start_output_is_the_real_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _load_script().main([]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("wrote ") and f"\n{printed}\n" in README.read_text(encoding="utf-8")


def shown_commands() -> list[tuple[str, list[str]]]:
    """(page, argv) of every ``gpassk …`` / ``python save_opencompass_configs.py …`` line in bash blocks."""
    commands = []
    for page in PAGES:
        for block in re.findall(r"^```bash\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|;|\|", line.split("  #")[0].split(" # ")[0]):
                    words = shlex.split(part.strip(), comments=True)
                    while words and "=" in words[0] and not words[0].startswith("-"):
                        words = words[1:]  # VAR=value prefixes
                    if words[:1] == ["gpassk"] or words[:2] == ["python", "save_opencompass_configs.py"]:
                        commands.append((page.name, words))
    return commands


def test_shown_commands_are_found():
    pages = {page for page, _ in shown_commands()}
    assert {"README.md", "generator.md", "grid.md"} <= pages


@pytest.mark.parametrize(
    "page, argv", shown_commands(), ids=lambda value: " ".join(value)[:40] if isinstance(value, list) else value
)
def test_shown_command_parses(page, argv):
    """Every option shown exists: the real parsers accept the line (nothing is run)."""
    if argv[0] == "gpassk":
        build_parser().parse_args([word for word in argv[1:] if "<" not in word])
    else:
        _load_script().build_parser().parse_args(argv[2:])


# ----------------------------------------------------------------------------- wording

#: Doubled punctuation in a message: ".;", ";.", "..", "?;", " ,", ",." and kin. Not: three
#: dots (an ellipsis), two after a space (a range, "wrong .. right"; a path, "../x"), "0..9".
DOUBLED = re.compile(r"\.;|;\.|(?<![.\d\s])\.\.(?![.\d/])|\?;|!;|[ \t],|[,;]\.(?!\.)|,,|;;")

#: An f-string that puts free text (an exception, a reason) before "; " or ". ": the text may
#: itself end with a period (most exception messages do), giving ".;" or "..".
FREE_TEXT = re.compile(r"(^|\W)(error|exc|err|reason|message|detail|why|problem|text)\)?$")

#: Known joins of free text and punctuation in files other helpers own, reported in issue 12
#: (file, expression): remove an entry when its message is fixed.


def _sources() -> list[Path]:
    return [*sorted((REPO / "gpassk_opencompass").rglob("*.py")), REPO / "save_opencompass_configs.py"]


def _docstring_nodes(tree: ast.AST) -> set[int]:
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                nodes.add(id(first.value))
    return nodes


def _messages(tree: ast.AST):
    """(line, text) of every string literal and f-string, format specs and docstrings left out."""
    skip = _docstring_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            skip.update(id(part) for part in ast.walk(node.format_spec))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and id(node) not in skip:
            skip.update(id(part) for part in node.values)
            yield node.lineno, "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def doubled_punctuation() -> list[str]:
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _messages(tree):
            for match in DOUBLED.finditer(text):
                found.append(f"{path.relative_to(REPO)}:{line}: {match.group()!r} in {text[:80]!r}")
    return found


def _is_clause(node: ast.AST) -> bool:
    """``clause(...)`` (gpassk_opencompass.errors) strips a message's closing full stop before a join."""
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "clause"


def free_text_joins() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for value, after in zip(node.values, node.values[1:]):
                if (
                    isinstance(value, ast.FormattedValue)
                    and isinstance(after, ast.Constant)
                    and value.conversion != ord("r")
                    and not _is_clause(value.value)
                    and re.match(r"[;.]( |$)", after.value)
                    and FREE_TEXT.search(ast.unparse(value.value))
                ):
                    key = (str(path.relative_to(REPO)), ast.unparse(value.value))
                    found.setdefault(key, []).append(node.lineno)
    return found


def test_doubled_punctuation_patterns():
    assert DOUBLED.findall("done.; next;. x.. y ?; a , b,. c") == [".;", ";.", "..", "?;", " ,", ",."]
    assert not DOUBLED.findall("wait... the range wrong .. right, 0..9, see ../data, (a, b)")


def test_messages_have_no_doubled_punctuation():
    assert not doubled_punctuation()


def test_free_text_is_joined_only_through_clause():
    found = free_text_joins()
    assert not found, f"free text joined to punctuation (wrap it in errors.clause): {found}"


@pytest.mark.parametrize("left_behind", [".cache/", "icl_inference_output/", "outputs/", "opencompass_configs/"])
def test_what_runs_leave_in_the_working_directory_is_ignored(left_behind):
    """OpenCompass's .cache/ and the other run leftovers never show up in ``git status``."""
    assert left_behind in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_benchmark_data_in_the_top_level_data_folder_is_ignored_and_no_tracked_file_is():
    """docs/data.md's first place for benchmark files, data/, never shows up in ``git status``; the package's own
    data/ and the tests' are still tracked (git's own reading of .gitignore, not ours)."""
    if (
        shutil.which("git") is None
        or subprocess.run(["git", "-C", str(REPO), "rev-parse"], capture_output=True).returncode
    ):
        pytest.skip("not a git checkout")

    def ignored(*paths: str) -> set[str]:
        found = subprocess.run(
            ["git", "-C", str(REPO), "check-ignore", "--no-index", *paths], capture_output=True, text=True
        )
        return set(found.stdout.split())

    inside = ["data/aime2025/aime2025.jsonl", "data/LiveMathBench/202412/AMC_en.jsonl"]
    kept = ["gpassk_opencompass/data/results.schema.json", "tests/data/opencompass/PROVENANCE.md", "docs/data.md"]
    assert ignored(*inside, *kept) == set(inside)
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True).stdout.split()
    assert "gpassk_opencompass/data/results.schema.json" in tracked
    assert not [path for path in tracked if path.startswith("data/")]  # /data/ hides no tracked file
