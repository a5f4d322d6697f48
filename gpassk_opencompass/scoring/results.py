"""The results format: its schema and version, building it from judged questions, writing, reading, printing.

This module is the one owner of the results document. :func:`~gpassk_opencompass.scoring.flow.score_questions`
builds it (:func:`results_document`) for ``gpassk score``, ``GPassKEvaluator``
and ``gpassk rejudge`` alike; :func:`write_results` writes it;
:func:`read_results`/:func:`load_results` read and validate any version back
into a :class:`ResultsFile`, which every reader uses (:func:`format_report`,
the leaderboard, ``gpassk grid status``).

The document is defined once, by the typed model :class:`ResultsFile` (its
``gpassk`` block :class:`GPassKBlock`, its ``details`` :class:`QuestionRecord`
with :class:`~gpassk_opencompass.judges.types.Verdict` s, its intervals
:class:`Interval`): the same model writes and reads it, and its JSON Schema
(:func:`results_schema`) is shipped as ``gpassk_opencompass/data/results.schema.json``
and ``docs/results.schema.json``, every field with its type, rule and meaning.
``gpassk.schema_version`` = :data:`SCHEMA_VERSION` = 2; 1: written before
``complete``/``unresolved``/``bounds``; 0: no ``gpassk`` block, another
evaluator's results. Percentages are x 100.

A verdict that could not be obtained is never scored as wrong: with any
unresolved verdict the metric keys, ``uncertainty`` and ``bayes`` are left
out (unless the caller allows unresolved verdicts; then the values count them
as wrong -- the lower end of ``bounds`` -- and ``complete`` is false).
``gpassk.bayes`` and the two digests of ``details[]`` are optional fields
added within schema 2. A field added from now on is declared in the model
(unknown fields are refused), so a shape older readers would refuse bumps
:data:`SCHEMA_VERSION`.

Reading checks the shape of every field (a malformed one raises) and then
whether the values can be believed
(:func:`~gpassk_opencompass.scoring.consistency.results_problems`: percentages
in [0, 100], possible counts, metrics reproduced by the details); what fails is
listed in :attr:`ResultsFile.problems`, and every reader refuses or flags such
a file.

>>> results = gpassk_results([2, 4], 4, ks=[2], thresholds=[1.0], subsets={"language": ["en", "cn"]})
>>> {key: round(value, 4) for key, value in results.metrics.items()}
{'accuracy (4 runs average)': 75.0, 'G-Pass@2_1.0': 58.3333, 'mG-Pass@2': 58.3333, 'en/accuracy (4 runs average)': 50.0, 'en/G-Pass@2_1.0': 16.6667, 'en/mG-Pass@2': 16.6667, 'cn/accuracy (4 runs average)': 100.0, 'cn/G-Pass@2_1.0': 100.0, 'cn/mG-Pass@2': 100.0}
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import types
import typing
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from json.encoder import encode_basestring  # json.dumps' own string encoder
from typing import Annotated, Any

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from gpassk_opencompass.checks import is_int
from gpassk_opencompass.contracts import Contract, input_error
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import (
    UnreadableFile,
    UnreadableJSON,
    check_containers,
    load_json_text,
    read_bytes_bounded,
)
from gpassk_opencompass.judges import Judge, JudgeReport
from gpassk_opencompass.judges.types import Verdict, text_bytes
from gpassk_opencompass.log import logger
from gpassk_opencompass.metrics import (
    DEFAULT_THRESHOLDS,
    MetricEstimate,
    accuracy_key,
    summarize,
    summarize_uncertainty,
)
from gpassk_opencompass.redaction import redact
from gpassk_opencompass.uncertainty.bayes import BayesEstimate

#: Warn when at least this share of questions got n byte-identical generations.
IDENTICAL_SHARE_WARNING = 0.5
#: The results document's schema: 2 adds complete/unresolved/bounds (1: before them).
SCHEMA_VERSION = 2
#: How many of the most frequent unresolved reasons are recorded and shown.
TOP_REASONS = 5
#: The ``details[]`` fields holding :func:`texts_digest` of the question's generations, and of its text and gold.
DIGEST_FIELDS = ("generations_sha256", "question_sha256")


@dataclass(frozen=True)
class GPassKResults:
    """The metrics of one set of judged questions.

    Attributes:
        metrics: ordered ``{key: value x 100}``: accuracy, G-Pass@k_tau and
            mG-Pass@k overall, then ``{subset}/{key}`` per subset label.
        uncertainty: per overall key, its bootstrap :class:`Interval` (x 100).
        n: generations per question, ``None`` when it varies.
    """

    metrics: dict[str, float]
    uncertainty: dict[str, Interval]
    n: int | None


def gpassk_results(
    counts: ArrayLike,
    n,
    ks: Sequence[int],
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    subsets: Mapping[str, Sequence[str]] | None = None,
    *,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
    bootstrap: bool = True,
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
        bootstrap: compute the bootstrap intervals (else ``uncertainty`` is empty).

    Raises:
        InputError: naming the bad value (from :mod:`~gpassk_opencompass.metrics`).
    """
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    uniform = int(n_array[0]) if counts.size and (n_array == n_array[0]).all() else None
    subsets = dict(subsets or {})
    for column, labels in subsets.items():
        if len(labels) != len(counts):
            raise InputError(f"subset column {column!r} has {len(labels)} labels for {len(counts)} questions")

    metrics = overall_metrics(counts, n_array, ks, thresholds)
    for label, members in _subset_members(subsets).items():
        for key, value in overall_metrics(counts[members], n_array[members], ks, thresholds).items():
            metrics[f"{label}/{key}"] = value

    if not bootstrap:
        return GPassKResults(metrics=metrics, uncertainty={}, n=uniform)
    estimates = summarize_uncertainty(counts, n_array, [1], [1.0], ci=ci, n_boot=n_boot, seed=seed)
    uncertainty = {accuracy_key(uniform): Interval.from_estimate(estimates["G-Pass@1_1.0"])}
    for key, estimate in summarize_uncertainty(
        counts, n_array, ks, thresholds, ci=ci, n_boot=n_boot, seed=seed
    ).items():
        uncertainty[key] = Interval.from_estimate(estimate)
    return GPassKResults(metrics=metrics, uncertainty=uncertainty, n=uniform)


