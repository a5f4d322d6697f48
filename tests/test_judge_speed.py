"""The LLM judge's client does the same work per request at any concurrency.

Its throughput is bound by the client's CPU (``benchmarks/bench_judge.py``:
with a 50 ms judge, 64 requests in flight would allow 1,280 judgments/s). An
HTTP connection pool whose work per request grows with the connections it
holds -- httpx's probes the socket of every idle connection at each request and
each reply -- makes the judge slower the more concurrency it is given. No
timing here: the work is counted as the Python calls the judging thread makes,
which do not depend on how loaded the machine is.
"""

import sys

from gpassk_opencompass.judges import JudgeItem, JudgeSettings, judge_items
from loopback_judge import exact_match_judge

JUDGMENTS = 160


def calls_per_judgment(server, concurrency: int, judgments: int = JUDGMENTS) -> float:
    """Python calls made by the judging thread per judgment, for ``judgments`` distinct answers."""
    items = [
        JudgeItem(f"Problem {i}: find x.", str(i), rf"so \boxed{{{i if i % 3 else i + 1}}}") for i in range(judgments)
    ]
    settings = JudgeSettings(kind="llm", urls=(server.url,), model="loopback-model", concurrency=concurrency)
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"

    sys.setprofile(count)
    try:
        report = judge_items(items, settings, progress=False)
    finally:
        sys.setprofile(None)
    assert [verdict.correct for verdict in report.verdicts] == [i % 3 != 0 for i in range(judgments)]
    return calls / judgments


def test_the_work_per_judgment_does_not_grow_with_the_concurrency(loopback_openai):
    server = loopback_openai(exact_match_judge, latency=0.05)
    calls_per_judgment(server, concurrency=8, judgments=40)  # imports and first connections out of the count
    few = calls_per_judgment(server, concurrency=4)
    many = calls_per_judgment(server, concurrency=64)
    # httpx's pool under the transport: 4,452 calls per judgment at 4, 8,068 at 64; aiohttp's: 1,771 and 1,820
    assert many < 1.25 * few, (few, many)
    assert server.max_in_flight > 8  # more connections at once than the runs before could open
