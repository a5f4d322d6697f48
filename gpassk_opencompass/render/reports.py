"""The analysis reports (``gpassk agree/compare/plan``) as Markdown and JSON, the agreement also as a
self-contained HTML page. Pure, but for :func:`write_report`.

A report is the frozen dataclass an :mod:`~gpassk_opencompass.analysis` command returns; its class's
``schema`` (``gpassk-agree/1``, ...) names its kind, picks its Markdown and heads its JSON. JSON is the
report as plain data; Markdown is what the commands print; the HTML page is the Jinja2 template
``templates/agreement.html.j2``, autoescaped (every answer and reason is text from model output).
Only the formats asked for are rendered: the page (jinja2) never when no ``--html`` is given.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from gpassk_opencompass import __version__, defaults
from gpassk_opencompass.files.writing import write_text_atomic
from gpassk_opencompass.metrics import required_correct
from gpassk_opencompass.redaction import redact, redact_data
from gpassk_opencompass.render import template

if TYPE_CHECKING:  # the reports' types, named in annotations only (the analysis commands import this module)
    from gpassk_opencompass.analysis.agreement import AgreementReport
    from gpassk_opencompass.analysis.comparison import ComparisonReport
    from gpassk_opencompass.analysis.planning import PlanReport
    from gpassk_opencompass.uncertainty.curtailment import CurtailedPlan


def _plain(value):
    if is_dataclass(value):
        return {field.name: _plain(getattr(value, field.name)) for field in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def to_json(report) -> str:
    """The whole report as indented JSON (redacted), with its ``schema`` and the package version."""
    data = {"schema": report.schema, "gpassk_version": __version__, **_plain(report)}
    if hasattr(report, "complete"):
        data["complete"] = report.complete
    return json.dumps(redact_data(data), indent=2, ensure_ascii=False) + "\n"


def write_report(
    report,
    *,
    json_path: str | os.PathLike | None = None,
    markdown_path: str | os.PathLike | None = None,
    html_path: str | os.PathLike | None = None,
) -> None:
    """Write the report in each format asked for, atomically; a format without a path is not even rendered."""
    renderers = (
        (json_path, to_json),
        (markdown_path, lambda report: to_markdown(report, limit=None)),
        (html_path, agreement_html),
    )
    for path, render in renderers:
        if path is not None:
            text = render(report)
            write_text_atomic(path, text if text.endswith("\n") else text + "\n")


def _verdict(value) -> str:
    return {True: "correct", False: "wrong", None: "unresolved"}[value]


def _cell(text) -> str:
    """Text made safe for one Markdown table cell."""
    if text is None:
        return "–"
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= 120 else text[:117] + "..."


def kappa_text(report: AgreementReport) -> str:
    """Cohen's kappa in words: the value with its interval, or why there is none worth showing.

    In cascade mode the rule judge's side of the selection holds no "correct"
    (those answers never reached the model), so kappa is 0 or undefined by
    construction and says nothing.
    """
    stats = report.agreement
    if report.mode == "cascade":
        return "not informative here (the rule judge confirmed none of the compared items, by selection)"
    if stats.kappa is None:
        return "undefined (both judges gave every item the same verdict)"
    return (
        f"{stats.kappa:.4f} (SE {stats.kappa_stderr:.4f}, {stats.ci:.0%} CI "
        f"[{stats.kappa_ci_low:.4f}, {stats.kappa_ci_high:.4f}])"
    )


def to_markdown(report, limit: int | None = 50) -> str:
    """The report as Markdown (what the command prints); ``limit``: disagreeing items listed (``None``: all)."""
    if report.schema == "gpassk-agree/1":
        return _agreement_markdown(report, limit)
    renderers: dict[str, Callable[[Any], str]] = {
        "gpassk-compare/1": _comparison_markdown,
        "gpassk-plan/1": _plan_markdown,
    }
    return renderers[report.schema](report)


def _agreement_markdown(report: AgreementReport, limit: int | None) -> str:
    a, b, stats = report.judge_a, report.judge_b, report.agreement
    (tt, tf), (ft, ff) = stats.table
    lines = [f"# Judge agreement: A = {a.name}, B = {b.name}", ""]
    sources = [a.source] if a.source == b.source else [a.source, b.source]
    lines += [f"Results: {', '.join(sources)}", f"Compared: {report.selection}.", ""]
    lines += [
        "| | B correct | B wrong |",
        "|---|---:|---:|",
        f"| A correct | {tt} | {tf} |",
        f"| A wrong | {ft} | {ff} |",
        "",
    ]
    if stats.compared:
        lines += [
            f"- agreement: {stats.agreement:.4f} on {stats.compared} items both judges resolved",
            f"- Cohen's kappa: {kappa_text(report)}",
        ]
        if report.mode == "cascade":
            lines.append(
                f"- the model accepted {ft} of the {ft + ff} answers the rule judge did not confirm (and both resolved)"
            )
    else:
        lines += ["- agreement: none of the items was resolved by both judges"]
    lines += [
        (f"- unresolved: {a.unresolved} by A, {b.unresolved} by B (left out of the table, never counted as wrong)"),
        "",
    ]
    lines += ["## How the metrics move (B - A, points)", ""]
    if report.shifts:
        lines += ["| metric | under A | under B | B - A |", "|---|---:|---:|---:|"]
        lines += [f"| {s.metric} | {s.under_a:.2f} | {s.under_b:.2f} | {s.difference:+.2f} |" for s in report.shifts]
    else:
        lines += [f"Metric shift {report.shifts_withheld}."]
    shown = report.disagreements if limit is None else report.disagreements[:limit]
    lines += ["", f"## Items the judges see differently ({len(report.disagreements)})", ""]
    if not report.gold_recorded:
        lines += ["(The results files do not record gold answers: extracted answers and reasons are shown.)", ""]
    if shown:
        lines += [
            "| question | gen | A | B | extracted (A) | extracted (B) | reason (A) | reason (B) |",
            "|---|---:|---|---|---|---|---|---|",
        ]
        for item in shown:
            lines.append(
                f"| {_cell(item.question)} | {item.generation} | {_verdict(item.correct_a)} | "
                f"{_verdict(item.correct_b)} | {_cell(item.extracted_a)} | {_cell(item.extracted_b)} | "
                f"{_cell(item.reason_a)} | {_cell(item.reason_b)} |"
            )
        if len(shown) < len(report.disagreements):
            lines += ["", f"... {len(report.disagreements) - len(shown)} more (all in --json / --html / --markdown)"]
    else:
        lines.append("None.")
    return redact("\n".join(lines)) + "\n"


def _comparison_markdown(report: ComparisonReport) -> str:
    level = report.differences[0].ci if report.differences else defaults.CI
    lines = [
        f"# A vs B on {report.benchmark or 'the same questions'}",
        "",
        f"A: {report.run_a}",
        f"B: {report.run_b}",
        (
            f"{report.questions} shared questions, n = {report.n if report.n is not None else 'varies'}; "
            f"paired over questions: {level:.0%} bootstrap interval ({report.n_boot} resamples, seed "
            f"{report.seed}), two-sided sign-flip p-value."
        ),
        "",
        "| metric | A | B | A - B | interval | p-value | test |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for d in report.differences:
        lines.append(
            f"| {d.metric} | {d.mean_a:.2f} | {d.mean_b:.2f} | {d.difference:+.2f} | "
            f"[{d.ci_low:+.2f}, {d.ci_high:+.2f}] | {d.p_value:.4g} | {d.test} ({d.permutations}) |"
        )
    lines += ["", "p-values are per metric, not corrected for testing several metrics."]
    return redact("\n".join(lines)) + "\n"


def _plan_markdown(report: PlanReport) -> str:
    view = (
        "questions as a sample (between-question variance included)"
        if report.include_question_sampling
        else "a fixed question set (generation noise only)"
    )
    pilot_n = report.pilot_n if report.pilot_n is not None else "varying"
    if report.pilot_curtail is not None:  # a curtailed pilot: its questions hold n1 or n, by its design
        n1, n, rule = report.pilot_curtail.split(":")
        pilot_n = f"{n1} or {n} (curtailed, {rule})"
    lines = [
        f"# Sample-size plan from {report.pilot}",
        "",
        f"Pilot: {report.pilot_questions} questions, n = {pilot_n}"
        + (f", {report.pilot_unresolved} unresolved verdicts left out" if report.pilot_unresolved else "")
        + f". Expected {report.level:.0%} interval half-width (points), {view}.",
        "",
        *(line for warning in report.warnings for line in (f"warning: {warning}", "")),
    ]
    counts = list(dict.fromkeys(row.questions for row in report.rows))
    ns = list(dict.fromkeys(row.n for row in report.rows))
    for m in counts:
        rows = [row for row in report.rows if row.questions == m]
        keys = list(dict.fromkeys(row.key for row in rows))
        width = {(row.key, row.n): row.half_width for row in rows}
        lines += [
            f"## {m} questions",
            "",
            "| metric | " + " | ".join(f"n={n}" for n in ns) + " |",
            "|---|" + "---:|" * len(ns),
        ]
        for key in keys:
            lines.append(
                f"| {key} | " + " | ".join(f"±{width[key, n]:.2f}" if (key, n) in width else "–" for n in ns) + " |"
            )
        targets = [t for t in report.targets if t.questions == m]
        if targets:
            lines += ["", f"Smallest n for ±{targets[0].target:g} points:", ""]
            for t in targets:
                lines.append(
                    f"- {t.key}: n = {t.n}"
                    if t.n is not None
                    else f"- {t.key}: not reachable with {m} questions (±{t.floor:.2f} even at n = 4096); "
                    "more questions are the way down"
                )
        lines.append("")
    if report.curtailed is not None:
        lines += _curtailed_lines(report.curtailed, view, report.level)
    if report.calibration:
        lines += [
            "## Calibration: planned vs simulated half-width",
            "",
            "| questions | n | metric | planned | simulated |",
            "|---:|---:|---|---:|---:|",
        ]
        lines += [
            f"| {p.planned.questions} | {p.planned.n} | {p.planned.key} | ±{p.planned.half_width:.2f} | "
            f"±{p.realised:.2f} |"
            for p in report.calibration
        ]
        lines += ["", f"({report.calibration[0].replications} simulated runs per row.)"]
    return redact("\n".join(lines).rstrip()) + "\n"


def _curtailed_lines(plan: CurtailedPlan, view: str, level: float) -> list[str]:
    """The curtailed design against a fixed n: generations saved, then per question count a table of widths."""
    stops = ", ".join(str(count) for count in plan.stop_set)
    lines = [
        f"## Curtailed {plan.design} against a fixed n = {plan.n}",
        "",
        f"Stage 1 draws {plan.n1} generations per question; {plan.rule} stops a question there when its stage-1 "
        f"correct count is in {{{stops}}} (expected for {plan.stopped:.1%} of these questions), the rest draw on "
        f"to {plan.n}. Expected generations: {plan.expected_draws:.2f} per question against {plan.n} "
        f"({plan.saved:.1%} saved).",
        "",
    ]
    for m in dict.fromkeys(row.questions for row in plan.rows):
        lines += [
            f"### {m} questions",
            "",
            f"| metric | n={plan.n} | {plan.design} | noise ratio |",
            "|---|---:|---:|---:|",
        ]
        lines += [
            f"| {row.key} | ±{row.fixed.half_width:.2f} | ±{row.curtailed.half_width:.2f} | {row.ratio:.2f}× |"
            for row in plan.rows
            if row.questions == m
        ]
        lines.append("")
    lines += [
        f"Half-widths of the {level:.0%} interval (points), {view}. The noise ratio is the design's within-question "
        f"variance over the fixed n's: the generation noise, which is all the design changes.",
        "",
    ]
    return lines


def curtail_warning(rule: str, key: str, ratio: float, better: str | None, k: int, tau, n: int) -> str:
    """The warning for a metric a curtailed rule makes ``ratio`` times noisier than a fixed ``n``, naming the rule
    that keeps it (``better``), if any.

    >>> curtail_warning("all-wrong-or-right", "G-Pass@16_1.0", 3.94, "all-wrong", 16, 1.0, 48)
    'all-wrong-or-right makes G-Pass@16_1.0 3.9× noisier here; use all-wrong for τ = 1'
    >>> curtail_warning("all-wrong", "G-Pass@4_0.25", 1.88, None, 4, 0.25, 48)  # one of 4 right: pass@4
    'all-wrong makes G-Pass@4_0.25 1.9× noisier here and no rule keeps it; draw a fixed n = 48 for τ = 0.25 (pass@k)'
    """
    which = (
        key if isinstance(tau, str) else f"τ = {float(tau):g}" + (" (pass@k)" if required_correct(k, tau) == 1 else "")
    )
    said = f"{rule} makes {key} {ratio:.1f}× noisier here"
    if better is not None:
        return f"{said}; use {better} for {which}"
    return f"{said} and no rule keeps it; draw a fixed n = {n} for {which}"


def agreement_html(report: AgreementReport) -> str:
    """The agreement report as one self-contained HTML page (no script, no external resource)."""
    sources = (
        [report.judge_a.source]
        if report.judge_a.source == report.judge_b.source
        else [report.judge_a.source, report.judge_b.source]
    )
    page = template("agreement.html.j2").render(
        report=report,
        stats=report.agreement,
        table=report.agreement.table,
        sources=sources,
        verdict=_verdict,
        version=__version__,
        kappa=kappa_text(report),
    )
    return redact(page)