def bayes_block(
    counts: ArrayLike,
    resolved: ArrayLike,
    ks: Sequence[int],
    thresholds: Sequence,
    *,
    prior: tuple[float, float] = (1.0, 1.0),
    level: float = 0.95,
) -> dict[str, BayesEstimate]:
    """``gpassk.bayes``: per metric the posterior mean, std and credible interval (x 100), prior and method.

    ``resolved`` is each question's number of resolved verdicts: an
    unresolved verdict is left out of its question's n (see
    :mod:`~gpassk_opencompass.uncertainty.bayes`).

    >>> block = bayes_block([0, 8, 16], [16, 16, 16], [4], [0.5])
    >>> {key: round(value, 6) if isinstance(value, float) else value
    ...  for key, value in asdict(block["G-Pass@4_0.5"]).items()}
    {'mean': 56.491228, 'std': 5.763629, 'low': 45.194723, 'high': 67.787733, 'level': 0.95, 'prior': (1.0, 1.0), 'method': 'normal'}
    """
    from gpassk_opencompass.uncertainty.bayes import bayes_interval_counts

    return bayes_interval_counts(counts, resolved, ks, thresholds, prior=prior, level=level)


def overall_metrics(counts: ArrayLike, n, ks: Sequence[int], thresholds: Sequence) -> dict[str, float]:
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


def unresolved_bounds(
    details: CompactDetails, ks: Sequence[int], thresholds: Sequence
) -> dict[str, tuple[float, float]]:
    """Per overall metric, ``[value if every unresolved verdict is wrong, value if every one is right]``.

    Both ends are exact (the same metric functions on the counts ``c`` and
    ``c + unresolved`` per question); every metric is non-decreasing in ``c``,
    so the true value lies between them.

    >>> verdicts = [Verdict(True, "1", "ok", "rule"), Verdict(None, None, "timed out", "rule"), Verdict(False)]
    >>> unresolved_bounds(CompactDetails(["a", "b"], {}, verdicts, [0, 1, 1, 2, 0, 0, 0, 0], [0, 4, 8]), [4], [1.0])
    {'accuracy (4 runs average)': (62.5, 87.5), 'G-Pass@4_1.0': (50.0, 50.0), 'mG-Pass@4': (50.0, 75.0)}
    """
    lows = overall_metrics(details.c, details.n, ks, thresholds)
    highs = overall_metrics(details.c + details.unresolved, details.n, ks, thresholds)
    return {key: (lows[key], highs[key]) for key in lows}


def unresolved_reasons(details: CompactDetails, top: int = TOP_REASONS) -> list[tuple[str, int]]:
    """The most frequent reasons of unresolved verdicts, ``[(reason, count), ...]`` (redacted), counted per generation.

    >>> unknown = Verdict(None, None, "timed out", "rule")
    >>> unresolved_reasons(CompactDetails(["q1"], {}, [unknown, Verdict(True, "1", "ok", "rule")], [0, 1, 0], [0, 3]))
    [('timed out', 2)]
    """
    uses = np.bincount(details.slot_array(), minlength=len(details.verdicts)).tolist()
    counted: Counter[str] = Counter()
    for verdict, count in zip(details.verdicts, uses):
        if verdict.correct is None and count:
            counted[redact(verdict.reason)] += count
    return counted.most_common(top)


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
        logger.warning(
            f"{share:.0%} of questions got byte-identical generations: the samples were probably "
            "drawn with one fixed seed, which collapses every G-Pass@k_tau to accuracy. Give each "
            "replica its own seed (or none) and sample with temperature > 0."
        )


def texts_digest(texts: Sequence[str]) -> str:
    """sha256 (hex) of texts in order, each NFC-normalised: equal exactly when the texts are.

    Two results files of the same generations judged twice carry the same
    digests of the generations; two models' generations do not.

    >>> texts_digest(["\\boxed{2}", "3"]) == texts_digest(["\\boxed{2}", "3"])
    True
    >>> texts_digest(["\\boxed{2}", "3"]) == texts_digest(["3", "\\boxed{2}"])
    False
    """
    return texts_sha256(texts).hex()


def texts_sha256(texts: Iterable[str]) -> bytes:
    """The 32 bytes of :func:`texts_digest`: sha256 of the JSON list of the NFC-normalised texts (``json.dumps``
    with ``ensure_ascii=False``, built here from its own string encoder: the same bytes, a third of the time),
    encoded by :func:`~gpassk_opencompass.judges.types.text_bytes` (a lone surrogate is hashed as itself).

    >>> texts = ["\\boxed{2}", "caf\\u0065\\u0301", 'say "x"\\n', ""]
    >>> normalized = [unicodedata.normalize("NFC", text) for text in texts]
    >>> texts_sha256(texts) == hashlib.sha256(json.dumps(normalized, ensure_ascii=False).encode("utf-8")).digest()
    True
    """
    encoded = ", ".join([encode_basestring(unicodedata.normalize("NFC", text)) for text in texts])
    return hashlib.sha256(text_bytes(f"[{encoded}]")).digest()


