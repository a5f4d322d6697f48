r"""Two models on the same questions: paired differences, intervals, p-values; rank intervals.

Everything here is *paired over questions*: model A and model B answered the
same ``M`` questions, each ``n`` times, and each metric is a mean over
questions of a per-question value :math:`v_i \in [0, 1]` (G-Pass@k_tau,
mG-Pass@k, or accuracy :math:`c_i / n`). With :math:`d_i = v^A_i - v^B_i`:

* **difference** :math:`\bar d = \frac{1}{M}\sum_i d_i` (x 100), which is exactly
  the difference of the two reported scores;
* **paired bootstrap interval**: resample the ``M`` questions with
  replacement *jointly* (the same questions for A and B), take the
  percentile interval of :math:`\bar d^*` (seeded);
* **paired sign-flip permutation p-value** (two-sided) for
  :math:`H_0`: within each question, the labels A and B are exchangeable. Then
  :math:`\bar d` has the distribution of :math:`\frac{1}{M}\sum_i s_i d_i` with
  independent random signs :math:`s_i = \pm 1`, and
  :math:`p = P(|\sum_i s_i d_i| \ge |\sum_i d_i|)`. Questions with
  :math:`d_i = 0` do not move the sum, so only the ``m`` questions with
  :math:`d_i \ne 0` are flipped: with ``m <= exact_max`` all :math:`2^m` sign
  vectors are enumerated (meet in the middle: :math:`2 \cdot 2^{m/2}` partial
  sums, so ``m = 30`` costs two arrays of 32768), otherwise ``n_perm`` seeded
  random sign vectors give :math:`p = (1 + b) / (1 + n_\text{perm})` where ``b``
  counts the random sums at least as extreme (the +1 correction keeps the
  Monte Carlo test valid: :math:`P(p \le \alpha) \le \alpha`). "At least as
  extreme" allows a relative tolerance of 1e-9 so that floating-point rounding
  never turns a tie into a miss (ties count against the difference), and
  per-question differences within 1e-12 of 0 are exact ties (the metric
  values are exact to about 1e-14; pass@3 at 2/4 and at 3/4 correct are both 1
  but one comes out as 1 - 1e-16), so they are neither flipped nor counted
  as differing questions.

Ranks (:func:`rank_intervals`): ``K`` models on shared questions, the
question set resampled jointly; in each resample every model gets the
*competition* rank ``1 + #{models with a strictly higher mean}`` (ties share
the best rank of the tie, 1, 2, 2, 4; means within 1e-12 are ties). A model's
rank interval is the pair of ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles
of its bootstrap rank distribution, which is also returned in full.

>>> import numpy as np
>>> comparison = paired_comparison([16, 12, 9, 16, 4, 10], [12, 12, 5, 10, 4, 2], n=16, k=[4], thresholds=[0.5])
>>> result = comparison["G-Pass@4_0.5"]
>>> round(result.difference, 4), result.test, result.permutations, round(result.p_value, 4)
(23.6538, 'exact', 16, 0.125)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gpassk_opencompass.checks import examples, non_negative_int, open_unit, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import (
    DEFAULT_K,
    DEFAULT_THRESHOLDS,
    accuracy_key,
    counts_and_n,
    g_pass_at_k,
    int_array,
    mg_pass_at_k,
    per_question_values,
)

__all__ = [
    "AdjacentComparison",
    "AlignedRuns",
    "ModelRank",
    "PairedDifference",
    "RankIntervals",
    "SignFlipTest",
    "accuracy_key",
    "adjacent_significance",
    "align_runs",
    "metric_table",
    "metric_values",
    "paired_comparison",
    "rank_intervals",
    "sign_flip_test",
]

#: Sums within this relative distance of the observed one count as "at least as extreme".
_RELATIVE_TIE = 1e-9
#: Per-question differences of metric values (in [0, 1], exact to ~1e-14) below this are zero:
#: e.g. pass@3 of 2/4 and of 3/4 correct are both exactly 1, one of them 1 - 1e-16 in floating point.
_VALUE_TIE = 1e-12
#: Bootstrap means within this distance are tied ranks.
_RANK_TIE = 1e-12
#: Cells of one chunk of random signs or bootstrap weights.
_CHUNK_CELLS = 1 << 21


def _rng(seed) -> np.random.Generator:
    return np.random.default_rng(non_negative_int(seed, "seed"))


# --------------------------------------------------------------------------
# metric keys and per-question values


def metric_table(counts, n, k, thresholds, accuracy: bool) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Keys, per-question values (questions x metrics, in [0, 1]), counts and n.

    Accuracy first (when asked), then :func:`~gpassk_opencompass.metrics.summarize`'s order.

    >>> keys, values, _, _ = metric_table([2, 4], 4, [2], [1.0], accuracy=True)
    >>> keys, values.round(4).tolist()
    (['accuracy (4 runs average)', 'G-Pass@2_1.0', 'mG-Pass@2'], [[0.5, 0.1667, 0.1667], [1.0, 1.0, 1.0]])
    """
    c, n_array = counts_and_n(counts, n)
    keys, columns = [], []
    if accuracy:
        keys.append(accuracy_key(n_array))
        columns.append((c / n_array) * np.ones(c.shape))
    if len(list(k)):
        metric_keys, values, c, n_array = per_question_values(c, n_array, k, thresholds)
        keys += metric_keys
        columns += list(values.T)
    if not keys:
        raise InputError("no metric asked for: give at least one k or accuracy=True")
    return keys, np.stack(columns, axis=1), c, n_array


