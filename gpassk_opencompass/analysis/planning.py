"""``gpassk plan``: from a pilot, how wide the intervals will be, and how many samples reach a target width.

Each pilot question's probability is its posterior mean over *resolved* verdicts
(:func:`~gpassk_opencompass.uncertainty.planner.pilot_probabilities`);
:func:`~gpassk_opencompass.uncertainty.planner.plan_table` and
:func:`~gpassk_opencompass.uncertainty.planner.smallest_n` plan from them, and :func:`calibrate` checks the plan
against a simulation (:func:`gpassk_opencompass.render.plots.calibration_plot` draws it). With a curtailed
design (``--curtail N1:N[:RULE]``), :func:`~gpassk_opencompass.uncertainty.curtailment.curtailed_plan` adds the
generations it saves and, per metric, its width against a fixed ``n = N``; a metric it makes more than
:data:`CURTAIL_NOISIER` times noisier is one warning line, naming the rule that keeps it if one does.
See docs/uncertainty.md, "gpassk plan".
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from scipy import stats

from gpassk_opencompass import defaults
from gpassk_opencompass.analysis.inputs import check_outputs, load_with_details
from gpassk_opencompass.checks import non_negative_int, positive_ints
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files.writing import write_bytes_atomic
from gpassk_opencompass.metrics import DEFAULT_K, DEFAULT_THRESHOLDS
from gpassk_opencompass.render import require_extra
from gpassk_opencompass.render.reports import curtail_warning, to_markdown, write_report
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.uncertainty.curtailment import CurtailedPlan, check_k, curtailed_plan, noise_ratio, other_rules
from gpassk_opencompass.uncertainty.paired import metric_values
from gpassk_opencompass.uncertainty.planner import (
    PlannedWidth,
    expected_half_width,
    metric_key_of,
    pilot_probabilities,
    plan_table,
    smallest_n,
    uninformative_pilot,
)

if TYPE_CHECKING:  # the design's type, in annotations only (the CLI parses --curtail)
    from gpassk_opencompass.curtailed import Curtailed

#: The largest n :func:`smallest_n` considers.
N_MAX = 4096
#: A curtailed design whose within-question variance of a metric exceeds a fixed n's by more than this factor
#: is warned about, one line per metric (``gpassk plan --curtail``).
CURTAIL_NOISIER = 1.1


@dataclass(frozen=True)
class TargetN:
    """The smallest n reaching a target half-width for one metric and question count.

    Attributes:
        key: the metric.
        questions: the planned question count.
        target: the target half-width, percentage points.
        n: the smallest n (``None``: even ``N_MAX`` generations do not reach it).
        floor: the half-width at ``N_MAX`` generations (what more generations can at best give).
    """

    key: str
    questions: int
    target: float
    n: int | None
    floor: float


@dataclass(frozen=True)
class CalibrationPoint:
    """A planned half-width and the one realised in simulation.

    Attributes:
        planned: the plan (:class:`~gpassk_opencompass.uncertainty.planner.PlannedWidth`).
        realised: ``z`` x the standard deviation of the simulated scores, x 100.
        replications: simulated runs.
    """

    planned: PlannedWidth
    realised: float
    replications: int


@dataclass(frozen=True)
class PlanReport:
    """The answer of ``gpassk plan``.

    Attributes:
        pilot: the pilot's results file.
        pilot_questions: its question count.
        pilot_n: its generations per question (``None`` when it varies).
        pilot_unresolved: unresolved verdicts left out of the pilot's counts.
        pilot_curtail: the curtailed design the pilot was drawn under (``"16:48:all-wrong"``), ``None`` for a fixed n;
            its per-question p are its Beta posteriors, which depend only on (N, C) whatever the stop.
        level: the intervals' level.
        include_question_sampling: whether the between-question variance is planned for.
        rows: the planning table.
        targets: the smallest n per metric and question count (empty without a target).
        calibration: planned vs simulated (empty unless asked).
        warnings: why the plan may not mean what it says, one line each
            (:func:`~gpassk_opencompass.uncertainty.planner.uninformative_pilot`; with a curtailed design,
            :func:`~gpassk_opencompass.render.reports.curtail_warning` for each metric it makes noisier).
        curtailed: the curtailed design against a fixed n (``None`` unless one is asked for).
    """

    pilot: str
    pilot_questions: int
    pilot_n: int | None
    pilot_unresolved: int
    level: float
    include_question_sampling: bool
    rows: tuple[PlannedWidth, ...]
    targets: tuple[TargetN, ...]
    calibration: tuple[CalibrationPoint, ...] = ()
    warnings: tuple[str, ...] = ()
    curtailed: CurtailedPlan | None = None
    pilot_curtail: str | None = None
    #: The ``schema`` of its JSON (:mod:`gpassk_opencompass.render.reports`).
    schema: ClassVar[str] = "gpassk-plan/1"


def pilot_p(pilot: ResultsFile) -> np.ndarray:
    """Per-question success probabilities of a pilot, unresolved verdicts left out of each question's n."""
    c, resolved = resolved_counts(pilot)
    return pilot_probabilities(c, resolved)


