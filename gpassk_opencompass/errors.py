"""The exceptions a user mistake or a refused write raises, so entry points can tell them from a bug.

:class:`InputError` is a user's mistake, and nothing else is: a bad argument or a bad input. As Python's
convention for a bad argument value asks (scikit-learn's ``InvalidParameterError`` is one too), it is a
``ValueError``: a caller writes ``except ValueError`` around ``g_pass_at_k``, ``score()`` or ``compute()``
as around numpy or scikit-learn. The ``gpassk`` commands map only :class:`InputError` to exit code 2 and
print it without a traceback; a plain ``ValueError`` (from a bug, or a library's) keeps its traceback
(exit code 1), and no code of the package catches ``ValueError`` around its own code (only around a
named foreign call, narrowly), so a user's mistake is never swallowed as something else. Its message is
one line naming the value, the rule and the fix. :class:`IncompleteResults` (unresolved verdicts where an
answer needs them) and :class:`WriteError` (the disk is full, the file too large) are one line too, exit
codes 3 and 5; any other exception is a bug and keeps its traceback (exit code 1). The one mapper is
:func:`gpassk_opencompass.cli.ending`.

>>> error = InputError("--k 16: k must be <= n = 8")
>>> isinstance(error, ValueError), str(error)
(True, '--k 16: k must be <= n = 8')
"""

from __future__ import annotations

#: What may close a message and is dropped before it joins a sentence.
_CLOSING = "".join((" ", ".", ";", ":", ","))


class InputError(ValueError):
    """Bad input or a bad setting given by the user: one line, exit code 2; a ``ValueError`` for Python callers."""


class IncompleteResults(Exception):
    """A results file has unresolved verdicts where the answer would need them: one line, exit code 3."""


class WriteError(Exception):
    """A file could not be written (disk full, file too large, permission, quota): one line naming the file
    and the cause, exit code 5. Raised by :mod:`gpassk_opencompass.files.writing`, the one place files are written;
    nothing partial is left behind.

    Attributes:
        path: the file that could not be written.
    """

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def clause(message: object) -> str:
    """A message as a clause to join into a longer sentence: one line, no closing full stop.

    Messages from servers and libraries end how they like ("Connection error."); joined as
    ``f"{clause(error)}; is it running?"`` the sentence never reads ``error.; is it``.

    >>> clause("Connection error."), clause("HTTP 400: bad model;  "), clause("line one\\nline two")
    ('Connection error', 'HTTP 400: bad model', 'line one line two')
    """
    return " ".join(str(message).split()).rstrip(_CLOSING)
