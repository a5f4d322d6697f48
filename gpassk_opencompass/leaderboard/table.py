"""Runs → leaderboard rows (pure): selection, columns, one table per benchmark.

Per benchmark one row per model (``Greedy | G-Pass@k_0.5 | G-Pass@k_0.75 | G-Pass@k_1.0 | mG-Pass@k``, sorted by
mG-Pass@k ascending), greedy from the greedy run, the rest from the sampled run, at the requested k or the
largest every sampled run has (:attr:`Leaderboard.k_reason`). Every selection rule (the run written last wins,
a complete run over an incomplete one, incomplete or unbelievable runs left out unless allowed, one row per
temperature) is reported as a :class:`Notice`. Each row says what it measured (:attr:`Row.measured`), what its run
claims to be (:attr:`Measured.claims`: a pilot, the user's own data) and warns (:attr:`Row.warnings`, facts worded by
:func:`~gpassk_opencompass.render.leaderboard.format_warning`) of a cut share over
:data:`~gpassk_opencompass.defaults.CUT_WARNING_SHARE` (:func:`cut_share`) or questions other than the published
column's. See docs/leaderboard.md, "Which runs make the table".

>>> from pathlib import Path
>>> sampled = RunResult(Path("r/m/d.json"), "m_t07", "d_k16_n48", "Qwen2.5-7B-Instruct",
...     "AIME2025", greedy=False, n=48, k=(4, 8, 16), temperature=0.7,
...     metrics={"G-Pass@16_0.5": 9.7, "G-Pass@16_0.75": 6.2, "G-Pass@16_1.0": 0.2,
...              "mG-Pass@16": 4.7})
>>> greedy = RunResult(Path("r/g/d.json"), "m_t0", "d_k1_n1", "Qwen2.5-7B-Instruct",
...     "AIME2025", greedy=True, n=1, k=(1,), temperature=0.0, metrics={"accuracy": 6.7})
>>> board = build_leaderboard([sampled, greedy], k=16)
>>> [column.label for column in board.columns]
['Greedy', 'G-Pass@16_0.5', 'G-Pass@16_0.75', 'G-Pass@16_1.0', 'mG-Pass@16']
>>> row = board.tables[0].rows[0]
>>> row.label, row.cells["Greedy"].value, row.cells["mG-Pass@16"].value
('Qwen2.5-7B-Instruct', 6.7, 4.7)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from gpassk_opencompass.catalog import BENCHMARKS, benchmark_name, get_benchmark
from gpassk_opencompass.defaults import CUT_WARNING_SHARE
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard.records import (
    BenchmarkTable,
    Cell,
    Column,
    Composition,
    CutShare,
    Leaderboard,
    MissingRun,
    Notice,
    Row,
    RowWarning,
    RunResult,
    Unresolved,
)
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, accuracy_key, metric_key, mg_metric_key
from gpassk_opencompass.render.leaderboard import format_warning

LEADERBOARD_THRESHOLDS = (0.5, 0.75, 1.0)
GREEDY = "Greedy"
#: The benchmarks the catalog knows (their published question counts are its).
CATALOG_NAMES = frozenset(benchmark.name for benchmark in BENCHMARKS)


def leaderboard_columns(k: int = 16, thresholds: Sequence[float] = LEADERBOARD_THRESHOLDS) -> tuple[Column, ...]:
    """Greedy, G-Pass@k_τ per threshold, mG-Pass@k, named as tables and the published JSON name them.

    >>> [(c.label, c.json_name) for c in leaderboard_columns(8, (0.5,))]
    [('Greedy', 'Greedy'), ('G-Pass@8_0.5', 'G-Pass@8-0.5'), ('mG-Pass@8', 'mG-Pass@8')]
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    for tau in thresholds:
        if not 0.0 <= tau <= 1.0:
            raise InputError(f"threshold τ must lie in [0, 1], got {tau!r}")
    thresholds = tuple(dict.fromkeys(float(tau) for tau in thresholds))  # each column once
    return (
        Column(GREEDY, GREEDY, None),
        *(Column(metric_key(k, tau), f"G-Pass@{k}-{float(tau)}", metric_key(k, tau)) for tau in thresholds),
        Column(mg_metric_key(k), mg_metric_key(k), mg_metric_key(k)),
    )


