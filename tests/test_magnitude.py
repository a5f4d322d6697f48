"""The size check's bounds (judges/magnitude.py) against values computed exactly with fractions.Fraction.

Random expressions -- integers and decimals, unary minus, + - \\cdot /, \\frac, powers with negative and
positive integer exponents (some too big to hold exactly) -- are written in LaTeX and evaluated here
independently: the bounds must contain the true log10 of the value, the sign must be the value's, and two
values the bounds call different must differ as math-verify compares numbers.
"""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.judges.magnitude import differ, magnitude

_MAX_BITS = 40_000  # the largest numerator or denominator a generated value may have


def _log10(value: Fraction) -> float:
    return math.log10(abs(value.numerator)) - math.log10(value.denominator)


def _bits(value: Fraction) -> int:
    return max(abs(value.numerator).bit_length(), value.denominator.bit_length())


_LEAVES = st.integers(0, 30).map(lambda n: (str(n), Fraction(n))) | st.integers(1, 99).map(
    lambda n: (f"0.{n:02d}", Fraction(n, 100))
)

# Integer exponents, some past the ~1000 digits the check computes exactly: 2500, -(3\cdot 700), -2^{11}
_EXPONENTS = (
    st.integers(-2_500, 2_500).map(lambda n: (str(n), n))
    | st.tuples(st.integers(1, 60), st.integers(1, 60)).map(lambda ab: (rf"-({ab[0]}\cdot {ab[1]})", -ab[0] * ab[1]))
    | st.integers(0, 11).map(lambda k: (f"-2^{{{k}}}", -(2**k)))
)


def _binary(left, operator, right):
    (left_text, a), (right_text, b) = left, right
    if operator in ("/", "frac") and b == 0:
        return None
    if operator == "frac":
        return rf"\frac{{{left_text}}}{{{right_text}}}", a / b
    value = {"+": a + b, "-": a - b, r"\cdot": a * b, "/": a / b if b else None}[operator]
    return f"({left_text}) {operator} ({right_text})", value


def _power(base, exponent):
    (base_text, b), (exponent_text, e) = base, exponent
    if (b == 0 and e < 0) or _bits(b) * abs(e) > _MAX_BITS:
        return None
    return f"({base_text})^{{{exponent_text}}}", b**e


def _extend(children):
    return st.one_of(
        children.map(lambda child: (f"-({child[0]})", -child[1])),
        st.builds(_binary, children, st.sampled_from(["+", "-", r"\cdot", "/", "frac"]), children),
        st.builds(_power, children, _EXPONENTS),
    ).filter(lambda built: built is not None and _bits(built[1]) <= _MAX_BITS)


EXPRESSIONS = st.recursive(_LEAVES, _extend, max_leaves=6)


def _sign(value: Fraction) -> int:
    return (value > 0) - (value < 0)


@settings(max_examples=400, deadline=None)
@given(EXPRESSIONS)
def test_the_bounds_contain_the_true_size(expression):
    text, value = expression
    size = magnitude(text)
    if size is None:  # no claim (an exponent 0 on a value too big to hold): nothing to check
        return
    if value == 0:
        assert size.lo == -math.inf and size.sign in (0, None), (text, size)
    else:
        assert size.lo <= _log10(value) <= size.hi, (text, _log10(value), size)
        assert size.sign in (None, _sign(value)), (text, size)
    assert size.exact in (None, value), (text, size)
    assert not size.integer or value.denominator == 1, (text, size)


@settings(max_examples=400, deadline=None)
@given(EXPRESSIONS, EXPRESSIONS)
def test_values_said_to_differ_differ_as_math_verify_compares(answer, reference):
    """Never "not equal" for equal values, nor for values math-verify's tolerances would call equal."""
    (answer_text, a), (reference_text, r) = answer, reference
    answer_size, reference_size = magnitude(answer_text), magnitude(reference_text)
    if answer_size is None or reference_size is None:
        return
    decimals = "." in answer_text + reference_text
    why = differ(answer_size, reference_size, decimals=decimals)
    if why is None:
        return
    assert a != r, (answer_text, reference_text, why)
    if not decimals and 0 in (a, r):  # math-verify compares with an exact zero exactly
        return
    assert abs(a - r) > Fraction(1, 10**15), (answer_text, reference_text, why)
    assert round(a, 6) != round(r, 6), (answer_text, reference_text, why)


def _rewrites(text: str) -> list[str]:
    """The same value written other ways."""
    return [f"-(-({text}))", f"({text}) + 0", rf"\frac{{({text})\cdot 2}}{{2}}", f"({text})^{{1}}", f"0 + ({text})"]


@settings(max_examples=300, deadline=None)
@given(EXPRESSIONS, st.booleans())
def test_an_equal_pair_is_never_decided_unequal(expression, decimals):
    text, _ = expression
    size = magnitude(text)
    if size is None:
        return
    for other in [text, *_rewrites(text)]:
        other_size = magnitude(other)
        if other_size is not None:
            assert differ(size, other_size, decimals=decimals) is None, (text, other)
            assert differ(other_size, size, decimals=decimals) is None, (other, text)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 30), st.integers(1_000, 10**12), st.booleans())
def test_a_reciprocal_power_is_the_negative_exponent(base, exponent, negate):
    """``b^{-e}`` and ``\\frac{1}{b^{e}}``: the same bounds, never decided apart, whatever the size of ``e``."""
    sign = "-" if negate else ""
    power = magnitude(f"{sign}{base}^{{-{exponent}}}")
    reciprocal = magnitude(rf"{sign}\frac{{1}}{{{base}^{{{exponent}}}}}")
    assert power is not None and reciprocal is not None
    true = -exponent * math.log10(base)
    assert power.lo <= true <= power.hi and reciprocal.lo <= true <= reciprocal.hi
    assert power.sign == reciprocal.sign == (-1 if negate else 1)
    assert differ(power, reciprocal, decimals=False) is None


@pytest.mark.parametrize(
    ("text", "true_log10", "sign"),
    [
        # worked out by hand: log10|b^e| = e * log10|b|
        (r"10^{-10^9}", -(10**9), 1),
        (r"-10^{10^9}", 10**9, -1),
        (r"2^{-2^{100}}", -(2**100) * math.log10(2), 1),
        (r"-2^{-2^{100}}", -(2**100) * math.log10(2), -1),
        (r"(-2)^{-10^{9}}", -(10**9) * math.log10(2), 1),  # an even exponent
        (r"(-2)^{-10^{9}+1}", (1 - 10**9) * math.log10(2), -1),  # an odd one
        (r"(\frac{1}{2})^{10^{9}}", -(10**9) * math.log10(2), 1),  # a base below 1
        (r"0.5^{-10^{9}}", 10**9 * math.log10(2), 1),
        (r"10^{-10^{400}}", None, 1),  # beyond a float: only "tiny, and positive"
    ],
)
def test_signed_sizes(text, true_log10, sign):
    size = magnitude(text)
    assert size is not None and size.sign == sign
    if true_log10 is None:
        assert (
            size.hi < -9e299
            and differ(size, magnitude("0"), decimals=False) == "the reference is 0 but the answer is positive"
        )
    else:
        assert size.lo <= true_log10 <= size.hi and size.hi - size.lo < 1e-6 * max(1, abs(true_log10))


def test_a_tiny_term_leaves_the_sign_of_the_sum():
    size = magnitude(r"3 - 10^{-10^9}")
    assert size is not None and size.sign == 1 and size.lo <= math.log10(3) <= size.hi
