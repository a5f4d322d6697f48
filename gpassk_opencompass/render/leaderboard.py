"""Leaderboard → text: Markdown (the seed README's tables) and CSV, and every leaderboard text the other formats
share (cells, Cut, Measured, a run's claims, warnings, footnotes; JSON: :mod:`.leaderboard_json`). Pure.

Markdown and HTML show one decimal, like the published tables; CSV and JSON
carry the values exactly as the results files hold them.  A missing value is
``-`` in Markdown and empty in CSV.

>>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row
>>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
>>> columns = leaderboard_columns(16)
>>> values = dict(zip([c.label for c in columns], [37.0, 36.46, 27.2, 16.0, None]))
>>> row = Row("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct",
...           {label: Cell(value) for label, value in values.items()})
>>> board = Leaderboard(16, columns, (BenchmarkTable("LiveMathBench-202412", (row,)),))
>>> print(render_markdown(board))
### *LiveMathBench-202412*
<BLANKLINE>
| LLMs | Greedy | G-Pass@16_0.5 | G-Pass@16_0.75 | G-Pass@16_1.0 | mG-Pass@16 | Cut | Measured |
|:--|--:|--:|--:|--:|--:|--:|:--|
| Qwen2.5-7B-Instruct | 37.0 | 36.5 | 27.2 | 16.0 | - | - |  |
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpassk_opencompass.catalog import composition_warning
from gpassk_opencompass.defaults import CUT_WARNING_SHARE
from gpassk_opencompass.render import exact_number

if TYPE_CHECKING:  # the leaderboard's types, named in annotations only (the leaderboard imports this package)
    from gpassk_opencompass.leaderboard.records import (
        Cell,
        Claim,
        Comparison,
        Leaderboard,
        Measured,
        RankingInfo,
        Row,
        RowWarning,
    )
    from gpassk_opencompass.scoring.results import Curtailment

MISSING = "-"
FLAG = "⚠"
#: Follows a value from an incomplete run (some generations without a verdict).
INCOMPLETE = "*"
#: Follows a rank when the order of its row and the next row is not significant.
UNCERTAIN = "≈"
#: Follows the name of a row whose values cannot be believed, tabulated as asked (``--allow-inconsistent``).
INCONSISTENT = "†"
#: Follows the name of a row with a warning (generations cut at the output limit, not the published questions).
WARNED = "‡"
#: The columns after the metrics: the share of generations cut at the output limit, and what was measured.
CUT, MEASURED = "Cut", "Measured"
#: A CSV text cell starting with one of these is read as a formula by spreadsheets (OWASP "CSV injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def format_value(value: float | None) -> str:
    """One decimal, or ``-`` when missing.

    >>> format_value(36.46), format_value(None), format_value(0.04)
    ('36.5', '-', '0.0')
    """
    return MISSING if value is None else f"{value:.1f}"


def format_delta(delta: float | None) -> str:
    """A signed difference with one decimal (``+0.3``, ``-5.2``), or ``-``.

    >>> format_delta(0.26), format_delta(-5.24), format_delta(None), format_delta(-0.01)
    ('+0.3', '-5.2', '-', '+0.0')
    """
    if delta is None:
        return MISSING
    text = f"{delta:+.1f}"
    return "+0.0" if text == "-0.0" else text


def format_cell(cell: Cell, intervals: bool = False, mark: str = INCOMPLETE) -> str:
    """A cell as the tables show it, with its interval when asked and known,
    and ``mark`` after a value from an incomplete run.

    >>> from gpassk_opencompass.leaderboard.records import Cell, Interval
    >>> format_cell(Cell(37.04, Interval(low=35.0, high=39.11)), intervals=True)
    '37.0 [35.0, 39.1]'
    >>> format_cell(Cell(37.04), intervals=True), format_cell(Cell(12.0, complete=False))
    ('37.0', '12.0*')
    """
    text = format_value(cell.value)
    if intervals and cell.value is not None and cell.interval is not None:
        text += f" [{cell.interval.low:.1f}, {cell.interval.high:.1f}]"
    if not cell.complete and cell.value is not None:
        text += mark
    return text


def format_cut(measured: Measured | None) -> str:
    """The Cut column's text: the share of the row's generations cut at the output limit, ``⚠`` after a share
    over :data:`~gpassk_opencompass.defaults.CUT_WARNING_SHARE`; ``-`` when not recorded.

    >>> from gpassk_opencompass.leaderboard.records import Measured
    >>> from gpassk_opencompass.scoring.results import CutGenerations
    >>> def cut(count): return CutGenerations(generations=1000, cut=count, no_answer=0, recorded=0, source="extraction")
    >>> format_cut(Measured(5, 8, cut=cut(234))), format_cut(Measured(5, 8, cut=cut(3))), format_cut(Measured(5, 8))
    ('≥ 23 % ⚠', '≥ 0 %', '-')

    ``≥``: a lower bound (:attr:`~gpassk_opencompass.scoring.results.CutGenerations.lower_bound`: some stop
    reasons were not recorded).
    """
    if measured is None or measured.cut is None:
        return MISSING
    cut = measured.cut
    share = cut.share
    if cut.lower_bound:
        text = f"≥ {share * 100:.0f} %"
    else:
        text = "<1 %" if 0 < share < 0.005 else f"{share * 100:.0f} %"
    return f"{text} {FLAG}" if share > CUT_WARNING_SHARE else text


def format_measured(measured: Measured | None, warnings: Sequence[object] = ()) -> str:
    """The Measured column's text: what the run claims to be (:func:`format_claim`: a pilot says its questions
    of the published column's), questions, n, judge and protocol (empty when nothing is recorded), the generations
    a curtailed run drew of a fixed n's, ``‡`` after it when the row has warnings (told in the footnotes).

    >>> from gpassk_opencompass.leaderboard.records import Measured, OwnData, Pilot
    >>> format_measured(Measured(5, 8, "rule")), format_measured(Measured(5, 8, "rule"), ["AIME2025: 5 questions, ..."])
    ('5 questions, n = 8, rule judge', '5 questions, n = 8, rule judge ‡')
    >>> format_measured(Measured(None, 48, "llm", "gpassk-judge-v2"))
    'n = 48, llm judge (prompt gpassk-judge-v2)'
    >>> format_measured(Measured(5, 8, "rule", claims=(Pilot(5, 15), OwnData("/data/a.jsonl", "ab" * 32))))
    'pilot: 5 of 15 questions, own data: /data/a.jsonl (sha256 abababababab…), n = 8, rule judge'
    >>> from gpassk_opencompass.scoring.results import Curtailment
    >>> drawn = Curtailment(n1=16, n=48, rule="all-wrong", stopped=19, generations=832, fixed_n_generations=1440)
    >>> format_measured(Measured(30, 48, "rule", curtail=drawn))
    '30 questions, n = 48, rule judge; generations: 832 of 1,440'
    """
    parts = [] if measured is None else [format_claim(claim) for claim in measured.claims]
    if measured is not None:
        piloted = any(claim.kind == "pilot" for claim in measured.claims)  # a pilot says its questions itself
        parts += [f"{measured.questions} questions"] if measured.questions is not None and not piloted else []
        parts += [f"n = {measured.n}"] if measured.n is not None else []
        if measured.judge is not None:
            parts.append(f"{measured.judge} judge" + (f" (prompt {measured.protocol})" if measured.protocol else ""))
    text = ", ".join(parts)
    if measured is not None and measured.curtail is not None:
        text += f"; generations: {curtail_generations(measured.curtail)}"
    return f"{text} {WARNED}".lstrip() if warnings else text


def format_claim(claim: Claim) -> str:
    """What a run claims to be, in words (the leaderboard's Measured column, ``gpassk view``'s run).

    >>> from gpassk_opencompass.leaderboard.records import OwnData, Pilot
    >>> format_claim(Pilot(5, 15)), format_claim(OwnData("/data/aime", None))
    ('pilot: 5 of 15 questions', 'own data: /data/aime (no digest: a folder, too big, or not readable here)')
    """
    if claim.kind == "pilot":
        return f"pilot: {claim.questions} of {claim.published} questions"
    digest = (
        f"sha256 {claim.sha256[:12]}…"
        if claim.sha256 is not None
        else "no digest: a folder, too big, or not readable here"
    )
    return f"own data: {claim.path} ({digest})"


def format_warning(warning: RowWarning) -> str:
    """A row's warning fact as one sentence: a cut share over the warning share, questions other than the
    published column's.

    >>> from gpassk_opencompass.leaderboard.records import Composition, CutShare
    >>> format_warning(CutShare("X", "AIME2025", False, 0.234375, False, "G-Pass@16_1.0"))
    'X on AIME2025: 23 % of generations cut at the output limit; G-Pass@16_1.0 is bounded by it; raise max_out_len'
    >>> print(format_warning(CutShare("X", "AIME2025", True, 0.234375, True, "Greedy")))
    X on AIME2025 (greedy): at least 23 % of generations cut at the output limit (no finish_reason recorded: counted from the text); Greedy is bounded by it; raise max_out_len
    >>> format_warning(Composition("AIME2025", 5, 15))
    "AIME2025: 5 questions, the published column has 15; results will not compare one to one (see 'Benchmark composition' in docs/generator.md)"
    """
    if warning.kind == "cut":
        return (
            f"{warning.label} on {warning.benchmark}{' (greedy)' if warning.greedy else ''}: "
            f"{'at least ' * warning.lower_bound}{warning.share * 100:.0f} % of generations cut at the output limit"
            f"{' (no finish_reason recorded: counted from the text)' * warning.lower_bound}; {warning.bounded} is "
            "bounded by it; raise max_out_len"
        )
    return f"{warning.benchmark}: {composition_warning(warning.questions, warning.published)}"


def row_warnings(row: Row) -> list[str]:
    """A row's warnings in words (:func:`format_warning`), each once."""
    return list(dict.fromkeys(format_warning(warning) for warning in row.warnings))


