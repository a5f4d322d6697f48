r"""Find the final answer in a model's response.

The order of preference, first hit wins:

1. the last ``\boxed{…}`` / ``\fbox{…}`` (nested braces balanced), joined
   with the boxes right before it when only a separator stands between them
   (``\boxed{3}, \boxed{5}`` is the two-part answer ``3, 5``);
2. the last "the (final) answer is …" / "Answer: …" / "答案是 …" phrase;
3. the last inline LaTeX (``$…$``, ``\(…\)``, ``\[…\]``) on the last line;
4. the last number on the last line.

When a reasoning model's response holds a ``</think>`` tag only the text
after the last one is searched: the chain of thought is not the answer.

>>> extract_answer(r"So $x = \frac{1}{2}$, hence \boxed{\frac{1}{2}}.")
'\\frac{1}{2}'
>>> extract_answer(r"The roots are \boxed{2} and \boxed{-3}.")
'2, -3'
>>> extract_answer("所以答案是 $12$。")
'12'
>>> extract_answer("I am not sure.") is None
True
"""

from __future__ import annotations

import re

_BOX_COMMANDS = re.compile(r"\\(?:boxed|fbox)\s*")
# What may stand between two boxes of one multi-part answer.
_BOX_SEPARATOR = re.compile(r"^[\s$]*(?:,|;|，|；|、|and|&|和|及|或|or|\\quad|\\qquad|\\,)?[\s$]*$", re.IGNORECASE)
_ANSWER_PHRASE = re.compile(
    r"(?:final\s+answer|the\s+answer|answer)\s*(?:is|:|=)\s*:?\s*(?P<answer>[^\n]+)"
    r"|(?:最终答案|答案)\s*(?:是|为|：|:)\s*[：:]?\s*(?P<answer_cn>[^\n]+)",
    re.IGNORECASE,
)
_INLINE_LATEX = re.compile(r"\$\$(?P<a>.+?)\$\$|\$(?P<b>[^$]+?)\$|\\\((?P<c>.+?)\\\)|\\\[(?P<d>.+?)\\\]", re.DOTALL)
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?")
_THINK_END = "</think>"


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    r"""Every complete ``\boxed{…}``/``\fbox{…}`` in ``text``: ``(start, end, content)``.

    Braces nest; a box left open by a truncated response is skipped.  A box
    without braces (``\boxed 5``) takes the next token.

    >>> boxed_spans(r"\boxed{\frac{1}{2}} and \fbox{a{b}c} and \boxed 7 and \boxed{open")
    [(0, 19, '\\frac{1}{2}'), (24, 36, 'a{b}c'), (41, 49, '7')]
    """
    spans = []
    for match in _BOX_COMMANDS.finditer(text):
        start, position = match.start(), match.end()
        if position < len(text) and text[position] == "{":
            depth = 0
            for index in range(position, len(text)):
                char = text[index]
                if char == "{":
                    depth += 1
                elif char == "}":
                    depth -= 1
                    if depth == 0:
                        spans.append((start, index + 1, text[position + 1:index]))
                        break
        else:
            token = re.match(r"[^\s$,;{}]+", text[position:])
            separated = match.end() > match.start() + len(match.group().rstrip())
            if token and (separated or not token.group()[0].isalpha()):
                content = token.group().rstrip(".")
                spans.append((start, position + len(content), content))
    return spans


def last_boxed(text: str) -> str | None:
    r"""The content of the last ``\boxed{…}`` (joined with the boxes just before it), or ``None``.

    >>> last_boxed(r"first \boxed{1}; later \boxed{A}, \boxed{C}")
    'A, C'
    >>> last_boxed("no box") is None
    True
    """
    spans = boxed_spans(text)
    if not spans:
        return None
    parts = [spans[-1]]
    for span in reversed(spans[:-1]):
        if not _BOX_SEPARATOR.match(text[span[1]:parts[0][0]]):
            break
        parts.insert(0, span)
    return ", ".join(content.strip() for _, _, content in parts)


def extract_answer(response: str) -> str | None:
    """The final answer of ``response`` (see the module docstring), or ``None``."""
    if _THINK_END in response:
        response = response.rsplit(_THINK_END, 1)[1]
    boxed = last_boxed(response)
    if boxed is not None and _clean(boxed):
        return _clean(boxed)
    phrases = list(_ANSWER_PHRASE.finditer(response))
    if phrases:
        phrase = phrases[-1].group("answer") or phrases[-1].group("answer_cn")
        latex = _last_inline_latex(phrase)
        answer = _clean(latex if latex is not None else phrase)
        if answer:
            return answer
    lines = [line for line in response.strip().splitlines() if line.strip()]
    if not lines:
        return None
    latex = _last_inline_latex(lines[-1])
    if latex is not None and _clean(latex):
        return _clean(latex)
    numbers = _NUMBER.findall(lines[-1])
    return numbers[-1] if numbers else None


def _last_inline_latex(text: str) -> str | None:
    matches = list(_INLINE_LATEX.finditer(text))
    if not matches:
        return None
    last = matches[-1]
    return next(group for group in last.groups() if group is not None)


def _clean(answer: str) -> str:
    """Strip whitespace, ``$`` wrappers and a sentence's final full stop."""
    answer = answer.strip()
    answer = re.sub(r"^\$+|\$+$", "", answer).strip()
    answer = re.sub(r"[.。]+$", "", answer).strip()
    answer = re.sub(r"^\$+|\$+$", "", answer).strip()
    return answer
