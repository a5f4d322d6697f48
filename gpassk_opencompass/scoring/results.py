"""From judged generations to OpenCompass-style results: overall, per subset, with uncertainty.

Pure functions; :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` and
``gpassk score`` both report through here, so their result files have the
same keys and the same ``gpassk`` block:

* metric keys at the top, as OpenCompass names them, x 100:
  ``accuracy ({n} runs average)`` (``accuracy`` when n = 1),
  ``G-Pass@{k}_{tau}``, ``mG-Pass@{k}``, then ``{subset}/{key}`` per subset;
* ``unresolved``: how many generations could not be judged (0 when complete);
* ``gpassk``: benchmark, k, n, thresholds, judge, prompt version, bootstrap
  intervals, judge statistics, share of questions with identical generations,
  and (schema 2) whether the result is complete, the unresolved count, their
  top reasons and, when some are unresolved, ``bounds``: per metric the
  value if every unresolved verdict were wrong and if every one were right;
* ``details``: one entry per question (id, c, n, subset labels, verdicts).

A verdict that could not be obtained is never scored as wrong: with any
unresolved verdict the metric keys are left out (unless the caller allows
unresolved verdicts; then the values count them as wrong -- the lower end of
``bounds`` -- and ``complete`` is false).

>>> results = gpassk_results([2, 4], 4, ks=[2], thresholds=[1.0], subsets={"language": ["en", "cn"]})
>>> {key: round(value, 4) for key, value in results.metrics.items()}
{'accuracy (4 runs average)': 75.0, 'G-Pass@2_1.0': 58.3333, 'mG-Pass@2': 58.3333, 'en/accuracy (4 runs average)': 50.0, 'en/G-Pass@2_1.0': 16.6667, 'en/mG-Pass@2': 16.6667, 'cn/accuracy (4 runs average)': 100.0, 'cn/G-Pass@2_1.0': 100.0, 'cn/mG-Pass@2': 100.0}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlsplit

import numpy as np
from loguru import logger

from gpassk_opencompass.judges import JudgeReport, JudgeSettings, Verdict
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, summarize, summarize_uncertainty
from gpassk_opencompass.redaction import redact

#: Warn when at least this share of questions got n byte-identical generations.
IDENTICAL_SHARE_WARNING = 0.5
#: The results document's schema: 2 adds complete/unresolved/bounds (1: before them).
SCHEMA_VERSION = 2
#: How many of the most frequent unresolved reasons are recorded and shown.
TOP_REASONS = 5


def accuracy_key(n: int | None) -> str:
    """OpenCompass's name for mean accuracy over ``n`` replicas (``None``: n varies).

    >>> accuracy_key(1), accuracy_key(48), accuracy_key(None)
    ('accuracy', 'accuracy (48 runs average)', 'accuracy')
    """
    return "accuracy" if n in (1, None) else f"accuracy ({n} runs average)"


@dataclass(frozen=True)
class GPassKResults:
    """The metrics of one set of judged questions.

    Attributes:
        metrics: ordered ``{key: value x 100}``: accuracy, G-Pass@k_tau and
            mG-Pass@k overall, then ``{subset}/{key}`` per subset label.
        uncertainty: per overall key, ``{"mean", "stderr", "ci_low",
            "ci_high", "ci"}`` (x 100).
        n: generations per question, ``None`` when it varies.
    """

    metrics: dict[str, float]
    uncertainty: dict[str, dict[str, float | None]]
    n: int | None


def gpassk_results(
    counts: Sequence[int],
    n,
    ks: Sequence[int],
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    subsets: Mapping[str, Sequence[str]] | None = None,
    *,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
) -> GPassKResults:
    """Accuracy, G-Pass@k_tau and mG-Pass@k overall and per subset, OpenCompass keys.

    Args:
        counts: correct generations per question.
        n: generations per question (one int, or one per question).
        ks: the k values (each <= every n).
        thresholds: the tau values.
        subsets: ``{column: one label per question}`` (e.g. split, language);
            each label gets its own ``{label}/{key}`` metrics, and with two or
            more columns each combination of labels too (``CNMO_en``).
        ci, n_boot, seed: the bootstrap interval of the overall metrics.

    Raises:
        ValueError: naming the bad value (from :mod:`~gpassk_opencompass.metrics`).
    """
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    uniform = int(n_array[0]) if counts.size and (n_array == n_array[0]).all() else None
    subsets = dict(subsets or {})
    for column, labels in subsets.items():
        if len(labels) != len(counts):
            raise ValueError(f"subset column {column!r} has {len(labels)} labels for {len(counts)} questions")

    metrics = overall_metrics(counts, n_array, ks, thresholds)
    for label, members in _subset_members(subsets).items():
        for key, value in overall_metrics(counts[members], n_array[members], ks, thresholds).items():
            metrics[f"{label}/{key}"] = value

    estimates = summarize_uncertainty(counts, n_array, [1], [1.0], ci=ci, n_boot=n_boot, seed=seed)
    uncertainty = {accuracy_key(uniform): asdict(estimates["G-Pass@1_1.0"])}
    for key, estimate in summarize_uncertainty(counts, n_array, ks, thresholds, ci=ci, n_boot=n_boot,
                                               seed=seed).items():
        uncertainty[key] = asdict(estimate)
    return GPassKResults(metrics=metrics, uncertainty=uncertainty, n=uniform)


def overall_metrics(counts: Sequence[int], n, ks: Sequence[int], thresholds: Sequence) -> dict[str, float]:
    """Accuracy, then every requested G-Pass@k_tau and mG-Pass@k (also for k = 1), x 100, one set of questions.

    >>> overall_metrics([1, 2], 2, ks=[1], thresholds=[1.0])
    {'accuracy (2 runs average)': 75.0, 'G-Pass@1_1.0': 75.0, 'mG-Pass@1': 0.0}
    """
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    uniform = int(n_array[0]) if counts.size and (n_array == n_array[0]).all() else None
    values = {accuracy_key(uniform): float(100 * np.mean(counts / n_array))}
    values.update(summarize(counts, n_array, ks, thresholds))
    return values


def unresolved_bounds(details: Sequence[Mapping], ks: Sequence[int], thresholds: Sequence) -> dict[str, list[float]]:
    """Per overall metric, ``[value if every unresolved verdict is wrong, value if every one is right]``.

    Both ends are exact (the same metric functions on the counts ``c`` and
    ``c + unresolved`` per question); every metric is non-decreasing in ``c``,
    so the true value lies between them.

    >>> unresolved_bounds([{"c": 1, "n": 4, "unresolved": 2}, {"c": 4, "n": 4, "unresolved": 0}], [4], [1.0])
    {'accuracy (4 runs average)': [62.5, 87.5], 'G-Pass@4_1.0': [50.0, 50.0], 'mG-Pass@4': [50.0, 75.0]}
    """
    n = [detail["n"] for detail in details]
    low = [detail["c"] for detail in details]
    high = [detail["c"] + detail["unresolved"] for detail in details]
    lows, highs = overall_metrics(low, n, ks, thresholds), overall_metrics(high, n, ks, thresholds)
    return {key: [lows[key], highs[key]] for key in lows}


def unresolved_reasons(details: Sequence[Mapping], top: int = TOP_REASONS) -> list[list]:
    """The most frequent reasons of unresolved verdicts, ``[[reason, count], ...]`` (redacted).

    >>> unresolved_reasons([{"verdicts": [{"correct": None, "reason": "timed out"}, {"correct": True, "reason": "ok"},
    ...                                   {"correct": None, "reason": "timed out"}]}])
    [['timed out', 2]]
    """
    counted = Counter(redact(verdict["reason"]) for detail in details for verdict in detail["verdicts"]
                      if verdict["correct"] is None)
    return [[reason, count] for reason, count in counted.most_common(top)]


def judge_identity(judge: JudgeSettings) -> dict:
    """What actually judged: ``judge``, ``judge_model`` (null for the rule judge), the rule checker's
    version (rule, cascade) and the judge model's ``host:port`` list, without credentials (llm, cascade).

    >>> judge_identity(JudgeSettings(kind="llm", urls=("http://me:pw@10.0.0.5:8000/v1",), model="J"))
    {'judge': 'llm', 'judge_model': 'J', 'judge_hosts': ['10.0.0.5:8000']}
    >>> judge_identity(JudgeSettings(kind="rule"))["judge_model"], judge_identity(JudgeSettings())["rule_checker"][:12]
    (None, 'math-verify ')
    """
    identity = {"judge": judge.kind, "judge_model": judge.model if judge.uses_model else None}
    if judge.kind in ("rule", "cascade"):
        identity["rule_checker"] = f"math-verify {_installed_version('math-verify')}"
    if judge.uses_model:
        identity["judge_hosts"] = [_host_port(url) for url in judge.urls]
    return identity


def _installed_version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def _host_port(url: str) -> str:
    """``http://user:key@host:8000/v1`` -> ``host:8000`` (the scheme's port when none is given)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname
    return f"{host}:{port}"