_G_PASS = re.compile(r"G-Pass@(\d+)_(.+)")
_MG_PASS = re.compile(r"mG-Pass@(\d+)")


def metric_values(counts, n, metric: str) -> np.ndarray:
    """Per-question values in [0, 1] of the metric named by its results key.

    Args:
        counts: correct generations per question, any shape (e.g. models x questions).
        n: generations per question (broadcast against ``counts``).
        metric: ``G-Pass@{k}_{tau}``, ``mG-Pass@{k}``, or ``accuracy`` /
            ``accuracy ({n} runs average)``.

    >>> metric_values([[8, 16], [0, 4]], 16, "G-Pass@4_0.5").round(4).tolist()
    [[0.7154, 1.0], [0.0, 0.2445]]
    >>> metric_values([3, 6], 6, "accuracy (6 runs average)").tolist()
    [0.5, 1.0]
    >>> metric_values([3], 6, "pass@4")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: metric must be a results key like 'G-Pass@16_0.5', 'mG-Pass@16' or 'accuracy'; got metric='pass@4'
    """
    c = int_array("counts", counts)
    n_array = int_array("n", n)
    if not isinstance(metric, str):
        raise InputError(f"metric must be a results key (a string); got metric={metric!r}")
    if metric == "accuracy" or metric.startswith("accuracy ("):
        if (n_array < 1).any() or (c < 0).any() or (c > n_array).any():
            g_pass_at_k(n_array, c, 1, 1.0)  # raises the usual message
        return np.broadcast_to(c / n_array, np.broadcast_shapes(c.shape, n_array.shape)).astype(float)
    if match := _MG_PASS.fullmatch(metric):
        return np.asarray(mg_pass_at_k(n_array, c, int(match[1])), dtype=float)
    if match := _G_PASS.fullmatch(metric):
        return np.asarray(g_pass_at_k(n_array, c, int(match[1]), match[2]), dtype=float)
    raise InputError(
        f"metric must be a results key like 'G-Pass@16_0.5', 'mG-Pass@16' or 'accuracy'; got metric={metric!r}"
    )


# --------------------------------------------------------------------------
# the sign-flip test


@dataclass(frozen=True)
class SignFlipTest:
    """A paired sign-flip permutation test of "mean difference = 0" (two-sided).

    Attributes:
        mean: the observed mean difference (in the units of the input).
        p_value: :math:`P(|\\sum s_i d_i| \\ge |\\sum d_i|)` under random signs;
            exact, or ``(1 + b) / (1 + permutations)`` by Monte Carlo.
        test: ``"exact"`` (all sign vectors) or ``"monte-carlo"``.
        permutations: sign vectors evaluated: ``2**nonzero`` when exact,
            else the number of random ones.
        nonzero: questions with a nonzero difference (the only ones flipped).
    """

    mean: float
    p_value: float
    test: str
    permutations: int
    nonzero: int


