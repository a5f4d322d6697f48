r"""The rule judge: math-verify equivalence, and choice answers as letter sets.

:func:`rule_verdict` compares a choice reference as a set of option letters (an AoPS/AMC label and its value,
``\textbf{(D)}\ 1625``, counts as either), refuses without asking math-verify a number far too big or small
or of the other sign (:mod:`gpassk_opencompass.judges.magnitude`), and sends anything else through math-verify,
gold first (``verify(gold, target)`` is not symmetric); two plain integers get math-verify's verdict without its
parser (:func:`integer_verdict`). math-verify's ``signal.alarm`` needs a main thread
(:mod:`gpassk_opencompass.judges.workers` provides one); a comparison over ``timeout`` is decided by
:func:`numeric_difference` when the values differ, else ``correct=None`` with :data:`UNDECIDED_HINT`.
See docs/evaluator.md, "Judges".

>>> rule_verdict(r"\frac{1}{2}", "0.5")
Verdict(correct=True, extracted='0.5', reason='math-verify: equivalent', source='rule')
>>> rule_verdict("B, D", "D,B").reason
'choice letters {B, D} match'
>>> rule_verdict("B", r"\textbf{(B)}\ 2").correct, rule_verdict("1625", r"\textbf{(D)}\ 1625").correct
(True, True)
>>> rule_verdict("36", "23!!").reason
'size check: log10|answer| >= 11.21 but log10|reference| <= 1.556: not equal'
>>> rule_verdict("7", None)
Verdict(correct=False, extracted=None, reason='no final answer found', source='rule')
"""

from __future__ import annotations

import itertools
import re
import zlib
from dataclasses import dataclass

from gpassk_opencompass.judges.kinds import RULE
from gpassk_opencompass.judges.magnitude import differ, magnitude
from gpassk_opencompass.judges.types import Verdict, text_bytes
from gpassk_opencompass.log import logger

#: What to do about an answer the rule judge could not decide (said in the verdict's reason).
UNDECIDED_HINT = (
    "the rule judge is deterministic (re-running gives the same): give it more time "
    "(--rule-timeout, rule_timeout) or let a judge model decide (--judge cascade)"
)

_LETTER = r"\(?\s*(?:\\text\{)?([A-H])\}?\s*\)?"
_CHOICE_LIST = re.compile(rf"^\s*{_LETTER}(?:\s*(?:,|，|、|;|；|\s|and|和|及|&)\s*{_LETTER})*\s*[.。]?\s*$")
_CHOICE_RUN = re.compile(r"^\s*([A-H]{2,8})\s*[.。]?\s*$")
_LEADING_CHOICE = re.compile(r"^\s*\(?([A-H])(?:\)|\.|:|：|\s)")
# A lower-case option label, "(b)" or "b)": read as its letter only against a choice reference.
_LOWER_LABEL = re.compile(r"^\s*\(?\s*([a-h])\s*\)")
# An option letter in a font command, alone or first: \textbf{(B)}, \text{B}, \mathrm{(B)}, \textbf{(B) 2},
# \text{B. }; its content is kept with the letter as the label "(B)".
_STYLED_LETTER = re.compile(
    r"\\(?:textbf|textsf|textit|textrm|text|mathrm|mathbf|mathsf|mathit|boldsymbol|bf)\s*"
    r"\{\s*(?:\(\s*([A-H])\s*\)|([A-H])(?=[\s.:)}])[.:)]?)([^{}]*)\}"
)
# "Option B", "choice (B)", "选项 B": the word before a letter.
_OPTION_WORD = re.compile(r"(?:\b(?:option|choice)|选项)\s*(?=\(?\s*[A-Ha-h]\b)", re.IGNORECASE)
# "(D)" (or "D." / "D:" / "D)") before an option's value, and the spacing after it.
_OPTION_LABEL = re.compile(r"^\s*(?:\(\s*[A-H]\s*\)|[A-H][.:)])(?:\s|~|:|\\ |\\,|\\;|\\quad|\\qquad)*")
# Every option label "(B)" in an answer.
_OPTION_LABELS = re.compile(r"\(\s*([A-H])\s*\)")
# Relative difference below which two numeric values prove nothing (math-verify rounds to 6 decimals) ...
_NUMERIC_TOLERANCE = 1e-5
# ... and the size below which a value may be a zero evaluated with 30 digits (terms of size ~1 cancelling).
_ZERO = 1e-15
# "x =" before a value.
_ASSIGNMENT = re.compile(r"^\s*[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?\s*=(?!=)")
# A plain integer math-verify reads exactly (:func:`integer_verdict`): ASCII digits, an optional minus, at most 15
# digits (a double holds it exactly, so no rounding in math-verify's comparison can make two of them equal).
_PLAIN_INTEGER = re.compile(r"-?[0-9]{1,15}")


