"""Scoring: generations -> verdicts -> counts -> metrics and intervals -> the results document.

* :mod:`.flow` -- the one scoring flow, called by ``gpassk score``,
  :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` and
  re-judging alike, and the generations JSONL input of ``gpassk score``;
* :mod:`.results` -- the results format: its schema and version, building it
  from judged questions, writing, reading back and validating it; every
  reader (the console report, the leaderboard) goes through it.

May import: :mod:`gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.judges`,
:mod:`~gpassk_opencompass.files`, :mod:`~gpassk_opencompass.redaction`.
Never OpenCompass.
"""

from gpassk_opencompass.scoring.flow import (
    Generations,
    check_metric_request,
    format_report,
    load_generations,
    parse_generations,
    score_generations,
)

__all__ = [
    "Generations",
    "check_metric_request",
    "format_report",
    "load_generations",
    "parse_generations",
    "score_generations",
]