def _as_differences(differences) -> np.ndarray:
    try:
        array = np.asarray(differences, dtype=float) if not isinstance(differences, np.ndarray) else differences
    except (TypeError, ValueError):
        raise InputError(f"differences must be a 1-D array of numbers; got {differences!r}") from None
    if array.dtype.kind not in "iuf" or array.ndim != 1:
        raise InputError(
            f"differences must be a 1-D array of numbers; got shape {np.shape(array)}, dtype {array.dtype}"
        )
    if array.size == 0:
        raise InputError("differences is empty: there are no questions to test")
    array = array.astype(float)
    if not np.isfinite(array).all():
        raise InputError(f"differences must be finite; got {array[~np.isfinite(array)][0]!r}")
    return array


def _exact_tail(nonzero: np.ndarray, observed: float, tolerance: float) -> int:
    """How many of the ``2**m`` sign vectors give ``|sum| >= observed - tolerance`` (meet in the middle)."""
    half = nonzero.size // 2

    def all_sums(values: np.ndarray) -> np.ndarray:
        sums = np.zeros(1)
        for value in values:  # 2**len(values) partial sums, doubling per value
            sums = np.concatenate([sums + value, sums - value])
        return sums

    left, right = all_sums(nonzero[:half]), np.sort(all_sums(nonzero[half:]))
    # |l + r| >= t  <=>  r >= t - l  or  r <= -t - l  (disjoint since t > 0)
    high = right.size - np.searchsorted(right, observed - tolerance - left, side="left")
    low = np.searchsorted(right, -observed + tolerance - left, side="right")
    return int(high.sum() + low.sum())