def results_document(
    results: GPassKResults,
    judged: JudgeReport,
    judge: Judge,
    *,
    ks: Sequence[int],
    thresholds: Sequence,
    benchmark: str | None,
    identical: float,
    details: CompactDetails,
    allow_unresolved: bool = False,
    bayes: Mapping[str, BayesEstimate] | None = None,
) -> ResultsFile:
    """The whole result: metric keys (when trustworthy), ``unresolved``, the ``gpassk`` block, then ``details``.

    Args:
        results: the metrics, computed on the resolved-correct counts.
        judged: the judge's report (its ``stats.unresolved`` decides completeness).
        judge: the judge (recorded as its :meth:`~gpassk_opencompass.judges.Judge.identity`).
        ks, thresholds, benchmark, identical, details: recorded as given.
        allow_unresolved: keep the metric keys (and intervals) even with
            unresolved verdicts; they then count those as wrong, and
            ``gpassk.complete`` is false and ``gpassk.bounds`` gives the range.
        bayes: the ``gpassk.bayes`` block (:func:`bayes_block`), when asked for;
            left out, as the metrics, when they are withheld.

    What is written is redacted (:meth:`ResultsFile.document`).
    """
    unresolved = int(judged.stats.unresolved)
    complete = unresolved == 0
    keep_metrics = complete or allow_unresolved
    # The fields written only when they apply (one never set is left out, not null); the model checks their values.
    when_apply: dict[str, Any] = dict(judge.identity())  # rule_checker, judge_hosts: per judge kind
    if bayes is not None and keep_metrics:
        when_apply["bayes"] = dict(bayes)
    if not complete:
        when_apply["bounds"] = unresolved_bounds(details, ks, thresholds)
    info = GPassKBlock(
        benchmark=benchmark,
        k=[int(k) for k in ks],
        n=results.n,
        questions=len(details),
        thresholds=[float(tau) for tau in thresholds],
        prompt_version=judged.prompt_version,
        uncertainty=dict(results.uncertainty) if keep_metrics else {},
        judge_stats=judged.stats.as_dict(),
        identical_replicas_share=identical,
        schema_version=SCHEMA_VERSION,
        complete=complete,
        unresolved=unresolved,
        allow_unresolved=bool(allow_unresolved),
        unresolved_reasons=unresolved_reasons(details),
        **when_apply,
    )
    header = ResultsFile(**(results.metrics if keep_metrics else {}), unresolved=unresolved, gpassk=info, details=())
    return header.model_copy(update={"details": details})  # validated: each record is built when read


def unresolved_summary(results: ResultsFile | Mapping, *, resume: str) -> str:
    """The block printed or logged when verdicts are missing: how many, why, what is kept, how to resume.

    >>> print(unresolved_summary({"unresolved": 3, "gpassk": {"judge_stats": {"total": 8},
    ...     "unresolved_reasons": [["judge request failed after 6 attempt(s): HTTP 503", 3]]}},
    ...     resume="every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones"))
    3 of 8 generations could not be judged (unresolved); no metric counts them as wrong.
      3 x judge request failed after 6 attempt(s): HTTP 503
    every verdict that arrived is kept in c.jsonl; the same command re-asks only the missing ones
    """
    record = read_results(results)
    lines = [
        f"{record.unresolved} of {record.generations} generations could not be judged "
        "(unresolved); no metric counts them as wrong."
    ]
    lines += [f"  {count} x {reason}" for reason, count in record.gpassk.unresolved_reasons or ()]
    lines.append(resume)
    return redact("\n".join(lines))


# ---------------------------------------------------------------- the results document: one typed model

#: Results files larger than this are refused before parsing (a results file of 238 questions x 48
#: generations with every verdict's reason is a few MB).
MAX_RESULTS_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Rule:
    """How a field's one-line error says what its value should be (``Annotated`` metadata of the model).

    Attributes:
        says: the rule, e.g. ``"should be a count (an int >= 0)"`` or ``"is malformed"``.
        shows_type: the error names the value's type (``got dict``) instead of the value.
    """

    says: str
    shows_type: bool = False


_COUNT = Rule("should be a count (an int >= 0)")
Count = Annotated[int, Field(ge=0)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(ge=1)]

if typing.TYPE_CHECKING:
    _T = typing.TypeVar("_T")
    #: A field that may be absent from a document (``None`` then) but is never ``null`` in one: type checkers
    #: see ``_T | None``, pydantic validates (and the schema shows) ``_T`` alone.
    Absent: typing.TypeAlias = _T | None
else:

    class Absent:
        """``Absent[T]`` is ``T`` to pydantic (see the type checkers' definition above)."""

        def __class_getitem__(cls, item):
            return item


