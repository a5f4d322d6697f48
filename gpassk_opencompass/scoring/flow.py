r"""Score saved generations: load a JSONL file, judge it, compute G-Pass@k.

The input has one question per line::

    {"id": "AMC-12", "question": "...", "answer": "\\frac{1}{2}",
     "predictions": ["... \\boxed{1/2}", "... \\boxed{0.5}", ...], "language": "en"}

``language`` (``en`` or ``cn``) is optional and selects the judge prompt.
Everything -- every line, k, the thresholds, the judge settings -- is
validated before the first answer is judged; a bad line is a ``ValueError``
naming its line number.

:func:`score_generations` returns a dict shaped like an OpenCompass results
file of :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator`: the metric
keys at the top (``G-Pass@{k}_{tau}``, ``mG-Pass@{k}``, ``accuracy (n runs
average)``, all x 100) -- only when every verdict is resolved, or when
unresolved verdicts are explicitly allowed --, ``unresolved`` (how many
generations could not be judged), a ``gpassk`` block (k, n, thresholds, judge,
prompt version, bootstrap intervals, judge statistics, completeness and, when
incomplete, the bounds of every metric) and per-question ``details``
(:mod:`~gpassk_opencompass.scoring.results`).

>>> from gpassk_opencompass.judges import JudgeSettings
>>> lines = ['{"id": "q1", "question": "1+1?", "answer": "2", "predictions": ["\\\\boxed{2}", "3", "2"]}',
...          '{"id": "q2", "question": "2+2?", "answer": "4", "predictions": ["4", "4", "4"]}']
>>> records = parse_generations(lines, min_predictions=2)
>>> result = score_generations(records, ks=[2], thresholds=[1.0], settings=JudgeSettings(), progress=False)
>>> round(result["G-Pass@2_1.0"], 6), round(result["accuracy (3 runs average)"], 6), [q["c"] for q in result["details"]]
(66.666667, 83.333333, [2, 3])
>>> result["unresolved"], result["gpassk"]["complete"]
(0, True)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gpassk_opencompass import metrics
from gpassk_opencompass.judges import LANGUAGES, JudgeItem, JudgeSettings, judge_items
from gpassk_opencompass.scoring.results import (
    gpassk_results,
    identical_share,
    question_details,
    results_document,
    warn_if_identical,
)

_FIELDS = {"id": str, "question": str, "answer": str, "predictions": list, "language": str}


@dataclass(frozen=True)
class Generations:
    """One question and the model's generations for it (one input line)."""

    id: str
    question: str
    answer: str
    predictions: tuple[str, ...]
    language: str = "en"


def load_generations(path: str | os.PathLike, *, min_predictions: int) -> list[Generations]:
    """Read and validate a generations JSONL file (see the module docstring).

    Raises:
        ValueError: the file is missing or empty, or a line is malformed; the
            message names the file and line.
    """
    try:
        with open(path, encoding="utf-8") as file:
            return parse_generations(file, min_predictions=min_predictions, source=str(path))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def parse_generations(lines: Iterable[str], *, min_predictions: int, source: str = "input") -> list[Generations]:
    """Validate JSONL lines into :class:`Generations`; blank lines are skipped.

    >>> parse_generations(['{"id": "a", "question": "q", "answer": 2, "predictions": ["2"]}'], min_predictions=1)
    Traceback (most recent call last):
    ...
    ValueError: input line 1: "answer" must be a string, got int 2 (write it as "2")
    >>> parse_generations(['{"id": "a", "question": "q", "answer": "2", "predictions": ["2"]}'], min_predictions=4)
    Traceback (most recent call last):
    ...
    ValueError: input line 1: question 'a' has 1 prediction(s); at least 4 are needed (the largest k)
    """
    records: list[Generations] = []
    first_line_of: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source} line {number}"
        record = _parse_line(line, where, min_predictions)
        if record.id in first_line_of:
            raise ValueError(f"{where}: id {record.id!r} repeats line {first_line_of[record.id]}; ids must be unique")
        first_line_of[record.id] = number
        records.append(record)
    if not records:
        raise ValueError(f"{source}: no questions (the file is empty)")
    return records


