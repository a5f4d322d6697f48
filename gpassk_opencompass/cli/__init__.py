"""The ``gpassk`` command line: arguments, logging and exit codes; the work is in the package.

Each subcommand is a module exposing ``add_parser(subparsers)``, its parser carrying ``func=run`` (``run(args)
-> int``); only the chosen one is imported (:data:`SUBCOMMANDS`). Everything a command prints (messages, tables,
reports, log lines, a bug's traceback) passes through the console door, :func:`gpassk_opencompass.console.inert`:
:func:`main` runs it with ``sys.stdout`` and ``sys.stderr`` wrapped (:func:`~gpassk_opencompass.console.console_streams`),
so no command can print around it; its progress bars come from :func:`~gpassk_opencompass.console.progress`
(drawn on a terminal only). Every command logs through one redacted stderr
sink (:func:`configure_logging`); an exception that ends a command is mapped to its exit code and one redacted
line in one place, :func:`ending` (any other exception is a bug and keeps its traceback); SIGTERM and SIGHUP stop
a command as Ctrl-C does (:func:`stop_on_signals`), and one that keeps something for a rerun says so
(:class:`Resumable`). Exit codes, shared by every subcommand (docs/exit-codes.md):

>>> for code, meaning in exit_codes().items():
...     print(code, meaning)
0 complete: every verdict resolved, every wanted run tabulated, every config done; results written
1 not done: runs a manifest lists have no results (or a results file cannot be believed and was left out), or a grid config failed, is missing, queued or still running; the rest is written
2 bad input or usage: one line on stderr, nothing judged or launched
3 incomplete: some verdicts unresolved; every verdict that arrived is kept (rerun the same command to re-ask only the missing ones; the rule judge is deterministic (re-running gives the same): give it more time (--rule-timeout, rule_timeout) or let a judge model decide (--judge cascade))
4 the judge failed (unreachable, refused the key or model, stopped answering); verdicts so far are kept, rerunning resumes
5 an output could not be written (disk full, file too large, permission): one line naming the file and the cause; nothing partial is left and a file that was there is unchanged
130 interrupted (Ctrl-C); verdicts so far are kept, rerunning resumes
143 terminated (SIGTERM; 129 for SIGHUP): stopped as on Ctrl-C (judge workers killed, grid launches stopped); verdicts so far are kept, rerunning resumes
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module

from gpassk_opencompass import __version__
from gpassk_opencompass.console import console_streams, inert
from gpassk_opencompass.errors import IncompleteResults, InputError, WriteError, clause
from gpassk_opencompass.redaction import redact

#: Every subcommand (a module of this package) and its one-line help, in the order ``gpassk --help`` lists them.
SUBCOMMANDS = {
    "calc": "G-Pass@k_tau and mG-Pass@k for one question with c of n generations correct",
    "score": "judge saved generations (JSONL) and compute G-Pass@k",
    "rejudge": "judge a finished OpenCompass run's predictions again (another judge, k or intervals)",
    "leaderboard": "build the LiveMathBench leaderboard (Markdown, CSV, JSON, HTML, plots) from OpenCompass runs",
    "grid": "run a generated config grid through OpenCompass's runners, and tell where it stands",
    "data": "check the benchmark data (where it is looked for, what is missing)",
    "agree": "agreement, Cohen's kappa and disagreements of two judges (or one cascade run's two stages)",
    "compare": "per metric: A minus B, its paired bootstrap interval and sign-flip p-value",
    "plan": "sample-size planner: expected interval half-width per metric at other n, smallest n for a target",
    "view": "explore results in a local page: the leaderboard, each run's stability map, questions, generations",
}

#: Every verdict resolved, every wanted run tabulated, every config done.
EXIT_OK = 0
#: Something wanted is not there: runs without results (leaderboard), configs failed/missing/running (grid).
EXIT_NOT_DONE = 1
#: A user mistake (bad input, bad option): one line on stderr, before any judging.
EXIT_USAGE = 2
#: Some verdicts could not be obtained: the numbers are incomplete.
EXIT_INCOMPLETE = 3
#: The judge cannot serve the run (``judges.JudgeError``).
EXIT_JUDGE_FAILED = 4
#: A file could not be written (``errors.WriteError``: disk full, file too large, permission).
EXIT_WRITE_FAILED = 5
#: Ctrl-C.
EXIT_INTERRUPTED = 130
#: A command stopped by a signal (:class:`Terminated`) exits 128 + the signal's number (143 SIGTERM, 129 SIGHUP).
EXIT_SIGNAL_BASE = 128


def exit_codes() -> dict[int, str]:
    """What each exit code means (the judges' hint imported only here: ``gpassk --version`` needs none of it)."""
    from gpassk_opencompass.judges.rule import UNDECIDED_HINT

    return {
        EXIT_OK: "complete: every verdict resolved, every wanted run tabulated, every config done; results written",
        EXIT_NOT_DONE: "not done: runs a manifest lists have no results (or a results file cannot be believed and "
        "was left out), or a grid config failed, is missing, queued or still running; the rest is written",
        EXIT_USAGE: "bad input or usage: one line on stderr, nothing judged or launched",
        EXIT_INCOMPLETE: "incomplete: some verdicts unresolved; every verdict that arrived is kept (rerun the same "
        f"command to re-ask only the missing ones; {UNDECIDED_HINT})",
        EXIT_JUDGE_FAILED: "the judge failed (unreachable, refused the key or model, stopped answering); "
        "verdicts so far are kept, rerunning resumes",
        EXIT_WRITE_FAILED: "an output could not be written (disk full, file too large, permission): one line naming "
        "the file and the cause; nothing partial is left and a file that was there is unchanged",
        EXIT_INTERRUPTED: "interrupted (Ctrl-C); verdicts so far are kept, rerunning resumes",
        EXIT_SIGNAL_BASE + signal.SIGTERM: "terminated (SIGTERM; 129 for SIGHUP): stopped as on Ctrl-C (judge "
        "workers killed, grid launches stopped); verdicts so far are kept, rerunning resumes",
    }


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP reached ``gpassk``: the command stops as on Ctrl-C.

    Attributes:
        signum: the signal; the command exits ``128 + signum`` (143 for SIGTERM, 129 for SIGHUP).
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def stop_on_signals(signals: Sequence[int] = (signal.SIGTERM, signal.SIGHUP)) -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread, as Ctrl-C does.

    ``kill``, ``timeout``, a batch job's end and a closed terminal then stop a command the way Ctrl-C
    does: its ``finally`` blocks run (judge workers and grid launches are killed with their process
    groups, files are not left half-written); a second signal during that cleanup is ignored. Outside
    the main thread (no signal handlers there) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if not received:
            received.append(signum)
            raise Terminated(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signals}
    try:
        yield
    finally:
        for signum, action in previous.items():
            signal.signal(signum, action)


@dataclass(frozen=True)
class Resumable:
    """What a command leaves for a rerun, said when it stops early (Ctrl-C, a signal, the judge failing, a
    refused write): a command sets ``args.resumable`` once it is known; :func:`ending` says it.

    Attributes:
        left: what it leaves, e.g. ``"every verdict that arrived is kept in c.jsonl"``.
        store: the file that keeps it: a refused write of that file says itself what it kept.
        after_write: whether a refused write of another file leaves it so (said then too).
    """

    left: str
    store: str | None = None
    after_write: bool = True


#: What :func:`ending` adds after what a stopped command left.
RESUME = "run the same command again to resume"


def ending(error: BaseException, resumable: Resumable | None = None) -> tuple[int, str] | None:
    """The exit code and the one line (after ``gpassk COMMAND: ``) of an exception that ends a command;
    ``None`` for any other exception: a bug, which keeps its traceback (exit code 1).

    >>> ending(InputError("--k 16: k must be <= n = 8"))
    (2, 'error: --k 16: k must be <= n = 8')
    >>> ending(KeyboardInterrupt())
    (130, 'interrupted')
    >>> ending(Terminated(signal.SIGTERM), Resumable("every verdict that arrived is kept in c.jsonl"))
    (143, 'terminated by SIGTERM; every verdict that arrived is kept in c.jsonl; run the same command again to resume')
    >>> ending(ValueError("an internal invariant broke")) is None
    True
    """
    left = f"; {resumable.left}" if resumable is not None else ""
    if isinstance(error, InputError):
        return EXIT_USAGE, f"error: {error}"
    if isinstance(error, IncompleteResults):
        return EXIT_INCOMPLETE, str(error)
    if isinstance(error, WriteError):
        still_left = resumable is not None and resumable.after_write and error.path != resumable.store
        return EXIT_WRITE_FAILED, f"error: {clause(error)}{left}" if still_left else f"error: {error}"
    if isinstance(error, KeyboardInterrupt):  # Ctrl-C, or SIGTERM/SIGHUP (stop_on_signals: 128 + its number)
        what, code = (
            (f"terminated by {error.args[0]}", EXIT_SIGNAL_BASE + error.signum)
            if isinstance(error, Terminated)
            else ("interrupted", EXIT_INTERRUPTED)
        )
        return code, f"{what}{left}; {RESUME}" if left else what
    from gpassk_opencompass.judges import JudgeError  # deferred: gpassk --version imports no judge

    if isinstance(error, JudgeError):  # one that stopped mid-run already says where its verdicts are kept
        said = error.arrived or resumable is None
        return (
            EXIT_JUDGE_FAILED,
            f"the judge failed: {error}" if said else f"the judge failed: {clause(error)}{left}; {RESUME}",
        )
    return None


def exit_code(prog: str, error: BaseException, resumable: Resumable | None = None) -> int | None:
    """The exit code of an exception that ends ``prog`` (:func:`ending`), its one redacted line printed on
    stderr; ``None`` for a bug, which the caller raises again (its traceback, exit code 1)."""
    mapped = ending(error, resumable)
    if mapped is None:
        return None
    code, line = mapped
    print(redact(f"{prog}: {line}"), file=sys.stderr)
    return code


def exit_codes_epilog(codes: Iterable[int] | None = None) -> str:
    """The exit-code table shown by ``gpassk --help`` (and by a subcommand's help, with its ``codes``).

    >>> print(exit_codes_epilog([EXIT_OK, EXIT_USAGE]))
    exit codes (docs/exit-codes.md):
      0    complete: every verdict resolved, every wanted run tabulated, every config done; results written
      2    bad input or usage: one line on stderr, nothing judged or launched
    """
    table = exit_codes()
    shown = table if codes is None else {code: table[code] for code in codes}
    return "exit codes (docs/exit-codes.md):\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in shown.items())


class _Parser(argparse.ArgumentParser):
    """The top-level parser: its exit-code epilog is built only when the help is printed."""

    def format_help(self) -> str:
        self.epilog = exit_codes_epilog()
        return super().format_help()


def build_parser(commands: Iterable[str] = tuple(SUBCOMMANDS)) -> argparse.ArgumentParser:
    """The ``gpassk`` parser with ``commands`` built in full; the other subcommands are listed by their help only."""
    parser = _Parser(
        prog="gpassk",
        description="G-Pass@k: measure whether an LLM solves a problem, and whether it does so stably.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser)
    commands = set(commands)
    for name, summary in SUBCOMMANDS.items():
        if name in commands:
            import_module(f"{__name__}.{name}").add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


class AddUp(argparse.Action):
    """A list option (``nargs="+"``) whose repeats add up: ``--k 2 --k 4`` is ``--k 2 4``, never only the last
    (argparse's ``store`` keeps the last and drops the rest silently). The first use replaces the default;
    a value given twice is refused later, with the rule (``metrics``: "ks repeat k=4; give each k once").

    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--k", type=int, nargs="+", action=AddUp, default=[16])
    >>> parser.parse_args(["--k", "2", "--k", "4", "8"]).k, parser.parse_args([]).k
    ([2, 4, 8], [16])
    """

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        so_far = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, [*([] if so_far is None or so_far is self.default else so_far), *values])


class Once(argparse.Action):
    """A one-value option given twice is refused (argparse would keep the last and drop the first silently).

    >>> parser = argparse.ArgumentParser(prog="gpassk leaderboard", exit_on_error=False)
    >>> _ = parser.add_argument("--k", type=int, action=Once)
    >>> parser.parse_args(["--k", "8", "--k", "16"])
    Traceback (most recent call last):
    ...
    argparse.ArgumentError: argument --k: given twice (8, then 16); it takes one value: give it once
    """

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        so_far = getattr(namespace, self.dest, None)
        if so_far is not None and so_far is not self.default:
            raise argparse.ArgumentError(
                self, f"given twice ({so_far}, then {values}); it takes one value: give it once"
            )
        setattr(namespace, self.dest, values)


#: A quoted value in a message ('q1', "a b"): its words are the input's, never renamed.
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def option_words(message: str, options: Mapping[str, str]) -> str:
    """``message`` with each parameter of ``options`` named as the option the user typed: ``k=8`` and
    ``k = 8`` become ``--k 8``, a bare ``ks`` becomes ``--k``; quoted values and longer words are left alone.

    >>> names = {"k": "--k", "ks": "--k", "n": "--n", "tau": "--thresholds"}
    >>> option_words("ks must satisfy k <= n; got k=8 with n=4", names)
    '--k must satisfy --k <= --n; got --k 8 with --n 4'
    >>> option_words("tau must be in [0, 1]; got tau=1.5 for question 'n'", names)
    "--thresholds must be in [0, 1]; got --thresholds 1.5 for question 'n'"
    """
    if not options:
        return message
    names = "|".join(re.escape(name) for name in sorted(options, key=len, reverse=True))
    word = re.compile(rf"(?<![-\w./\\])({names})(?![-\w/\\])(\s*=(?!=)\s*)?")  # a path's parts stay

    def rename(found: re.Match) -> str:
        return options[found[1]] + (" " if found[2] else "")

    parts = _QUOTED.split(message)
    quoted = _QUOTED.findall(message)
    renamed = [word.sub(rename, part) for part in parts]
    text = "".join(part + (quoted[index] if index < len(quoted) else "") for index, part in enumerate(renamed))
    return re.sub(r"(--[\w-]+) \(\1\)", r"\1", text)  # "--rule-timeout (rule_timeout)": said once


@contextmanager
def typed_as(options: Mapping[str, str]) -> Iterator[None]:
    """Within the block, an :class:`InputError` names the options the user typed, not the parameters their
    values became (:func:`option_words`): what a command wraps around the checks of its options, so
    ``gpassk calc --k 8 --n 4`` says ``--k``, never ``ks``.

    >>> with typed_as({"n_boot": "--bootstrap"}):
    ...     raise InputError("n_boot = 0: input should be greater than or equal to 1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --bootstrap 0: input should be greater than or equal to 1
    """
    try:
        yield
    except InputError as error:
        renamed = option_words(str(error), options)
        if renamed == str(error):
            raise  # nothing to rename: the error as it was (its own type too)
        raise InputError(renamed) from None


#: The parameters the shared judge and metric options (:func:`add_k_option`, ``--thresholds``, ``gpassk score``'s
#: and ``rejudge``'s judge and interval options) become, by the option the user typed.
SHARED_OPTIONS = {
    "k": "--k",
    "ks": "--k",
    "tau": "--thresholds",
    "thresholds": "--thresholds",
    "n_boot": "--bootstrap",
    "ci": "--ci",
    "prior": "--prior",
    "seed": "--seed",
    "concurrency": "--concurrency",
    "request_timeout": "--request-timeout",
    "max_tokens": "--judge-max-tokens",
    "progress_window": "--progress-window",
    "max_retries": "--max-retries",
    "rule_timeout": "--rule-timeout",
    "judge_timeout": "--judge-timeout",
}


def add_k_option(parser: argparse.ArgumentParser, help: str = "draws (each <= n)", required: bool = False) -> None:
    """``--k K ...``, defined once for every command that takes k values (repeats add up: :class:`AddUp`)."""
    parser.add_argument("--k", type=int, nargs="+", action=AddUp, required=required, metavar="K", help=help)


def add_thresholds_option(
    parser: argparse.ArgumentParser,
    default: Sequence[float] | None = (),
    help: str = "thresholds tau in [0, 1] (default: %(default)s)",
) -> None:
    """``--thresholds TAU ...``, defined once for every command that computes G-Pass@k_tau (repeats add up:
    :class:`AddUp`). ``default``: ``()`` for ``metrics.DEFAULT_THRESHOLDS``, ``None`` for none (the command
    chooses, as ``gpassk plan`` takes the pilot's)."""
    from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS

    parser.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        action=AddUp,
        default=None if default is None else list(default or DEFAULT_THRESHOLDS),
        metavar="TAU",
        help=help,
    )


