"""The rule judge: a golden table, choice answers, timeouts, and the worker processes."""

import json
import os
import signal
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.cli import EXIT_OK, main
from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items, rule_verdict
from gpassk_opencompass.judges.rule import UNDECIDED_HINT, choice_letters, numeric_difference
from gpassk_opencompass.judges.workers import judge_by_rule

# Beyond the rule judge: a tower times a variable makes no size claim, and math-verify tries to expand it.
# (The tower alone is decided by the size check: tests/test_real_answers.py.)
PATHOLOGICAL = r"9^{9^{9^{9}}}x"

# (reference, extracted answer, correct?) -- worked out by hand
GOLDEN = [
    (r"\frac{1}{2}", "0.5", True),
    (r"\frac{1}{2}", "1/2", True),
    (r"\frac{1}{2}", r"\dfrac12", True),
    ("1/2", "0.50", True),
    ("2", "3", False),
    ("2", "2.0", True),
    ("1000", "1,000", True),
    (r"\sqrt{18}", r"3\sqrt{2}", True),
    (r"-\frac{\sqrt{3}}{2}", r"-\frac{\sqrt3}{2}", True),
    ("(x+1)^2", "x^2+2x+1", True),
    ("(x+1)^2", "x^2+1", False),
    ("e^{2}", "e^2", True),
    (r"2\pi", r"\pi \cdot 2", True),
    (r"\pi", "3", False),
    ("2, -3", "-3, 2", True),  # a set of solutions, any order
    ("2, -3", "2", False),  # a part is missing
    (r"\{1, 2, 3\}", r"\{3, 2, 1\}", True),
    ("[1, 3)", "[1, 3]", False),  # the endpoint matters
    ("(0, 1)", "(0,1)", True),
    ("x = 2", "2", True),  # math-verify: an assignment matches its value
    (r"\infty", r"\infty", True),
    ("10", "10.01", False),
    ("7", "-7", False),
    # choice answers, compared as sets of option letters
    ("B", "B", True),
    ("B", "(B)", True),
    ("B", r"\text{B}", True),
    ("B", "B. 12", True),
    ("B", "C", False),
    ("B", "12", False),
    ("BD", "D, B", True),
    ("B, D", "BD", True),
    ("B, D", "B", False),
    ("B, D", "B, C, D", False),
    ("A、C", "A 和 C", True),
    ("ACD", "A, C, D", True),
]


@pytest.mark.parametrize("reference, extracted, correct", GOLDEN)
def test_golden_table(reference, extracted, correct):
    verdict = rule_verdict(reference, extracted, timeout=3)
    assert verdict.correct is correct, verdict.reason
    assert verdict.extracted == extracted and verdict.source == "rule"


# (reference, answer, reason) -- signed sizes the size check decides before math-verify (which times out on them);
# worked out by hand: 10^{-10^9} is positive and below 10^{-999999999}
SIGNED_SIZES = [
    ("0", r"10^{-10^9}", "size check: the reference is 0 but the answer is positive"),
    ("0", r"-2^{-2^{100}}", "size check: the reference is 0 but the answer is negative"),
    (r"10^{-5}", r"10^{-10^9}", "size check: log10|answer| <= -1e+09 but log10|reference| >= -5"),
    ("0.00001", r"10^{-10^9}", "size check: log10|answer| <= -1e+09 but log10|reference| >= -5"),
    (r"10^{10^9}", r"-10^{10^9}", "size check: the answer is negative and the reference positive"),
    (r"-10^{-10^9}", r"10^{-10^9}", None),  # both below 1e-15: math-verify's tolerance, not the size check's call
    ("0.0", r"10^{-10^9}", None),  # a decimal 0: math-verify rounds both to 6 decimal places
]


@pytest.mark.parametrize(("reference", "extracted", "reason"), SIGNED_SIZES)
def test_signed_sizes_are_decided_by_the_size_check(reference, extracted, reason):
    verdict = rule_verdict(reference, extracted, timeout=1)
    if reason is None:
        assert not verdict.reason.startswith("size check"), verdict.reason
    else:
        assert verdict.correct is False and verdict.reason.startswith(reason), verdict.reason