def curtail_generations(curtail: Curtailment) -> str:
    """What a curtailed run drew of what a fixed n draws: ``'832 of 1,440'``."""
    return f"{curtail.generations:,} of {curtail.fixed_n_generations:,}"


def warning_footnotes(leaderboard: Leaderboard) -> list[str]:
    """Every row's warnings (:attr:`~gpassk_opencompass.leaderboard.records.Row.warnings`), in table order, each once
    (a table's rows with as many questions share one composition warning)."""
    return list(dict.fromkeys(text for table in leaderboard.tables for row in table.rows for text in row_warnings(row)))


def incomplete_footnotes(leaderboard: Leaderboard) -> list[str]:
    """One sentence per row built from an incomplete run: what is missing and the bounds.

    >>> from pathlib import Path
    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row, Unresolved
    >>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
    >>> columns = leaderboard_columns(16, (1.0,))
    >>> cells = {"Greedy": Cell(None), "G-Pass@16_1.0": Cell(2.0, complete=False, bounds=(2.0, 40.0)),
    ...          "mG-Pass@16": Cell(5.0, complete=False)}
    >>> row = Row("m", "m", cells, unresolved=(Unresolved(Path("r/m/d.json"), 45, 48),))
    >>> incomplete_footnotes(Leaderboard(16, columns, (BenchmarkTable("AIME2025", (row,)),)))
    ['m on AIME2025: incomplete, 45 of 48 generations unresolved (r/m/d.json); values count them as wrong; if all were right: G-Pass@16_1.0 up to 40.0, mG-Pass@16 unknown']
    """
    notes = []
    for table in leaderboard.tables:
        for row in table.rows:
            if not row.unresolved:
                continue
            missing = "; ".join(f"{unresolved.describe()} ({unresolved.path})" for unresolved in row.unresolved)
            ranges = ", ".join(
                f"{column.label} " + ("unknown" if cell.bounds is None else f"up to {format_value(cell.bounds[1])}")
                for column in leaderboard.columns
                if not (cell := row.cells[column.label]).complete and cell.value is not None
            )
            notes.append(
                f"{row.label} on {table.benchmark}: incomplete, {missing}; values count them as wrong"
                + (f"; if all were right: {ranges}" if ranges else "")
            )
    return notes


