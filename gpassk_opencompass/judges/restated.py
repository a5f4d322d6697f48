r"""Verdict boxes that restate the judge prompt's instruction: no verdict, whichever protocol reads the reply.

A judge model (a thinking one above all) often repeats its instruction
before it judges -- "I must output \boxed{yes} if it is correct, or
\boxed{no} if …", "If they match, output \boxed{yes}, otherwise output
\boxed{no}" -- and a reply that stops there holds boxes but no verdict.
:func:`restated_boxes` finds them, for both protocols of
:mod:`~gpassk_opencompass.judges.prompts`: a yes/no box is restated when

* a condition follows it (``\boxed{yes} if …``, ``, otherwise``, ``如果``, ``否则``);
* a condition leads to it in the same sentence (``if they match, output \boxed{yes}``,
  ``otherwise output \boxed{no}``, ``如果一致，请在最后输出\boxed{yes}``, ``否则输出\boxed{no}``);
* it and the next box, of the other verdict, are joined by "or" (``\boxed{yes} or \boxed{no}``,
  ``\boxed{yes}（正确）或 \boxed{no}``).

>>> echo = r"If they match, output \boxed{yes}, otherwise output \boxed{no}. If it is difficult to judge, also output \boxed{no}."
>>> sorted(restated_boxes(echo, [(m.start(), m.end(), m.group(1)) for m in re.finditer(r"\\boxed{(.+?)}", echo)]))
[0, 1, 2]
>>> verdict = r"They match, so I output \boxed{yes}"
>>> restated_boxes(verdict, [(verdict.index("\\"), len(verdict), "yes")])
set()
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WRAPPERS = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|emph)\s*\{([^{}]*)\}")
# What follows a box that restates the instruction rather than gives a verdict: a condition.
_CONDITION_AFTER = re.compile(
    r"\s*[,，]?\s*(?:(?:if|when|whenever|otherwise|in case)\b|如果|若|假如|否则|不然)", re.IGNORECASE
)
# What leads to such a box in the same sentence: a condition, then "output"/"answer"/"输出"... right before it.
_CONDITION_BEFORE = re.compile(
    r"(?:\b(?:if|when|whenever|otherwise|else|unless)\b|如果|若|假如|否则|不然)[^.。!?！？\n]{0,120}?"
    r"(?:\b(?:output|answer|write|put|say|return|give|print|reply|respond|finish|end)(?:\s+with)?|输出|回答|给出)"
    r"\s*[:：]?\s*\Z",
    re.IGNORECASE,
)
# How far back a leading condition is looked for.
_BEFORE_CHARS = 160
# What joins the two boxes of a restated "yes or no" pair: "or", "或" (after an optional gloss like "（正确）").
_PAIR_JOIN = re.compile(r"\s*(?:[(（][^()（）]{0,12}[)）])?\s*[,，、]?\s*(?:or|或者?|/)\s*", re.IGNORECASE)


# Quotations in a reply: "…", “…”, 「…」, 『…』 on one line, `code`, ```blocks```, > blockquote lines.
_QUOTATION = re.compile(
    r'"[^"\n]*"|“[^”\n]*”|「[^」\n]*」|『[^』\n]*』|```[\s\S]*?```|`[^`\n]+`|^[ \t]*>[^\n]*', re.MULTILINE
)


def quoted_spans(reply: str) -> list[tuple[int, int]]:
    r"""Where ``reply`` quotes text (see :func:`in_quotes`): ``(start, end)`` of each quotation, in order.

    >>> quoted_spans('The answer writes "Judgement: yes".\n> \\boxed{yes}\nNo.')
    [(18, 34), (36, 49)]
    """
    return [match.span() for match in _QUOTATION.finditer(reply)]


def in_quotes(position: int, spans: Sequence[tuple[int, int]]) -> bool:
    r"""Whether ``position`` lies in one of ``spans``: a verdict there is one the judge quoted (from the answer,
    which may plant one to be quoted), never its own.

    >>> reply = r'My verdict: \boxed{no}. The student wrote "\boxed{yes}".'
    >>> [in_quotes(reply.index(box), quoted_spans(reply)) for box in (r"\boxed{no}", r"\boxed{yes}")]
    [False, True]
    """
    return any(start <= position < end for start, end in spans)


def verdict_label(content: str) -> bool | None:
    r"""``True``/``False`` for a box holding yes/no (wrappers, braces and final stops ignored), else ``None``.

    >>> verdict_label(r"\textbf{YES}."), verdict_label("{no}"), verdict_label("maybe")
    (True, False, None)
    """
    label = content
    while _WRAPPERS.search(label):
        label = _WRAPPERS.sub(r"\1", label)
    # "{yes}": a judge shown the doubled braces of a .format-escaped prompt may echo them
    label = label.strip().strip("{}").strip().strip(".!。").strip().lower()
    return {"yes": True, "no": False}.get(label)


def restated_boxes(reply: str, spans: Sequence[tuple[int, int, str]]) -> set[int]:
    """The positions in ``spans`` (``(start, end, content)`` of each box in ``reply``, in order) that restate
    the instruction (see the module docstring); boxes holding neither yes nor no are never counted."""
    labels = [verdict_label(content) for _, _, content in spans]
    restated = set()
    for position, (start, end, _) in enumerate(spans):
        if labels[position] is None:
            continue
        if _CONDITION_AFTER.match(reply, end) or _CONDITION_BEFORE.search(reply[max(0, start - _BEFORE_CHARS) : start]):
            restated.add(position)
        following = position + 1
        if (
            following < len(spans)
            and labels[following] not in (None, labels[position])
            and _PAIR_JOIN.fullmatch(reply, end, spans[following][0])
        ):
            restated.update((position, following))
    return restated
