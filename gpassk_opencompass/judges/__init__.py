r"""Judges: is each of the n generations per question correct?

Every judge is a :class:`Judge` (:mod:`.protocol`) chosen by name through :mod:`.registry`: the built-in
``rule``, ``llm`` and ``cascade`` (:class:`BuiltinJudge`; :func:`judge_items` runs one from its
:class:`JudgeSettings`) and the user's own :class:`PythonJudge`. Identical answers are judged once per run and
judge-model verdicts go to a durable cache. The names live in :mod:`.kinds`, which imports no judge; nothing
here imports openai or math-verify until a judge runs. See docs/evaluator.md, "Judges".

Judging deduplicates twice, each pass on what only it can see: the scoring flow judges each distinct
(question, reference, language, generation) once; :mod:`.batch` then groups those whose *extracted* answers (or
shown tails) coincide, so two texts with one final answer cost one judgment. A verdict cache is trusted only
when its user chose it (:func:`~gpassk_opencompass.judges.registry.with_verdict_cache`).

May import: :mod:`~gpassk_opencompass.errors`, :mod:`~gpassk_opencompass.checks`,
:mod:`~gpassk_opencompass.contracts`, :mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.files`,
:mod:`~gpassk_opencompass.redaction`, :mod:`~gpassk_opencompass.log`, :mod:`~gpassk_opencompass.console` (progress
bars) (openai, math-verify, pydantic).

>>> from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items
>>> items = [JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response=r"... so the sum is \boxed{1}."),
...          JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response=r"... giving \boxed{\frac{2}{2}}."),
...          JudgeItem(question="Compute 1/2 + 1/2.", reference="1", response="I give up.")]
>>> report = judge_items(items, JudgeSettings(kind="rule"), progress=False)
>>> [(verdict.correct, verdict.extracted) for verdict in report.verdicts]
[(True, '1'), (True, '\\frac{2}{2}'), (False, None)]
"""

from gpassk_opencompass.judges.batch import BuiltinJudge, judge_items
from gpassk_opencompass.judges.extraction import extract_answer
from gpassk_opencompass.judges.kinds import KINDS, judge_kind, resolve_kind
from gpassk_opencompass.judges.llm import API_KEY_VARIABLES, JudgeError
from gpassk_opencompass.judges.prompts import PROMPT_VERSION, build_judge_prompt, parse_judge_reply
from gpassk_opencompass.judges.protocol import CheckCorrectFn, Judge
from gpassk_opencompass.judges.registry import load_judge
from gpassk_opencompass.judges.rule import rule_verdict
from gpassk_opencompass.judges.types import LANGUAGES, JudgeItem, JudgeReport, JudgeSettings, JudgeStats, Verdict
from gpassk_opencompass.judges.user import PythonJudge

__all__ = [
    "API_KEY_VARIABLES",
    "KINDS",
    "LANGUAGES",
    "PROMPT_VERSION",
    "BuiltinJudge",
    "CheckCorrectFn",
    "Judge",
    "JudgeError",
    "JudgeItem",
    "JudgeReport",
    "JudgeSettings",
    "JudgeStats",
    "PythonJudge",
    "Verdict",
    "build_judge_prompt",
    "extract_answer",
    "judge_items",
    "judge_kind",
    "load_judge",
    "parse_judge_reply",
    "resolve_kind",
    "rule_verdict",
]
