r"""Answers real models wrote that the rule judge once could not judge, with their provenance.

As Math-Verify's own tests do, each row is a generation (or the part of it
that matters), the gold answer, the verdict worked out by hand, where the
answer comes from, and why the verdict is what it is.  ``size=True`` marks
the answers that must be decided without math-verify (which tries to expand
them and times out).

Provenance (issue 16, "Real model outputs block whole runs"): 10,560
generations of 37 public evaluation runs of Qwen2.5-Math-1.5B/7B(-Instruct)
on AMC23 and AIME 2025 (8 samples each), and a SmolLM2-135M run on MATH
level-1 questions; the AMC option formats are the usual AoPS answer format
(LiveMathBench has an AMC split).  The issue gives the answers, not the
questions: where a row's gold is not the original one, the verdict holds for
any gold of that benchmark (AIME: an integer 0..999, see ``AIME_GOLDS``).

Issue 22 added the outputs it quotes: SmolLM2-135M-Instruct's three answers to "6 times 7" (the one after
"Final answer:" was judged wrong), and the answer that left one of the 37 Qwen2.5-Math runs blocked, on AMC23's
tan 2023x problem (gold -1); the issue quotes its left-hand side, the rest is written in that shape.
"""

from dataclasses import dataclass

QWEN_AIME = "Qwen2.5-Math-1.5B/7B on AIME 2025, public evaluation run (issue 16)"
QWEN_AMC = "Qwen2.5-Math-1.5B/7B on AMC23, public evaluation run (issue 16)"
SMOLLM_MATH = "SmolLM2-135M on MATH level 1, real run (issue 16)"
AOPS = "AoPS/AMC answer format (LiveMathBench AMC split; issue 16)"
VARIANT = "written for this table: a variant or a control of the rows from real runs"
LOOP = "a model stuck in a loop after stating its answer (issue 16; text written in that shape)"
CUT = "a generation cut by the token limit before it answered (issue 16 re-verified; text written in that shape)"
LONG_EXP = "a long e^{2ix} expression as a Qwen2.5-Math run wrote on AIME 2025 (issue 16; written in that shape)"
SMOLLM_PROSE = "SmolLM2-135M-Instruct on '6 times 7', real outputs quoted in issue 22"
QWEN_TAN = (
    "Qwen2.5-Math on AMC23's tan 2023x problem (gold -1): the answer that left one of 37 public runs blocked "
    "(issue 22 quotes its left-hand side; the right-hand side, (i tan x)^2023, written in that shape)"
)

#: A sum of 48 e^{2kix} terms with coefficients: math-verify's comparison with a number runs out of time.
LONG_SUM = (
    "+".join(f"{k}e^{{{2 * k}ix}}" for k in range(1, 25)) + "-" + "-".join(f"{k}e^{{-{2 * k}ix}}" for k in range(1, 25))
)

#: Golds the huge answers are judged against: the ends and the middle of AIME's answer range.
AIME_GOLDS = ("0", "1", "70", "588", "999")


@dataclass(frozen=True)
class Row:
    generation: str
    gold: str
    correct: bool
    source: str
    why: str
    size: bool = False  # decided by the size check, without math-verify


