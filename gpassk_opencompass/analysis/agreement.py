"""``gpassk agree``: how much two judges agree on the same generations, and where they differ.

Two results files of the *same generations* judged twice (checked by each question's ``generations_sha256``,
else by the extracted answers), or one cascade file (rule verdict vs the model's on the items sent on). Every
generation is an item; the table and kappa count what both judges resolved, the metric shift is withheld when
a side has unresolved verdicts. See docs/uncertainty.md, "gpassk agree".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gpassk_opencompass import defaults
from gpassk_opencompass.analysis.inputs import check_outputs, load_with_details, match_questions
from gpassk_opencompass.checks import examples
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges.kinds import CACHE, CASCADE, LLM, RULE
from gpassk_opencompass.judges.types import Verdict
from gpassk_opencompass.log import logger
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS
from gpassk_opencompass.render import require_extra
from gpassk_opencompass.render.reports import to_markdown, write_report
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.uncertainty.agreement import JudgeAgreement, MetricShift, judge_agreement, metric_shift

#: Model-verdict sources of a cascade (``cache``: a model verdict read back from the judge cache).
MODEL_SOURCES = (LLM, CACHE)


@dataclass(frozen=True)
class JudgeSide:
    """One of the two judges compared.

    Attributes:
        name: how the report names it (``rule``, ``llm judge-model (prompt v2)``).
        source: the results file it was read from.
        unresolved: items of the selection this judge left unresolved.
    """

    name: str
    source: str
    unresolved: int


@dataclass(frozen=True)
class Disagreement:
    """One generation the two judges see differently (or only one of them resolved).

    Attributes:
        question: the question id.
        generation: the generation's index within the question (0-based).
        correct_a: judge A's verdict (``None``: unresolved).
        correct_b: judge B's.
        extracted_a: the answer judge A saw (``None``: none extracted).
        extracted_b: the answer judge B saw.
        reason_a: judge A's reason (empty when not recorded).
        reason_b: judge B's.
    """

    question: str
    generation: int
    correct_a: bool | None
    correct_b: bool | None
    extracted_a: str | None
    extracted_b: str | None
    reason_a: str
    reason_b: str


@dataclass(frozen=True)
class AgreementReport:
    """The answer of ``gpassk agree``.

    Attributes:
        judge_a: the first judge (the rule judge for one cascade file).
        judge_b: the second judge.
        mode: ``"two files"`` or ``"cascade"``.
        selection: which items the table counts, in words.
        questions: questions compared.
        items: items in the selection.
        agreement: the table, agreement and kappa.
        shifts: every metric under A and B (empty when withheld).
        shifts_withheld: why the shifts are withheld (``None`` when given).
        disagreements: items resolved by both with different verdicts, then
            items resolved by one only, in question order.
        gold_recorded: whether the results carry gold answers (not yet: the
            disagreements then show extracted answers and reasons only).
    """

    judge_a: JudgeSide
    judge_b: JudgeSide
    mode: str
    selection: str
    questions: int
    items: int
    agreement: JudgeAgreement
    shifts: tuple[MetricShift, ...]
    shifts_withheld: str | None
    disagreements: tuple[Disagreement, ...]
    gold_recorded: bool = False
    #: The ``schema`` of its JSON (:mod:`gpassk_opencompass.render.reports`).
    schema: ClassVar[str] = "gpassk-agree/1"

    @property
    def complete(self) -> bool:
        """No item of the selection is unresolved on either side."""
        return self.judge_a.unresolved == 0 and self.judge_b.unresolved == 0


def judge_name(results: ResultsFile) -> str:
    """How a results file's judge is named in a report.

    >>> from gpassk_opencompass.scoring.results_io import read_results
    >>> judge_name(read_results({"gpassk": {"judge": "llm", "judge_model": "J", "prompt_version": "v2"}}))
    'llm J (prompt v2)'
    >>> judge_name(read_results({"gpassk": {"judge": "rule"}}))
    'rule'
    """
    info = results.gpassk
    parts = [str(info.judge or "unknown judge")]
    if info.judge_model:
        parts.append(str(info.judge_model))
    if info.prompt_version:
        parts.append(f"(prompt {info.prompt_version})")
    return " ".join(parts)


def _aligned_questions(a: ResultsFile, b: ResultsFile) -> list[tuple]:
    """``(question of A, question of B)`` pairs in A's order; one-line ``InputError`` unless ids and n match."""
    ids_a, ids_b = a.question_ids(), b.question_ids()
    for results, ids in ((a, ids_a), (b, ids_b)):
        if len(set(ids)) != len(ids):
            repeated = sorted({question for question in ids if ids.count(question) > 1})
            raise InputError(f"{results.source}: repeats question ids ({examples(repeated)})")
    by_id = {question.id: question for question in b.details}
    only_a = [question for question in ids_a if question not in by_id]
    only_b = [question for question in ids_b if question not in set(ids_a)]
    if only_a or only_b:
        raise InputError(
            f"the two results files do not hold the same questions: {len(only_a)} only in "
            f"{a.source} ({examples(only_a)}), {len(only_b)} only in {b.source} "
            f"({examples(only_b)}); agreement needs the same generations judged twice"
        )
    pairs = []
    for question in a.details:
        other = by_id[question.id]
        if question.n != other.n or len(question.verdicts) != len(other.verdicts):
            raise InputError(
                f"question {question.id!r} has n={question.n} in {a.source} but n={other.n} in "
                f"{b.source}; agreement needs the same generations judged twice"
            )
        if len(question.verdicts) != question.n:
            raise InputError(
                f"{a.source}: question {question.id!r} records {len(question.verdicts)} verdicts "
                f"for n={question.n}; agreement needs every verdict"
            )
        pairs.append((question, other))
    _check_same_generations(pairs, a.source, b.source)
    return pairs