def _parse_line(line: str, where: str, min_predictions: int) -> Generations:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not valid JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
    missing = [name for name in ("id", "question", "answer", "predictions") if name not in data]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(repr(name) for name in missing)}; "
                         f"each line needs id, question, answer, predictions (and optionally language)")
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; "
                         f"expected only {', '.join(_FIELDS)}")
    for name, kind in _FIELDS.items():
        if name in data and not isinstance(data[name], kind):
            value = data[name]
            hint = f' (write it as "{value}")' if name in ("id", "answer") and isinstance(value, (int, float)) else ""
            raise ValueError(f'{where}: "{name}" must be a {"list of strings" if kind is list else "string"}, '
                             f"got {type(value).__name__} {value!r}{hint}")
    predictions = data["predictions"]
    for position, prediction in enumerate(predictions):
        if not isinstance(prediction, str):
            raise ValueError(f'{where}: "predictions"[{position}] must be a string, '
                             f"got {type(prediction).__name__} {prediction!r}")
    if len(predictions) < min_predictions:
        raise ValueError(f"{where}: question {data['id']!r} has {len(predictions)} prediction(s); "
                         f"at least {min_predictions} are needed (the largest k)")
    language = data.get("language", "en")
    if language not in LANGUAGES:
        raise ValueError(f'{where}: "language" must be one of {", ".join(LANGUAGES)}, got {language!r}')
    return Generations(data["id"], data["question"], data["answer"], tuple(predictions), language)


def check_metric_request(records: Sequence[Generations], ks: Sequence[int], thresholds: Sequence[float], *,
                         ci: float = 0.95, n_boot: int = 1000, seed: int = 0) -> None:
    """Raise ``ValueError`` now, before judging, if the metrics cannot be computed on ``records``.

    >>> check_metric_request([Generations("a", "q", "1", ("1", "2"))], ks=[4], thresholds=[0.5])
    Traceback (most recent call last):
    ...
    ValueError: ks must satisfy k <= n; got k=4 with n=2
    """
    n = np.array([len(record.predictions) for record in records])
    # the very calls made after judging, on all-wrong counts: the same validation, milliseconds
    metrics.summarize_uncertainty(np.zeros_like(n), n, ks, thresholds, ci=ci, n_boot=n_boot, seed=seed)


def score_generations(records: Sequence[Generations], ks: Sequence[int], thresholds: Sequence[float],
                      settings: JudgeSettings, *, ci: float = 0.95, n_boot: int = 1000, seed: int = 0,
                      progress: bool = True, allow_unresolved: bool = False) -> dict:
    """Judge every prediction once, then compute the metrics (see the module docstring).

    Args:
        records: validated generations (:func:`load_generations`).
        ks: the k values, each at most the smallest number of predictions.
        thresholds: the tau values in [0, 1].
        settings: the judge.
        ci: confidence level of the bootstrap intervals.
        n_boot: bootstrap resamples.
        seed: bootstrap seed.
        progress: show progress bars on stderr.
        allow_unresolved: keep the metric keys even when some verdicts are
            unresolved (they then count those as wrong; ``gpassk.complete`` is
            false and ``gpassk.bounds`` gives each metric's range).

    Raises:
        ValueError: a bad request, before judging.
        JudgeError: the judge cannot serve the run.
    """
    check_metric_request(records, ks, thresholds, ci=ci, n_boot=n_boot, seed=seed)
    items = [JudgeItem(record.question, record.answer, prediction, record.language)
             for record in records for prediction in record.predictions]
    judged = judge_items(items, settings, progress=progress)
    verdicts = iter(judged.verdicts)
    by_record = [[next(verdicts) for _ in record.predictions] for record in records]
    details = [question_details(record.id, mine) for record, mine in zip(records, by_record)]
    results = gpassk_results([detail["c"] for detail in details], [detail["n"] for detail in details], ks,
                             thresholds, ci=ci, n_boot=n_boot, seed=seed)
    share = identical_share([record.predictions for record in records])
    warn_if_identical(share)
    return results_document(results, judged, settings, ks=ks, thresholds=thresholds, benchmark=None,
                            identical=share, details=details, allow_unresolved=allow_unresolved)


