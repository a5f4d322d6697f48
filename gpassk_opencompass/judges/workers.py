"""Run the rule judge (and the user's own judge) over many answers without ever hanging.

math-verify's ``signal.alarm`` works only in a main thread and cannot interrupt C code, so
:func:`judge_by_rule` judges in-process (main thread, small batch) or in worker processes (fresh interpreters,
never re-importing the caller's ``__main__``). The parent watches the clock: a worker silent for
:func:`hard_deadline` seconds (start-up bounded by :data:`STARTUP_SECONDS`) or dead is killed with its whole
process group, its answer unresolved with the reason, and a fresh worker takes the rest; no process a judge
started outlives the pool, and a worker's stdout is the parent's stderr. The same pool
(:func:`judge_in_workers`) serves the user judge (:func:`in_interpreter`, :func:`forked`).

>>> verdicts = judge_by_rule([("2", "2"), ("2", "3")], timeout=3, processes=None, progress=False)
>>> [verdict.correct for verdict in verdicts]
[True, False]
"""

from __future__ import annotations

import math
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from multiprocessing.connection import Connection, wait
from typing import NoReturn, Protocol, cast

from gpassk_opencompass import console
from gpassk_opencompass.judges.kinds import RULE
from gpassk_opencompass.judges.rule import UNDECIDED_HINT, rule_verdict
from gpassk_opencompass.judges.types import Verdict
from gpassk_opencompass.log import logger

#: Largest batch judged in-process (main thread, ``processes=None``).
IN_PROCESS_LIMIT = 256
#: Answers handed to a worker at a time.
CHUNK = 16
#: Seconds a worker may take to start (import math-verify, the user's module) before its first answer's clock runs.
STARTUP_SECONDS = 30.0
#: Seconds the workers have to exit by themselves once the pool is done, before their groups are killed.
EXIT_GRACE_SECONDS = 1.0
#: Seconds between an idle worker's checks that its parent is still there.
PARENT_CHECK_SECONDS = 1.0
#: What a worker sends once it is ready for its first answer (any other message is ``(index, verdict)``).
READY = None


def hard_deadline(timeout: int) -> float:
    """Seconds a worker may stay silent on one answer before it is killed.

    Two parses, up to four comparisons and one numeric check, each bounded by ``timeout``, plus slack.

    >>> hard_deadline(3)
    26.0
    """
    return 7.0 * timeout + 5.0


def judge_by_rule(
    pairs: Sequence[tuple[str, str | None]],
    *,
    timeout: int,
    processes: int | None,
    progress: bool,
    deadline: float | None = None,
) -> list[Verdict]:
    """Rule verdicts for ``(reference, extracted)`` pairs, in order.

    Args:
        pairs: what to judge.
        timeout: math-verify's per-operation bound, seconds.
        processes: worker processes; ``None`` chooses (see the module docstring).
        progress: show a tqdm bar on stderr.
        deadline: seconds a worker may stay silent on one answer before it is
            killed; ``None`` means :func:`hard_deadline` of ``timeout``.
    """
    in_main_thread = threading.current_thread() is threading.main_thread()
    if processes is None and in_main_thread and len(pairs) <= IN_PROCESS_LIMIT:
        return [
            rule_verdict(reference, extracted, timeout=timeout)
            for reference, extracted in console.progress(
                pairs, desc="rule judge", unit="answer", show=progress and len(pairs) >= 2
            )
        ]
    if processes is None:
        processes = default_processes(len(pairs))
    deadline = deadline or hard_deadline(timeout)
    code = f"from gpassk_opencompass.judges.workers import serve; serve({{read}}, {{write}}, {int(timeout)})"
    reasons: dict[str, str] = {}

    def kept(index: int, verdict: Verdict) -> Verdict:
        """The verdict with its strings shared: each arrives unpickled with its own copies (~370 bytes a verdict,
        the most memory of 300,000 distinct answers), though its answer is the pair's and its reasons are few."""
        extracted = pairs[index][1]
        return Verdict(
            verdict.correct,
            extracted if verdict.extracted == extracted else verdict.extracted,
            reasons.setdefault(verdict.reason, verdict.reason),
            RULE if verdict.source == RULE else verdict.source,
            verdict.rule_correct,
        )

    return judge_in_workers(
        pairs,
        lambda: Worker(in_interpreter(code)),
        processes=processes,
        progress=progress,
        desc="rule judge",
        unresolved=lambda index, reason: Verdict(None, pairs[index][1], reason, RULE),
        deadline=deadline,
        silent=f"rule judge gave no verdict within {deadline:g}s; {UNDECIDED_HINT}",
        died=f"rule judge worker died; {UNDECIDED_HINT}",
        kept=kept,
    )


