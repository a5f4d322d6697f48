"""The leaderboard's whole vocabulary: small frozen dataclasses, nothing else (and the results' :class:`Interval`).

A :class:`RunResult` is one OpenCompass results file with its identity (model,
benchmark, sampling) established from the run's own records.  Building the
leaderboard turns runs into :class:`BenchmarkTable` s of :class:`Row` s of
:class:`Cell` s; anything skipped or doubtful along the way is a
:class:`Notice`, carried alongside so nothing is dropped silently.

>>> Interval(low=31.0, high=35.5, level=0.95).contains(33.0)
True
>>> Cell(value=37.25, published=36.5).delta
0.75
>>> Cell(value=None, published=36.5).delta is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpassk_opencompass.scoring.results import (  # the results file's own types, as it holds them
    Curtailment,
    CutGenerations,
    Interval,
)


@dataclass(frozen=True)
class Notice:
    """Something the reader of the leaderboard should know: a skipped or
    superseded results file, a disagreement between a run's records.

    Attributes:
        message: one self-contained sentence (names the files involved).
        path: the file or directory it is about, when there is one.
    """

    message: str
    path: Path | None = None


@dataclass(frozen=True)
class Unresolved:
    """What is missing from an incomplete run: verdicts the judge never gave.

    Attributes:
        path: the results file.
        unresolved: how many generations have no verdict (0 when the file says
            only that it is incomplete).
        generations: how many generations the run judged in all, when known.

    >>> Unresolved(Path("r.json"), 45, 48).describe()
    '45 of 48 generations unresolved'
    >>> Unresolved(Path("r.json"), 0, None).describe()
    'incomplete (unresolved verdicts, count not recorded)'
    """

    path: Path
    unresolved: int
    generations: int | None = None

    def describe(self) -> str:
        """How much is unresolved, in words."""
        if self.unresolved <= 0:
            return "incomplete (unresolved verdicts, count not recorded)"
        total = f" of {self.generations}" if self.generations else ""
        return f"{self.unresolved}{total} generations unresolved"


@dataclass(frozen=True)
class RunResult:
    """One OpenCompass results file with the identity of the run behind it.

    Attributes:
        results_path: ``<work_dir>/<timestamp>/results/<model_abbr>/<dataset_abbr>.json``.
        model_abbr: the results folder name, OpenCompass's model abbr.
        dataset_abbr: the results file stem, OpenCompass's dataset abbr.
        display_name: the model's name on the leaderboard (the model path's last
            component, or the manifest's ``display_name``).
        benchmark: canonical benchmark name (see :mod:`gpassk_opencompass.catalog`).
        greedy: whether this is a greedy (n = 1, deterministic) run.
        n: generations per question.
        k: the k values the run was scored for.
        temperature: sampling temperature, when known.
        model_path: the model's path or API name, when known.
        metrics: the numeric entries of the results file, keyed as OpenCompass keys them.
        intervals: bootstrap intervals from the results' ``gpassk`` block, by metric key.
        thresholds: the τ values the run was scored at, when the results say.
        written: the results file's modification time (seconds since the epoch);
            the newest run wins when a model/benchmark ran twice.
        unresolved: set when the run is incomplete (some generations have no
            verdict); ``None`` for a complete run.
        bounds: ``{metric key: (value if every unresolved generation were wrong,
            value if every one were right)}`` from the results' ``gpassk.bounds``.
        problems: why the results' values cannot be believed (out of range, impossible
            counts, metrics their own details do not reproduce); empty when they can.
        questions: how many questions were scored, when the results say.
        judge: what judged (``rule``, ``llm``, ``cascade``, ``source:<format>``, ...), when the results say.
        protocol: the judge prompt's version (``None`` for the rule judge, or when not recorded).
        cut: the generations cut at the output limit (results of schema 3), ``None`` when not recorded.
        curtail: the curtailed design the run drew under and what it drew (schema 4), ``None`` for a fixed n.
        generations: the files its generations' texts are read from (an OpenCompass run's predictions, a score
            output's input), ``()`` when not known (set by ``gpassk view``).
    """

    results_path: Path
    model_abbr: str
    dataset_abbr: str
    display_name: str
    benchmark: str
    greedy: bool
    n: int
    k: tuple[int, ...]
    temperature: float | None = None
    model_path: str | None = None
    metrics: Mapping[str, float] = field(default_factory=dict)
    intervals: Mapping[str, Interval] = field(default_factory=dict)
    thresholds: tuple[float, ...] | None = None
    written: float = 0.0
    unresolved: Unresolved | None = None
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    questions: int | None = None
    judge: str | None = None
    protocol: str | None = None
    cut: CutGenerations | None = None
    curtail: Curtailment | None = None
    generations: tuple[Path, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether every generation of the run has a verdict."""
        return self.unresolved is None

    @property
    def measured(self) -> Measured:
        """What the run measured, as a row shows it."""
        return Measured(self.questions, self.n, self.judge, self.protocol, self.cut, self.curtail)


