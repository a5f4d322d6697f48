r"""How big a number written in LaTeX is, without computing it: bounds on ``log10 |value|``.

Models answer with numbers math-verify (sympy) would expand until it times out (``10^{10^9}``, ``23!!``).
:func:`magnitude` reads a small grammar (numbers, arithmetic, ``\frac``, ``\sqrt``, ``\pi``, powers and Knuth's
arrows, ``!`` and ``!!``, brackets) into a :class:`Size`: signed lower and upper bounds on ``log10 |value|``,
exact where cheap, covering both readings of an ambiguous notation (``10^235423523``, ``23!!``); anything else is
``None`` (no claim). :func:`differ` says when two sizes prove two numbers different.

>>> magnitude("1625").lo > 3.2, magnitude("1625").hi < 3.22
(True, True)
>>> magnitude("10^{10^9}").lo > 9.9e8
True
>>> magnitude("23!!").lo > 11    # the double factorial 316234143225, the smaller reading
True
>>> tiny = magnitude("10^{-10^9}")   # positive, below 10^-999999999: not 0
>>> tiny.sign, tiny.hi < -9.9e8, magnitude("-2^{-2^{100}}").sign
(1, True, -1)
>>> magnitude("x + 1") is None
True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

# Exact values are kept while their numerator and denominator stay below this many bits.
_EXACT_BITS = 4096
# Largest finite lower bound: a lower bound may always be lowered, so a bigger one is clamped to this.
_HUGE = 1e300
# Least log10 of the larger of two numbers said to differ: math-verify's 6 decimal places cannot merge them.
_SMALLEST = -5.5
_LOG10_2 = math.log10(2)
_LOG10_E = math.log10(math.e)
_NESTING = 40  # deepest bracket/exponent nesting read; deeper is "no claim"
_MAX_TOWER = 64  # tallest a \uparrow\uparrow h tower read; taller is "no claim"
_TOKEN = re.compile(r"\s+|\d+(?:\.\d+)?|\.\d+|\\[A-Za-z]+|\\.|.", re.DOTALL)
_SPACES = {"\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad", "\\qquad", "\\left", "\\right", "\\displaystyle"}
_FRACTIONS = {"\\frac", "\\dfrac", "\\tfrac"}
_TIMES = {"*", "\\cdot", "\\times"}
_OPEN = {"(": ")", "{": "}", "[": "]"}


@dataclass(frozen=True)
class Size:
    """Bounds on ``log10 |value|`` of a number (``-inf`` for zero).

    Attributes:
        lo: a lower bound (``-inf``: the value may be zero).
        hi: an upper bound (``inf``: no upper bound known).
        exact: the value itself when it is rational and cheap to hold, else ``None``.
        sign: ``1`` or ``-1`` when known, ``0`` for zero, ``None`` when unknown.
        integer: the value is known to be an integer.
    """

    lo: float
    hi: float
    exact: Fraction | None = None
    sign: int | None = None
    integer: bool = False


class _NoClaim(Exception):
    """The text is outside the grammar: nothing is claimed about its size."""


def _fraction(token: str) -> Fraction:
    """A number token as a fraction; one past Python's digit limit for int conversion claims nothing.

    >>> _fraction("1.25"), magnitude("1" * 5000) is None
    (Fraction(5, 4), True)
    """
    try:
        return Fraction(token)
    except ValueError:  # Fraction's own: "Exceeds the limit (4300 digits) for integer string conversion"
        raise _NoClaim from None


def magnitude(text: str) -> Size | None:
    """Bounds on ``log10 |value|`` of the number ``text`` writes, ``None`` outside the grammar (module docstring)."""
    tokens = [token for token in _TOKEN.findall(text) if not token.isspace() and token not in _SPACES]
    if not tokens:
        return None
    parser = _Parser(tokens)
    try:
        size = parser.sum(0)
        if parser.at < len(tokens):
            raise _NoClaim
    except (_NoClaim, ArithmeticError):
        return None
    return size


def differ(answer: Size, reference: Size, *, decimals: bool) -> str | None:
    """Why the bounds prove that ``answer`` and ``reference`` differ as math-verify compares numbers, else ``None``.

    They differ when one is at least ten times the other, when their signs are opposite, or when one is an
    exact zero and the other is not.  math-verify counts numbers within ``1e-15`` of each other as equal
    (and, with a decimal written, numbers equal to 6 decimal places), so a difference is only claimed when the
    larger is at least ``10^-5.5``, and a difference from zero only when no decimal is written (``decimals``).

    Args:
        answer: the size of the answer.
        reference: the size of the reference.
        decimals: either side is written with a decimal point (``0.0``, ``1.5``).

    >>> differ(magnitude("10^{-10^9}"), magnitude("0"), decimals=False)
    'the reference is 0 but the answer is positive (log10|answer| >= -1e+09)'
    >>> differ(magnitude("10^{-10^9}"), magnitude("3"), decimals=False)
    'log10|answer| <= -1e+09 but log10|reference| >= 0.4771'
    >>> differ(magnitude("-10^{10^9}"), magnitude("10^{10^9}"), decimals=False)
    'the answer is negative and the reference positive'
    >>> differ(magnitude("2^{-2^{100}}"), magnitude("0.0"), decimals=True) is None  # 6 decimal places: both 0
    True
    """
    for zero, other, names in (
        (reference, answer, ("reference", "answer")),
        (answer, reference, ("answer", "reference")),
    ):
        said = _nonzero(other, names[1])
        if zero.exact == 0 and said is not None and not decimals:
            return f"the {names[0]} is 0 but the {names[1]} is {said}"
    if answer.lo > reference.hi + 1 and answer.lo > _SMALLEST:
        return f"log10|answer| >= {answer.lo:.4g} but log10|reference| <= {reference.hi:.4g}"
    if reference.lo > answer.hi + 1 and reference.lo > _SMALLEST:
        return f"log10|answer| <= {answer.hi:.4g} but log10|reference| >= {reference.lo:.4g}"
    if {answer.sign, reference.sign} == {-1, 1} and max(answer.lo, reference.lo) > _SMALLEST:
        signs = ("negative", "positive") if answer.sign == -1 else ("positive", "negative")
        return f"the answer is {signs[0]} and the reference {signs[1]}"
    return None


def _nonzero(size: Size, name: str) -> str | None:
    """What proves ``size`` is not zero (its sign, or a lower bound), said of ``name``; ``None`` if nothing does."""
    bound = f" (log10|{name}| >= {size.lo:.4g})" if size.lo > -math.inf else ""
    if size.sign in (-1, 1):
        return ("positive" if size.sign == 1 else "negative") + bound
    return "not 0" + bound if bound else None


def _exact(value: Fraction) -> Size:
    """The size of ``value``, holding the value itself while it is small (:data:`_EXACT_BITS`)."""
    if value == 0:
        return Size(-math.inf, -math.inf, value, 0, True)
    log = math.log10(abs(value.numerator)) - math.log10(value.denominator)
    small = max(abs(value.numerator).bit_length(), value.denominator.bit_length()) <= _EXACT_BITS
    return Size(*_widen(log, log), value if small else None, 1 if value > 0 else -1, value.denominator == 1)


def _widen(lo: float, hi: float) -> tuple[float, float]:
    """Float bounds made safe: widened by a relative margin, a too-big lower (too-small upper) bound clamped, NaN refused.

    A lower bound may always be lowered and an upper bound raised: an upper bound below ``-1e300`` (a float
    underflow such as ``(1/2)^{10^{400}}``) becomes ``-1e300``, so that ``-inf`` only ever comes from an exact zero.
    """
    if math.isnan(lo) or math.isnan(hi):
        raise _NoClaim
    lo = _HUGE if lo > _HUGE else lo - 1e-9 * abs(lo) - 1e-9 if math.isfinite(lo) else lo
    hi = -_HUGE if hi < -_HUGE else hi + 1e-9 * abs(hi) + 1e-9 if math.isfinite(hi) else hi
    return lo, hi


def _pow10(exponent: float) -> float:
    return math.inf if exponent > 300 else 10.0**exponent


def _power(base: Size, exponent: Size) -> Size:
    if (
        base.exact is not None
        and exponent.exact is not None
        and exponent.integer
        and abs(exponent.exact) < 1000 / max(base.hi, 1.0)
    ):  # at most ~1000 digits: compute it (an exponent past a float's range, 10^{400}, is compared exactly)
        return _exact(base.exact ** int(exponent.exact))
    if exponent.sign == -1:  # |b^-e| = 1 / |b^e|: the bounds negate and swap, the sign stays
        positive = _power(base, _negated(exponent))
        return Size(*_widen(-positive.hi, -positive.lo), None, positive.sign)
    if exponent.sign != 1:
        raise _NoClaim
    # log10|b^e| = e * log10|b| with e > 0: the least at the smallest log10|b| (times the largest e when that
    # is negative), the most at the largest log10|b| (times the smallest e when that is negative)
    least, most = _pow10(exponent.lo), _pow10(exponent.hi)
    lo = _scaled(base.lo, least if base.lo >= 0 else most)
    hi = _scaled(base.hi, most if base.hi >= 0 else least)
    return Size(*_widen(lo, hi), None, _power_sign(base, exponent), base.integer and exponent.integer)


def _scaled(log: float, factor: float) -> float:
    """``log * factor``, where a zero ``log`` (|b| = 1 exactly) stays zero whatever the factor."""
    return 0.0 if log == 0 else log * factor


def _power_sign(base: Size, exponent: Size) -> int | None:
    """The sign of ``b^e`` for ``e > 0``: a positive or zero base keeps its sign, a negative one by parity."""
    if base.sign in (0, 1):
        return base.sign
    if base.sign == -1 and exponent.exact is not None and exponent.integer:
        return 1 if exponent.exact % 2 == 0 else -1
    return None


def _factorial(argument: Size, double: bool) -> Size:
    """``n!``, or ``n!!`` as both the double factorial and ``(n!)!`` (``n!! >= sqrt(n!)``)."""
    if not argument.integer or argument.sign not in (0, 1):
        raise _NoClaim
    if argument.exact is not None and argument.exact <= 170:
        value = _exact(Fraction(math.factorial(int(argument.exact))))
        if not double:
            return value
        return Size(*_widen(value.lo / 2, math.inf), None, 1, True)
    if argument.exact is not None and argument.exact < 1e15:
        log = math.lgamma(float(argument.exact) + 1) / math.log(10)
        lo, hi = log, log
    else:  # (n/e)^n <= n! <= n^n, both increasing in n
        lo, hi = _pow10(argument.lo) * (argument.lo - _LOG10_E), _pow10(argument.hi) * argument.hi
    if double:
        lo, hi = lo / 2, math.inf
    return Size(*_widen(lo, hi), None, 1, True)


def _product(left: Size, right: Size, divide: bool) -> Size:
    if left.exact is not None and right.exact is not None:
        return _exact(left.exact / right.exact if divide else left.exact * right.exact)
    if divide:
        lo, hi = left.lo - right.hi, left.hi - right.lo
    else:
        lo, hi = left.lo + right.lo, left.hi + right.hi
    sign = left.sign * right.sign if left.sign is not None and right.sign is not None else None
    return Size(*_widen(lo, hi), None, sign, left.integer and right.integer and not divide)


def _negated(size: Size) -> Size:
    return Size(
        size.lo,
        size.hi,
        None if size.exact is None else -size.exact,
        None if size.sign is None else -size.sign,
        size.integer,
    )


def _sum(left: Size, right: Size) -> Size:
    if left.exact is not None and right.exact is not None:
        return _exact(left.exact + right.exact)
    big, small = (left, right) if left.hi >= right.hi else (right, left)
    # |big + small| >= |big| (1 - 10^-1) when |big| exceeds |small| tenfold: log10(0.9) > -0.05
    dominant = big.lo > small.hi + 1
    return Size(
        *_widen(big.lo - 0.05 if dominant else -math.inf, big.hi + _LOG10_2),
        None,
        big.sign if dominant else None,
        left.integer and right.integer,
    )


class _Parser:
    """Recursive descent over the tokens: sum > product > signed power > factorial > atom."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _NoClaim
        self.at += 1
        return token

    def sum(self, depth: int) -> Size:
        if depth > _NESTING:
            raise _NoClaim
        size = self.product(depth)
        while self.peek() in ("+", "-"):
            operator = self.take()
            term = self.product(depth)
            size = _sum(size, term if operator == "+" else _negated(term))
        return size

    def product(self, depth: int) -> Size:
        size = self.signed(depth)
        while True:
            token = self.peek()
            if token in _TIMES or token == "/":
                self.take()
                size = _product(size, self.signed(depth), divide=token == "/")
            elif token in ("(", "\\pi", "\\sqrt") or token in _FRACTIONS:  # implicit: 2\pi, 3\sqrt{2}, 2(3)
                size = _product(size, self.signed(depth), divide=False)
            else:
                return size

    def signed(self, depth: int) -> Size:
        if self.peek() in ("-", "+"):
            negative = self.take() == "-"
            size = self.signed(depth)
            return _negated(size) if negative else size
        return self.power(depth)

    def power(self, depth: int) -> Size:
        base = self.factorial(depth)
        if self.peek() == "\\uparrow":
            return self.arrows(base, depth)
        if self.peek() != "^":
            return base
        self.take()
        token = self.peek()
        if token is not None and token.isdigit() and len(token) > 1:
            # "10^235423523": LaTeX reads 10^{2}35423523, many readers 10^{235423523}: cover both
            self.take()
            whole = _power(base, _exact(_fraction(token)))
            latex = _product(_power(base, _exact(_fraction(token[0]))), _exact(_fraction(token[1:])), divide=False)
            return Size(
                min(whole.lo, latex.lo),
                max(whole.hi, latex.hi),
                None,
                whole.sign if whole.sign == latex.sign else None,
                whole.integer and latex.integer,
            )
        exponent = self.signed(depth + 1) if token == "-" else self.factorial(depth + 1)
        return _power(base, exponent)

    def arrows(self, base: Size, depth: int) -> Size:
        """Knuth's arrows: ``a \\uparrow b`` is ``a^b``, ``a \\uparrow\\uparrow h`` a tower of ``h`` copies of ``a``."""
        count = 0
        while self.peek() == "\\uparrow":
            self.take()
            count += 1
        right = self.factorial(depth + 1)
        if count == 1:
            return _power(base, right)
        if count > 2 or right.exact is None or not right.integer or not 1 <= right.exact <= _MAX_TOWER:
            raise _NoClaim
        size = base
        for _ in range(int(right.exact) - 1):
            size = _power(base, size)
        return size

    def factorial(self, depth: int) -> Size:
        size = self.atom(depth)
        bangs = 0
        while self.peek() == "!":
            self.take()
            bangs += 1
        if bangs > 2:
            raise _NoClaim
        return _factorial(size, double=bangs == 2) if bangs else size

    def atom(self, depth: int) -> Size:
        token = self.take()
        if token in _OPEN:
            size = self.sum(depth + 1)
            self.take(_OPEN[token])
            return size
        if token[0].isdigit() or token[0] == ".":
            return _exact(_fraction(token))
        if token == "\\pi":
            return Size(*_widen(math.log10(math.pi), math.log10(math.pi)), None, 1)
        if token in _FRACTIONS:
            return _product(self.braced(depth), self.braced(depth), divide=True)
        if token == "\\sqrt" and self.peek() == "{":
            inner = self.braced(depth)
            if inner.sign not in (0, 1):
                raise _NoClaim
            return Size(*_widen(inner.lo / 2, inner.hi / 2), None, inner.sign)
        raise _NoClaim

    def braced(self, depth: int) -> Size:
        self.take("{")
        size = self.sum(depth + 1)
        self.take("}")
        return size
