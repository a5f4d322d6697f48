"""Runs → leaderboard rows (pure): selection, columns, one table per benchmark.

Per benchmark one row per model (``Greedy | G-Pass@k_0.5 | G-Pass@k_0.75 | G-Pass@k_1.0 | mG-Pass@k``, sorted by
mG-Pass@k ascending), greedy from the greedy run, the rest from the sampled run, at the requested k or the
largest every sampled run has (:attr:`Leaderboard.k_reason`). Every selection rule (the run written last wins,
a complete run over an incomplete one, incomplete or unbelievable runs left out unless allowed, one row per
temperature) is reported as a :class:`Notice`. Each row says what it measured (:attr:`Row.measured`) and warns
(:attr:`Row.warnings`) of a cut share over :data:`~gpassk_opencompass.defaults.CUT_WARNING_SHARE`
(:func:`cut_warning`) or questions other than the published column's. See docs/leaderboard.md, "Which runs make
the table".

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
from collections.abc import Iterable, Sequence

from gpassk_opencompass.catalog import BENCHMARKS, benchmark_name, composition_warning, get_benchmark
from gpassk_opencompass.defaults import CUT_WARNING_SHARE
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard.records import (
    BenchmarkTable,
    Cell,
    Column,
    Leaderboard,
    MissingRun,
    Notice,
    Row,
    RunResult,
    Unresolved,
)
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, accuracy_key, metric_key, mg_metric_key

LEADERBOARD_THRESHOLDS = (0.5, 0.75, 1.0)
GREEDY = "Greedy"


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
    runs = list(runs)
    notices = list(notices)
    order = _benchmark_order(runs, benchmarks)
    runs = [run for run in runs if run.benchmark in order]
    if temperature is not None:
        runs = [run for run in runs if run.greedy or run.temperature == temperature]
    k_reason = None
    sampled = [run for run in runs if not run.greedy]
    if k is None:
        k, k_reason = choose_k(runs)
        k = 16 if k is None else k
    elif sampled and not any(k in run.k for run in sampled):
        present = sorted({value for run in sampled for value in run.k})
        raise InputError(
            f"no sampled run was scored at k = {k}; the runs have k = "
            f"{', '.join(map(str, present))} (pass --k with one of those, or leave --k out "
            "to use the largest shared one)"
        )
    columns = leaderboard_columns(k, thresholds)
    labels = [column.label for column in columns]
    if sort_by is not None and sort_by not in labels:
        raise InputError(f"cannot sort by {sort_by!r}: the columns are {', '.join(labels)}")
    usable = []
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
            continue
        usable.append(run)
    inconsistent = tuple(run for run in usable if run.problems)
    if not allow_inconsistent:
        for run in inconsistent:
            notices.append(
                Notice(
                    f"{run.display_name} on {run.benchmark} ({'greedy' if run.greedy else 'sampled'}) not tabulated: "
                    f"{run.results_path} cannot be believed: {'; '.join(run.problems)}; score the run again "
                    "(gpassk rejudge / gpassk score), or --allow-inconsistent to tabulate it marked",
                    run.results_path,
                )
            )
        usable = [run for run in usable if not run.problems]
    chosen, left_out = _choose(usable, notices, allow_unresolved)
    sampled_temperatures: dict[str, set] = defaultdict(set)
    for run in chosen:
        if not run.greedy:
            sampled_temperatures[run.display_name].add(run.temperature)
    tables = []
    for benchmark in order:
        here = [run for run in chosen if run.benchmark == benchmark]
        greedy_runs = {run.display_name: run for run in here if run.greedy}
        sampled_runs = [run for run in here if not run.greedy]
        rows = [
            _row(
                run,
                greedy_runs.get(run.display_name),
                columns,
                k,
                several_temperatures=len(sampled_temperatures[run.display_name]) > 1,
                notices=notices,
            )
            for run in sampled_runs
        ]
        sampled_models = {run.display_name for run in sampled_runs}
        rows += [
            _row(None, run, columns, k, several_temperatures=False, notices=notices)
            for name, run in greedy_runs.items()
            if name not in sampled_models
        ]
        if rows:
            tables.append(BenchmarkTable(benchmark, tuple(sorted(rows, key=sort_key(sort_by or labels[-1])))))
    expected = tuple(
        run
        for run in missing
        if (run.benchmark is None or run.benchmark in order)
        and (temperature is None or run.greedy or run.temperature in (None, temperature))
    )
    return Leaderboard(
        k=k,
        columns=columns,
        tables=tuple(tables),
        notices=tuple(notices),
        left_out_incomplete=tuple(left_out),
        missing=expected,
        k_reason=k_reason,
        left_out_inconsistent=() if allow_inconsistent else tuple(run.results_path for run in inconsistent),
    )


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
        temperature = None if run.greedy else run.temperature
        groups[(run.benchmark, run.display_name, run.greedy, temperature)].append(run)
    chosen: list[RunResult] = []
    left_out: list[Unresolved] = []
    for (benchmark, name, greedy, _), group in groups.items():
        group.sort(key=lambda run: (run.written, str(run.results_path)))
        what = f"{name} on {benchmark} ({'greedy' if greedy else 'sampled'})"
        complete = [run for run in group if run.complete]
        if not complete and not allow_unresolved:
            for run, unresolved in _incomplete(group):  # every run of the group
                notices.append(
                    Notice(
                        f"{what} not tabulated: {unresolved.describe()} in {run.results_path}; "
                        "rerun to resume, or --allow-unresolved",
                        run.results_path,
                    )
                )
                left_out.append(unresolved)
            continue
        winner = ([run for run in complete if not run.problems] or complete or group)[-1]
        paths = sorted({str(run.model_path) for run in group})
        collision = (
            (
                f" (different models share this display name: {', '.join(paths)}; give them "
                "distinct display_name in the generator's manifest)"
            )
            if len(paths) > 1
            else ""
        )
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


def _incomplete(runs: Sequence[RunResult]) -> list[tuple[RunResult, Unresolved]]:
    """The incomplete runs of ``runs``, each with what it left unresolved."""
    return [(run, run.unresolved) for run in runs if run.unresolved is not None]


def _row(
    sampled: RunResult | None,
    greedy: RunResult | None,
    columns: Sequence[Column],
    k: int,
    several_temperatures: bool,
    notices: list[Notice],
) -> Row:
    run = sampled or greedy
    assert run is not None  # every row has a sampled or a greedy run
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
    label = run.display_name
    if sampled is not None and several_temperatures:
        label = f"{run.display_name} (T={_temperature_text(sampled.temperature)})"
    warnings = _row_warnings(label, sampled, greedy)
    said = {notice.message for notice in notices}
    notices += [Notice(warning, run.results_path) for warning in warnings if warning not in said]  # once a table
    return Row(
        label=label,
        model=run.display_name,
        cells=cells,
        curve=_curve(sampled, k) if sampled is not None else (),
        curve_intervals=_curve_intervals(sampled, k) if sampled is not None else (),
        temperature=sampled.temperature if sampled is not None else None,
        sources=tuple(source.results_path for source in (sampled, greedy) if source is not None),
        unresolved=tuple(
            source.unresolved for source in (sampled, greedy) if source is not None and source.unresolved is not None
        ),
        problems=tuple(
            f"{source.results_path}: {problem}"
            for source in (sampled, greedy)
            if source is not None
            for problem in source.problems
        ),
        measured=run.measured,
        warnings=warnings,
    )


def cut_warning(label: str, run: RunResult, share: float = CUT_WARNING_SHARE) -> str | None:
    """The warning of a run whose share of generations cut at the output limit is over ``share``, else ``None``.

    >>> from pathlib import Path
    >>> from gpassk_opencompass.scoring.results import CutGenerations
    >>> cut = CutGenerations(generations=64, cut=15, no_answer=0, recorded=64, source="finish_reason")
    >>> run = RunResult(Path("r.json"), "m", "d", "X", "AIME2025", False, 16, (4, 16), cut=cut)
    >>> cut_warning("X", run)
    'X on AIME2025: 23 % of generations cut at the output limit; G-Pass@16_1.0 is bounded by it; raise max_out_len'
    >>> print(cut_warning("X", RunResult(Path("r.json"), "m", "d", "X", "AIME2025", True, 1, (1,),
    ...                                  cut=cut.model_copy(update={"recorded": 0, "source": "extraction"}))))
    X on AIME2025 (greedy): at least 23 % of generations cut at the output limit (no finish_reason recorded: counted from the text); Greedy is bounded by it; raise max_out_len
    """
    if run.cut is None or run.cut.share <= share:
        return None
    bounded = "Greedy" if run.greedy else metric_key(max(run.k), 1.0)
    return (
        f"{label} on {run.benchmark}{' (greedy)' if run.greedy else ''}: {'at least ' * run.cut.lower_bound}"
        f"{run.cut.share * 100:.0f} % of generations cut at the output limit"
        f"{' (no finish_reason recorded: counted from the text)' * run.cut.lower_bound}; {bounded} is bounded by it; "
        "raise max_out_len"
    )


def _row_warnings(label: str, sampled: RunResult | None, greedy: RunResult | None) -> tuple[str, ...]:
    """The row's cut warnings (each run's) and its composition warning (its sampled run's, else its greedy's;
    worded the same for every row of the table with as many questions, so said once)."""
    runs = [run for run in (sampled, greedy) if run is not None]
    warnings = [warning for run in runs if (warning := cut_warning(label, run)) is not None]
    run = runs[0]
    if run.questions is not None and run.benchmark in {benchmark.name for benchmark in BENCHMARKS}:
        composition = composition_warning(run.questions, get_benchmark(run.benchmark).questions)
        if composition is not None:
            warnings.append(f"{run.benchmark}: {composition}")
    return tuple(warnings)


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
