r"""A judge model for the loopback server: grades by exact match of what it is shown.

It reads the reference and the student's answer out of our judge prompt and
replies ``\boxed{yes}`` when they are the same string, ``\boxed{no}``
otherwise -- a judge whose every verdict the tests can predict independently.
"""

from __future__ import annotations

import re

from loopback_openai import last_user_message

_SECTION = r"<{0}>\n(.*?)\n</{0}>"


def shown(body: dict, section: str) -> str:
    """The text of ``<section>…</section>`` in the request's prompt."""
    match = re.search(_SECTION.format(section), last_user_message(body), re.DOTALL)
    if match is None:
        raise AssertionError(f"no <{section}> in the judge prompt")
    return match.group(1)


def exact_match_judge(body: dict) -> str:
    """Reply as a judge model would, deciding by exact match."""
    same = shown(body, "student_answer") == shown(body, "reference_answer")
    return "The two answers agree. \\boxed{yes}" if same else "They differ. \\boxed{no}"
