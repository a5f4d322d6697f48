"""Hand-made results documents for the analysis tests, written with ``scoring.results.write_results``."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from scipy import stats

from exact import exact_g_pass, exact_mg_pass
from gpassk_opencompass.scoring.results_io import write_results

Z95 = stats.norm.ppf(0.975)


def results_document(
    matrix,
    *,
    ids=None,
    judge="rule",
    judge_model=None,
    ks=(2,),
    thresholds=(0.5, 1.0),
    benchmark="Tiny",
    sources=None,
    rule_correct=None,
    extracted=None,
    reasons=None,
) -> dict:
    """A schema-2 results document of a questions x generations verdict matrix (True/False/None).

    Only ``details`` and the ``gpassk`` block matter to the analysis commands (they recompute every metric
    from the verdicts); ``sources``/``rule_correct``/``extracted``/``reasons`` are per-verdict matrices.
    """
    ids = ids or [f"q{i}" for i in range(len(matrix))]
    details = []
    for i, (question, row) in enumerate(zip(ids, matrix)):
        verdicts = []
        for g, correct in enumerate(row):
            verdict = {
                "correct": correct,
                "extracted": extracted[i][g] if extracted else f"a{i}.{g}",
                "reason": reasons[i][g] if reasons else f"said {correct}",
                "source": sources[i][g] if sources else judge,
            }
            if rule_correct is not None:
                verdict["rule_correct"] = rule_correct[i][g]
            verdicts.append(verdict)
        details.append(
            {
                "id": question,
                "c": sum(v is True for v in row),
                "n": len(row),
                "unresolved": sum(v is None for v in row),
                "verdicts": verdicts,
            }
        )
    unresolved = sum(d["unresolved"] for d in details)
    n = {len(row) for row in matrix}
    return {
        "unresolved": unresolved,
        "gpassk": {
            "schema_version": 2,
            "complete": unresolved == 0,
            "unresolved": unresolved,
            "benchmark": benchmark,
            "k": list(ks),
            "n": n.pop() if len(n) == 1 else None,
            "questions": len(details),
            "thresholds": list(thresholds),
            "judge": judge,
            "judge_model": judge_model,
            "prompt_version": "v2" if judge_model else None,
        },
        "details": details,
    }


def write(path: Path, matrix, **options) -> Path:
    write_results(path, results_document(matrix, **options))
    return path


def exact_value(n, c, k, key):
    return exact_mg_pass(n, c, k) if key == "mG" else exact_g_pass(n, c, k, key)


def exact_half_width(p, n, k, key, questions, sampling=True):
    """z * sqrt((mean_i Var_c[G] + Var_i[theta_i]) / M) x 100, by exact binomial sums over c = 0..n."""
    values = [exact_value(n, c, k, key) for c in range(n + 1)]
    within, thetas = [], []
    for q in p:
        weights = [Fraction(math.comb(n, c)) * q**c * (1 - q) ** (n - c) for c in range(n + 1)]
        theta = sum(w * v for w, v in zip(weights, values))
        thetas.append(theta)
        within.append(sum(w * (v - theta) ** 2 for w, v in zip(weights, values)))
    variance = sum(within) / len(p)
    if sampling:
        mean = sum(thetas) / len(p)
        variance += sum((t - mean) ** 2 for t in thetas) / len(p)
    return 100 * Z95 * math.sqrt(float(variance) / questions)
