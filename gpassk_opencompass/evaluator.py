"""GPassKEvaluator: the OpenCompass evaluator plugin (work in progress, issue 4).

This placeholder fixes the import path and constructor keywords so dataset
configs and templates can reference the class; ``evaluate`` lands with the
evaluator issue.
"""

from __future__ import annotations

from collections.abc import Sequence

from opencompass.openicl.icl_evaluator import BaseEvaluator


class GPassKEvaluator(BaseEvaluator):
    """Placeholder; see module docstring."""

    def __init__(
        self,
        model_name: str = "",
        url: str | Sequence[str] | None = None,
        *,
        judge: str = "auto",
        thresholds: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 1.0),
        concurrency: int = 32,
        request_timeout: float = 600.0,
        question_column: str = "question",
        subset_columns: Sequence[str] = ("split", "language"),
        language: str = "en",
        benchmark: str | None = None,
        pred_postprocessor: dict | None = None,
    ) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)

    def evaluate(self, k, n, original_dataset, **score_kwargs):  # noqa: D102
        raise NotImplementedError("GPassKEvaluator.evaluate lands with the evaluator issue (#4)")
