"""``gpassk view`` end to end: the real command's export opened from ``file://`` and its real server, in a real
headless Chromium, on a ``gpassk score`` output with its input and on a real OpenCompass run (sampled and greedy).

What each view must show comes from how the inputs were made (which generation is right, what each says), never
from the documents the command writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cdp_browser import Chromium, chromium_path
from gpassk_opencompass.cli import main
from viewer_page import MAP_JS, PALETTE, choose, count_text, go, wait_for

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(chromium_path() is None, reason="needs Debian's chromium (CI installs it)"),
]

#: Per question: its gold answer and its generations in order, R right, W wrong ("-1"), C cut mid-sentence.
PATTERNS = {
    "p0": ("5", "RRRRRR"),
    "p1": ("12", "RWRWRW"),
    "p2": ("7", "WWWWWW"),
    "p3": ("9", "RRCRRW"),
    "p4": ("3", "WRRRRR"),
}


def prediction(gold: str, verdict: str, j: int) -> str:
    if verdict == "R":
        return f"Attempt {j}: adding up, the answer is $\\boxed{{{gold}}}$."
    if verdict == "W":
        return f"Attempt {j}: <script>window.__pwned = 1</script> so the answer is $\\boxed{{-1}}$."
    return f"Attempt {j}: let me think. First we add the two numbers and carry the"


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """``gpassk score`` on a generations file made here; returns (results, generations)."""
    folder = tmp_path_factory.mktemp("scored")
    generations = folder / "generations.jsonl"
    lines = [
        {
            "id": qid,
            "question": f"Question {qid}: what is the number {gold}?",
            "answer": gold,
            "predictions": [prediction(gold, verdict, j) for j, verdict in enumerate(cells)],
        }
        for qid, (gold, cells) in PATTERNS.items()
    ]
    generations.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    results = folder / "scores.json"
    assert main(["score", str(generations), "--k", "2", "4", "--output", str(results)]) == 0
    return results, generations


@pytest.fixture(scope="module")
def browser():
    with Chromium() as chromium:
        yield chromium


def check_score_run(browser, page, url: str) -> None:
    """The views of the scored run at ``url`` (the export's index.html or the server's root)."""
    page.navigate(url)
    wait_for(page, "!!document.querySelector('.runs-table a.run-link')")
    assert page.evaluate("document.querySelectorAll('.runs-table tbody tr').length") == 1
    row = page.evaluate("[...document.querySelector('.runs-table tbody tr').children].map(td => td.textContent)")
    assert row[2] == "scored" and row[4:6] == ["6", "2, 4"]
    assert row[7] == "≥ 1 of 30 (from the text)"  # one generation stops mid-sentence; no finish_reason given
    page.click(".runs-table a.run-link")
    wait_for(page, f"document.querySelectorAll('.qrow').length === {len(PATTERNS)}")

    # the map: one row per question, its cells in the input's order, coloured by what each generation is
    choose(page, "select.sort", "i")
    rows = page.evaluate(MAP_JS)
    assert [row["id"] for row in rows] == list(PATTERNS)
    assert [row["cells"] for row in rows] == [[PALETTE[ch] for ch in cells] for _, cells in PATTERNS.values()]
    assert [row["cn"] for row in rows] == [f"{cells.count('R')}/6" for _, cells in PATTERNS.values()]
    page.click("input[name=unstable]")
    unstable = [qid for qid, (_, cells) in PATTERNS.items() if 0 < cells.count("R") < 6]
    assert count_text(page) == f"{len(unstable)} of {len(PATTERNS)} questions"
    page.click("input[name=cut]")
    assert [row["id"] for row in page.evaluate(MAP_JS)] == ["p3"]

    # a question: its answers, and a generation's text only once opened
    page.click(".qrow")
    wait_for(page, "!!document.querySelector('.distribution')")
    assert page.evaluate("document.querySelector('.distribution').textContent") == "9 × 4, -1 × 1, no answer × 1 (cut)"
    assert (
        page.evaluate("document.querySelector('pre.question-text').textContent") == "Question p3: what is the number 9?"
    )
    assert not [url for url in page.requested_urls() if "/g/" in url]
    page.click('details.gen[data-j="5"] summary')
    text = wait_for(page, "document.querySelector('details.gen[data-j=\"5\"] pre.generation')?.textContent")
    assert text == prediction("9", "W", 5)
    assert [url.rsplit("/data/", 1)[1] for url in page.requested_urls() if "/g/" in url] == [
        url.rsplit("/data/", 1)[1].replace("/q/3.js", "/q/3/g/5.js")
        for url in page.requested_urls()
        if url.endswith("/q/3.js")
    ]
    assert page.evaluate("window.__pwned") is None
    assert page.console_errors() == []


def test_an_export_of_a_scored_run_with_its_input(browser, scored, tmp_path):
    results, generations = scored
    site = tmp_path / "site"
    assert main(["view", str(results), str(generations), "--export", str(site)]) == 0
    page = browser.new_page(1200, 900)
    check_score_run(browser, page, (site / "index.html").as_uri())
    assert all(url.startswith(site.as_uri()) for url in page.requested_urls())


def test_a_results_file_alone_shows_everything_but_the_texts(browser, scored, tmp_path):
    results, _ = scored
    site = tmp_path / "site"
    assert main(["view", str(results), "--export", str(site)]) == 0
    page = browser.new_page(1200, 900)
    page.navigate((site / "index.html").as_uri())
    run = wait_for(page, "document.querySelector('.runs-table a.run-link')?.getAttribute('href')")
    go(page, f"{run}/q/3")
    wait_for(page, "!!document.querySelector('.distribution')")
    # without the texts, which generation was cut is not known (the results count cut generations per question)
    assert page.evaluate("document.querySelector('.distribution').textContent") == "9 × 4, -1 × 1, no answer × 1"
    page.click('details.gen[data-j="5"] summary')
    note = wait_for(page, "document.querySelector('details.gen[data-j=\"5\"] .gen-body')?.textContent")
    assert note == "No text: the run was given without its generations."
    assert not [url for url in page.requested_urls() if "/g/" in url]
    assert page.console_errors() == []


def test_the_server_of_a_scored_run_with_its_input(browser, scored):
    results, generations = scored
    process = subprocess.Popen(
        [sys.executable, "-m", "gpassk_opencompass.cli", "view", str(results), str(generations), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        page = browser.new_page(1200, 900)
        check_score_run(browser, page, url)
        assert all(request.startswith(url) for request in page.requested_urls())
        policies = {
            event["params"]["response"]["headers"].get("Content-Security-Policy")
            for event in browser.events
            if event["method"] == "Network.responseReceived" and event["params"]["response"]["url"].startswith(url)
        }
        assert len(policies) == 1 and "script-src 'self'" in policies.pop()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_an_opencompass_run_sampled_and_greedy(browser, tiny_opencompass_run, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tiny_opencompass_run.data_root))
    site = tmp_path / "site"
    assert main(["view", str(tiny_opencompass_run.workdir), "--export", str(site)]) == 0
    page = browser.new_page(1200, 900)
    page.navigate((site / "index.html").as_uri())
    wait_for(page, "!!document.querySelector('.runs-table a.run-link')")
    runs = page.evaluate(
        "[...document.querySelectorAll('.runs-table tbody tr')].map(tr => ({id: tr.dataset.run,"
        " cells: [...tr.children].map(td => td.textContent)}))"
    )
    kinds = sorted(run["cells"][2] for run in runs)
    assert kinds.count("sampled") == 4 and kinds.count("greedy") == 2  # 2 models x 2 sampled sets, 2 greedy
    # the leaderboard of the runs: each model's row opens its sampled run, and its greedy run where there is one
    links = page.evaluate(
        "[...document.querySelectorAll('table.leaderboard tbody tr')].map(tr => [tr.querySelector('a.run-link')"
        ".textContent, tr.querySelector('a.run-link').getAttribute('href'),"
        " tr.querySelector('a.greedy-link')?.getAttribute('href') ?? null])"
    )
    kind = {f"#/run/{run['id']}": (run["cells"][0], run["cells"][2]) for run in runs}
    assert sorted(label for label, _, _ in links) == ["strong", "strong", "weak", "weak"]
    for label, sampled, greedy in links:
        assert kind[sampled][1] == "sampled" and kind[sampled][0].startswith(label)
        assert greedy is None or (kind[greedy][1] == "greedy" and kind[greedy][0].startswith(label))
    assert sum(greedy is not None for _, _, greedy in links) == 2
    right = {q.question[:40]: q.correct for q in tiny_opencompass_run.questions}
    for run in runs:
        label = run["cells"][0]
        model = "strong" if "strong" in label else "weak"
        go(page, f"#/run/{run['id']}")
        wait_for(page, f"document.querySelector('.qrow')?.getAttribute('href').startsWith('#/run/{run['id']}/')")
        assert page.evaluate("document.querySelectorAll('.qrow').length") == len(right)
        choose(page, "select.sort", "i")
        texts = page.evaluate("[...document.querySelectorAll('.qrow .snip')].map(s => s.textContent)")
        rows = page.evaluate(MAP_JS)
        for text, row in zip(texts, rows):
            (key,) = [key for key in right if key in text]
            correct = right[key][model]
            if run["cells"][2] == "greedy":  # the scripted greedy answer is right iff the model is ever right
                assert row["cells"] == [PALETTE["R" if correct else "W"]], (label, text)
            else:
                assert row["cells"].count(PALETTE["R"]) == correct and len(row["cells"]) == 8, (label, text)
    assert page.console_errors() == []