def choose_k(runs: Iterable[RunResult]) -> tuple[int | None, str]:
    """The k of a leaderboard when none is asked for, and one sentence saying why.

    The largest k that every sampled run was scored at; when they share none,
    the largest of the k values the most runs have.  ``None`` without sampled runs.

    >>> from pathlib import Path
    >>> def run(ks): return RunResult(Path("r.json"), "m", "d", "m", "AIME2025", False, 16, ks)
    >>> choose_k([run((4, 8, 16)), run((4, 8))])
    (8, 'k = 8: the largest k all 2 sampled runs were scored at (present: 4, 8, 16; choose another with --k)')
    >>> choose_k([run((16,)), run((4, 8)), run((8,))])[0]
    8
    """
    sampled = [run for run in runs if not run.greedy]
    if not sampled:
        return None, "no sampled runs: only the Greedy column has values"
    tally: dict[int, int] = defaultdict(int)
    for run in sampled:
        for value in set(run.k):
            tally[value] += 1
    present = ", ".join(map(str, sorted(tally)))
    chosen = max(tally, key=lambda value: (tally[value], value))
    if tally[chosen] == len(sampled):
        return chosen, (
            f"k = {chosen}: the largest k all {len(sampled)} sampled runs were scored at "
            f"(present: {present}; choose another with --k)"
        )
    return chosen, (
        f"k = {chosen}: no k is shared by all {len(sampled)} sampled runs; {chosen} is the "
        f"largest of those most runs ({tally[chosen]}) have (present: {present}; choose "
        "another with --k); the runs without it are left out"
    )


def build_leaderboard(
    runs: Iterable[RunResult],
    *,
    k: int | None = None,
    thresholds: Sequence[float] = LEADERBOARD_THRESHOLDS,
    benchmarks: Sequence[str] | None = None,
    temperature: float | None = None,
    notices: Iterable[Notice] = (),
    allow_unresolved: bool = False,
    missing: Iterable[MissingRun] = (),
    sort_by: str | None = None,
    allow_inconsistent: bool = False,
) -> Leaderboard:
    """Turn identified runs into one sorted table per benchmark.

    Args:
        runs: identified results files (see :func:`~gpassk_opencompass.leaderboard.collect.collect_runs`).
        k: the k of the G-Pass@k columns; ``None``: chosen by :func:`choose_k`
            from the runs of the chosen benchmarks and temperature.
        thresholds: the τ of the G-Pass@k_τ columns.
        benchmarks: only these benchmarks, in this order; default all present, canonical order first.
        temperature: only sampled runs at this temperature.
        notices: earlier notices (from reading the runs) to carry along.
        allow_unresolved: tabulate an incomplete run (marked) when no complete
            run of the same model, benchmark and sampling exists.
        missing: runs a manifest expects without results; those of the chosen
            benchmarks (and temperature) are kept in ``Leaderboard.missing``.
        sort_by: the column label the rows are sorted by (ascending, as the
            seed README); default the last column, mG-Pass@k.
        allow_inconsistent: tabulate a run whose values cannot be believed
            (its row marked with the reasons) instead of leaving it out.

    Returns:
        The leaderboard; its notices say what was left out and why.

    Raises:
        InputError: bad ``k``/``thresholds``/``sort_by``, a ``k`` no sampled run
            was scored at (naming the k values present), or a requested
            benchmark no run has and that is not a known benchmark name.
    """
    if k is not None:
        leaderboard_columns(k, thresholds)  # a bad k is reported before anything else
    runs, notices = list(runs), list(notices)
    order = _benchmark_order(runs, benchmarks)
    wanted = _wanted(runs, order, temperature)
    k, k_reason = _settle_k(wanted, k)
    columns = leaderboard_columns(k, thresholds)
    labels = [column.label for column in columns]
    if sort_by is not None and sort_by not in labels:
        raise InputError(f"cannot sort by {sort_by!r}: the columns are {', '.join(labels)}")
    usable = _scored_at(wanted, k, notices)
    inconsistent = tuple(run for run in usable if run.problems)
    if not allow_inconsistent:
        usable = _believable(usable, notices)
    chosen, left_out = _choose(usable, notices, allow_unresolved)
    tables = _tables(chosen, order, columns, k, sort_by or labels[-1], notices)
    return Leaderboard(
        k=k,
        columns=columns,
        tables=tables,
        notices=tuple(notices),
        left_out_incomplete=tuple(left_out),
        missing=_expected(missing, order, temperature),
        k_reason=k_reason,
        left_out_inconsistent=() if allow_inconsistent else tuple(run.results_path for run in inconsistent),
    )


def _wanted(runs: Iterable[RunResult], order: Sequence[str], temperature: float | None) -> list[RunResult]:
    """The runs of the chosen benchmarks (and of the chosen temperature, greedy runs aside)."""
    return [
        run
        for run in runs
        if run.benchmark in order and (temperature is None or run.greedy or run.temperature == temperature)
    ]


