"""First-run frictions, tried as a new user would: a skipped browser test says why and how to install what it
needs; an error names the option the user typed, never the parameter it became; nothing is announced before
a mistake in the inputs is found."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpassk_opencompass.cli import SHARED_OPTIONS, main
from scoring_fixtures import generations, write_jsonl

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


# ------------------------------------------------------------------------------ a skip says what is missing


def test_a_test_skipped_for_a_missing_program_says_it_in_the_summary_line(tmp_path):
    """A real pytest run (as the README's command runs it, in parallel too) whose tests need a missing program."""
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nfrom skips import pytest_report_teststatus\n"
    )
    (tmp_path / "test_browser.py").write_text(
        textwrap.dedent(
            """
            import pytest
            pytestmark = pytest.mark.skipif(True, reason="needs chromium (Debian/Ubuntu: apt-get install chromium)")
            def test_one(): pass
            def test_two(): pass
            def test_three(): pass
            """
        )
    )
    (tmp_path / "test_other.py").write_text("def test_runs(): pass\n")
    for parallel in ([], ["-n", "2"]):
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *parallel],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        last = completed.stdout.strip().splitlines()[-1]
        assert re.match(r"1 passed, 3 skipped \(needs chromium \(Debian/Ubuntu: apt-get install chromium\)\)", last)


def test_the_browser_tests_name_the_install_and_the_readme_says_it():
    from cdp_browser import chromium_path  # noqa: F401 - the browser tests' own lookup exists

    browser = (TESTS / "test_leaderboard_html_browser.py").read_text(encoding="utf-8")
    assert 'reason="needs chromium (Debian/Ubuntu: apt-get install chromium' in browser
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start")[1].split("\n## ")[0]
    assert "apt-get install chromium" in quick_start
    command = 'python -m pytest -m "not e2e" -n 2 && python -m pytest -m e2e'
    assert command in quick_start and (ROOT / ".ci" / "run").read_text().rstrip().endswith(command)


# ------------------------------------------------------------------------------ errors name the options typed

#: Every parameter a command's option becomes, in any message (a bare word: ``ks``, ``n_boot``, ``tau``...).
INTERNAL = re.compile(
    r"(?<![-\w])(ks|k|n|c|tau|" + "|".join(name for name in SHARED_OPTIONS if "_" in name) + r")(?![-\w])"
)

CALC = [
    (["--n", "4", "--c", "5", "--k", "2"], "--c"),
    (["--n", "4", "--c", "1", "--k", "8"], "--k"),
    (["--n", "0", "--c", "0", "--k", "1"], "--n"),
    (["--n", "4", "--c", "-1", "--k", "2"], "--c"),
    (["--n", "4", "--c", "1", "--k", "0"], "--k"),
    (["--n", "4", "--c", "1", "--k", "2", "2"], "--k"),
    (["--n", "4", "--c", "1", "--k", "2", "--thresholds", "1.5"], "--thresholds"),
    (["--n", "4", "--c", "1", "--k", "2", "--thresholds", "0.5", "0.50"], "--thresholds"),
    (["--n", "100000000", "--c", "1", "--k", "2"], "--n"),
    (["--n", "4", "--c", "1", "--k", "2", "--digits", "-3"], "--digits"),  # was a traceback
]

SCORE = [
    (["--k", "0"], "--k"),
    (["--k", "2", "2"], "--k"),
    (["--k", "2", "--thresholds", "1.5"], "--thresholds"),
    (["--k", "2", "--ci", "1.5"], "--ci"),
    (["--k", "2", "--bootstrap", "0"], "--bootstrap"),
    (["--k", "2", "--prior", "-1", "1"], "--prior"),
    (["--k", "2", "--seed", "-1"], "--seed"),
    (["--k", "2", "--concurrency", "0"], "--concurrency"),
    (["--k", "2", "--request-timeout", "-1"], "--request-timeout"),
    (["--k", "2", "--judge-max-tokens", "0"], "--judge-max-tokens"),
    (["--k", "2", "--progress-window", "-5"], "--progress-window"),
    (["--k", "2", "--max-retries", "-1"], "--max-retries"),
    (["--k", "2", "--rule-timeout", "0"], "--rule-timeout"),
]


def one_error(capsys, command: str) -> str:
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"gpassk {command}: error: ")
    return err.removeprefix(f"gpassk {command}: error: ")


