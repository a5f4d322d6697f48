"""Which differences on a leaderboard are real: rank intervals and adjacent-row significance.

Per benchmark table, on the ranking metric (default mG-Pass@k) and the rows' per-question details: each row's
rank and rank interval over resampled questions (:func:`gpassk_opencompass.uncertainty.ranks.rank_intervals`),
and whether its order against the next row is significant (a paired sign-flip test, Holm-corrected:
:func:`gpassk_opencompass.uncertainty.ranks.adjacent_significance`; ``Row.order_uncertain``). A table gets
marks only when every ranked row is complete, with details on the same questions and n that reproduce its
value; otherwise a :class:`Notice` says why. See docs/leaderboard.md, "Ranks and significance".

>>> check_ranking_options(level=0.95, correction="holm", resamples=2000, seed=0)
>>> check_ranking_options(level=95, correction="holm", resamples=2000, seed=0)
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: the significance level (a confidence such as 0.95) must be in (0, 1), got 95
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from gpassk_opencompass import defaults
from gpassk_opencompass.checks import non_negative_int, open_unit, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard.records import BenchmarkTable, Leaderboard, Notice, RankingInfo, Row
from gpassk_opencompass.leaderboard.table import GREEDY
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import load_results
from gpassk_opencompass.uncertainty.paired import metric_values
from gpassk_opencompass.uncertainty.ranks import adjacent_significance, rank_intervals

CORRECTIONS = ("holm", "none")
#: A row's value and the one its details give may differ by float rounding only (x100 scale).
_REPRODUCED = 1e-6


def check_ranking_options(*, level: float | None, correction: str, resamples: int, seed: int) -> None:
    """Refuse bad ranking options before any file is read (``level``: ``None`` when no ranking was asked for; the
    other options are checked all the same, so a mistake in one is never accepted silently).

    Raises:
        InputError: one line naming the option, its value and what is expected.
    """
    if level is not None:
        open_unit(level, "the significance level (a confidence such as 0.95)")
    if correction not in CORRECTIONS:
        raise InputError(f"the correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    positive_int(resamples, "--resamples")
    non_negative_int(seed, "--seed")


def rank_leaderboard(
    board: Leaderboard,
    *,
    metric: str | None = None,
    level: float = defaults.CI,
    correction: str = "holm",
    resamples: int = defaults.N_BOOT_PAIRED,
    seed: int = 0,
    load: Callable[[Path], ResultsFile] = load_results,
) -> Leaderboard:
    """Set every table's ranks, rank intervals and order-uncertain marks.

    Args:
        board: the leaderboard, its tables sorted by ``metric`` (see
            ``build_leaderboard(sort_by=...)``).
        metric: a sampled column's label (``mG-Pass@16``, ``G-Pass@16_1.0``);
            default the last column, mG-Pass@k.
        level: confidence of the rank intervals; adjacent rows are tested at ``1 - level``.
        correction: ``"holm"`` (family-wise over a table's adjacent pairs) or ``"none"``.
        resamples: bootstrap resamples of the questions (also the random sign
            vectors of a pair differing on more than 20 questions).
        seed: seeds both.
        load: reads a results file (a parameter for tests).

    Returns:
        The leaderboard with ``ranking`` set, marks on the tables that allow
        them and a notice for each table that does not.

    Raises:
        InputError: a bad option, or ``metric`` is not one of the sampled columns.
    """
    check_ranking_options(level=level, correction=correction, resamples=resamples, seed=seed)
    sampled = [column.label for column in board.columns if column.label != GREEDY]
    metric = metric or board.columns[-1].label
    if metric not in sampled:
        raise InputError(f"cannot rank by {metric!r}: rank by one of the sampled columns, {', '.join(sampled)}")
    info = RankingInfo(metric=metric, level=float(level), correction=correction, resamples=resamples, seed=seed)
    notices = list(board.notices)
    tables = []
    for table in board.tables:
        ranked, reason = _rank_table(table, info, load)
        if reason is not None:
            notices.append(Notice(f"no ranks or significance marks for {table.benchmark}: {reason}"))
        tables.append(ranked)
    return replace(board, tables=tuple(tables), notices=tuple(notices), ranking=info)


def _rank_table(
    table: BenchmarkTable, info: RankingInfo, load: Callable[[Path], ResultsFile]
) -> tuple[BenchmarkTable, str | None]:
    """The table with its marks, or unchanged with the reason it has none."""
    rows = [row for row in table.rows if row.cells[info.metric].value is not None]
    if not rows:
        return table, f"no row has {info.metric}"
    counts, n, designs, reason = _shared_counts(rows, info.metric, load)
    if reason is not None:
        return table, reason
    ranks = rank_intervals(
        counts, n, info.metric, ci=info.level, n_boot=info.resamples, seed=info.seed, designs=designs
    )
    for row, model in zip(rows, ranks.models):
        reported = row.cells[info.metric].value
        assert reported is not None  # the rows were chosen for having it
        if not math.isclose(model.score, reported, rel_tol=0, abs_tol=_REPRODUCED):
            return table, (
                f"the per-question details of {row.sources[0]} give {info.metric} = "
                f"{model.score:.6f}, not the {reported:.6f} its results report"
            )
    uncertain = [False] * len(rows)
    if len(rows) > 1:
        pairs = adjacent_significance(
            counts,
            n,
            info.metric,
            level=info.alpha,
            correction=info.correction,
            n_perm=info.resamples,
            seed=info.seed,
            designs=designs,
        )
        uncertain = [not pair.significant for pair in pairs] + [False]
    marked = {
        id(row): replace(row, rank=model.rank, rank_interval=(model.rank_low, model.rank_high), order_uncertain=flag)
        for row, model, flag in zip(rows, ranks.models, uncertain)
    }
    return replace(table, rows=tuple(marked.get(id(row), row) for row in table.rows)), None


def _shared_counts(
    rows: Sequence[Row], metric: str, load: Callable[[Path], ResultsFile]
) -> tuple[np.ndarray, int | np.ndarray, list | None, str | None]:
    """Correct counts (rows x questions, in the first row's question order), n, the rows' curtailed designs (``None``
    when no run is curtailed; then ``n`` is each row's draws, rows x questions), or why not."""
    records = []
    for row in rows:
        try:
            record = load(row.sources[0])
        except InputError as error:
            return np.empty(0), 0, None, str(error)
        if not record.complete:
            return (
                np.empty(0),
                0,
                None,
                (
                    f"{row.label} comes from an incomplete run, {record.source} (its "
                    "unresolved verdicts would count as wrong)"
                ),
            )
        if record.problems:
            return np.empty(0), 0, None, f"{record.source} cannot be believed ({'; '.join(record.problems)})"
        if not record.details:
            return (
                np.empty(0),
                0,
                None,
                (f"{row.sources[0]} has no per-question details (GPassKEvaluator and gpassk score record them)"),
            )
        records.append(record)
    first_ids = records[0].question_ids()
    if len(set(first_ids)) != len(first_ids):
        return np.empty(0), 0, None, f"{records[0].source} repeats question ids"
    position = {question: index for index, question in enumerate(first_ids)}
    matrix = np.zeros((len(records), len(first_ids)), dtype=np.int64)
    drawn = np.zeros_like(matrix)
    n_values: set[int] = set()  # what each run stands for: its design's n, else its generations per question
    for index, record in enumerate(records):
        ids = record.question_ids()
        if sorted(ids) != sorted(first_ids):
            only_here = len(set(ids) - set(first_ids))
            only_first = len(set(first_ids) - set(ids))
            return (
                np.empty(0),
                0,
                None,
                (
                    f"{rows[index].label} and {rows[0].label} do not share their questions "
                    f"({only_here} only in {record.source}, {only_first} only in "
                    f"{records[0].source})"
                ),
            )
        c, generations = record.counts()
        design = record.design
        n_values.update([design.n] if design is not None else (int(value) for value in generations))
        matrix[index, [position[question] for question in ids]] = c
        drawn[index, [position[question] for question in ids]] = generations
    if len(n_values) != 1:
        return (
            np.empty(0),
            0,
            None,
            (f"the rows' runs do not share n (generations per question: {', '.join(map(str, sorted(n_values)))})"),
        )
    n = n_values.pop()
    designs = [record.design for record in records]
    try:
        if any(design is not None for design in designs):  # each row its own estimator, on its own draws
            metric_values(matrix[0], drawn[0], metric, designs[0])
            return matrix, drawn, designs, None
        metric_values(matrix[:1], n, metric)  # k <= n, else one line naming them
    except InputError as error:
        return np.empty(0), 0, None, str(error)
    return matrix, n, None, None
