"""The published LiveMathBench leaderboard as data, and comparing a run against it.

The five tables of the GPassK README (``gpassk_opencompass/data/published_leaderboard.json``)
are shipped in the published leaderboard's JSON shape,
``{model: {metric: {benchmark: value}}}``, with their provenance.

>>> published = load_published()
>>> published.value("Qwen2.5-7B-Instruct", "mG-Pass@16", "LiveMathBench-202412")
25.8
>>> published.match("deepseek-r1-distill-qwen-7b")
'DeepSeek-Distill-Qwen-7B'
>>> published.match("my-own-model") is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import MAX_JSON_BYTES, UnreadableFile, load_json_text, read_bytes_bounded
from gpassk_opencompass.leaderboard.records import Comparison, Leaderboard, Notice

DEFAULT_TOLERANCE = 1.0


@dataclass(frozen=True)
class PublishedLeaderboard:
    """Published figures (×100) in the leaderboard JSON shape.

    Attributes:
        values: ``{model: {metric: {benchmark: value}}}``; metric names as in the
            published JSON (``Greedy``, ``G-Pass@16-0.5``, …, ``mG-Pass@16``).
        provenance: where the figures come from (``source`` is one line).
        aliases: other names of published models (repository or API names).
        categories: the README's model kind: ``general``, ``math`` or ``o1-like``.
    """

    values: Mapping[str, Mapping[str, Mapping[str, float]]]
    provenance: Mapping[str, object]
    aliases: Mapping[str, str]
    categories: Mapping[str, str]

    @property
    def source(self) -> str:
        """One line saying where the figures come from."""
        return str(self.provenance.get("source", "published leaderboard"))

    def match(self, name: str) -> str | None:
        """The published model a display name refers to: exact, case-insensitive, then by alias."""
        if name in self.values:
            return name
        folded = {model.casefold(): model for model in self.values}
        folded.update({alias.casefold(): model for alias, model in self.aliases.items()})
        return folded.get(name.casefold())

    def value(self, model: str, metric: str, benchmark: str) -> float | None:
        """A published figure, or ``None`` when the model was not published for it."""
        return self.values.get(model, {}).get(metric, {}).get(benchmark)


def load_published(path: Path | str | None = None) -> PublishedLeaderboard:
    """Load published figures: the shipped GPassK README tables, or a JSON file in the same layout.

    A file holding only the bare ``{model: {metric: {benchmark: value}}}`` shape
    (as the published leaderboard page serves it) is accepted too.

    Raises:
        InputError: the file is unreadable or not in that shape.
    """
    if path is None:
        text = resources.files("gpassk_opencompass").joinpath("data/published_leaderboard.json").read_bytes()
        where = "the shipped published_leaderboard.json"
    else:
        try:
            text = read_bytes_bounded(path, MAX_JSON_BYTES, "one JSON document")
        except UnreadableFile as error:
            raise InputError(f"cannot read published figures {str(path)!r}: {error}") from None
        where = repr(str(path))
    data = load_json_text(text, source=f"published figures {where}")
    wrapped = isinstance(data, Mapping) and "leaderboard" in data
    values = data["leaderboard"] if wrapped else data
    if not _is_leaderboard_shape(values):
        raise InputError(f"published figures {where} are not in the shape {{model: {{metric: {{benchmark: number}}}}}}")
    extras = data if wrapped else {}
    return PublishedLeaderboard(
        values=values,
        provenance=extras.get("provenance", {"source": where}),
        aliases=extras.get("aliases", {}),
        categories=extras.get("categories", {}),
    )


def compare_with_published(
    leaderboard: Leaderboard, published: PublishedLeaderboard, tolerance: float = DEFAULT_TOLERANCE
) -> Leaderboard:
    """Attach the published figure to every cell that has one.

    Rows are matched to published models with :meth:`PublishedLeaderboard.match`;
    a cell's ``delta`` is then ours − published, and the returned leaderboard's
    ``comparison`` flags ``|Δ| > tolerance``.  Unmatched models and benchmarks
    the published figures lack are reported as notices.

    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Row
    >>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
    >>> columns = leaderboard_columns(16)
    >>> row = Row("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct",
    ...           {c.label: Cell(30.0) for c in columns})
    >>> board = Leaderboard(16, columns, (BenchmarkTable("LiveMathBench-202412", (row,)),))
    >>> compared = compare_with_published(board, load_published(), tolerance=2.0)
    >>> cell = compared.tables[0].rows[0].cells["mG-Pass@16"]
    >>> cell.published, round(cell.delta, 1), compared.comparison.flagged(cell)
    (25.8, 4.2, True)
    """
    if tolerance < 0:
        raise InputError(f"tolerance must be >= 0, got {tolerance!r}")
    notices = list(leaderboard.notices)
    published_benchmarks = {
        benchmark
        for metrics in published.values.values()
        for by_benchmark in metrics.values()
        for benchmark in by_benchmark
    }
    if not any(
        column.json_name in metrics for column in leaderboard.columns[1:] for metrics in published.values.values()
    ):
        notices.append(
            Notice(
                f"the published figures have no {leaderboard.columns[1].label}-style "
                f"columns for k = {leaderboard.k}; only Greedy is compared"
            )
        )
    unmatched = set()
    tables = []
    for table in leaderboard.tables:
        if table.benchmark not in published_benchmarks:
            notices.append(Notice(f"no published figures for {table.benchmark}"))
        rows = []
        for row in table.rows:
            model = published.match(row.model)
            if model is None and row.model not in unmatched:
                unmatched.add(row.model)
                notices.append(Notice(unpublished_hint(row.model, published)))
            cells = {
                column.label: replace(
                    row.cells[column.label],
                    published=None if model is None else published.value(model, column.json_name, table.benchmark),
                )
                for column in leaderboard.columns
            }
            rows.append(replace(row, cells=cells, published_model=model))
        tables.append(replace(table, rows=tuple(rows)))
    return replace(
        leaderboard,
        tables=tuple(tables),
        notices=tuple(notices),
        comparison=Comparison(source=published.source, tolerance=tolerance),
    )


def unpublished_hint(model: str, published: PublishedLeaderboard) -> str:
    """What to do about a row whose model is not among the published ones.

    >>> print(unpublished_hint("qwen7b-sft", load_published()))  # doctest: +ELLIPSIS
    qwen7b-sft is not among the published models: Δ columns are filled only for published models (...). Its name is the model path's last component, or name= in the generator template's model entry (dict(path=..., name='Qwen2.5-7B-Instruct'), recorded as display_name in manifest.json); if it is a published model under another name, set that name and generate the configs again, or edit display_name in the manifest the leaderboard reads
    """
    names = sorted(published.values)
    shown = ", ".join(names[:4]) + (f", … ({len(names)} in all)" if len(names) > 4 else "")
    return (
        f"{model} is not among the published models: Δ columns are filled only for published models "
        f"({shown}). Its name is the model path's last component, or name= in the generator template's "
        "model entry (dict(path=..., name='Qwen2.5-7B-Instruct'), recorded as display_name in "
        "manifest.json); if it is a published model under another name, set that name and generate "
        "the configs again, or edit display_name in the manifest the leaderboard reads"
    )


def _is_leaderboard_shape(values: object) -> bool:
    return isinstance(values, Mapping) and all(
        isinstance(metrics, Mapping)
        and all(
            isinstance(by_benchmark, Mapping)
            and all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in by_benchmark.values())
            for by_benchmark in metrics.values()
        )
        for metrics in values.values()
    )
