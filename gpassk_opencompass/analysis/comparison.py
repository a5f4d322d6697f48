"""``gpassk compare``: is run A better than run B on the same questions?

The files are aligned by question id (:func:`~gpassk_opencompass.uncertainty.paired.align_runs`), then every
shared metric gets A - B, its paired bootstrap interval and sign-flip p-value
(:func:`~gpassk_opencompass.uncertainty.paired.paired_comparison`). Refused: unresolved verdicts
(:class:`~gpassk_opencompass.errors.IncompleteResults`, exit 3), different benchmarks, and different questions
under the same ids (``question_sha256``). See docs/uncertainty.md, "gpassk compare".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from gpassk_opencompass import defaults
from gpassk_opencompass.analysis.inputs import check_outputs, load_with_details, match_questions
from gpassk_opencompass.checks import examples
from gpassk_opencompass.errors import IncompleteResults, InputError
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS
from gpassk_opencompass.render.reports import to_markdown, write_report
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.uncertainty.paired import AlignedRuns, PairedDifference, align_runs, paired_comparison


@dataclass(frozen=True)
class ComparisonReport:
    """The answer of ``gpassk compare``.

    Attributes:
        run_a: run A's results file.
        run_b: run B's.
        benchmark: the benchmark both record (``None`` when not recorded).
        questions: the shared questions M.
        n: generations per question (``None`` when it varies).
        ks: the k values compared.
        thresholds: the tau values compared.
        differences: one :class:`PairedDifference` per metric, accuracy first.
        n_boot: bootstrap resamples of the questions.
        seed: seed of the bootstrap and the random sign flips.
    """

    run_a: str
    run_b: str
    benchmark: str | None
    questions: int
    n: int | None
    ks: tuple[int, ...]
    thresholds: tuple[float, ...]
    differences: tuple[PairedDifference, ...]
    n_boot: int
    seed: int
    #: The ``schema`` of its JSON (:mod:`gpassk_opencompass.render.reports`).
    schema: ClassVar[str] = "gpassk-compare/1"


def require_complete(results: ResultsFile, purpose: str) -> None:
    """Raise :class:`IncompleteResults` when a results file has unresolved verdicts."""
    if results.unresolved or not results.complete:
        raise IncompleteResults(
            f"{results.source} has {results.unresolved} unresolved verdict(s); {purpose} "
            "would count them as wrong. Resolve them first (rerun the same gpassk score / "
            "OpenCompass evaluation: it re-asks only the missing ones)"
        )


def compare_results(
    a: ResultsFile,
    b: ResultsFile,
    *,
    ci: float = defaults.CI,
    n_boot: int = defaults.N_BOOT_PAIRED,
    n_perm: int = defaults.N_PERM,
    seed: int = 0,
) -> ComparisonReport:
    """Per metric, run A minus run B over their shared questions, with paired interval and p-value.

    Raises:
        IncompleteResults: a run has unresolved verdicts.
        InputError: one line: different benchmarks, questions, n or k.
    """
    aligned = paired_runs(a, b)
    curtailed = a.design is not None or b.design is not None
    ks = tuple(aligned.ks or ())
    thresholds = tuple(sorted(set(a.thresholds) | set(b.thresholds))) or tuple(DEFAULT_THRESHOLDS)
    differences = paired_comparison(
        aligned.counts_a,
        aligned.counts_b,
        aligned.n,
        ks,
        thresholds,
        ci=ci,
        n_boot=n_boot,
        n_perm=n_perm,
        seed=seed,
        designs=(a.design, b.design),
        drawn=(aligned.drawn_a, aligned.drawn_b) if curtailed else None,
    )
    return ComparisonReport(
        run_a=a.source,
        run_b=b.source,
        benchmark=a.benchmark or b.benchmark,
        questions=len(aligned.question_ids),
        n=aligned.n if isinstance(aligned.n, int) else None,
        ks=ks,
        thresholds=tuple(float(t) for t in thresholds),
        differences=tuple(differences.values()),
        n_boot=n_boot,
        seed=seed,
    )


def paired_runs(a: ResultsFile, b: ResultsFile) -> AlignedRuns:
    """The two runs' questions paired for a comparison (:func:`~gpassk_opencompass.uncertainty.align_runs`), after
    every check a comparison needs: both complete, the same benchmark, the same questions under the same ids.

    Raises:
        IncompleteResults: a run has unresolved verdicts.
        InputError: one line: different benchmarks, questions, n or k.
    """
    for results in (a, b):
        require_complete(results, "a comparison")
    bench_a, bench_b = a.benchmark, b.benchmark
    if bench_a and bench_b and bench_a != bench_b:
        raise InputError(f"the runs are of different benchmarks: {a.source} is {bench_a}, {b.source} is {bench_b}")
    _check_same_questions(a, b)
    c_a, drawn_a = a.counts()
    c_b, drawn_b = b.counts()
    curtailed = a.design is not None or b.design is not None
    # a curtailed run stands for its design's n (what its estimates are of); each question keeps its own draws
    n_a, n_b = (drawn if run.design is None else run.design.n for run, drawn in ((a, drawn_a), (b, drawn_b)))
    return align_runs(
        a.question_ids(),
        c_a,
        b.question_ids(),
        c_b,
        n_a=n_a,
        n_b=n_b,
        ks_a=a.ks or None,
        ks_b=b.ks or None,
        drawn_a=drawn_a if curtailed else None,
        drawn_b=drawn_b if curtailed else None,
    )


def _check_same_questions(a: ResultsFile, b: ResultsFile) -> None:
    """Refuse (one line) two runs whose shared question ids name different questions, by their digests."""
    digests = {question.id: question.question_sha256 for question in b.details if question.question_sha256}
    shared = [question for question in a.details if question.question_sha256 and question.id in digests]
    differ = [question.id for question in shared if question.question_sha256 != digests[question.id]]
    if differ:
        raise InputError(
            f"{a.source} and {b.source} hold different questions under the same ids: {len(differ)} "
            f"of {len(shared)} shared questions differ in text or gold answer ({examples(differ)}); "
            "a paired comparison needs both runs scored on the same data"
        )


def compare(
    path_a: str | os.PathLike,
    path_b: str | os.PathLike,
    *,
    ci: float = defaults.CI,
    n_boot: int = defaults.N_BOOT_PAIRED,
    n_perm: int = defaults.N_PERM,
    seed: int = 0,
    json_path=None,
    markdown_path=None,
    match_by: str = "id",
) -> str:
    """``gpassk compare``: read both runs, compare, write the requested files; the Markdown to print.

    ``match_by`` pairs the questions by id or by position (:func:`~gpassk_opencompass.analysis.inputs.match_questions`).
    """
    check_outputs({"RUN_A": path_a, "RUN_B": path_b}, {"--json": json_path, "--markdown": markdown_path})
    a = load_with_details(path_a)
    b = match_questions(a, load_with_details(path_b), match_by, pair=paired_runs)
    report = compare_results(a, b, ci=ci, n_boot=n_boot, n_perm=n_perm, seed=seed)
    write_report(report, json_path=json_path, markdown_path=markdown_path)
    return to_markdown(report)