def choice_letters(text: str) -> frozenset[str] | None:
    r"""The option letters ``text`` names, or ``None`` if it is not a choice answer.

    >>> sorted(choice_letters("(B) and (D)")), sorted(choice_letters("ACD")), choice_letters("x = 2")
    (['B', 'D'], ['A', 'C', 'D'], None)
    """
    text = unstyled(text)
    run = _CHOICE_RUN.match(text)
    if run:
        letters = run.group(1)
        return frozenset(letters) if len(set(letters)) == len(letters) else None
    if not _CHOICE_LIST.match(text):
        return None
    return frozenset(re.findall(r"(?<![A-Za-z\\])([A-H])(?![A-Za-z])", text))


def unstyled(text: str) -> str:
    r"""``text`` with its option letters out of their font commands and option words (``\textbf{(B)}\ 2`` -> ``(B)\ 2``).

    >>> unstyled(r"\textbf{(B)}\ 2"), unstyled(r"\text{\textbf{(D)}}"), unstyled(r"\textbf{(B) 2}"), unstyled("Option B")
    ('(B)\\ 2', '(D)', '(B) 2', 'B')
    >>> unstyled(r"\text{Bob}"), unstyled(r"\mathrm{B}")
    ('\\text{Bob}', '(B)')
    """
    text = _OPTION_WORD.sub("", text)
    for _ in range(3):  # nested styles: \text{\textbf{(D)}}
        text, count = _STYLED_LETTER.subn(lambda match: f"({match[1] or match[2]}){match[3]}", text)
        if not count:
            break
    return text


def rule_verdict(reference: str, extracted: str | None, *, timeout: int = 3) -> Verdict:
    """Judge one extracted answer against ``reference`` (see the module docstring).

    Args:
        reference: the gold answer.
        extracted: the extracted final answer, ``None`` if none was found.
        timeout: seconds math-verify may spend on one parse or comparison.
    """
    if extracted is None:
        return Verdict(False, None, "no final answer found", RULE)
    gold_letters = choice_letters(reference)
    if gold_letters is not None:
        return _choice_verdict(gold_letters, extracted)
    gold_value = option_value(reference)
    if gold_value != reference and _named_letters(extracted) is not None:  # gold "(B) 2", answer "B" or "(C) 2"
        return _choice_verdict(_named_letters(reference) or frozenset(), extracted)
    reference = gold_value
    value = option_value(extracted)
    return _size_verdict(reference, extracted, value) or _math_verify_verdict(reference, extracted, value, timeout)


def option_value(answer: str) -> str:
    r"""``answer`` without a leading option label (``\textbf{(D)}\ 1625`` -> ``1625``); unchanged without one.

    A bare label has no value and is returned as it is.

    >>> option_value(r"\textbf{(D)}\ 1625"), option_value(r"(B)\quad 2"), option_value("(B)"), option_value("(1, 2)")
    ('1625', '2', '(B)', '(1, 2)')
    """
    plain = unstyled(answer)
    label = _OPTION_LABEL.match(plain)
    value = plain[label.end() :].strip() if label else ""
    return value or answer


