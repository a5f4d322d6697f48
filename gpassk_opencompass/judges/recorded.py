"""Verdicts an earlier judging recorded, given again under the judge that gave them.

The two rounds of a curtailed grid run are judged by two OpenCompass evaluations; round 1's verdicts decided
which questions went on. ``gpassk grid run`` scores the rounds as one run through the one scoring flow
(:func:`~gpassk_opencompass.scoring.flow.scored_results`) with exactly those verdicts: each generation reaches
the flow with its recorded verdict (``source_verdicts``/``source_extracted``, so two equal texts judged
differently stay two items), and :class:`RecordedJudge` answers each item with the verdict recorded for it,
asking nothing. The results record the judge that gave them (its identity as its results recorded it), never
"source".

>>> from gpassk_opencompass.judges.types import JudgeItem, Verdict
>>> right = Verdict(True, "2", "equal", "rule")
>>> item = JudgeItem("1+1?", "2", "so \\\\boxed{2}", source_correct=True, source_extracted="2")
>>> judge = RecordedJudge({recorded_key(item): right}, {"judge": "rule", "judge_model": None})
>>> report = judge.judge([item], progress=False)
>>> report.verdicts == (right,), judge.name, report.stats.cached, report.stats.requests
(True, 'rule', 1, 0)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gpassk_opencompass.judges.batch import check_items, judge_stats
from gpassk_opencompass.judges.types import JudgeItem, JudgeReport, Verdict

#: What tells one recorded generation from another: its question, gold answer, language, text and recorded verdict.
RecordedKey = tuple[str, str, str, str, bool | None, str | None]


def recorded_key(item: JudgeItem) -> RecordedKey:
    """The key :class:`RecordedJudge` looks an item's verdict up by (the flow's own identity of a generation)."""
    return (item.question, item.reference, item.language, item.response, item.source_correct, item.source_extracted)


@dataclass(frozen=True)
class RecordedJudge:
    """A :class:`~gpassk_opencompass.judges.protocol.Judge` whose verdicts were recorded before (see the module).

    Args:
        recorded: the verdict of each generation, by :func:`recorded_key` of its item.
        recorded_identity: what the results of the judging recorded about its judge (``judge``,
            ``judge_model``, ``rule_checker``, ``judge_hosts``); written into the new results as it is.
        prompt_version: the judge prompt's version those results recorded (``None``: the rule judge).
    """

    recorded: Mapping[RecordedKey, Verdict]
    recorded_identity: Mapping[str, object] = field(default_factory=dict)
    prompt_version: str | None = None
    asks_model: bool = False
    cache_path: Path | None = None

    @property
    def name(self) -> str:
        return str(self.recorded_identity.get("judge") or "recorded")

    def identity(self) -> dict[str, object]:
        return {"judge_model": None, **self.recorded_identity, "judge": self.name}

    def with_cache(self, path: str | os.PathLike | None) -> RecordedJudge:
        """Itself: its verdicts are recorded already, there is nothing to cache."""
        return self

    def judge(
        self, items: Sequence[JudgeItem], *, progress: bool = True, repeats: Sequence[int] | None = None
    ) -> JudgeReport:
        """Each item's recorded verdict; every one is read back, none asked.

        Raises:
            ValueError: an item has no recorded verdict (the caller's bug: it records every generation it gives).
        """
        check_items(items)
        verdicts = []
        for position, item in enumerate(items):
            verdict = self.recorded.get(recorded_key(item))
            if verdict is None:
                raise ValueError(f"item {position} has no recorded verdict")
            verdicts.append(verdict)
        stats = judge_stats(self.name, verdicts, repeats, unique=len(items), cached=len(items))
        return JudgeReport(tuple(verdicts), stats, self.prompt_version)