def default_processes(answers: int) -> int:
    """Worker processes for ``answers`` answers: one per :data:`CHUNK` x 4 of them, at most one per core."""
    return max(1, min(os.cpu_count() or 1, math.ceil(answers / (4 * CHUNK))))


class _Process(Protocol):
    """What a worker's process must offer: ``subprocess.Popen``'s ``pid`` and ``wait`` (which reaps it)."""

    pid: int

    def wait(self) -> object: ...


#: Starts a worker's process given the pipe ends it reads and writes, and the parent's ends (for it to close).
Start = Callable[[int, int, tuple[int, int]], _Process]


def in_interpreter(code: str, arguments: Sequence[str] = ()) -> Start:
    """Start a fresh interpreter running ``code``, its ``{read}`` and ``{write}`` the pipe ends it serves.

    Values reach it as data, in ``sys.argv[1:]`` (``arguments``), never written into ``code``.

    It never re-imports the caller's ``__main__`` (unlike ``multiprocessing``'s
    spawn); the package is on its ``PYTHONPATH``; it lives in its own session
    (and process group), so a Ctrl-C meant for the parent does not interrupt it
    mid-answer; its stdout is the parent's stderr, unbuffered.
    """

    def start(read_fd: int, write_fd: int, parent_fds: tuple[int, int]) -> _Process:
        package_root = str(pathlib.Path(__file__).resolve().parents[2])
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, environment.get("PYTHONPATH")]))
        return subprocess.Popen(
            [sys.executable, "-u", "-c", code.format(read=read_fd, write=write_fd), *arguments],
            pass_fds=(read_fd, write_fd),
            stdin=subprocess.DEVNULL,
            stdout=2,  # this process's stderr
            env=environment,
            start_new_session=True,
        )

    return start


def forked(answer: Callable[..., Verdict]) -> Start:
    """Start a forked copy of this process calling ``answer`` per item: nothing is pickled, so any function
    (a lambda, a closure) serves; its main thread runs it (``signal.alarm`` works there). Linux's fork only.
    """
    return lambda read_fd, write_fd, parent_fds: _Forked(answer, read_fd, write_fd, parent_fds)


class _Forked:
    """A forked worker leading its own session, with ``subprocess.Popen``'s ``pid`` and ``wait``."""

    def __init__(self, answer: Callable[..., Verdict], read_fd: int, write_fd: int, parent_fds: tuple[int, int]):
        for stream in (sys.stdout, sys.stderr):  # else the copy holds (and would repeat) what they buffer
            with suppress(AttributeError, OSError, ValueError):
                stream.flush()
        self.pid = os.fork()
        if self.pid == 0:
            _serve_forked(answer, read_fd, write_fd, parent_fds)

    def wait(self) -> int:
        try:
            return os.waitpid(self.pid, 0)[1]
        except ChildProcessError:  # reaped already (SIGCHLD ignored)
            return 0


def _serve_forked(answer: Callable[..., Verdict], read_fd: int, write_fd: int, parent_fds: tuple[int, int]) -> NoReturn:
    """The forked worker's whole life: it never returns into the caller's code, whatever ``answer`` does."""
    status = 1
    try:
        os.setsid()
        for fd in parent_fds:  # the parent's ends: held here, the parent would never read EOF when this worker dies
            os.close(fd)
        os.dup2(2, 1)  # what the function (or a program it runs) writes to stdout goes to stderr
        sys.stdout = sys.stderr
        with open(os.devnull, "rb") as nothing:
            os.dup2(nothing.fileno(), 0)
        serve_with(answer, read_fd, write_fd)
        status = 0
    except BaseException:  # noqa: BLE001 - nothing may return into the caller's code: say why it ends, and end
        traceback.print_exc()
    finally:
        with suppress(AttributeError, OSError, ValueError):
            sys.stderr.flush()
        os._exit(status)


