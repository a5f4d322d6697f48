"""The console text of the commands that print a table or a status: ``gpassk calc``, ``gpassk data check``,
``gpassk grid status``.

Each is a pure function of the data a command computed (a metrics dict, the data checks, a config's
status); the command only prints what it returns. The data types are named in annotations only.

>>> print(metric_table({"G-Pass@4_0.5": 71.5, "mG-Pass@4": 16.2}, [4], [0.5], 0.01, 3, "t"))
t
metric         k=4
G-Pass@k_0.5   0.715
mG-Pass@k      0.162
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpassk_opencompass.metrics import metric_key, mg_metric_key
from gpassk_opencompass.redaction import redact

if TYPE_CHECKING:
    from gpassk_opencompass.grid.status import Progress, RunStatus
    from gpassk_opencompass.plugin.data_check import BenchmarkCheck

#: The severities of a data check's problems, in the order the summary counts them.
_SEVERITIES = ("error", "warning")


def metric_table(
    result: dict[str, float], ks: Sequence[int], thresholds: Sequence[float], scale: float, digits: int, title: str
) -> str:
    """``gpassk calc``'s table: one row per threshold plus an mG-Pass row, one column per k."""
    rows = [(f"G-Pass@k_{float(tau)}", [result[metric_key(k, tau)] for k in ks]) for tau in thresholds]
    rows.append(("mG-Pass@k", [result[mg_metric_key(k)] for k in ks]))
    cells = [[f"{value * scale:.{digits}f}" for value in values] for _, values in rows]
    width = max(len(label) for label, _ in rows) + 3
    column = max(len(f"k={k}") for k in ks)
    column = max([column] + [len(cell) for row in cells for cell in row]) + 2
    lines = [title, "metric".ljust(width) + "".join(f"k={k}".ljust(column) for k in ks).rstrip()]
    for (label, _), row in zip(rows, cells):
        lines.append(label.ljust(width) + "".join(cell.ljust(column) for cell in row).rstrip())
    return "\n".join(lines)


def _count(count: int | None) -> str:
    """A question count for the table, ``-`` when unknown."""
    return "-" if count is None else str(count)