class Interval(Contract):
    """A metric's bootstrap interval (``gpassk.uncertainty``), x 100: the one interval type.

    Written under the names ``ci_low``, ``ci_high`` and ``ci`` (the level);
    built from :class:`~gpassk_opencompass.metrics.MetricEstimate` (which
    :mod:`~gpassk_opencompass.metrics` keeps as a plain dataclass: it must
    import with numpy alone) by :meth:`from_estimate`, the one conversion.

    >>> Interval(low=31.0, high=35.5, level=0.95).contains(33.0)
    True
    >>> Interval.parse({"ci_low": 28.1, "ci_high": 32.0, "ci": 0.95}).model_dump(by_alias=True, exclude_unset=True)
    {'ci_low': 28.1, 'ci_high': 32.0, 'ci': 0.95}
    """

    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)

    mean: Finite | None = None
    stderr: Finite | None = None
    low: Finite = Field(alias="ci_low")
    high: Finite = Field(alias="ci_high")
    level: Finite | None = Field(default=None, alias="ci")

    @classmethod
    def from_estimate(cls, estimate: MetricEstimate) -> Interval:
        """The interval of a :func:`~gpassk_opencompass.metrics.summarize_uncertainty` estimate."""
        return cls(
            mean=estimate.mean, stderr=estimate.stderr, ci_low=estimate.ci_low, ci_high=estimate.ci_high, ci=estimate.ci
        )

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies within ``[low, high]``."""
        return self.low <= value <= self.high


class GPassKBlock(Contract):
    """The ``gpassk`` block: what was measured, how it was judged, the intervals and completeness.

    Every field may be absent in a file read back (schema 0 has no block, schema
    1 lacks ``complete`` .. ``bounds``); this package writes every field but
    ``rule_checker``/``judge_hosts`` (per judge kind), ``bayes`` (when asked
    for) and ``bounds`` (when incomplete).
    """

    benchmark: Annotated[str | None, Rule("should be a benchmark name")] = Field(
        default=None, description="canonical benchmark name (gpassk_opencompass.catalog)"
    )
    k: Absent[Annotated[PositiveInt | list[PositiveInt], Rule("should be a positive int or a list of them")]] = Field(
        default=None, description="the draws k (a list; one int in files of other writers)"
    )
    n: Annotated[PositiveInt | None, Rule("should be a positive int")] = Field(
        default=None, description="generations per question; null when it varies"
    )
    questions: Absent[Annotated[Count, _COUNT]] = Field(default=None, description="questions scored")
    thresholds: Absent[Annotated[list[Finite], Rule("should be a list of numbers")]] = Field(
        default=None, description="the tau values"
    )
    judge: Absent[Annotated[str, Rule("should be a judge kind")]] = Field(
        default=None, description="what judged: rule, llm or cascade"
    )
    judge_model: Annotated[str | None, Rule("should be a model name or null")] = Field(
        default=None, description="the judge model; null for the rule judge"
    )
    rule_checker: Absent[Annotated[str, Rule("should be a name and version")]] = Field(
        default=None, description="math-verify <version> (rule, cascade)"
    )
    judge_hosts: Absent[Annotated[list[str], Rule("should be a list of host:port")]] = Field(
        default=None, description="host:port of the judge model, without credentials (llm, cascade)"
    )
    prompt_version: Annotated[str | None, Rule("should be a version or null")] = Field(
        default=None, description="the judge prompt's version; null for the rule judge"
    )
    uncertainty: Absent[
        Annotated[dict[str, Annotated[Interval, Rule("is malformed")]], Rule("should be an object", shows_type=True)]
    ] = Field(default=None, description="bootstrap intervals by metric key; empty when not asked for or withheld")
    bayes: Absent[
        Annotated[
            dict[str, Annotated[BayesEstimate, Rule("is malformed")]], Rule("should be an object", shows_type=True)
        ]
    ] = Field(default=None, description="Bayesian credible intervals by metric key (--interval bayes, both)")
    judge_stats: Absent[
        Annotated[dict[str, Annotated[Count, _COUNT]], Rule("should be an object", shows_type=True)]
    ] = Field(
        default=None,
        description="what judging took: total, unique, deduplicated, cached, requests, retries, unresolved, by_rule",
    )
    identical_replicas_share: Absent[Annotated[Finite, Field(ge=0, le=1), Rule("should be a number in [0, 1]")]] = (
        Field(default=None, description="share of questions whose n generations are byte-identical")
    )
    schema_version: Absent[Annotated[Count, _COUNT]] = Field(
        default=None, description="this document's version (SCHEMA_VERSION)"
    )
    complete: Absent[Annotated[bool, Rule("should be true or false")]] = Field(
        default=None, description="every verdict resolved"
    )
    unresolved: Absent[Annotated[Count, _COUNT]] = Field(
        default=None, description="generations that could not be judged"
    )
    allow_unresolved: Absent[Annotated[bool, Rule("should be true or false")]] = Field(
        default=None, description="metrics kept although incomplete (they count unresolved verdicts as wrong)"
    )
    unresolved_reasons: Absent[
        Annotated[list[tuple[str, Count]], Rule("should be a list of [reason, count] pairs")]
    ] = Field(default=None, description="the most frequent reasons of unresolved verdicts (redacted)")
    bounds: Absent[
        Annotated[dict[str, tuple[Finite, Finite]], Rule("should be an object of [low, high] number pairs")]
    ] = Field(default=None, description="per metric [all unresolved wrong, all unresolved right] (incomplete results)")


class QuestionRecord(Contract):
    """One question of ``details``: its id, counts, subset labels (the other string fields), verdicts in
    generation order, and the digests of its generations and of its text and gold answer."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Annotated[str, Rule("should be a subset label (a string)")]] = Field(init=False)

    id: Annotated[str, Rule("should be a string")] = Field(description="the question's id")
    c: Annotated[Count, _COUNT] = Field(description="correct generations")
    n: Annotated[Count, _COUNT] = Field(description="generations")
    unresolved: Annotated[Count, _COUNT] = Field(default=0, description="generations that could not be judged")
    generations_sha256: Absent[Annotated[str, Rule("should be a hex string")]] = Field(
        default=None, description="texts_digest of the question's n generations (gpassk agree checks it)"
    )
    question_sha256: Absent[Annotated[str, Rule("should be a hex string")]] = Field(
        default=None, description="texts_digest of [question, gold answer] (gpassk compare checks it)"
    )
    verdicts: Annotated[
        tuple[
            Annotated[
                Verdict,
                Rule(
                    'should be an object whose "correct" (and "rule_correct") is true, false or null, with "extracted", '
                    '"reason" and "source"'
                ),
            ],
            ...,
        ],
        Rule("should be a list", shows_type=True),
    ] = Field(default=(), description="every generation's verdict; correct is null when it could not be judged")

    @model_validator(mode="after")
    def _counts_match_verdicts(self) -> QuestionRecord:
        if self.verdicts and (
            len(self.verdicts) != self.n or sum(verdict.correct is True for verdict in self.verdicts) != self.c
        ):
            raise InputError(f"c={self.c}, n={self.n} do not match its {len(self.verdicts)} verdicts")
        if "unresolved" not in self.model_fields_set and self.verdicts:  # written before the field
            object.__setattr__(self, "unresolved", sum(verdict.correct is None for verdict in self.verdicts))
        return self

    @property
    def labels(self) -> dict[str, str]:
        """The subset labels (``split``, ``language``, ...)."""
        return dict(self.__pydantic_extra__ or {})


