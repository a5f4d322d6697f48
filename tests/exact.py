"""The independent oracle: G-Pass@k family by exact rational arithmetic (Fraction + math.comb).

Every golden value in the tests comes from here, never from the code under test.
"""

from __future__ import annotations

import math
from fractions import Fraction


def exact_tail(n: int, c: int, k: int, m: int) -> Fraction:
    """P(X >= m), X ~ Hypergeometric(n, c, k), as an exact rational."""
    total = math.comb(n, k)
    return sum(
        (Fraction(math.comb(c, j) * math.comb(n - c, k - j), total) for j in range(max(m, 0), k + 1)), Fraction(0)
    )


def exact_m(k: int, tau) -> int:
    """max(ceil(tau * k), 1) by integer arithmetic on the exact rational tau (a decimal string is exact)."""
    product = Fraction(tau) * k
    return max(-((-product.numerator) // product.denominator), 1)


def exact_g_pass(n: int, c: int, k: int, tau) -> Fraction:
    return exact_tail(n, c, k, exact_m(k, tau))


def exact_mg_pass(n: int, c: int, k: int) -> Fraction:
    """(2/k) sum_{i=ceil(k/2)+1}^{k} P(X >= i), the paper's formula."""
    first = (k + 1) // 2 + 1  # ceil(k/2) + 1
    return Fraction(2, k) * sum((exact_tail(n, c, k, i) for i in range(first, k + 1)), Fraction(0))


def exact_integral(n: int, c: int, k: int) -> Fraction:
    """2 * integral over tau in [1/2, 1] of the step function G-Pass@k_tau, interval by interval."""
    area = Fraction(0)
    for i in range(1, k + 1):  # on ((i-1)/k, i/k] the threshold is i
        low, high = max(Fraction(i - 1, k), Fraction(1, 2)), Fraction(i, k)
        if high > low:
            area += (high - low) * exact_tail(n, c, k, i)
    return 2 * area


def exact_mean(counts, n: int, k: int, tau=None) -> float:
    """Mean over questions x 100 of G-Pass@k_tau, or of mG-Pass@k when ``tau`` is None."""
    values = [exact_mg_pass(n, c, k) if tau is None else exact_g_pass(n, c, k, tau) for c in counts]
    return float(sum(values, Fraction(0)) / len(values) * 100)


# --------------------------------------------------------------------------
# curtailed two-stage sampling: path counting in integers


def exact_stage1_tails(n1: int, k: int) -> list[list[int]]:
    """``tails[c1][m] * comb(n1, k)``: how many k-subsets of n1 draws with c1 correct hold >= m correct (ints)."""
    table = []
    for c1 in range(n1 + 1):
        pmf = [math.comb(c1, j) * math.comb(n1 - c1, k - j) for j in range(k + 1)]
        table.append([sum(pmf[m:]) for m in range(k + 2)])
    return table


def curtailed_paths(n1: int, n: int, stop: frozenset, drawn: int, correct: int) -> dict[int, int]:
    """The stage-1 counts c1 of the admissible paths to (drawn, correct), each with its number of paths."""
    if drawn == n1 and n1 < n:
        return {correct: math.comb(n1, correct)} if correct in stop else {}
    low, high = max(0, correct - (n - n1)), min(n1, correct)
    return {
        c1: math.comb(n1, c1) * math.comb(n - n1, correct - c1)
        for c1 in range(low, high + 1)
        if n1 == n or c1 not in stop
    }


def exact_curtailed_tail(n1: int, n: int, stop: frozenset, drawn: int, correct: int, k: int, m: int) -> Fraction:
    """The share of admissible paths to (drawn, correct) whose first k draws hold >= m correct (exact)."""
    tails = exact_stage1_tails(n1, k)
    paths = curtailed_paths(n1, n, stop, drawn, correct)
    total = sum(paths.values())
    return Fraction(
        sum(count * tails[c1][min(max(m, 0), k + 1)] for c1, count in paths.items()), total * math.comb(n1, k)
    )


def brute_force_curtailed_tail(n1: int, n: int, stop: frozenset, drawn: int, correct: int, k: int, m: int) -> Fraction:
    """The same share by listing every outcome sequence (small n only): no formula, only the design's definition."""
    from itertools import product

    seen: set[tuple[int, ...]] = set()
    for outcomes in product((0, 1), repeat=n):
        path = outcomes[:n1] if n1 < n and sum(outcomes[:n1]) in stop else outcomes
        if len(path) == drawn and sum(path) == correct:
            seen.add(path)
    hits = sum(1 for path in seen if sum(path[:k]) >= m)
    return Fraction(hits, len(seen))
