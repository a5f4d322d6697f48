"""The viewer's data documents (docs/viewer.md, "Documents"): pure functions of the runs read at start-up.

Every number is a percentage (0-100) as in results files; ``None`` where it is not known. A question's G-Pass@k_tau
is the estimate the results file averages (:func:`~gpassk_opencompass.uncertainty.paired.metric_table`: under a
curtailed design, the design's unbiased estimate), its interval the Bayesian credible interval of that one question
(:func:`~gpassk_opencompass.uncertainty.bayes.bayes_interval_counts`, unresolved verdicts left out of its n); two
runs are compared as ``gpassk compare`` compares them (:func:`~gpassk_opencompass.analysis.comparison.compare_results`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from gpassk_opencompass import __version__
from gpassk_opencompass.analysis.comparison import compare_results
from gpassk_opencompass.errors import IncompleteResults, InputError
from gpassk_opencompass.judges.extraction import extract
from gpassk_opencompass.leaderboard import build_leaderboard, rank_leaderboard
from gpassk_opencompass.leaderboard.records import Leaderboard
from gpassk_opencompass.log import logger
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, metric_key, mg_metric_key
from gpassk_opencompass.render.leaderboard import FLAG, MISSING, format_cut, format_measured
from gpassk_opencompass.uncertainty.bayes import bayes_interval_counts
from gpassk_opencompass.uncertainty.paired import metric_table
from gpassk_opencompass.view.runs import END_CODES, SNIPPET_CHARS, Loaded, ViewRun
from gpassk_opencompass.view.texts import TextStore

#: The version of the documents' shapes (docs/viewer.md).
VERSION = 1
#: Verdict letters of the map's cells; a cut generation is ``C`` whatever its verdict.
CELLS = {True: "R", False: "W", None: "U"}
#: The most pairs of runs the index offers to compare.
MAX_PAIRS = 200
_CUT = END_CODES["cut"]


def _number(value: float | None, digits: int = 4) -> float | None:
    if value is None or not np.isfinite(value):
        return None
    return round(float(value), digits)


def run_k(view_run: ViewRun) -> int | None:
    """The k the run's map and questions show: its largest k that every question's draws allow (the design's
    estimator allows any k up to its n)."""
    ks = sorted(view_run.results.ks, reverse=True)
    fewest = min((question.n for question in view_run.details), default=0)
    for k in ks:
        if view_run.results.design is not None or k <= fewest:
            return k
    return None


def thresholds_of(view_run: ViewRun) -> tuple[float, ...]:
    return view_run.results.thresholds or tuple(float(tau) for tau in DEFAULT_THRESHOLDS)


def question_values(view_run: ViewRun) -> tuple[list[str], np.ndarray] | None:
    """Per question, G-Pass@k_tau per tau then mG-Pass@k at :func:`run_k` (``[0, 1]``); ``None`` without a k."""
    k = run_k(view_run)
    if k is None or not view_run.details:
        return None
    c = np.array([question.c for question in view_run.details])
    n = np.array([question.n for question in view_run.details])
    try:
        keys, values, _, _ = metric_table(c, n, [k], thresholds_of(view_run), False, view_run.results.design)
    except InputError as error:
        logger.warning(f"{view_run.run.results_path}: no per-question G-Pass@{k}: {error}")
        return None
    return keys, values


def run_summary(view_run: ViewRun) -> dict:
    """The index's entry of one run."""
    results, run = view_run.results, view_run.run
    design = results.design
    cut = results.cut
    cut_document = None
    if cut is not None:
        cut_document = {"count": cut.cut, "total": cut.generations, "exact": not cut.lower_bound}
    elif view_run.has_texts:
        cut_document = {
            "count": sum(code == _CUT for code in view_run.ends),
            "total": len(view_run.ends),
            "exact": view_run.finish is not None and all(reason is not None for reason in view_run.finish),
        }
    labels = sorted({value for question in view_run.details for value in question.labels.values()})
    return {
        "id": view_run.id,
        "label": view_run.label,
        "model": run.display_name if view_run.kind != "scored" else None,
        "benchmark": run.benchmark or None,
        "subsets": labels,
        "kind": view_run.kind,
        "claims": list(view_run.claims),
        "design": None if design is None else {"n1": design.n1, "n": design.n, "rule": design.rule},
        "n": results.n,
        "k": list(results.ks),
        "thresholds": list(thresholds_of(view_run)),
        "questions": len(view_run.details),
        "judge": results.gpassk.judge,
        "metrics": {key: _number(value) for key, value in results.metrics.items()},
        "intervals": {key: [_number(value.low), _number(value.high)] for key, value in results.uncertainty.items()},
        "cut": cut_document,
        "unresolved": results.unresolved,
        "has_texts": view_run.has_texts,
        "source": str(run.results_path),
    }


