"""A test skipped for a missing program says so in pytest's summary line, with the way to install it.

A skip whose reason starts with ``needs `` (``needs chromium (Debian/Ubuntu: apt-get install chromium)``) is
counted under its own name in the last line of the run, ``12 passed, 3 skipped (needs chromium (Debian/Ubuntu:
apt-get install chromium))``, where a plain ``3 skipped`` is easy to read as nothing missing. ``conftest.py``
installs :func:`pytest_report_teststatus`.
"""

from __future__ import annotations

#: What a skip reason for a missing program starts with.
NEEDS = "needs "


def skip_reason(report) -> str | None:
    """The reason of a skipped test's report (``None`` when the report is no skip)."""
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return None
    return str(report.longrepr[2]).removeprefix("Skipped: ")


def pytest_report_teststatus(report, config):
    """A skip for a missing program is its own category of the summary line: ``3 skipped (needs chromium ...)``."""
    reason = skip_reason(report)
    if reason is not None and reason.startswith(NEEDS):
        return f"skipped ({reason})", "s", ("SKIPPED", {"yellow": True})
    return None