def _check_same_generations(pairs: list[tuple], source_a: str, source_b: str) -> None:
    """Refuse (one-line ``InputError``) two files whose generations differ: by the questions' digests of their
    generations, else by the extracted answers both record; warn when neither can be checked."""
    fix = (
        "agree compares two judges over the same generations (judge one run twice: gpassk rejudge RUN "
        "--judge ..., or gpassk score the same file with another --judge); to compare two models use "
        "gpassk compare"
    )
    digested = [(qa, qb) for qa, qb in pairs if qa.generations_sha256 and qb.generations_sha256]
    differ = [qa.id for qa, qb in digested if qa.generations_sha256 != qb.generations_sha256]
    if differ:
        raise InputError(
            f"{source_a} and {source_b} hold different generations: {len(differ)} of {len(digested)} "
            f"questions differ ({examples(differ)}); {fix}"
        )
    answers = [
        (qa.id, g, va.extracted, vb.extracted)
        for qa, qb in pairs
        if not (qa.generations_sha256 and qb.generations_sha256)
        for g, (va, vb) in enumerate(zip(qa.verdicts, qb.verdicts))
        if va.extracted is not None and vb.extracted is not None
    ]
    differ_answers = [(question, g, x, y) for question, g, x, y in answers if x != y]
    if differ_answers:
        question, g, x, y = differ_answers[0]
        raise InputError(
            f"{source_a} and {source_b} hold different generations: the extracted answers of "
            f"{len(differ_answers)} of {len(answers)} generations differ (question {question!r} "
            f"generation {g}: {x!r} vs {y!r}; or they were extracted by different gpassk versions: "
            f"score both again with this one); {fix}"
        )
    unchecked = [
        qa.id
        for qa, qb in pairs
        if not (qa.generations_sha256 and qb.generations_sha256)
        and not any(va.extracted is not None and vb.extracted is not None for va, vb in zip(qa.verdicts, qb.verdicts))
    ]
    if unchecked:
        logger.warning(
            f"cannot check that {source_a} and {source_b} hold the same generations for {len(unchecked)} "
            f"question(s) ({examples(unchecked)}): they record neither digests of the generations nor "
            "extracted answers to compare; the report assumes the same generations"
        )


def _shared(first, second, default) -> list:
    """Values both files record (in the first's order), else the first's, else ``default``."""
    both = [value for value in first if value in set(second)]
    return list(both or first or default)