def index_document(loaded: Loaded, pairs: Sequence[tuple[str, str]]) -> dict:
    """The ``index`` document: every run, the leaderboard of the OpenCompass runs, the pairs to compare."""
    return {
        "version": VERSION,
        "title": f"gpassk view: {len(loaded.runs)} run{'s' if len(loaded.runs) != 1 else ''}",
        "generated_by": f"gpassk-opencompass {__version__}",
        "runs": [run_summary(view_run) for view_run in loaded.runs],
        "leaderboard": leaderboard_document(loaded),
        "pairs": [list(pair) for pair in pairs],
    }


def leaderboard_document(loaded: Loaded) -> dict | None:
    """The leaderboard of the OpenCompass runs as ``gpassk leaderboard`` builds and ranks it (``None``: none)."""
    if not loaded.board_runs:
        return None
    try:
        board = build_leaderboard(loaded.board_runs, notices=loaded.notices)
        try:
            board = rank_leaderboard(board)
        except InputError as error:
            logger.warning(f"the leaderboard is not ranked: {error}")
    except InputError as error:
        logger.warning(f"no leaderboard: {error}")
        return None
    return _board(board, {view_run.run.results_path.resolve(): view_run for view_run in loaded.runs})


def _board(board: Leaderboard, by_path: dict) -> dict:
    tables = []
    for table in board.tables:
        rows = []
        for row in table.rows:
            runs: dict[str, str | None] = {"sampled": None, "greedy": None}
            for source in row.sources:
                view_run = by_path.get(source.resolve())
                if view_run is not None:
                    runs["greedy" if view_run.run.greedy else "sampled"] = view_run.id
            cut = format_cut(row.measured).removesuffix(f" {FLAG}")
            measured = format_measured(row.measured)
            rows.append(
                {
                    "label": row.label,
                    "runs": runs,
                    "cells": {
                        label: {
                            "value": _number(cell.value),
                            "low": _number(cell.interval.low) if cell.interval is not None else None,
                            "high": _number(cell.interval.high) if cell.interval is not None else None,
                        }
                        for label, cell in row.cells.items()
                    },
                    "tied_with_next": row.order_uncertain,
                    "cut": None if cut == MISSING else cut,
                    "measured": measured or None,
                    "warnings": list(row.warnings),
                }
            )
        tables.append(
            {"benchmark": table.benchmark, "columns": [column.label for column in board.columns], "rows": rows}
        )
    return {"k": board.k, "tables": tables}


def _cells(view_run: ViewRun, i: int) -> str:
    verdicts = view_run.details[i].verdicts
    span = view_run.generations(i)
    return "".join(
        "C" if view_run.ends[generation] == _CUT else CELLS[verdict.correct]
        for generation, verdict in zip(span, verdicts)
    )


