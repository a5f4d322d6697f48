"""The benchmarks of the LiveMathBench leaderboard, by canonical name.

The canonical name is what config manifests, result files and the leaderboard
use; it is never parsed back out of a dataset abbr.

>>> get_benchmark("AIME2025").name
'AIME2025'
>>> get_benchmark("AIME2052")
Traceback (most recent call last):
...
ValueError: unknown benchmark 'AIME2052'; did you mean 'AIME2025'? Known: LiveMathBench-202412, LiveMathBench-Hard-202412, LiveMathBench-202505, LiveMathBench-Hard-202505, MATH500-L5, AIME2024-45, AIME2025
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class Benchmark:
    """A leaderboard benchmark.

    Attributes:
        name: canonical name, as the published leaderboard titles it.
        published: whether the seed README publishes a table for it.
    """

    name: str
    published: bool


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("LiveMathBench-202412", published=True),
    Benchmark("LiveMathBench-Hard-202412", published=True),
    Benchmark("LiveMathBench-202505", published=False),
    Benchmark("LiveMathBench-Hard-202505", published=False),
    Benchmark("MATH500-L5", published=True),
    Benchmark("AIME2024-45", published=True),
    Benchmark("AIME2025", published=True),
)


def get_benchmark(name: str) -> Benchmark:
    """Look a benchmark up by canonical name; unknown names raise ``ValueError``."""
    for benchmark in BENCHMARKS:
        if benchmark.name == name:
            return benchmark
    names = [benchmark.name for benchmark in BENCHMARKS]
    close = difflib.get_close_matches(str(name), names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    raise ValueError(f"unknown benchmark {name!r}{hint} Known: {', '.join(names)}")
