r"""Find the final answer in a model's response.

First hit wins: the last ``\boxed{…}`` / ``\fbox{…}`` (with the boxes right before it when only a separator
stands between them: ``\boxed{3}, \boxed{5}`` is ``3, 5``); the last "the (final) answer is …" / "Answer: …" /
"答案是 …" phrase (filler dropped, a plain sentence's value, :func:`stated_value`); the last inline LaTeX on the
last line; the last number on the last line. Only the text after the last ``</think>`` is searched; a trailing
loop is read up to one unit of it (:func:`split_repetition`); a response cut mid-sentence or inside a box
(:func:`ends_cut`) skips the two last-line guesses. The work is bounded whatever the response (one pass for
boxes, backtracking patterns only on a line's last ``2 * MAX_ANSWER_CHARS`` characters), and an answer over
:data:`MAX_ANSWER_CHARS` is refused (``overlong``). See docs/scoring.md, "Unresolved verdicts and exit codes".

>>> extract_answer(r"So $x = \frac{1}{2}$, hence \boxed{\frac{1}{2}}.")
'\\frac{1}{2}'
>>> extract_answer(r"The roots are \boxed{2} and \boxed{-3}.")
'2, -3'
>>> extract_answer("所以答案是 $12$。")
'12'
>>> extract_answer("I am not sure.") is None
True
>>> extract(r"\boxed{" + "x" * 5000 + "}")
Extraction(answer=None, overlong=5000)
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

#: Longest final answer passed on; a longer one is refused (see :func:`extract`).
MAX_ANSWER_CHARS = 1000
# How much of a line the backtracking-prone searches (inline LaTeX, numbers) look at: its end.
_SCAN_CHARS = 2 * MAX_ANSWER_CHARS
# Longest text between two boxes that can still be a separator.
_SEPARATOR_CHARS = 40

_COMMANDS = ("\\boxed", "\\fbox")
_BOX_TOKENS = re.compile(r"\\(?:boxed|fbox)\s*(?P<brace>\{)?|(?P<opens>\{+)|(?P<closes>\}+)")
_BARE_TOKEN = re.compile(r"[^\s$,;{}]+")
# What may stand between two boxes of one multi-part answer.
_BOX_SEPARATOR = re.compile(r"^[\s$]*(?:,|;|，|；|、|and|&|和|及|或|or|\\quad|\\qquad|\\,)?[\s$]*$", re.IGNORECASE)
# The phrase before a stated answer; the answer is the rest of its sentence.
_ANSWER_PHRASE = re.compile(
    r"(?:final\s+answer|the\s+answer|answer|correct\s+(?:option|choice))\s*(?:is|:|=)\s*:?\s*"
    r"|(?:最终答案|答案)\s*(?:仍然|依然|仍|还|就|也)?\s*(?:是|为|：|:)\s*[：:]?\s*",
    re.IGNORECASE,
)
# Where a sentence ends: "12. The", "12。", not "3.5" (and not inside $…$: see _first_sentence).
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
# A number and at most two words (a unit: "12 square units", "5 cm", "12种") at the very end of a response.
_UNIT_AFTER_NUMBER = re.compile(r"\d[^\S\n]*(?:(?:[A-Za-z]{1,12}[^\S\n]*){1,2}|[\u4e00-\u9fff]{1,4})$")
_UNIT_TAIL_CHARS = 40  # the longest such end (2 words of 12 letters, blanks): the search stays bounded
# How a finished response may end: punctuation, a closing bracket, $, a digit, a closing tag or quote.
_FINISHED_END = set(".!?。！？;；:：)]}>$*%\"'”’」』∎") | set("0123456789")
# Words between the answer phrase and the answer itself: "the answer is still 5", "答案是仍然 5".
_FILLER = re.compile(
    r"^(?:(?:(?:still|just|simply|then|therefore|thus|hence|clearly|indeed|also|now|exactly|precisely|actually|"
    r"obviously|again|finally)\b|仍然|依然|还是|就是|也是|即)[\s,，:：]*)+",
    re.IGNORECASE,
)
# A sentence stated after an answer phrase ("Final answer: 6 times 7 is 42"): the verb before its value ...
_COPULA = re.compile(
    r"\b(?:is\s+equal\s+to|equals|is|are|was|were|comes\s+to|gives|makes)\s+|(?<!不)等于", re.IGNORECASE
)
# ... what makes such a sentence more than "<subject> is <value>": a second clause, a negation ...
_CLAUSE_BREAK = re.compile(
    r"[,;:，；：]|\b(?:because|since|so|but|though|although|if|unless|when|while|whereas|then)\b|因为|所以|但",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no|none|cannot|neither|nor)\b|n't|不|没|非", re.IGNORECASE)
# ... and a word of prose (two letters or more, not a LaTeX command's name).
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
_INLINE_LATEX = re.compile(r"\$\$(?P<a>.+?)\$\$|\$(?P<b>[^$]+?)\$|\\\((?P<c>.+?)\\\)|\\\[(?P<d>.+?)\\\]", re.DOTALL)
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?")
_THINK_END = "</think>"
# A trailing run counts as repetition when its unit (at most _MAX_PERIOD characters, holding a letter)
# repeats at least _MIN_REPEATS times over at least _MIN_REPEAT_CHARS characters.
_MAX_PERIOD = 400
_MIN_REPEATS = 3
_MIN_REPEAT_CHARS = 64
_PROBE_CHARS = 16  # the text's last characters, searched for backwards to find the unit's length


@dataclass(frozen=True)
class Extraction:
    """What :func:`extract` found.

    Attributes:
        answer: the final answer, ``None`` if none was found or it was too long.
        overlong: the length of a final answer refused for being longer than
            :data:`MAX_ANSWER_CHARS` (``0`` when none was refused).
    """

    answer: str | None
    overlong: int = 0


def boxed_spans(text: str) -> list[tuple[int, int, str]]:
    r"""Every complete outermost ``\boxed{…}``/``\fbox{…}`` in ``text``: ``(start, end, content)``.

    Braces nest; a box left open by a truncated response is skipped (the
    boxes inside it still count); a box inside a complete box is part of
    its content.  A box without braces (``\boxed 5``) takes the next token.
    One pass over the text with a stack of open boxes: linear in its length.

    >>> boxed_spans(r"\boxed{\frac{1}{2}} and \fbox{a{b}c} and \boxed 7 and \boxed{open")
    [(0, 19, '\\frac{1}{2}'), (24, 36, 'a{b}c'), (41, 49, '7')]
    >>> boxed_spans(r"\boxed{\boxed{1}} \boxed{2")
    [(0, 17, '\\boxed{1}')]
    """
    return [
        (start, end, text[content_start:content_end]) for start, end, content_start, content_end in _box_positions(text)
    ]


def _box_positions(text: str) -> list[tuple[int, int, int, int]]:
    """``(start, end, content start, content end)`` of each box :func:`boxed_spans` returns.

    Braces are counted only while a box is open (runs of them at once);
    between boxes the scan jumps to the next box command.
    """
    spans: list[tuple[int, int, int, int]] = []
    open_boxes: list[tuple[int, int, int]] = []  # (brace depth before the box, its start, its content's start)
    depth = 0
    position = 0
    upcoming = {command: text.find(command) for command in _COMMANDS}  # next occurrence of each, -1: none left
    while True:
        if not open_boxes:
            depth = 0  # only depth inside a box matters: jump to the next box command
            for command, found in upcoming.items():
                if 0 <= found < position:  # each search resumes where the last ended: linear overall
                    upcoming[command] = text.find(command, position)
            if all(found < 0 for found in upcoming.values()):
                return spans
            position = min(found for found in upcoming.values() if found >= 0)
        token = _BOX_TOKENS.search(text, position)
        if token is None:
            return spans
        position = token.end()
        if token.group("opens"):
            depth += len(token.group("opens"))
        elif token.group("closes"):
            depth = _close_braces(spans, open_boxes, depth, token.start(), token.end())
        elif token.group("brace"):
            open_boxes.append((depth, token.start(), token.end()))
            depth += 1
        else:
            bare = _BARE_TOKEN.match(text, token.end())
            separated = token.end() > token.start() + len(token.group().rstrip())
            if bare and (separated or not bare.group()[0].isalpha()):
                end = token.end() + len(bare.group().rstrip("."))
                spans.append((token.start(), end, token.end(), end))


def _close_braces(spans: list, open_boxes: list, depth: int, start: int, end: int) -> int:
    """Apply the run of ``}`` at ``text[start:end]``: close the boxes it closes; return the new depth."""
    at = start
    while at < end and depth:
        if open_boxes and depth - open_boxes[-1][0] <= end - at:
            before, box_start, content_start = open_boxes.pop()
            at += depth - before  # the brace closing this box is at at - 1
            depth = before
            while spans and spans[-1][0] > box_start:  # boxes inside this one are part of its content
                spans.pop()
            spans.append((box_start, at, content_start, at - 1))
        else:
            return max(0, depth - (end - at))  # a stray "}" outside every brace is ignored
    return depth


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
        gap = text[span[1] : parts[0][0]]
        if len(gap) > _SEPARATOR_CHARS or not _BOX_SEPARATOR.match(gap):
            break
        parts.insert(0, span)
    return ", ".join(content.strip() for _, _, content in parts)


def extract_answer(response: str) -> str | None:
    """The final answer of ``response`` (see the module docstring), or ``None``."""
    return extract(response).answer


def extract(response: str) -> Extraction:
    """The final answer of ``response``, or why there is none (see the module docstring).

    >>> extract("so the final answer is still 5.")
    Extraction(answer='5', overlong=0)
    >>> extract("no answer here")
    Extraction(answer=None, overlong=0)
    """
    if _THINK_END in response:
        response = response.rsplit(_THINK_END, 1)[1]
    boxed = last_boxed(response)
    if boxed is not None:
        found = _final(boxed)
        if found is not None:
            return found
    before, unit = split_repetition(response)
    found = _from_phrase(before + unit)
    if found is not None:
        return found
    for text in (before + unit, before) if unit else (response,):  # one unit of the run may hold the answer
        if ends_cut(text):
            continue
        found = _from_last_line(text)
        if found is not None:
            return found
    return Extraction(None)


def _from_phrase(text: str) -> Extraction | None:
    """The answer the last answer phrase of ``text`` states, up to the end of its sentence."""
    phrase = _last_match(_ANSWER_PHRASE, text)
    if phrase is None:
        return None
    end = text.find("\n", phrase.end())
    line = text[phrase.end() : end if end >= 0 else len(text)]
    stated = _FILLER.sub("", _first_sentence(line).lstrip())
    latex = _last_inline_latex(stated)
    return _final(latex if latex is not None else stated_value(stated))


def stated_value(stated: str) -> str:
    r"""The value of a sentence stated as the answer, ``"<subject> is <value>"``; anything else unchanged.

    A model may follow "Final answer:" with a sentence ("6 times 7 is 42"): its answer is the value after the
    one verb (is, are, was, equals, is equal to, comes to, gives, makes, 等于). Only a plain statement is read
    so: one verb, a subject before it, no second clause (a comma, "because", "so" ...), no negation anywhere
    ("is not 41", "不等于"), and a value with no prose before its last digit (a unit or two may follow it:
    "42 apples"). Otherwise the sentence is the answer, as written.

    >>> stated_value("6 times 7 is 42"), stated_value("the product of 6 and 7 is equal to 42"), stated_value("6乘7等于42")
    ('42', '42', '42')
    >>> stated_value("6 times 7 is not 41"), stated_value("the roots are 3 and 5"), stated_value("41, since 6 x 7 is 42")
    ('6 times 7 is not 41', 'the roots are 3 and 5', '41, since 6 x 7 is 42')
    """
    if _NEGATION.search(stated) or _CLAUSE_BREAK.search(stated):
        return stated
    verbs = list(_COPULA.finditer(stated))
    if len(verbs) != 1 or not stated[: verbs[0].start()].strip():
        return stated
    value = stated[verbs[0].end() :].strip()
    digits = [position for position, char in enumerate(value) if char.isdigit()]
    words = [word.start() for word in _PROSE_WORD.finditer(value)]
    if not (digits or "\\" in value) or len(words) > 2 or any(word < max(digits, default=-1) for word in words):
        return stated
    if words and not digits:  # "\pi radians": a unit after no number
        return stated
    return value


def _first_sentence(text: str) -> str:
    """``text`` up to its first sentence end outside ``$…$`` (all of it when there is none)."""
    dollars = counted = 0  # "$" in text[:counted]: one pass however many sentence ends lie inside $…$
    for end in _SENTENCE_END.finditer(text):
        dollars += text.count("$", counted, end.start())
        counted = end.start()
        if dollars % 2 == 0:
            return text[: end.start()]
    return text


def ends_cut(text: str) -> bool:
    r"""``text`` stops mid-sentence or inside an open box: the token limit cut it before its answer.

    >>> ends_cut("The sum is 12."), ends_cut("So we get 12"), ends_cut("First 12, then we need to bound")
    (False, False, True)
    >>> ends_cut(r"Hence \boxed{12"), ends_cut(r"Hence \boxed{12}")
    (True, False)

    A number with a unit or two after it ends a finished sentence that only
    lacks its full stop ("12 square units", "共有12种"):

    >>> ends_cut("So the area is 12 square units"), ends_cut("共有12种"), ends_cut("we have 12 apples and the")
    (False, False, True)
    """
    stripped = text.rstrip()
    if not stripped:
        return False
    if stripped[-1] not in _FINISHED_END:
        return not _UNIT_AFTER_NUMBER.search(stripped[-_UNIT_TAIL_CHARS:])
    last_box = max(stripped.rfind(command) for command in _COMMANDS)
    return last_box >= 0 and not boxed_spans(stripped[last_box:])


def split_repetition(text: str) -> tuple[str, str]:
    r"""``text`` split before a trailing run of one repeated unit: ``(before, unit)``; ``(text, "")`` if none.

    The run may end mid-unit (a generation cut by the token limit). A unit
    without a letter (``"0"`` in ``1000000``, ``"42 "``) is not repetition.

    >>> split_repetition("The total is 1625.\n" + "I think " * 30 + "I th")
    ('The total is 1625.\n', 'I think ')
    >>> split_repetition("x = 1000000000000000000000000000000000000000000000000000000000000000000")[1]
    ''
    """
    end = len(text.rstrip())
    if end < _MIN_REPEAT_CHARS:
        return text, ""
    probe = text[end - _PROBE_CHARS : end]
    previous = text.rfind(probe, max(0, end - _PROBE_CHARS - _MAX_PERIOD), end - 1)
    if previous < 0:
        return text, ""
    period = end - _PROBE_CHARS - previous

    def repeats_from(start: int) -> bool:  # text[start:end] has period `period`
        return text[start + period : end] == text[start : end - period]

    shortest = max(_MIN_REPEAT_CHARS, _MIN_REPEATS * period)
    if (
        shortest > end
        or not any(char.isalpha() for char in text[end - period : end])
        or not repeats_from(end - shortest)
    ):
        return text, ""
    low, high = 0, end - shortest  # repeats_from(high) holds; find the smallest start where it does
    while low < high:
        middle = (low + high) // 2
        if repeats_from(middle):
            high = middle
        else:
            low = middle + 1
    return text[:low], text[low : low + period]


def _from_last_line(text: str) -> Extraction | None:
    """The last inline LaTeX, else the last number, on the last line of ``text``."""
    line = _last_line(text)
    if line is None:
        return None
    latex = _last_inline_latex(line)
    if latex is not None:
        found = _final(latex)
        if found is not None:
            return found
    number = _last_match(_NUMBER, line)
    return _final(number.group()) if number is not None else None


def _final(candidate: str) -> Extraction | None:
    """``candidate`` cleaned: ``None`` when nothing is left, refused when too long."""
    answer = _clean(candidate)
    if not answer:
        return None
    if len(answer) > MAX_ANSWER_CHARS:
        return Extraction(None, len(answer))
    return Extraction(answer)


def _last_line(text: str) -> str | None:
    """The end (up to ``_SCAN_CHARS``) of the last non-blank line of ``text``."""
    text = text.rstrip()
    if not text:
        return None
    return text[-_SCAN_CHARS:].splitlines()[-1]


def _last_inline_latex(text: str) -> str | None:
    last = _last_match(_INLINE_LATEX, text[-_SCAN_CHARS:])
    if last is None:
        return None
    return next(group for group in last.groups() if group is not None)


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text`` (one pass, keeping one match)."""
    last = deque(pattern.finditer(text), maxlen=1)
    return last[0] if last else None


def _clean(answer: str) -> str:
    """Strip whitespace, ``$`` wrappers and a sentence's final full stop (linear: no regular expression)."""
    answer = answer.strip().strip("$").strip()
    answer = answer.rstrip(".。").strip()
    return answer.strip("$").strip()
