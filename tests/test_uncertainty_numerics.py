"""The shared numerics of uncertainty/ against exact rationals, the prior checked once, no private imports.

Golden values come from exact integer arithmetic (``math.comb``, rising factorials, a rational's numerator and
denominator from ``fractions.Fraction``), never from the code under test.
"""

from __future__ import annotations

import ast
import math
import os
import pathlib
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import pmf_from_log_ratios
from gpassk_opencompass.scoring.request import ScoringRequest
from gpassk_opencompass.uncertainty.bayes import bayes_interval_counts, posterior_moments
from gpassk_opencompass.uncertainty.numerics import beta_binomial_pmf, binomial_pmf, check_prior
from gpassk_opencompass.uncertainty.planner import pilot_probabilities

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "gpassk_opencompass"
#: Probabilities are exact to about 1e-16 in absolute terms (measured: benchmarks/bench_numerics.py).
TOLERANCE = 1e-14


def _rising(x: Fraction, count: int) -> list[int]:
    """The rising factorials (x)_0 .. (x)_count, each times ``denominator(x) ** j``: integers."""
    out = [1]
    for i in range(count):
        out.append(out[-1] * (x.numerator + i * x.denominator))
    return out


def exact_beta_binomial(trials: int, a: Fraction, b: Fraction) -> tuple[list[int], int]:
    """C(N, j) (a)_j (b)_(N-j) / (a+b)_N: the Beta-Binomial by rising factorials, as integer numerators over one
    common denominator (exact, and no gcd of huge integers to reduce them)."""
    rising_a, rising_b, total = _rising(a, trials), _rising(b, trials), _rising(a + b, trials)[-1]
    da, db, ds = a.denominator, b.denominator, (a + b).denominator
    numerators = [
        math.comb(trials, j) * rising_a[j] * da ** (trials - j) * rising_b[trials - j] * db**j * ds**trials
        for j in range(trials + 1)
    ]
    return numerators, da**trials * db**trials * total


def exact_binomial(trials: int, p: Fraction) -> tuple[list[int], int]:
    """C(N, j) p^j (1 - p)^(N-j) as integer numerators over one common denominator."""
    up, down = [1], [1]
    for _ in range(trials):
        up.append(up[-1] * p.numerator)
        down.append(down[-1] * (p.denominator - p.numerator))
    return [math.comb(trials, j) * up[j] * down[trials - j] for j in range(trials + 1)], p.denominator**trials


def _max_error(values: np.ndarray, exact: tuple[list[int], int]) -> float:
    """The largest ``|value - exact|``, each difference exact and rounded once (integer true division)."""
    numerators, denominator = exact
    worst = 0.0
    for value, numerator in zip(values.tolist(), numerators):
        a, b = float(value).as_integer_ratio()
        worst = max(worst, abs((a * denominator - numerator * b) / (b * denominator)))
    return worst


# ------------------------------------------------------------ the one recurrence


@settings(max_examples=60, deadline=None)
@given(trials=st.integers(1, 400), numerator=st.integers(0, 1000))
def test_binomial_rows_match_exact_rationals(trials, numerator):
    p = Fraction(float(Fraction(numerator, 1000)))  # the float the code is given, exactly
    row = binomial_pmf(trials, [float(p)])[0]
    assert _max_error(row, exact_binomial(trials, p)) <= TOLERANCE
    assert row.sum() == pytest.approx(1.0, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(trials=st.integers(1, 300), a=st.integers(1, 2000), b=st.integers(1, 2000), halves=st.booleans())
def test_beta_binomial_rows_match_exact_rationals(trials, a, b, halves):
    a, b = (Fraction(a, 2), Fraction(b, 2)) if halves else (Fraction(a), Fraction(b))
    row = beta_binomial_pmf(trials, np.array([float(a)]), np.array([float(b)]))[0]
    assert _max_error(row, exact_beta_binomial(trials, a, b)) <= TOLERANCE


@pytest.mark.parametrize("trials, a, b", [(2000, 1001, 1), (2000, 3, 997), (1200, Fraction(1, 2), Fraction(1, 2))])
def test_beta_binomial_is_exact_for_large_n_and_extreme_posteriors(trials, a, b):
    row = beta_binomial_pmf(trials, np.array([float(a)]), np.array([float(b)]))[0]
    assert _max_error(row, exact_beta_binomial(trials, Fraction(a), Fraction(b))) <= TOLERANCE


def test_pmf_from_log_ratios_finds_the_mode_itself_and_honours_the_support():
    # Binomial(3, 1/2): ratios 3, 1, 1/3; the same row with the support cut to {1, 2} renormalises
    log_ratio = np.log([[3.0, 1.0, 1 / 3]])
    assert pmf_from_log_ratios(log_ratio)[0].tolist() == pytest.approx([1 / 8, 3 / 8, 3 / 8, 1 / 8], abs=1e-16)
    cut = pmf_from_log_ratios(log_ratio, np.array([[1]]), outside=np.array([[True, False, False, True]]))
    assert cut.tolist() == [[0.0, 0.5, 0.5, 0.0]]


def test_posterior_moments_stay_exact_with_a_beta_binomial_of_1000_trials():
    # k = 500 draws: the variance needs Beta-Binomial(1000, a, b); p ~ Beta(5, 1), v = [J = k], so
    # E[theta] = E[p^k] = (5)_k / (6)_k = 5 / (k + 5) and E[theta^2] = 5 / (2k + 5)
    k = 500
    moments = posterior_moments([4], 4, k, 1.0)
    mean, second = Fraction(5, k + 5), Fraction(5, 2 * k + 5)
    assert float(moments.mean[0]) == pytest.approx(float(mean), rel=1e-12)
    assert float(moments.variance[0]) == pytest.approx(float(second - mean**2), rel=1e-10)


# ------------------------------------------------------------ the prior, once


@pytest.mark.parametrize(
    "prior, message",
    [
        ((1, 0), "prior beta0 must be a finite number > 0; got 0"),
        ((float("nan"), 1), "prior alpha0 must be a finite number > 0; got nan"),
        ((True, 1), "prior alpha0 must be a finite number > 0; got True"),
        ((1,), "prior must be a pair (alpha0, beta0) of positive numbers, the Beta prior's A B; got (1,)"),
    ],
)
def test_the_prior_is_checked_once_with_one_error_everywhere(prior, message):
    calls = [
        lambda: check_prior(prior),
        lambda: ScoringRequest(ks=(4,), interval="bayes", prior=prior),
        lambda: bayes_interval_counts([1], 4, k=[2], prior=prior),
        lambda: posterior_moments([1], 4, 2, 1.0, prior=prior),
        lambda: pilot_probabilities([1], 4, prior=prior),
    ]
    for call in calls:
        with pytest.raises(InputError) as error:
            call()
        assert str(error.value) == message


# ------------------------------------------------------------ no private helpers across modules


def private_imports(root: pathlib.Path) -> list[str]:
    """``file:line: from module import _name`` for every private name one package module imports from another."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gpassk_opencompass"):
                found += [
                    f"{path.relative_to(root.parent)}:{node.lineno}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    return found


def test_no_module_imports_a_private_name_of_another():
    assert private_imports(PACKAGE) == []


def test_the_one_recurrence_keeps_the_package_import_free_of_scipy():
    """metrics holds the recurrence so that ``import gpassk_opencompass`` needs only numpy (docs/architecture.md)."""
    code = (
        "import sys, gpassk_opencompass, gpassk_opencompass.metrics; "
        "print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
    assert result.stdout.strip() == "[]"
