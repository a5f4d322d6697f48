"""``analysis.comparison``: run A vs run B from results files (golden values: the exact oracle, brute-force
sign-flip enumeration)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from analysis_docs import write
from exact import exact_g_pass, exact_mg_pass
from gpassk_opencompass.analysis.comparison import compare, compare_results
from gpassk_opencompass.analysis.inputs import load_with_details
from gpassk_opencompass.errors import IncompleteResults, InputError

T, F, N = True, False, None


def matrix_of(counts, n):
    return [[bool(g < c) for g in range(n)] for c in counts]


def brute_force_p(differences):
    observed = abs(sum(differences))
    hits = sum(
        abs(sum(s * d for s, d in zip(signs, differences))) >= observed
        for signs in itertools.product((1, -1), repeat=len(differences))
    )
    return Fraction(hits, 2 ** len(differences))


def test_differences_and_p_values_match_exact_computation(tmp_path):
    counts_a, counts_b = [6, 5, 2, 6, 3, 0, 4], [4, 5, 0, 1, 3, 1, 2]
    ids = [f"id{i}" for i in range(7)]
    path_a = write(tmp_path / "a.json", matrix_of(counts_a, 6), ids=ids, ks=(2, 6))
    # B lists its questions in another order: aligned by id
    order = [3, 0, 6, 1, 5, 2, 4]
    path_b = write(
        tmp_path / "b.json", [matrix_of(counts_b, 6)[i] for i in order], ids=[ids[i] for i in order], ks=(6, 2)
    )
    report = compare_results(load_with_details(path_a), load_with_details(path_b), n_boot=500)
    results = {d.metric: d for d in report.differences}
    assert next(iter(results)) == "accuracy (6 runs average)" and report.questions == 7 and report.n == 6
    for k in (2, 6):
        for tau in ("0.5", "1.0"):
            per_question = [exact_g_pass(6, a, k, tau) - exact_g_pass(6, b, k, tau) for a, b in zip(counts_a, counts_b)]
            result = results[f"G-Pass@{k}_{tau}"]
            assert result.difference == pytest.approx(float(100 * sum(per_question) / 7), abs=1e-9)
            nonzero = [d for d in per_question if d != 0]
            assert result.p_value == pytest.approx(float(brute_force_p(nonzero)), abs=1e-12)
            assert result.ci_low <= result.difference <= result.ci_high
        mg = [exact_mg_pass(6, a, k) - exact_mg_pass(6, b, k) for a, b in zip(counts_a, counts_b)]
        assert results[f"mG-Pass@{k}"].difference == pytest.approx(float(100 * sum(mg) / 7), abs=1e-9)


@pytest.mark.parametrize(
    "b_options, message",
    [
        (dict(matrix=matrix_of([1, 2, 3], 4), ids=["q0", "q1", "q7"]), "do not share their questions"),
        (dict(matrix=matrix_of([1, 2], 6)), "n differs: run A has n=4, run B has n=6"),
        (dict(matrix=matrix_of([1, 2], 4), ks=(4,)), "k differs: run A reports k=(2,), run B reports k=(4,)"),
        (dict(matrix=matrix_of([1, 2], 4), benchmark="Other"), "different benchmarks"),
    ],
)
def test_runs_that_do_not_share_questions_n_k_or_benchmark_are_refused(tmp_path, b_options, message):
    path_a = write(tmp_path / "a.json", matrix_of([1, 2], 4))
    options = dict(b_options)
    path_b = write(tmp_path / "b.json", options.pop("matrix"), **options)
    with pytest.raises(InputError) as info:
        compare(path_a, path_b)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_run_with_unresolved_verdicts_is_not_compared(tmp_path):
    path_a = write(tmp_path / "a.json", [[T, N], [F, F]])
    path_b = write(tmp_path / "b.json", [[T, T], [F, F]])
    with pytest.raises(IncompleteResults, match="1 unresolved verdict"):
        compare(path_a, path_b)


def test_seeded_and_markdown_lists_every_metric(tmp_path):
    rng = np.random.default_rng(5)
    path_a = write(tmp_path / "a.json", matrix_of(rng.integers(0, 9, 30), 8), ks=(4,))
    path_b = write(tmp_path / "b.json", matrix_of(rng.integers(0, 9, 30), 8), ks=(4,))
    first = compare(path_a, path_b, json_path=tmp_path / "c.json")
    assert compare(path_a, path_b) == first
    assert "| G-Pass@4_1.0 |" in first and "| mG-Pass@4 |" in first and "monte-carlo" in first
    assert '"schema": "gpassk-compare/1"' in (tmp_path / "c.json").read_text()
