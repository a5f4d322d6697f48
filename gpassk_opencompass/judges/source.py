"""``--judge source``: the verdicts of the tool that made the samples, taken as they are.

Some tools judge their own samples (Qwen2.5-Math's ``score`` list, lm-eval's per-sample metrics,
inspect's scores); their readers (:mod:`~gpassk_opencompass.scoring.readers`) hand those verdicts on
per prediction (``source_verdicts``, reaching the judge as :attr:`JudgeItem.source_correct`).
:class:`SourceJudge` returns them unchanged: a sample without one is *unresolved*, with a reason
naming the source, never wrong. It is recorded as ``source:<format>`` (``source:qwen-math``), so
``gpassk agree`` of its results and ours on the same input is the judge audit across frameworks.

>>> from gpassk_opencompass.judges import JudgeItem
>>> judge = SourceJudge().for_format("qwen-math")
>>> [(v.correct, v.reason) for v in judge.judge([JudgeItem("q", "2", "... 2", source_correct=True),
...                                              JudgeItem("q", "2", "... 3")], progress=False).verdicts]
[(True, 'source:qwen-math said True'), (None, 'source:qwen-math has no verdict for this sample')]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpassk_opencompass.judges.batch import check_items, judge_stats
from gpassk_opencompass.judges.kinds import SOURCE
from gpassk_opencompass.judges.types import JudgeItem, JudgeReport, Verdict


@dataclass(frozen=True)
class SourceJudge:
    """A :class:`~gpassk_opencompass.judges.protocol.Judge` returning the source's own verdicts.

    Args:
        format: the input format the verdicts come from (:meth:`for_format`); recorded in the name.
    """

    format: str = ""
    asks_model: bool = False
    cache_path: Path | None = None

    @property
    def name(self) -> str:
        return f"{SOURCE}:{self.format}" if self.format else SOURCE

    def for_format(self, format: str) -> SourceJudge:
        """This judge, reading the verdicts of an input in ``format``."""
        return SourceJudge(format)

    def identity(self) -> dict[str, object]:
        return {"judge": self.name, "judge_model": None}

    def with_cache(self, path: str | os.PathLike | None) -> SourceJudge:
        """Itself: the verdicts are in the input, there is nothing to cache."""
        return self

    def judge(
        self, items: Sequence[JudgeItem], *, progress: bool = True, repeats: Sequence[int] | None = None
    ) -> JudgeReport:
        """Each item's source verdict (``None``: unresolved, saying so)."""
        check_items(items)
        verdicts = tuple(
            Verdict(
                item.source_correct,
                item.source_extracted,
                f"{self.name} said {item.source_correct}"
                if item.source_correct is not None
                else f"{self.name} has no verdict for this sample",
                SOURCE,
            )
            for item in items
        )
        return JudgeReport(verdicts, judge_stats(self.name, verdicts, repeats, unique=len(items), cached=0), None)
