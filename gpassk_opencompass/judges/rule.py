r"""The rule judge: math-verify equivalence, and choice answers as letter sets.

:func:`rule_verdict` judges one extracted answer against the reference:

* a choice reference (``"B"``, ``"B, D"``, ``"BD"``, ``"(A)和(C)"``) is
  compared as a set of option letters, so ``"D, B"`` matches ``"BD"`` and
  ``"B"`` does not;
* anything else goes through math-verify: both sides are parsed (LaTeX first,
  then plain expressions) and compared with the gold first, since
  ``verify(gold, target)`` is not symmetric.

math-verify bounds each parse and comparison with ``signal.alarm``, which
works only in the main thread: call :func:`rule_verdict` from a main thread
(:mod:`gpassk_opencompass.judges.workers` runs it in worker processes when
the caller is not one).  A comparison that exceeds ``timeout`` seconds gives
``correct=None`` with the reason, never a hang and never a silent ``False``.

>>> rule_verdict(r"\frac{1}{2}", "0.5")
Verdict(correct=True, extracted='0.5', reason='math-verify: equivalent', source='rule')
>>> rule_verdict("B, D", "D,B").reason
'choice letters {B, D} match'
>>> rule_verdict("7", None)
Verdict(correct=False, extracted=None, reason='no final answer found', source='rule')
"""

from __future__ import annotations

import itertools
import re

from loguru import logger

from gpassk_opencompass.judges.types import Verdict

_LETTER = r"\(?\s*(?:\\text\{)?([A-H])\}?\s*\)?"
_CHOICE_LIST = re.compile(rf"^\s*{_LETTER}(?:\s*(?:,|，|、|;|；|\s|and|和|及|&)\s*{_LETTER})*\s*[.。]?\s*$")
_CHOICE_RUN = re.compile(r"^\s*([A-H]{2,8})\s*[.。]?\s*$")
_LEADING_CHOICE = re.compile(r"^\s*\(?([A-H])(?:\)|\.|:|：|\s)")


def choice_letters(text: str) -> frozenset[str] | None:
    r"""The option letters ``text`` names, or ``None`` if it is not a choice answer.

    >>> sorted(choice_letters("(B) and (D)")), sorted(choice_letters("ACD")), choice_letters("x = 2")
    (['B', 'D'], ['A', 'C', 'D'], None)
    """
    run = _CHOICE_RUN.match(text)
    if run:
        letters = run.group(1)
        return frozenset(letters) if len(set(letters)) == len(letters) else None
    if not _CHOICE_LIST.match(text):
        return None
    return frozenset(re.findall(r"(?<![A-Za-z\\])([A-H])(?![A-Za-z])", text))


def rule_verdict(reference: str, extracted: str | None, *, timeout: int = 3) -> Verdict:
    """Judge one extracted answer against ``reference`` (see the module docstring).

    Args:
        reference: the gold answer.
        extracted: the extracted final answer, ``None`` if none was found.
        timeout: seconds math-verify may spend on one parse or comparison.
    """
    if extracted is None:
        return Verdict(False, None, "no final answer found", "rule")
    gold_letters = choice_letters(reference)
    if gold_letters is not None:
        return _choice_verdict(gold_letters, extracted)
    return _math_verify_verdict(reference, extracted, timeout)


def _choice_verdict(gold_letters: frozenset[str], extracted: str) -> Verdict:
    letters = choice_letters(extracted)
    if letters is None:
        leading = _LEADING_CHOICE.match(extracted + " ")
        letters = frozenset(leading.group(1)) if leading else None
    gold = "{" + ", ".join(sorted(gold_letters)) + "}"
    if letters is None:
        return Verdict(False, extracted, f"reference is the choice {gold}; the answer names no option letter", "rule")
    if letters == gold_letters:
        return Verdict(True, extracted, f"choice letters {gold} match", "rule")
    return Verdict(False, extracted, f"choice letters {{{', '.join(sorted(letters))}}} differ from {gold}", "rule")


def _math_verify_verdict(reference: str, extracted: str, timeout: int) -> Verdict:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
    from math_verify.errors import TimeoutException

    config = [LatexExtractionConfig(), ExprExtractionConfig()]

    def parsed(text: str) -> list:
        return parse("\\boxed{" + text.strip().strip("$") + "}", extraction_config=config,
                     parsing_timeout=timeout, raise_on_error=True)

    try:
        gold = parsed(reference)
        target = parsed(extracted)
    except TimeoutException:
        return Verdict(None, extracted, f"math-verify: parsing timed out after {timeout}s", "rule")
    except Exception as error:  # noqa: BLE001 - a parser crash means "cannot compare", said in the verdict
        logger.debug("math-verify could not parse {!r} / {!r}: {}", reference, extracted, type(error).__name__)
        return Verdict(False, extracted, f"math-verify: could not parse ({type(error).__name__})", "rule")
    if not gold or not target:
        side = "reference" if not gold else "answer"
        return Verdict(False, extracted, f"math-verify: nothing to compare in the {side}", "rule")
    timed_out = False
    for gold_form, target_form in itertools.product(gold, target):
        try:
            if verify(gold_form, target_form, timeout_seconds=timeout, raise_on_error=True):
                return Verdict(True, extracted, "math-verify: equivalent", "rule")
        except TimeoutException:
            timed_out = True
        except Exception as error:  # noqa: BLE001 - sympy fails on some pairs; the other pairs still count
            # Only the type: printing a sympy object from a failed comparison can itself hang.
            logger.debug("math-verify failed comparing {!r} with {!r}: {}", reference, extracted, type(error).__name__)
    if timed_out:
        return Verdict(None, extracted, f"math-verify: comparison timed out after {timeout}s", "rule")
    return Verdict(False, extracted, "math-verify: not equivalent", "rule")