def _size_verdict(reference: str, extracted: str, value: str) -> Verdict | None:
    """``False`` for an answer too big or too small to be the reference (both numbers), else ``None``.

    Only answers math-verify may try to expand are judged here: above 10 in size, or below 0.1 and too
    big to hold exactly (``10^{-10^9}``); :func:`~gpassk_opencompass.judges.magnitude.differ` says when the
    bounds prove them different.  An answer in Knuth's arrows (``2\\uparrow\\uparrow 3``), which math-verify
    misreads, is compared by its exact value when it has one.
    """
    answer_text = _ASSIGNMENT.sub("", value, count=1)
    answer = magnitude(answer_text)
    arrows = "\\uparrow" in value
    if answer is None or not (answer.lo > 1 or (answer.hi < -1 and answer.exact is None) or arrows):
        return None
    reference_text = _ASSIGNMENT.sub("", reference, count=1)
    gold = magnitude(reference_text)
    if gold is not None and answer.exact is not None and gold.exact is not None and arrows:
        same = answer.exact == gold.exact
        return Verdict(same, extracted, f"arrows evaluated: {answer.exact} {'=' if same else '!='} {gold.exact}", RULE)
    why = None if gold is None else differ(answer, gold, decimals="." in answer_text + reference_text)
    return None if why is None else Verdict(False, extracted, f"size check: {why}: not equal", RULE)


def _named_letters(answer: str) -> frozenset[str] | None:
    """The option letters ``answer`` names: a choice answer, or a leading (possibly lower-case) label."""
    letters = choice_letters(answer)
    if letters is not None:
        return letters
    plain = unstyled(answer)
    if len(_listed_options(plain)) > 1:  # "(A) 1 \qquad (B) 2": the options copied out, none chosen
        return None
    leading = _LEADING_CHOICE.match(plain + " ") or _LOWER_LABEL.match(plain)
    return frozenset(leading.group(1).upper()) if leading else None


def _listed_options(plain: str) -> frozenset[str]:
    """The letters of the option labels ``(X)`` in ``plain`` (an unstyled answer)."""
    return frozenset(_OPTION_LABELS.findall(plain))


def _choice_verdict(gold_letters: frozenset[str], extracted: str) -> Verdict:
    letters = _named_letters(extracted)
    gold = "{" + ", ".join(sorted(gold_letters)) + "}"
    if letters is None:
        listed = _listed_options(unstyled(extracted))
        said = (
            f"lists the options {{{', '.join(sorted(listed))}}} without choosing one"
            if len(listed) > 1
            else "names no option letter"
        )
        return Verdict(False, extracted, f"reference is the choice {gold}; the answer {said}", RULE)
    if letters == gold_letters:
        return Verdict(True, extracted, f"choice letters {gold} match", RULE)
    return Verdict(False, extracted, f"choice letters {{{', '.join(sorted(letters))}}} differ from {gold}", RULE)


def _math_verify_verdict(reference: str, extracted: str, value: str, timeout: int) -> Verdict:
    if _PLAIN_INTEGER.fullmatch(reference) and _PLAIN_INTEGER.fullmatch(value):
        return integer_verdict(reference, extracted, value)
    return math_verify_verdict(reference, extracted, value, timeout)