class CompactDetails(Sequence[QuestionRecord]):
    """The ``details`` of a scoring, held compactly: each :class:`QuestionRecord` is built when it is read.

    Per generation a 4-byte index into the shared verdicts (one per distinct
    generation), per question its id, subset labels and 32-byte digests: a
    million questions cost ~150 bytes each, not a record's ~1.4 KB, and the
    results are written from them row by row (:func:`write_results`).
    :func:`~gpassk_opencompass.scoring.flow.scored_results` returns its
    ``details`` so; a file read back holds a tuple of records. Both read the same.

    Args:
        ids: the question ids, in order.
        labels: ``{subset column: one label per question}``.
        verdicts: the distinct verdicts.
        slots: per generation (questions in order, then generations in order), its index in ``verdicts``.
        offsets: where each question's generations start in ``slots``, then the end (one more than ``ids``).
        digests: ``{field of DIGEST_FIELDS: 32 bytes per question, concatenated}`` (:func:`texts_sha256`).

    >>> right, wrong = Verdict(True, "1", "ok", "rule"), Verdict(False, "2", "differ", "rule")
    >>> details = CompactDetails(["a", "b"], {"split": ["x", "y"]}, [right, wrong], [0, 1, 0], [0, 2, 3])
    >>> len(details), details[0].c, details[0].n, details[-1].labels, details[1].verdicts == (right,)
    (2, 1, 2, {'split': 'y'}, True)
    """

    def __init__(
        self,
        ids: Sequence[str],
        labels: Mapping[str, Sequence[str]],
        verdicts: Sequence[Verdict],
        slots: Iterable[int],
        offsets: Iterable[int],
        digests: Mapping[str, bytes | bytearray] | None = None,
    ) -> None:
        self.ids = list(ids)
        self.labels = {column: list(values) for column, values in labels.items()}
        self.verdicts = list(verdicts)
        self.slots = slots if isinstance(slots, array) and slots.typecode == "i" else array("i", slots)
        self.offsets = offsets if isinstance(offsets, array) and offsets.typecode == "q" else array("q", offsets)
        self.digests = dict(digests or {})
        per_generation = self.slot_array()
        owner = np.repeat(np.arange(len(self.ids)), np.diff(np.frombuffer(self.offsets, dtype=np.int64)))

        def count(which: list[bool]) -> np.ndarray:
            hits = np.array(which, dtype=np.int64)[per_generation] if len(per_generation) else per_generation
            return np.bincount(owner, weights=hits, minlength=len(self.ids)).astype(np.int64)

        self.n = np.diff(np.frombuffer(self.offsets, dtype=np.int64))
        self.c = count([verdict.correct is True for verdict in self.verdicts])
        self.unresolved = count([verdict.correct is None for verdict in self.verdicts])

    def slot_array(self) -> np.ndarray:
        """The per-generation indices into :attr:`verdicts` as a numpy array (no copy)."""
        return np.frombuffer(self.slots, dtype=np.int32)

    def __len__(self) -> int:
        return len(self.ids)

    @typing.overload
    def __getitem__(self, index: int) -> QuestionRecord: ...

    @typing.overload
    def __getitem__(self, index: slice) -> tuple[QuestionRecord, ...]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[position] for position in range(len(self))[index])
        position = range(len(self))[index]  # IndexError as a tuple's
        start, stop = self.offsets[position], self.offsets[position + 1]
        return QuestionRecord(
            id=self.ids[position],
            c=int(self.c[position]),
            n=stop - start,
            **{column: values[position] for column, values in self.labels.items()},
            unresolved=int(self.unresolved[position]),
            **{field: data[32 * position : 32 * position + 32].hex() for field, data in self.digests.items()},
            verdicts=tuple(self.verdicts[slot] for slot in self.slots[start:stop]),
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CompactDetails, tuple, list)):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple of its records, so not hashable

    def rows(self) -> Iterator[tuple[str, int, int, dict[str, str], int, dict[str, str], list[Verdict]]]:
        """Per question ``(id, c, n, labels, unresolved, digests, verdicts)``, as :func:`_detail_rows` gives them."""
        columns = list(self.labels.items())
        verdicts, slots, offsets = self.verdicts, self.slots, self.offsets
        for position, (question_id, c, unresolved) in enumerate(
            zip(self.ids, self.c.tolist(), self.unresolved.tolist())
        ):
            start, stop = offsets[position], offsets[position + 1]
            yield (
                question_id,
                c,
                stop - start,
                {column: values[position] for column, values in columns},
                unresolved,
                {field: data[32 * position : 32 * position + 32].hex() for field, data in self.digests.items()},
                [verdicts[slot] for slot in slots[start:stop]],
            )


def _detail_rows(
    details: Sequence[QuestionRecord],
) -> Iterator[tuple[str, int, int, dict[str, str], int, dict[str, str], Sequence[Verdict]]]:
    """Per question ``(id, c, n, labels, unresolved, digests, verdicts)``: what ``details[]`` writes."""
    if isinstance(details, CompactDetails):
        yield from details.rows()
        return
    for question in details:
        digests = {field: getattr(question, field) for field in DIGEST_FIELDS if getattr(question, field) is not None}
        yield question.id, question.c, question.n, question.labels, question.unresolved, digests, question.verdicts


