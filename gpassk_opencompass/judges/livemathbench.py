r"""OpenCompass's LiveMathBench judge protocol, word for word: the prompt the published figures were judged with.

:data:`JUDGE_PROMPT_EN` / :data:`JUDGE_PROMPT_CN` are copied byte for byte from
``opencompass.datasets.livemathbench.prompts`` (OpenCompass 0.5.4; ``tests/test_judge_protocols.py`` compares
them with the installed module), filled as its ``LiveMathBenchEvaluator`` fills them, and the reply is read as
its ``extract_judge_label`` reads it (the last ``\boxed{...}``; correct only when it holds exactly ``yes``).
Nothing here imports OpenCompass. On purpose, every field goes through the one neutraliser of every protocol
(:func:`~gpassk_opencompass.judges.fences.neutralize`): text shaped like a label line or a fence of any protocol
(English or Chinese, any case, spacing, colon, apostrophe, NFKC form or zero-width character) becomes
``[removed label]`` / ``[removed tag]`` (a field without one is sent byte for byte),
the answer shown is this project's extracted one (else the response's tail), and a blank reply
(:func:`~gpassk_opencompass.judges.prompts.blank_reply`) or one whose only boxes restate the instruction is no
verdict. See docs/leaderboard.md, "Which judge protocol reproduces the published figures".

>>> prompt = build_livemathbench_prompt("What is $1+1$?", "2", "{2}", "en")
>>> prompt.splitlines()[-5:]
['Original Question: What is $1+1$?', 'Standard Answer: 2', "Examinee's Answer: {2}", '', 'Analysis:']
>>> parse_livemathbench_reply(r"They agree. \boxed{yes}"), parse_livemathbench_reply(r"\boxed{Yes}")
(True, False)
"""

from __future__ import annotations

import re

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges.fences import neutralize
from gpassk_opencompass.judges.restated import in_quotes, quoted_spans, restated_boxes

#: The protocol's version: recorded as ``gpassk.prompt_version`` and in every verdict-cache key.
VERSION = "livemathbench-oc0.5.4"

# ---- copied verbatim from opencompass/datasets/livemathbench/prompts.py (OpenCompass 0.5.4) ----
# fmt: off
JUDGE_PROMPT_CN = '''请你作为一个数学阅卷专家，判断下面的答案是否与标准答案一致，即考生是否回答正确。下面是一些评判标准：
1. 有些答案可能包含多项内容，可能有单选题，多选题，填空题和问答题，只要答案与标准答案一致即可, 对于多选题和多个空的填空题，需要考生对应的选项或空都回答正确才算正确。
2. 有些答案可能通过不同的方式表达，比如有些答案可能是一个数学表达式，有些答案可能是一个文字描述，只要表达的意思一致即可。且有些公式通过不同的方式表达，但等价，也是正确的。
3. 你不需要重新计算问题答案，因为标准答案已经给出，只需要根据问题形式来判断考生的答案是否与标准答案一致，是否正确即可。

请你根据上述标准，判断下面的答案是否与标准答案一致，如果一致，请在最后输出\\boxed{{yes}}, 否则输出\\boxed{{no}}, 如果难以判断，请输出\\boxed{{no}}.
原问题：{question}
标准答案：{gold_answer}
考生答案：{answer}

分析：
'''

JUDGE_PROMPT_EN = '''Please act as an expert in grading mathematics exam papers, and judge whether the following answers match the standard answers, i.e., whether the examinee answered correctly. Here are some evaluation criteria:

1. Some answers may contain multiple parts, such as single-choice questions, multiple-choice questions, fill-in-the-blank questions, and problem-solving questions. As long as the answer matches the standard answer, it is considered correct. For multiple-choice questions and fill-in-the-blank questions with multiple blanks, the examinee must answer all corresponding options or blanks correctly to be considered correct.
2. Some answers may be expressed in different ways; for example, some answers may be mathematical expressions, while others may be textual descriptions. As long as the meaning conveyed is consistent, it is considered correct. Additionally, some formulas may be expressed differently but are equivalent, which is also considered correct.
3. You do not need to recalculate the problem answers, as the standard answers are already provided. You only need to judge whether the examinee's answer matches the standard answer based on the form of the question and whether it is correct.

Please judge whether the following answer matches the standard answer according to the above criteria. If they match, output \\boxed{{yes}}, otherwise output \\boxed{{no}}. If it is difficult to judge, also output \\boxed{{no}}.
Original Question: {question}
Standard Answer: {gold_answer}
Examinee's Answer: {answer}

Analysis:
'''
# fmt: on
# ---- end of the copy ----