def inconsistent_footnotes(leaderboard: Leaderboard) -> list[str]:
    """One line per row tabulated although its values cannot be believed (``--allow-inconsistent``).

    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Leaderboard, Row
    >>> row = Row("m", "m", {}, problems=("r/m/d.json: G-Pass@16_0.5 = 150 is outside [0, 100]",))
    >>> inconsistent_footnotes(Leaderboard(16, (), (BenchmarkTable("AIME2025", (row,)),)))
    ['m on AIME2025: cannot be believed (r/m/d.json: G-Pass@16_0.5 = 150 is outside [0, 100]); tabulated as asked']
    """
    return [
        f"{row.label} on {table.benchmark}: cannot be believed ({'; '.join(row.problems)}); tabulated as asked"
        for table in leaderboard.tables
        for row in table.rows
        if row.problems
    ]


def csv_text(text: str) -> str:
    """A CSV text cell a spreadsheet will not run: one starting with ``= + - @``, a tab or CR gets a ``'``
    in front (OWASP's rule against formula injection). Numbers are not text and never pass here. A CR
    inside becomes a newline (the writer quotes a cell holding one; a bare CR would end the row).

    >>> csv_text("=SUM(A1)"), csv_text("-model"), csv_text("Qwen2.5-7B"), csv_text("\\ra\\r\\nb")
    ("'=SUM(A1)", "'-model", 'Qwen2.5-7B', "'\\na\\nb")
    """
    text = "'" + text if text.startswith(_FORMULA_STARTS) else text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def format_rank(row: Row) -> str:
    """The rank column's text: rank, its interval, and ``≈`` when the order against the next row
    is not significant; ``-`` for an unranked row.

    >>> from gpassk_opencompass.leaderboard.records import Row
    >>> format_rank(Row("m", "m", {}, rank=2, rank_interval=(1, 3), order_uncertain=True))
    '2 [1, 3] ≈'
    >>> format_rank(Row("m", "m", {}, rank=1, rank_interval=(1, 1))), format_rank(Row("m", "m", {}))
    ('1 [1, 1]', '-')
    """
    if row.rank is None:
        return MISSING
    text = str(row.rank)
    if row.rank_interval is not None:
        text += f" [{row.rank_interval[0]}, {row.rank_interval[1]}]"
    return f"{text} {UNCERTAIN}" if row.order_uncertain else text


