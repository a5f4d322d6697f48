#!/usr/bin/env python
"""Draw the README's headline picture from the published leaderboard.

    python docs/make_headline.py            # -> docs/img/published_greedy_vs_mgpass.png

Greedy accuracy against mG-Pass@16 of every model of the GPassK README's tables
(``gpassk_opencompass/data/published_leaderboard.json``), a panel per benchmark,
drawn by the leaderboard's own plotting code
(:func:`gpassk_opencompass.render.plots.plot_greedy_vs_mg`).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from gpassk_opencompass.files.writing import write_bytes_atomic
from gpassk_opencompass.leaderboard.published import PublishedLeaderboard, load_published
from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row
from gpassk_opencompass.leaderboard.table import leaderboard_columns

OUTPUT = Path(__file__).resolve().parent / "img" / "published_greedy_vs_mgpass.png"


def published_board(published: PublishedLeaderboard, k: int = 16) -> Leaderboard:
    """The published figures as a :class:`Leaderboard`: a table per benchmark, a row per model.

    Rows are sorted by mG-Pass@k ascending, as ``gpassk leaderboard`` sorts them.

    >>> board = published_board(load_published())
    >>> [table.benchmark for table in board.tables][:2]
    ['LiveMathBench-202412', 'LiveMathBench-Hard-202412']
    >>> row = next(row for row in board.tables[0].rows if row.model == "Qwen2.5-7B-Instruct")
    >>> row.cells["mG-Pass@16"].value
    25.8
    """
    columns = leaderboard_columns(k)
    benchmarks = dict.fromkeys(
        benchmark
        for metrics in published.values.values()
        for by_benchmark in metrics.values()
        for benchmark in by_benchmark
    )
    tables = []
    for benchmark in benchmarks:
        rows = [
            Row(
                model,
                model,
                {column.label: Cell(published.value(model, column.json_name, benchmark)) for column in columns},
            )
            for model in published.values
            if published.value(model, columns[-1].json_name, benchmark) is not None
        ]
        rows.sort(key=lambda row: row.cells[columns[-1].label].value)
        tables.append(BenchmarkTable(benchmark, tuple(rows)))
    return Leaderboard(k=k, columns=columns, tables=tuple(tables))


def main() -> int:
    from gpassk_opencompass.render.plots import plot_greedy_vs_mg

    with tempfile.TemporaryDirectory() as scratch:
        drawn = plot_greedy_vs_mg(published_board(load_published()), Path(scratch))
        write_bytes_atomic(OUTPUT, drawn.read_bytes())
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