_TEMPLATES = {"en": JUDGE_PROMPT_EN, "cn": JUDGE_PROMPT_CN}
# opencompass.datasets.livemathbench.utils.extract_judge_label's pattern
_JUDGE_LABEL = re.compile(r"\\boxed{(.+?)}")


def build_livemathbench_prompt(
    question: str, reference: str, answer: str, language: str, *, extracted: bool = True
) -> str:
    """OpenCompass's LiveMathBench judge prompt for one answer, its fields neutralised (:func:`~.fences.neutralize`).

    ``extracted`` is accepted for the protocol's common signature; this prompt has no place to say it.

    >>> build_livemathbench_prompt("题", "1", "1", "cn").splitlines()[-5:-2]
    ['原问题：题', '标准答案：1', '考生答案：1']
    """
    try:
        template = _TEMPLATES[language]
    except KeyError:
        raise InputError(f"no judge prompt for language {language!r}; expected one of: en, cn") from None
    return template.format(answer=neutralize(answer), gold_answer=neutralize(reference), question=neutralize(question))


def parse_livemathbench_reply(reply: str | None) -> bool | None:
    r"""The verdict as OpenCompass's LiveMathBench evaluator reads it: the last ``\boxed{...}`` is exactly ``yes``
    -- boxes that restate the prompt's instruction left out.

    ``None`` (no verdict: unresolved) for no reply at all, for a reply without a box (OpenCompass counts it
    wrong: a judge that said nothing is not a wrong answer) and for a reply whose only boxes restate the
    instruction ("If they match, output \boxed{yes}, otherwise output \boxed{no}",
    :func:`~gpassk_opencompass.judges.restated.restated_boxes`), which OpenCompass would read as a verdict; a
    reply whose last box holds anything else (``No``, ``\text{yes}``, ``YES``) is wrong, as OpenCompass reads it.

    >>> parse_livemathbench_reply(r"\boxed{yes} at first, but \boxed{no}"), parse_livemathbench_reply("They match.")
    (False, None)
    >>> parse_livemathbench_reply("") is None, parse_livemathbench_reply(r"if they match, output \boxed{yes}") is None
    (True, True)
    """
    if not reply:
        return None
    _, said = _labels(reply)
    if not said:
        return None
    return said[-1] == "yes"


def livemathbench_reason(reply: str | None) -> str:
    r"""Why a reply reads as it does: the box read, or that it has none (or only restated ones).

    >>> livemathbench_reason(r"so \boxed{No}"), livemathbench_reason("They match.")
    ('judge said \\boxed{No}', 'no \\boxed{} in the reply: no verdict (OpenCompass would count it wrong)')
    """
    labels, said = _labels(reply or "")
    if not labels:
        return "no \\boxed{} in the reply: no verdict (OpenCompass would count it wrong)"
    if not said:
        return "the reply's only boxes restate the instruction: no verdict"
    return f"judge said \\boxed{{{said[-1][:40]}}}"


def _labels(reply: str) -> tuple[list[str], list[str]]:
    """Every box's label (``extract_judge_label``'s pattern), and those that neither restate the instruction nor
    stand in a quotation (:func:`~gpassk_opencompass.judges.restated.in_quotes`)."""
    matches = list(_JUDGE_LABEL.finditer(reply))
    restated = restated_boxes(reply, [(match.start(), match.end(), match.group(1)) for match in matches])
    quotes = quoted_spans(reply)
    labels = [match.group(1) for match in matches]
    return labels, [
        label
        for position, (label, match) in enumerate(zip(labels, matches))
        if position not in restated and not in_quotes(match.start(), quotes)
    ]