def resolved_counts(pilot: ResultsFile) -> tuple[np.ndarray, np.ndarray]:
    """Per question of a pilot: correct generations, and resolved ones (unresolved verdicts left out)."""
    c, n = pilot.counts()
    unresolved = np.array([question.unresolved for question in pilot.details], dtype=np.int64)
    return c, n - unresolved


def plan_results(
    pilot: ResultsFile,
    ns: Sequence[int] | None,
    *,
    questions: Sequence[int] | None = None,
    target: float | None = None,
    k: Sequence[int] | None = None,
    thresholds: Sequence[float] | None = None,
    level: float = defaults.CI,
    include_question_sampling: bool = True,
    design: Curtailed | None = None,
) -> PlanReport:
    """The planning table of a pilot, and the smallest n for ``target`` per metric and question count.

    Args:
        pilot: any results file with ``details``.
        ns: the planned generations per question (with ``design`` and none given: the design's ``n``).
        questions: planned question counts (default: the pilot's).
        target: a half-width in percentage points (``None``: no search).
        k: the k values (default: the pilot's, else 4 8 16); a k above a planned n is skipped there.
        thresholds: the tau values (default: the pilot's, else 0 .. 1 by 0.25).
        level: the intervals' level.
        include_question_sampling: plan for the questions as a sample (the bootstrap's view);
            ``False``: a fixed question set.
        design: a curtailed design to plan against a fixed ``n`` (its ``n``); every k must be at most its ``n1``.

    Raises:
        InputError: one line naming a bad n, question count, k, threshold, level or target, or a k above the
            design's ``n1`` (before any planning).
    """
    if not ns and design is not None:
        ns = [design.n]
    if not ns:
        raise InputError("--n must name the planned generations per question (or give --curtail N1:N)")
    ns = positive_ints(ns, "--n")
    counts = [None] if not questions else positive_ints(questions, "--questions")
    ks = positive_ints(k if k else (pilot.ks or DEFAULT_K), "--k")
    thresholds = list(thresholds if thresholds else (pilot.thresholds or DEFAULT_THRESHOLDS))
    if target is not None and not (isinstance(target, numbers.Real) and math.isfinite(target) and target > 0):
        raise InputError(f"--target must be a half-width > 0 in percentage points; got {target!r}")
    if min(ks) > max(ns):
        raise InputError(
            f"every k ({', '.join(map(str, ks))}) exceeds every planned n ({', '.join(map(str, ns))}); plan an n >= k"
        )
    if design is not None:
        check_k(design, ks)
    p = pilot_p(pilot)
    rows = plan_table(
        p, ns, ks, thresholds, questions=counts, level=level, include_question_sampling=include_question_sampling
    )
    targets: list[TargetN] = []
    if target is not None:
        for m in counts:
            for draws in ks:
                for tau in [*thresholds, "mG"]:
                    floor = expected_half_width(
                        p,
                        N_MAX,
                        draws,
                        tau,
                        questions=m,
                        level=level,
                        include_question_sampling=include_question_sampling,
                    )
                    n = smallest_n(
                        p,
                        draws,
                        tau,
                        target,
                        questions=m,
                        level=level,
                        include_question_sampling=include_question_sampling,
                        n_max=N_MAX,
                    )
                    targets.append(
                        TargetN(
                            key=floor.key, questions=floor.questions, target=float(target), n=n, floor=floor.half_width
                        )
                    )
    warning = uninformative_pilot(*resolved_counts(pilot))
    warnings = [] if warning is None else [warning]
    curtailed = None
    if design is not None:
        curtailed = curtailed_plan(
            p,
            design,
            ks,
            thresholds,
            questions=counts,
            level=level,
            include_question_sampling=include_question_sampling,
        )
        warnings += noisier_warnings(p, design, curtailed, ks, thresholds)
    _, n = pilot.counts()
    return PlanReport(
        pilot=pilot.source,
        pilot_questions=len(pilot.details),
        pilot_n=int(n[0]) if (n == n[0]).all() else None,
        pilot_unresolved=int(sum(q.unresolved for q in pilot.details)),
        level=float(level),
        include_question_sampling=bool(include_question_sampling),
        rows=tuple(rows),
        targets=tuple(targets),
        warnings=tuple(warnings),
        curtailed=curtailed,
        pilot_curtail=None if pilot.design is None else str(pilot.design),
    )


