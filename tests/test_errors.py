"""A user mistake is an ``InputError`` (a ``ValueError``, for Python callers); anything else is a bug with its traceback.

The one mapper from exception to exit code (``cli.ending``), applied by ``cli.main`` to every command, and the
paths that used to turn any ``ValueError`` into the user's mistake: ``gpassk score`` (an internal error in the
metrics) and ``gpassk rejudge`` (an internal error while building the evaluator).
"""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gpassk_opencompass import compute, score
from gpassk_opencompass.cli import (
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_JUDGE_FAILED,
    EXIT_USAGE,
    EXIT_WRITE_FAILED,
    Resumable,
    Terminated,
    ending,
)
from gpassk_opencompass.errors import IncompleteResults, InputError, WriteError
from gpassk_opencompass.judges import JudgeError
from gpassk_opencompass.metrics import g_pass_at_k, pass_at_k, summarize
from scoring_fixtures import generations, write_jsonl

REPOSITORY = Path(__file__).resolve().parent.parent
KEPT = Resumable("every verdict that arrived is kept in c.jsonl", store="c.jsonl")
FULL = "out.json: cannot write (No space left on device); nothing was written there: free some space, then run again"
RESUME = "run the same command again to resume"


def test_an_input_error_is_a_value_error_and_still_the_only_exit_2():
    """Python's convention for a bad argument (scikit-learn's ``InvalidParameterError``); the CLI's codes stay."""
    assert issubclass(InputError, ValueError)
    assert ending(InputError("--k 16: k must be <= n = 8"))[0] == EXIT_USAGE
    assert ending(ValueError("an internal invariant broke")) is None  # a plain ValueError is still a bug


BAD_CALLS = {
    "g_pass_at_k with c > n": lambda: g_pass_at_k(4, 5, 2, 0.5),
    "g_pass_at_k with k > n": lambda: g_pass_at_k(4, 2, 8, 0.5),
    "mg_pass_at_k with tau 2": lambda: g_pass_at_k(4, 2, 2, 2.0),
    "pass_at_k with k 0": lambda: pass_at_k(4, 2, 0),
    "summarize with mismatched counts": lambda: summarize([1, 2], [4, 4, 4], k=[2]),
    "score with an unknown keyword": lambda: score([], k=4, n_boots=5),
    "compute with k above n": lambda: compute(predictions=[["a"]], references=["a"], k=[2]),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_except_value_error_around_a_metrics_call_catches_a_bad_argument(call):
    """From Python, as around numpy or scikit-learn: the bad argument is caught, and it is the user's mistake."""
    try:
        call()
    except ValueError as error:
        assert isinstance(error, InputError) and "\n" not in str(error)
    else:
        pytest.fail("no ValueError for a bad argument")


def _catches_value_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(kind, ast.Name) and kind.id == "ValueError" for kind in kinds)


def _own_names(tree: ast.Module) -> set[str]:
    """Functions and classes the module defines or imports from the package: the package's own code."""
    names = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpassk_opencompass"):
            names |= {alias.asname or alias.name for alias in node.names}
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name for alias in node.names if alias.name.startswith("gpassk")}
    return names


#: Handlers whose ``try`` calls a function of the package, each only because the function is a thin wrapper of a
#: foreign computation whose ValueError is meant: (module, function called) -> why.
FOREIGN_THROUGH_OWN = {
    # sympy's evaluation of both sides at a point: the closure is math-verify's bounded evalf, the formatter
    # sympy's as_real_imag / evalf and float() of a sympy number
    ("judges/rule.py", "values"): "math-verify's bounded sympy evalf",
    ("judges/rule.py", "_shown"): "sympy's as_real_imag and float() of a sympy number",
}


