"""The console door: every text bound for a terminal is made inert by one function, :func:`inert`.

Text from inputs reaches the console (a model path from a shared run's saved config, a bar's description in
an OpenCompass log, a question id, a file name). A terminal obeys what such text may carry: ESC sequences
(CSI ``ESC [``, OSC ``ESC ]`` ended by BEL or ST, DCS ``ESC P``, SOS/PM/APC, the reset ``ESC c``, any
two-byte ``ESC x``), their one-byte C1 forms (U+0080-U+009F: ``\\x9b`` is CSI), the other C0 controls
(a ``\\r`` rewrites the line, a ``\\b`` the last letter) and DEL; bidirectional overrides, embeddings, isolates
and marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) reorder what is shown. :func:`inert`
writes each such character as its visible escape ``\\uXXXX`` and keeps everything else, newline and tab
included: a sequence without its introducer is plain text, so every sequence is inert. The marks are
escaped too (they only nudge the order of neutral characters, but a line is then not what it reads; no
message of ours needs them). A lone surrogate (a JSON file's ``"\\ud800"``) becomes ``\\ud800`` too, where
printing it would raise. The escape is JSON's and Python's own spelling, so a JSON document printed through
the door still parses to the same value (its strings held the raw character; now they hold its escape).

The CLI applies the door structurally (:func:`console_streams`): while a command runs, ``sys.stdout`` and
``sys.stderr`` are :class:`ConsoleStream` objects that pass every write through :func:`inert`, whether they
go to a terminal or to a file (a redirected stdout is read on a terminal later: ``cat board.md``); the
log records are inert before any sink sees them (:mod:`gpassk_opencompass.log`), and progress bars are drawn
by :func:`progress` only (their descriptions and postfixes inert, drawn on the raw stream and only when it is
a terminal). Files a command writes itself (``--output``, ``-o``) are the bytes rendered, never escaped.

>>> inert("model \\x1b]0;pwned\\x07\\x1bc name")
'model \\\\u001b]0;pwned\\\\u0007\\\\u001bc name'
>>> print(inert("kept:\\nc\\r\\x9b31m \\u202eevil\\u202c \\u6a21\\u578b"))
kept:
c\\u000d\\u009b31m \\u202eevil\\u202c 模型
>>> inert("already inert: \\\\u001b") == "already inert: \\\\u001b"
True
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

#: Every character a terminal may act on rather than show: C0 controls but tab and newline, DEL, C1,
#: the bidirectional controls (embeddings, overrides, isolates, marks) and lone surrogates.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

#: A whole escape sequence as a terminal parses it (for reading another program's output, such as a tqdm bar
#: in an OpenCompass log: :func:`without_sequences`): CSI (``ESC [`` or ``\\x9b``, parameters, one final
#: byte), OSC/DCS/SOS/PM/APC strings up to BEL or ST (``ESC \\`` or ``\\x9c``), any two-byte ``ESC x``.
SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)


def _escape(found: re.Match) -> str:
    return f"\\u{ord(found.group()):04x}"


def inert(text: object) -> str:
    """``text`` (made a string) with every character a terminal would act on written as its escape ``\\uXXXX``.

    The one door of text bound for a terminal (see the module docstring); idempotent, and the identity on
    text without such characters.

    >>> inert("CSI \\x1b[2J, DCS \\x1bPq#0\\x1b\\\\, DEL \\x7f, bell \\x07")
    'CSI \\\\u001b[2J, DCS \\\\u001bPq#0\\\\u001b\\\\, DEL \\\\u007f, bell \\\\u0007'
    >>> inert(42), inert("plain")
    ('42', 'plain')
    """
    text = text if isinstance(text, str) else str(text)
    return UNSAFE.sub(_escape, text)


def without_sequences(text: str) -> str:
    """``text`` with every complete escape sequence removed: what a program's own output shows once drawn.

    For reading another program's terminal output (``grid status`` reads tqdm bars from OpenCompass's logs,
    cursor moves included); what is then printed still goes through :func:`inert`.

    >>> without_sequences("\\x1b[A\\x1b]0;title\\x07rule judge: 50%\\x1b[0m")
    'rule judge: 50%'
    """
    return SEQUENCE.sub("", text)


class ConsoleStream:
    """A text stream whose every write passes through :func:`inert`; everything else is the wrapped stream's.

    Attributes:
        raw: the wrapped stream (a progress bar draws there: its ``\\r`` redraws are the bar's own).

    >>> import io
    >>> stream = ConsoleStream(io.StringIO())
    >>> stream.write("\\x1bc reset"), stream.raw.getvalue(), stream.isatty()
    (13, '\\\\u001bc reset', False)
    """

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        return self.raw.write(inert(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under a :class:`ConsoleStream` (``stream`` itself otherwise)."""
    return stream.raw if isinstance(stream, ConsoleStream) else stream


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` goes to a terminal (``False`` for a closed or detached one)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


@contextmanager
def console_streams() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` pass every write through :func:`inert`.

    What an entry point wraps around its work (``gpassk``'s :func:`~gpassk_opencompass.cli.main`), so
    no command can print around the door; streams wrapped already are left as they are.

    >>> import io
    >>> captured, saved = io.StringIO(), sys.stdout
    >>> sys.stdout = captured
    >>> with console_streams():
    ...     print("\\x1b]0;title\\x07")
    >>> sys.stdout = saved
    >>> captured.getvalue()
    '\\\\u001b]0;title\\\\u0007\\n'
    """
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (
        stream if isinstance(stream, ConsoleStream) or stream is None else ConsoleStream(stream) for stream in saved
    )
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


@functools.cache
def _bar_class() -> type:
    from tqdm import tqdm  # deferred: a bar only when work is shown

    class ConsoleBar(tqdm):
        """tqdm with its description and postfix inert, however they were set."""

        @property
        def format_dict(self) -> dict:
            shown = super().format_dict
            for name in ("prefix", "postfix"):
                if shown.get(name):
                    shown[name] = inert(shown[name])
            return shown

    return ConsoleBar


#: Whether bars also draw into a stderr that is no terminal (:func:`draw_bars_into_logs`); off: a terminal only.
_INTO_LOGS = {"on": False}


def draw_bars_into_logs() -> None:
    """Let bars draw into a stderr that is a log file: where another program reads the progress from it.

    What :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` does inside OpenCompass, whose task log is
    where ``gpassk grid status`` reads the judge's bar (``evaluating: rule judge 9 of 13 answers``); no ``gpassk``
    command does (``gpassk score ... 2> log`` gets no frames).
    """
    _INTO_LOGS["on"] = True


def progress(iterable: Iterable | None = None, *, show: bool = True, **options: Any) -> Any:
    """A tqdm bar on stderr, drawn only when ``show`` and stderr is a terminal: the one factory of bars.

    Its description and postfix pass through :func:`inert`; it draws on the raw stream (under a
    :class:`ConsoleStream`), so its own ``\\r`` redraws stay redraws; into a redirected stderr
    (``gpassk score ... 2> log``) it draws nothing. ``options`` are tqdm's (``desc``, ``total``, ``unit``, ...).

    >>> bar = progress(range(3), desc="rule judge")
    >>> bar.disable, list(bar)  # a doctest's stderr is no terminal
    (True, [0, 1, 2])
    """
    stream = raw_stream(sys.stderr)
    disable = not show or not (is_terminal(stream) or _INTO_LOGS["on"])
    return _bar_class()(iterable, file=stream, disable=disable, **options)


def write_above_bars(text: str, stream: TextIO | None = None) -> None:
    """``text`` (made inert) on ``stream`` (default: stderr) without tearing a bar being drawn: the log sink's writer."""
    from tqdm import tqdm  # deferred with the bars

    tqdm.write(inert(text), file=raw_stream(sys.stderr if stream is None else stream), end="")
