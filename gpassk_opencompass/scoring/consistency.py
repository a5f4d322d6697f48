"""Whether a results document can be believed: its values in range and reproduced by its own details.

:func:`results_problems` (recorded by :func:`~gpassk_opencompass.scoring.results_io.read_results` as
:attr:`~gpassk_opencompass.scoring.results.ResultsFile.problems`) gives one sentence per kind of problem: a
percentage out of [0, 100] or not finite, impossible per-question counts, a document contradicting itself
(completeness, n, questions, interval ends, k > n, cut generations), or a metric its per-question ``details``
do not reproduce within :data:`TOLERANCE` points. Empty for a document as this package writes it.

>>> details = [{"id": "q1", "c": 1, "n": 2}, {"id": "q2", "c": 2, "n": 2}]
>>> from gpassk_opencompass.scoring.results_io import read_results
>>> read_results({"accuracy (2 runs average)": 75.0, "mG-Pass@2": 50.0, "details": details}).problems
()
>>> for problem in read_results({"accuracy (2 runs average)": 150.0, "mG-Pass@2": 95.0, "details": details}).problems:
...     print(problem)
accuracy (2 runs average) = 150 is outside [0, 100]
mG-Pass@2 = 95 but its per-question details give 50
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import METRIC_KEY
from gpassk_opencompass.scoring.compute import gpassk_results
from gpassk_opencompass.scoring.details import CompactDetails
from gpassk_opencompass.scoring.results import ResultsFile

#: A recorded metric and the value its details give may differ by this many points (x 100 scale):
#: far above float rounding, far below any hand edit worth catching.
TOLERANCE = 0.01


def is_percentage_key(key: str) -> bool:
    """Whether a results key names one of this package's percentages (overall or per subset).

    >>> is_percentage_key("G-Pass@16_0.5"), is_percentage_key("en/accuracy (8 runs average)"), is_percentage_key("bleu")
    (True, True, False)
    """
    return METRIC_KEY.fullmatch(key) is not None


def results_problems(record: ResultsFile) -> tuple[str, ...]:
    """Every reason not to believe ``record``, one sentence each; ``()`` when none."""
    problems = [
        f"{key} is {value!r}, not a finite percentage"
        for key, value in (record.model_extra or {}).items()
        if is_percentage_key(str(key)) and not math.isfinite(value)
    ]
    ranges = [(key, value) for key, value in record.metrics.items() if is_percentage_key(key)]
    ranges += [
        (f"gpassk.uncertainty[{key!r}] {end}", value)
        for key, entry in record.uncertainty.items()
        for end, value in (("ci_low", entry.low), ("ci_high", entry.high))
    ]
    ranges += [(f"gpassk.bounds[{key!r}]", value) for key, pair in record.bounds.items() for value in pair]
    problems += [f"{key} = {value:g} is outside [0, 100]" for key, value in ranges if not 0 <= value <= 100]
    problems += _contradictions(record)
    impossible = _impossible_counts(record.details)
    if impossible:
        return tuple([*problems, impossible])
    if record.details:
        problems += _unreproduced(record)
    return tuple(problems)


def _contradictions(record: ResultsFile) -> list[str]:
    """Where the document contradicts itself: ``complete`` against the unresolved verdicts of its details, ``n``
    and ``questions`` against the details, an interval whose low end is above its high end, a k above n."""
    problems = []
    details = record.details
    block = record.gpassk
    unresolved = _unresolved_verdicts(details)
    if unresolved and block.complete:
        problems.append(f"gpassk.complete is true but its details hold {unresolved} unresolved verdict(s)")
    recorded = [count for count in (record.recorded_unresolved, block.unresolved) if count is not None]
    if details and any(count != unresolved for count in recorded):
        problems.append(f"unresolved = {max(recorded)} but its details hold {unresolved} unresolved verdict(s)")
    ns = sorted({question.n for question in details})
    if block.n is not None and ns and ns != [block.n]:
        problems.append(f"gpassk.n = {block.n} but its details have n = {', '.join(map(str, ns[:3]))}")
    if block.questions is not None and details and block.questions != len(details):
        problems.append(f"gpassk.questions = {block.questions} but it has {len(details)} question details")
    intervals = [(f"gpassk.uncertainty[{key!r}]", entry.low, entry.high) for key, entry in record.uncertainty.items()]
    intervals += [(f"gpassk.bayes[{key!r}]", entry.low, entry.high) for key, entry in record.bayes.items()]
    intervals += [(f"gpassk.bounds[{key!r}]", low, high) for key, (low, high) in record.bounds.items()]
    problems += [
        f"{name} has its low end {low:g} above its high end {high:g}" for name, low, high in intervals if low > high
    ]
    problems += _cut_contradictions(record)
    problems += _curtail_contradictions(record)
    n = min(ns) if ns else block.n
    keys = [match for key in record.metrics if (match := METRIC_KEY.fullmatch(key)) and match["k"] is not None]
    ks = sorted({*record.ks, *(int(match["k"]) for match in keys)})
    if n is not None and ks and ks[-1] > n:
        problems.append(f"k = {ks[-1]} is above n = {n} (G-Pass@k needs k <= n)")
    return problems


def _cut_contradictions(record: ResultsFile) -> list[str]:
    """``gpassk.cut`` against itself and the details: at most its generations, its source as its recorded count
    says, the sums of ``details[].n``, ``cut`` and ``no_answer`` (where every question has them).

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> cut = {"generations": 4, "cut": 3, "no_answer": 2, "recorded": 0, "source": "finish_reason"}
    >>> for problem in read_results({"gpassk": {"schema_version": 3, "cut": cut},
    ...                              "details": [{"id": "q", "c": 0, "n": 4, "cut": 1, "no_answer": 0}]}).problems:
    ...     print(problem)
    gpassk.cut: cut + no_answer = 3 + 2 > its 4 generations
    gpassk.cut: source 'finish_reason' but 0 of its 4 generations have a recorded stop reason
    gpassk.cut = 3 but its details hold 1 cut generation(s)
    gpassk.cut.no_answer = 2 but its details hold 0
    """
    cut = record.cut
    if cut is None:
        return []
    problems = []
    if cut.cut + cut.no_answer > cut.generations:
        problems.append(
            f"gpassk.cut: cut + no_answer = {cut.cut} + {cut.no_answer} > its {cut.generations} generations"
        )
    expected = "finish_reason" if cut.recorded == cut.generations else "extraction" if cut.recorded == 0 else "mixed"
    if cut.recorded > cut.generations or cut.source != expected:
        problems.append(
            f"gpassk.cut: source {cut.source!r} but {cut.recorded} of its {cut.generations} generations have a "
            "recorded stop reason"
        )
    details = record.details
    if not details:
        return problems
    if sum(question.n for question in details) != cut.generations:
        problems.append(
            f"gpassk.cut counts {cut.generations} generations but its details hold {sum(q.n for q in details)}"
        )
    counted = [question for question in details if question.cut is not None and question.no_answer is not None]
    if len(counted) == len(details):
        details_cut = sum(question.cut for question in counted)  # type: ignore[misc]  # not None: filtered
        details_no_answer = sum(question.no_answer for question in counted)  # type: ignore[misc]
        if details_cut != cut.cut:
            problems.append(f"gpassk.cut = {cut.cut} but its details hold {details_cut} cut generation(s)")
        if details_no_answer != cut.no_answer:
            problems.append(f"gpassk.cut.no_answer = {cut.no_answer} but its details hold {details_no_answer}")
    return problems


def _curtail_contradictions(record: ResultsFile) -> list[str]:
    """``gpassk.curtail`` against the details: what it says was drawn and stopped, each question's n1 or n.

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> block = {"n1": 2, "n": 4, "rule": "all-wrong", "stopped": 0, "generations": 6, "fixed_n_generations": 8}
    >>> for problem in read_results({"gpassk": {"schema_version": 4, "curtail": block},
    ...                              "details": [{"id": "q", "c": 0, "n": 2}, {"id": "r", "c": 1, "n": 3}]}).problems:
    ...     print(problem)
    gpassk.curtail says 6 generations drawn, 0 questions stopped, 8 for a fixed n; its details give 5, 2, 8
    question 'r' has 3 generations; curtailed at 2 of 4 each has 2 (stopped) or 4 (drawn on)
    """
    block, details = record.gpassk.curtail, record.details
    if block is None or not details:
        return []
    n = np.array([question.n for question in details])
    said = (block.generations, block.stopped, block.fixed_n_generations)
    found = (int(n.sum()), int(np.sum(n < block.n)), len(details) * block.n)
    problems = []
    if said != found:
        problems.append(
            f"gpassk.curtail says {said[0]} generations drawn, {said[1]} questions stopped, {said[2]} for a fixed n; "
            f"its details give {', '.join(map(str, found))}"
        )
    try:
        block.design.check_drawn(n, [question.id for question in details])
    except InputError as error:
        problems.append(str(error))
    return problems


def _unresolved_verdicts(details: Sequence) -> int:
    """The unresolved verdicts of ``details``: counted from the verdicts where a question has them."""
    if isinstance(details, CompactDetails):  # an array counted once from its verdicts
        return int(details.unresolved.sum())
    return sum(
        sum(verdict.correct is None for verdict in question.verdicts) if question.verdicts else question.unresolved
        for question in details
    )


def _impossible_counts(details: Sequence) -> str | None:
    """One sentence on the questions whose counts cannot be (n < 1, c > n, c + unresolved > n,
    cut + no_answer > n), or ``None``."""
    bad = []
    for question in details:
        if question.n < 1:
            bad.append(f"question {question.id!r} has n = {question.n}")
        elif question.c > question.n:
            bad.append(f"question {question.id!r} has c = {question.c} > n = {question.n}")
        elif question.c + question.unresolved > question.n:
            bad.append(
                f"question {question.id!r} has c + unresolved = {question.c} + {question.unresolved} > n = {question.n}"
            )
        elif (question.cut or 0) + (question.no_answer or 0) > question.n:
            bad.append(
                f"question {question.id!r} has cut + no_answer = {question.cut or 0} + {question.no_answer or 0} "
                f"> n = {question.n}"
            )
    if not bad:
        return None
    more = f" (and {len(bad) - 1} more question(s))" if len(bad) > 1 else ""
    return f"impossible details: {bad[0]}{more}"


def _unreproduced(record: ResultsFile) -> list[str]:
    """The recorded metrics the details do not reproduce, as one sentence (or none)."""
    c, n = record.counts()
    keys = [key for key in record.metrics if is_percentage_key(key)]
    if not keys:
        return []
    recorded_ks: set[int] = set()
    thresholds: set[float] = set()
    for match in map(METRIC_KEY.fullmatch, keys):
        if match is not None and match["k"] is not None:
            recorded_ks.add(int(match["k"]))
        if match is not None and match["tau"] is not None:
            thresholds.add(float(match["tau"]))
    ks = sorted(k for k in recorded_ks if k <= int(n.min())) or [1]
    columns = [
        column for column in record.details[0].labels if all(column in question.labels for question in record.details)
    ]
    subsets = {column: [question.labels[column] for question in record.details] for column in columns}
    design = record.design
    try:
        if design is not None:  # the design's own estimator, on the counts it can have produced
            c = design.resolutions(n, c, [question.unresolved for question in record.details])[0]
        computed = gpassk_results(
            c, n, ks, sorted(thresholds) or [1.0], subsets, bootstrap=False, design=design
        ).metrics
    except InputError as error:
        return [f"its per-question details cannot be scored ({error})"]
    off = [
        (key, record.metrics[key], computed[key])
        for key in keys  # out of range: already said
        if key in computed
        and 0 <= record.metrics[key] <= 100
        and not abs(record.metrics[key] - computed[key]) <= TOLERANCE
    ]
    if not off:
        return []
    key, recorded, value = off[0]
    more = f" (and {len(off) - 1} more metric{'s' if len(off) > 2 else ''} off)" if len(off) > 1 else ""
    return [f"{key} = {recorded:g} but its per-question details give {np.round(value, 2):g}{more}"]