def test_nothing_extracted_is_wrong_not_unjudged():
    verdict = rule_verdict("7", None)
    assert verdict.correct is False and verdict.reason == "no final answer found"


@pytest.mark.parametrize(
    "text, letters",
    [
        ("A", {"A"}),
        ("(C)", {"C"}),
        ("BD", {"B", "D"}),
        ("B, D", {"B", "D"}),
        ("A、B、C", {"A", "B", "C"}),
        ("B and D", {"B", "D"}),
        (r"\text{D}", {"D"}),
        ("AA", None),
        ("x", None),
        ("12", None),
        ("Bob", None),
    ],
)
def test_choice_letters(text, letters):
    found = choice_letters(text)
    assert (set(found) if found is not None else None) == letters


@given(
    st.sets(st.sampled_from("ABCDEFGH"), min_size=1),
    st.sets(st.sampled_from("ABCDEFGH"), min_size=1),
    st.sampled_from([", ", ",", "、", " and ", " "]),
)
def test_choice_sets_match_exactly_when_equal(gold, answer, separator):
    reference = "".join(sorted(gold))
    written = separator.join(sorted(answer, reverse=True))
    assert rule_verdict(reference, written).correct is (gold == answer)


@settings(max_examples=30, deadline=None)
@given(st.fractions(min_value=-50, max_value=50, max_denominator=12))
def test_a_fraction_equals_its_decimal_and_not_its_successor(value):
    latex = rf"\frac{{{value.numerator}}}{{{value.denominator}}}" if value.denominator != 1 else str(value.numerator)
    assert rule_verdict(latex, f"{float(value):.10f}").correct is True
    assert rule_verdict(latex, str(value.numerator + value.denominator) + "/" + str(value.denominator)).correct is False


PLAIN_INTEGERS = st.builds(
    lambda sign, zeros, digits: sign + "0" * zeros + digits,
    st.sampled_from(["", "-"]),
    st.integers(0, 2),
    st.integers(0, 10**13).map(str),
)


@settings(max_examples=150, deadline=None)
@given(PLAIN_INTEGERS, PLAIN_INTEGERS, st.booleans())
def test_two_plain_integers_get_math_verifys_own_verdict_without_its_parser(reference, answer, same):
    """The shortcut (integer_verdict) and math-verify itself give the same verdict and reason, leading zeros, -0 and
    15 digits included; and math-verify's parser is not run."""
    from gpassk_opencompass.judges import rule

    answer = reference if same else answer
    asked = rule.math_verify_verdict(reference, answer, answer, timeout=3)
    assert rule.integer_verdict(reference, answer, answer) == asked
    assert asked.correct is (int(reference) == int(answer))


@pytest.mark.parametrize(
    ("reference", "answer"),
    [
        ("0", "-0"),
        ("7", "007"),
        ("-5", "5"),
        ("999999999999999", "999999999999999"),
        ("100000000000000", "99999999999999"),
    ],
)
def test_plain_integer_edges_match_math_verify_and_skip_its_parser(reference, answer, monkeypatch):
    from gpassk_opencompass.judges import rule

    asked = rule.math_verify_verdict(reference, answer, answer, timeout=3)
    monkeypatch.setattr(rule, "math_verify_verdict", lambda *args, **kwargs: pytest.fail("math-verify was asked"))
    assert rule_verdict(reference, answer) == asked


def test_an_integer_of_16_digits_or_in_other_digits_goes_to_math_verify(monkeypatch):
    from gpassk_opencompass.judges import rule

    asked = []
    real = rule.math_verify_verdict
    monkeypatch.setattr(rule, "math_verify_verdict", lambda *args: asked.append(args[0]) or real(*args))
    assert rule_verdict("1234567890123456", "1234567890123456").correct is True
    assert rule_verdict("12", "\uff11\uff12").reason.startswith("math-verify")  # full-width digits
    assert rule_verdict("+12", "12").correct is True
    assert asked == ["1234567890123456", "12", "+12"]