def add_match_by_option(parser: argparse.ArgumentParser) -> None:
    """``--match-by id|position``, defined once for the commands that pair two files' questions."""
    parser.add_argument(
        "--match-by",
        default="id",
        metavar="{id,position}",
        help="pair the two files' questions by id (default: a run's 'AIME2025/0' and a gpassk score file's 'q0' "
        "differ) or by position (in file order; both must hold as many questions)",
    )


def configure_logging(level: str = "INFO") -> None:
    """Every command's logging: one stderr sink (beside progress bars).

    Every record's message is redacted and inert already (:mod:`gpassk_opencompass.log`); the sink redacts a
    traceback, which is added after that, and writes through the console door
    (:func:`gpassk_opencompass.console.write_above_bars`). It looks ``sys.stderr`` up per message, so it follows
    a swapped stream (tests, notebooks).
    """
    from gpassk_opencompass.console import write_above_bars
    from gpassk_opencompass.log import enable_logging, logger

    def write(message) -> None:
        text = str(message)
        if message.record["exception"] is not None:  # the message is redacted; its traceback is added later
            text = redact(text)
        write_above_bars(text)

    logger.remove()
    logger.add(write, level=level, format="{level}: {message}")
    enable_logging()


def _bug_through_the_door(kind, error, trace) -> None:
    """``sys.excepthook`` of a ``gpassk`` process: a bug's traceback, redacted and inert, on stderr (exit 1)."""
    import traceback

    sys.stderr.write(inert(redact("".join(traceback.format_exception(kind, error, trace)))))


def main(argv: list[str] | None = None) -> int:
    """``gpassk``: every byte it prints passes through the console door (:func:`console.console_streams`),
    a bug's traceback too (its ``sys.excepthook``); the exit code of the command's outcome (:func:`ending`)."""
    sys.excepthook = _bug_through_the_door
    with console_streams():
        return _command(sys.argv[1:] if argv is None else list(argv))


def _command(argv: list[str]) -> int:
    chosen = next((word for word in argv if not word.startswith("-")), None)
    parser = build_parser([chosen] if chosen in SUBCOMMANDS else [])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    configure_logging("WARNING" if getattr(args, "quiet", False) else getattr(args, "log_level", "INFO"))
    try:
        with stop_on_signals():
            return args.func(args)
    except (Exception, KeyboardInterrupt) as error:
        code = exit_code(f"gpassk {args.command}", error, getattr(args, "resumable", None))
        if code is None:
            raise  # a bug: its traceback, exit code 1
        return code
