"""The results document: one typed model, :class:`ResultsFile`, that writes and reads it, and its schema.

The document is defined once, by :class:`ResultsFile` (its ``gpassk`` block :class:`GPassKBlock`, its
``details`` :class:`~gpassk_opencompass.scoring.details.QuestionRecord` with
:class:`~gpassk_opencompass.judges.types.Verdict` s, its intervals :class:`Interval`): the same model
writes and reads it, and its JSON Schema (:func:`results_schema`) is shipped as
``gpassk_opencompass/data/results.schema.json`` and ``docs/results.schema.json``, every field with its
type, rule and meaning; a value against a field's declared rule is explained by
:func:`~gpassk_opencompass.contracts.input_error`. ``gpassk.schema_version`` = :data:`SCHEMA_VERSION` = 5;
4: written before the verdict cache was recorded (``gpassk.cache``); 3: before the curtailed design (``gpassk.curtail``: an older reader would take its metrics as fixed-n);
2: before the cut generations (``gpassk.cut``, ``details[].cut``/``no_answer``); 1: before
``complete``/``unresolved``/``bounds``; 0: no ``gpassk`` block, another evaluator's results. Percentages are x 100.

A verdict that could not be obtained is never scored as wrong: with any unresolved verdict the metric
keys, ``uncertainty`` and ``bayes`` are left out (unless the caller allows unresolved verdicts; then the
values count them as wrong -- the lower end of ``bounds`` -- and ``complete`` is false).
``gpassk.bayes`` and the two digests of ``details[]`` are optional fields added within schema 2. A field
added from now on is declared in the model (unknown fields are refused), so a shape older readers would
refuse bumps :data:`SCHEMA_VERSION`.

Computing a document is :mod:`~gpassk_opencompass.scoring.compute`'s, reading and writing one
:mod:`~gpassk_opencompass.scoring.results_io`'s (which also checks whether its values can be believed,
:attr:`ResultsFile.problems`), printing one :mod:`~gpassk_opencompass.render.score_report`'s.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import numpy as np
from pydantic import ConfigDict, Field, PrivateAttr

from gpassk_opencompass.contracts import Absent, Contract, Count, Finite, PositiveInt
from gpassk_opencompass.curtailed import RULES, Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import MetricEstimate
from gpassk_opencompass.scoring.details import QuestionRecord
from gpassk_opencompass.uncertainty.bayes import BayesEstimate

#: The results document's schema: 5 adds the verdict cache used (gpassk.cache); 4 the curtailed design
#: (gpassk.curtail); 3 the cut generations (gpassk.cut, details[].cut/no_answer); 2 complete/unresolved/bounds
#: (1: before them).
SCHEMA_VERSION = 5


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


class CutGenerations(Contract):
    """``gpassk.cut``: how many generations were cut at the output limit, and how many more end without a
    final answer (:mod:`~gpassk_opencompass.scoring.cut`), and who said so.

    >>> cut = CutGenerations(generations=120, cut=30, no_answer=12, recorded=120, source="finish_reason")
    >>> cut.share, cut.lower_bound
    (0.25, False)
    """

    generations: Count = Field(description="generations looked at (every question's n)")
    cut: Count = Field(description="generations cut at the output limit")
    no_answer: Count = Field(description="generations not cut that end without a final answer")
    recorded: Count = Field(description="generations whose stop reason the tool recorded (finish_reason)")
    source: Literal["finish_reason", "extraction", "mixed"] = Field(
        description="finish_reason: every generation's recorded stop reason; extraction: none recorded, the "
        "extraction's check (no final answer, the text stops mid-sentence); mixed: each where it has one"
    )

    @property
    def share(self) -> float:
        """The share of generations cut at the output limit (0 when there are none)."""
        return self.cut / self.generations if self.generations else 0.0

    @property
    def lower_bound(self) -> bool:
        """Whether :attr:`cut` is only a lower bound: some generations have no recorded stop reason, and the
        text check finds a cut only where the text stops mid-sentence without an answer (one cut at a
        sentence's end, or after an answer, is not seen)."""
        return self.recorded < self.generations


class CacheUse(Contract):
    """``gpassk.cache``: the verdict cache the judge kept its verdicts in, and how many came from it.

    >>> CacheUse(file="/home/a/.cache/gpassk-opencompass/verdicts/0f.jsonl", verdicts=3).verdicts
    3
    """

    file: str = Field(
        description="the verdict cache file (chosen by the user, or the default in the user's cache folder)"
    )
    verdicts: Count = Field(description="distinct judgments answered from the cache, not asked of the judge")


class Curtailment(Contract):
    """``gpassk.curtail``: the curtailed two-stage design the generations were drawn under, and what it saved.

    Every metric of such a file is the design's own unbiased estimate (:mod:`gpassk_opencompass.curtailed`),
    never the fixed-n formula on the counts; :attr:`design` gives the estimator to anyone who recomputes them.

    >>> block = Curtailment(n1=16, n=48, rule="all-wrong", stopped=19, generations=832, fixed_n_generations=1440)
    >>> block.design, block.saved
    (Curtailed(n1=16, n=48, rule='all-wrong'), 608)
    """

    n1: PositiveInt = Field(description="stage-1 generations of every question")
    n: PositiveInt = Field(description="generations of a question whose stage 1 missed the rule")
    rule: Literal[tuple(RULES)] = Field(  # type: ignore[valid-type]  # the rules' names, declared from their home
        description="when a question stopped at n1 (all-wrong: no stage-1 generation correct; all-wrong-or-right: "
        "none or all)"
    )
    stopped: Count = Field(description="questions stopped at n1")
    generations: Count = Field(description="generations drawn")
    fixed_n_generations: Count = Field(description="generations a fixed-n run would have drawn (questions x n)")

    @property
    def design(self) -> Curtailed:
        """The design, whose estimator every metric of the file is."""
        return Curtailed(self.n1, self.n, self.rule)

    @property
    def saved(self) -> int:
        """Generations not drawn, against a fixed n."""
        return self.fixed_n_generations - self.generations


class GPassKBlock(Contract):
    """The ``gpassk`` block: what was measured, how it was judged, the intervals and completeness.

    Every field may be absent in a file read back (schema 0 has no block, schema
    1 lacks ``complete`` .. ``bounds``); this package writes every field but
    ``rule_checker``/``judge_hosts`` (per judge kind), ``bayes`` (when asked
    for) and ``bounds`` (when incomplete).
    """

    benchmark: str | None = Field(default=None, description="canonical benchmark name (gpassk_opencompass.catalog)")
    k: Absent[PositiveInt | list[PositiveInt]] = Field(
        default=None, description="the draws k (a list; one int in files of other writers)"
    )
    n: PositiveInt | None = Field(default=None, description="generations per question; null when it varies")
    questions: Absent[Count] = Field(default=None, description="questions scored")
    thresholds: Absent[list[Finite]] = Field(default=None, description="the tau values")
    judge: Absent[str] = Field(default=None, description="what judged: rule, llm or cascade")
    judge_model: str | None = Field(default=None, description="the judge model; null for the rule judge")
    rule_checker: Absent[str] = Field(default=None, description="math-verify <version> (rule, cascade)")
    judge_hosts: Absent[list[str]] = Field(
        default=None, description="host:port of the judge model, without credentials (llm, cascade)"
    )
    prompt_version: str | None = Field(default=None, description="the judge prompt's version; null for the rule judge")
    uncertainty: Absent[dict[str, Interval]] = Field(
        default=None, description="bootstrap intervals by metric key; empty when not asked for or withheld"
    )
    bayes: Absent[dict[str, BayesEstimate]] = Field(
        default=None, description="Bayesian credible intervals by metric key (--interval bayes, both)"
    )
    judge_stats: Absent[dict[str, Count]] = Field(
        default=None,
        description="what judging took: total, unique, deduplicated, cached, requests, retries, unresolved, by_rule",
    )
    identical_replicas_share: Absent[Annotated[Finite, Field(ge=0, le=1)]] = Field(
        default=None, description="share of questions whose n generations are byte-identical"
    )
    schema_version: Absent[Count] = Field(default=None, description="this document's version (SCHEMA_VERSION)")
    complete: Absent[bool] = Field(default=None, description="every verdict resolved")
    unresolved: Absent[Count] = Field(default=None, description="generations that could not be judged")
    allow_unresolved: Absent[bool] = Field(
        default=None, description="metrics kept although incomplete (they count unresolved verdicts as wrong)"
    )
    unresolved_reasons: Absent[list[tuple[str, Count]]] = Field(
        default=None, description="the most frequent reasons of unresolved verdicts (redacted)"
    )
    bounds: Absent[dict[str, tuple[Finite, Finite]]] = Field(
        default=None, description="per metric [all unresolved wrong, all unresolved right] (incomplete results)"
    )
    cut: Absent[CutGenerations] = Field(
        default=None, description="generations cut at the output limit and without a final answer (schema 3)"
    )
    cache: Absent[CacheUse] = Field(
        default=None, description="the verdict cache used and how many verdicts came from it (schema 5)"
    )
    curtail: Absent[Curtailment] = Field(
        default=None,
        description="the curtailed two-stage design the generations were drawn under; its metrics are that "
        "design's unbiased estimates (schema 4)",
    )


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
    __pydantic_extra__: dict[str, float] = Field(init=False)

    recorded_unresolved: Absent[Count] = Field(
        default=None, alias="unresolved", description="generations that could not be judged"
    )
    gpassk: GPassKBlock = Field(
        default_factory=GPassKBlock, description="what was measured and how (absent: another evaluator's results)"
    )
    details: tuple[QuestionRecord, ...] = Field(default=(), description="one entry per question, in question order")

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
        """3 (this package now), 2 (before ``gpassk.cut``), 1 (before ``complete``/``unresolved``), 0 (no
        ``gpassk`` block)."""
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
    def cut(self) -> CutGenerations | None:
        """The cut generations of the run (``None``: not recorded, written before schema 3)."""
        return self.gpassk.cut

    @property
    def design(self) -> Curtailed | None:
        """The curtailed design whose estimator the metrics are (``None``: a fixed n per question)."""
        return self.gpassk.curtail.design if self.gpassk.curtail is not None else None

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

    def _need_details(self) -> None:
        if not self.details:
            raise InputError(
                f"{self.source}: has no per-question details (written by GPassKEvaluator or "
                "gpassk score, which record them)"
            )


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
