"""The console report of a scoring (``gpassk score``, ``gpassk rejudge``): the metrics table, the
block said when verdicts are missing (pure functions of a
:class:`~gpassk_opencompass.scoring.results.ResultsFile`), and the line saying how the samples were laid out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpassk_opencompass import defaults
from gpassk_opencompass.redaction import redact

if TYPE_CHECKING:
    from gpassk_opencompass.scoring.readers._samples import Layout
    from gpassk_opencompass.scoring.results import ResultsFile


def layout_line(layout: Layout) -> str:
    """The one line ``gpassk score`` says when samples were grouped into questions (rows, seeds' files, replicas).

    >>> from gpassk_opencompass.scoring.readers._samples import Layout
    >>> layout_line(Layout(240, "records", 30, 8, 8, "question text and answer"))
    '240 records → 30 questions × 8 samples, grouped by question text and answer'
    >>> layout_line(Layout(8, "files", 6, 7, 8, "question id", missing=2))
    '8 files → 6 questions × 7–8 samples, joined by question id; 2 samples missing (--allow-missing)'
    >>> layout_line(Layout(30, "rows", 30, 1, 1, "id"))
    '30 rows → 30 questions × 1 sample, grouped by id'
    """
    samples = f"{layout.least}" if layout.least == layout.most else f"{layout.least}–{layout.most}"
    plural = "" if layout.most == 1 else "s"
    how = "joined" if layout.unit == "files" else "grouped"
    line = (
        f"{layout.read:,} {layout.unit} → {layout.questions:,} question{'' if layout.questions == 1 else 's'} × "
        f"{samples} sample{plural}, {how} by {layout.by}"
    )
    if layout.missing:
        line += f"; {layout.missing:,} sample{'s' if layout.missing > 1 else ''} missing (--allow-missing)"
    return line


def unresolved_summary(record: ResultsFile, *, resume: str) -> str:
    """The block printed or logged when verdicts are missing: how many, why, what is kept, how to resume.

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> print(unresolved_summary(read_results({"unresolved": 3, "gpassk": {"judge_stats": {"total": 8},
    ...     "unresolved_reasons": [["judge request failed after 6 attempt(s): HTTP 503", 3]]}}),
    ...     resume="every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones"))
    3 of 8 generations could not be judged (unresolved); no metric counts them as wrong.
      3 x judge request failed after 6 attempt(s): HTTP 503
    every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones
    """
    lines = [
        f"{record.unresolved} of {record.generations} generations could not be judged "
        "(unresolved); no metric counts them as wrong."
    ]
    lines += [f"  {count} x {reason}" for reason, count in record.gpassk.unresolved_reasons or ()]
    lines.append(resume)
    return redact("\n".join(lines))


#: How each source of ``gpassk.cut`` is said.
CUT_SOURCES = {
    "finish_reason": "from the recorded finish_reason",
    "extraction": "no finish_reason recorded: no final answer and the text stops mid-sentence",
    "mixed": "from the recorded finish_reason where there is one, else the text stopping mid-sentence",
}


def cut_line(record: ResultsFile) -> str | None:
    """One line on the generations cut at the output limit and those without a final answer (``None``: none of
    either, or not recorded).

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> cut = {"generations": 120, "cut": 30, "no_answer": 12, "recorded": 120, "source": "finish_reason"}
    >>> print(cut_line(read_results({"gpassk": {"schema_version": 3, "cut": cut}})))
    cut at the output limit: 30 of 120 generations (25 %, from the recorded finish_reason); 12 more end without a final answer
    >>> cut |= {"recorded": 0, "source": "extraction"}
    >>> print(cut_line(read_results({"gpassk": {"schema_version": 3, "cut": cut}})))
    cut at the output limit: at least 30 of 120 generations (25 %, no finish_reason recorded: no final answer and the text stops mid-sentence); 12 more end without a final answer
    """
    cut = record.cut
    if cut is None or not (cut.cut or cut.no_answer):
        return None
    if not cut.cut:
        return (
            f"cut at the output limit: none of {cut.generations} generations ({CUT_SOURCES[cut.source]}); "
            f"{cut.no_answer} end without a final answer"
        )
    more = f"; {cut.no_answer} more end without a final answer" if cut.no_answer else ""
    return (
        f"cut at the output limit: {'at least ' * cut.lower_bound}{cut.cut} of {cut.generations} generations "
        f"({cut.share * 100:.0f} %, {CUT_SOURCES[cut.source]}){more}"
    )


def curtail_line(record: ResultsFile) -> str | None:
    """One line on what a curtailed run saved (``None``: a fixed n).

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> block = {"n1": 16, "n": 48, "rule": "all-wrong", "stopped": 19, "generations": 832, "fixed_n_generations": 1440}
    >>> print(curtail_line(read_results({"gpassk": {"schema_version": 4, "curtail": block}})))
    curtailed at 16 of 48 (all-wrong): 19 questions stopped, 608 of 1,440 generations not drawn (42 %)
    """
    block = record.gpassk.curtail
    if block is None:
        return None
    share = block.saved / block.fixed_n_generations if block.fixed_n_generations else 0.0
    return (
        f"curtailed at {block.n1} of {block.n} ({block.rule}): {block.stopped:,} question"
        f"{'s' * (block.stopped != 1)} stopped, {block.saved:,} of {block.fixed_n_generations:,} generations "
        f"not drawn ({share * 100:.0f} %)"
    )


def format_report(record: ResultsFile) -> str:
    """A readable summary of a results document: one row per metric with its intervals.

    With unresolved verdicts every row also shows the metric's range between
    "all unresolved wrong" and "all unresolved right" (``gpassk.bounds``), and
    a value withheld because of them is shown as ``-``. Bayesian credible
    intervals (``gpassk.bayes``) get their own column when present.

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> result = {"accuracy (8 runs average)": 50.0, "G-Pass@4_0.5": 71.5, "mG-Pass@4": 16.25,
    ...           "gpassk": {"n": 8, "judge": "rule", "prompt_version": None, "questions": 2,
    ...                      "uncertainty": {"accuracy (8 runs average)": {"ci_low": 40.0, "ci_high": 60.0, "ci": 0.95},
    ...                                      "G-Pass@4_0.5": {"ci_low": 60.0, "ci_high": 80.0, "ci": 0.95},
    ...                                      "mG-Pass@4": {"ci_low": 10.0, "ci_high": 20.5, "ci": 0.95}},
    ...                      "judge_stats": {"total": 16, "unique": 5, "cached": 0, "requests": 0,
    ...                                      "retries": 0, "unresolved": 0}}}
    >>> print(format_report(read_results(result)))
    2 questions, n=8, rule judge
    metric                       value   95% CI
    accuracy (8 runs average)    50.00   [40.00, 60.00]
    G-Pass@4_0.5                 71.50   [60.00, 80.00]
    mG-Pass@4                    16.25   [10.00, 20.50]
    judged 16 generations: 5 distinct, 0 from cache, 0 requests (0 retries), 0 unresolved
    >>> result["gpassk"]["bayes"] = {"G-Pass@4_0.5": {"mean": 70.0, "std": 5.0, "low": 60.2, "high": 79.8,
    ...     "level": 0.95, "prior": [1.0, 1.0], "method": "normal"}}
    >>> print(format_report(read_results(result)).splitlines()[1:4])
    ['metric                       value   95% CI           95% credible (Beta(1, 1) prior)', 'accuracy (8 runs average)    50.00   [40.00, 60.00]', 'G-Pass@4_0.5                 71.50   [60.00, 80.00]   [60.20, 79.80]']
    >>> del result["gpassk"]["bayes"]
    >>> result["gpassk"].update(complete=False, bounds={"accuracy (8 runs average)": [50.0, 62.5],
    ...                         "G-Pass@4_0.5": [71.5, 80.0], "mG-Pass@4": [16.25, 30.0]}, uncertainty={})
    >>> for key in ("accuracy (8 runs average)", "G-Pass@4_0.5", "mG-Pass@4"):
    ...     del result[key]
    >>> print(format_report(read_results(result)))
    2 questions, n=8, rule judge
    INCOMPLETE: metrics withheld; range if every unresolved verdict were wrong .. right
    metric                       value   95% CI   range
    accuracy (8 runs average)        -            [50.00, 62.50]
    G-Pass@4_0.5                     -            [71.50, 80.00]
    mG-Pass@4                        -            [16.25, 30.00]
    judged 16 generations: 5 distinct, 0 from cache, 0 requests (0 retries), 0 unresolved
    """
    info, bounds, uncertainty, bayes = record.gpassk, record.bounds, record.uncertainty, record.bayes
    keys = list(dict.fromkeys([*uncertainty, *record.metrics, *bounds]))
    width = max(len(key) for key in keys) + 3
    level = next((entry.level for entry in uncertainty.values() if entry.level is not None), None) or next(
        (entry.level for entry in bayes.values()), defaults.CI
    )
    judge = f"{info.judge} judge" + (f" (prompt {info.prompt_version})" if info.prompt_version else "")
    n = record.n if record.n is not None else "varies"
    lines = [f"{record.questions} questions, n={n}, {judge}"]
    interval_width = 19
    header = f"{'metric'.ljust(width)}{'value':>6}   {level:.0%} CI"
    if bayes:
        prior = next(iter(bayes.values())).prior
        header = (
            header.ljust(width + 6 + interval_width)
            + f"   {level:.0%} credible (Beta({prior[0]:g}, {prior[1]:g}) prior)"
        )
    if bounds:
        withheld = not any(key in record.metrics for key in keys)
        lines.append(
            ("INCOMPLETE: metrics withheld" if withheld else "INCOMPLETE: values count unresolved verdicts as wrong")
            + "; range if every unresolved verdict were wrong .. right"
        )
        header = header.ljust(width + 6 + interval_width * (2 if bayes else 1)) + "   range"
    lines.append(header)
    for key in keys:
        row = key.ljust(width) + (f"{record.metrics[key]:6.2f}" if key in record.metrics else f"{'-':>6}")
        if key in uncertainty:
            row += f"   [{uncertainty[key].low:.2f}, {uncertainty[key].high:.2f}]"
        if key in bayes:
            row = row.ljust(width + 6 + interval_width) + f"   [{bayes[key].low:.2f}, {bayes[key].high:.2f}]"
        if key in bounds:
            low, high = bounds[key]
            row = row.ljust(width + 6 + interval_width * (2 if bayes else 1)) + f"   [{low:.2f}, {high:.2f}]"
        lines.append(row.rstrip())
    stats = info.judge_stats or {}
    if stats:
        lines.append(
            f"judged {stats['total']} generations: {stats['unique']} distinct, {stats['cached']} from "
            f"cache, {stats['requests']} requests ({stats['retries']} retries), "
            f"{stats['unresolved']} unresolved"
        )
    lines += [line for line in (cut_line(record), curtail_line(record)) if line is not None]
    return "\n".join(lines)