def test_pathological_power_times_out_in_the_main_thread():
    # the verdict names the timeout: math-verify's alarm fired (how long it took: benchmarks/bench_hostile.py)
    verdict = rule_verdict("9", PATHOLOGICAL, timeout=1)
    assert verdict.correct is None and "timed out after 1s" in verdict.reason
    assert verdict.reason.endswith(UNDECIDED_HINT) and "--rule-timeout" in verdict.reason


PAIRS = [("2", "2"), ("9", PATHOLOGICAL), (r"\frac{1}{2}", "0.5"), ("3", "4"), ("B", "B"), ("7", None)]
EXPECTED = [True, None, True, False, True, False]


# Worker interpreters are real processes: with workers, end to end (the quick loop keeps the in-process case
# and test_judge_items_off_the_main_thread_with_the_pathological_box).
@pytest.mark.parametrize(
    "processes", [None, pytest.param(1, marks=pytest.mark.e2e), pytest.param(2, marks=pytest.mark.e2e)]
)
def test_same_verdicts_in_process_and_in_workers(processes):
    verdicts = judge_by_rule(PAIRS, timeout=1, processes=processes, progress=False)
    assert [verdict.correct for verdict in verdicts] == EXPECTED
    assert "timed out" in verdicts[1].reason


@pytest.mark.e2e  # worker interpreters
def test_the_verdicts_workers_send_are_kept_with_their_strings_shared():
    """Each verdict arrives unpickled with copies of its strings: it is kept with the pair's answer and one copy of
    each reason, and equal to what the rule judge says in-process."""
    pairs = [(str(q), str(q + offset)) for q in range(20, 40) for offset in (0, 1, 2)]
    verdicts = judge_by_rule(pairs, timeout=3, processes=1, progress=False)
    assert verdicts == [rule_verdict(reference, answer) for reference, answer in pairs]
    assert all(verdict.extracted is answer for verdict, (_, answer) in zip(verdicts, pairs))
    assert len({id(verdict.reason) for verdict in verdicts}) == 2  # equivalent, not equivalent


@pytest.mark.e2e  # worker interpreters
def test_off_the_main_thread_the_rule_judge_uses_workers_and_finishes():
    result = []
    thread = threading.Thread(
        target=lambda: result.append(judge_by_rule(PAIRS, timeout=1, processes=None, progress=False))
    )
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the rule judge hung off the main thread"
    assert [verdict.correct for verdict in result[0]] == EXPECTED


def test_judge_items_off_the_main_thread_with_the_pathological_box():
    items = [JudgeItem("q", "9", rf"so \boxed{{{PATHOLOGICAL}}}"), JudgeItem("q", "9", r"\boxed{9}")]
    result = []
    thread = threading.Thread(
        target=lambda: result.append(judge_items(items, JudgeSettings(kind="rule", rule_timeout=1), progress=False))
    )
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    report = result[0]
    assert [verdict.correct for verdict in report.verdicts] == [None, True]
    assert report.stats.unresolved == 1 and report.prompt_version is None


