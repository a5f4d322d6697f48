"""Which modules the quick loop (``-m "not e2e"``) does not even import.

Importing OpenCompass costs about 10 CPU-s, paid by every xdist worker at collection. A module that drives
OpenCompass is ``e2e`` as a whole, and when ``-m`` deselects ``e2e`` it is not collected at all (collecting
it would import OpenCompass only to deselect every item):

* a module of ``tests/`` that says ``pytestmark = pytest.mark.e2e`` or imports ``opencompass`` at module level
  (a helper such as ``evaluator_fixtures.py`` is collected for its doctests);
* a package module whose import imports ``opencompass`` (at module level, its own or through our modules:
  the plugin's evaluator, datasets, models, configs): its doctests are marked ``e2e`` here and run in the e2e step.

With ``-m e2e`` or no ``-m`` they are collected as before, so nothing falls out of both steps.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

ROOT = Path(__file__).parent
PACKAGE = ROOT / "gpassk_opencompass"
TESTS = ROOT / "tests"


def _imported(node: ast.stmt, path: Path) -> list[str]:
    """The absolute names a module-level import statement may import (``from a import b``: ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[: -node.level] if node.level else ())
    if node.level and path.name == "__init__.py":
        package = ".".join(path.relative_to(ROOT).parts[: -node.level])
    module = ".".join(part for part in (package, node.module or "") if part)
    return [module, *(f"{module}.{alias.name}" for alias in node.names)]


def _module_level(tree: ast.Module):
    """Statements run on import: the body, into ``if``/``try``/``with``, not into defs or ``if TYPE_CHECKING``."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))


def _source(name: str) -> Path | None:
    """The file of one of the package's modules, or None (another package's, or not a module)."""
    if name.split(".")[0] != PACKAGE.name:
        return None
    base = ROOT.joinpath(*name.split("."))
    return next((path for path in (base.with_suffix(".py"), base / "__init__.py") if path.is_file()), None)


@cache
def _imports(path: Path) -> tuple[frozenset[str], frozenset[Path]]:
    """The other packages a package module imports on import, and its own modules it imports (parents included)."""
    names = [
        name for node in _module_level(ast.parse(path.read_text(encoding="utf-8"))) for name in _imported(node, path)
    ]
    parents = [parent / "__init__.py" for parent in path.parents if parent.is_relative_to(PACKAGE)]
    own = {source for source in map(_source, names) if source is not None} | set(parents)
    return frozenset(name.split(".")[0] for name in names), frozenset(own - {path})


def _imports_opencompass(path: Path) -> bool:
    """Whether importing the package module ``path`` imports ``opencompass``, directly or through our modules."""
    seen, pending = set(), [path]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        packages, own = _imports(current)
        if "opencompass" in packages:
            return True
        pending.extend(own)
    return False


@cache
def is_e2e_module(path: Path) -> bool:
    """Whether every item collected from ``path`` is ``e2e`` (see the module docstring)."""
    if path.suffix != ".py":
        return False
    if path.is_relative_to(PACKAGE):
        return _imports_opencompass(path)
    if path.is_relative_to(TESTS):
        return "opencompass" in _imports(path)[0] or any(
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets)
            and "e2e" in ast.unparse(node.value)
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    return False


def _e2e_selected(config: pytest.Config) -> bool:
    markexpr = config.getoption("markexpr")
    return not markexpr or Expression.compile(markexpr).evaluate(lambda name, **kwargs: name == "e2e")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if is_e2e_module(collection_path) and not _e2e_selected(config):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_e2e_module(Path(item.path)):
            item.add_marker(pytest.mark.e2e)
