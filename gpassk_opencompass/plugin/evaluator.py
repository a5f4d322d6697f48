"""GPassKEvaluator: G-Pass@k_tau and mG-Pass@k as an OpenCompass evaluator.

Use it in any dataset config that sets ``n`` (generations per question) and
``k``::

    from gpassk_opencompass import GPassKEvaluator

    eval_cfg = dict(evaluator=dict(type=GPassKEvaluator, judge="auto",
                                   url=["http://judge-host:8000/v1"], model_name="LiveMath-Judge"))
    dataset = dict(..., eval_cfg=eval_cfg, n=48, k=[4, 8, 16])

OpenCompass repeats the dataset n times and hands the evaluator all M x n
predictions at once. Unlike ``BaseEvaluator.evaluate`` (which calls
``score()`` once per replica), this evaluator checks the layout, judges every
prediction in one batched, deduplicated, cached pass, and computes the
metrics exactly (:mod:`gpassk_opencompass.metrics`), overall and per subset
read from explicit columns (``split``, ``language``). This module is the only
glue: the work is in :mod:`~gpassk_opencompass.plugin.replicas`,
:mod:`~gpassk_opencompass.judges` and :mod:`~gpassk_opencompass.scoring.results`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from loguru import logger
from opencompass.openicl.icl_evaluator import BaseEvaluator
from opencompass.registry import ICL_EVALUATORS

from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items, resolve_kind
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, check_request
from gpassk_opencompass.plugin.replicas import by_question, check_replicas_align, question_count
from gpassk_opencompass.scoring.results import (
    IDENTICAL_SHARE_WARNING,
    gpassk_results,
    identical_share,
    question_details,
    results_document,
    unresolved_summary,
    warn_if_identical,
)

#: Columns used as subsets when ``subset_columns`` is not given (those present).
DEFAULT_SUBSET_COLUMNS = ("split", "language")
#: Judge verdicts of an evaluation go here, under the evaluator's output dir.
CACHE_FILE = "judge_cache.jsonl"


@dataclass(frozen=True)
class EvaluationSettings:
    """What the evaluator computes besides judging (validated on construction)."""

    thresholds: tuple = DEFAULT_THRESHOLDS
    question_column: str = "question"
    subset_columns: tuple[str, ...] | None = None
    language: str = "en"
    language_column: str = "language"
    benchmark: str | None = None
    ci: float = 0.95
    n_boot: int = 1000
    seed: int = 0
    identical_warning: float = IDENTICAL_SHARE_WARNING
    allow_unresolved: bool = False

    def __post_init__(self) -> None:
        thresholds = (self.thresholds,) if isinstance(self.thresholds, (int, float)) else tuple(self.thresholds)
        check_request([1], thresholds)  # validates every tau, refuses a repeated one
        object.__setattr__(self, "thresholds", thresholds)
        if not isinstance(self.allow_unresolved, bool):
            raise ValueError(f"allow_unresolved must be True or False; got {self.allow_unresolved!r}")
        if self.subset_columns is not None:
            columns = (self.subset_columns,) if isinstance(self.subset_columns, str) else tuple(self.subset_columns)
            object.__setattr__(self, "subset_columns", columns)
        if self.language not in ("en", "cn"):
            raise ValueError(f"language must be 'en' or 'cn' (the judge prompt's language); got {self.language!r}")
        if self.benchmark is not None:
            from gpassk_opencompass.catalog import get_benchmark

            get_benchmark(self.benchmark)
        if not 0 <= self.identical_warning <= 1:
            raise ValueError(f"identical_warning must be a share in [0, 1]; got {self.identical_warning!r}")


@ICL_EVALUATORS.register_module(name="GPassKEvaluator")
class GPassKEvaluator(BaseEvaluator):
    """Judge the n generations of every question once, report G-Pass@k_tau and mG-Pass@k.

    Args:
        model_name: the judge model's served name (as LiveMathBenchEvaluator).
        url: judge base URL(s), ``http://host:port/v1`` (str or list).
        judge: ``"auto"`` (the LLM judge when URLs are given, else the rule
            judge; said in one log line), ``"rule"``, ``"llm"`` or ``"cascade"``.
        thresholds: the tau values reported for every k.
        concurrency: judge requests in flight per URL.
        request_timeout: seconds per judge request.
        max_retries: retries per judge request (429, 5xx, timeouts, drops).
        question_column: the dataset column holding the question text.
        subset_columns: columns whose labels get their own ``{label}/{metric}``
            keys; ``None`` uses ``split`` and ``language`` where present.
        language: judge prompt language when the dataset has no
            ``language_column``.
        language_column: the column holding ``en``/``cn`` per question.
        benchmark: the canonical benchmark name (recorded in the results for
            the leaderboard).
        ci: bootstrap confidence level; n_boot: resamples; seed: its seed.
        identical_warning: warn when at least this share of questions got n
            byte-identical generations (a seed shared by all replicas).
        allow_unresolved: with generations the judge could not judge, still
            report the metric keys (counting those as wrong; the results say
            ``complete: false`` and give each metric's range). By default
            they are left out and only ``unresolved`` and ``gpassk`` are
            reported: an unjudged answer is not a wrong answer.
        pred_postprocessor: OpenCompass's optional prediction postprocessor.
        **judge_options: further :class:`~gpassk_opencompass.judges.JudgeSettings`
            fields (``max_tokens``, ``rule_timeout``, ...).
    """

    def __init__(
        self,
        model_name: str = "",
        url: str | Sequence[str] | None = None,
        *,
        judge: str = "auto",
        thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
        concurrency: int = 32,
        request_timeout: float = 600.0,
        max_retries: int = 5,
        question_column: str = "question",
        subset_columns: Sequence[str] | None = None,
        language: str = "en",
        language_column: str = "language",
        benchmark: str | None = None,
        ci: float = 0.95,
        n_boot: int = 1000,
        seed: int = 0,
        identical_warning: float = IDENTICAL_SHARE_WARNING,
        allow_unresolved: bool = False,
        pred_postprocessor: dict | None = None,
        use_extract_model: bool = False,
        **judge_options,
    ) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)
        if use_extract_model:
            raise ValueError("use_extract_model=True (LiveMathBenchEvaluator's extraction model) is not supported: "
                             "GPassKEvaluator extracts the final answer itself and shows it to the judge")
        for unused in ("extract_url", "extract_model_name"):
            judge_options.pop(unused, None)  # LiveMathBenchEvaluator keywords, meaningless here
        urls = (url,) if isinstance(url, str) else tuple(url or ())
        kind = resolve_kind(judge, urls)
        self.judge_settings = JudgeSettings(kind=kind, urls=urls, model=model_name, concurrency=concurrency,
                                            request_timeout=request_timeout, max_retries=max_retries,
                                            **judge_options)
        self.settings = EvaluationSettings(
            thresholds=thresholds, question_column=question_column, subset_columns=subset_columns,
            language=language, language_column=language_column, benchmark=benchmark, ci=ci, n_boot=n_boot,
            seed=seed, identical_warning=identical_warning, allow_unresolved=allow_unresolved)
        how = {"rule": "the rule judge (math-verify)", "llm": f"the LLM judge {model_name!r} at {', '.join(urls)}",
               "cascade": f"the rule judge, then the LLM judge {model_name!r} at {', '.join(urls)}"}[kind]
        reason = {"auto": " (judge='auto': " + ("URLs given)" if urls else "no judge URL given)")}.get(judge, "")
        self._judge_description = how + reason

    def score(self, predictions, references, test_set):
        """One replica's worth (``n = 1``): accuracy per question set."""
        return self.evaluate(1, 1, test_set, predictions=predictions, references=references, test_set=test_set)

    def evaluate(self, k, n, original_dataset, **score_kwargs):
        """Validate, judge all predictions in one pass, and report (OpenCompass calls this)."""
        ks = [k] if isinstance(k, int) else list(k)
        predictions = list(score_kwargs["predictions"])
        references = list(score_kwargs["references"])
        dataset = original_dataset
        self._check_inputs(ks, n, dataset, predictions, references)
        predictions = self.pred_postprocess(predictions)
        questions = question_count(len(predictions), n)
        columns = dataset.column_names
        check_replicas_align(_row_keys(dataset), n)

        languages = (dataset[self.settings.language_column] if self.settings.language_column in columns
                     else [self.settings.language] * len(predictions))
        items = [JudgeItem(question=str(question), reference=str(reference), response=str(prediction),
                           language=_judge_language(language, row))
                 for row, (question, reference, prediction, language) in enumerate(
                     zip(dataset[self.settings.question_column], references, predictions, languages))]

        logger.info(f"GPassKEvaluator: {questions} questions x n={n}, judged by {self._judge_description}")
        judged = judge_items(items, self._judge_settings_for_run())
        verdicts = by_question(judged.verdicts, n)
        counts = [sum(verdict.correct is True for verdict in question) for question in verdicts]
        first_replica = dataset.select(range(questions))
        subsets = {column: [str(label) for label in first_replica[column]]
                   for column in self._subset_columns(columns)}
        results = gpassk_results(counts, n, ks, self.settings.thresholds, subsets,
                                 ci=self.settings.ci, n_boot=self.settings.n_boot, seed=self.settings.seed)
        share = identical_share(by_question(predictions, n))
        warn_if_identical(share, self.settings.identical_warning)
        details = [question_details(question_id, verdicts[index],
                                    {column: labels[index] for column, labels in subsets.items()})
                   for index, question_id in enumerate(_question_ids(first_replica))]
        document = results_document(results, judged, self.judge_settings, ks=ks,
                                    thresholds=self.settings.thresholds, benchmark=self.settings.benchmark,
                                    identical=share, details=details,
                                    allow_unresolved=self.settings.allow_unresolved)
        if document["unresolved"]:
            logger.error("GPassKEvaluator: INCOMPLETE -- " + unresolved_summary(document, resume=self._resume_hint())
                         .replace("\n", " | "))
        return document

    def _resume_hint(self) -> str:
        """How to re-ask only the unresolved verdicts of this evaluation."""
        settings = self._judge_settings_for_run()
        metrics = ("the metrics count them as wrong here (allow_unresolved=True): see gpassk.bounds"
                   if self.settings.allow_unresolved else "the metric keys are left out of the results")
        out_dir = getattr(self, "_out_dir", None)
        if settings.cache_path is None or out_dir is None:
            return f"{metrics}; judge again to re-ask them"
        return (f"{metrics}; every verdict that arrived is kept in {settings.cache_path}; delete {out_dir}.json "
                "and rerun the same opencompass command with -r <timestamp> to re-ask only these")

    # ------------------------------------------------------------------ helpers

    def _check_inputs(self, ks, n, dataset, predictions, references) -> None:
        """Every user mistake we can see, before the first judgment."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"dataset n must be a positive integer (generations per question); got n={n!r}")
        for k in ks:
            if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
                raise ValueError(f"dataset k must be integers with 1 <= k <= n={n}; got k={k!r}")
        check_request(ks, self.settings.thresholds)
        if not (len(predictions) == len(references) == len(dataset)):
            raise ValueError(f"predictions ({len(predictions)}), references ({len(references)}) and dataset rows "
                             f"({len(dataset)}) must have the same length")
        question_count(len(predictions), n)
        columns = dataset.column_names
        if self.settings.question_column not in columns:
            raise ValueError(f"question_column={self.settings.question_column!r} is not a dataset column; "
                             f"columns are {columns}: set question_column= in the evaluator config")
        for column in self.settings.subset_columns or ():
            if column not in columns:
                raise ValueError(f"subset column {column!r} is not a dataset column; columns are {columns}")
        for row, prediction in enumerate(predictions):
            if not isinstance(prediction, str):
                raise ValueError(f"prediction {row} is a {type(prediction).__name__}, expected the model's text; "
                                 "check the model's output format")

    def _subset_columns(self, columns: Sequence[str]) -> tuple[str, ...]:
        if self.settings.subset_columns is not None:
            return self.settings.subset_columns
        return tuple(column for column in DEFAULT_SUBSET_COLUMNS if column in columns)

    def _judge_settings_for_run(self) -> JudgeSettings:
        """The judge settings with the durable cache placed in this run's output dir."""
        out_dir = getattr(self, "_out_dir", None)
        if out_dir is None or not self.judge_settings.uses_model:
            return self.judge_settings
        os.makedirs(out_dir, exist_ok=True)
        return replace(self.judge_settings, cache_path=os.path.join(out_dir, CACHE_FILE))


def _row_keys(dataset) -> list:
    """What identifies a row's question: OpenCompass's (subdivision, idx) when present."""
    columns = dataset.column_names
    if "subdivision" in columns and "idx" in columns:
        return list(zip(dataset["subdivision"], dataset["idx"]))
    return list(dataset[columns[0]])


def _question_ids(first_replica) -> list[str]:
    columns = first_replica.column_names
    if "question_id" in columns:
        return [str(value) for value in first_replica["question_id"]]
    if "subdivision" in columns and "idx" in columns:
        return [f"{subdivision}/{idx}" for subdivision, idx in zip(first_replica["subdivision"], first_replica["idx"])]
    return [str(index) for index in range(len(first_replica))]


def _judge_language(language, row: int) -> str:
    value = str(language).lower()
    if value in ("en", "cn"):
        return value
    if value in ("zh", "zh-cn", "chinese"):
        return "cn"
    if value in ("english",):
        return "en"
    raise ValueError(f"row {row} has language {language!r}; expected 'en' or 'cn' (it selects the judge prompt)")