def _worker_pids() -> list[int]:
    """PIDs of this process's children running the rule-judge worker loop (from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and b"gpassk_opencompass.judges.workers" in command:
            pids.append(int(entry))
    return pids


def _run_while(signal_number: int, deadline: float | None):
    """Judge slow pairs with one worker; hit the worker with ``signal_number`` once it is busy."""
    pairs = [("9", PATHOLOGICAL)] + [(str(i), str(i)) for i in range(5)]
    result = []
    thread = threading.Thread(
        target=lambda: result.append(judge_by_rule(pairs, timeout=1, processes=1, progress=False, deadline=deadline))
    )
    thread.start()
    for _ in range(200):
        pids = _worker_pids()
        if pids:
            break
        time.sleep(0.05)
    assert len(pids) == 1
    # No sleep: the chunk is sent before the worker can answer anything, so whenever the signal lands
    # (importing math-verify or on the slow answer) the first pending answer is the one blamed. Landing in
    # the start-up (the usual case), a stopped worker is killed after workers.STARTUP_SECONDS + the deadline.
    os.kill(pids[0], signal_number)
    thread.join(timeout=120)
    assert not thread.is_alive()
    return result[0], pids[0]


@pytest.mark.e2e  # a worker process stopped mid-run, then a 4 s deadline on purpose
def test_a_silent_worker_is_killed_and_its_answer_unresolved():
    verdicts, pid = _run_while(signal.SIGSTOP, deadline=4)
    assert verdicts[0].correct is None and "no verdict within 4s" in verdicts[0].reason
    assert [verdict.correct for verdict in verdicts[1:]] == [True] * 5
    assert pid not in _worker_pids()


@pytest.mark.e2e  # a worker process killed mid-run
def test_a_dead_worker_is_replaced():
    verdicts, _ = _run_while(signal.SIGKILL, deadline=None)
    assert verdicts[0].correct is None and verdicts[0].reason.startswith("rule judge worker died; ")
    assert [verdict.correct for verdict in verdicts[1:]] == [True] * 5


@pytest.fixture
def comparisons_time_out(monkeypatch):
    """Every math-verify comparison runs out of time (as a long expression does on a loaded machine)."""
    import math_verify
    from math_verify.errors import TimeoutException

    def verify(*args, **kwargs):
        raise TimeoutException("Timeout during comparison")

    monkeypatch.setattr(math_verify, "verify", verify)


E_SUM = "+".join(f"e^{{{2 * k}ix}}" for k in range(1, 40))  # sum of e^{2kix}, k = 1..39: varies with x


@pytest.mark.parametrize(
    "reference, extracted, correct, said",
    [
        # differs at the sample point: not equal, decided (math-verify reads i as a variable: i = sqrt(-1) there)
        ("588", E_SUM, False, "at i = sqrt(-1), x = 0.7007 the answer is"),
        ("0", E_SUM, False, "at i = sqrt(-1), x = 0.7007"),
        (r"\cos^{12}(2x)", r"\left(\frac{e^{2ix}+e^{4ix}}{2}\right)^{12}", False, "x = 0.7007"),
        # tiny values (cos(1.4)^12 ~ 5e-10) are compared relative to their size, not to 1
        (r"\cos^{12}(2x)", r"\cos^{13}(2x)", False, "x = 0.7007"),
        # equal at the sample point: likely equal, but not proven -- undecided, and it says so
        (r"\cos^{12}(2x)", r"\left(\frac{e^{2ix}+e^{-2ix}}{2}\right)^{12}", None, "likely equal, not proven"),
        (r"\sin^2 x + \cos^2 x", "1", None, "likely equal, not proven"),
        # sets make no numeric claim, and say so
        (r"\{1, 2\}", r"\{1, 3\}", None, "timed out after 3s; no numeric check compares relations, sets or tuples"),
        # an equation against a number is read by its right-hand side, as math-verify reads it (issue 22: AMC23's
        # tan 2023x problem, gold -1, a Qwen2.5-Math answer): -i tan^2023(x) varies with x, so it is not -1
        (
            "-1",
            r"\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}} = (i\tan x)^{2023}",
            False,
            "the answer's equation, read by its right-hand side as math-verify reads it (every side counts): at i = "
            "sqrt(-1), x = 0.7007",
        ),
        # the gold on the left-hand side: math-verify would read the right, but an equal answer is never wrong
        ("-1", r"-1 = \frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}}", None, "likely equal, not proven"),
        # ... and an equation whose right-hand side is the gold identically is never judged wrong
        ("-1", r"(i\tan x)^{2} = \tan^2 x - \sec^2 x", None, "likely equal, not proven"),
        ("-1", r"a = b = \tan^2 x - \sec^2 x", None, "likely equal, not proven"),
        # a reference that assigns (x = 5) is read by its value against an answer that is no equation
        ("x = 5", "6", False, "the reference's assignment read by its right-hand side"),
        ("x = 5", "5", None, "likely equal, not proven"),
        # two equations: no numeric claim (math-verify compares them as relations)
        ("x = 5", "y = 6", None, "no numeric check compares relations, sets or tuples"),
    ],
)
def test_a_timed_out_comparison_is_decided_by_a_numeric_check(
    comparisons_time_out, reference, extracted, correct, said
):
    verdict = rule_verdict(reference, extracted, timeout=3)
    assert verdict.correct is correct, verdict.reason
    # a power of degree 2023 in what math-verify would compare is not handed to it at all (rule.expanding_power)
    not_asked = "math-verify not asked: comparing would expand a power of degree 2023; "
    assert verdict.reason.startswith(("math-verify: comparison timed out after 3s; ", not_asked)), verdict.reason
    assert said in verdict.reason
    if correct is None:
        assert verdict.reason.endswith(UNDECIDED_HINT)


def test_a_power_sympy_would_expand_is_decided_numerically_without_math_verify(monkeypatch):
    """math-verify's time limit is a signal that sympy's expansion of (e^{2ix}-1)^{2023} can swallow (a test run hung
    on it for 13 minutes): such a comparison is never started, and the numeric check decides it."""
    import math_verify

    def no_verify(*args, **kwargs):
        raise AssertionError("math-verify's verify was called")

    monkeypatch.setattr(math_verify, "verify", no_verify)
    verdict = rule_verdict("-1", r"\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}}")
    assert verdict.correct is False
    assert verdict.reason.startswith("math-verify not asked: comparing would expand a power of degree 2023; at ")


def test_the_numeric_check_compares_values_computed_independently():
    """At the sample point the answer's value is the closed form of the geometric sum (cmath, not sympy)."""
    import cmath

    x = 707 / 1009  # the point the check takes for x (its reason prints 0.7007)
    assert f"{x:.4g}" == "0.7007"
    value = sum(cmath.exp(2j * k * x) for k in range(1, 40))
    closed = cmath.exp(2j * x) * (1 - cmath.exp(78j * x)) / (1 - cmath.exp(2j * x))
    assert abs(value - closed) < 1e-9
    from math_verify import parse

    sample = numeric_difference(588, parse("\\boxed{" + E_SUM + "}")[0], timeout=3)
    assert sample.differ and f"the answer is {value.real:.4g}{value.imag:+.4g}i and the reference 588" in sample.said


