r"""Judges: is each of the n generations per question correct?

Three judges share one interface, :func:`judge_items`:

* ``rule`` -- math-verify on the extracted final answer (choice answers as
  sets of letters); no model needed;
* ``llm`` -- a judge model (LiveMath-Judge, Qwen2.5-72B-Instruct, ...) behind
  one or more OpenAI-compatible URLs;
* ``cascade`` -- the rule judge first; only what it cannot confirm goes to
  the judge model.

Identical answers are judged once per run and judge-model verdicts go to a
durable cache, so an interrupted run resumes where it stopped.

>>> items = [JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response=r"... so the sum is \boxed{1}."),
...          JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response=r"... giving \boxed{\frac{2}{2}}."),
...          JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response="I give up.")]
>>> report = judge_items(items, JudgeSettings(kind="rule"), progress=False)
>>> [(verdict.correct, verdict.extracted) for verdict in report.verdicts]
[(True, '1'), (True, '\\frac{2}{2}'), (False, None)]
"""

from gpassk_opencompass.judges.batch import judge_items
from gpassk_opencompass.judges.extraction import extract_answer
from gpassk_opencompass.judges.llm import API_KEY_VARIABLES, JudgeError
from gpassk_opencompass.judges.prompts import PROMPT_VERSION, build_judge_prompt, parse_judge_reply
from gpassk_opencompass.judges.rule import rule_verdict
from gpassk_opencompass.judges.types import (
    KINDS,
    LANGUAGES,
    JudgeItem,
    JudgeReport,
    JudgeSettings,
    JudgeStats,
    Verdict,
    resolve_kind,
)

__all__ = [
    "API_KEY_VARIABLES",
    "KINDS",
    "LANGUAGES",
    "PROMPT_VERSION",
    "JudgeError",
    "JudgeItem",
    "JudgeReport",
    "JudgeSettings",
    "JudgeStats",
    "Verdict",
    "build_judge_prompt",
    "extract_answer",
    "judge_items",
    "parse_judge_reply",
    "resolve_kind",
    "rule_verdict",
]
