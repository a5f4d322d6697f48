r"""Two models on the same questions: paired differences, their intervals and p-values.

Per metric, with per-question values :math:`d_i = v^A_i - v^B_i` on the same ``M`` questions: the difference
:math:`\bar d` (x 100, exactly the difference of the reported scores), its paired bootstrap interval (questions
resampled jointly) and the two-sided sign-flip p-value (:mod:`.resampling`). ``K`` models: :mod:`.ranks`.
See docs/uncertainty.md, "Paired comparison of two runs".

>>> comparison = paired_comparison([16, 12, 9, 16, 4, 10], [12, 12, 5, 10, 4, 2], n=16, k=[4], thresholds=[0.5])
>>> result = comparison["G-Pass@4_0.5"]
>>> round(result.difference, 4), result.test, result.permutations, round(result.p_value, 4)
(23.6538, 'exact', 16, 0.125)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpassk_opencompass.checks import examples, non_negative_int, open_unit, positive_int
from gpassk_opencompass.defaults import CI, EXACT_MAX, N_BOOT_PAIRED, N_PERM
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import (
    DEFAULT_K,
    DEFAULT_THRESHOLDS,
    METRIC_KEY,
    Design,
    accuracy_key,
    check_arguments,
    counts_and_n,
    g_pass_at_k,
    int_array,
    mg_pass_at_k,
    pass_at_k,
    per_question_values,
)
from gpassk_opencompass.uncertainty.resampling import (
    bootstrap_means,
    seeded_rng,
    sign_flip_columns,
    snap_ties,
)

__all__ = [
    "AlignedRuns",
    "PairedDifference",
    "accuracy_key",
    "align_runs",
    "metric_table",
    "metric_values",
    "paired_comparison",
]

# --------------------------------------------------------------------------
# metric keys and per-question values


def metric_table(
    counts, n, k, thresholds, accuracy: bool, design: Design | None = None, key_n: int | None = None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Keys, per-question values (questions x metrics, in [0, 1]), counts and n.

    Accuracy first (when asked), then :func:`~gpassk_opencompass.metrics.summarize`'s order. Under a ``design``
    (a curtailed run: ``n`` is each question's draws) every value is the design's unbiased estimate, accuracy
    pass@1's, keyed by ``key_n`` (the design's n).

    >>> keys, values, _, _ = metric_table([2, 4], 4, [2], [1.0], accuracy=True)
    >>> keys, values.round(4).tolist()
    (['accuracy (4 runs average)', 'G-Pass@2_1.0', 'mG-Pass@2'], [[0.5, 0.1667, 0.1667], [1.0, 1.0, 1.0]])
    """
    ks = list(k)  # checked once, with the counts; the metrics below take them as checked
    c, n_array, ks, thresholds = (
        check_arguments(counts, n, ks, thresholds) if ks else (*counts_and_n(counts, n), [], ())
    )
    keys, columns = [], []
    if accuracy:
        keys.append(accuracy_key(n_array if key_n is None else key_n))
        columns.append((c / n_array) * np.ones(c.shape) if design is None else pass_at_k(n_array, c, 1, design))
    if ks:
        metric_keys, values, c, n_array = per_question_values(c, n_array, ks, thresholds, design, validate_args=False)
        keys += metric_keys
        columns += list(values.T)
    if not keys:
        raise InputError("no metric asked for: give at least one k or accuracy=True")
    return keys, np.stack(columns, axis=1), c, n_array


def metric_values(counts, n, metric: str, design: Design | None = None) -> np.ndarray:
    """Per-question values in [0, 1] of the metric named by its results key (under ``design``: its estimates).

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
    match = METRIC_KEY.fullmatch(metric)
    if match is None or match["subset"] is not None:
        raise InputError(
            f"metric must be a results key like 'G-Pass@16_0.5', 'mG-Pass@16' or 'accuracy'; got metric={metric!r}"
        )
    if design is not None:  # a curtailed run: every value, accuracy too, the design's unbiased estimate
        k = 1 if match["k"] is None else int(match["k"])
        if match["mg"]:
            return np.asarray(mg_pass_at_k(n_array, c, k, design), dtype=float)
        return np.asarray(g_pass_at_k(n_array, c, k, match["tau"] or 1.0, design), dtype=float)
    if match["k"] is None:  # accuracy
        if (n_array < 1).any() or (c < 0).any() or (c > n_array).any():
            g_pass_at_k(n_array, c, 1, 1.0)  # raises the usual message
        return np.broadcast_to(c / n_array, np.broadcast_shapes(c.shape, n_array.shape)).astype(float)
    if match["mg"]:
        return np.asarray(mg_pass_at_k(n_array, c, int(match["k"])), dtype=float)
    return np.asarray(g_pass_at_k(n_array, c, int(match["k"]), match["tau"]), dtype=float)


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
        drawn_a: under a curtailed design, run A's draws per question in this order (``None``: ``n``).
        drawn_b: run B's.
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
    drawn_a: np.ndarray | None = None
    drawn_b: np.ndarray | None = None


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
    ids_a,
    counts_a,
    ids_b,
    counts_b,
    *,
    n_a,
    n_b,
    ks_a=None,
    ks_b=None,
    intersect: bool = False,
    drawn_a=None,
    drawn_b=None,
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
        drawn_a=None if drawn_a is None else int_array("drawn_a", drawn_a)[index_a],
        drawn_b=None if drawn_b is None else int_array("drawn_b", drawn_b)[index_b],
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
    ci: float = CI,
    n_boot: int = N_BOOT_PAIRED,
    n_perm: int = N_PERM,
    exact_max: int = EXACT_MAX,
    seed: int = 0,
    designs: tuple[Design | None, Design | None] = (None, None),
    drawn: tuple[object, object] | None = None,
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
        designs: each run's curtailed design (``None``: a fixed n); its values are then its unbiased estimates.
        drawn: each run's generations per question under its design (``None``: ``n`` for both); ``n`` is then the
            n both runs stand for (the accuracy key's).

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
    rng = seeded_rng(seed)
    shape_a, shape_b = np.shape(counts_a), np.shape(counts_b)
    if len(shape_a) != len(shape_b) or shape_a[:1] != shape_b[:1]:
        size_a, size_b = (shape[0] if shape else 1 for shape in (shape_a, shape_b))
        raise InputError(
            "counts_a and counts_b must cover the same questions in the same order; got "
            f"{size_a} and {size_b} questions (align the runs with align_runs)"
        )
    if shape_a != shape_b:
        raise InputError(f"counts_a and counts_b must have the same shape (same n); got {shape_a} and {shape_b}")
    drawn_a, drawn_b = drawn if drawn is not None else (n, n)
    key_n = None if drawn is None else n
    keys, values_a, _, _ = metric_table(counts_a, drawn_a, k, thresholds, accuracy, designs[0], key_n)
    _, values_b, _, _ = metric_table(counts_b, drawn_b, k, thresholds, accuracy, designs[1], key_n)
    differences = snap_ties(values_a - values_b)
    questions = differences.shape[0]
    tests = sign_flip_columns(differences, n_perm, exact_max, rng)
    boot = bootstrap_means(differences, n_boot, rng)
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
