r"""The judge-model protocol: the prompt we send and how its reply is read.

The ``gpassk-v2`` prompts (English and Chinese, :class:`string.Template`) state the LiveMathBench judge's
criteria and ask for a final ``\boxed{yes}`` or ``\boxed{no}``; the judge sees the question, the reference and
the *extracted* answer (the response's end when none was extracted). None of that text is trusted: it goes
through the one neutraliser of every protocol (:func:`~gpassk_opencompass.judges.fences.neutralize`), so anything
shaped like a fence of any protocol (tags and label lines, after NFKC, zero-width characters removed, any case,
spacing or attributes) becomes ``[removed tag]`` / ``[removed label]``. Only the reply's last ``\boxed{…}`` counts, and boxes restating the
instruction do not. :data:`PROMPT_VERSION` is part of every cache key (change it with the wording);
:data:`PROTOCOLS` / :func:`judge_protocol` pick this or OpenCompass's ``livemathbench`` protocol
(:mod:`~gpassk_opencompass.judges.livemathbench`) by name (``--judge-prompt``).

>>> prompt = build_judge_prompt("What is $1+1$?", "2", "2", "en")
>>> "<student_answer>\n2\n</student_answer>" in prompt and prompt.rstrip().endswith(r"\boxed{no} if it is not.")
True
>>> parse_judge_reply(r"Both equal two. \boxed{yes}")
True
>>> parse_judge_reply(r"\boxed{yes} ... on reflection \boxed{\text{No}}")
False
>>> parse_judge_reply("They match.") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from string import Template

from gpassk_opencompass.checks import unknown
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import livemathbench
from gpassk_opencompass.judges.extraction import boxed_spans
from gpassk_opencompass.judges.fences import neutralize
from gpassk_opencompass.judges.restated import in_quotes, quoted_spans, restated_boxes, verdict_label

#: Version of the judge prompts below; recorded in outputs and cache keys.
PROMPT_VERSION = "gpassk-judge-v2"

# The material to judge, fenced by tags and laid out the same way in both languages.
_MATERIAL = """<problem>
$question
</problem>

<reference_answer>
$reference
</reference_answer>

$answer_label
<student_answer>
$answer
</student_answer>

"""

JUDGE_PROMPT_EN = Template(
    r"""You are grading a student's answer to a mathematics problem against the reference answer.

Grading rules:
1. Decide only whether the student's final answer agrees with the reference answer. Do not solve the problem again and do not question the reference answer.
2. Mathematically equivalent forms are the same answer: 1/2, 0.5 and \frac{1}{2}; equivalent algebraic expressions; the same set listed in another order; an interval described in words; units or notation that do not change the value.
3. When the problem asks for several things (several blanks, sub-questions, or options of a multiple-choice question), the answer is correct only if every part agrees with the reference. A missing, extra or wrong part makes it incorrect; chosen options must be exactly the reference options.
4. Several conflicting final answers, or no final answer at all, are incorrect.
5. If you cannot tell, grade it as incorrect.

"""
    + _MATERIAL
    + r"""Compare briefly, then finish with \boxed{yes} if the student's answer is correct or \boxed{no} if it is not.
"""
)

JUDGE_PROMPT_CN = Template(
    r"""你是一名数学阅卷老师，请对照标准答案判断考生的答案是否正确。

评分规则：
1. 只判断考生的最终答案与标准答案是否一致。不要重新解题，也不要质疑标准答案。
2. 数学上等价的不同写法视为同一答案：例如 1/2、0.5 与 \frac{1}{2}；等价的代数式；元素顺序不同的同一集合；用文字描述的区间；不改变数值的单位或记号。
3. 若题目要求多个结果（多个空、多个小问或多选题的多个选项），只有每一部分都与标准答案一致才算正确；缺少、多出或错误任何一部分均为错误；多选题所选选项必须与标准答案完全相同。
4. 给出多个互相矛盾的最终答案，或没有给出最终答案，均为错误。
5. 无法确定时，判为错误。

"""
    + _MATERIAL
    + r"""请先简要比较，最后以 \boxed{yes}（正确）或 \boxed{no}（错误）结尾。