class ResultsFile(Contract):
    """The results document, written and read by this one model (schema :data:`SCHEMA_VERSION`; 1 and 0 read).

    On disk: the metrics (x 100) at the top level -- ``accuracy (n runs
    average)``, ``G-Pass@{k}_{tau}``, ``mG-Pass@{k}``, and ``{subset}/{metric}``
    -- then ``unresolved``, the ``gpassk`` block and ``details``; the JSON
    Schema is :func:`results_schema` (shipped as ``gpassk_opencompass/data/results.schema.json``).

    Its :attr:`source` and :attr:`problems` (why its values cannot be believed: out of
    range, impossible counts, metrics its details do not reproduce) are set when it is read.
    """

    model_config = ConfigDict(extra="allow", validate_by_name=True, serialize_by_alias=True)
    __pydantic_extra__: dict[str, Annotated[float, Rule("should be a number (a metric)")]] = Field(init=False)

    recorded_unresolved: Absent[Annotated[Count, _COUNT]] = Field(
        default=None, alias="unresolved", description="generations that could not be judged"
    )
    gpassk: Annotated[GPassKBlock, Rule("should be an object", shows_type=True)] = Field(
        default_factory=GPassKBlock, description="what was measured and how (absent: another evaluator's results)"
    )
    details: Annotated[tuple[QuestionRecord, ...], Rule("should be a list", shows_type=True)] = Field(
        default=(), description="one entry per question, in question order"
    )

    _source: str = PrivateAttr("<document>")
    _problems: tuple[str, ...] = PrivateAttr(())

    @property
    def source(self) -> str:
        """Where it was read from (a path, or ``"<document>"``); not in the document."""
        return self._source

    @property
    def problems(self) -> tuple[str, ...]:
        """Why its values cannot be believed (:func:`~gpassk_opencompass.scoring.consistency.results_problems`)."""
        return self._problems

    @property
    def schema_version(self) -> int:
        """2 (this package now), 1 (before ``complete``/``unresolved``), 0 (no ``gpassk`` block)."""
        block = self.gpassk
        return block.schema_version if block.schema_version is not None else (1 if block.model_fields_set else 0)

    @property
    def metrics(self) -> dict[str, float]:
        """The top-level finite metric values, in file order (empty when an incomplete result withheld them)."""
        return {key: value for key, value in (self.__pydantic_extra__ or {}).items() if math.isfinite(value)}

    @property
    def unresolved(self) -> int:
        """Generations that could not be judged (the largest of the counts recorded)."""
        stats = self.gpassk.judge_stats or {}
        return max(
            (
                count
                for count in (self.recorded_unresolved, self.gpassk.unresolved, stats.get("unresolved"))
                if count is not None
            ),
            default=0,
        )

    @property
    def complete(self) -> bool:
        """Every verdict resolved (schema 0 and 1: judged by the recorded judge statistics, when any)."""
        return (self.gpassk.complete if self.gpassk.complete is not None else True) and self.unresolved == 0

    @property
    def uncertainty(self) -> dict[str, Interval]:
        """The bootstrap intervals by metric key."""
        return dict(self.gpassk.uncertainty or {})

    @property
    def bayes(self) -> dict[str, BayesEstimate]:
        """The Bayesian credible intervals by metric key (empty when not asked for)."""
        return dict(self.gpassk.bayes or {})

    @property
    def benchmark(self) -> str | None:
        return self.gpassk.benchmark

    @property
    def ks(self) -> tuple[int, ...]:
        """The k values of the result (``()`` when not recorded)."""
        k = self.gpassk.k
        return (k,) if isinstance(k, int) else tuple(k or ())

    @property
    def n(self) -> int | None:
        """Generations per question (``None`` when not recorded or varying)."""
        return self.gpassk.n

    @property
    def thresholds(self) -> tuple[float, ...]:
        return tuple(float(tau) for tau in self.gpassk.thresholds or ())

    @property
    def questions(self) -> int:
        """How many questions were scored (``gpassk.questions``, else the details)."""
        return self.gpassk.questions if self.gpassk.questions is not None else len(self.details)

    @property
    def generations(self) -> int | None:
        """How many generations were judged (judge statistics, else questions x n), ``None`` if unknown."""
        stats = self.gpassk.judge_stats or {}
        if stats.get("total"):
            return stats["total"]
        if self.gpassk.questions is not None and self.n is not None:
            return self.gpassk.questions * self.n
        return None

    @property
    def bounds(self) -> dict[str, tuple[float, float]]:
        """Per metric ``(all unresolved wrong, all unresolved right)``; empty when complete."""
        return dict(self.gpassk.bounds or {})

    def question_ids(self) -> list[str]:
        return [question.id for question in self.details]

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(c, n)`` per question, from ``details`` (unresolved verdicts are not correct)."""
        self._need_details()
        return (
            np.array([question.c for question in self.details], dtype=np.int64),
            np.array([question.n for question in self.details], dtype=np.int64),
        )

    def verdict_matrix(self) -> np.ndarray:
        """Questions x generations, ``1.0`` correct, ``0.0`` wrong, ``nan`` unresolved (n must be uniform)."""
        self._need_details()
        lengths = {len(question.verdicts) for question in self.details}
        if len(lengths) != 1:
            raise InputError(
                f"{self.source}: questions have different numbers of verdicts "
                f"({sorted(lengths)}); a verdict matrix needs the same n for every question"
            )
        values = {True: 1.0, False: 0.0, None: np.nan}
        return np.array([[values[verdict.correct] for verdict in question.verdicts] for question in self.details])

    def _need_details(self) -> None:
        if not self.details:
            raise InputError(
                f"{self.source}: has no per-question details (written by GPassKEvaluator or "
                "gpassk score, which record them)"
            )

    def document(self) -> dict:
        """The document as JSON-ready data (what OpenCompass and :func:`write_results` write), redacted.

        Fields that were never set are left out (a block not asked for is
        absent, not null). ``details`` are built leanly: each distinct verdict
        becomes one record shared by every generation it judged.
        """
        header, rows = self._parts()
        if rows is None:
            return header
        header["details"] = list(rows)
        return header

    def _parts(self) -> tuple[dict, Iterator[dict] | None]:
        """The redacted document without ``details``, and its ``details`` entries one by one (``None``: unset).

        Each string is redacted once however often it occurs: the header, each distinct verdict, each
        question's id and labels; the questions then reference the verdicts' records.
        """
        from gpassk_opencompass.redaction import redactor

        dumped = self.model_dump(mode="json", exclude_unset=True, exclude={"details"})
        metrics = self.model_extra or {}
        header = {**{key: dumped[key] for key in metrics}, **dumped}  # the metrics first, as always
        redaction = redactor()
        if "details" not in self.model_fields_set:
            return redaction.data(header), None
        if isinstance(self.details, CompactDetails):
            distinct = {id(verdict): verdict for verdict in self.details.verdicts}
        else:
            distinct = {id(verdict): verdict for question in self.details for verdict in question.verdicts}
        header, records = redaction.data([header, {key: asdict(verdict) for key, verdict in distinct.items()}])
        return header, self._rows(records, redaction)

    def _rows(self, records: Mapping[int, dict], redaction: Callable[[str], str]) -> Iterator[dict]:
        texts: dict[str, str] = {}

        def text(string: str) -> str:  # each distinct string redacted once (labels repeat; ids do not)
            done = texts.get(string)
            if done is None:
                done = redaction(string)
                if len(texts) < 10_000:
                    texts[string] = done
            return done

        for question_id, c, n, labels, unresolved, digests, verdicts in _detail_rows(self.details):
            yield {
                "id": text(question_id),
                "c": c,
                "n": n,
                **{text(column): text(label) for column, label in labels.items()},
                "unresolved": unresolved,
                **digests,
                "verdicts": [records[id(verdict)] for verdict in verdicts],
            }


#: The command that writes the shipped JSON Schema files again (after a change to the model).
REGENERATE_SCHEMA = (
    'python -c "import json; from gpassk_opencompass.scoring.results import results_schema; '
    'print(json.dumps(results_schema(), indent=2))" | tee gpassk_opencompass/data/results.schema.json '
    "> docs/results.schema.json"
)


def results_schema() -> dict:
    """The JSON Schema of the results document (schema :data:`SCHEMA_VERSION`), generated from :class:`ResultsFile`.

    Shipped as ``gpassk_opencompass/data/results.schema.json`` and ``docs/results.schema.json``; regenerate both
    with :data:`REGENERATE_SCHEMA`.
    """
    schema = ResultsFile.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"gpassk-results-v{SCHEMA_VERSION}",
        **schema,
    }


def read_results(document: Mapping | ResultsFile, source: str = "<document>") -> ResultsFile:
    """Validate a results document (as written by this package, or any OpenCompass evaluator) into the model.

    Schema 2 is read as declared; schema 1 and 0 (another evaluator's results)
    are read leniently as before: their top-level values that are not numbers and
    the ``gpassk`` fields they never had are ignored.

    Raises:
        InputError: naming the source and the first malformed field, in one line.

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
    gpassk_opencompass.errors.InputError: r.json: the results' unresolved should be a count (an int >= 0), got -1
    """
    if isinstance(document, ResultsFile):
        return document
    if not isinstance(document, Mapping):
        raise InputError(f"{source}: a results file holds a JSON object, got {type(document).__name__}")
    info = document.get("gpassk", {})
    version = info.get("schema_version", 1 if info else 0) if isinstance(info, Mapping) else SCHEMA_VERSION
    if not is_int(version) or not 0 <= version <= SCHEMA_VERSION:
        raise InputError(
            f"{source}: unknown results schema_version {version!r}; this gpassk-opencompass reads "
            f"versions up to {SCHEMA_VERSION} (upgrade it to read newer files)"
        )
    if version < SCHEMA_VERSION:
        document = _legacy(document)
    try:
        record = ResultsFile.model_validate_json(json.dumps(document, ensure_ascii=False))
    except ValidationError as error:
        raise _explain(error, document, source) from None
    return _checked(record, source)


def load_results(path) -> ResultsFile:
    """Read and validate a results JSON file (:func:`read_results`); size-capped, one-line errors.

    A file as this package writes it is parsed and validated in one step
    (pydantic-core); anything else is parsed with the JSON limits of
    :mod:`~gpassk_opencompass.files` and explained by :func:`read_results`.
    """
    try:
        data = read_bytes_bounded(path, MAX_RESULTS_BYTES, "one JSON document")
    except UnreadableFile as error:
        raise UnreadableJSON(str(error)) from None
    check_containers(data, str(path))  # what either parser builds, bounded before it builds it
    try:
        record = ResultsFile.model_validate_json(data)
    except ValidationError:
        pass
    else:
        if record.schema_version <= SCHEMA_VERSION:
            return _checked(record, str(path))
    return read_results(load_json_text(data, source=str(path), max_bytes=MAX_RESULTS_BYTES), str(path))


def _checked(record: ResultsFile, source: str) -> ResultsFile:
    """``record`` with its source and :attr:`ResultsFile.problems` set."""
    from gpassk_opencompass.scoring.consistency import results_problems

    problems = results_problems(record)
    record._source, record._problems = source, problems  # private attributes: settable on a frozen model
    return record


def _legacy(document: Mapping) -> dict:
    """A schema 0 or 1 document as the model reads it: top-level values other than numbers and ``gpassk``
    fields the block never had are ignored, as every reader of those versions did."""
    kept = {
        key: value
        for key, value in document.items()
        if key in ("gpassk", "details", "unresolved") or (is_int(value) or isinstance(value, float))
    }
    info = kept.get("gpassk")
    if isinstance(info, Mapping):
        kept["gpassk"] = {key: value for key, value in info.items() if key in GPassKBlock.model_fields}
    return kept


def _explain(error: ValidationError, document: Mapping, source: str) -> InputError:
    """The first problem of a validation error as today's one line: where, the value, the field's :class:`Rule`."""
    first = error.errors(include_url=False)[0]
    loc, kind = first["loc"], first["type"]
    if kind == "extra_forbidden":
        return input_error(error, source, ResultsFile)
    parts, found, annotation, value = [], None, ResultsFile, document
    for part in loc:
        step = _step(annotation, part)
        if step is None:
            break
        annotation, rules, shown = step
        parts.append(shown)
        value = _child(value, part)
        if rules:
            found = (rules[0], _where(parts), value)
    if kind == "value_error":
        cause = first.get("ctx", {}).get("error", first["msg"])
        return InputError(f"{source}: {_where(parts)}: {cause}" if parts else f"{source}: {cause}")
    if found is None:
        return input_error(error, source, ResultsFile)
    rule, where, value = found
    prefix = "" if where.startswith("details[") else "the results' "
    got = type(value).__name__ if rule.shows_type else repr(value)
    return InputError(f"{source}: {prefix}{where} {rule.says}, got {got}")


def _step(annotation, part):
    """One step of an error location into the model: ``(annotation, rules, shown)`` or ``None``."""
    annotation = _optional(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = {info.alias or name: info for name, info in annotation.model_fields.items()}
        if part in fields:
            inner, rules = _unwrap(fields[part].annotation)
            return inner, [*_rules(fields[part].metadata), *rules], ("field", part)
        extra = typing.get_type_hints(annotation, include_extras=True).get("__pydantic_extra__")
        if extra is not None and isinstance(part, str):
            return (*_unwrap(typing.get_args(extra)[1]), ("field", part))
        return None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple) and isinstance(part, int):
        return (*_unwrap(args[0]), ("index", part))
    if origin is dict and isinstance(part, str):
        return (*_unwrap(args[1]), ("key", part))
    return None


def _optional(annotation):
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [arg for arg in args if arg is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def _unwrap(annotation) -> tuple[object, list[Rule]]:
    if typing.get_origin(annotation) is Annotated:
        inner, rules = _unwrap(annotation.__origin__)
        return inner, [*_rules(annotation.__metadata__), *rules]
    return annotation, []


def _rules(metadata) -> list[Rule]:
    return [item for item in metadata if isinstance(item, Rule)]


def _child(value, part):
    if isinstance(value, Mapping):
        return value.get(part)
    if isinstance(value, (list, tuple)) and isinstance(part, int) and -len(value) <= part < len(value):
        return value[part]
    return None


def _where(parts: list[tuple[str, object]]) -> str:
    """``gpassk.k``, ``gpassk.uncertainty['mG-Pass@2']``, ``details[0].verdicts[2]``, ``details[1]."c"``."""
    text = ""
    for position, (kind, part) in enumerate(parts):
        if kind == "index":
            text += f"[{part}]"
        elif kind == "key":
            text += f"[{part!r}]"
        elif position and parts[position - 1][0] == "index" and position == len(parts) - 1:
            text += f'."{part}"'  # a question's own field, quoted as it always was
        else:
            text += f".{part}" if text else str(part)
    return text


def write_results(path, results: ResultsFile | Mapping) -> None:
    """Write a results document atomically, redacted, as indented UTF-8 JSON; ``details`` last, one question a line.

    A mapping is validated first (:func:`read_results`): nothing but the one
    model is written. One line per question keeps a million generations fast
    to write (the standard library's indenting encoder is pure Python) and easy to read.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> write_results(path, {"accuracy": 50.0, "details": [{"id": "q1", "c": 1, "n": 2}, {"id": "q2", "c": 0, "n": 2}]})
    >>> print(path.read_text(), end="")
    {
      "accuracy": 50.0,
      "details": [
        {"id": "q1", "c": 1, "n": 2, "unresolved": 0, "verdicts": []},
        {"id": "q2", "c": 0, "n": 2, "unresolved": 0, "verdicts": []}
      ]
    }
    """
    from gpassk_opencompass.files.writing import write_chunks_atomic

    header, rows = read_results(results)._parts()
    text = json.dumps(header, indent=2, ensure_ascii=False)
    if rows is None:
        write_chunks_atomic(path, (text, "\n"))
        return
    write_chunks_atomic(path, _streamed((text[:-2] + ",\n" if header else "{\n") + '  "details": [', rows))


def _streamed(head: str, rows: Iterator[dict], chunk_chars: int = 1 << 20) -> Iterator[str]:
    """``head``, then the ``details`` rows one a line (in chunks of about ``chunk_chars``), then the document's end."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    yield head
    chunk: list[str] = []
    size, separator = 0, "\n    "
    for row in rows:
        chunk.append(encode(row))
        size += len(chunk[-1])
        if size >= chunk_chars:
            yield separator + ",\n    ".join(chunk)
            chunk, size, separator = [], 0, ",\n    "
    if chunk:
        yield separator + ",\n    ".join(chunk)
    yield ("]" if separator == "\n    " and not chunk else "\n  ]") + "\n}\n"


# ---------------------------------------------------------------- the console report


def format_report(results: ResultsFile | Mapping) -> str:
    """A readable summary of a results document: one row per metric with its intervals.

    With unresolved verdicts every row also shows the metric's range between
    "all unresolved wrong" and "all unresolved right" (``gpassk.bounds``), and
    a value withheld because of them is shown as ``-``. Bayesian credible
    intervals (``gpassk.bayes``) get their own column when present.

    >>> result = {"accuracy (8 runs average)": 50.0, "G-Pass@4_0.5": 71.5, "mG-Pass@4": 16.25,
    ...           "gpassk": {"n": 8, "judge": "rule", "prompt_version": None, "questions": 2,
    ...                      "uncertainty": {"accuracy (8 runs average)": {"ci_low": 40.0, "ci_high": 60.0, "ci": 0.95},
    ...                                      "G-Pass@4_0.5": {"ci_low": 60.0, "ci_high": 80.0, "ci": 0.95},
    ...                                      "mG-Pass@4": {"ci_low": 10.0, "ci_high": 20.5, "ci": 0.95}},
    ...                      "judge_stats": {"total": 16, "unique": 5, "cached": 0, "requests": 0,
    ...                                      "retries": 0, "unresolved": 0}}}
    >>> print(format_report(result))
    2 questions, n=8, rule judge
    metric                       value   95% CI
    accuracy (8 runs average)    50.00   [40.00, 60.00]
    G-Pass@4_0.5                 71.50   [60.00, 80.00]
    mG-Pass@4                    16.25   [10.00, 20.50]
    judged 16 generations: 5 distinct, 0 from cache, 0 requests (0 retries), 0 unresolved
    >>> result["gpassk"]["bayes"] = {"G-Pass@4_0.5": {"mean": 70.0, "std": 5.0, "low": 60.2, "high": 79.8,
    ...     "level": 0.95, "prior": [1.0, 1.0], "method": "normal"}}
    >>> print(format_report(result).splitlines()[1:4])
    ['metric                       value   95% CI           95% credible (Beta(1, 1) prior)', 'accuracy (8 runs average)    50.00   [40.00, 60.00]', 'G-Pass@4_0.5                 71.50   [60.00, 80.00]   [60.20, 79.80]']
    >>> del result["gpassk"]["bayes"]
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
    if not isinstance(results, ResultsFile):  # the report needs no per-question details when the count is recorded
        recorded = isinstance(results.get("gpassk"), Mapping) and "questions" in results["gpassk"]
        results = read_results({**results, "details": []} if recorded else results)
    record = results
    info, bounds, uncertainty, bayes = record.gpassk, record.bounds, record.uncertainty, record.bayes
    keys = list(dict.fromkeys([*uncertainty, *record.metrics, *bounds]))
    width = max(len(key) for key in keys) + 3
    level = next((entry.level for entry in uncertainty.values() if entry.level is not None), None) or next(
        (entry.level for entry in bayes.values()), 0.95
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
    return "\n".join(lines)