def _shifts(
    correct_a: list, correct_b: list, n: np.ndarray, ks, thresholds, sides: tuple[JudgeSide, JudgeSide]
) -> tuple[tuple[MetricShift, ...], str | None]:
    """Per-question counts of each side's verdicts -> the metric shifts, or why they are withheld."""
    missing = [f"{side.name} left {side.unresolved} unresolved" for side in sides if side.unresolved]
    if missing:
        return (), ("withheld: " + " and ".join(missing) + " (a metric would count them as wrong)")
    ks = [k for k in ks if k <= int(n.min())]
    counts_a = np.array([sum(verdict is True for verdict in row) for row in correct_a])
    counts_b = np.array([sum(verdict is True for verdict in row) for row in correct_b])
    shifts = metric_shift(counts_a, counts_b, n=n, k=ks, thresholds=thresholds)
    return tuple(shifts.values()), None


def _report(
    pairs: list[tuple[str, int, Verdict, Verdict, bool | None, bool | None]],
    sides: tuple[str, str],
    sources: tuple[str, str],
    ci: float,
) -> tuple:
    """Agreement and disagreements of the selected items ``(question, generation, record A, record B, a, b)``."""
    verdicts_a = np.array([item[4] for item in pairs], dtype=object)
    verdicts_b = np.array([item[5] for item in pairs], dtype=object)
    agreement = judge_agreement(verdicts_a, verdicts_b, ci=ci)
    side_a = JudgeSide(sides[0], sources[0], agreement.unresolved_a)
    side_b = JudgeSide(sides[1], sources[1], agreement.unresolved_b)
    differing = [item for item in pairs if item[4] is not None and item[5] is not None and item[4] != item[5]]
    one_sided = [item for item in pairs if (item[4] is None) != (item[5] is None)]
    listed = tuple(
        Disagreement(
            question=question,
            generation=generation,
            correct_a=a,
            correct_b=b,
            extracted_a=record_a.extracted,
            extracted_b=record_b.extracted,
            reason_a=record_a.reason,
            reason_b=record_b.reason,
        )
        for question, generation, record_a, record_b, a, b in differing + one_sided
    )
    return agreement, side_a, side_b, listed


def agree_results(a: ResultsFile, b: ResultsFile | None = None, *, ci: float = defaults.CI) -> AgreementReport:
    """Compare two judges: two results files of the same generations, or the two stages of one cascade file.

    Args:
        a: judge A's results (with ``details``), or one cascade results file when ``b`` is ``None``.
        b: judge B's results of the same questions and generations.
        ci: the level of kappa's interval.

    Raises:
        InputError: one line: the files hold different questions or n, a
            question lacks verdicts, or (one file) it was not judged by the
            cascade or records no rule verdicts.
    """
    if b is None:
        return _cascade_report(a, ci)
    pairs = _aligned_questions(a, b)
    items = [
        (qa.id, g, ra, rb, ra.correct, rb.correct)
        for qa, qb in pairs
        for g, (ra, rb) in enumerate(zip(qa.verdicts, qb.verdicts))
    ]
    agreement, side_a, side_b, listed = _report(items, (judge_name(a), judge_name(b)), (a.source, b.source), ci=ci)
    n = np.array([qa.n for qa, _ in pairs])
    shifts, withheld = _shifts(
        [[v.correct for v in qa.verdicts] for qa, _ in pairs],
        [[v.correct for v in qb.verdicts] for _, qb in pairs],
        n,
        _shared(a.ks, b.ks, ()),
        _shared(a.thresholds, b.thresholds, DEFAULT_THRESHOLDS),
        (side_a, side_b),
    )
    return AgreementReport(
        judge_a=side_a,
        judge_b=side_b,
        mode="two files",
        selection=f"all {len(items)} generations of {len(pairs)} questions",
        questions=len(pairs),
        items=len(items),
        agreement=agreement,
        shifts=shifts,
        shifts_withheld=withheld,
        disagreements=listed,
    )