def ranking_legend(ranking: RankingInfo) -> str:
    """One sentence saying what the rank column and its marks mean.

    >>> from gpassk_opencompass.leaderboard.records import RankingInfo
    >>> print(ranking_legend(RankingInfo("mG-Pass@16", 0.95, "holm", 2000, 0)))
    Rank by mG-Pass@16 (1 = best) [its 95% interval when the questions are resampled: 2000 resamples, seed 0]; ≈: the order of this row and the next is not significant (paired sign-flip test over the shared questions, p ≥ 0.05, Holm-corrected over the table's adjacent pairs).
    """
    corrected = ", Holm-corrected over the table's adjacent pairs" if ranking.correction == "holm" else ", uncorrected"
    return (
        f"Rank by {ranking.metric} (1 = best) [its {ranking.level * 100:g}% interval when the questions "
        f"are resampled: {ranking.resamples} resamples, seed {ranking.seed}]; {UNCERTAIN}: the order of "
        f"this row and the next is not significant (paired sign-flip test over the shared questions, "
        f"p ≥ {ranking.alpha:g}{corrected})."
    )


def missing_lines(leaderboard: Leaderboard) -> list[str]:
    """One line per run a manifest expects without results."""
    return [f"no results: {run.describe()}" for run in leaderboard.missing]


def format_comparison(cell: Cell, comparison: Comparison) -> str:
    """The Δ column's text: the signed difference, flagged when beyond the tolerance.

    >>> from gpassk_opencompass.leaderboard.records import Cell, Comparison
    >>> comparison = Comparison("seed", tolerance=1.0)
    >>> format_comparison(Cell(30.0, published=25.8), comparison)
    '+4.2 ⚠'
    >>> format_comparison(Cell(26.0, published=25.8), comparison)
    '+0.2'
    """
    text = format_delta(cell.delta)
    return f"{text} {FLAG}" if comparison.flagged(cell) else text