@dataclass(frozen=True)
class Measured:
    """What a row's numbers were measured on: its questions, n, judge and protocol, and its cut generations.

    Attributes:
        questions: questions scored (``None``: not recorded).
        n: generations per question.
        judge: what judged (``None``: not recorded).
        protocol: the judge prompt's version (``None``: the rule judge, or not recorded).
        cut: the generations cut at the output limit (``None``: not recorded, results before schema 3).
        curtail: what a curtailed run drew (``None``: a fixed n; its words are the page's,
            :func:`~gpassk_opencompass.render.leaderboard.format_measured`).

    >>> Measured(5, 8, "rule", None, None).describe()
    '5 questions, n = 8, rule judge'
    >>> Measured(None, 48, "llm", "gpassk-judge-v2", None).describe()
    'n = 48, llm judge (prompt gpassk-judge-v2)'
    """

    questions: int | None
    n: int | None
    judge: str | None = None
    protocol: str | None = None
    cut: CutGenerations | None = None
    curtail: Curtailment | None = None

    def describe(self) -> str:
        """Questions, n, judge and protocol, in words (the cut share is its own column)."""
        parts = [f"{self.questions} questions"] if self.questions is not None else []
        parts += [f"n = {self.n}"] if self.n is not None else []
        if self.judge is not None:
            parts.append(f"{self.judge} judge" + (f" (prompt {self.protocol})" if self.protocol else ""))
        return ", ".join(parts)


@dataclass(frozen=True)
class Collection:
    """What reading a set of OpenCompass work dirs produced.

    Attributes:
        runs: the identified results files.
        notices: what was skipped or doubtful.
        manifests: the generator manifests used, in the order they were found.
        missing: runs those manifests list whose results were not found.
        inputs: every file the runs are read from (results files, saved
            configs, launch logs, manifests): no output may be one of them.
    """

    runs: tuple[RunResult, ...]
    notices: tuple[Notice, ...] = ()
    manifests: tuple[Path, ...] = ()
    missing: tuple[MissingRun, ...] = ()
    inputs: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Column:
    """A leaderboard column.

    Attributes:
        label: the header in tables, as the seed README writes it (``G-Pass@16_0.5``).
        json_name: the metric name in the published JSON (``G-Pass@16-0.5``).
        result_key: the key in a sampled run's results file; ``None`` for the
            Greedy column, which comes from the greedy run's ``accuracy``.
    """

    label: str
    json_name: str
    result_key: str | None


@dataclass(frozen=True)
class Cell:
    """One number of the leaderboard (×100), with what is known around it.

    Attributes:
        value: the number (for an incomplete run: unresolved generations counted wrong).
        interval: its bootstrap interval, when known.
        published: the published figure it is compared with.
        complete: ``False`` when it comes from an incomplete run (shown marked).
        bounds: for an incomplete run, ``(all unresolved wrong, all right)`` when known.
    """

    value: float | None
    interval: Interval | None = None
    published: float | None = None
    complete: bool = True
    bounds: tuple[float, float] | None = None

    @property
    def delta(self) -> float | None:
        """``value - published``, or ``None`` when either is missing."""
        if self.value is None or self.published is None:
            return None
        return self.value - self.published


@dataclass(frozen=True)
class Row:
    """One model on one benchmark.

    Attributes:
        label: the row's name: the display name, plus ``(T=…)`` when the model
            was sampled at several temperatures.
        model: the display name alone.
        cells: one :class:`Cell` per column label.
        curve: ``(τ, G-Pass@k_τ)`` pairs of the sampled run, τ ascending.
        temperature: the sampled run's temperature, when known.
        published_model: the published model this row was compared with.
        sources: the results files the row was built from.
        unresolved: what is missing from the incomplete ones among them.
        curve_intervals: ``(τ, ci_low, ci_high)`` of the sampled run's
            G-Pass@k_τ, τ ascending, from the results' ``gpassk.uncertainty``
            (only the τ it has intervals for).
        rank: the row's competition rank by the ranking metric (1 = best), when
            ranks were asked for (:attr:`Leaderboard.ranking`).
        rank_interval: ``(best, worst)`` plausible rank under resampling the questions.
        order_uncertain: the order between this row and the next row of its
            table is not significant at the ranking's level.
        problems: ``"<results file>: <why>"`` for each of its runs whose values cannot be
            believed, tabulated only because that was asked for (``allow_inconsistent``).
        measured: what its sampled run (else its greedy run) measured: questions, n, judge, protocol, cut share.
        warnings: what a reader of its numbers must know (a cut share over
            :data:`~gpassk_opencompass.defaults.CUT_WARNING_SHARE`, questions that are not the
            published column's), one sentence each.
    """

    label: str
    model: str
    cells: Mapping[str, Cell]
    curve: tuple[tuple[float, float], ...] = ()
    temperature: float | None = None
    published_model: str | None = None
    sources: tuple[Path, ...] = ()
    unresolved: tuple[Unresolved, ...] = ()
    curve_intervals: tuple[tuple[float, float, float], ...] = ()
    rank: int | None = None
    rank_interval: tuple[int, int] | None = None
    order_uncertain: bool = False
    problems: tuple[str, ...] = ()
    measured: Measured | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkTable:
    """The rows of one benchmark, sorted as the leaderboard shows them."""

    benchmark: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Comparison:
    """How a leaderboard was compared with published figures.

    Attributes:
        source: where the published figures come from (one line).
        tolerance: cells with ``|Δ| > tolerance`` are flagged.
    """

    source: str
    tolerance: float

    def flagged(self, cell: Cell) -> bool:
        """Whether ``cell`` differs from its published value by more than the tolerance."""
        delta = cell.delta
        return delta is not None and abs(delta) > self.tolerance