def _subset_members(subsets: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
    """``{label: boolean mask over questions}``, single columns first, then their combinations."""
    members: dict[str, np.ndarray] = {}
    columns = [np.asarray([str(label) for label in labels]) for labels in subsets.values()]
    for column, labels in zip(subsets, columns):
        for label in dict.fromkeys(labels.tolist()):
            name = label if label not in members else f"{column}={label}"  # two columns share a label
            members[name] = labels == label
    if len(columns) > 1:
        combined = list(zip(*(labels.tolist() for labels in columns)))
        for combination in dict.fromkeys(combined):
            members["_".join(combination)] = np.array([row == combination for row in combined])
    return members


def identical_share(generations_by_question: Sequence[Sequence[str]]) -> float:
    """The share of questions (among those with n > 1) whose generations are all byte-identical.

    With sampling this should be near 0; near 1 means every replica was
    generated with the same seed, and every G-Pass@k_tau collapses to accuracy.

    >>> identical_share([["x", "x"], ["x", "y"], ["z", "z"], ["w"]])
    0.6666666666666666
    """
    sampled = [generations for generations in generations_by_question if len(generations) > 1]
    if not sampled:
        return 0.0
    return sum(len(set(generations)) == 1 for generations in sampled) / len(sampled)


def warn_if_identical(share: float, threshold: float = IDENTICAL_SHARE_WARNING) -> None:
    """Log a loud warning when replicas look like copies of each other."""
    if share >= threshold and share > 0:
        logger.warning(f"{share:.0%} of questions got byte-identical generations: the samples were probably "
                       "drawn with one fixed seed, which collapses every G-Pass@k_tau to accuracy. Give each "
                       "replica its own seed (or none) and sample with temperature > 0.")


def question_details(question_id: str, verdicts: Sequence[Verdict], labels: Mapping[str, str] | None = None) -> dict:
    """One question's entry of ``details``: id, c, n, subset labels, unresolved count, every verdict."""
    return {"id": question_id, "c": sum(verdict.correct is True for verdict in verdicts), "n": len(verdicts),
            **dict(labels or {}), "unresolved": sum(verdict.correct is None for verdict in verdicts),
            "verdicts": [asdict(verdict) for verdict in verdicts]}


def results_document(results: GPassKResults, judged: JudgeReport, judge: JudgeSettings, *, ks: Sequence[int],
                     thresholds: Sequence, benchmark: str | None, identical: float,
                     details: Sequence[dict], allow_unresolved: bool = False) -> dict:
    """The whole result: metric keys (when trustworthy), ``unresolved``, the ``gpassk`` block, then ``details``.

    Args:
        results: the metrics, computed on the resolved-correct counts.
        judged: the judge's report (its ``stats.unresolved`` decides completeness).
        judge: the judge settings (recorded as :func:`judge_identity`).
        ks, thresholds, benchmark, identical, details: recorded as given.
        allow_unresolved: keep the metric keys (and intervals) even with
            unresolved verdicts; they then count those as wrong, and
            ``gpassk.complete`` is false and ``gpassk.bounds`` gives the range.

    Everything recorded is redacted (:func:`~gpassk_opencompass.redaction.redact_data`).
    """
    from gpassk_opencompass.redaction import redact_data

    unresolved = int(judged.stats.unresolved)
    complete = unresolved == 0
    keep_metrics = complete or allow_unresolved
    document = dict(results.metrics) if keep_metrics else {}
    document["unresolved"] = unresolved
    info = {
        "benchmark": benchmark,
        "k": [int(k) for k in ks],
        "n": results.n,
        "questions": len(details),
        "thresholds": [float(tau) for tau in thresholds],
        **judge_identity(judge),
        "prompt_version": judged.prompt_version,
        "uncertainty": results.uncertainty if keep_metrics else {},
        "judge_stats": judged.stats.as_dict(),
        "identical_replicas_share": identical,
        "schema_version": SCHEMA_VERSION,
        "complete": complete,
        "unresolved": unresolved,
        "allow_unresolved": bool(allow_unresolved),
        "unresolved_reasons": unresolved_reasons(details),
    }
    if not complete:
        info["bounds"] = unresolved_bounds(details, ks, thresholds)
    document["gpassk"] = info
    document["details"] = list(details)
    return redact_data(document)


def unresolved_summary(document: Mapping, *, resume: str) -> str:
    """The block printed or logged when verdicts are missing: how many, why, what is kept, how to resume.

    >>> print(unresolved_summary({"unresolved": 3, "gpassk": {"judge_stats": {"total": 8},
    ...     "unresolved_reasons": [["judge request failed after 6 attempt(s): HTTP 503", 3]]}},
    ...     resume="every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones"))
    3 of 8 generations could not be judged (unresolved); no metric counts them as wrong.
      3 x judge request failed after 6 attempt(s): HTTP 503
    every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones
    """
    info = document["gpassk"]
    lines = [f"{document['unresolved']} of {info['judge_stats']['total']} generations could not be judged "
             "(unresolved); no metric counts them as wrong."]
    lines += [f"  {count} x {reason}" for reason, count in info["unresolved_reasons"]]
    lines.append(resume)
    return redact("\n".join(lines))


# ---------------------------------------------------------------- reading results back

#: Results files larger than this are refused before parsing (a results file of 238 questions x 48
#: generations with every verdict's reason is a few MB).
MAX_RESULTS_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class VerdictRecord:
    """One generation's verdict as recorded: ``correct`` is ``None`` when it could not be judged.

    ``rule_correct``: on a cascade's model verdict, what the rule judge said first (``False``/``None``).
    """

    correct: bool | None
    extracted: str | None
    reason: str
    source: str
    rule_correct: bool | None = None


@dataclass(frozen=True)
class QuestionRecord:
    """One question of ``details``: its id, counts, subset labels and verdicts (in generation order)."""

    id: str
    c: int
    n: int
    unresolved: int
    labels: Mapping[str, str]
    verdicts: tuple[VerdictRecord, ...]


@dataclass(frozen=True)
class ResultsFile:
    """A results document read back and validated (any schema version; other evaluators' files too).

    Attributes:
        source: where it was read from (a path, or ``"<document>"``).
        schema_version: 2 (this package now), 1 (GPassKEvaluator before the
            ``complete``/``unresolved`` fields), 0 (no ``gpassk`` block: another
            evaluator's results).
        metrics: the top-level metric values (empty when an incomplete result
            withheld them).
        unresolved: generations that could not be judged.
        complete: every verdict resolved (schema 0 and 1: judged by the
            recorded judge statistics, when there are any).
        gpassk: the ``gpassk`` block as written (empty for schema 0).
        details: one :class:`QuestionRecord` per question (empty when the file has none).
    """

    source: str
    schema_version: int
    metrics: Mapping[str, float]
    unresolved: int
    complete: bool
    gpassk: Mapping
    details: tuple[QuestionRecord, ...]

    @property
    def ks(self) -> tuple[int, ...]:
        """The k values of the result (``()`` when not recorded)."""
        return tuple(self.gpassk.get("k") or ())

    @property
    def n(self) -> int | None:
        """Generations per question (``None`` when not recorded or varying)."""
        return self.gpassk.get("n")

    @property
    def thresholds(self) -> tuple[float, ...]:
        return tuple(self.gpassk.get("thresholds") or ())

    @property
    def bounds(self) -> Mapping[str, tuple[float, float]]:
        """Per metric ``(all unresolved wrong, all unresolved right)``; empty when complete."""
        return {key: (float(low), float(high)) for key, (low, high) in (self.gpassk.get("bounds") or {}).items()}

    def question_ids(self) -> list[str]:
        return [question.id for question in self.details]

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(c, n)`` per question, from ``details`` (unresolved verdicts are not correct)."""
        self._need_details()
        return (np.array([question.c for question in self.details], dtype=np.int64),
                np.array([question.n for question in self.details], dtype=np.int64))

    def verdict_matrix(self) -> np.ndarray:
        """Questions x generations, ``1.0`` correct, ``0.0`` wrong, ``nan`` unresolved (n must be uniform)."""
        self._need_details()
        lengths = {len(question.verdicts) for question in self.details}
        if len(lengths) != 1:
            raise ValueError(f"{self.source}: questions have different numbers of verdicts "
                             f"({sorted(lengths)}); a verdict matrix needs the same n for every question")
        values = {True: 1.0, False: 0.0, None: np.nan}
        return np.array([[values[verdict.correct] for verdict in question.verdicts] for question in self.details])

    def _need_details(self) -> None:
        if not self.details:
            raise ValueError(f"{self.source}: has no per-question details (written by GPassKEvaluator or "
                             "gpassk score, which record them)")


def _fail(source: str, message: str):
    raise ValueError(f"{source}: {message}")


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_results(document: Mapping, source: str = "<document>") -> ResultsFile:
    """Validate a results document (as written by this package, or any OpenCompass evaluator).

    Raises:
        ValueError: naming the source and the first malformed field.

    >>> record = read_results({"accuracy (2 runs average)": 50.0, "unresolved": 0,
    ...     "gpassk": {"schema_version": 2, "complete": True, "unresolved": 0, "k": [2], "n": 2},
    ...     "details": [{"id": "q1", "c": 1, "n": 2, "unresolved": 0, "verdicts": [
    ...         {"correct": True, "extracted": "2", "reason": "equal", "source": "rule"},
    ...         {"correct": False, "extracted": "3", "reason": "differ", "source": "rule"}]}]})
    >>> record.schema_version, record.complete, record.ks, record.counts()[0].tolist(), record.verdict_matrix().tolist()
    (2, True, (2,), [1], [[1.0, 0.0]])
    >>> read_results({"unresolved": -1, "gpassk": {}}, "r.json")
    Traceback (most recent call last):
    ...
    ValueError: r.json: "unresolved" must be a count >= 0, got -1
    """
    if not isinstance(document, Mapping):
        _fail(source, f"a results file holds a JSON object, got {type(document).__name__}")
    info = document.get("gpassk", {})
    if not isinstance(info, Mapping):
        _fail(source, f'"gpassk" must be an object, got {type(info).__name__}')
    version = info.get("schema_version", 1 if info else 0)
    if not _is_count(version) or version > SCHEMA_VERSION:
        _fail(source, f"unknown results schema_version {version!r}; this gpassk-opencompass reads versions "
                      f"up to {SCHEMA_VERSION} (upgrade it to read newer files)")
    stats = info.get("judge_stats") if isinstance(info.get("judge_stats"), Mapping) else {}
    counts = []
    for where, value in (('"unresolved"', document.get("unresolved")), ('"gpassk.unresolved"', info.get("unresolved")),
                         ('"gpassk.judge_stats.unresolved"', stats.get("unresolved"))):
        if value is not None and not _is_count(value):
            _fail(source, f"{where} must be a count >= 0, got {value!r}")
        if value is not None:
            counts.append(value)
    unresolved = max(counts, default=0)
    flag = info.get("complete")
    if flag is not None and not isinstance(flag, bool):
        _fail(source, f'"gpassk.complete" must be true or false, got {flag!r}')
    complete = (flag if flag is not None else True) and unresolved == 0
    metrics = {}
    for key, value in document.items():
        if key in ("gpassk", "details", "unresolved"):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            metrics[key] = float(value)
    details = document.get("details", [])
    if not isinstance(details, list):
        _fail(source, f'"details" must be a list, got {type(details).__name__}')
    return ResultsFile(source=source, schema_version=int(version), metrics=metrics, unresolved=unresolved,
                       complete=complete, gpassk=dict(info),
                       details=tuple(_question(entry, position, source) for position, entry in enumerate(details)))


def _question(entry, position: int, source: str) -> QuestionRecord:
    where = f"details[{position}]"
    if not isinstance(entry, Mapping):
        _fail(source, f"{where} must be an object, got {type(entry).__name__}")
    for field in ("c", "n"):
        if not _is_count(entry.get(field)):
            _fail(source, f'{where}."{field}" must be a count >= 0, got {entry.get(field)!r}')
    verdicts = entry.get("verdicts", [])
    if not isinstance(verdicts, list):
        _fail(source, f'{where}."verdicts" must be a list, got {type(verdicts).__name__}')
    records = []
    for index, verdict in enumerate(verdicts):
        if not isinstance(verdict, Mapping) or verdict.get("correct") not in (True, False, None):
            _fail(source, f"{where}.verdicts[{index}] must be an object whose \"correct\" is true, false or null")
        if verdict.get("rule_correct") not in (True, False, None):
            _fail(source, f"{where}.verdicts[{index}].rule_correct must be true, false or null")
        records.append(VerdictRecord(verdict.get("correct"), verdict.get("extracted"), str(verdict.get("reason", "")),
                                     str(verdict.get("source", "")), verdict.get("rule_correct")))
    unresolved = entry.get("unresolved", sum(record.correct is None for record in records))
    if not _is_count(unresolved):
        _fail(source, f'{where}."unresolved" must be a count >= 0, got {unresolved!r}')
    if records and (len(records) != entry["n"] or sum(record.correct is True for record in records) != entry["c"]):
        _fail(source, f"{where}: c={entry['c']}, n={entry['n']} do not match its {len(records)} verdicts")
    labels = {key: str(value) for key, value in entry.items()
              if key not in ("id", "c", "n", "unresolved", "verdicts") and isinstance(value, (str, int))}
    return QuestionRecord(id=str(entry.get("id", position)), c=entry["c"], n=entry["n"], unresolved=unresolved,
                          labels=labels, verdicts=tuple(records))


def load_results(path) -> ResultsFile:
    """Read and validate a results JSON file (:func:`read_results`); size-capped, one-line errors."""
    import json
    import os

    try:
        size = os.path.getsize(path)
    except OSError as error:
        raise ValueError(f"{path}: cannot read ({error.strerror})") from None
    if size > MAX_RESULTS_BYTES:
        raise ValueError(f"{path}: {size:,} bytes, over the limit of {MAX_RESULTS_BYTES:,} for a results file")
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error.msg} at line {error.lineno})") from None
    return read_results(document, str(path))


def write_results(path, document: Mapping) -> None:
    """Write a results document atomically, redacted, as indented UTF-8 JSON."""
    import json

    from gpassk_opencompass.files import write_text_atomic
    from gpassk_opencompass.redaction import redact_data

    write_text_atomic(path, json.dumps(redact_data(dict(document)), indent=2, ensure_ascii=False) + "\n")