def render_markdown(leaderboard: Leaderboard, *, intervals: bool = False) -> str:
    """One README-style Markdown table per benchmark.

    Args:
        leaderboard: what to render.
        intervals: append ``[low, high]`` bootstrap intervals where the results have them.

    Returns:
        The tables; with a comparison, a ``Δ`` column follows each metric
        (ours − published, ``⚠`` beyond the tolerance) and a legend ends the text;
        with a ranking, a ``Rank`` column (``2 [1, 3] ≈``, see :func:`format_rank`)
        and its legend; runs a manifest expects without results are listed last.
        After the metrics, ``Cut`` (the share of generations cut at the output limit,
        :func:`format_cut`) and ``Measured`` (questions, n, judge and protocol).
        Values from an incomplete run end in ``*``, explained in a footnote
        (what is unresolved, and the upper bounds); the name of a row whose
        values cannot be believed (tabulated as asked) ends in ``†``, its
        reasons in a footnote; the Measured cell of a row with a warning (a cut share over
        5 %, questions that are not the published column's) ends in ``‡``, the warning in a footnote.
    """
    comparison = leaderboard.comparison
    ranking = leaderboard.ranking
    header = ["LLMs", "Rank"] if ranking else ["LLMs"]
    for column in leaderboard.columns:
        header += [column.label, "Δ"] if comparison else [column.label]
    header += [CUT, MEASURED]
    blocks = []
    for table in leaderboard.tables:
        lines = [f"### *{table.benchmark}*", "", "| " + " | ".join(header) + " |", "|:--|" + "--:|" * (len(header) - 2)]
        lines[-1] += ":--|"
        for row in table.rows:
            label = f"{row.label} {INCONSISTENT}" if row.problems else row.label
            cells = [_escape_markdown(label)] + ([format_rank(row)] if ranking else [])
            for column in leaderboard.columns:
                cell = row.cells[column.label]
                cells.append(format_cell(cell, intervals, mark="\\" + INCOMPLETE))
                if comparison:
                    cells.append(format_comparison(cell, comparison))
            cells += [
                format_cut(row.measured),
                _escape_markdown(format_measured(row.measured, row.warnings)),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    footnotes = [f"\\{INCOMPLETE} {_escape_markdown(note)}  " for note in incomplete_footnotes(leaderboard)]
    footnotes += [f"{INCONSISTENT} {_escape_markdown(note)}  " for note in inconsistent_footnotes(leaderboard)]
    footnotes += [f"{WARNED} {_escape_markdown(note)}  " for note in warning_footnotes(leaderboard)]
    if footnotes:
        blocks.append("\n".join(footnotes).rstrip())
    if comparison:
        blocks.append(f"Δ = ours − published ({comparison.source}); {FLAG} marks |Δ| > {comparison.tolerance:g}.")
    if ranking:
        blocks.append(ranking_legend(ranking))
    if leaderboard.missing:
        blocks.append("\n".join(_escape_markdown(line) + "  " for line in missing_lines(leaderboard)).rstrip())
    return "\n\n".join(blocks)


def render_csv(leaderboard: Leaderboard, *, intervals: bool = False) -> str:
    """One CSV row per (benchmark, model), values as in the results files.

    Columns: ``benchmark, model``, then each metric; with ``intervals`` also
    ``<metric> ci_low`` and ``<metric> ci_high``; with a comparison also
    ``<metric> published``, ``<metric> delta`` and ``<metric> flagged``; when
    any row comes from an incomplete run also ``<metric> bound_low`` and
    ``<metric> bound_high``; then ``complete`` (``false``: some generation of
    the row's runs has no verdict); with a ranking last ``rank``, ``rank_low``,
    ``rank_high`` and ``order_uncertain`` (``true``: the order of this row and
    the next is not significant); when any row's values cannot be believed
    (tabulated as asked) also ``consistent``; last what the row measured (:data:`MEASURED_CSV`:
    ``questions``, ``n``, ``judge``, ``protocol``, ``generations``, ``cut``, ``no_answer``, ``cut_share``,
    ``cut_source``, ``curtail``, ``fixed_n_generations``, ``claims``, empty where not recorded) and ``warnings``
    (its warnings, joined by ``; ``).
    Text cells (benchmark, model, judge, warnings) that a spreadsheet would run as a formula get a
    leading ``'`` (:func:`csv_text`).

    >>> from gpassk_opencompass.leaderboard.records import BenchmarkTable, Cell, Leaderboard, Row
    >>> from gpassk_opencompass.leaderboard.table import leaderboard_columns
    >>> columns = leaderboard_columns(16, (1.0,))
    >>> row = Row("m", "m", {c.label: Cell(v) for c, v in zip(columns, [50.0, 12.5, None])})
    >>> print(render_csv(Leaderboard(16, columns, (BenchmarkTable("AIME2025", (row,)),))), end="")
    benchmark,model,Greedy,G-Pass@16_1.0,mG-Pass@16,complete,questions,n,judge,protocol,generations,cut,no_answer,cut_share,cut_source,curtail,fixed_n_generations,claims,warnings
    AIME2025,m,50.0,12.5,,true,,,,,,,,,,,,,
    """
    comparison = leaderboard.comparison
    bounded = any_incomplete(leaderboard)
    header = ["benchmark", "model"]
    for column in leaderboard.columns:
        header.append(column.label)
        if intervals:
            header += [f"{column.label} ci_low", f"{column.label} ci_high"]
        if comparison:
            header += [f"{column.label} published", f"{column.label} delta", f"{column.label} flagged"]
        if bounded:
            header += [f"{column.label} bound_low", f"{column.label} bound_high"]
    header.append("complete")
    doubtful = any(row.problems for table in leaderboard.tables for row in table.rows)
    if doubtful:
        header.append("consistent")
    if leaderboard.ranking:
        header += ["rank", "rank_low", "rank_high", "order_uncertain"]
    header += [*MEASURED_CSV, "warnings"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_text(label) for label in header])
    for table in leaderboard.tables:
        for row in table.rows:
            record = [csv_text(table.benchmark), csv_text(row.label)]
            for column in leaderboard.columns:
                cell = row.cells[column.label]
                record.append(exact_number(cell.value))
                if intervals:
                    record += [
                        exact_number(None if cell.interval is None else cell.interval.low),
                        exact_number(None if cell.interval is None else cell.interval.high),
                    ]
                if comparison:
                    record += [
                        exact_number(cell.published),
                        exact_number(cell.delta),
                        str(comparison.flagged(cell)).lower(),
                    ]
                if bounded:
                    record += [
                        exact_number(cell.bounds and cell.bounds[0]),
                        exact_number(cell.bounds and cell.bounds[1]),
                    ]
            record.append(str(not row.unresolved).lower())
            if doubtful:
                record.append(str(not row.problems).lower())
            if leaderboard.ranking:
                interval = row.rank_interval or (None, None)
                record += [
                    "" if row.rank is None else str(row.rank),
                    *("" if end is None else str(end) for end in interval),
                    "" if row.rank is None else str(row.order_uncertain).lower(),
                ]
            measured = measured_fields(row.measured)
            record += ["" if measured[name] is None else csv_text(str(measured[name])) for name in MEASURED_CSV]
            record.append(csv_text("; ".join(row_warnings(row))))
            writer.writerow(record)
    return buffer.getvalue()