@dataclass(frozen=True)
class RankingInfo:
    """How a leaderboard's ranks and adjacent-row significance were computed.

    Attributes:
        metric: the results key ranked on (``mG-Pass@16``); higher is better.
        level: the confidence level of the rank intervals (``0.95``); adjacent
            rows are tested at ``1 - level``.
        correction: the multiple-comparison correction of the adjacent tests,
            ``"holm"`` (over the pairs of a table) or ``"none"``.
        resamples: bootstrap resamples of the questions (and random sign
            vectors when a pair differs on more than 20 questions).
        seed: seeds both.

    >>> RankingInfo("mG-Pass@16", 0.95, "holm", 2000, 0).alpha
    0.05
    """

    metric: str
    level: float
    correction: str
    resamples: int
    seed: int

    @property
    def alpha(self) -> float:
        """The significance level of the adjacent tests, ``1 - level``."""
        return round(1.0 - self.level, 12)


@dataclass(frozen=True)
class MissingRun:
    """A run a generator manifest expects whose results were not found.

    Attributes:
        manifest: the manifest that lists it.
        model_abbr: its model abbr (the results folder it should be in).
        dataset_abbr: its dataset abbr (the results file stem).
        display_name: the model's name, as the manifest gives it.
        benchmark: the benchmark, as the manifest gives it.
        temperature: the sampling temperature, as the manifest gives it.
        greedy: whether it is the greedy run.

    >>> MissingRun(Path("configs/manifest.json"), "m_t0-7", "AIME2025_k16_n48", "m", "AIME2025").describe()
    'm on AIME2025 (results/m_t0-7/AIME2025_k16_n48.json, listed in configs/manifest.json)'
    """

    manifest: Path
    model_abbr: str
    dataset_abbr: str
    display_name: str | None = None
    benchmark: str | None = None
    temperature: float | None = None
    greedy: bool | None = None

    def describe(self) -> str:
        """Which run, and where its results should be."""
        name = self.display_name or self.model_abbr
        on = f" on {self.benchmark}" if self.benchmark else ""
        return f"{name}{on} (results/{self.model_abbr}/{self.dataset_abbr}.json, listed in {self.manifest})"


@dataclass(frozen=True)
class Leaderboard:
    """One table per benchmark, the columns they share, and the notices.

    Attributes:
        k: the k of the G-Pass@k columns.
        columns: Greedy, G-Pass@k_τ for each shown τ, mG-Pass@k.
        tables: one per benchmark, in canonical benchmark order.
        notices: everything skipped, superseded or doubtful, in order found.
        comparison: set when cells carry published values.
        left_out_incomplete: incomplete runs not tabulated (no complete
            alternative, and incomplete runs were not allowed).
        ranking: how ranks and significance marks were computed; ``None``
            when they were not asked for.
        missing: runs a manifest expects whose results were not found.
        k_reason: why this k, when it was chosen rather than asked for (one sentence).
        left_out_inconsistent: results files not tabulated because their values cannot be
            believed (out of range, or not reproduced by their own details).
    """

    k: int
    columns: tuple[Column, ...]
    tables: tuple[BenchmarkTable, ...]
    notices: tuple[Notice, ...] = ()
    comparison: Comparison | None = None
    left_out_incomplete: tuple[Unresolved, ...] = ()
    ranking: RankingInfo | None = None
    missing: tuple[MissingRun, ...] = ()
    k_reason: str | None = None
    left_out_inconsistent: tuple[Path, ...] = ()