def _disagree(view_run: ViewRun, i: int) -> int | None:
    """Generations whose tool's own verdict (or a cascade's rule verdict) differs from the run's; ``None``: none
    recorded for this question."""
    verdicts = view_run.details[i].verdicts
    span = view_run.generations(i)
    count, recorded = 0, False
    for generation, verdict in zip(span, verdicts):
        other: bool | None = None
        if view_run.tool is not None and view_run.tool[generation]:
            other = view_run.tool[generation] == 2
        elif verdict.rule_correct is not None:
            other = verdict.rule_correct
        if other is not None and verdict.correct is not None:
            recorded = True
            count += other != verdict.correct
    return count if recorded else None


def _gpass_keys(view_run: ViewRun, k: int) -> list[tuple[str, str]]:
    """``(the map's name, the results key)`` of each column of :func:`question_values`."""
    names = [(str(float(tau)), metric_key(k, tau)) for tau in thresholds_of(view_run)]
    return [*names, ("mg", mg_metric_key(k))]


def map_document(view_run: ViewRun, values: tuple[list[str], np.ndarray] | None) -> dict:
    """``runs/RID/map``: one row per question, one cell per generation."""
    k = run_k(view_run)
    columns = _gpass_keys(view_run, k) if k is not None and values is not None else []
    questions = []
    for i, record in enumerate(view_run.details):
        text = view_run.question_texts[i]
        questions.append(
            {
                "i": i,
                "id": record.id,
                "subset": _subset(record),
                "c": record.c,
                "n": record.n,
                "cells": _cells(view_run, i),
                "gpass": {name: _number(100 * values[1][i, column]) for column, (name, _) in enumerate(columns)}
                if values is not None
                else {},
                "snippet": (text or "")[:SNIPPET_CHARS],
                "disagree": _disagree(view_run, i),
            }
        )
    return {"run": view_run.id, "k": k, "thresholds": list(thresholds_of(view_run)), "questions": questions}


def _subset(record) -> str | None:
    labels = record.labels
    return " / ".join(str(value) for value in labels.values()) if labels else None


def question_document(
    view_run: ViewRun, i: int, values: tuple[list[str], np.ndarray] | None, store: TextStore
) -> dict | None:
    """``runs/RID/q/I``: a question, its G-Pass@k_tau with intervals, its answers and every generation's facts."""
    if not 0 <= i < len(view_run.details):
        return None
    record = view_run.details[i]
    span = view_run.generations(i)
    k = run_k(view_run)
    gpass: list[dict] = []
    mg = None
    if k is not None and values is not None:
        resolved = record.n - record.unresolved
        intervals = bayes_interval_counts([record.c], [resolved], k=[k], thresholds=thresholds_of(view_run))
        for column, (name, key) in enumerate(_gpass_keys(view_run, k)):
            value = _number(100 * values[1][i, column])
            if name == "mg":
                mg = value
                continue
            estimate = intervals[key]
            gpass.append(
                {"tau": float(name), "value": value, "low": _number(estimate.low), "high": _number(estimate.high)}
            )
    positions = [int(view_run.texts[generation]) for generation in span]
    texts: list[str | None] = [None] * len(positions)
    needed = [j for j, verdict in enumerate(record.verdicts) if verdict.extracted is None and positions[j] >= 0]
    if needed:
        for j, read in zip(needed, store.read_many([positions[j] for j in needed])):
            texts[j] = read
    generations = []
    for j, (generation, verdict) in enumerate(zip(span, record.verdicts)):
        cut = view_run.ends[generation] == _CUT
        answer = verdict.extracted
        text = texts[j]
        if answer is None and text is not None and not cut:
            answer = extract(text).answer
        generations.append(
            {
                "j": j,
                "answer": answer,
                "verdict": {True: "right", False: "wrong", None: "unresolved"}[verdict.correct],
                "cut": cut,
                "finish_reason": view_run.finish[generation] if view_run.finish is not None else None,
                "chars": view_run.chars[generation] if view_run.chars[generation] >= 0 else None,
                "judge_reply": verdict.reason or None if verdict.source in ("llm", "cache") else None,
                "has_text": positions[j] >= 0,
            }
        )
    return {
        "run": view_run.id,
        "i": i,
        "id": record.id,
        "text": view_run.question_texts[i],
        "gold": view_run.golds[i],
        "subset": _subset(record),
        "c": record.c,
        "n": record.n,
        "gpass": gpass,
        "mg": mg,
        "answers": answers(generations),
        "generations": generations,
    }