def test_the_numeric_check_reads_an_equation_by_its_right_hand_side_computed_independently():
    """(i tan x)^2023 at the sample point, with cmath: -i tan(x)^2023, a tiny imaginary number, not -1."""
    import cmath
    import math

    x = 707 / 1009
    value = (1j * math.tan(x)) ** 2023
    assert abs(value.real) < 1e-160 and cmath.isclose(value.imag, -(math.tan(x) ** 2023), rel_tol=1e-9)
    from math_verify import parse

    answer = parse(r"\boxed{\frac{(e^{2ix}-1)^{2023}}{(e^{2ix}+1)^{2023}} = (i\tan x)^{2023}}", parsing_timeout=30)[0]
    sample = numeric_difference(-1, answer, timeout=3)
    assert sample.differ and f" = 0{value.imag:.4g}i and the reference -1" in sample.said  # lhs = rhs, both ~0


@pytest.mark.parametrize("judge", ["rule", "auto"])
def test_an_explicit_cache_with_the_rule_judge_says_nothing_is_kept(tmp_path, capsys, judge):
    """The rule judge keeps no verdict cache: a --cache given to it is named once, not silently ignored."""
    source = tmp_path / "gens.jsonl"
    source.write_text(json.dumps({"id": "q", "question": "?", "answer": "2", "predictions": [r"\boxed{2}"]}) + "\n")
    cache = tmp_path / "verdicts.jsonl"
    code = main(["score", str(source), "--k", "1", "--judge", judge, "--cache", str(cache), "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_OK, err
    notice = f"cache {cache}: the rule judge keeps no verdict cache"
    assert err.count(notice) == 1 and "nothing is written there" in err
    assert not cache.exists()


def test_the_rule_timeout_bound_is_declared_once_on_the_settings():
    """`--rule-timeout`'s 600 s upper bound holds for score() and the evaluator too (it was the CLI's alone)."""
    from gpassk_opencompass import score
    from gpassk_opencompass.errors import InputError

    question = {"id": "q", "question": "", "answer": "1", "predictions": ["1", "2"]}
    with pytest.raises(InputError, match="rule_timeout = 601: input should be less than or equal to 600"):
        score([question], k=[1], rule_timeout=601, cache=False, progress=False)
    assert score([question], k=[1], rule_timeout=600, cache=False, progress=False).metrics
