"""The benchmarks of the LiveMathBench leaderboard, by canonical name.

The canonical name is what config manifests, result files and the leaderboard
use; it is never parsed back out of a dataset abbr.  Each benchmark points at
its OpenCompass dataset config (a module of :mod:`gpassk_opencompass.plugin.configs`
defining ``<module>_datasets``), and records how many questions stand behind
the published leaderboard column, so a run on a different composition can be
flagged instead of silently compared.

>>> get_benchmark("AIME2025").name
'AIME2025'
>>> get_benchmark("MATH500-L5").config_variable
'math500_l5_datasets'
>>> get_benchmark("HMMT-Feb-2052")
Traceback (most recent call last):
...
gpassk_opencompass.errors.InputError: unknown benchmark 'HMMT-Feb-2052'; did you mean 'HMMT-Feb-2026'? known: ...
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpassk_opencompass.checks import unknown


@dataclass(frozen=True)
class Benchmark:
    """A leaderboard benchmark.

    Attributes:
        name: canonical name, as the published leaderboard titles it.
        published: whether the GPassK README (the published leaderboard) has a table for it.
        config: module holding its OpenCompass dataset config, e.g.
            ``gpassk_opencompass.plugin.configs.aime2025``.
        questions: number of questions behind the published column (from
            the paper's appendix F, cross-checked against the published greedy
            accuracies), or ``None`` when nothing is published.
    """

    name: str
    published: bool
    config: str
    questions: int | None

    @property
    def config_variable(self) -> str:
        """Name of the dataset list the config module defines."""
        return f"{self.config.rpartition('.')[2]}_datasets"


_CONFIGS = "gpassk_opencompass.plugin.configs"

BENCHMARKS: tuple[Benchmark, ...] = (
    # 119 questions x {cn, en}: CNMO 18, CCEE 44, AMC 46, WLPMC 11 (paper, table 4).
    Benchmark("LiveMathBench-202412", True, f"{_CONFIGS}.livemathbench_202412", 238),
    # 21 English + 24 Chinese questions (paper, appendix F.1.5).
    Benchmark("LiveMathBench-Hard-202412", True, f"{_CONFIGS}.livemathbench_hard_202412", 45),
    Benchmark("LiveMathBench-202505", False, f"{_CONFIGS}.livemathbench_202505", None),
    Benchmark("LiveMathBench-Hard-202505", False, f"{_CONFIGS}.livemathbench_hard_202505", None),
    # Every level-5 question of MATH500 (paper, appendix F.2).
    Benchmark("MATH500-L5", True, f"{_CONFIGS}.math500_l5", 134),
    # 45 questions; their source is not documented (see docs/generator.md, "Benchmark composition").
    Benchmark("AIME2024-45", True, f"{_CONFIGS}.aime2024_45", 45),
    # AIME 2025 Part I only (paper, appendix F.4).
    Benchmark("AIME2025", True, f"{_CONFIGS}.aime2025", 15),
    # The newest sets (docs/data.md, "The newest competition sets"): no published G-Pass figures.
    Benchmark("AIME2026", False, f"{_CONFIGS}.aime2026", None),
    Benchmark("HMMT-Feb-2025", False, f"{_CONFIGS}.hmmt_feb_2025", None),
    Benchmark("HMMT-Feb-2026", False, f"{_CONFIGS}.hmmt_feb_2026", None),
    Benchmark("HMMT-Nov-2025", False, f"{_CONFIGS}.hmmt_nov_2025", None),
    Benchmark("BRUMO2025", False, f"{_CONFIGS}.brumo2025", None),
    Benchmark("CMIMC2025", False, f"{_CONFIGS}.cmimc2025", None),
    Benchmark("BeyondAIME", False, f"{_CONFIGS}.beyondaime", None),
    Benchmark("OlymMATH-EN-Easy", False, f"{_CONFIGS}.olymmath_en_easy", None),
    Benchmark("OlymMATH-EN-Hard", False, f"{_CONFIGS}.olymmath_en_hard", None),
    Benchmark("OlymMATH-ZH-Easy", False, f"{_CONFIGS}.olymmath_zh_easy", None),
    Benchmark("OlymMATH-ZH-Hard", False, f"{_CONFIGS}.olymmath_zh_hard", None),
)


_SEPARATORS = frozenset("-_ .")


def _folded(name: object) -> str:
    """A name without regard to case and separators: ``'olymmath_en-hard'`` -> ``'olymmathenhard'``."""
    return "".join(character for character in str(name).casefold() if character not in _SEPARATORS)


def get_benchmark(name: str) -> Benchmark:
    """Look a benchmark up by name, without regard to case and separators where that names one benchmark.

    An unknown name is an :class:`InputError` with a did-you-mean.

    >>> get_benchmark("olymmath_en-hard").name
    'OlymMATH-EN-Hard'
    """
    canonical = benchmark_name(name)
    return next(benchmark for benchmark in BENCHMARKS if benchmark.name == canonical)


def benchmark_name(name: str, others: Iterable[str] = ()) -> str:
    """The name ``name`` means among the catalog's and ``others`` (names runs record that the catalog lacks).

    The one matching rule of every benchmark name a user gives: the exact name, else the one name equal
    without regard to case and separators; else an :class:`InputError` offering the nearest.

    >>> benchmark_name("aime-2025"), benchmark_name("my_bench", others=["MyBench"])
    ('AIME2025', 'MyBench')
    >>> benchmark_name("AIME-2O25")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown benchmark 'AIME-2O25'; did you mean 'AIME2025'? known: ...
    """
    names = list(dict.fromkeys([*(benchmark.name for benchmark in BENCHMARKS), *others]))
    if name in names:
        return name
    folded = [known for known in names if _folded(known) == _folded(name)]
    if len(folded) == 1:
        return folded[0]
    raise unknown("benchmark", name, folded or names)


#: Where the differences between a benchmark's files and its published column are explained.
COMPOSITION_NOTE = "see 'Benchmark composition' in docs/generator.md"


def composition_warning(found: int, expected: int | None, what: str = "questions") -> str | None:
    """The one sentence saying a run (or a data file) does not hold the questions of the published column,
    ``None`` when it does or nothing is published: ``gpassk data check`` and the leaderboard both say it.

    >>> composition_warning(5, get_benchmark("AIME2025").questions)
    "5 questions, the published column has 15; results will not compare one to one (see 'Benchmark composition' in docs/generator.md)"
    >>> composition_warning(15, 15), composition_warning(5, None)
    (None, None)
    """
    if expected is None or found == expected:
        return None
    return (
        f"{found} {what}, the published column has {expected}; results will not compare one to one ({COMPOSITION_NOTE})"
    )