class Worker:
    """A child process judging the chunks it is sent, one reply per answer.

    It talks over two pipes wrapped as ``multiprocessing`` connections; ``start``
    (:func:`in_interpreter`, :func:`forked`) starts its process.
    """

    def __init__(self, start: Start) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        try:
            self.process = start(to_child_read, from_child_write, (to_child_write, from_child_read))
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        self.to_child = Connection(to_child_write, readable=False)
        self.connection = Connection(from_child_read, writable=False)
        self.pending: deque[int] = deque()
        self.last_heard = time.monotonic()
        self.ready = False

    def send(self, indices: list[int], pairs) -> None:
        self.pending.extend(indices)
        self.last_heard = time.monotonic()
        try:
            self.to_child.send([(index, *pairs[index]) for index in indices])
        except OSError:  # it died before reading: its connection reads EOF next, and the pool replaces it
            logger.debug("judge worker {} died before it was sent its answers", self.process.pid)

    def finish(self) -> None:
        """Ask the worker to exit once idle."""
        try:
            self.to_child.send(None)
        except OSError:  # already gone; the pool kills its group and reaps it
            return

    def silent_for(self, now: float) -> float:
        """Seconds it has been silent beyond what it may: its start-up (:data:`STARTUP_SECONDS`) is not counted."""
        return now - self.last_heard - (0.0 if self.ready else STARTUP_SECONDS)

    def exited(self, within: float) -> bool:
        """Whether the worker has ended, waiting up to ``within`` seconds; it is not reaped (its pid keeps naming
        its process group until then)."""
        deadline = time.monotonic() + within
        while True:
            try:
                if os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    return True
            except ChildProcessError:  # reaped already (SIGCHLD ignored)
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def kill(self) -> None:
        """SIGKILL the worker and every process of its group (what the judge started, a process it forked)."""
        for kill in (os.killpg, os.kill):  # os.kill too: a forked worker may not lead its group yet
            with suppress(ProcessLookupError, PermissionError):
                kill(self.process.pid, signal.SIGKILL)

    def reap(self) -> None:
        """Wait for the (killed) worker's end and close its pipes."""
        self.process.wait()
        self.to_child.close()
        self.connection.close()


def _stop_workers(workers: Sequence[Worker], grace: float) -> None:
    """End ``workers`` and their process groups: each may exit by itself within ``grace`` seconds, then all are killed.

    Every group is killed before any worker is reaped (so each pid still names its group), and even if the
    wait is interrupted (Ctrl-C, SIGTERM).
    """
    if grace:
        for worker in workers:
            worker.finish()
    deadline = time.monotonic() + grace
    try:
        for worker in workers:
            worker.exited(max(0.0, deadline - time.monotonic()))
    finally:
        for worker in workers:
            worker.kill()
        for worker in workers:
            worker.reap()


def judge_in_workers(
    pairs: Sequence[tuple],
    start: Callable[[], Worker],
    *,
    processes: int,
    progress: bool,
    desc: str,
    unresolved: Callable[[int, str], Verdict],
    deadline: float,
    silent: str,
    died: str,
    arrived: Callable[[int, Verdict], None] | None = None,
    kept: Callable[[int, Verdict], Verdict] | None = None,
) -> list[Verdict]:
    """One verdict per item of ``pairs``, in order, from ``processes`` workers made by ``start``.

    A worker that sends nothing for ``deadline`` seconds (once it has started) is killed with its process
    group, the item it was on gets ``unresolved(index, silent)``, and a fresh worker takes the rest; one that
    dies gets ``unresolved(index, died)`` the same way. ``arrived(index, verdict)`` is called as each verdict
    arrives (to keep it before the run ends); ``kept(index, verdict)``, when given, is what is kept of a verdict
    a worker sent (an equal one, held more compactly). However the call ends, every worker's group is killed.
    """
    pool = _WorkerPool(processes, start, deadline, unresolved, arrived, kept)
    return pool.run(pairs, progress, desc, silent, died)


