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
:mod:`~gpassk_opencompass.judges` and :mod:`~gpassk_opencompass.scoring.results_io`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from opencompass.openicl.icl_evaluator import BaseEvaluator
from opencompass.registry import ICL_EVALUATORS

from gpassk_opencompass import defaults
from gpassk_opencompass.console import draw_bars_into_logs
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files.writing import write_chunks_atomic
from gpassk_opencompass.judges import BuiltinJudge, Judge, JudgeSettings, judge_kind
from gpassk_opencompass.judges.registry import resolve_judge, with_verdict_cache
from gpassk_opencompass.judges.rule import UNDECIDED_HINT
from gpassk_opencompass.judges.types import judge_endpoint
from gpassk_opencompass.log import enable_logging, logger
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS
from gpassk_opencompass.plugin.replicas import by_question, check_replicas_align, data_changed, question_count
from gpassk_opencompass.render.score_report import unresolved_summary
from gpassk_opencompass.scoring.compute import IDENTICAL_SHARE_WARNING
from gpassk_opencompass.scoring.flow import score_questions
from gpassk_opencompass.scoring.questions import QUESTIONS_FILE, Question, judge_language, question_lines
from gpassk_opencompass.scoring.readers.opencompass import recorded_finish_reasons
from gpassk_opencompass.scoring.request import ScoringRequest
from gpassk_opencompass.scoring.results_io import read_results

#: Columns used as subsets when ``subset_columns`` is not given (those present).
DEFAULT_SUBSET_COLUMNS = ("split", "language")


@dataclass(frozen=True)
class DatasetColumns:
    """Where the evaluator finds each question's text, language and subset labels in the dataset."""

    question_column: str = "question"
    subset_columns: tuple[str, ...] | None = None
    language: str = "en"
    language_column: str = "language"

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", judge_language(self.language, "GPassKEvaluator(language=)"))


