"""The exception a user mistake raises, so entry points can tell it from a bug.

:class:`InputError` is a ``ValueError`` (callers that catch ``ValueError``
keep working); its message is one line naming the value and what was
expected. The ``gpassk`` commands map it to exit code 2 and print it without
a traceback; any other exception is a bug and keeps its traceback.

>>> try:
...     raise InputError("--k 16: k must be <= n = 8")
... except ValueError as error:
...     print(type(error).__name__, error)
InputError --k 16: k must be <= n = 8
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input or a bad setting given by the user: one line, exit code 2."""