class _WorkerPool:
    def __init__(
        self,
        processes: int,
        start: Callable[[], Worker],
        deadline: float,
        unresolved: Callable[[int, str], Verdict],
        arrived: Callable[[int, Verdict], None] | None,
        kept: Callable[[int, Verdict], Verdict] | None = None,
    ) -> None:
        self.processes = processes
        self.start = start
        self.deadline = deadline
        self.unresolved = unresolved
        self.arrived = arrived
        self.kept = kept

    def run(self, pairs, progress: bool, desc: str, silent: str, died: str) -> list[Verdict]:
        results: list[Verdict | None] = [None] * len(pairs)
        self.remaining = len(pairs)
        todo = deque(range(len(pairs)))
        workers: list[Worker] = []
        bar = console.progress(total=len(pairs), desc=desc, unit="answer", show=progress)
        done = False
        try:
            for _ in range(min(self.processes, len(pairs))):
                workers.append(self.start())
            while self.remaining:
                for worker in workers:
                    if not worker.pending and todo:
                        worker.send([todo.popleft() for _ in range(min(CHUNK, len(todo)))], pairs)
                readable = wait([worker.connection for worker in workers], timeout=1.0)
                for position, worker in enumerate(workers):
                    if worker.connection in readable:
                        try:
                            message = worker.connection.recv()
                        except (EOFError, OSError):
                            workers[position] = self._replace(worker, results, todo, bar, died)
                            continue
                        worker.last_heard = time.monotonic()
                        if message is READY:
                            worker.ready = True
                            continue
                        index, verdict = message
                        worker.pending.remove(index)
                        self._record(results, index, verdict if self.kept is None else self.kept(index, verdict), bar)
                    elif worker.pending and worker.silent_for(time.monotonic()) > self.deadline:
                        workers[position] = self._replace(worker, results, todo, bar, silent)
            done = True
        finally:
            bar.close()
            _stop_workers(workers, EXIT_GRACE_SECONDS if done else 0.0)
        return cast(list[Verdict], results)  # every index was recorded once: none is left None

    def _record(self, results, index: int, verdict: Verdict, bar) -> None:
        results[index] = verdict
        self.remaining -= 1
        bar.update(1)
        if self.arrived is not None:
            self.arrived(index, verdict)

    def _replace(self, worker: Worker, results, todo: deque, bar, reason: str) -> Worker:
        """Kill ``worker`` and its group; blame the answer it was on, requeue the rest, start a fresh one."""
        worker.kill()
        worker.reap()
        if worker.pending:
            culprit = worker.pending.popleft()
            self._record(results, culprit, self.unresolved(culprit, reason), bar)
            todo.extendleft(reversed(worker.pending))
        return self.start()


def serve(read_fd: int, write_fd: int, timeout: int) -> None:
    """A rule worker's main loop: :func:`serve_with` math-verify bounded by ``timeout``."""
    serve_with(lambda reference, extracted: rule_verdict(reference, extracted, timeout=timeout), read_fd, write_fd)


def serve_with(answer: Callable[..., Verdict], read_fd: int, write_fd: int) -> None:
    """A worker's main loop: ``answer`` each item of each chunk received, replying per item; ``None`` or EOF ends it.

    It says :data:`READY` first. A process that ``answer`` forks never speaks on the pipe nor comes back into
    the loop: it ends (``os._exit``) when ``answer`` returns or raises in it. An idle worker whose parent is
    gone (killed without a chance to stop it) ends too. What it prints (a user's function, a library's warning)
    reaches the shared stderr through the console door (:func:`~gpassk_opencompass.console.console_streams`).
    """
    with console.console_streams():
        _serve_loop(answer, read_fd, write_fd)


def _serve_loop(answer: Callable[..., Verdict], read_fd: int, write_fd: int) -> None:
    worker, parent = os.getpid(), os.getppid()
    incoming = Connection(read_fd, writable=False)
    outgoing = Connection(write_fd, readable=False)
    outgoing.send(READY)
    while True:
        if not incoming.poll(PARENT_CHECK_SECONDS):
            if os.getppid() != parent:
                return
            continue
        try:
            chunk = incoming.recv()
        except EOFError:
            return
        if chunk is None:
            return
        for index, *item in chunk:
            try:
                verdict = answer(*item)
            finally:
                if os.getpid() != worker:  # a process the function forked, returning here: it ends
                    os._exit(0)
            outgoing.send((index, verdict))