"""
)

_TEMPLATES = {"en": JUDGE_PROMPT_EN, "cn": JUDGE_PROMPT_CN}
_ANSWER_LABELS = {
    ("en", True): "The student's final answer:",
    ("en", False): "The student marked no final answer; this is the end of the response:",
    ("cn", True): "考生的最终答案：",
    ("cn", False): "考生没有明确给出最终答案，以下是其回答的结尾：",
}


def build_judge_prompt(question: str, reference: str, answer: str, language: str, *, extracted: bool = True) -> str:
    """The judge prompt for one answer.

    Args:
        question: the problem statement.
        reference: the gold answer.
        answer: the extracted final answer, or the response's tail when
            nothing was extracted (then pass ``extracted=False``).
        language: ``"en"`` or ``"cn"``.
        extracted: whether ``answer`` is an extracted final answer.

    >>> "考生没有明确给出最终答案" in build_judge_prompt("题", "1", "……所以", "cn", extracted=False)
    True
    """
    try:
        template = _TEMPLATES[language]
    except KeyError:
        raise InputError(f"no judge prompt for language {language!r}; expected one of: en, cn") from None
    return template.substitute(
        question=neutralize(question.strip()),
        reference=neutralize(reference.strip()),
        answer=neutralize(answer.strip()),
        answer_label=_ANSWER_LABELS[language, extracted],
    )


def parse_judge_reply(reply: str | None) -> bool | None:
    r"""Read the judge's verdict: the last ``\boxed{…}`` that does not restate the instruction and is not quoted
    (:func:`~gpassk_opencompass.judges.restated.in_quotes`: one the answer planted and the judge cites); it must
    hold yes or no.

    A box that only restates the prompt's own instruction is no verdict
    (:func:`~gpassk_opencompass.judges.restated.restated_boxes`): one with a
    condition after it (``\boxed{yes} if it is correct``) or leading to it
    (``otherwise output \boxed{no}``), or a yes/no pair joined by "or"
    (``\boxed{yes}（正确）或 \boxed{no}``).  Returns
    ``None`` when what is left ends in no yes/no box (an empty reply, a
    truncated one, ``\boxed{maybe}``, a reply that only repeats the
    instruction).  A reply cut by the token limit is never a verdict either:
    the caller checks ``finish_reason``.

    >>> parse_judge_reply(r"\boxed{\textbf{YES}}."), parse_judge_reply(r"\boxed{maybe}")
    (True, None)
    >>> parse_judge_reply(r"I must output \boxed{yes} if it is correct, or \boxed{no} if") is None
    True
    >>> parse_judge_reply(r"I answer \boxed{yes} or \boxed{no}. They differ, so \boxed{no}")
    False
    >>> parse_judge_reply(r'They differ: \boxed{no}. (The answer ends with "\boxed{yes}".)')
    False
    """
    if not reply:
        return None
    spans = boxed_spans(reply)
    restated = restated_boxes(reply, spans)
    quotes = quoted_spans(reply)
    said = [
        verdict_label(content)
        for position, (start, _, content) in enumerate(spans)
        if position not in restated and not in_quotes(start, quotes)
    ]
    return said[-1] if said else None


def _said(reply: str | None, correct: bool) -> str:
    return f"judge said \\boxed{{{'yes' if correct else 'no'}}}"


#: Characters of a reply without a verdict quoted in the reason.
QUOTED_REPLY_CHARS = 120


def blank_reply(content: str | None, reasoning: str | None = None) -> str | None:
    r"""Why a reply holds no verdict before any protocol reads it -- its content is blank -- or ``None`` if not blank.

    A reply whose content is missing, empty or only whitespace is no verdict under every protocol (never "wrong").
    Nor is one whose only text is its reasoning (``reasoning_content``, where a server's reasoning parser puts what
    the model wrote before it closed its thinking): a ``\boxed{yes}`` there is the model thinking aloud, not its
    answer, and a reply that never left its reasoning ended before answering.

    >>> blank_reply(r"\boxed{no}") is None, blank_reply(" \n")
    (True, 'the reply is blank')
    >>> blank_reply("\n\n", r"They agree. \boxed{yes}")[:66]
    "the reply's content is blank; its text is all in reasoning_content"
    """
    if content is not None and content.strip():
        return None
    if reasoning is not None and reasoning.strip():
        return (
            "the reply's content is blank; its text is all in reasoning_content (the judge server's reasoning "
            "parser put it there: the model never closed its reasoning), which is not read as a verdict; serve the "
            "judge with its own model's reasoning parser, or with none"
        )
    return "the reply is blank"


# A model's thinking: what it wrote before its answer. A reply still inside it never answered.
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def answered_text(content: str) -> str | None:
    """The part of a reply that is the judge's answer: after its last ``</think>``; ``None`` when it opens with a
    ``<think>`` it never closes (all of it is thinking aloud). A ``<think>`` further in, or a ``</think>`` in a
    quotation (:func:`~gpassk_opencompass.judges.restated.in_quotes`), is text the judge cites.

    >>> answered_text("<think>yes?</think> No."), answered_text("<think> They agree. Judgement: yes")
    (' No.', None)
    >>> answered_text('The answer writes "<think>" then yes. No.')
    'The answer writes "<think>" then yes. No.'
    """
    quotes = quoted_spans(content)
    closes = [close for close in _THINK_CLOSE.finditer(content) if not in_quotes(close.start(), quotes)]
    if closes:
        return content[closes[-1].end() :]
    return None if _THINK_OPEN.match(content.lstrip()) else content


@dataclass(frozen=True)
class ReplyReader:
    """How one judge's replies are read: ours (every :class:`JudgeProtocol`) and other tools' (their LLM judges'
    replies in the files they wrote, :mod:`~gpassk_opencompass.judges.source_replies`).

    Attributes:
        name: the protocol's (or the tool's) name.
        parse: ``parse(reply) -> True | False | None`` (``None``: no verdict in this reply); the judge's *last*
            verdict, so one it quoted from the answer before its own is never read.
        reason: ``reason(reply, correct) -> str``: what the reply said, for a verdict's reason.
    """

    name: str
    parse: Callable[[str | None], bool | None]
    reason: Callable[[str | None, bool], str]

    def read(
        self, content: str | None, reasoning: str | None = None, *, finish_reason: str | None = None
    ) -> tuple[bool | None, str]:
        r"""The verdict of a reply and why: the one way every judge reply is read, ours and other tools'.

        A blank reply (:func:`blank_reply`), one that is all thinking (a ``<think>`` never closed; only what
        follows the last ``</think>`` is read), and one cut by the token limit (``finish_reason`` ``"length"``,
        where the file or server says so) are no verdict whatever the protocol; any other is read by
        :attr:`parse`. The reason quotes the reply when it holds no verdict.

        >>> judge_protocol("livemathbench").read(r"They agree. \boxed{yes}")
        (True, 'judge said \\boxed{yes}')
        >>> judge_protocol("livemathbench").read(" \n", r"\boxed{yes}")[0] is None
        True
        >>> judge_protocol("gpassk-v2").read("They match.")
        (None, 'no verdict in the reply: They match.')
        >>> judge_protocol("gpassk-v2").read(r"<think>they match, \boxed{yes}")
        (None, 'the reply is all thinking: a <think> never closed, no answer after it')
        """
        blank = blank_reply(content, reasoning)
        if blank is not None:
            return None, blank
        if finish_reason == "length":
            return None, "the reply was cut at the token limit before a verdict"
        answered = answered_text(content or "")
        if answered is None:
            return None, "the reply is all thinking: a <think> never closed, no answer after it"
        if not answered.strip():
            return None, "the reply holds only its thinking (<think>...</think>), no answer after it"
        correct = self.parse(answered)
        if correct is None:
            return None, f"no verdict in the reply: {answered.strip()[:QUOTED_REPLY_CHARS]}"
        return correct, self.reason(answered, correct)


@dataclass(frozen=True)
class JudgeProtocol(ReplyReader):
    """One judge protocol of ours: the prompt sent and how the reply is read (:meth:`ReplyReader.read`).

    Attributes:
        name: its name on the command line (``--judge-prompt``), in the evaluator and the templates (``judge_prompt``).
        version: recorded as ``gpassk.prompt_version`` and part of every verdict-cache key, so verdicts of one
            protocol never answer for another.
        build: ``build(question, reference, answer, language, *, extracted=True) -> prompt``; every untrusted
            field goes through :func:`~gpassk_opencompass.judges.fences.neutralize`.
    """

    version: str = ""
    build: Callable[..., str] = build_judge_prompt


#: The judge protocols by name; the first is the default.
PROTOCOLS = {
    protocol.name: protocol
    for protocol in (
        JudgeProtocol(
            name="gpassk-v2", parse=parse_judge_reply, reason=_said, version=PROMPT_VERSION, build=build_judge_prompt
        ),
        JudgeProtocol(
            name="livemathbench",
            parse=livemathbench.parse_livemathbench_reply,
            reason=lambda reply, correct: livemathbench.livemathbench_reason(reply),
            version=livemathbench.VERSION,
            build=livemathbench.build_livemathbench_prompt,
        ),
    )
}
#: The protocol used when none is named.
DEFAULT_JUDGE_PROMPT = next(iter(PROTOCOLS))


def judge_protocol(name: object) -> JudgeProtocol:
    """The judge protocol called ``name``.

    >>> judge_protocol("livemathbench").version, judge_protocol("gpassk-v2").version
    ('livemathbench-oc0.5.4', 'gpassk-judge-v2')
    >>> judge_protocol("livemath")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown judge prompt 'livemath'; did you mean 'livemathbench'? known: gpassk-v2, livemathbench
    """
    protocol = PROTOCOLS.get(name) if isinstance(name, str) else None
    if protocol is None:
        raise unknown("judge prompt", name, PROTOCOLS)
    return protocol