def _settle_k(runs: Sequence[RunResult], k: int | None) -> tuple[int, str | None]:
    """The k asked for (refused when no sampled run has it), else :func:`choose_k`'s, with its reason."""
    sampled = [run for run in runs if not run.greedy]
    if k is None:
        chosen, reason = choose_k(runs)
        return 16 if chosen is None else chosen, reason
    if sampled and not any(k in run.k for run in sampled):
        present = sorted({value for run in sampled for value in run.k})
        raise InputError(
            f"no sampled run was scored at k = {k}; the runs have k = "
            f"{', '.join(map(str, present))} (pass --k with one of those, or leave --k out "
            "to use the largest shared one)"
        )
    return k, None


def _scored_at(runs: Sequence[RunResult], k: int, notices: list[Notice]) -> list[RunResult]:
    """The greedy runs and the sampled runs scored at ``k``; a notice for each other one."""
    for run in runs:
        if not run.greedy and k not in run.k:
            notices.append(
                Notice(
                    f"{run.results_path}: {run.display_name} on {run.benchmark} was scored at "
                    f"k = {list(run.k)}, not {k}; left out (pass --k with one of those, or rerun with "
                    f"{k} in k)",
                    run.results_path,
                )
            )
    return [run for run in runs if run.greedy or k in run.k]


def _believable(runs: Sequence[RunResult], notices: list[Notice]) -> list[RunResult]:
    """The runs whose values can be believed; a notice for each other one."""
    for run in runs:
        if run.problems:
            notices.append(
                Notice(
                    f"{_what(run)} not tabulated: {run.results_path} cannot be believed: {'; '.join(run.problems)}; "
                    "score the run again (gpassk rejudge / gpassk score), or --allow-inconsistent to tabulate it "
                    "marked",
                    run.results_path,
                )
            )
    return [run for run in runs if not run.problems]


def _tables(
    chosen: Sequence[RunResult],
    order: Sequence[str],
    columns: Sequence[Column],
    k: int,
    sort_label: str,
    notices: list[Notice],
) -> tuple[BenchmarkTable, ...]:
    """One sorted table per benchmark with rows: each sampled run with its model's greedy run, then the greedy
    runs of models without a sampled one."""
    sampled_temperatures: dict[str, set] = defaultdict(set)
    for run in chosen:
        if not run.greedy:
            sampled_temperatures[run.display_name].add(run.temperature)
    tables = []
    for benchmark in order:
        here = [run for run in chosen if run.benchmark == benchmark]
        greedy_runs = {run.display_name: run for run in here if run.greedy}
        sampled_runs = [run for run in here if not run.greedy]
        pairs: list[tuple[RunResult | None, RunResult | None]] = [
            (run, greedy_runs.get(run.display_name)) for run in sampled_runs
        ]
        sampled_models = {run.display_name for run in sampled_runs}
        pairs += [(None, run) for name, run in greedy_runs.items() if name not in sampled_models]
        rows = [
            _row(sampled, greedy, columns, k, _row_label(sampled, greedy, sampled_temperatures), notices)
            for sampled, greedy in pairs
        ]
        if rows:
            tables.append(BenchmarkTable(benchmark, tuple(sorted(rows, key=sort_key(sort_label)))))
    return tuple(tables)


def _expected(missing: Iterable[MissingRun], order: Sequence[str], temperature: float | None) -> tuple[MissingRun, ...]:
    """The runs a manifest expects without results, of the chosen benchmarks and temperature."""
    return tuple(
        run
        for run in missing
        if (run.benchmark is None or run.benchmark in order)
        and (temperature is None or run.greedy or run.temperature in (None, temperature))
    )


def _what(run: RunResult) -> str:
    """``'<model> on <benchmark> (greedy|sampled)'``, as notices name a run."""
    return f"{run.display_name} on {run.benchmark} ({'greedy' if run.greedy else 'sampled'})"


def _benchmark_order(runs: Sequence[RunResult], requested: Sequence[str] | None) -> list[str]:
    canonical = [benchmark.name for benchmark in BENCHMARKS]
    present = {run.benchmark for run in runs}
    if requested is None:
        return [name for name in canonical if name in present] + sorted(present - set(canonical))
    others = sorted(present - set(canonical))  # names runs record that the catalog lacks
    return list(dict.fromkeys(benchmark_name(name, others) for name in requested))


