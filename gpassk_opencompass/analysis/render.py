"""The analysis reports as Markdown and JSON, and the agreement as a self-contained HTML page. Pure.

JSON is the report's dataclasses as plain data (``schema`` names the kind of
report); Markdown is what the commands print; the HTML page is rendered by
Jinja2 with autoescaping (every answer and reason is text from model output).
"""

from __future__ import annotations

import json
import math
from dataclasses import fields, is_dataclass
from functools import singledispatch

from gpassk_opencompass import __version__
from gpassk_opencompass.analysis.agreement import AgreementReport
from gpassk_opencompass.analysis.comparison import ComparisonReport
from gpassk_opencompass.analysis.planning import PlanReport
from gpassk_opencompass.redaction import redact, redact_data

#: JSON ``schema`` of each report.
SCHEMAS = {AgreementReport: "gpassk-agree/1", ComparisonReport: "gpassk-compare/1", PlanReport: "gpassk-plan/1"}


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
    data = {"schema": SCHEMAS[type(report)], "gpassk_version": __version__, **_plain(report)}
    if isinstance(report, AgreementReport):
        data["complete"] = report.complete
    return json.dumps(redact_data(data), indent=2, ensure_ascii=False) + "\n"


def _number(value, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


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
    return (f"{stats.kappa:.4f} (SE {stats.kappa_stderr:.4f}, {stats.ci:.0%} CI "
            f"[{stats.kappa_ci_low:.4f}, {stats.kappa_ci_high:.4f}])")


@singledispatch
def to_markdown(report, **options) -> str:
    """The report as Markdown (what the command prints)."""
    raise TypeError(f"no Markdown for {type(report).__name__}")


@to_markdown.register
def _(report: AgreementReport, limit: int | None = 50) -> str:
    a, b, stats = report.judge_a, report.judge_b, report.agreement
    (tt, tf), (ft, ff) = stats.table
    lines = [f"# Judge agreement: A = {a.name}, B = {b.name}", ""]
    sources = [a.source] if a.source == b.source else [a.source, b.source]
    lines += [f"Results: {', '.join(sources)}", f"Compared: {report.selection}.", ""]
    lines += ["| | B correct | B wrong |", "|---|---:|---:|", f"| A correct | {tt} | {tf} |",
              f"| A wrong | {ft} | {ff} |", ""]
    if stats.compared:
        lines += [f"- agreement: {stats.agreement:.4f} on {stats.compared} items both judges resolved",
                  f"- Cohen's kappa: {kappa_text(report)}"]
        if report.mode == "cascade":
            lines.append(f"- the model accepted {ft} of the {ft + ff} answers the rule judge did not confirm "
                         "(and both resolved)")
    else:
        lines += ["- agreement: none of the items was resolved by both judges"]
    lines += [(f"- unresolved: {a.unresolved} by A, {b.unresolved} by B (left out of the table, never counted "
               "as wrong)"), ""]
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
        lines += ["| question | gen | A | B | extracted (A) | extracted (B) | reason (A) | reason (B) |",
                  "|---|---:|---|---|---|---|---|---|"]
        for item in shown:
            lines.append(f"| {_cell(item.question)} | {item.generation} | {_verdict(item.correct_a)} | "
                         f"{_verdict(item.correct_b)} | {_cell(item.extracted_a)} | {_cell(item.extracted_b)} | "
                         f"{_cell(item.reason_a)} | {_cell(item.reason_b)} |")
        if len(shown) < len(report.disagreements):
            lines += ["", f"... {len(report.disagreements) - len(shown)} more (all in --json / --html / --markdown)"]
    else:
        lines.append("None.")
    return redact("\n".join(lines)) + "\n"


@to_markdown.register
def _(report: ComparisonReport) -> str:
    level = report.differences[0].ci if report.differences else 0.95
    lines = [f"# A vs B on {report.benchmark or 'the same questions'}", "",
             f"A: {report.run_a}", f"B: {report.run_b}",
             (f"{report.questions} shared questions, n = {report.n if report.n is not None else 'varies'}; "
              f"paired over questions: {level:.0%} bootstrap interval ({report.n_boot} resamples, seed "
              f"{report.seed}), two-sided sign-flip p-value."), "",
             "| metric | A | B | A - B | interval | p-value | test |", "|---|---:|---:|---:|---|---:|---|"]
    for d in report.differences:
        lines.append(f"| {d.metric} | {d.mean_a:.2f} | {d.mean_b:.2f} | {d.difference:+.2f} | "
                     f"[{d.ci_low:+.2f}, {d.ci_high:+.2f}] | {d.p_value:.4g} | {d.test} ({d.permutations}) |")
    lines += ["", "p-values are per metric, not corrected for testing several metrics."]
    return redact("\n".join(lines)) + "\n"


@to_markdown.register
def _(report: PlanReport) -> str:
    view = ("questions as a sample (between-question variance included)" if report.include_question_sampling
            else "a fixed question set (generation noise only)")
    pilot_n = report.pilot_n if report.pilot_n is not None else "varying"
    lines = [f"# Sample-size plan from {report.pilot}", "",
             f"Pilot: {report.pilot_questions} questions, n = {pilot_n}"
             + (f", {report.pilot_unresolved} unresolved verdicts left out" if report.pilot_unresolved else "")
             + f". Expected {report.level:.0%} interval half-width (points), {view}.", ""]
    counts = list(dict.fromkeys(row.questions for row in report.rows))
    ns = list(dict.fromkeys(row.n for row in report.rows))
    for m in counts:
        rows = [row for row in report.rows if row.questions == m]
        keys = list(dict.fromkeys(row.key for row in rows))
        width = {(row.key, row.n): row.half_width for row in rows}
        lines += [f"## {m} questions", "", "| metric | " + " | ".join(f"n={n}" for n in ns) + " |",
                  "|---|" + "---:|" * len(ns)]
        for key in keys:
            lines.append(f"| {key} | " + " | ".join(
                f"±{width[key, n]:.2f}" if (key, n) in width else "–" for n in ns) + " |")
        targets = [t for t in report.targets if t.questions == m]
        if targets:
            lines += ["", f"Smallest n for ±{targets[0].target:g} points:", ""]
            for t in targets:
                lines.append(f"- {t.key}: n = {t.n}" if t.n is not None else
                             f"- {t.key}: not reachable with {m} questions (±{t.floor:.2f} even at n = 4096); "
                             "more questions are the way down")
        lines.append("")
    if report.calibration:
        lines += ["## Calibration: planned vs simulated half-width", "",
                  "| questions | n | metric | planned | simulated |", "|---:|---:|---|---:|---:|"]
        lines += [f"| {p.planned.questions} | {p.planned.n} | {p.planned.key} | ±{p.planned.half_width:.2f} | "
                  f"±{p.realised:.2f} |" for p in report.calibration]
        lines += ["", f"({report.calibration[0].replications} simulated runs per row.)"]
    return redact("\n".join(lines).rstrip()) + "\n"


# ------------------------------------------------------------------ HTML

AGREEMENT_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Judge agreement: {{ report.judge_a.name }} vs {{ report.judge_b.name }}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
       max-width: 1100px; padding: 24px; color: #1d1d1f; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 24px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #666; } .wrong { color: #b3261e; } .correct { color: #1b7f3b; } .unresolved { color: #8a6d00; }
td.text { max-width: 22em; overflow-wrap: anywhere; }
</style>
</head>
<body>
<h1>Judge agreement</h1>
<p>A = <strong>{{ report.judge_a.name }}</strong>, B = <strong>{{ report.judge_b.name }}</strong></p>
<p class="muted">Results: {{ sources | join(", ") }}<br>Compared: {{ report.selection }}.</p>
<table id="table">
<tr><th></th><th>B correct</th><th>B wrong</th></tr>
<tr><th>A correct</th><td class="num">{{ table[0][0] }}</td><td class="num">{{ table[0][1] }}</td></tr>
<tr><th>A wrong</th><td class="num">{{ table[1][0] }}</td><td class="num">{{ table[1][1] }}</td></tr>
</table>
<ul>
{% if stats.compared %}
<li>agreement: <strong id="agreement">{{ "%.4f" | format(stats.agreement) }}</strong> on {{ stats.compared }} items both judges resolved</li>
<li>Cohen's kappa: <strong id="kappa">{{ kappa }}</strong></li>
{% if report.mode == "cascade" %}
<li>the model accepted {{ table[1][0] }} of the {{ table[1][0] + table[1][1] }} answers the rule judge did not confirm (and both resolved)</li>
{% endif %}
{% else %}
<li>none of the items was resolved by both judges</li>
{% endif %}
<li>unresolved: {{ report.judge_a.unresolved }} by A, {{ report.judge_b.unresolved }} by B (left out of the table, never counted as wrong)</li>
</ul>
<h2>How the metrics move</h2>
{% if report.shifts %}
<table id="shifts">
<tr><th>metric</th><th>under A</th><th>under B</th><th>B − A</th></tr>
{% for s in report.shifts %}
<tr><td>{{ s.metric }}</td><td class="num">{{ "%.2f" | format(s.under_a) }}</td><td class="num">{{ "%.2f" | format(s.under_b) }}</td><td class="num">{{ "%+.2f" | format(s.difference) }}</td></tr>
{% endfor %}
</table>
{% else %}
<p>Metric shift {{ report.shifts_withheld }}.</p>
{% endif %}
<h2>Items the judges see differently ({{ report.disagreements | length }})</h2>
{% if not report.gold_recorded %}<p class="muted">The results files do not record gold answers: extracted answers and reasons are shown.</p>{% endif %}
{% if report.disagreements %}
<table id="disagreements">
<tr><th>question</th><th>gen</th><th>A</th><th>B</th><th>extracted (A)</th><th>extracted (B)</th><th>reason (A)</th><th>reason (B)</th></tr>
{% for d in report.disagreements %}
<tr><td class="text">{{ d.question }}</td><td class="num">{{ d.generation }}</td>
<td class="{{ verdict(d.correct_a) }}">{{ verdict(d.correct_a) }}</td><td class="{{ verdict(d.correct_b) }}">{{ verdict(d.correct_b) }}</td>
<td class="text">{{ d.extracted_a if d.extracted_a is not none else "–" }}</td><td class="text">{{ d.extracted_b if d.extracted_b is not none else "–" }}</td>
<td class="text">{{ d.reason_a }}</td><td class="text">{{ d.reason_b }}</td></tr>
{% endfor %}
</table>
{% else %}
<p>None.</p>
{% endif %}
<p class="muted">gpassk-opencompass {{ version }}</p>
</body>
</html>
"""


def agreement_html(report: AgreementReport) -> str:
    """The agreement report as one self-contained HTML page (no script, no external resource)."""
    from jinja2 import Environment, StrictUndefined

    environment = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    sources = [report.judge_a.source] if report.judge_a.source == report.judge_b.source else \
        [report.judge_a.source, report.judge_b.source]
    page = environment.from_string(AGREEMENT_TEMPLATE).render(
        report=report, stats=report.agreement, table=report.agreement.table, sources=sources,
        verdict=_verdict, version=__version__, kappa=kappa_text(report))
    return redact(page)