def noisier_warnings(p, design: Curtailed, plan: CurtailedPlan, ks: Sequence[int], thresholds: Sequence) -> list[str]:
    """One line per metric the design makes more than :data:`CURTAIL_NOISIER` times noisier than a fixed n,
    naming the rule with the same ``n1`` and ``n`` that keeps it (the least noisy one, if under the threshold)."""
    ratios = {row.key: row.ratio for row in plan.rows}
    lines = []
    for draws in ks:
        for tau in [*thresholds, "mG"]:
            key = metric_key_of(draws, tau)
            if ratios[key] <= CURTAIL_NOISIER:
                continue
            others = {other.rule: noise_ratio(p, other, draws, tau) for other in other_rules(design)}
            better = min(others, key=others.__getitem__) if others else None
            keeps = better is not None and others[better] <= CURTAIL_NOISIER
            lines.append(
                curtail_warning(design.rule, key, ratios[key], better if keeps else None, draws, tau, design.n)
            )
    return lines


def calibrate(
    p, rows: Sequence[PlannedWidth], *, replications: int = defaults.N_CALIBRATION, seed: int = 0
) -> tuple[CalibrationPoint, ...]:
    """Simulate each planned configuration and measure the realised half-width.

    Args:
        p: the pilot's per-question probabilities.
        rows: planned widths (from :func:`~gpassk_opencompass.uncertainty.planner.plan_table`).
        replications: simulated runs per configuration.
        seed: seeds the simulation.
    """
    replications = positive_ints([replications], "--replications")[0]
    rng = np.random.default_rng(seed)
    p = np.asarray(p, dtype=float)
    points = []
    for row in rows:
        if row.include_question_sampling:
            chosen = p[rng.integers(0, p.size, size=(replications, row.questions))]
        else:
            chosen = np.broadcast_to(p[np.arange(row.questions) % p.size], (replications, row.questions))
        correct = rng.binomial(row.n, chosen)
        scores = metric_values(np.arange(row.n + 1), row.n, row.key)[correct].mean(axis=1)
        z = float(stats.norm.ppf(0.5 + row.level / 2))
        points.append(
            CalibrationPoint(planned=row, realised=float(100 * z * scores.std(ddof=1)), replications=replications)
        )
    return tuple(points)


def plan(
    pilot_path: str | os.PathLike,
    ns: Sequence[int] | None,
    *,
    questions: Sequence[int] | None = None,
    target: float | None = None,
    k: Sequence[int] | None = None,
    thresholds: Sequence[float] | None = None,
    level: float = defaults.CI,
    include_question_sampling: bool = True,
    calibration_png=None,
    replications: int = defaults.N_CALIBRATION,
    seed: int = 0,
    json_path=None,
    markdown_path=None,
    design: Curtailed | None = None,
) -> str:
    """``gpassk plan``: read the pilot, plan, optionally calibrate and plot, write files; the Markdown to print.

    ``design``: a curtailed design (``--curtail``, parsed by the CLI with ``Curtailed.parse``) planned against a
    fixed ``n``; its k check comes before any planning.
    """
    check_outputs(
        {"PILOT": pilot_path}, {"--json": json_path, "--markdown": markdown_path, "--calibration-plot": calibration_png}
    )
    positive_ints([replications], "--replications")
    non_negative_int(seed, "--seed")
    require_extra("--calibration-plot", calibration_png, "matplotlib")
    if design is not None and k:
        check_k(design, k)  # before the pilot is read; a k from the pilot is checked by plan_results
    pilot = load_with_details(pilot_path)
    report = plan_results(
        pilot,
        ns,
        questions=questions,
        target=target,
        k=k,
        thresholds=thresholds,
        level=level,
        include_question_sampling=include_question_sampling,
        design=design,
    )
    if calibration_png is not None:
        points = calibrate(pilot_p(pilot), report.rows, replications=replications, seed=seed)
        report = replace(report, calibration=points)
        write_bytes_atomic(calibration_png, calibration_png_bytes(points, os.path.basename(pilot.source)))
    write_report(report, json_path=json_path, markdown_path=markdown_path)
    return to_markdown(report)


def calibration_png_bytes(points: Sequence[CalibrationPoint], pilot_name: str) -> bytes:
    """Planned against simulated half-width, one point per metric x n x question count, as PNG."""
    from gpassk_opencompass.render.plots import calibration_plot, png_bytes  # deferred: matplotlib, when asked

    realised = {(point.planned.key, point.planned.n, point.planned.questions): [point.realised] for point in points}
    return png_bytes(
        calibration_plot(
            [point.planned for point in points], realised, title=f"plan from {pilot_name}: planned vs simulated"
        )
    )
