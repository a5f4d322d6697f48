"""The front door: the metric card's ``compute()`` and ``evaluate.load(EVALUATE_SCRIPT)``, ``dir()``, a silent
library, one spelling of k, annotated public functions.

Golden values: the G-Pass@k metric card's published worked example (``metric_card.METRIC_CARD``) and the exact
rationals of ``exact.py`` (``fractions.Fraction`` and ``math.comb``), never the code under test.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
import setuptools

import gpassk_opencompass
from exact import exact_g_pass, exact_mg_pass
from gpassk_opencompass import EVALUATE_SCRIPT, Question, ResultsFile, compute, metrics, score
from gpassk_opencompass.errors import InputError
from metric_card import METRIC_CARD

ROOT = Path(__file__).resolve().parents[1]
#: The metric card's worked example: 16 predictions for one question whose reference is "a" (8 of them "a").
CARD_PREDICTIONS = ["a", "b", "a", "a", "b", "a", "b", "c", "a", "c", "b", "a", "a", "b", "a", "b"]
CARD_THRESHOLDS = ("0.25", "0.5", "0.75", "1.0")


def equal(pred: str, ref: str) -> bool:
    return pred == ref


def exact_means(counts: list[int], ns: list[int], ks: list[int], thresholds=CARD_THRESHOLDS) -> dict[str, Fraction]:
    """The card's dict, exactly: per k and tau the mean G-Pass@k_tau, then per k the mean mG-Pass@k."""
    table = {
        f"G-Pass@{k}_{float(tau)}": sum(exact_g_pass(n, c, k, tau) for c, n in zip(counts, ns)) / len(counts)
        for k in ks
        for tau in thresholds
    }
    table.update({f"mG-Pass@{k}": sum(exact_mg_pass(n, c, k) for c, n in zip(counts, ns)) / len(counts) for k in ks})
    return table


def questions_with(counts: list[int], ns: list[int]) -> tuple[list[list[str]], list[str]]:
    """Predictions with ``counts[i]`` right answers ("a") among ``ns[i]``, in a scrambled order."""
    predictions = [[("a" if (j * 7) % n < c else "b") for j in range(n)] for c, n in zip(counts, ns)]
    return predictions, ["a"] * len(counts)


# ---------------------------------------------------------------- compute(): the card's interface


def test_compute_reproduces_the_metric_card_example():
    result = compute(predictions=[CARD_PREDICTIONS], references=["a"], k=[4, 8], check_correct_fn=equal)
    assert list(result) == list(METRIC_CARD)  # the card's keys, in the card's order, on its 0-1 scale
    exact = exact_means([8], [16], [4, 8])
    for key, published in METRIC_CARD.items():
        assert result[key] == pytest.approx(published, rel=2e-15, abs=0), key
        assert abs(result[key] - exact[key]) <= 3e-16, key


@pytest.mark.parametrize(
    "counts, ns, ks",
    [
        ([0, 1, 5, 8, 12, 16], [16] * 6, [1, 4, 8, 16]),
        ([3, 7, 20, 0], [20, 9, 24, 12], [2, 5, 9]),  # n differs between questions
        ([1], [1], [1]),
    ],
)
def test_compute_is_the_exact_mean_over_questions(counts, ns, ks):
    predictions, references = questions_with(counts, ns)
    result = compute(predictions, references, k=ks, check_correct_fn=equal)
    exact = exact_means(counts, ns, ks)
    assert list(result) == list(exact)
    for key, value in exact.items():
        assert result[key] == pytest.approx(float(value), abs=1e-14), key


def test_compute_judges_with_the_rule_judge_by_default():
    predictions = [[r"so it is \boxed{\frac{1}{2}}", "0.5", r"\boxed{2}"]]
    result = compute(predictions, ["1/2"], k=[1, 2], thresholds=[1.0])
    assert result == pytest.approx({"G-Pass@1_1.0": 2 / 3, "G-Pass@2_1.0": 1 / 3, "mG-Pass@1": 0.0, "mG-Pass@2": 1 / 3})


def test_the_default_k_is_the_cards_less_any_above_n():
    predictions, references = questions_with([3, 5], [8, 8])
    assert {key.split("_")[0] for key in compute(predictions, references, check_correct_fn=equal)} == {
        "G-Pass@4",
        "G-Pass@8",
        "mG-Pass@4",
        "mG-Pass@8",
    }
    assert list(metrics.summarize([3, 2], 4, thresholds=[1.0])) == ["G-Pass@4_1.0", "mG-Pass@4"]
    assert list(metrics.summarize([3, 20], [16, 48], thresholds=[1.0]))[-1] == "mG-Pass@16"
    with pytest.raises(InputError, match=r"no default k \(4, 8, 16\) is at most n=3.*give k \(each at most 3\)"):
        compute(*questions_with([1, 2], [3, 5]), check_correct_fn=equal)


def test_an_explicit_k_above_n_is_refused_before_anything_is_judged():
    asked = []

    def counting(pred, ref):
        asked.append(pred)
        return pred == ref

    with pytest.raises(InputError, match=r"got k=16 with n=8|has 8 prediction\(s\); at least 16 are needed"):
        compute(*questions_with([3], [8]), k=[4, 16], check_correct_fn=counting)
    assert asked == []


@pytest.mark.parametrize(
    "check, reason",
    [
        (lambda pred, ref: 1 / 0 if pred == "c" else pred == ref, "raised ZeroDivisionError"),
        (lambda pred, ref: "maybe" if pred == "c" else pred == ref, "returned"),
    ],
)
def test_an_unjudged_prediction_is_an_error_naming_it(check, reason):
    predictions = [["a", "b"], ["b", "a", "c", "a", "c"]]
    with pytest.raises(InputError) as raised:
        compute(predictions, ["a", "a"], k=[2], check_correct_fn=check)
    message = str(raised.value)
    assert message.startswith("predictions[1][2] could not be judged: ")
    assert reason in message and "(2 of the 5 predictions of question 1)" in message
    assert "no number over unjudged predictions: give a check_correct_fn that returns True or False" in message