#: What a row measured, as CSV columns and JSON fields (:func:`measured_fields`).
MEASURED_CSV = (
    "questions",
    "n",
    "judge",
    "protocol",
    "generations",
    "cut",
    "no_answer",
    "cut_share",
    "cut_source",
    "curtail",
    "fixed_n_generations",
    "claims",
)


def measured_fields(measured: Measured | None) -> dict[str, object]:
    """What a row measured and claims as plain fields (:data:`MEASURED_CSV`; ``None`` where not recorded).

    >>> from gpassk_opencompass.leaderboard.records import Measured
    >>> from gpassk_opencompass.scoring.results import CutGenerations
    >>> cut = CutGenerations(generations=40, cut=10, no_answer=2, recorded=40, source="finish_reason")
    >>> measured_fields(Measured(5, 8, "rule", None, cut))
    {'questions': 5, 'n': 8, 'judge': 'rule', 'protocol': None, 'generations': 40, 'cut': 10, 'no_answer': 2, 'cut_share': 0.25, 'cut_source': 'finish_reason', 'curtail': None, 'fixed_n_generations': None, 'claims': None}

    ``curtail`` is a curtailed run's design (``'16:48:all-wrong'``), ``fixed_n_generations`` what a fixed n draws,
    ``claims`` what the run claims to be (:func:`format_claim`, joined by ``; ``).
    """
    if measured is None:
        return dict.fromkeys(MEASURED_CSV)
    cut, curtail = measured.cut, measured.curtail
    drawn = cut.generations if cut is not None else curtail.generations if curtail is not None else None
    return {
        "questions": measured.questions,
        "n": measured.n,
        "judge": measured.judge,
        "protocol": measured.protocol,
        "generations": drawn,
        "cut": None if cut is None else cut.cut,
        "no_answer": None if cut is None else cut.no_answer,
        "cut_share": None if cut is None else cut.share,
        "cut_source": None if cut is None else cut.source,
        "curtail": None if curtail is None else str(curtail.design),
        "fixed_n_generations": None if curtail is None else curtail.fixed_n_generations,
        "claims": "; ".join(format_claim(claim) for claim in measured.claims) or None,
    }


def any_incomplete(leaderboard: Leaderboard) -> bool:
    """Whether any row comes from an incomplete run (some generation without a verdict)."""
    return any(row.unresolved for table in leaderboard.tables for row in table.rows)


def _escape_markdown(text: str) -> str:
    return text.replace("|", "\\|")
