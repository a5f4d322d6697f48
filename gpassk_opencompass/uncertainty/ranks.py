"""K models on shared questions: rank intervals and the leaderboard's adjacent pairs.

Ranks (:func:`rank_intervals`): ``K`` models on shared questions, the
question set resampled jointly (:func:`~gpassk_opencompass.uncertainty.resampling.bootstrap_means`); in each
resample every model gets the *competition* rank ``1 + #{models with a strictly higher mean}`` (ties share
the best rank of the tie, 1, 2, 2, 4; means within 1e-12 are ties). A model's
rank interval is the pair of ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles
of its bootstrap rank distribution, which is also returned in full.

Adjacent pairs (:func:`adjacent_significance`): each row of a leaderboard against the row below it, by the
paired sign-flip test (:mod:`~gpassk_opencompass.uncertainty.resampling`), optionally Holm-corrected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpassk_opencompass.checks import non_negative_int, open_unit, positive_int
from gpassk_opencompass.defaults import CI, EXACT_MAX, N_BOOT_PAIRED, N_PERM
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import int_array
from gpassk_opencompass.uncertainty.paired import metric_values
from gpassk_opencompass.uncertainty.resampling import (
    CHUNK_CELLS,
    bootstrap_means,
    seeded_rng,
    sign_flip_columns,
    snap_ties,
)

#: Bootstrap means within this distance are tied ranks.
_RANK_TIE = 1e-12


def _models_table(counts, n, metric: str, names, designs=None) -> tuple[np.ndarray, tuple]:
    """Per-question values (models x questions) and the model names; with ``designs`` (one per model, ``None``
    for a fixed n), ``n`` is models x questions (each question's draws) and each row its design's estimates."""
    c = int_array("counts", counts)
    if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] < 1:
        raise InputError(f"counts must be models x questions (2-D, non-empty); got shape {c.shape}")
    n_array = int_array("n", n)
    if designs is not None:
        rows = np.broadcast_to(n_array, c.shape)
        values = np.stack([metric_values(c[i], rows[i], metric, design) for i, design in enumerate(designs)])
    elif n_array.ndim > 1 or (n_array.ndim == 1 and n_array.size != c.shape[1]):
        raise InputError(f"n must be one int or one per question ({c.shape[1]}); got shape {n_array.shape}")
    else:
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
    counts,
    n,
    metric: str,
    *,
    names=None,
    ci: float = CI,
    n_boot: int = N_BOOT_PAIRED,
    seed: int = 0,
    designs=None,
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
        designs: one curtailed design per model (``None``: a fixed n); ``n`` is then models x questions.

    Returns:
        :class:`RankIntervals`; higher scores rank better, ties are competition ranks.

    >>> counts = [[16, 16, 15, 16, 14, 16], [15, 16, 14, 15, 16, 16], [2, 0, 4, 3, 1, 0]]
    >>> ranks = rank_intervals(counts, 16, "G-Pass@8_1.0", names=["a", "b", "c"], seed=3)
    >>> [(m.model, m.rank, m.rank_low, m.rank_high) for m in ranks.models]
    [('a', 1, 1, 2), ('b', 2, 1, 2), ('c', 3, 3, 3)]
    """
    ci = open_unit(ci, "ci")
    n_boot = positive_int(n_boot, "n_boot")
    rng = seeded_rng(seed)
    values, names = _models_table(counts, n, metric, names, designs)
    models = values.shape[0]
    observed = _competition_ranks(values.mean(axis=1))
    boot = bootstrap_means(values.T, n_boot, rng)  # n_boot x models
    ranks = np.empty(boot.shape, dtype=np.int64)
    rows = max(1, CHUNK_CELLS // (models * models))
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
    n_perm: int = N_PERM,
    exact_max: int = EXACT_MAX,
    seed: int = 0,
    designs=None,
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
        designs: as :func:`rank_intervals`'.

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
    rng = seeded_rng(seed)
    values, names = _models_table(counts, n, metric, names, designs)
    if values.shape[0] < 2:
        raise InputError(f"a leaderboard needs at least two rows to compare; got {values.shape[0]}")
    differences = snap_ties(values[:-1] - values[1:]).T  # questions x pairs
    tests = sign_flip_columns(differences, n_perm, exact_max, rng)
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