def test_no_code_catches_value_error_around_its_own_code():
    """Every ``except ValueError`` in the package wraps foreign calls only (numpy, json, shlex, float(), ...):
    an ``InputError`` (a ``ValueError``) or a bug's ``ValueError`` from the package's own code is never caught
    and taken for something else. ``suppress(ValueError)`` counts too."""
    wrong = []
    package = REPOSITORY / "gpassk_opencompass"
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = _own_names(tree)
        guarded: list[tuple[int, list[ast.stmt]]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(_catches_value_error(h) for h in node.handlers if h.type):
                guarded.append((node.lineno, node.body))
            if isinstance(node, ast.With):
                for item in node.items:
                    call = item.context_expr
                    if (
                        isinstance(call, ast.Call)
                        and getattr(call.func, "id", getattr(call.func, "attr", "")) == "suppress"
                        and any(getattr(arg, "id", "") == "ValueError" for arg in call.args)
                    ):
                        guarded.append((node.lineno, node.body))
        for line, body in guarded:
            for statement in body:
                for call in (node for node in ast.walk(statement) if isinstance(node, ast.Call)):
                    func = call.func
                    root = func
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    name = func.id if isinstance(func, ast.Name) else getattr(root, "id", "")
                    if name in own and (where, name) not in FOREIGN_THROUGH_OWN:
                        wrong.append(f"{where}:{line}: except ValueError around the package's own {name}()")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "error, resumable, code, line",
    [
        (InputError("--k 16: k must be <= n = 8"), KEPT, EXIT_USAGE, "error: --k 16: k must be <= n = 8"),
        (
            IncompleteResults("a.json has 1 unresolved verdict"),
            None,
            EXIT_INCOMPLETE,
            "a.json has 1 unresolved verdict",
        ),
        (
            JudgeError("cannot reach the judge."),
            KEPT,
            EXIT_JUDGE_FAILED,
            f"the judge failed: cannot reach the judge; {KEPT.left}; {RESUME}",
        ),
        (
            JudgeError("stopped answering; kept in c.jsonl", arrived=3),
            KEPT,
            EXIT_JUDGE_FAILED,
            "the judge failed: stopped answering; kept in c.jsonl",
        ),
        (WriteError(FULL, "out.json"), KEPT, EXIT_WRITE_FAILED, f"error: {FULL}; {KEPT.left}"),
        (WriteError(FULL, "c.jsonl"), KEPT, EXIT_WRITE_FAILED, f"error: {FULL}"),  # the store says what it kept
        (WriteError(FULL, "out.json"), Resumable("kept", after_write=False), EXIT_WRITE_FAILED, f"error: {FULL}"),
        (WriteError(FULL, "out.json"), None, EXIT_WRITE_FAILED, f"error: {FULL}"),
        (KeyboardInterrupt(), KEPT, EXIT_INTERRUPTED, f"interrupted; {KEPT.left}; {RESUME}"),
        (KeyboardInterrupt(), None, EXIT_INTERRUPTED, "interrupted"),
        (Terminated(signal.SIGHUP), None, 129, "terminated by SIGHUP"),
    ],
)
def test_one_mapper_gives_each_ending_its_code_and_line(error, resumable, code, line):
    assert ending(error, resumable) == (code, line)


@pytest.mark.parametrize("error", [ValueError("boom"), KeyError("boom"), RuntimeError("boom"), TypeError("boom")])
def test_anything_else_is_a_bug(error):
    assert ending(error, KEPT) is None


def test_an_internal_error_in_scoring_exits_1_with_its_traceback(tmp_path):
    """A ``ValueError`` inside the metrics during ``gpassk score`` is a bug: not ``error: boom`` and exit 2."""
    source = write_jsonl(tmp_path / "gens.jsonl", generations([2, 4], n=4))
    broken_metrics = (
        "import sys\n"
        "from gpassk_opencompass import metrics\n"
        "from gpassk_opencompass.cli import main\n"
        "def broken(*args, **kwargs):\n"
        "    raise ValueError('boom')\n"
        "metrics._gather = broken  # every G-Pass@k computation gathers its tail table here\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", broken_metrics, "score", str(source), "--k", "4", "--quiet"],
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        timeout=300,
    )
    assert completed.returncode == 1
    assert "Traceback (most recent call last)" in completed.stderr
    assert completed.stderr.rstrip().endswith("ValueError: boom")
    assert "gpassk score: error" not in completed.stderr


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_an_internal_error_building_the_rejudge_evaluator_is_not_the_users(monkeypatch):
    """``gpassk rejudge`` builds the evaluator before judging; a ``ValueError`` inside is a bug, not bad input."""
    from gpassk_opencompass.plugin import evaluator, rejudge

    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(evaluator, "resolve_judge", broken)
    with pytest.raises(ValueError, match="boom") as error:
        rejudge._instantiate_evaluator({"eval_cfg": {"evaluator": {"type": evaluator.GPassKEvaluator}}})
    assert type(error.value) is ValueError
