"""The package's logger: loguru's, with every record's message redacted before any sink sees it.

Every module of the package logs through it (``from gpassk_opencompass.log import logger``, never
``from loguru import logger``), so no secret reaches a log whoever set up the sinks: the ``gpassk`` CLI
(:func:`gpassk_opencompass.cli.configure_logging`), a notebook calling ``score()``, or OpenCompass's eval
task running :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` with loguru's default stderr
sink. The sinks are loguru's own (``loguru.logger.add`` and ``remove`` apply to this logger too). A
traceback is formatted by a sink after the record is patched: a sink that shows tracebacks redacts them
itself, as the CLI's does.

>>> import sys
>>> sink = logger.add(sys.stdout, format="{message}")
>>> logger.warning("judge http://10.0.0.5:8000/v1?token=abc123 refused key sk-abcdefghijklmnop")
judge http://10.0.0.5:8000/v1?token=[REDACTED] refused key [REDACTED]
>>> logger.remove(sink)

"""

from __future__ import annotations

from loguru import logger as _loguru_logger

from gpassk_opencompass.redaction import redact_log_record

#: loguru's logger with :func:`~gpassk_opencompass.redaction.redact_log_record` applied to every record.
logger = _loguru_logger.patch(redact_log_record)
