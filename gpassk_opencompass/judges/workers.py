"""Run the rule judge over many answers without ever hanging.

math-verify bounds its work with ``signal.alarm``, which only the main thread
of a process can use, and an alarm cannot interrupt a long computation
inside C code.  :func:`judge_by_rule` therefore picks one of two ways:

* **in-process**, when called from the main thread with a small batch
  (``processes=None``): fastest, bounded by math-verify's alarms;
* **worker processes** (fresh interpreters whose main thread runs
  math-verify; unlike ``multiprocessing``'s spawn they never re-import the
  caller's ``__main__``), for large batches, when called from any other
  thread, or when ``processes`` is given.  The parent also watches the clock: a worker that
  sends nothing for :func:`hard_deadline` seconds is killed, the answer it
  was on gets ``correct=None`` with the reason, and a fresh worker takes the
  rest.  A worker that dies (out of memory, a crash) is handled the same way.

>>> verdicts = judge_by_rule([("2", "2"), ("2", "3")], timeout=3, processes=None, progress=False)
>>> [verdict.correct for verdict in verdicts]
[True, False]
"""

from __future__ import annotations

import math
import os
import pathlib
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import cast

from tqdm import tqdm

from gpassk_opencompass.judges.rule import UNDECIDED_HINT, rule_verdict
from gpassk_opencompass.judges.types import Verdict
from gpassk_opencompass.log import logger

#: Largest batch judged in-process (main thread, ``processes=None``).
IN_PROCESS_LIMIT = 256
#: Answers handed to a worker at a time.
CHUNK = 16


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
            for reference, extracted in tqdm(
                pairs, desc="rule judge", unit="answer", disable=not progress or len(pairs) < 2
            )
        ]
    if processes is None:
        processes = max(1, min(os.cpu_count() or 1, math.ceil(len(pairs) / (4 * CHUNK))))
    return _WorkerPool(processes, timeout, deadline or hard_deadline(timeout)).run(pairs, progress)


class _Worker:
    """A child interpreter judging the chunks it is sent, one reply per answer.

    It talks over two pipes wrapped as ``multiprocessing`` connections and
    lives in its own session, so a Ctrl-C meant for the parent does not
    interrupt it mid-answer (the parent stops it).
    """

    def __init__(self, timeout: int) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        package_root = str(pathlib.Path(__file__).resolve().parents[2])
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, environment.get("PYTHONPATH")]))
        code = (
            f"from gpassk_opencompass.judges.workers import serve; "
            f"serve({to_child_read}, {from_child_write}, {int(timeout)})"
        )
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", code],
                pass_fds=(to_child_read, from_child_write),
                stdin=subprocess.DEVNULL,
                env=environment,
                start_new_session=True,
            )
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        self.to_child = Connection(to_child_write, readable=False)
        self.connection = Connection(from_child_read, writable=False)
        self.pending: deque[int] = deque()
        self.last_heard = time.monotonic()

    def send(self, indices: list[int], pairs) -> None:
        self.pending.extend(indices)
        self.last_heard = time.monotonic()
        try:
            self.to_child.send([(index, *pairs[index]) for index in indices])
        except OSError:  # it died before reading: its connection reads EOF next, and the pool replaces it
            logger.debug("rule judge worker {} died before it was sent its answers", self.process.pid)

    def finish(self) -> None:
        """Ask the worker to exit once idle."""
        try:
            self.to_child.send(None)
        except OSError:  # already gone; stop() reaps it
            return

    def stop(self, grace: float = 0.0) -> None:
        """Reap the worker, killing it unless it exits within ``grace`` seconds."""
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.to_child.close()
        self.connection.close()


class _WorkerPool:
    def __init__(self, processes: int, timeout: int, deadline: float) -> None:
        self.processes = processes
        self.timeout = timeout
        self.deadline = deadline

    def run(self, pairs, progress: bool) -> list[Verdict]:
        results: list[Verdict | None] = [None] * len(pairs)
        self.remaining = len(pairs)
        todo = deque(range(len(pairs)))
        workers = [_Worker(self.timeout) for _ in range(min(self.processes, len(pairs)))]
        deadline = self.deadline
        bar = tqdm(total=len(pairs), desc="rule judge", unit="answer", disable=not progress)
        try:
            while self.remaining:
                for worker in workers:
                    if not worker.pending and todo:
                        worker.send([todo.popleft() for _ in range(min(CHUNK, len(todo)))], pairs)
                ready = wait([worker.connection for worker in workers], timeout=1.0)
                for position, worker in enumerate(workers):
                    if worker.connection in ready:
                        try:
                            index, verdict = worker.connection.recv()
                        except (EOFError, OSError):
                            workers[position] = self._replace(
                                worker, results, todo, pairs, bar, f"rule judge worker died; {UNDECIDED_HINT}"
                            )
                            continue
                        worker.pending.remove(index)
                        worker.last_heard = time.monotonic()
                        self._record(results, index, verdict, bar)
                    elif worker.pending and time.monotonic() - worker.last_heard > deadline:
                        silent = f"rule judge gave no verdict within {deadline:g}s; {UNDECIDED_HINT}"
                        workers[position] = self._replace(worker, results, todo, pairs, bar, silent)
        finally:
            bar.close()
            for worker in workers:
                worker.finish()
            for worker in workers:
                worker.stop(grace=1.0)
        return cast(list[Verdict], results)  # every index was recorded once: none is left None

    def _record(self, results, index: int, verdict: Verdict, bar) -> None:
        results[index] = verdict
        self.remaining -= 1
        bar.update(1)

    def _replace(self, worker: _Worker, results, todo: deque, pairs, bar, reason: str) -> _Worker:
        """Kill ``worker``; blame the answer it was on, requeue the rest, start a fresh one."""
        worker.stop()
        if worker.pending:
            culprit = worker.pending.popleft()
            self._record(results, culprit, Verdict(None, pairs[culprit][1], reason, "rule"), bar)
            todo.extendleft(reversed(worker.pending))
        return _Worker(self.timeout)


def serve(read_fd: int, write_fd: int, timeout: int) -> None:
    """A worker's main loop: judge each chunk received, replying per answer; ``None`` or EOF ends it."""
    incoming = Connection(read_fd, writable=False)
    outgoing = Connection(write_fd, readable=False)
    while True:
        try:
            chunk = incoming.recv()
        except EOFError:
            return
        if chunk is None:
            return
        for index, reference, extracted in chunk:
            outgoing.send((index, rule_verdict(reference, extracted, timeout=timeout)))
