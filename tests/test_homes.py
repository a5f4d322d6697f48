"""Issue 23's "Done when", computed from the source: one home per concept, no circle dodged, no god module.

Read with ``ast`` (nothing is imported):

* no import circle among the package's modules (the imports a module runs when it is imported: its
  module-level imports, those under ``if TYPE_CHECKING:`` aside);
* at most :data:`MAX_DEFERRED` imports of the package's own modules inside function bodies outside ``cli/``
  (which defers for a fast ``--version``) and ``plugin/configs/`` (mmengine's ``read_base`` configs), each
  saying why with a ``# deferred: <reason>`` comment on its line or the line above;
* no module over :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gpassk_opencompass"
#: The most own-module imports inside function bodies outside cli/ and plugin/configs/.
MAX_DEFERRED = 20
#: The most lines one module may have.
MAX_LINES = 700
#: Where an import inside a function is the rule, not a dodge.
EXEMPT = ("gpassk_opencompass.cli", "gpassk_opencompass.plugin.configs")
DEFERRED = re.compile(r"#\s*deferred:\s*\S")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def source(name: str) -> tuple[ast.Module, list[str]]:
    """A module's syntax tree and its lines, read once."""
    text = MODULES[name].read_text(encoding="utf-8")
    return ast.parse(text), text.splitlines()


def imported(node: ast.Import | ast.ImportFrom, importer: str) -> set[str]:
    """The package's modules an import statement of ``importer`` names (``from a import b``: ``a.b`` if a module)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in MODULES}
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    base = (node.module or "") if not node.level else ".".join(filter(None, [package, node.module]))
    names = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
    return names or ({base} & MODULES.keys())


def walk(node: ast.AST, in_function: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under ``node`` and whether it sits in a function body; ``if TYPE_CHECKING:``
    blocks (annotations only, never run) are skipped."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for orelse in child.orelse:
                yield from walk(orelse, in_function)
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function
        yield from walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's module-level imports of the package's modules."""
    edges: dict[str, set[str]] = {}
    for name in MODULES:
        tree, _ = source(name)
        edges[name] = set().union(*(imported(node, name) for node, inside in walk(tree) if not inside)) - {name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def deferred_imports() -> list[tuple[str, int, bool]]:
    """``(path:line, line, has a reason)`` of each own-module import in a function body outside :data:`EXEMPT`."""
    found = []
    for name, path in MODULES.items():
        if name.startswith(EXEMPT):
            continue
        tree, lines = source(name)
        for node, inside in walk(tree):
            if inside and imported(node, name):
                said = any(DEFERRED.search(lines[line - 1]) for line in (node.lineno, node.lineno - 1) if line >= 1)
                found.append((f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", node.lineno, said))
    return found


def test_the_reader_of_the_source_sees_what_python_runs():
    """The machinery itself, on modules whose imports are known."""
    edges = graph()
    assert "gpassk_opencompass.errors" in edges["gpassk_opencompass.files"]
    assert "gpassk_opencompass.files" in edges["gpassk_opencompass.files.writing"]
    assert "gpassk_opencompass.uncertainty.resampling" in edges["gpassk_opencompass.uncertainty.paired"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_the_modules():
    found = circles(graph())
    assert not found, "import circles (module-level imports):\n" + "\n".join(" <-> ".join(c) for c in found)


def test_few_imports_inside_functions_each_with_its_reason():
    found = deferred_imports()
    unexplained = [where for where, _, said in found if not said]
    assert len(found) <= MAX_DEFERRED and not unexplained, (
        f"{len(found)} own-module imports inside functions outside cli/ and plugin/configs/ (at most {MAX_DEFERRED})"
        f"; without a '# deferred: <reason>' comment: {len(unexplained)}:\n" + "\n".join(unexplained)
    )


def test_no_module_over_the_line_limit():
    sizes = {
        path.relative_to(PACKAGE.parent): len(path.read_text(encoding="utf-8").splitlines())
        for path in MODULES.values()
    }
    over = sorted((lines, str(path)) for path, lines in sizes.items() if lines > MAX_LINES)
    assert not over, f"modules over {MAX_LINES} lines: " + ", ".join(f"{path} ({lines})" for lines, path in over)
