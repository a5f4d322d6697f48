"""Validate at the entry, trust inside (torchmetrics' ``validate_args`` habit): a request is checked once, where it
enters (the CLI's ``ScoringRequest``, ``score()``, ``compute()``, the evaluator, a results file the leaderboard
reads), and the metrics below take the checked values without checking them again.

Each check is wrapped by a counter at its home and wherever a module of the package imported it, and the real
``gpassk score`` / ``gpassk leaderboard`` run. Before this, one ``gpassk score`` ran ``check_request`` 3 times and
``check_bootstrap`` 5; a leaderboard of 12 results files ran ``check_request`` 12 times and ``int_array`` 480.
"""

from __future__ import annotations

import collections
import json
import sys

import pytest

from gpassk_opencompass import checks, metrics
from gpassk_opencompass.errors import InputError
from in_process import run_main
from leaderboard_workdirs import standard_grid, write_run

#: Each check and its home.
CHECKS = {
    "check_request": metrics,
    "check_bootstrap": metrics,
    "check_arguments": metrics,
    "int_array": checks,
}


@pytest.fixture
def calls(monkeypatch) -> collections.Counter:
    """How many times each of :data:`CHECKS` ran, counted at its home and at every import of it."""
    counted: collections.Counter = collections.Counter()
    for name, home in CHECKS.items():
        real = getattr(home, name)

        def counting(*args, _name=name, _real=real, **kwargs):
            counted[_name] += 1
            return _real(*args, **kwargs)

        counting.__wrapped__ = real  # type: ignore[attr-defined]
        holders = [  # a module imported while an earlier test counted holds that test's counter: replaced too
            module
            for module_name, module in list(sys.modules.items())
            if module_name.startswith("gpassk_opencompass")
            and real in (getattr(module, name, None), getattr(getattr(module, name, None), "__wrapped__", None))
        ]
        assert home in holders
        for module in holders:
            monkeypatch.setattr(module, name, counting)
    return counted


def test_one_gpassk_score_checks_its_request_once(tmp_path, capsys, calls):
    rows = [
        {"id": f"q{i}", "question": f"{i}+1?", "answer": str(i + 1), "predictions": [rf"\boxed{{{i + 1}}}", "x"] * 2}
        for i in range(3)
    ]
    path = tmp_path / "gens.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = run_main(capsys, "score", str(path), "--k", "2", "4", "--judge", "rule", "--quiet", "--no-cache")
    assert result.returncode == 0, result.stderr
    # the request's ks (the one array that enters the metrics' checks), its k and tau, its bootstrap: once each
    assert calls == {"check_request": 1, "int_array": 1, "check_bootstrap": 1}


def test_a_leaderboard_checks_each_results_file_once(tmp_path, capsys, calls):
    specs = standard_grid()[:4]
    for index in range(2):
        write_run(tmp_path / "outputs", f"2025021{index}_101500", specs)
    files = 2 * len(specs)
    result = run_main(capsys, "leaderboard", str(tmp_path / "outputs"), "--output", str(tmp_path / "board.md"))
    assert result.returncode == 0, result.stderr
    # each results file's request (the k and tau of its keys) once, and its three arrays once: ks, c and n
    assert calls == {"check_request": files, "check_arguments": files, "int_array": 3 * files}


@pytest.mark.parametrize(
    "call",
    [
        lambda: metrics.summarize([1, 2], 2, k=[3]),
        lambda: metrics.summarize_uncertainty([1, 2], 2, k=[2], thresholds=[0.5, 0.5]),
        lambda: metrics.summarize_uncertainty([1, 2], 2, k=[1], n_boot=0),
        lambda: metrics.per_question_values([1, 2.5], 2, [1], [1.0]),
    ],
)
def test_python_callers_still_have_bad_arguments_refused(call):
    with pytest.raises(InputError):
        call()


def test_one_compute_checks_its_request_once(calls):
    from gpassk_opencompass.card import compute

    values = compute([["a", "b", "a", "a"], ["b", "b", "a", "c"]], ["a", "b"], k=[2, 4], check_correct_fn=str.__eq__)
    assert values["G-Pass@4_1.0"] == 0.0  # neither question is right 4 times of 4
    # score()'s request on construction (its ks: the one array), its bootstrap before judging; the card's means trust it
    assert calls == {"check_request": 1, "int_array": 1, "check_bootstrap": 1}


@pytest.mark.e2e
def test_the_evaluator_checks_its_config_once_and_each_k_once(calls):
    # deferred: imports OpenCompass (BaseEvaluator), which only the e2e step pays for
    from evaluator_fixtures import run as run_evaluator
    from gpassk_opencompass import GPassKEvaluator

    evaluator = GPassKEvaluator(judge="rule", thresholds=[0.5, 1.0])
    assert calls == {"check_request": 1, "int_array": 1}  # the config's request, on construction
    run_evaluator(evaluator, k=[2, 4])
    # this k's request (its ks), then its bootstrap before judging: nothing inside checks again
    assert calls == {"check_request": 2, "int_array": 2, "check_bootstrap": 1}
