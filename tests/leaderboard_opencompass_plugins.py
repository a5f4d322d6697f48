"""OpenCompass plugins for the leaderboard's end-to-end test (imported by the ``opencompass``
subprocess through ``PYTHONPATH``; importing this module imports OpenCompass).

* :class:`OfflineOpenAISDK`: OpenCompass's own ``OpenAISDK`` with a length-based
  token count, because the stock one fetches a tiktoken encoding from the network
  at construction;
* :class:`TinyMathDataset`: questions from a local JSONL file;
* :class:`ExactMatchEvaluator`: a plain ``BaseEvaluator`` whose per-prediction
  ``correct`` details make OpenCompass compute G-Pass@k itself
  (``BaseEvaluator.evaluate``), with the leaderboard's ``benchmark=`` keyword as
  GPassKEvaluator takes it.
"""

from __future__ import annotations

import json

from datasets import Dataset
from opencompass.datasets.base import BaseDataset
from opencompass.models import OpenAISDK
from opencompass.openicl.icl_evaluator import BaseEvaluator


class OfflineOpenAISDK(OpenAISDK):
    """``OpenAISDK`` that never downloads a tokenizer (a token is taken as 4 characters)."""

    def _init_tokenizer(self):
        self.tokenizer = None
        self.tokenizer_type = "length"

    def get_token_len(self, prompt: str) -> int:
        return max(1, len(str(prompt)) // 4)


class TinyMathDataset(BaseDataset):
    """``{"question": ..., "answer": ...}`` per line of a local JSONL file."""

    @staticmethod
    def load(path: str) -> Dataset:
        with open(path, encoding="utf-8") as handle:
            return Dataset.from_list([json.loads(line) for line in handle if line.strip()])


class ExactMatchEvaluator(BaseEvaluator):
    """Correct when the reply, stripped, equals the reference."""

    def __init__(self, benchmark: str | None = None, pred_postprocessor=None) -> None:
        super().__init__(pred_postprocessor=pred_postprocessor)
        self.benchmark = benchmark

    def score(self, predictions, references):
        details = [{"pred": prediction, "answer": reference,
                    "correct": str(prediction).strip() == str(reference).strip()}
                   for prediction, reference in zip(predictions, references)]
        accuracy = 100 * sum(detail["correct"] for detail in details) / max(1, len(details))
        return {"accuracy": accuracy, "details": details}