ROWS = [
    # -- huge numbers: far above every AIME/AMC answer; math-verify times out trying to expand them
    Row(
        r"So the number of such strings is \boxed{10^{10^9}}.",
        "588",
        False,
        QWEN_AIME,
        "10^(10^9) has a billion and one digits; an AIME answer has at most three",
        size=True,
    ),
    Row(
        r"Therefore the answer is \boxed{23!!}.",
        "70",
        False,
        QWEN_AIME,
        "23!! is 316234143225 (double factorial) or (23!)!, both above 999",
        size=True,
    ),
    Row(
        r"\boxed{10^235423523}",
        "5",
        False,
        SMOLLM_MATH,
        "10^{235423523} or, as LaTeX reads it, 10^2 * 35423523 = 3542352300: both far above 5",
        size=True,
    ),
    Row(r"\boxed{2^{2^{2^{100}}}}", "27", False, VARIANT, "a power tower: 2^(2^(2^100)) exceeds 10^(10^29)", size=True),
    Row(r"The total is \boxed{100!}.", "36", False, VARIANT, "100! has 158 digits", size=True),
    Row(
        r"\boxed{10\uparrow\uparrow 5}",
        "5",
        False,
        VARIANT,
        "a tower of five 10s (math-verify reads it as 5)",
        size=True,
    ),
    Row(
        r"\boxed{2^{2^{2^{2^{2}}}}}",
        "65536",
        False,
        VARIANT,
        "2^65536 has 19,729 digits, 65536 = 2^{2^{2^2}}",
        size=True,
    ),
    Row(
        r"\boxed{9^{9^{9}}}", "387420489", False, VARIANT, "9^(9^9) has 369,693,100 digits; 9^9 = 387420489", size=True
    ),
    Row(r"\boxed{(10^9)!}", "36", False, VARIANT, "(10^9)! has about 8.6 billion digits", size=True),
    Row(r"\boxed{2^{2^{2^{2}}}}", "65536", True, VARIANT, "2^(2^(2^2)) = 2^16 = 65536: a tower that is right"),
    Row(r"\boxed{2\uparrow\uparrow 3}", "16", True, VARIANT, "2^(2^2) = 16 in Knuth's arrows"),
    Row(
        r"\boxed{n = 10^{10^9}}",
        "999",
        False,
        VARIANT,
        "an assignment is judged by its value: 10^(10^9) is not 999",
        size=True,
    ),
    # -- tiny and negative numbers: math-verify times out on them too (10^{-10^9} against 0 was left unresolved)
    Row(r"\boxed{10^{-10^9}}", "0", False, VARIANT, "10^(-10^9) is a tiny positive number, not 0", size=True),
    Row(r"\boxed{10^{-10^9}}", "3", False, VARIANT, "10^(-10^9) is below 10^-999999999, 3 is not", size=True),
    Row(r"\boxed{2^{-2^{100}}}", "0", False, VARIANT, "2^(-2^100) is positive, not 0", size=True),
    Row(r"\boxed{-10^{-10^9}}", "0", False, VARIANT, "-10^(-10^9) is negative, not 0", size=True),
    Row(r"\boxed{\frac{1}{10^{10^9}}}", "1", False, VARIANT, "1/10^(10^9) is far below 1", size=True),
    Row(r"\boxed{10^{-10^9}}", r"10^{-10^9}", True, VARIANT, "the same tiny number: left to math-verify"),
    # -- near misses the size check must leave to math-verify (not ten times apart, or equal)
    Row(r"\boxed{2^{10}}", "1024", True, VARIANT, "2^10 = 1024"),
    Row(r"\boxed{10^{3}}", "1000", True, VARIANT, "10^3 = 1000"),
    Row(r"\boxed{3^{7}}", "729", False, VARIANT, "3^7 = 2187, not 729 (3^6)"),
    # -- AoPS/AMC option formats against a letter gold
    Row(r"The answer is $\boxed{\textbf{(B)}\ 2}$.", "B", True, AOPS, "option B, with its value"),
    Row(r"\boxed{\textbf{(B)}}", "B", True, AOPS, "option B in bold"),
    Row(r"\boxed{\text{(B)}}", "B", True, AOPS, "option B in text"),
    Row(r"\boxed{\mathrm{(B)}}", "B", True, AOPS, "option B in roman"),
    Row(r"\boxed{(B)\ 2}", "B", True, AOPS, "option B and its value"),
    Row(r"\boxed{\mathrm{B}}", "B", True, AOPS, "the letter B in roman"),
    Row(r"\boxed{\textbf{B}}", "B", True, AOPS, "the letter B in bold"),
    Row(r"\boxed{(b)}", "B", True, AOPS, "option B as a lower-case label"),
    Row(r"The answer is b).", "B", True, AOPS, "option B as a lower-case label, no box"),
    Row(r"\boxed{\text{Option B}}", "B", True, AOPS, "option B named with the word"),
    Row(r"The correct option is B.", "B", True, AOPS, "option B after 'the correct option is', no box"),
    Row(r"\boxed{\textsf{(D)}}", "D", True, AOPS, "option D in sans-serif"),
    Row(r"\boxed{\text{\textbf{(D)}}}", "D", True, AOPS, "option D in nested font commands"),
    Row(r"\boxed{\textbf{(B) 2}}", "B", True, AOPS, "option B with its value inside the bold"),
    Row(r"\boxed{\text{C}\ 12}", "C", True, AOPS, "option C (a styled letter) and its value"),
    Row(r"\boxed{\textbf{Bob}}", "B", False, VARIANT, "a word in bold is not an option letter"),
    Row(r"\boxed{a}", "A", False, VARIANT, "a bare lower-case letter is a variable, not option A"),
    Row(
        r"\boxed{\textbf{(A)}\ 1 \qquad \textbf{(B)}\ 2 \qquad \textbf{(C)}\ 3}",
        "A",
        False,
        AOPS,
        "the options copied out, none chosen: not option A because it comes first",
    ),
    Row(r"\boxed{\textbf{(C)}\ 2}", "B", False, AOPS, "option C is not option B"),
    Row(r"\boxed{\textbf{(C)}}", "B", False, AOPS, "option C is not option B"),
    # -- AoPS/AMC option formats against a value gold
    Row(r"$\boxed{\textbf{(D)}\ 1625}$", "1625", True, AOPS, "option D's value is the gold 1625"),
    Row(r"\boxed{\textbf{(D)}\ 1624}", "1625", False, AOPS, "option D's value 1624 is not 1625"),
    Row(r"\boxed{\textbf{(D)}}", "1625", False, AOPS, "a bare letter says nothing about the value: not guessed"),
    Row(r"\boxed{\textbf{(B) 2}}", "2", True, AOPS, "option B's value, inside the bold, is the gold 2"),
    Row(r"\boxed{\text{B. } 2}", "2", True, AOPS, "option B's value after 'B.' is the gold 2"),
    # -- a gold written in the AoPS format (label and value) accepts either
    Row(r"\boxed{B}", r"\textbf{(B)}\ 2", True, AOPS, "the gold's letter"),
    Row(r"\boxed{2}", r"\textbf{(B)}\ 2", True, AOPS, "the gold's value"),
    Row(r"\boxed{\textbf{(B)}\ 2}", r"\textbf{(B)}\ 2", True, AOPS, "the gold itself"),
    Row(r"\boxed{\textbf{(C)}\ 2}", r"\textbf{(B)}\ 2", False, AOPS, "another option, whatever its value"),
    Row(r"\boxed{3}", r"\textbf{(B)}\ 2", False, AOPS, "another value"),
    # -- the answer stated before a trailing loop (no box)
    Row(
        "Adding up the cases, the total is $1625$.\n" + "I think I think I think\n" * 200,
        "1625",
        True,
        LOOP,
        "the last stated answer, 1625, comes before 200 repeated lines",
    ),
    Row(
        "Adding up the cases, the total is 1625.\n" + "Wait, let me check. " * 200 + "Wait, let",
        "1625",
        True,
        LOOP,
        "1625 comes before a phrase repeated until the token limit cut it",
    ),
    Row(
        "Adding up the cases, the total is 1624.\n" + "Wait, let me check.\n" * 150,
        "1625",
        False,
        LOOP,
        "the last stated answer is 1624, not 1625",
    ),
    Row(
        "So 3 * 4 = 12. " + "The answer is 12. " * 80 + "The the the the the the the the the the the the th",
        "12",
        True,
        LOOP,
        "the answer phrase repeated 80 times, then cut mid-word: its own sentence is the answer, not 1,500 characters",
    ),
    Row(
        "The answer is 12. " + "The answer is 13. " * 40 + "The answer is 1",
        "13",
        True,
        LOOP,
        "the loop keeps stating 13 (cut mid-number): 13 is the last stated answer, not the cut '1'",
    ),
    Row(
        "The answer is 12.\n" + "Wait, 13? " * 60 + "Wai",
        "12",
        True,
        LOOP,
        "a loop of doubts states no answer: the stated 12 stands",
    ),
    # -- cut by the token limit before any answer: no stale number from the reasoning
    Row(
        "First I try 12, but that fails. Next consider the case where n is large, and we need to bound",
        "12",
        False,
        CUT,
        "12 was a failed try, the generation stops mid-sentence: it never answered",
    ),
    Row(
        "Step 1: 5 apples.\nStep 2: so far we have 12 apples and the next case gives",
        "12",
        False,
        CUT,
        "a running count in an unfinished sentence is not an answer",
    ),
    Row(
        "First I try 12, but that fails. Next consider the case where n is large\n" + "and bound " * 50,
        "12",
        False,
        CUT,
        "a loop after an unfinished sentence: still no answer",
    ),
    Row(r"Counting all cases, the total is \boxed{12", "12", False, CUT, "cut inside its box: '12' may be '125'"),
    # -- a long expression against an AIME answer (math-verify's comparison may run out of time)
    Row(rf"\boxed{{{LONG_SUM}}}", "588", False, LONG_EXP, "it varies with x: no constant, so not 588"),
    Row(rf"\boxed{{{LONG_SUM}}}", "0", False, LONG_EXP, "it varies with x: not identically 0"),
    # -- an equation against a number: read by its right-hand side, as math-verify reads it (issue 22)
    Row(
        r"So \boxed{\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}} = (i\tan x)^{2023}}",
        "-1",
        False,
        QWEN_TAN,
        "(e^{2ix}-1)/(e^{2ix}+1) = i tan x: the right-hand side is -i tan^2023 x, which varies with x, not -1",
    ),
    Row(
        r"\boxed{\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}}}",
        "-1",
        False,
        QWEN_TAN,
        "the left-hand side alone: the same -i tan^2023 x, not -1",
    ),
    Row(
        r"\boxed{\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}} = -1}",
        "-1",
        True,
        VARIANT,
        "an equation whose right-hand side is the gold (as math-verify reads it)",
    ),
    # -- a sentence after "Final answer:" gives its value (issue 22)
    Row("Final answer: 6 times 7 is 42", "42", True, SMOLLM_PROSE, "the sentence states 42; its value is the answer"),
    Row("So, 6 times 7 is 42.", "42", True, SMOLLM_PROSE, "no answer phrase: the last number of the last line"),
    Row("6 x 7 = 42", "42", True, SMOLLM_PROSE, "an equation: its right-hand side"),
    Row("Final answer: 6 times 7 is 41", "42", False, VARIANT, "the sentence's value is 41"),
    Row("Final answer: the product of 6 and 7 is equal to 42.", "42", True, VARIANT, "'is equal to', then the value"),
    Row("Final answer: 6 times 7 is not 41.", "41", False, VARIANT, "a negation is never read as its value"),
    Row("Final answer: the roots are 3 and 5", "5", False, VARIANT, "two values: not the last one alone"),
    Row("Final answer: 41, since 6 times 7 is 42.", "42", False, VARIANT, "the stated answer is 41; 42 is the reason"),
    Row("答案：6乘以7等于42", "42", True, VARIANT, "等于 (equals), then the value"),
    Row("答案：6乘以7不等于41", "41", False, VARIANT, "不等于 (does not equal) is never read as its value"),
]
