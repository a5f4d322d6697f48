"""Scoring: generations -> verdicts -> counts -> metrics and intervals -> the results document.

* :mod:`.questions` -- a question and its generations, and the one parse of a
  record into one (the generations JSONL of ``gpassk score``, readers' records,
  mappings in memory);
* :mod:`.readers` -- the input formats of ``gpassk score`` (other tools' sample dumps) and the layouts
  of samples (one generation per row, one file per seed, a replicated dataset: ``readers/_samples.py``);
* :mod:`.request` -- what to compute (:class:`ScoringRequest`), checked before judging;
* :mod:`.flow` -- the one scoring flow, called by ``gpassk score``,
  :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` and
  re-judging alike;
* :mod:`.results` -- the results document: its one typed model, schema and version;
* :mod:`.details` -- its per-question records, held compactly while scoring;
* :mod:`.compute` -- the metrics, intervals and document of judged questions;
* :mod:`.results_io` -- writing, reading back and validating it; every
  reader (the console report, the leaderboard) goes through it;
* :mod:`.consistency` -- whether a document read back can be believed
  (percentages in range, possible counts, metrics reproduced by its details):
  :attr:`ResultsFile.problems`.

May import: :mod:`gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.curtailed`,
:mod:`~gpassk_opencompass.judges`, :mod:`~gpassk_opencompass.uncertainty`, :mod:`~gpassk_opencompass.catalog`,
:mod:`~gpassk_opencompass.checks`, :mod:`~gpassk_opencompass.contracts`, :mod:`~gpassk_opencompass.defaults`,
:mod:`~gpassk_opencompass.files`, :mod:`~gpassk_opencompass.redaction`, :mod:`~gpassk_opencompass.log`,
:mod:`~gpassk_opencompass.errors`.
Never OpenCompass.
"""

from gpassk_opencompass.scoring.flow import score, score_file, score_questions
from gpassk_opencompass.scoring.questions import Question, judge_language, parse_generations
from gpassk_opencompass.scoring.readers import read_questions
from gpassk_opencompass.scoring.request import INTERVALS, ScoringRequest, check_questions
from gpassk_opencompass.scoring.results import SCHEMA_VERSION, ResultsFile
from gpassk_opencompass.scoring.results_io import load_results, read_results, write_results

__all__ = [
    "INTERVALS",
    "SCHEMA_VERSION",
    "Question",
    "ResultsFile",
    "ScoringRequest",
    "check_questions",
    "judge_language",
    "load_results",
    "parse_generations",
    "read_questions",
    "read_results",
    "score",
    "score_file",
    "score_questions",
    "write_results",
]