def _cascade_report(results: ResultsFile, ci: float) -> AgreementReport:
    judge = results.gpassk.judge
    if judge != CASCADE:
        raise InputError(
            f"{results.source} was judged by {judge!r}, not the cascade; one file compares the "
            "cascade's rule judge with its model, two files (A B) compare any two judges"
        )
    for question in results.details:
        if len(question.verdicts) != question.n:
            raise InputError(
                f"{results.source}: question {question.id!r} records {len(question.verdicts)} "
                f"verdicts for n={question.n}; agreement needs every verdict"
            )
    asked = [(q.id, g, v) for q in results.details for g, v in enumerate(q.verdicts) if v.source in MODEL_SOURCES]
    if asked and all(verdict.rule_correct is None for _, _, verdict in asked):
        raise InputError(
            f"{results.source}: none of its {len(asked)} model verdicts records the rule judge's "
            "verdict (rule_correct; written by an older gpassk?): score it again with --judge "
            "cascade, or give two results files"
        )
    items = [(qid, g, _rule_record(v), v, v.rule_correct, v.correct) for qid, g, v in asked]
    model = results.gpassk.judge_model or "model"
    agreement, side_a, side_b, listed = _report(
        items, ("rule (cascade stage 1)", f"llm {model} (cascade stage 2)"), (results.source, results.source), ci=ci
    )
    rows_rule = [
        [v.rule_correct if v.source in MODEL_SOURCES else v.correct for v in q.verdicts] for q in results.details
    ]
    rows_cascade = [[v.correct for v in q.verdicts] for q in results.details]
    rule_unresolved = sum(value is None for row in rows_rule for value in row)
    cascade_unresolved = sum(value is None for row in rows_cascade for value in row)
    n = np.array([q.n for q in results.details])
    shifts, withheld = _shifts(
        rows_rule,
        rows_cascade,
        n,
        results.ks,
        results.thresholds or DEFAULT_THRESHOLDS,
        (JudgeSide("the rule judge", "", rule_unresolved), JudgeSide("the cascade", "", cascade_unresolved)),
    )
    total = sum(len(q.verdicts) for q in results.details)
    return AgreementReport(
        judge_a=side_a,
        judge_b=side_b,
        mode="cascade",
        selection=(
            f"the {len(items)} of {total} generations the rule judge did not confirm (sent on to the "
            f"model); the other {total - len(items)} were confirmed by the rule judge alone"
        ),
        questions=len(results.details),
        items=len(items),
        agreement=agreement,
        shifts=shifts,
        shifts_withheld=withheld,
        disagreements=listed,
    )


def _rule_record(verdict: Verdict) -> Verdict:
    """The rule judge's side of a cascade model verdict: the same extracted answer, its verdict, no reason."""
    return Verdict(verdict.rule_correct, verdict.extracted, "", RULE)


@dataclass(frozen=True)
class Answer:
    """What an analysis command prints and whether its answer is complete."""

    text: str
    complete: bool


def agree(
    path_a: str | os.PathLike,
    path_b: str | os.PathLike | None = None,
    *,
    ci: float = defaults.CI,
    json_path=None,
    html_path=None,
    markdown_path=None,
    limit: int = 50,
    match_by: str = "id",
) -> Answer:
    """``gpassk agree``: read, compare, write the requested files; the Markdown report to print.

    Args:
        path_a: judge A's results file (or one cascade results file).
        path_b: judge B's results file, or ``None``.
        ci: the level of kappa's interval.
        json_path, html_path, markdown_path: where to write the full report (``None``: not written).
        limit: disagreeing items listed in the printed Markdown (the files list all).
        match_by: pair the two files' questions by ``"id"`` or by ``"position"``
            (:func:`~gpassk_opencompass.analysis.inputs.match_questions`).
    """
    check_outputs(
        {"RESULTS_A": path_a, "RESULTS_B": path_b},
        {"--json": json_path, "--html": html_path, "--markdown": markdown_path},
    )
    require_extra("--html", html_path, "jinja2")
    a = load_with_details(path_a)
    b = None if path_b is None else match_questions(a, load_with_details(path_b), match_by, pair=_aligned_questions)
    report = agree_results(a, b, ci=ci)
    write_report(report, json_path=json_path, markdown_path=markdown_path, html_path=html_path)
    return Answer(to_markdown(report, limit=limit), report.complete)
