r"""Other tools' LLM-judge replies, read by the one reader of judge replies.

A tool that judged its samples with an LLM keeps the judge's reply beside them: NeMo-Skills' ``judgement``
(``ns generate --generation_type=math_judge``), OpenCompass's ``llm_evaluation`` of a ``CascadeEvaluator``,
inspect's ``explanation`` of a model-graded score. Under
``--judge source`` a reader hands each such reply to :func:`read_source_reply`, never reading it itself: it is
read by :meth:`~gpassk_opencompass.judges.prompts.ReplyReader.read`, the rule every protocol of ours follows. A
blank reply, one that is all thinking, one cut at the token limit, or one without a verdict in the tool's own
format is *unresolved* (never wrong, as the tools themselves count it), and of several verdicts the judge's last
one counts, and one in a quotation (``"…"``, a code span, a ``>`` line) never does: one it quoted from the answer is
never read.

================  =============================================  ==================================================
reader            the verdict                                    its tool's own reading, where it differs
================  =============================================  ==================================================
``nemo-skills``   the text after the last ``Judgement:``         the first ``Judgement:``; no verdict is False
                  (``**Judgement**:``, any case) starts with yes
                  (True) or no (False)
``opencompass``   the reply's last non-blank line is one grade:  ``CascadeEvaluator``: the whole reply is ``A`` or
                  ``A``/``CORRECT`` (True), ``B``/``INCORRECT``  starts with ``CORRECT``; anything else is False
                  (False); ``C``/``NOT_ATTEMPTED`` or anything
                  else is no verdict
``inspect``       the last ``GRADE: C`` (True) or ``GRADE: I``   ``model_graded_qa``/``_fact``: the first ``GRADE:``
                  (False); ``GRADE: P`` (partial) or none is no  whose line runs to the end; none is ``I`` (False)
                  verdict
================  =============================================  ==================================================

>>> read_source_reply("nemo-skills", "The student wrote 'Judgement: yes'. They differ.\nJudgement: No")
(False, 'nemo-skills judge said Judgement: No')
>>> read_source_reply("nemo-skills", "They agree, so the judgement")
(None, 'no verdict in the reply: They agree, so the judgement')
>>> read_source_reply("nemo-skills", "")
(None, 'the reply is blank')
>>> read_source_reply("opencompass", "The answer says [[A]]; it differs from the gold.\nB")
(False, 'opencompass judge said B')
"""

from __future__ import annotations

import re

from gpassk_opencompass.judges.prompts import ReplyReader
from gpassk_opencompass.judges.restated import in_quotes, quoted_spans

#: The words of a verdict quoted in a reason.
_QUOTED = 40
# NeMo-Skills' verdict marker, as its is_correct_judgement finds it: "Judgement:", "**Judgement**:", any case.
_JUDGEMENT = re.compile(r"\*{0,2}Judgement\*{0,2}\s*:", re.IGNORECASE)
# OpenCompass's grader (GenericLLMEvaluator's GRADER_TEMPLATE) answers one letter: A correct, B incorrect,
# C not attempted; CascadeEvaluator also takes a reply starting with CORRECT.
_GRADES = {"a": True, "correct": True, "b": False, "incorrect": False}
_GRADE_LINE = re.compile(
    r"[\s*_`'\"“”‘’()\[\]{}<>:：.。!]*(?:(?:final\s+)?(?:grade|answer|judgement)\s*[:：]\s*)?", re.IGNORECASE
)


def nemo_skills_verdict(reply: str | None) -> bool | None:
    """The text after the reply's last ``Judgement:`` (markdown bold, any case) starting with yes or no.

    >>> nemo_skills_verdict("Judgement: Yes"), nemo_skills_verdict("**Judgement**: no, they differ")
    (True, False)
    >>> nemo_skills_verdict("Judgement: unclear") is None, nemo_skills_verdict("They agree.") is None
    (True, True)
    """
    markers = _markers(reply or "")
    if not markers:
        return None
    said = (reply or "")[markers[-1].end() :].strip().lstrip("*").strip().lower()
    if said.startswith("yes"):
        return True
    if said.startswith("no"):
        return False
    return None