@pytest.mark.parametrize("argv, option", CALC, ids=[" ".join(argv) for argv, _ in CALC])
def test_calc_names_the_option_typed(capsys, argv, option):
    assert main(["calc", *argv]) == 2
    message = one_error(capsys, "calc")
    assert option in message and not INTERNAL.findall(message), message


@pytest.mark.parametrize("argv, option", SCORE, ids=[" ".join(argv) for argv, _ in SCORE])
def test_score_names_the_option_typed(tmp_path, capsys, argv, option):
    source = write_jsonl(tmp_path / "gens.jsonl", generations([2, 3], n=4))
    judge = ["--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "m"] if "--rule-timeout" not in argv else []
    assert main(["score", str(source), *argv, *judge, "--no-cache", "--quiet"]) == 2
    message = one_error(capsys, "score")
    assert option in message and not INTERNAL.findall(message), message


#: The other commands: their options' checks name the option too ({results}: two results files of one input,
#: {outputs}: an OpenCompass work dir with one run, {run}: any folder (the options are checked before it is read)).
OTHERS = [
    (["agree", "{results}", "{results2}", "--ci", "2"], "--ci"),
    (["compare", "{results}", "{results2}", "--ci", "2"], "--ci"),
    (["compare", "{results}", "{results2}", "--n-boot", "0"], "--n-boot"),
    (["compare", "{results}", "{results2}", "--n-perm", "0"], "--n-perm"),
    (["compare", "{results}", "{results2}", "--seed", "-1"], "--seed"),
    (["plan", "{results}", "--n", "8", "--level", "2"], "--level"),
    (["plan", "{results}", "--n", "8", "--thresholds", "3"], "--thresholds"),
    (["leaderboard", "{outputs}", "--k", "0"], "--k"),
    (["leaderboard", "{outputs}", "--thresholds", "2"], "--thresholds"),
    (["leaderboard", "{outputs}", "--significance", "2"], "--significance"),
    (["rejudge", "{run}", "--bootstrap", "0"], "--bootstrap"),
    (["rejudge", "{run}", "--thresholds", "2"], "--thresholds"),
    (["rejudge", "{run}", "--k", "0"], "--k"),
    (["rejudge", "{run}", "--interval", "bayes", "--prior", "0", "1"], "--prior"),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    from leaderboard_workdirs import Spec, write_run

    folder = tmp_path_factory.mktemp("inputs")
    source = write_jsonl(folder / "gens.jsonl", generations([2, 3, 1], n=4))
    for name in ("a.json", "b.json"):
        assert main(["score", str(source), "--k", "2", "--no-cache", "--quiet", "--output", str(folder / name)]) == 0
    write_run(folder / "outputs", "20250101_000000", [Spec("acme/m-7b", "LiveMathBench-202412", 0.7, 8, (4,), 0.5, 6)])
    return {
        "results": str(folder / "a.json"),
        "results2": str(folder / "b.json"),
        "outputs": str(folder / "outputs"),
        "run": str(folder / "outputs" / "20250101_000000"),
    }


@pytest.mark.parametrize("argv, option", OTHERS, ids=[" ".join(argv) for argv, _ in OTHERS])
def test_every_command_names_the_option_typed(inputs, capsys, argv, option):
    capsys.readouterr()
    assert main([word.format(**inputs) for word in argv]) == 2
    message = one_error(capsys, argv[0])
    assert message.startswith(option) and not INTERNAL.findall(message), message


# ------------------------------------------------------------------------------ inputs checked before work is announced

MISSING = {
    "score": ["score", "{missing}", "--k", "2"],
    "score with a judge model": [
        "score",
        "{missing}",
        "--k",
        "2",
        "--judge-url",
        "http://127.0.0.1:9/v1",
        "--judge-model",
        "m",
    ],
    "rejudge": ["rejudge", "{missing}"],
    "leaderboard": ["leaderboard", "{missing}"],
    "agree": ["agree", "{missing}", "{missing}"],
    "compare": ["compare", "{missing}", "{missing}"],
    "plan": ["plan", "{missing}", "--n", "8"],
    "grid status": ["grid", "status", "{missing}"],
    "grid run": ["grid", "run", "{missing}"],
}


@pytest.mark.parametrize("argv", MISSING.values(), ids=MISSING.keys())
def test_a_missing_input_is_the_only_line(tmp_path, capsys, argv):
    """No ``INFO: judge: rule`` (or any other announcement) before the error that ends the command."""
    missing = str(tmp_path / "not-there.jsonl")
    code = main([word.replace("{missing}", missing) for word in argv])
    assert code == 2
    message = one_error(capsys, argv[0])
    assert "not-there" in message
