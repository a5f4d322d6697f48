"""Leaderboard → JSON: the published leaderboard's shape, ``{model: {metric: {benchmark: value}}}``, and beside it,
when there is more to say, what the tables show (intervals, comparison, ranks, what each row measured and claims,
warnings, incomplete, missing and unbelievable runs). Pure. Values as the results files hold them; a missing one is
left out, as the published JSON does for models a benchmark did not list.

>>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row
>>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
>>> columns = leaderboard_columns(16, (1.0,))
>>> row = Row("m", "m", {c.label: Cell(v) for c, v in zip(columns, [50.0, 12.5, None])})
>>> print(render_json(Leaderboard(16, columns, (BenchmarkTable("AIME2025", (row,)),))))
{
  "m": {
    "Greedy": {"AIME2025": 50.0},
    "G-Pass@16-1.0": {"AIME2025": 12.5}
  }
}
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gpassk_opencompass.render.leaderboard import any_incomplete, measured_fields, row_warnings

if TYPE_CHECKING:  # the leaderboard's types, named in annotations only (the leaderboard imports this package)
    from gpassk_opencompass.leaderboard.records import Leaderboard


def leaderboard_json(leaderboard: Leaderboard, field: str = "value") -> dict:
    """``{model: {metric: {benchmark: x}}}`` where x is a cell's ``value``,
    ``published``, ``delta``, ``interval`` (``[low, high]``) or ``bounds``
    (``[all unresolved wrong, all right]``); missing ones left out."""
    shaped: dict = {}
    for table in leaderboard.tables:
        for row in table.rows:
            for column in leaderboard.columns:
                cell = row.cells[column.label]
                if field == "interval":
                    x = None if cell.interval is None else [cell.interval.low, cell.interval.high]
                elif field == "bounds":
                    x = None if cell.bounds is None else list(cell.bounds)
                else:
                    x = getattr(cell, field)
                if x is not None:
                    shaped.setdefault(row.label, {}).setdefault(column.json_name, {})[table.benchmark] = x
    return shaped


def render_json(leaderboard: Leaderboard, *, intervals: bool = False) -> str:
    """The published leaderboard's JSON shape, ``{model: {metric: {benchmark: value}}}``.

    With ``intervals``, a comparison or a row from an incomplete run the shape
    moves under ``"leaderboard"``, beside ``"complete"`` (false when any value
    comes from an incomplete run), ``"intervals"`` (``[low, high]`` in the same
    shape) and/or ``"published"``, ``"delta"`` (same shape), ``"tolerance"``,
    ``"source"`` and ``"flagged"`` (a list of ``{model, metric, benchmark,
    ours, published, delta}``); with incomplete rows also ``"incomplete"`` (a
    list of ``{model, benchmark, results, unresolved, generations}``) and
    ``"bounds"`` (``[all unresolved wrong, all right]`` in the same shape).
    With a ranking, also ``"ranking"``: ``{metric, level, correction,
    resamples, seed, rows: [{benchmark, model, rank, rank_low, rank_high,
    order_uncertain}]}`` (ranked rows, in table order); with runs a manifest
    expects without results, ``"missing"``: a list of ``{model_abbr,
    dataset_abbr, display_name, benchmark, manifest}``; with rows whose values cannot be
    believed (tabulated as asked), ``"inconsistent"``: a list of ``{model, benchmark, problems}``. Whenever the
    shape moves under ``"leaderboard"``, ``"measured"`` lists what each row measured (``{model, benchmark}`` and
    :func:`measured_fields`) and, when any row has warnings (a cut share over 5 %, questions that are not the
    published column's), ``"warnings"`` a list of ``{model, benchmark, warning}``; the bare shape has no room
    for them (CSV carries them always).
    """
    values = leaderboard_json(leaderboard)
    comparison = leaderboard.comparison
    incomplete = any_incomplete(leaderboard)
    warnings = [
        {"model": row.label, "benchmark": table.benchmark, "warning": warning}
        for table in leaderboard.tables
        for row in table.rows
        for warning in row_warnings(row)
    ]
    ranking = leaderboard.ranking
    doubtful = [
        {"model": row.label, "benchmark": table.benchmark, "problems": list(row.problems)}
        for table in leaderboard.tables
        for row in table.rows
        if row.problems
    ]
    if (
        not intervals
        and comparison is None
        and not incomplete
        and ranking is None
        and not leaderboard.missing
        and not doubtful
    ):
        return _dump(values)
    document: dict = {"leaderboard": values, "complete": not incomplete}
    document["measured"] = [
        {"model": row.label, "benchmark": table.benchmark, **measured_fields(row.measured)}
        for table in leaderboard.tables
        for row in table.rows
    ]
    if warnings:
        document["warnings"] = warnings
    if ranking is not None:
        document["ranking"] = {
            "metric": ranking.metric,
            "level": ranking.level,
            "correction": ranking.correction,
            "resamples": ranking.resamples,
            "seed": ranking.seed,
            "rows": [
                {
                    "benchmark": table.benchmark,
                    "model": row.label,
                    "rank": row.rank,
                    "rank_low": row.rank_interval and row.rank_interval[0],
                    "rank_high": row.rank_interval and row.rank_interval[1],
                    "order_uncertain": row.order_uncertain,
                }
                for table in leaderboard.tables
                for row in table.rows
                if row.rank is not None
            ],
        }
    if leaderboard.missing:
        named = ("model_abbr", "dataset_abbr", "display_name", "benchmark")
        document["missing"] = [
            {name: getattr(run, name) for name in named} | {"manifest": str(run.manifest)}
            for run in leaderboard.missing
        ]
    if doubtful:
        document["inconsistent"] = doubtful
    if incomplete:
        document["incomplete"] = [
            {
                "model": row.label,
                "benchmark": table.benchmark,
                "results": str(unresolved.path),
                "unresolved": unresolved.unresolved,
                "generations": unresolved.generations,
            }
            for table in leaderboard.tables
            for row in table.rows
            for unresolved in row.unresolved
        ]
        document["bounds"] = leaderboard_json(leaderboard, "bounds")
    if intervals:
        document["intervals"] = leaderboard_json(leaderboard, "interval")
    if comparison is not None:
        document["published"] = leaderboard_json(leaderboard, "published")
        document["delta"] = leaderboard_json(leaderboard, "delta")
        document["source"] = comparison.source
        document["tolerance"] = comparison.tolerance
        document["flagged"] = [
            {
                "model": row.label,
                "metric": column.json_name,
                "benchmark": table.benchmark,
                "ours": cell.value,
                "published": cell.published,
                "delta": cell.delta,
            }
            for table in leaderboard.tables
            for row in table.rows
            for column in leaderboard.columns
            if comparison.flagged(cell := row.cells[column.label])
        ]
    return _dump(document)


def _dump(value: object, depth: int = 0) -> str:
    """Indented JSON whose innermost objects (``{benchmark: value}``) stay on one line."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and _nested(value):
        items = [
            f"{inner}{json.dumps(key, ensure_ascii=False)}: {_dump(item, depth + 1)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and _nested(value):
        return "[\n" + ",\n".join(inner + _dump(item, depth + 1) for item in value) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def _nested(value: object) -> bool:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(
        isinstance(child, dict) or (isinstance(child, list) and any(isinstance(x, (dict, list)) for x in child))
        for child in children
    )