def data_check_report(checks: Sequence[BenchmarkCheck], environment: str) -> str:
    """``gpassk data check``'s report: the table, each benchmark's places and parts, the problems, a summary.

    Args:
        checks: what the check found, one per benchmark.
        environment: where the loaders look (``'COMPASS_DATA_CACHE=/c, DATASET_SOURCE not set'``).

    >>> from gpassk_opencompass.plugin.data_check import BenchmarkCheck, Part
    >>> check = BenchmarkCheck("AIME2025", "local", "/c/data/aime2025/aime2025.jsonl",
    ...                        ("/c/data/aime2025/aime2025.jsonl (found)",),
    ...                        (Part("all", "/c/data/aime2025/aime2025.jsonl", 15),), 15, ())
    >>> print(data_check_report([check], "COMPASS_DATA_CACHE=/c, DATASET_SOURCE not set"))
    COMPASS_DATA_CACHE=/c, DATASET_SOURCE not set
    <BLANKLINE>
    benchmark  status  questions  published  source  location
    AIME2025   ok             15         15  local   /c/data/aime2025/aime2025.jsonl
    <BLANKLINE>
    AIME2025
      looked at: /c/data/aime2025/aime2025.jsonl (found)
      questions: all 15
    <BLANKLINE>
    1 of 1 benchmarks usable
    """
    rows = [("benchmark", "status", "questions", "published", "source", "location")]
    rows += [
        (
            check.benchmark,
            check.status,
            _count(check.questions),
            _count(check.expected),
            check.source,
            check.where or "-",
        )
        for check in checks
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    right = {2, 3}
    table = [
        "  ".join(
            (cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]
    details = []
    for check in checks:
        details += ["", check.benchmark, f"  looked at: {'; '.join(check.looked_at)}"]
        if check.parts:
            details.append(
                "  questions: " + ", ".join(f"{part.label} {_count(part.questions)}" for part in check.parts)
            )
    problems = [str(problem) for check in checks for problem in check.problems]
    usable = sum(check.usable for check in checks)
    severities = Counter(problem.severity for check in checks for problem in check.problems)
    counts = [f"{severities[severity]} {severity}(s)" for severity in _SEVERITIES if severities[severity]]
    summary = f"{usable} of {len(checks)} benchmarks usable" + (f"; {', '.join(counts)}" if counts else "")
    hub = [check.benchmark for check in checks if check.source == "hf"]
    if hub:
        summary += f"; not verified (Hugging Face, nothing downloaded): {', '.join(hub)}"
    lines = [redact(environment), "", *table, *details, ""]
    if problems:
        lines += [*problems, ""]
    return redact("\n".join([*lines, summary]))


def grid_status_line(status: RunStatus) -> str:
    """``gpassk grid status``: one line per config, its state and stem, then where to look; how far a running one is.

    >>> from pathlib import Path
    >>> from gpassk_opencompass.grid.status import FAILED, RUNNING, Bar, GridRun, Progress, RunStatus
    >>> run = GridRun(Path("m@d.py"), "m", "d")
    >>> grid_status_line(RunStatus(run, FAILED, Path("w/m@d/20250101_000000"), log=Path("w/x.out"), detail="boom"))
    'failed      m@d  log: w/x.out  (boom)'
    >>> grid_status_line(RunStatus(run, RUNNING, detail="launched by pid 7",
    ...                            progress=Progress("inferring", Bar("", 4, 8, "00:02", "it"), saved=32)))
    'running     m@d  (launched by pid 7; inferring: 4 of 8 batches, 32 answers saved, ~00:02 left)'
    >>> grid_status_line(RunStatus(run, RUNNING, detail="launched by pid 7", rounds=("done", "running")))
    'running     m@d  (round 1 done, round 2 running; launched by pid 7)'
    """
    line = f"{status.state:<11} {status.run.stem}"
    if status.log is not None:
        line += f"  log: {status.log}"
    parts = (rounds_text(status.rounds), status.detail, _progress(status.progress))
    detail = "; ".join(part for part in parts if part)
    if detail:
        line += f"  ({detail})"
    return line


def rounds_text(rounds: Sequence[str]) -> str:
    """A curtailed run's rounds in words (``''`` for a fixed n).

    >>> rounds_text(("done", "running")), rounds_text(("done", "missing")), rounds_text(("done", "not needed"))
    ('round 1 done, round 2 running', 'round 1 done, round 2 not started', 'round 1 done, round 2 not needed')
    """
    return ", ".join(
        f"round {number} {'not started' if state == 'missing' else state}" for number, state in enumerate(rounds, 1)
    )


#: What the bar of each stage counts, by tqdm's unit (the infer task's ``it`` are its batches).
_COUNTED = {"it": "batches", "answer": "answers", "verdict": "verdicts"}


def _progress(progress: Progress | None) -> str:
    """How far a running config has got, in words (``''`` for none).

    >>> from gpassk_opencompass.grid.status import Bar, Progress
    >>> _progress(Progress("evaluating", Bar("rule judge", 9, 13, "00:01", "answer")))
    'evaluating: rule judge 9 of 13 answers, ~00:01 left'
    >>> _progress(Progress("inferring", Bar("", 1, 40, "00:42", "it"), saved=1))  # seen in a real run at its start
    'inferring: 1 of 40 batches, 1 answer saved, ~00:42 left'
    >>> _progress(Progress("inferred")), _progress(Progress("starting"))
    ('every answer inferred; the evaluation has not started', 'starting: no task log yet')
    """
    if progress is None:
        return ""
    if progress.stage == "starting":
        return "starting: no task log yet"
    if progress.stage == "inferred":
        return "every answer inferred; the evaluation has not started"
    bar, parts = progress.bar, []
    if bar is not None:
        counted = _COUNTED.get(bar.unit, bar.unit or "steps")
        parts.append(f"{bar.desc + ' ' if bar.desc else ''}{bar.done} of {bar.total} {counted}")
    if progress.saved is not None:
        parts.append(f"{progress.saved} answer{'' if progress.saved == 1 else 's'} saved")
    if bar is not None and bar.left is not None and bar.done < bar.total:
        parts.append(f"~{bar.left} left")
    return progress.stage + (f": {', '.join(parts)}" if parts else "")


def grid_summary(statuses: Sequence[RunStatus], states: Sequence[str]) -> str:
    """``'3 configs: 1 done, 1 failed, 1 missing'``: the configs in each of ``states``, in that order, zeros left out.

    >>> from pathlib import Path
    >>> from gpassk_opencompass.grid.status import DONE, FAILED, MISSING, STATES, GridRun, RunStatus
    >>> run = GridRun(Path("a.py"), "m", "d")
    >>> grid_summary([RunStatus(run, MISSING), RunStatus(run, DONE), RunStatus(run, FAILED)], STATES)
    '3 configs: 1 done, 1 failed, 1 missing'
    """
    counts = Counter(status.state for status in statuses)
    parts = [f"{counts[state]} {state}" for state in states if counts[state]]
    return f"{len(statuses)} config{'s' if len(statuses) != 1 else ''}: {', '.join(parts)}"
