"""The package's logger: loguru's, silent unless the application shows it, every record's message redacted and inert.

Every module of the package logs through it (``from gpassk_opencompass.log import logger``, never
``from loguru import logger``), so no secret reaches a log whoever set up the sinks, and no record carries a
character a terminal would act on (the console door, :func:`gpassk_opencompass.console.inert`). As loguru asks of a
library, the package's records are off until the application turns them on with :func:`enable_logging`:
``score()`` in a notebook prints nothing on stderr. The ``gpassk`` CLI turns them on
(:func:`gpassk_opencompass.cli.configure_logging`), and so does
:class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator`, whose records belong in OpenCompass's task log;
the rest of the plugin (its datasets and models run inside OpenCompass, the application there) is on from
the start. The sinks are loguru's own (``loguru.logger.add`` and ``remove`` apply to this logger too). A
traceback is formatted by a sink after the record is patched: a sink that shows tracebacks redacts them
itself, as the CLI's does (through the console door too).

>>> import sys
>>> sink = logger.add(sys.stdout, format="{message}")
>>> enable_logging()  # what an application does (the library starts silent)
>>> logger.warning("judge http://10.0.0.5:8000/v1?token=abc123 refused key sk-abcdefghijklmnop")
judge http://10.0.0.5:8000/v1?token=[REDACTED] refused key [REDACTED]
>>> logger.warning("model {}", "\\x1b]0;pwned\\x07\\x1bc")
model \\u001b]0;pwned\\u0007\\u001bc
>>> logger.remove(sink)

"""

from __future__ import annotations

from loguru import logger as _loguru_logger

from gpassk_opencompass.console import inert
from gpassk_opencompass.redaction import redact_log_record


def _patch(record) -> None:
    """Every record's message redacted, then inert (a loguru patcher)."""
    redact_log_record(record)
    record["message"] = inert(record["message"])


#: loguru's logger with every record's message redacted
#: (:func:`~gpassk_opencompass.redaction.redact_log_record`) and made inert (:func:`~gpassk_opencompass.console.inert`).
logger = _loguru_logger.patch(_patch)

#: The prefix of every module's ``__name__``: what loguru turns the package's records on and off by.
_PACKAGE = __name__.rpartition(".")[0]
logger.disable(_PACKAGE)
logger.enable(f"{_PACKAGE}.plugin")


def enable_logging() -> None:
    """Let every record of the package reach loguru's sinks (an application's choice; the library starts silent)."""
    logger.enable(_PACKAGE)