def answers(generations: Sequence[dict]) -> list[dict]:
    """The distribution of final answers, most frequent first (``None``: no answer); ``right``: every generation
    with it judged right (``True``), every one wrong (``False``), else ``None``; ``cut``: how many were cut.

    >>> answers([{"answer": "4", "verdict": "right", "cut": False}, {"answer": None, "verdict": "wrong", "cut": True},
    ...          {"answer": "4", "verdict": "right", "cut": False}])
    [{'answer': '4', 'count': 2, 'right': True, 'cut': 0}, {'answer': None, 'count': 1, 'right': False, 'cut': 1}]
    """
    counts = Counter(generation["answer"] for generation in generations)
    out = []
    for answer, count in sorted(counts.items(), key=lambda item: (-item[1], item[0] is None, str(item[0]))):
        verdicts = {generation["verdict"] for generation in generations if generation["answer"] == answer}
        right = True if verdicts == {"right"} else False if verdicts == {"wrong"} else None
        cut = sum(generation["cut"] for generation in generations if generation["answer"] == answer)
        out.append({"answer": answer, "count": count, "right": right, "cut": cut})
    return out


def generation_document(view_run: ViewRun, i: int, j: int, store: TextStore) -> dict | None:
    """``runs/RID/q/I/g/J``: one generation's whole text (read now from its file), or ``None``: no such text."""
    if not 0 <= i < len(view_run.details) or not 0 <= j < view_run.details[i].n:
        return None
    position = int(view_run.texts[view_run.generations(i).start + j])
    if position < 0:
        return None
    return text_document(view_run, i, j, store.read(position))


def text_document(view_run: ViewRun, i: int, j: int, text: str) -> dict:
    """The ``runs/RID/q/I/g/J`` document of a text read."""
    return {"run": view_run.id, "i": i, "j": j, "text": text, "chars": len(text)}


def question_texts(view_run: ViewRun, i: int, store: TextStore) -> list[tuple[int, str]]:
    """``(j, text)`` of every generation of question ``i`` that has one, its file's line read once."""
    positions = [(j, int(view_run.texts[generation])) for j, generation in enumerate(view_run.generations(i))]
    present = [(j, position) for j, position in positions if position >= 0]
    texts = store.read_many([position for _, position in present])
    return [(j, text) for (j, _), text in zip(present, texts)]


def pairs_of(runs: Sequence[ViewRun]) -> list[tuple[str, str]]:
    """Pairs of runs on the same questions (one's ids within the other's, same benchmark), at most :data:`MAX_PAIRS`."""
    ids = [{question.id for question in view_run.details} for view_run in runs]
    pairs = []
    for a in range(len(runs)):
        for b in range(a + 1, len(runs)):
            bench_a, bench_b = runs[a].run.benchmark, runs[b].run.benchmark
            if bench_a and bench_b and bench_a != bench_b:
                continue
            shared = len(ids[a] & ids[b])
            if shared and shared == min(len(ids[a]), len(ids[b])):
                pairs.append((runs[a].id, runs[b].id))
                if len(pairs) >= MAX_PAIRS:
                    return pairs
    return pairs