def test_predictions_and_references_must_pair_up():
    with pytest.raises(InputError, match="got 2 lists of predictions and 1 references"):
        compute([["a"], ["b"]], ["a"], k=[1], check_correct_fn=equal)
    with pytest.raises(InputError, match='"predictions" must be a list of strings'):
        compute([["a", "b"], "ab"], ["a", "b"], k=[1], check_correct_fn=equal)


# ---------------------------------------------------------------- the evaluate metric script


def test_the_evaluate_script_ships_in_the_package_and_only_calls_compute():
    script = Path(EVALUATE_SCRIPT)
    assert script.is_file() and script.parent == Path(gpassk_opencompass.__file__).parent / "card"
    packages = setuptools.find_packages(where=str(ROOT), include=["gpassk_opencompass*"])  # what the wheel holds
    assert "gpassk_opencompass.card" in packages
    tree = ast.parse(script.read_text(encoding="utf-8"))
    (metric,) = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    assert [node.name for node in tree.body if isinstance(node, ast.FunctionDef)] == []
    compute_body = next(node for node in metric.body if isinstance(node, ast.FunctionDef) and node.name == "_compute")
    assert ast.unparse(compute_body.body[-1]) == "return compute(predictions, references, **options)"
    assert "from gpassk_opencompass.card import compute" in script.read_text(encoding="utf-8")


@pytest.mark.e2e  # evaluate imports transformers: about 10 s of CPU before the first line runs
def test_evaluate_load_of_the_script_reproduces_the_metric_card_offline(tmp_path):
    pytest.importorskip("evaluate")
    code = textwrap.dedent(f"""
        import json, sys
        import evaluate
        import gpassk_opencompass

        metric = evaluate.load(gpassk_opencompass.EVALUATE_SCRIPT)
        result = metric.compute(predictions=[{CARD_PREDICTIONS!r}], references=["a"], k=[4, 8],
                                check_correct_fn=lambda pred, ref: pred == ref)
        print(json.dumps(result))
    """)
    offline = {"HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    environment = {**os.environ, **offline, "HF_HOME": str(tmp_path / "hf"), "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300, cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads(completed.stdout.splitlines()[-1])
    assert result == compute([CARD_PREDICTIONS], ["a"], k=[4, 8], check_correct_fn=equal)  # the same function
    assert list(result) == list(METRIC_CARD)
    for key, published in METRIC_CARD.items():
        assert result[key] == pytest.approx(published, rel=2e-15, abs=0), key


# ---------------------------------------------------------------- the top level: dir(), types, annotations


def test_dir_lists_the_lazy_names_and_the_types_import_from_the_top():
    listed = dir(gpassk_opencompass)
    for name in ("score", "GPassKEvaluator", "JudgeSettings", "compute", "EVALUATE_SCRIPT", "ResultsFile", "Question"):
        assert name in listed, name
    assert set(gpassk_opencompass.__all__) <= set(listed)
    assert not {"Any", "TYPE_CHECKING", "import_module"} & set(listed), "dir() lists the module's own imports"
    results = score([Question("q", "", "a", ("a", "b"))], k=1, judge=equal, cache=False, progress=False)
    assert isinstance(results, ResultsFile) and results.complete


def test_every_public_function_is_annotated():
    public = [getattr(metrics, name) for name in metrics.__all__] + [compute, score]
    public += [
        getattr(gpassk_opencompass, name)
        for name in gpassk_opencompass.__all__
        if not gpassk_opencompass._LAZY.get(name, "").startswith(".plugin")  # classes, importing OpenCompass
    ]
    missing = [
        f"{function.__name__}({name})"
        for function in public
        if inspect.isfunction(function)
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.annotation is inspect.Parameter.empty and parameter.kind is not parameter.VAR_KEYWORD
    ]
    missing += [
        f"{function.__name__} -> ?"
        for function in public
        if inspect.isfunction(function) and inspect.signature(function).return_annotation is inspect.Signature.empty
    ]
    assert missing == []


def test_one_spelling_of_k():
    for function in (metrics.summarize, metrics.summarize_uncertainty, metrics.per_question_values, compute, score):
        assert "k" in inspect.signature(function).parameters and "ks" not in inspect.signature(function).parameters
    assert metrics.summarize([8], 16, k=4, thresholds=[1.0]) == metrics.summarize([8], 16, k=[4], thresholds=[1.0])


# ---------------------------------------------------------------- a silent library


def test_score_from_python_writes_nothing_on_stderr(tmp_path):
    """No log line, no progress bar: the judges' and the flow's records are off until the caller turns them on."""
    code = textwrap.dedent("""
        import sys
        from gpassk_opencompass import score

        def strict(pred, ref):
            if pred == "c":
                raise ValueError("no rule for c")  # an unresolved verdict: a WARNING once logging is on
            return pred == ref

        questions = [{"id": "q", "question": "", "answer": "a", "predictions": ["a", "b", "c"]}]
        assert not score(questions, k=[2], judge=strict).complete
        print("then, turned on:", file=sys.stderr)
        from gpassk_opencompass.log import enable_logging
        enable_logging()
        score(questions, k=[2], judge=strict)
    """)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300, cwd=tmp_path
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    silent, _, turned_on = completed.stderr.partition("then, turned on:\n")
    assert silent == ""
    assert "1 unresolved" in turned_on  # what the first call kept to itself