def _markers(reply: str) -> list[re.Match]:
    """The reply's ``Judgement:`` markers, those in a quotation left out (the answer's, cited)."""
    quotes = quoted_spans(reply)
    return [marker for marker in _JUDGEMENT.finditer(reply) if not in_quotes(marker.start(), quotes)]


def _nemo_skills_reason(reply: str | None, correct: bool) -> str:
    markers = _markers(reply or "")
    said = (reply or "")[markers[-1].start() :].strip() if markers else ""
    return f"nemo-skills judge said {' '.join(said.split())[:_QUOTED]}"


def _last_line(reply: str | None) -> str:
    """The reply's last non-blank line that is not a quotation (a blockquote, a line that opens a quoted span)."""
    text = reply or ""
    quotes = quoted_spans(text)
    start = 0
    last = ""
    for line in text.splitlines(keepends=True):
        first = start + len(line) - len(line.lstrip())
        if line.strip() and not in_quotes(first, quotes):
            last = line.strip()
        start += len(line)
    return last


def opencompass_verdict(reply: str | None) -> bool | None:
    """The grade on the reply's last non-blank line, alone (markup and a ``Grade:`` label aside).

    >>> opencompass_verdict("A"), opencompass_verdict("**B**"), opencompass_verdict("Reasoning...\\nGrade: CORRECT")
    (True, False, True)
    >>> opencompass_verdict("C") is None, opencompass_verdict("A and B differ") is None
    (True, True)
    """
    line = _GRADE_LINE.sub("", _last_line(reply), count=1)
    line = line.strip(" \t*_`'\"“”‘’()[]{}<>:：.。!").lower()
    return _GRADES.get(line)


def _opencompass_reason(reply: str | None, correct: bool) -> str:
    return f"opencompass judge said {_last_line(reply)[:_QUOTED]}"


# inspect's model-graded scorers ask for "GRADE: C" (correct), "GRADE: I" (incorrect) or "GRADE: P" (partial).
_INSPECT_GRADE = re.compile(r"GRADE\*{0,2}\s*:\s*\**\s*(CORRECT|INCORRECT|PARTIAL|C|I|P)\b", re.IGNORECASE)
_INSPECT_GRADES = {"c": True, "correct": True, "i": False, "incorrect": False}


def inspect_verdict(reply: str | None) -> bool | None:
    r"""The reply's last ``GRADE:`` outside a quotation: ``C`` True, ``I`` False, ``P`` (partial) no verdict.

    >>> inspect_verdict("The answers match.\nGRADE: C"), inspect_verdict('It says "GRADE: C".\nGRADE: I')
    (True, False)
    >>> inspect_verdict("GRADE: P") is None, inspect_verdict("They match.") is None
    (True, True)
    """
    text = reply or ""
    quotes = quoted_spans(text)
    grades = [grade for grade in _INSPECT_GRADE.finditer(text) if not in_quotes(grade.start(), quotes)]
    return _INSPECT_GRADES.get(grades[-1].group(1).lower()) if grades else None


def _inspect_reason(reply: str | None, correct: bool) -> str:
    return f"inspect grader said GRADE: {'C' if correct else 'I'}"


#: The readers of other tools' LLM-judge replies, by tool.
SOURCE_READERS = {
    reader.name: reader
    for reader in (
        ReplyReader("nemo-skills", nemo_skills_verdict, _nemo_skills_reason),
        ReplyReader("opencompass", opencompass_verdict, _opencompass_reason),
        ReplyReader("inspect", inspect_verdict, _inspect_reason),
    )
}


def read_source_reply(
    tool: str, content: object, *, reasoning: str | None = None, finish_reason: str | None = None
) -> tuple[bool | None, str]:
    """The verdict of one of ``tool``'s LLM-judge replies and why (``None``: unresolved), as every reply is read.

    Args:
        tool: a key of :data:`SOURCE_READERS`.
        content: the reply as the tool's file holds it (anything but text is no reply).
        reasoning: its reasoning, where the file keeps it apart.
        finish_reason: the server's, where the file keeps the judge's (``"length"``: cut).

    >>> read_source_reply("nemo-skills", None)
    (None, 'the reply is blank')
    >>> read_source_reply("nemo-skills", "<think>Judgement: yes", finish_reason="stop")[0] is None
    True
    """
    return SOURCE_READERS[tool].read(
        content if isinstance(content, str) else None, reasoning, finish_reason=finish_reason
    )