def compare_document(
    a: ViewRun,
    b: ViewRun,
    values_a: tuple[list[str], np.ndarray] | None,
    values_b: tuple[list[str], np.ndarray] | None,
) -> dict:
    """``compare/RID/RID2``: per shared question, b's change against a; the paired interval of ``gpassk compare``."""
    k_a, k_b = run_k(a), run_k(b)
    k = min(k_a, k_b) if k_a is not None and k_b is not None else None
    metric = mg_metric_key(k) if k is not None else "accuracy"
    mg_a = _column(values_a, metric)
    mg_b = _column(values_b, metric)
    position_b = {record.id: i for i, record in enumerate(b.details)}
    shared_ids = set()
    questions = []
    for i_a, record_a in enumerate(a.details):
        i_b = position_b.get(record_a.id)
        if i_b is None:
            continue
        shared_ids.add(record_a.id)
        record_b = b.details[i_b]
        d_cn = 100 * (record_b.c / record_b.n - record_a.c / record_a.n) if record_a.n and record_b.n else 0.0
        d_gpass = 100 * (mg_b[i_b] - mg_a[i_a]) if mg_a is not None and mg_b is not None else d_cn
        change = "improved" if d_gpass > 1e-9 else "regressed" if d_gpass < -1e-9 else "same"
        questions.append(
            {
                "id": record_a.id,
                "i_a": i_a,
                "i_b": i_b,
                "c_a": record_a.c,
                "n_a": record_a.n,
                "c_b": record_b.c,
                "n_b": record_b.n,
                "d_cn": _number(d_cn),
                "d_gpass": _number(d_gpass),
                "change": change,
            }
        )
    return {
        "a": a.id,
        "b": b.id,
        "k": k,
        "metric": metric,
        "shared": len(questions),
        "only_a": len(a.details) - len(shared_ids),
        "only_b": len(b.details) - len(shared_ids),
        "questions": questions,
        "paired": paired_document(a, b, metric),
    }


def _column(values: tuple[list[str], np.ndarray] | None, key: str) -> np.ndarray | None:
    if values is None or key not in values[0]:
        return None
    return values[1][:, values[0].index(key)]


def paired_document(a: ViewRun, b: ViewRun, metric: str) -> dict | None:
    """``gpassk compare``'s paired interval of ``b - a`` on ``metric`` and what it allows one to say; ``None``
    when ``gpassk compare`` refuses the pair (unresolved verdicts, other questions, n or k: said in the log)."""
    try:
        report = compare_results(b.results, a.results)
    except (InputError, IncompleteResults) as error:
        logger.info(f"no paired interval for {a.label} and {b.label}: {error}")
        return None
    difference = next((found for found in report.differences if found.metric == metric), None)
    if difference is None:
        return None
    low, high = difference.ci_low, difference.ci_high
    verdict = "b" if low > 0 else "a" if high < 0 else "cannot separate"
    return {
        "metric": metric,
        "diff": _number(difference.difference),
        "low": _number(low),
        "high": _number(high),
        "level": difference.ci,
        "verdict": verdict,
        "sentence": paired_sentence(a.label, b.label, metric, difference.difference, low, high, difference.ci, verdict),
    }


def paired_sentence(
    label_a: str, label_b: str, metric: str, diff: float, low: float, high: float, level: float, verdict: str
) -> str:
    """What the paired interval lets one say, in one sentence.

    >>> paired_sentence("A", "B", "mG-Pass@16", 1.25, -0.5, 3.0, 0.95, "cannot separate")
    'B - A on mG-Pass@16: +1.2 points (95% paired interval -0.5 to +3.0); the interval covers 0: cannot separate the two runs'
    """
    said = (
        "the interval covers 0: cannot separate the two runs"
        if verdict == "cannot separate"
        else f"{label_b if verdict == 'b' else label_a} is better"
    )
    return f"{label_b} - {label_a} on {metric}: {diff:+.1f} points ({level:.0%} paired interval {low:+.1f} to {high:+.1f}); {said}"


__all__ = [
    "answers",
    "compare_document",
    "generation_document",
    "index_document",
    "map_document",
    "pairs_of",
    "question_document",
    "question_values",
    "run_summary",
]