def _choose(
    runs: Sequence[RunResult], notices: list[Notice], allow_unresolved: bool
) -> tuple[list[RunResult], list[Unresolved]]:
    """One run per (benchmark, model, greedy, temperature): the last written complete one;
    an incomplete one only when no complete run exists and ``allow_unresolved``.

    Returns:
        The chosen runs, and the incomplete runs left out for being incomplete.
    """
    groups: dict[tuple, list[RunResult]] = defaultdict(list)
    for run in runs:
        groups[(run.benchmark, run.display_name, run.greedy, None if run.greedy else run.temperature)].append(run)
    chosen: list[RunResult] = []
    left_out: list[Unresolved] = []
    for group in groups.values():
        group.sort(key=lambda run: (run.written, str(run.results_path)))
        what = _what(group[0])
        complete = [run for run in group if run.complete]
        if not complete and not allow_unresolved:
            for run in group:  # every run of the group is incomplete
                assert run.unresolved is not None
                notices.append(
                    Notice(
                        f"{what} not tabulated: {run.unresolved.describe()} in {run.results_path}; "
                        "rerun to resume, or --allow-unresolved",
                        run.results_path,
                    )
                )
                left_out.append(run.unresolved)
            continue
        winner = ([run for run in complete if not run.problems] or complete or group)[-1]
        notices += _superseded(group, winner, what)
        if winner.unresolved is not None:  # incomplete
            notices.append(
                Notice(
                    f"{what} is incomplete: {winner.unresolved.describe()} in {winner.results_path}; "
                    "tabulated as allowed, its cells marked incomplete (unresolved counted as wrong)",
                    winner.results_path,
                )
            )
        if winner.problems:
            notices.append(
                Notice(
                    f"{what} cannot be believed: {winner.results_path}: {'; '.join(winner.problems)}; "
                    "tabulated as allowed, its row marked",
                    winner.results_path,
                )
            )
        chosen.append(winner)
    return chosen, left_out


def _superseded(group: Sequence[RunResult], winner: RunResult, what: str) -> list[Notice]:
    """A notice for each run of ``group`` the ``winner`` is used over, saying why."""
    paths = sorted({str(run.model_path) for run in group})
    collision = (
        f" (different models share this display name: {', '.join(paths)}; give them "
        "distinct display_name in the generator's manifest)"
        if len(paths) > 1
        else ""
    )
    notices = []
    for other in group:
        if other is winner:
            continue
        if other.complete and other.problems and not winner.problems:
            reason = f"using {winner.results_path} over {other.results_path}, whose values cannot be believed"
        elif other.unresolved is None:  # complete
            reason = f"using the newest, {winner.results_path}, over {other.results_path}"
        else:
            newer = (
                "newer "
                if (other.written, str(other.results_path)) > (winner.written, str(winner.results_path))
                else ""
            )
            reason = (
                f"using the complete run {winner.results_path} over the {newer}incomplete "
                f"{other.results_path} ({other.unresolved.describe()})"
            )
        notices.append(Notice(f"{what} ran more than once: {reason}{collision}", other.results_path))
    return notices


def _row_label(sampled: RunResult | None, greedy: RunResult | None, temperatures: Mapping[str, set]) -> str:
    """The model's name, with ``(T=…)`` when its sampled runs have several temperatures."""
    run = sampled or greedy
    assert run is not None  # every row has a sampled or a greedy run
    if sampled is not None and len(temperatures[run.display_name]) > 1:
        return f"{run.display_name} (T={_temperature_text(sampled.temperature)})"
    return run.display_name


def _row(
    sampled: RunResult | None,
    greedy: RunResult | None,
    columns: Sequence[Column],
    k: int,
    label: str,
    notices: list[Notice],
) -> Row:
    """One model's row: its cells, curve, sources, what it measured, claims and warnings (each warning also a
    notice, once a table)."""
    run = sampled or greedy
    assert run is not None  # every row has a sampled or a greedy run
    runs = [source for source in (sampled, greedy) if source is not None]
    warnings = row_warnings(label, sampled, greedy)
    said = {notice.message for notice in notices}
    for text in dict.fromkeys(format_warning(warning) for warning in warnings):
        if text not in said:
            notices.append(Notice(text, run.results_path))
    return Row(
        label=label,
        model=run.display_name,
        cells=_cells(sampled, greedy, columns, notices),
        curve=_curve(sampled, k) if sampled is not None else (),
        curve_intervals=_curve_intervals(sampled, k) if sampled is not None else (),
        temperature=sampled.temperature if sampled is not None else None,
        sources=tuple(source.results_path for source in runs),
        unresolved=tuple(source.unresolved for source in runs if source.unresolved is not None),
        problems=tuple(f"{source.results_path}: {problem}" for source in runs for problem in source.problems),
        measured=run.measured,
        warnings=warnings,
        runs=(sampled.run_id if sampled else None, greedy.run_id if greedy else None),
    )