@ICL_EVALUATORS.register_module(name="GPassKEvaluator")
class GPassKEvaluator(BaseEvaluator):
    """Judge the n generations of every question once, report G-Pass@k_tau and mG-Pass@k.

    Args:
        model_name: the judge model's served name (as LiveMathBenchEvaluator).
        url: judge base URL(s), ``http://host:port/v1`` (str or list).
        judge: ``"auto"`` (the LLM judge when URLs are given, else the rule
            judge; said in one log line), ``"rule"``, ``"llm"``, ``"cascade"``,
            or the user's own judge: ``"module:function"``, an entry-point
            name, or a ``check_correct_fn(prediction, reference) -> bool``
            (:mod:`gpassk_opencompass.judges.registry`).
        thresholds: the tau values reported for every k.
        concurrency: judge requests in flight per URL.
        request_timeout: total seconds per judge request.
        max_retries: a fixed cap on the retries of one judge request;
            ``None`` (default): retried while the judge makes progress
            (``progress_window``, one of the ``judge_options``).
        question_column: the dataset column holding the question text.
        subset_columns: columns whose labels get their own ``{label}/{metric}``
            keys; ``None`` uses ``split`` and ``language`` where present.
        language: judge prompt language when the dataset has no
            ``language_column``.
        language_column: the column holding ``en``/``cn`` per question.
        benchmark: the canonical benchmark name (recorded in the results for
            the leaderboard).
        ci: level of the intervals; n_boot: bootstrap resamples; seed: their seed.
        interval: ``"bootstrap"`` (default), ``"bayes"`` or ``"both"``: which
            intervals the results carry (``gpassk.uncertainty``, ``gpassk.bayes``).
        prior: ``(alpha0, beta0)`` of the Beta prior of the Bayesian intervals.
        identical_warning: warn when at least this share of questions got n
            byte-identical generations (a seed shared by all replicas).
        allow_unresolved: with generations the judge could not judge, still
            report the metric keys (counting those as wrong; the results say
            ``complete: false`` and give each metric's range). By default
            they are left out and only ``unresolved`` and ``gpassk`` are
            reported: an unjudged answer is not a wrong answer.
        pred_postprocessor: OpenCompass's optional prediction postprocessor.
        keep_questions: also write the questions as judged (id, text, gold answer, language, subset labels) to
            :data:`~gpassk_opencompass.scoring.questions.QUESTIONS_FILE` in the evaluation's output folder:
            what ``gpassk grid run`` combines the rounds of a curtailed run from (the configs of such a run set
            it; docs/grid.md, "Curtailed grids"). The verdict cache is chosen as ``gpassk score`` chooses it
            (:func:`~gpassk_opencompass.judges.registry.with_verdict_cache`): a ``cache_path`` its user names,
            else one in the user's cache folder keyed by the output folder's identity; never one in a run folder.
        **judge_options: further :class:`~gpassk_opencompass.judges.JudgeSettings`
            fields (``max_tokens``, ``rule_timeout``, ...), among them
            ``judge_prompt``: ``"gpassk-v2"`` (default) or ``"livemathbench"``
            (OpenCompass's LiveMathBench judge prompt word for word, the
            protocol of the published figures).
    """

    def __init__(
        self,
        model_name: str = "",
        url: str | Sequence[str] | None = None,
        *,
        judge: str = "auto",
        thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
        concurrency: int = defaults.CONCURRENCY,
        request_timeout: float = defaults.REQUEST_TIMEOUT,
        max_retries: int | None = None,
        question_column: str = "question",
        subset_columns: Sequence[str] | None = None,
        language: str = "en",
        language_column: str = "language",
        benchmark: str | None = None,
        ci: float = defaults.CI,
        n_boot: int = defaults.N_BOOT,
        seed: int = 0,
        identical_warning: float = IDENTICAL_SHARE_WARNING,
        allow_unresolved: bool = False,
        interval: str = "bootstrap",
        prior: Sequence[float] = defaults.PRIOR,
        pred_postprocessor: dict | None = None,
        use_extract_model: bool = False,
        keep_questions: bool = False,
        **judge_options,
    ) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)
        enable_logging()  # inside OpenCompass, the judging's records belong in its task log
        draw_bars_into_logs()  # and its bars: gpassk grid status reads how far the judge is from there
        if use_extract_model:
            raise InputError(
                "use_extract_model=True (LiveMathBenchEvaluator's extraction model) is not supported: "
                "GPassKEvaluator extracts the final answer itself and shows it to the judge"
            )
        for unused in ("extract_url", "extract_model_name"):
            judge_options.pop(unused, None)  # LiveMathBenchEvaluator keywords, meaningless here
        endpoint = judge_endpoint(url=url, model_name=model_name)  # LiveMathBenchEvaluator's names -> ours
        self.scoring_judge: Judge = resolve_judge(
            judge,
            **endpoint,
            concurrency=concurrency,
            request_timeout=request_timeout,
            max_retries=max_retries,
            **judge_options,
        )
        if subset_columns is not None:
            subset_columns = (subset_columns,) if isinstance(subset_columns, str) else tuple(subset_columns)
        self.columns = DatasetColumns(
            question_column=question_column,
            subset_columns=subset_columns,
            language=language,
            language_column=language_column,
        )
        # k comes with each evaluate() call; everything else is validated now
        self.request = ScoringRequest(
            ks=(1,),
            # The contract takes the values as configured and normalises them (a sequence into the tuple it keeps).
            thresholds=thresholds,  # type: ignore[arg-type]
            benchmark=benchmark,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            identical_warning=identical_warning,
            allow_unresolved=allow_unresolved,
            interval=interval,  # type: ignore[arg-type]  # one of INTERVALS: checked by the model
            prior=prior,  # type: ignore[arg-type]
        )
        self.keep_questions = bool(keep_questions)
        urls = endpoint["urls"]
        reason = {"auto": " (judge='auto': " + ("URLs given)" if urls else "no judge URL given)")}.get(judge, "")
        self._judge_description = _description(self.scoring_judge) + reason

    @property
    def judge_settings(self) -> JudgeSettings | None:
        """The settings of a built-in judge (``None`` for a user judge)."""
        return getattr(self.scoring_judge, "settings", None)

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
        # this k's request, checked once (ks repeated, a tau twice: before any judging); the flow trusts it
        request = self.request.replace(ks=tuple(ks), subsets=self._subset_columns(dataset.column_names))
        predictions = self.pred_postprocess(predictions)
        questions = question_count(len(predictions), n)
        check_replicas_align(_row_keys(dataset), n)
        check_replicas_align(
            list(zip(dataset[self.columns.question_column], references)), n, "question text and gold answer"
        )

        first_replica = dataset.select(range(questions))
        logger.info(f"GPassKEvaluator: {questions} questions x n={n}, judged by {self._judge_description}")
        judged = self._questions(
            first_replica,
            by_question(references, n),
            by_question(predictions, n),
            request.subsets,
            self._finish_reasons(len(predictions), n),
        )
        document = score_questions(judged, request, self._judge_for_run())
        out_dir = getattr(self, "_out_dir", None)
        if self.keep_questions and isinstance(out_dir, str):  # before OpenCompass writes the results beside it
            os.makedirs(out_dir, exist_ok=True)
            write_chunks_atomic(os.path.join(out_dir, QUESTIONS_FILE), question_lines(judged))
        if document["unresolved"]:
            logger.error(
                "GPassKEvaluator: INCOMPLETE -- "
                + unresolved_summary(read_results(document), resume=self._resume_hint()).replace("\n", " | ")
            )
        return document

    def pred_postprocess(self, predictions: list) -> list:
        """OpenCompass's ``pred_postprocessor``, whose ``type`` may also be the function itself.

        A re-judged run's config holds the function its saved name resolved to
        (:mod:`~gpassk_opencompass.plugin.config_types`), never the name: it is
        called as is. A name (a config OpenCompass loads) is OpenCompass's to look up.
        """
        settings = self.pred_postprocessor
        if settings is None or isinstance(settings.get("type"), str):
            return super().pred_postprocess(predictions)
        keywords = {key: value for key, value in settings.items() if key != "type"}
        return [settings["type"](prediction, **keywords) for prediction in predictions]

    def _resume_hint(self) -> str:
        """How to re-ask only the unresolved verdicts of this evaluation."""
        judge = self._judge_for_run()
        metrics = (
            "the metrics count them as wrong here (allow_unresolved=True): see gpassk.bounds"
            if self.request.allow_unresolved
            else "the metric keys are left out of the results"
        )
        out_dir = getattr(self, "_out_dir", None)
        if not isinstance(judge, BuiltinJudge):
            return f"{metrics}; each reason says what {judge.name} raised or returned: fix it and judge again"
        if not judge.asks_model:
            return f"{metrics}; {UNDECIDED_HINT}"
        if judge.cache_path is None or out_dir is None:
            return f"{metrics}; judge again to re-ask them"
        return (
            f"{metrics}; every verdict that arrived is kept in {judge.cache_path}; delete {out_dir}.json "
            "and rerun the same opencompass command with -r <timestamp> to re-ask only these"
        )

    # ------------------------------------------------------------------ helpers

    def _check_inputs(self, ks, n, dataset, predictions, references) -> None:
        """Every user mistake we can see, before the first judgment."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"dataset n must be a positive integer (generations per question); got n={n!r}")
        for k in ks:
            if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
                raise InputError(f"dataset k must be integers with 1 <= k <= n={n}; got k={k!r}")
        if len(predictions) != len(dataset):
            raise InputError(self._data_changed(len(predictions), len(dataset), n))
        if len(references) != len(dataset):
            raise InputError(
                f"references ({len(references)}) and dataset rows ({len(dataset)}) must have the same length"
            )
        question_count(len(predictions), n)
        columns = dataset.column_names
        if self.columns.question_column not in columns:
            raise InputError(
                f"question_column={self.columns.question_column!r} is not a dataset column; "
                f"columns are {columns}: set question_column= in the evaluator config"
            )
        for column in self.columns.subset_columns or ():
            if column not in columns:
                raise InputError(f"subset column {column!r} is not a dataset column; columns are {columns}")
        for row, prediction in enumerate(predictions):
            if not isinstance(prediction, str):
                raise InputError(
                    f"prediction {row} is a {type(prediction).__name__}, expected the model's text; "
                    "check the model's output format"
                )

    def _data_changed(self, predictions: int, rows: int, n: int) -> str:
        """The line for predictions not as many as the data's rows: a run resumed (``-r``) on changed data.

        OpenCompass sets ``_out_dir`` to ``<work dir>/results/<model abbr>/<dataset abbr>``: they name the run.
        """
        out_dir = getattr(self, "_out_dir", None)
        if not isinstance(out_dir, str):
            return data_changed("the evaluated dataset", predictions, rows, n, "", "evaluate again")
        results = Path(out_dir)
        model, dataset, run = results.parent.name, results.name, results.parent.parent.parent
        kept = run / "predictions" / model / f"{dataset}*.json"
        return data_changed(
            f"{model} x {dataset}",
            predictions,
            rows,
            n,
            "",
            f"resume the run again (opencompass CONFIG -r {run.name}); or to infer anew on the new data, move its "
            f"predictions ({kept}) aside first",
        )

    def _finish_reasons(self, rows: int, n: int) -> list[tuple[str | None, ...]] | None:
        """Per question, its generations' finish reasons as the grid's model classes recorded them beside the run's
        predictions (:func:`~gpassk_opencompass.scoring.readers.opencompass.recorded_finish_reasons`); ``None``
        without a record (the cut counts are then the text's lower bound)."""
        out_dir = getattr(self, "_out_dir", None)
        if not isinstance(out_dir, str):
            return None
        results = Path(out_dir)  # <run>/results/<model abbr>/<dataset abbr>
        try:
            reasons = recorded_finish_reasons(results.parent.parent.parent, results.parent.name, results.name)
        except InputError as error:
            logger.warning(f"GPassKEvaluator: finish reasons not read ({error}); cut generations counted from the text")
            return None
        if reasons is None:
            return None
        if len(reasons) != rows:
            logger.warning(
                f"GPassKEvaluator: the predictions files hold {len(reasons)} generations, the evaluation {rows}; "
                "finish reasons not used (cut generations counted from the text)"
            )
            return None
        logger.info(
            f"GPassKEvaluator: finish reasons recorded for {sum(reason is not None for reason in reasons)} of {rows} "
            "generations"
        )
        return [tuple(question) for question in by_question(list(reasons), n)]

    def _questions(
        self,
        first_replica,
        references: list[list],
        predictions: list[list[str]],
        subsets: Sequence[str],
        finish_reasons: list[tuple[str | None, ...]] | None = None,
    ) -> list[Question]:
        """OpenCompass's dataset rows (the first replica) and regrouped predictions as :class:`Question` values."""
        columns = first_replica.column_names
        texts = first_replica[self.columns.question_column]
        languages = (
            first_replica[self.columns.language_column]
            if self.columns.language_column in columns
            else [self.columns.language] * len(texts)
        )
        labels = {column: [str(label) for label in first_replica[column]] for column in subsets}
        return [
            Question(
                id=question_id,
                question=str(texts[index]),
                reference=str(references[index][0]),
                predictions=tuple(str(prediction) for prediction in predictions[index]),
                language=judge_language(languages[index], f"row {index}"),
                labels={column: values[index] for column, values in labels.items()},
                finish_reasons=None if finish_reasons is None else finish_reasons[index],
            )
            for index, question_id in enumerate(_question_ids(first_replica))
        ]

    def _subset_columns(self, columns: Sequence[str]) -> tuple[str, ...]:
        if self.columns.subset_columns is not None:
            return self.columns.subset_columns
        return tuple(column for column in DEFAULT_SUBSET_COLUMNS if column in columns)

    def _judge_for_run(self) -> Judge:
        """The judge with its durable cache chosen by the one policy (:func:`~gpassk_opencompass.judges.registry.with_verdict_cache`):
        the cache its user named, else, for a judge that asks a model, a file in the user's cache folder keyed by
        this evaluation's output folder (what it is: ``(st_dev, st_ino)``, so rerunning into it resumes); never
        a file found in a run's folder."""
        out_dir = getattr(self, "_out_dir", None)
        if out_dir is None or not self.scoring_judge.asks_model:
            return self.scoring_judge
        os.makedirs(out_dir, exist_ok=True)
        status = os.stat(out_dir)
        return with_verdict_cache(self.scoring_judge, True, ["opencompass results", status.st_dev, status.st_ino])


def _description(judge: Judge) -> str:
    """What judges, for the log: ``the rule judge, then the LLM judge 'J' at http://...``."""
    if not isinstance(judge, BuiltinJudge):
        return f"the user judge {judge.name}"
    settings = judge.settings
    kind = judge_kind(settings.kind)
    model = f"the LLM judge {settings.model!r} at {', '.join(settings.urls)} (prompt {settings.prompt_version})"
    if not kind.model:
        return "the rule judge (math-verify)"
    return f"the rule judge, then {model}" if kind.rule else model


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
