"""Benchmark names: canonical in every file written, matched without regard to case and separators."""

from __future__ import annotations

import pytest

from gpassk_opencompass import score
from gpassk_opencompass.catalog import BENCHMARKS, get_benchmark
from gpassk_opencompass.errors import InputError


def _folded(name: str) -> str:  # independent of catalog._folded: the rule as the issue states it
    return "".join(c for c in name.lower() if c.isalnum())


def test_no_two_benchmarks_differ_only_in_case_or_separators():
    folded = [_folded(benchmark.name) for benchmark in BENCHMARKS]
    assert len(set(folded)) == len(folded)


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda benchmark: benchmark.name)
def test_every_spelling_finds_the_canonical_benchmark(benchmark):
    for spelling in (benchmark.name, benchmark.name.lower(), benchmark.name.upper(), benchmark.name.replace("-", "_")):
        assert get_benchmark(spelling) is benchmark


def test_an_unknown_name_is_offered_the_nearest_whatever_its_case():
    with pytest.raises(InputError, match=r"unknown benchmark 'olymmath-en-hrd'; did you mean 'OlymMATH-EN-Hard'\?"):
        get_benchmark("olymmath-en-hrd")


@pytest.mark.parametrize("spelling", ["aime2025", "AIME-2025", "aime_2025"])
def test_score_records_the_canonical_name_however_it_was_spelled(spelling):
    question = {"id": "q", "question": "", "answer": "1", "predictions": ["1", "2"]}
    results = score([question], k=[2], benchmark=spelling, cache=False, progress=False)
    assert results.benchmark == "AIME2025"
