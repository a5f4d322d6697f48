"""``gpassk`` run by ``cli.main`` in the test's own process, and a deadline that turns a hang into a failure.

The code path of the ``gpassk`` script without a second interpreter's imports (about 2 CPU-s each, over 10
when the command imports OpenCompass). A test keeps a subprocess where the process is the point: a memory
cap, a signal, the console script's own exit code, an interpreter without OpenCompass.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
from collections.abc import Iterator

from gpassk_opencompass.cli import main


class Hung(BaseException):
    """A command still running at its deadline (a BaseException: no ``except Exception`` in the code swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """A hang past ``seconds`` fails the test: SIGALRM interrupts a blocking open or read in the main thread."""

    def hung(signum, frame):
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_main(capsys, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``gpassk *args`` through ``cli.main``, answered as ``subprocess.run`` answers (exit code, stdout, stderr)."""
    capsys.readouterr()
    with deadline(timeout):
        code = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out, err)