def format_report(result: dict) -> str:
    """A readable summary of :func:`score_generations`' result: one row per metric with its interval.

    With unresolved verdicts every row also shows the metric's range between
    "all unresolved wrong" and "all unresolved right" (``gpassk.bounds``), and
    a value withheld because of them is shown as ``-``.

    >>> result = {"accuracy (8 runs average)": 50.0, "G-Pass@4_0.5": 71.5, "mG-Pass@4": 16.25,
    ...           "gpassk": {"n": 8, "judge": "rule", "prompt_version": None,
    ...                      "uncertainty": {"accuracy (8 runs average)": {"ci_low": 40.0, "ci_high": 60.0, "ci": 0.95},
    ...                                      "G-Pass@4_0.5": {"ci_low": 60.0, "ci_high": 80.0, "ci": 0.95},
    ...                                      "mG-Pass@4": {"ci_low": 10.0, "ci_high": 20.5, "ci": 0.95}},
    ...                      "judge_stats": {"total": 16, "unique": 5, "cached": 0, "requests": 0,
    ...                                      "retries": 0, "unresolved": 0}},
    ...           "details": [{}, {}]}
    >>> print(format_report(result))
    2 questions, n=8, rule judge
    metric                       value   95% CI
    accuracy (8 runs average)    50.00   [40.00, 60.00]
    G-Pass@4_0.5                 71.50   [60.00, 80.00]
    mG-Pass@4                    16.25   [10.00, 20.50]
    judged 16 generations: 5 distinct, 0 from cache, 0 requests (0 retries), 0 unresolved
    >>> result["gpassk"].update(complete=False, bounds={"accuracy (8 runs average)": [50.0, 62.5],
    ...                         "G-Pass@4_0.5": [71.5, 80.0], "mG-Pass@4": [16.25, 30.0]}, uncertainty={})
    >>> for key in ("accuracy (8 runs average)", "G-Pass@4_0.5", "mG-Pass@4"):
    ...     del result[key]
    >>> print(format_report(result))
    2 questions, n=8, rule judge
    INCOMPLETE: metrics withheld; range if every unresolved verdict were wrong .. right
    metric                       value   95% CI   range
    accuracy (8 runs average)        -            [50.00, 62.50]
    G-Pass@4_0.5                     -            [71.50, 80.00]
    mG-Pass@4                        -            [16.25, 30.00]
    judged 16 generations: 5 distinct, 0 from cache, 0 requests (0 retries), 0 unresolved
    """
    info = result["gpassk"]
    bounds = info.get("bounds") or {}
    keys = list(info["uncertainty"]) or list(bounds) or [
        key for key in result if key not in ("gpassk", "details", "unresolved")]
    width = max(len(key) for key in keys) + 3
    level = next(iter(info["uncertainty"].values()))["ci"] if info["uncertainty"] else 0.95
    judge = f"{info['judge']} judge" + (f" (prompt {info['prompt_version']})" if info["prompt_version"] else "")
    n = info["n"] if info["n"] is not None else "varies"
    lines = [f"{len(result['details'])} questions, n={n}, {judge}"]
    header = f"{'metric'.ljust(width)}{'value':>6}   {level:.0%} CI"
    if bounds:
        withheld = not any(key in result for key in keys)
        lines.append(("INCOMPLETE: metrics withheld" if withheld else
                      "INCOMPLETE: values count unresolved verdicts as wrong")
                     + "; range if every unresolved verdict were wrong .. right")
        header = header.ljust(width + 6 + 19) + "   range"
    lines.append(header)
    for key in keys:
        row = key.ljust(width) + (f"{result[key]:6.2f}" if key in result else f"{'-':>6}")
        estimate = info["uncertainty"].get(key)
        row += f"   [{estimate['ci_low']:.2f}, {estimate['ci_high']:.2f}]" if estimate is not None else ""
        if key in bounds:
            low, high = bounds[key]
            row = row.ljust(width + 6 + 19) + f"   [{low:.2f}, {high:.2f}]"
        lines.append(row)
    stats = info["judge_stats"]
    lines.append(f"judged {stats['total']} generations: {stats['unique']} distinct, {stats['cached']} from cache, "
                 f"{stats['requests']} requests ({stats['retries']} retries), {stats['unresolved']} unresolved")
    return "\n".join(lines)