def integer_verdict(reference: str, extracted: str, value: str) -> Verdict:
    """math-verify's verdict, and its reason, on two plain integers, without running its parser: equal values.

    ``reference`` and ``value`` are plain integers (ASCII digits, an optional minus, at most 15 digits), which
    math-verify parses to the integers they write (``007`` is 7, ``-0`` is 0) and calls equivalent exactly when
    they are equal; its parser costs about a millisecond an answer (sympy reading the number's text), most of
    judging AIME-style answers, all integers. tests/test_rule_judge.py checks it against math-verify.

    >>> integer_verdict("7", "007", "007").reason, integer_verdict("-0", "0", "0").correct
    ('math-verify: equivalent', True)
    >>> integer_verdict("12", "13", "13")
    Verdict(correct=False, extracted='13', reason='math-verify: not equivalent', source='rule')
    """
    if int(reference) == int(value):
        return Verdict(True, extracted, "math-verify: equivalent", RULE)
    return Verdict(False, extracted, "math-verify: not equivalent", RULE)


def math_verify_verdict(reference: str, extracted: str, value: str, timeout: int) -> Verdict:
    """math-verify's verdict on ``value`` (the answer ``extracted``, without an option label) against ``reference``,
    each parsed and compared within ``timeout`` seconds (see the module docstring)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
    from math_verify.errors import TimeoutException

    config = [LatexExtractionConfig(), ExprExtractionConfig()]

    def parsed(text: str) -> list:
        return parse(
            "\\boxed{" + text.strip().strip("$") + "}",
            extraction_config=config,
            parsing_timeout=timeout,
            raise_on_error=True,
        )

    try:
        gold = parsed(reference)
        target = parsed(value)
    except TimeoutException:
        return Verdict(None, extracted, f"math-verify: parsing timed out after {timeout}s; {UNDECIDED_HINT}", RULE)
    except Exception as error:  # noqa: BLE001 - a parser crash means "cannot compare", said in the verdict
        logger.debug("math-verify could not parse {!r} / {!r}: {}", reference, extracted, type(error).__name__)
        return Verdict(False, extracted, f"math-verify: could not parse ({type(error).__name__})", RULE)
    if not gold or not target:
        side = "reference" if not gold else "answer"
        return Verdict(False, extracted, f"math-verify: nothing to compare in the {side}", RULE)
    timed_out: tuple | None = None  # the first pair whose comparison timed out (or was not asked: too big)
    timed = f"math-verify: comparison timed out after {timeout}s"
    for gold_form, target_form in itertools.product(gold, target):
        power = expanding_power(gold_form, target_form)
        if power is not None:  # sympy would expand it past the timeout, which it does not always keep
            timed_out = timed_out or (gold_form, target_form)
            timed = f"math-verify not asked: comparing would expand {power}"
            continue
        try:
            if verify(gold_form, target_form, timeout_seconds=timeout, raise_on_error=True):
                return Verdict(True, extracted, "math-verify: equivalent", RULE)
        except TimeoutException:
            timed_out = timed_out or (gold_form, target_form)
        except Exception as error:  # noqa: BLE001 - sympy fails on some pairs; the other pairs still count
            # Only the type: printing a sympy object from a failed comparison can itself hang.
            logger.debug("math-verify failed comparing {!r} with {!r}: {}", reference, extracted, type(error).__name__)
    if timed_out is None:
        return Verdict(False, extracted, "math-verify: not equivalent", RULE)
    found = numeric_difference(*timed_out, timeout=timeout)
    if found.differ:
        return Verdict(False, extracted, f"{timed}; {found.said}: not equal", RULE)
    if found.differ is False:
        return Verdict(None, extracted, f"{timed}; {found.said}: likely equal, not proven; {UNDECIDED_HINT}", RULE)
    return Verdict(None, extracted, f"{timed}; {found.said}; {UNDECIDED_HINT}", RULE)


@dataclass(frozen=True)
class Sample:
    """Two expressions evaluated at one point (:func:`numeric_difference`).

    Attributes:
        differ: ``True``: the two values differ beyond rounding, the expressions are not equal; ``False``: they
            agree there (likely equal, not proven); ``None``: the check makes no claim.
        said: the point and the values, for the verdict's reason; or why there is no claim.
    """

    differ: bool | None
    said: str


def numeric_difference(gold, target, *, timeout: int) -> Sample:
    r"""Evaluate two sympy expressions at one fixed point of their variables, as math-verify would compare them.

    Used when math-verify's symbolic comparison ran out of time (a long sum of ``e^{2ix}`` terms against an
    AIME answer): two expressions whose values differ at a point are not equal, whatever their form. Each
    variable gets a fixed value in (0.1, 0.9) from its name, so a verdict is the same on every run, except
    ``i``, which math-verify reads as a variable, and which is the imaginary unit (expressions that differ
    there differ as expressions of a variable ``i`` too); values within :data:`_NUMERIC_TOLERANCE` of each
    other (relative; both below :data:`_ZERO`: zero) prove nothing.

    An equation answered to a reference that is none is read as math-verify reads it, by its last right-hand
    side (``\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}} = (i\tan x)^{2023}`` against ``-1``); it differs only
    when every side of it differs there, so an answer written ``-1 = \ldots`` is never judged wrong. A
    reference that assigns (``x = 5``) is read by its value against an answer that is no equation. Other
    relations, sets, tuples and anything that does not evaluate to a finite number make no claim
    (``differ=None``, saying why); the evaluation has ``timeout`` seconds.

    >>> from sympy import Eq, Symbol, exp, I, cos, tan
    >>> x = Symbol("x")
    >>> numeric_difference(cos(x) ** 2, (exp(I * x) + exp(-I * x)) ** 2 / 4, timeout=3).differ
    False
    >>> i = Symbol("i")
    >>> numeric_difference(588, exp(2 * i * x) + exp(4 * i * x), timeout=3).said
    'at i = sqrt(-1), x = 0.7007 the answer is -0.7745+1.318i and the reference 588'
    >>> sample = numeric_difference(-1, Eq((exp(2 * i * x) - 1) / (exp(2 * i * x) + 1), i * tan(x)), timeout=3)
    >>> sample.differ, sample.said[:65]
    (True, "the answer's equation, read by its right-hand side as math-verify")
    """
    from math_verify.errors import TimeoutException
    from math_verify.utils import timeout as bounded
    from sympy import Expr, I, Max, Rational, sympify

    try:
        gold, target = sympify(gold), sympify(target)
    except Exception:  # noqa: BLE001 - not a sympy expression: no claim
        return Sample(None, "no numeric check: a side is not an expression sympy can evaluate")
    gold, sides, read = _as_compared(gold, target)
    if not all(isinstance(side, Expr) for side in (gold, *sides)):
        return Sample(None, "no numeric check compares relations, sets or tuples")
    symbols = sorted(set().union(gold.free_symbols, *(side.free_symbols for side in sides)), key=lambda s: s.name)
    point = {
        symbol: I if symbol.name == "i" else Rational(101 + zlib.crc32(text_bytes(symbol.name)) % 797, 1009)
        for symbol in symbols
    }
    where = ", ".join(
        f"{symbol} = {'sqrt(-1)' if value == I else f'{float(value):.4g}'}" for symbol, value in point.items()
    )
    at = f"at {where} " if where else ""

    @bounded(timeout_seconds=timeout)
    def values() -> list:  # sympy numbers: no overflow or underflow (10^{-10^9} is not 0)
        return [side.evalf(30, subs=point) for side in (gold, *sides)]

    try:  # sympy's evaluation, comparison and printing of the values: its errors only
        gold_value, *side_values = values()
        finite = all(value.is_number and value.is_finite for value in (gold_value, *side_values))
        differ = finite and all(
            bool(abs(gold_value - value) > _NUMERIC_TOLERANCE * Max(abs(gold_value), abs(value), _ZERO))
            for value in side_values
        )
        shown = " = ".join(_shown(value) for value in side_values) if finite else ""
        values_said = f"the answer is {shown} and the reference {_shown(gold_value)}" if finite else ""
    except TimeoutException:
        return Sample(None, f"no numeric check: evaluating {at}took over {timeout}s")
    except (TypeError, ValueError, ArithmeticError, RecursionError) as error:
        return Sample(None, f"no numeric check: evaluating {at}failed ({type(error).__name__})")
    if not finite:
        return Sample(None, f"no numeric check: the values {at}are not all finite numbers")
    return Sample(differ, f"{read}{at}{values_said}")


#: The highest power of an expression in a variable handed to math-verify: sympy expands a larger one term by term
#: (``(e^{2ix}-1)^{2023}``: tens of minutes), and its time limit, a signal, is lost when sympy catches it.
MAX_SYMBOLIC_DEGREE = 100


def expanding_power(gold, target) -> str | None:
    r"""The power of degree over :data:`MAX_SYMBOLIC_DEGREE` of a non-constant base that comparing ``target``
    with ``gold`` would make sympy expand (in the side math-verify compares), or ``None``.

    >>> from sympy import Eq, Integer, Symbol, exp, I
    >>> x, gold = Symbol("x"), Integer(-1)
    >>> expanding_power(gold, (exp(2 * I * x) - 1) ** 2023)
    'a power of degree 2023'
    >>> expanding_power(gold, Eq((exp(2 * I * x) - 1) ** 2023, -1)), expanding_power(gold, Integer(2) ** 2023)
    (None, None)
    """
    from sympy import Basic, Pow

    if not (isinstance(gold, Basic) and isinstance(target, Basic)):
        return None
    compared = _as_compared(gold, target)[1][-1]  # an equation answered to a number: its right-hand side
    degrees = [
        abs(int(power.exp))
        for power in compared.atoms(Pow)
        if power.exp.is_Integer and not power.base.is_number and abs(int(power.exp)) > MAX_SYMBOLIC_DEGREE
    ]
    return f"a power of degree {max(degrees)}" if degrees else None


def _as_compared(gold, target) -> tuple:
    """``(gold, sides, said)``: the reference and the answer's sides to evaluate, as math-verify compares them.

    As ``math_verify.grader`` does: an equation (or a chain ``a = b = c``) answered to a reference that is none
    is read by its last right-hand side -- its sides are all evaluated, and all must differ; a reference that
    assigns (``x = 5``) against an answer that is no equation is its right-hand side. ``said`` names the
    reading for the verdict's reason (``""``: both as they are).
    """
    from sympy import And, Eq, Symbol

    def relations(expression) -> list:
        return list(getattr(expression, "_unsorted_args", expression.args)) if isinstance(expression, And) else []

    def equation(expression) -> bool:
        chain = relations(expression)
        return isinstance(expression, Eq) or (bool(chain) and all(isinstance(part, Eq) for part in chain))

    if equation(target) and not equation(gold):
        chain = relations(target) or [target]
        sides = [chain[0].lhs, *(relation.rhs for relation in chain)]
        said = "the answer's equation, read by its right-hand side as math-verify reads it (every side counts): "
        return gold, sides, said
    if equation(gold) and isinstance((relations(gold) or [gold])[0].lhs, Symbol) and not equation(target):
        reference = (relations(gold) or [gold])[-1].rhs
        return reference, [target], "the reference's assignment read by its right-hand side, as math-verify does: "
    return gold, [target], ""


def _shown(value) -> str:
    """A sympy number in 4 significant digits, ``a+bi`` when complex (beyond a float's range too)."""
    real, imaginary = value.as_real_imag()
    if abs(imaginary) <= _NUMERIC_TOLERANCE * abs(value):
        return _digits(real)
    shown = _digits(imaginary)
    return f"{_digits(real)}{shown if shown.startswith('-') else '+' + shown}i"


def _digits(number) -> str:
    text = f"{float(number):.4g}"
    if text in ("0", "-0", "inf", "-inf") and number != 0:  # under- or overflows a float
        text = str(number.evalf(4))
    return text