def _cells(
    sampled: RunResult | None, greedy: RunResult | None, columns: Sequence[Column], notices: list[Notice]
) -> dict[str, Cell]:
    """A cell per column: Greedy from the greedy run, the rest from the sampled run (an incomplete run's value
    counts its unresolved generations wrong); a notice for a value the results lack."""
    cells = {}
    for column in columns:
        source = greedy if column.result_key is None else sampled
        if source is None:
            cells[column.label] = Cell(None)
            continue
        key = accuracy_key(source.n) if column.result_key is None else column.result_key
        value = source.metrics.get(key)
        bounds = source.bounds.get(key)
        if value is None and not source.complete and bounds is not None:
            value = bounds[0]  # the results omit metrics of an incomplete run; all unresolved wrong
        if value is None:
            notices.append(
                Notice(f"{source.results_path} has no {key!r}; its {column.label} cell is '-'", source.results_path)
            )
        cells[column.label] = Cell(
            value, source.intervals.get(key), complete=source.complete, bounds=None if source.complete else bounds
        )
    return cells


def cut_share(label: str, run: RunResult, share: float = CUT_WARNING_SHARE) -> CutShare | None:
    """The fact of a run whose share of generations cut at the output limit is over ``share``, else ``None``
    (worded by :func:`~gpassk_opencompass.render.leaderboard.format_warning`).

    >>> from pathlib import Path
    >>> from gpassk_opencompass.scoring.results import CutGenerations
    >>> cut = CutGenerations(generations=64, cut=15, no_answer=0, recorded=64, source="finish_reason")
    >>> cut_share("X", RunResult(Path("r.json"), "m", "d", "X", "AIME2025", False, 16, (4, 16), cut=cut))
    CutShare(label='X', benchmark='AIME2025', greedy=False, share=0.234375, lower_bound=False, bounded='G-Pass@16_1.0')
    """
    if run.cut is None or run.cut.share <= share:
        return None
    bounded = GREEDY if run.greedy else metric_key(max(run.k), 1.0)
    return CutShare(label, run.benchmark, run.greedy, run.cut.share, run.cut.lower_bound, bounded)


def row_warnings(label: str, sampled: RunResult | None, greedy: RunResult | None) -> tuple[RowWarning, ...]:
    """The row's cut facts (each run's) and its composition fact (its sampled run's, else its greedy's).

    >>> from pathlib import Path
    >>> row_warnings("X", RunResult(Path("r.json"), "m", "d", "X", "AIME2025", False, 8, (4,), questions=5), None)
    (Composition(benchmark='AIME2025', questions=5, published=15),)
    """
    runs = [run for run in (sampled, greedy) if run is not None]
    warnings: list[RowWarning] = [cut for run in runs if (cut := cut_share(label, run)) is not None]
    published = published_questions(runs[0].benchmark)
    if runs[0].questions is not None and published is not None and runs[0].questions != published:
        warnings.append(Composition(runs[0].benchmark, runs[0].questions, published))
    return tuple(warnings)


def published_questions(benchmark: str) -> int | None:
    """The question count of a benchmark's published column (``None``: not a catalog benchmark, or unpublished).

    >>> published_questions("AIME2025"), published_questions("my-own-set")
    (15, None)
    """
    return get_benchmark(benchmark).questions if benchmark in CATALOG_NAMES else None


def _curve(run: RunResult, k: int) -> tuple[tuple[float, float], ...]:
    taus = sorted(run.thresholds if run.thresholds is not None else DEFAULT_THRESHOLDS)
    return tuple((tau, run.metrics[metric_key(k, tau)]) for tau in taus if metric_key(k, tau) in run.metrics)


def _curve_intervals(run: RunResult, k: int) -> tuple[tuple[float, float, float], ...]:
    """``(τ, ci_low, ci_high)`` of the run's G-Pass@k_τ where the results have an interval."""
    taus = sorted(run.thresholds if run.thresholds is not None else DEFAULT_THRESHOLDS)
    return tuple(
        (tau, interval.low, interval.high)
        for tau in taus
        if (interval := run.intervals.get(metric_key(k, tau))) is not None
    )


def _temperature_text(temperature: float | None) -> str:
    return "?" if temperature is None else f"{temperature:g}"


def sort_key(label: str):
    """The rows' order: by the column ``label`` ascending, rows without a value last, then by name."""

    def key(row: Row) -> tuple:
        value = row.cells[label].value
        return (value is None, value if value is not None else 0.0, row.label)

    return key