def _sign_flip_columns(
    differences: np.ndarray, n_perm: int, exact_max: int, rng: np.random.Generator
) -> list[SignFlipTest]:
    """One :class:`SignFlipTest` per column of ``differences`` (questions x metrics).

    Monte Carlo columns share the random sign vectors (each column's test is valid on its own).
    """
    questions, metrics = differences.shape
    observed = np.abs(differences.sum(axis=0))
    tolerance = _RELATIVE_TIE * np.abs(differences).sum(axis=0)
    nonzero = (differences != 0).sum(axis=0)
    results: list[SignFlipTest | None] = [None] * metrics
    monte_carlo = []
    for column in range(metrics):
        mean = float(differences[:, column].mean())
        if observed[column] <= tolerance[column]:  # every sign vector is at least as extreme
            results[column] = SignFlipTest(mean, 1.0, "exact", 2 ** int(nonzero[column]), int(nonzero[column]))
        elif nonzero[column] <= exact_max:
            values = differences[differences[:, column] != 0, column]
            extreme = _exact_tail(values, observed[column], tolerance[column])
            total = 2 ** int(nonzero[column])
            results[column] = SignFlipTest(mean, extreme / total, "exact", total, int(nonzero[column]))
        else:
            monte_carlo.append(column)
    if monte_carlo:
        subset = differences[:, monte_carlo]
        hits = np.zeros(len(monte_carlo), dtype=np.int64)
        rows = max(1, _CHUNK_CELLS // max(questions, 1))
        for start in range(0, n_perm, rows):
            size = min(rows, n_perm - start)
            signs = rng.integers(0, 2, size=(size, questions), dtype=np.int8) * 2 - 1
            sums = np.abs(signs.astype(float) @ subset)
            hits += (sums >= observed[monte_carlo] - tolerance[monte_carlo]).sum(axis=0)
        for position, column in enumerate(monte_carlo):
            results[column] = SignFlipTest(
                float(differences[:, column].mean()),
                float((1 + hits[position]) / (1 + n_perm)),
                "monte-carlo",
                n_perm,
                int(nonzero[column]),
            )
    return results  # type: ignore[return-value]


def sign_flip_test(differences, *, n_perm: int = 10_000, exact_max: int = 20, seed: int = 0) -> SignFlipTest:
    """Two-sided paired sign-flip permutation test of "the mean of ``differences`` is 0".

    Args:
        differences: one paired difference per question, ``d_i = v^A_i - v^B_i``.
        n_perm: random sign vectors when not exact (the p-value is then
            ``(1 + b) / (1 + n_perm)``, never 0).
        exact_max: enumerate all ``2**m`` sign vectors when at most this many
            differences are nonzero (exact and deterministic).
        seed: seeds the random sign vectors.

    Returns:
        :class:`SignFlipTest`.

    >>> sign_flip_test([0.5, 0.25, 0.25, 0.0])  # 8 sign vectors, 2 as extreme: +-(.5 + .25 + .25)
    SignFlipTest(mean=0.25, p_value=0.25, test='exact', permutations=8, nonzero=3)
    >>> test = sign_flip_test(np.full(40, 0.1), seed=1)  # 40 nonzero: Monte Carlo
    >>> test.test, test.p_value == 1 / 10_001
    ('monte-carlo', True)
    >>> sign_flip_test([])
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: differences is empty: there are no questions to test
    """
    array = _as_differences(differences)
    n_perm = positive_int(n_perm, "n_perm")
    exact_max = non_negative_int(exact_max, "exact_max")
    return _sign_flip_columns(array[:, None], n_perm, exact_max, _rng(seed))[0]


# --------------------------------------------------------------------------
# bootstrap over questions


def _bootstrap_means(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``n_boot`` means of ``values`` (questions x columns) over questions resampled with replacement.

    Identical rows are one group and a resample is drawn as multinomial counts
    over the groups, the same distribution as resampling questions. Groups are
    taken in order of first appearance, so the draws depend only on which
    questions tie, not on their values: swapping A and B (negating every
    difference) mirrors the interval exactly for the same seed.
    """
    questions = values.shape[0]
    groups, first, group_size = np.unique(values, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    groups, group_size = groups[order], group_size[order]
    means = np.empty((n_boot, values.shape[1]))
    rows = max(1, _CHUNK_CELLS // len(groups))
    for start in range(0, n_boot, rows):
        size = min(rows, n_boot - start)
        draws = rng.multinomial(questions, group_size / questions, size=size)
        means[start : start + size] = draws @ groups / questions
    return means


def _snap(differences: np.ndarray) -> np.ndarray:
    """Differences of per-question metric values within rounding (1e-12) of 0 become exactly 0."""
    return np.where(np.abs(differences) <= _VALUE_TIE, 0.0, differences)


# --------------------------------------------------------------------------
# aligning two runs


@dataclass(frozen=True, eq=False)
class AlignedRuns:
    """Two runs' per-question counts on the same questions, in one order.

    Attributes:
        question_ids: the shared question ids, in run A's order.
        counts_a: run A's correct generations per question (read-only).
        counts_b: run B's, same order (read-only).
        n: generations per question (an int when uniform, else a read-only array).
        ks: the k values both runs report (``None`` if not given).
        only_a: ids only run A has (dropped; empty unless ``intersect=True``).
        only_b: ids only run B has (dropped; empty unless ``intersect=True``).
    """

    question_ids: tuple
    counts_a: np.ndarray
    counts_b: np.ndarray
    n: int | np.ndarray
    ks: tuple[int, ...] | None
    only_a: tuple
    only_b: tuple


def _run_table(side: str, ids, counts, n) -> tuple[list, np.ndarray, np.ndarray]:
    ids = list(ids)
    counts = int_array(f"counts_{side}", counts)
    if counts.ndim != 1 or counts.size != len(ids):
        raise InputError(
            f"run {side.upper()} has {len(ids)} question ids but counts of shape {counts.shape}; "
            "expected one count per id"
        )
    seen, duplicates = set(), []
    for question in ids:
        if question in seen:
            duplicates.append(question)
        seen.add(question)
    if duplicates:
        raise InputError(f"run {side.upper()} repeats question ids ({examples(duplicates)}); ids must be unique")
    n_array = int_array(f"n_{side}", n)
    if n_array.ndim > 1 or (n_array.ndim == 1 and n_array.size != len(ids)):
        raise InputError(f"n_{side} must be one int or one per question ({len(ids)}); got shape {n_array.shape}")
    return ids, counts, np.broadcast_to(n_array, counts.shape)


def align_runs(
    ids_a, counts_a, ids_b, counts_b, *, n_a, n_b, ks_a=None, ks_b=None, intersect: bool = False
) -> AlignedRuns:
    """Put two runs' counts in one question order, refusing runs that do not share questions, n or k.

    Args:
        ids_a: run A's question ids (hashable, unique), one per count.
        counts_a: run A's correct generations per question.
        ids_b: run B's question ids.
        counts_b: run B's correct generations per question.
        n_a: run A's generations per question (one int, or one per question).
        n_b: run B's.
        ks_a: the k values run A reports (optional; compared as sets).
        ks_b: the k values run B reports.
        intersect: keep only the shared questions (listed in ``only_a`` /
            ``only_b``) instead of refusing runs whose question sets differ.

    Returns:
        :class:`AlignedRuns` in run A's order.

    Raises:
        InputError: one line naming what differs: question ids (how many on
            each side only, with a few examples), n, or k.

    >>> aligned = align_runs(["q1", "q2", "q3"], [4, 0, 2], ["q3", "q1", "q2"], [1, 3, 3], n_a=4, n_b=4)
    >>> aligned.question_ids, aligned.counts_b.tolist(), aligned.n
    (('q1', 'q2', 'q3'), [3, 3, 1], 4)
    >>> align_runs(["q1", "q2", "q3"], [4, 0, 2], ["q1", "q4"], [1, 3], n_a=4, n_b=4)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: the runs do not share their questions: 2 only in A ('q2', 'q3'), 1 only in B ('q4'); compare runs of the same questions (or pass intersect=True to keep the 1 shared)
    >>> align_runs(["q1"], [4], ["q1"], [9], n_a=4, n_b=16)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: n differs: run A has n=4, run B has n=16 generations per question
    """
    ids_a, c_a, n_a_array = _run_table("a", ids_a, counts_a, n_a)
    ids_b, c_b, n_b_array = _run_table("b", ids_b, counts_b, n_b)
    position_b = {question: index for index, question in enumerate(ids_b)}
    shared = [question for question in ids_a if question in position_b]
    only_a = tuple(question for question in ids_a if question not in position_b)
    shared_set = set(shared)
    only_b = tuple(question for question in ids_b if question not in shared_set)
    if not shared:
        raise InputError(f"the runs share no question ids (A: {examples(ids_a)}; B: {examples(ids_b)})")
    if (only_a or only_b) and not intersect:
        raise InputError(
            f"the runs do not share their questions: {len(only_a)} only in A ({examples(only_a)}), "
            f"{len(only_b)} only in B ({examples(only_b)}); compare runs of the same questions "
            f"(or pass intersect=True to keep the {len(shared)} shared)"
        )
    if ks_a is not None or ks_b is not None:
        if ks_a is None or ks_b is None:
            raise InputError(f"k is given for one run only (ks_a={ks_a!r}, ks_b={ks_b!r}); give both or neither")
        set_a = tuple(sorted({int(k) for k in int_array("ks_a", list(ks_a)).ravel()}))
        set_b = tuple(sorted({int(k) for k in int_array("ks_b", list(ks_b)).ravel()}))
        if set_a != set_b:
            raise InputError(f"k differs: run A reports k={set_a}, run B reports k={set_b}")
        ks = set_a
    else:
        ks = None
    position_a = {question: index for index, question in enumerate(ids_a)}
    index_a = np.array([position_a[question] for question in shared])
    index_b = np.array([position_b[q] for q in shared])
    n_shared_a, n_shared_b = n_a_array[index_a], n_b_array[index_b]
    differ = n_shared_a != n_shared_b
    if differ.any():
        if np.unique(n_shared_a).size == 1 and np.unique(n_shared_b).size == 1:
            raise InputError(
                f"n differs: run A has n={int(n_shared_a[0])}, run B has n={int(n_shared_b[0])} "
                "generations per question"
            )
        first = int(np.argmax(differ))
        raise InputError(
            f"n differs on {int(differ.sum())} shared questions (e.g. {shared[first]!r}: run A "
            f"n={int(n_shared_a[first])}, run B n={int(n_shared_b[first])})"
        )
    n_value: int | np.ndarray
    if np.unique(n_shared_a).size == 1:
        n_value = int(n_shared_a[0])
    else:
        per_question = n_shared_a.copy()
        per_question.flags.writeable = False
        n_value = per_question
    counts_a_out, counts_b_out = c_a[index_a].copy(), c_b[index_b].copy()
    for array in (counts_a_out, counts_b_out):
        array.flags.writeable = False
    return AlignedRuns(
        question_ids=tuple(shared),
        counts_a=counts_a_out,
        counts_b=counts_b_out,
        n=n_value,
        ks=ks,
        only_a=only_a if intersect else (),
        only_b=only_b if intersect else (),
    )


# --------------------------------------------------------------------------
# paired comparison of two runs


@dataclass(frozen=True)
class PairedDifference:
    """One metric, model A minus model B over the same questions, all x 100.

    Attributes:
        metric: the results key (``G-Pass@16_0.5``, ``mG-Pass@16``, ``accuracy ...``).
        mean_a: A's score (the mean over questions, what the results file reports).
        mean_b: B's score.
        difference: ``mean_a - mean_b``.
        stderr: the paired standard error ``sd(d) / sqrt(M)``; ``None`` when M = 1.
        ci_low: lower end of the paired percentile bootstrap interval of the difference.
        ci_high: upper end.
        ci: the interval's level, e.g. 0.95.
        p_value: two-sided sign-flip permutation p-value (see :class:`SignFlipTest`).
        test: ``"exact"`` or ``"monte-carlo"``.
        permutations: sign vectors evaluated.
        questions: M, the shared questions.
        questions_differing: questions whose per-question values differ.
    """

    metric: str
    mean_a: float
    mean_b: float
    difference: float
    stderr: float | None
    ci_low: float
    ci_high: float
    ci: float
    p_value: float
    test: str
    permutations: int
    questions: int
    questions_differing: int


def paired_comparison(
    counts_a,
    counts_b,
    n=None,
    k=DEFAULT_K,
    thresholds=DEFAULT_THRESHOLDS,
    *,
    accuracy: bool = True,
    ci: float = 0.95,
    n_boot: int = 2000,
    n_perm: int = 10_000,
    exact_max: int = 20,
    seed: int = 0,
) -> dict[str, PairedDifference]:
    """Per metric: A minus B, its paired bootstrap interval and sign-flip p-value.

    Args:
        counts_a: A's correct generations per question (1-D), or a binary
            questions x generations matrix.
        counts_b: B's, on the same questions in the same order (see
            :func:`align_runs`), same ``n``.
        n: generations per question (int or one per question; the matrix
            width for matrices).
        k: the k values (each <= n); empty for accuracy only.
        thresholds: the tau values.
        accuracy: include mean accuracy (first, keyed like the results file).
        ci: the level of the bootstrap interval.
        n_boot: bootstrap resamples of the questions (shared by all metrics).
        n_perm: random sign vectors for metrics with more than ``exact_max``
            differing questions (shared by those metrics).
        exact_max: enumerate every sign vector up to this many differing questions.
        seed: seeds the bootstrap and the random signs.

    Returns:
        ``{key: PairedDifference}`` in the results file's order.

    Raises:
        InputError: mismatched shapes or n, bad counts, ``ci`` outside (0, 1).

    >>> result = paired_comparison([4, 3, 4, 2, 4, 3], [2, 3, 1, 2, 0, 1], n=4, k=[])["accuracy (4 runs average)"]
    >>> round(result.difference, 4), result.p_value  # 11/24; only all-plus and all-minus reach |sum| = 11/4
    (45.8333, 0.125)
    >>> round(result.ci_low, 4), round(result.ci_high, 4)
    (16.6667, 75.0)
    >>> paired_comparison([1, 2], [1, 2, 3], n=4)
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: counts_a and counts_b must cover the same questions in the same order; got 2 and 3 questions (align the runs with align_runs)
    """
    ci = open_unit(ci, "ci")
    n_boot = positive_int(n_boot, "n_boot")
    n_perm = positive_int(n_perm, "n_perm")
    exact_max = non_negative_int(exact_max, "exact_max")
    rng = _rng(seed)
    shape_a, shape_b = np.shape(counts_a), np.shape(counts_b)
    if len(shape_a) != len(shape_b) or shape_a[:1] != shape_b[:1]:
        size_a, size_b = (shape[0] if shape else 1 for shape in (shape_a, shape_b))
        raise InputError(
            "counts_a and counts_b must cover the same questions in the same order; got "
            f"{size_a} and {size_b} questions (align the runs with align_runs)"
        )
    if shape_a != shape_b:
        raise InputError(f"counts_a and counts_b must have the same shape (same n); got {shape_a} and {shape_b}")
    keys, values_a, _, _ = metric_table(counts_a, n, k, thresholds, accuracy)
    _, values_b, _, _ = metric_table(counts_b, n, k, thresholds, accuracy)
    differences = _snap(values_a - values_b)
    questions = differences.shape[0]
    tests = _sign_flip_columns(differences, n_perm, exact_max, rng)
    boot = _bootstrap_means(differences, n_boot, rng)
    low, high = np.quantile(boot, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
    stderr = differences.std(axis=0, ddof=1) / np.sqrt(questions) if questions > 1 else None
    return {
        key: PairedDifference(
            metric=key,
            mean_a=float(100 * values_a[:, i].mean()),
            mean_b=float(100 * values_b[:, i].mean()),
            difference=float(100 * differences[:, i].mean()),
            stderr=None if stderr is None else float(100 * stderr[i]),
            ci_low=float(100 * low[i]),
            ci_high=float(100 * high[i]),
            ci=ci,
            p_value=tests[i].p_value,
            test=tests[i].test,
            permutations=tests[i].permutations,
            questions=questions,
            questions_differing=tests[i].nonzero,
        )
        for i, key in enumerate(keys)
    }


# --------------------------------------------------------------------------
# K models: rank intervals and the leaderboard's adjacent pairs


def _models_table(counts, n, metric: str, names) -> tuple[np.ndarray, tuple]:
    """Per-question values (models x questions) and the model names."""
    c = int_array("counts", counts)
    if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] < 1:
        raise InputError(f"counts must be models x questions (2-D, non-empty); got shape {c.shape}")
    n_array = int_array("n", n)
    if n_array.ndim > 1 or (n_array.ndim == 1 and n_array.size != c.shape[1]):
        raise InputError(f"n must be one int or one per question ({c.shape[1]}); got shape {n_array.shape}")
    values = metric_values(c, n_array, metric)
    names = tuple(range(c.shape[0])) if names is None else tuple(names)
    if len(names) != c.shape[0]:
        raise InputError(f"names has {len(names)} entries for {c.shape[0]} models")
    return values, names


def _competition_ranks(means: np.ndarray) -> np.ndarray:
    """``1 + #{higher means}`` along the last axis (ties within 1e-12 share the best rank)."""
    return 1 + (means[..., None, :] > means[..., :, None] + _RANK_TIE).sum(axis=-1)


@dataclass(frozen=True)
class ModelRank:
    """One model's place on a leaderboard under resampling of the questions.

    Attributes:
        model: its name (or index).
        score: its mean over the questions, x 100.
        rank: its competition rank on the full question set (1 = best).
        rank_low: the ``(1 - ci) / 2`` quantile of its bootstrap ranks (best plausible rank).
        rank_high: the ``(1 + ci) / 2`` quantile (worst plausible rank).
        rank_probabilities: ``P(rank == r)`` for ``r = 1 .. K`` over the resamples.
    """

    model: object
    score: float
    rank: int
    rank_low: int
    rank_high: int
    rank_probabilities: tuple[float, ...]


@dataclass(frozen=True)
class RankIntervals:
    """Rank intervals of ``K`` models on one metric.

    Attributes:
        metric: the results key ranked on.
        ci: the level of the rank intervals.
        n_boot: bootstrap resamples of the questions.
        seed: the bootstrap's seed.
        ties: how ties are ranked (``"competition"``: 1, 2, 2, 4).
        models: one :class:`ModelRank` per model, in input order.
    """

    metric: str
    ci: float
    n_boot: int
    seed: int
    ties: str
    models: tuple[ModelRank, ...]


def rank_intervals(
    counts, n, metric: str, *, names=None, ci: float = 0.95, n_boot: int = 2000, seed: int = 0
) -> RankIntervals:
    """Each model's rank distribution and rank interval, resampling the shared questions jointly.

    Args:
        counts: correct generations, models x questions (same questions, same order).
        n: generations per question (one int or one per question).
        metric: the results key to rank on (see :func:`metric_values`).
        names: one name per model (default: the row indices).
        ci: the level of the rank intervals.
        n_boot: bootstrap resamples.
        seed: the bootstrap's seed.

    Returns:
        :class:`RankIntervals`; higher scores rank better, ties are competition ranks.

    >>> counts = [[16, 16, 15, 16, 14, 16], [15, 16, 14, 15, 16, 16], [2, 0, 4, 3, 1, 0]]
    >>> ranks = rank_intervals(counts, 16, "G-Pass@8_1.0", names=["a", "b", "c"], seed=3)
    >>> [(m.model, m.rank, m.rank_low, m.rank_high) for m in ranks.models]
    [('a', 1, 1, 2), ('b', 2, 1, 2), ('c', 3, 3, 3)]
    """
    ci = open_unit(ci, "ci")
    n_boot = positive_int(n_boot, "n_boot")
    rng = _rng(seed)
    values, names = _models_table(counts, n, metric, names)
    models = values.shape[0]
    observed = _competition_ranks(values.mean(axis=1))
    boot = _bootstrap_means(values.T, n_boot, rng)  # n_boot x models
    ranks = np.empty(boot.shape, dtype=np.int64)
    rows = max(1, _CHUNK_CELLS // (models * models))
    for start in range(0, n_boot, rows):
        ranks[start : start + rows] = _competition_ranks(boot[start : start + rows])
    tally = np.stack([(ranks == r).sum(axis=0) for r in range(1, models + 1)], axis=1)  # models x ranks
    low, high = np.quantile(ranks, [(1 - ci) / 2, (1 + ci) / 2], axis=0, method="inverted_cdf")
    return RankIntervals(
        metric=metric,
        ci=ci,
        n_boot=n_boot,
        seed=int(seed),
        ties="competition",
        models=tuple(
            ModelRank(
                model=names[i],
                score=float(100 * values[i].mean()),
                rank=int(observed[i]),
                rank_low=int(low[i]),
                rank_high=int(high[i]),
                rank_probabilities=tuple(float(t) / n_boot for t in tally[i]),
            )
            for i in range(models)
        ),
    )


@dataclass(frozen=True)
class AdjacentComparison:
    """Two neighbours on a sorted leaderboard: is the upper one's lead significant?

    Attributes:
        upper: the higher row's name.
        lower: the row below it.
        difference: upper minus lower on the metric, x 100 (negative if the
            leaderboard is not sorted by this metric).
        p_value: the paired sign-flip p-value of the pair.
        p_adjusted: after the multiple-comparison correction (equal to
            ``p_value`` with ``correction="none"``).
        significant: ``p_adjusted < level``; ``False`` marks an order the data
            do not support.
        test: ``"exact"`` or ``"monte-carlo"``.
    """

    upper: object
    lower: object
    difference: float
    p_value: float
    p_adjusted: float
    significant: bool
    test: str


def _holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error)."""
    order = np.argsort(p_values, kind="stable")
    count = p_values.size
    adjusted = np.maximum.accumulate(np.minimum(1.0, (count - np.arange(count)) * p_values[order]))
    out = np.empty(count)
    out[order] = adjusted
    return out


def adjacent_significance(
    counts,
    n,
    metric: str,
    *,
    names=None,
    level: float = 0.05,
    correction: str = "none",
    n_perm: int = 10_000,
    exact_max: int = 20,
    seed: int = 0,
) -> tuple[AdjacentComparison, ...]:
    """For a leaderboard in display order, test each row against the row below it.

    Args:
        counts: correct generations, models x questions, rows in leaderboard order (best first).
        n: generations per question (one int or one per question).
        metric: the results key (see :func:`metric_values`).
        names: one name per row (default: the row indices).
        level: the significance level.
        correction: ``"none"`` (each pair at ``level``) or ``"holm"``
            (family-wise over the ``K - 1`` pairs).
        n_perm: random sign vectors when a pair differs on more than ``exact_max`` questions.
        exact_max: exact sign-flip enumeration up to this many differing questions.
        seed: seeds the random signs.

    Returns:
        ``K - 1`` :class:`AdjacentComparison`, top pair first.

    >>> counts = [[4, 4, 3, 4, 4, 4], [0, 1, 0, 0, 1, 0], [1, 0, 0, 0, 0, 1]]
    >>> [(p.upper, p.lower, p.p_value, p.significant) for p in adjacent_significance(counts, 4, "accuracy")]
    [(0, 1, 0.03125, True), (1, 2, 1.0, False)]
    """
    level = open_unit(level, "level")
    if correction not in ("none", "holm"):
        raise InputError(f"correction must be 'none' or 'holm'; got correction={correction!r}")
    n_perm = positive_int(n_perm, "n_perm")
    exact_max = non_negative_int(exact_max, "exact_max")
    rng = _rng(seed)
    values, names = _models_table(counts, n, metric, names)
    if values.shape[0] < 2:
        raise InputError(f"a leaderboard needs at least two rows to compare; got {values.shape[0]}")
    differences = _snap(values[:-1] - values[1:]).T  # questions x pairs
    tests = _sign_flip_columns(differences, n_perm, exact_max, rng)
    p_values = np.array([test.p_value for test in tests])
    adjusted = _holm(p_values) if correction == "holm" else p_values
    return tuple(
        AdjacentComparison(
            upper=names[i],
            lower=names[i + 1],
            difference=float(100 * differences[:, i].mean()),
            p_value=float(p_values[i]),
            p_adjusted=float(adjusted[i]),
            significant=bool(adjusted[i] < level),
            test=tests[i].test,
        )
        for i in range(len(tests))
    )
