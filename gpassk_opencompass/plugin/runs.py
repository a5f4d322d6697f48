"""Finished OpenCompass runs on disk: where things are and the config that made them.

OpenCompass lays a run out as (``opencompass/cli/main.py``,
``opencompass/tasks/openicl_{infer,eval}.py``)::

    <work_dir>/<YYYYmmdd_HHMMSS>/
        configs/<YYYYmmdd_HHMMSS>_<pid>.py        # the whole config, dumped (one per launch)
        predictions/<model_abbr>/<dataset_abbr>.json   # or <dataset_abbr>_0.json, _1.json ... parts
        results/<model_abbr>/<dataset_abbr>.json  # what the evaluator returned

This module reads that layout and nothing else, as data: a saved config is
parsed (:func:`ast.parse` and a whitelist of literal forms), never executed,
so a run folder from anywhere can be read safely.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TypeGuard

from gpassk_opencompass.defaults import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES  # its readers import it here
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import UnreadableFile, find_files, read_bytes_bounded
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.scoring.readers.opencompass import prediction_parts as prediction_parts  # rejudge reads it here


def saved_config_paths(run_dir: Path) -> list[Path]:
    """The run's dumped configs (regular files, :func:`~gpassk_opencompass.files.find_files`), newest first (a
    ``-r`` relaunch adds one)."""
    return sorted(
        find_files(Path(run_dir) / "configs", "*.py"), key=lambda path: (path.stat().st_mtime, path.name), reverse=True
    )


#: Deepest nesting of dicts/lists/tuples a saved config may have (OpenCompass's dumps stay under 15).
MAX_CONFIG_DEPTH = 64

_CONSTANT_TYPES = (str, bytes, int, float, complex, bool, type(None))


class UnreadableConfig(InputError):
    """A saved config that is not read: not plain data, too large, too deep, or not Python.

    Its message is one line naming the file and the first offending line.
    """


def load_saved_config(path: Path | str) -> dict:
    """One dumped config as a plain dict, read as DATA: nothing in it is executed.

    OpenCompass dumps the whole config at launch (mmengine's ``Config.dump``)
    as a module of ``name = value`` assignments whose values are literals,
    ``dict(key=value, ...)`` calls and ``dict({...})`` calls.  This reads
    exactly that (see :func:`parse_saved_config`); anything else makes the
    whole file unreadable, and nothing of it runs.

    Raises:
        UnreadableConfig: the file cannot be read, is larger than
            :data:`MAX_CONFIG_BYTES`, or is not plain data (the message names
            the line).
    """
    path = Path(path)
    try:
        data = read_bytes_bounded(path, MAX_CONFIG_BYTES, "a dumped OpenCompass config")
    except UnreadableFile as error:
        raise UnreadableConfig(f"saved config {path} not read: {str(error).removeprefix(f'{path}: ')}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnreadableConfig(
            f"saved config {path} not read: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    try:
        return parse_saved_config(text)
    except UnreadableConfig as error:
        raise UnreadableConfig(redact(f"saved config {path} not read: {error}")) from None


def parse_saved_config(text: str) -> dict:
    """The assignments of a dumped OpenCompass config, evaluated as data only.

    The grammar accepted (anything else is refused, naming its line)::

        module     := (NAME "=" value NEWLINE)*         # one plain name per assignment
        value      := constant | "-" number | "+" number
                    | "[" values "]" | "(" values ")" | "{" values "}"      # list, tuple, set
                    | "{" (constant ":" value ",")* "}"                     # dict literal
                    | "dict(" (NAME "=" value ",")* ")"                      # keywords only
                    | "dict(" dict-literal ")"                               # mmengine's form for non-identifier keys
        constant   := str | bytes | int | float | complex | True | False | None

    Names whose value would be loaded from elsewhere (``_base_``) are refused
    too, and nesting is capped at :data:`MAX_CONFIG_DEPTH`.  Nothing is
    executed: the tree from :func:`ast.parse` is walked and values are built
    by this function.

    Raises:
        UnreadableConfig: the text is not Python, or holds anything outside the grammar.

    >>> parse_saved_config("models=[dict(abbr='m', temperature=-0.5, gen=dict({'top-k': 1}))]\\nn=(1, 2)")
    {'models': [{'abbr': 'm', 'temperature': -0.5, 'gen': {'top-k': 1}}], 'n': (1, 2)}
    >>> parse_saved_config("_ = __import__('os').system('touch PWNED')")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.plugin.runs.UnreadableConfig: contains code (line 1: a call to __import__('os').system, not dict(...): "_ = __import__('os').system('touch PWNED')")
    """
    try:
        tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        line = getattr(error, "lineno", None)
        where = f"line {line}: " if line else ""
        raise UnreadableConfig(f"not Python ({where}{getattr(error, 'msg', None) or error})") from None
    lines = text.splitlines()
    config: dict = {}
    for statement in tree.body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            raise _code(statement, lines, f"{_kind(statement)}, not a 'name = value' assignment")
        name = statement.targets[0].id
        if name == "_base_":
            raise _code(statement, lines, "_base_ loads other config files")
        config[name] = _value(statement.value, lines, depth=1)
    return config


def _value(node: ast.expr, lines: list[str], depth: int) -> object:
    """The value of one whitelisted expression node (see :func:`parse_saved_config`)."""
    if depth > MAX_CONFIG_DEPTH:
        raise UnreadableConfig(f"nested deeper than {MAX_CONFIG_DEPTH} levels (line {node.lineno})")
    if isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANT_TYPES):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and _is_number(node.operand.value)
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_value(item, lines, depth + 1) for item in node.elts]
        if isinstance(node, ast.List):
            return items
        if isinstance(node, ast.Tuple):
            return tuple(items)
        try:
            return set(items)
        except TypeError:
            raise UnreadableConfig(f"a set of unhashable values (line {node.lineno})") from None
    if isinstance(node, ast.Dict):
        return _dict_literal(node, lines, depth)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if not node.args and all(keyword.arg is not None for keyword in node.keywords):
            return {keyword.arg: _value(keyword.value, lines, depth + 1) for keyword in node.keywords}
        if len(node.args) == 1 and isinstance(node.args[0], ast.Dict) and not node.keywords:
            return _dict_literal(node.args[0], lines, depth)
        raise _code(node, lines, "dict(...) with other than keyword arguments or one {...}")
    if isinstance(node, ast.Call):
        raise _code(node, lines, f"a call to {_source(node.func, lines)}, not dict(...)")
    raise _code(node, lines, _kind(node))


def _dict_literal(node: ast.Dict, lines: list[str], depth: int) -> dict:
    present = [key for key in node.keys if key is not None]
    if len(present) < len(node.keys):
        raise _code(node, lines, "a ** unpacking in a dict")
    keys = []
    for key in present:
        if not (isinstance(key, ast.Constant) and isinstance(key.value, _CONSTANT_TYPES)) and not (
            isinstance(key, ast.UnaryOp) and isinstance(key.operand, ast.Constant)
        ):
            raise _code(key, lines, "a dict key that is not a constant")
        keys.append(_value(key, lines, depth + 1))
    values = [_value(value, lines, depth + 1) for value in node.values]
    return dict(zip(keys, values))


def _is_number(value: object) -> TypeGuard[int | float | complex]:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _kind(node: ast.AST) -> str:
    """A reader's name for a node type, with its article (``ImportFrom`` -> ``an import from``).

    >>> _kind(ast.parse("import os").body[0]), _kind(ast.parse("f'{x}'").body[0].value)
    ('an import', 'a joined str')
    """
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(node).__name__).lower()
    return f"{'an' if name[0] in 'aeio' else 'a'} {name}"


def _source(node: ast.expr, lines: list[str], limit: int = 60) -> str:
    """The node's text (first line only, shortened), for a message."""
    line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
    end = node.end_col_offset if node.end_lineno == node.lineno else len(line)
    text = line[node.col_offset : end].strip() or line.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code(node: ast.expr | ast.stmt, lines: list[str], what: str) -> UnreadableConfig:
    line = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
    if len(line) > 80:
        line = line[:79] + "…"
    return UnreadableConfig(f"contains code (line {node.lineno}: {what}: {json.dumps(line, ensure_ascii=False)})")


def find_entry(entries: object, abbr: str) -> Mapping | None:
    """The ``models``/``datasets`` entry with this abbr.

    An entry without ``abbr`` matches when it is the only one (OpenCompass
    then derives the abbr from type and path).

    >>> find_entry([{"abbr": "a"}, {"abbr": "b"}], "b")
    {'abbr': 'b'}
    >>> find_entry([{"path": "x"}], "anything")
    {'path': 'x'}
    >>> find_entry([{"abbr": "a"}], "b") is None
    True
    """
    if not isinstance(entries, list):
        return None
    entries = [entry for entry in entries if isinstance(entry, Mapping)]
    for entry in entries:
        if entry.get("abbr") == abbr:
            return entry
    if len(entries) == 1 and "abbr" not in entries[0]:
        return entries[0]
    return None
