"""Make the images of docs/viewer.md from a real run: NeMo-Skills' own output (tests/data/nemo-skills/math).

    PYTHONPATH=$PWD python docs/make_viewer_images.py

Scores the 20 questions x 3 seeds twice, with NeMo-Skills' own verdicts (``--judge source``) and with the rule
judge, exports both with ``gpassk view ... --export``, and photographs the page in headless Chromium from
``file://``: ``docs/img/viewer-runs.png`` (runs), ``viewer-map.png`` (the first run's stability map),
``viewer-question.png`` (its first unstable question, one generation opened) and ``viewer-compare.png``
(the two judges' runs compared).
"""

from __future__ import annotations

import base64
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cdp_browser import Chromium  # noqa: E402
from gpassk_opencompass.cli import main as gpassk  # noqa: E402
from gpassk_opencompass.files.writing import write_bytes_atomic  # noqa: E402

NEMO = ROOT / "tests" / "data" / "nemo-skills" / "math"


def wait_for(page, expression: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the page never showed {expression}")
        time.sleep(0.05)


def press(page, selector: str) -> None:
    """Click the first element matching ``selector`` (a DOM click: the screenshots move the viewport about)."""
    page.evaluate(f"document.querySelector({selector!r}).click()")


def photograph(page, path: Path, height: int | None = None) -> None:
    """The top of the page, ``height`` pixels of it (the whole page when None)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    full = page.evaluate("document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": width, "height": min(height or full, full), "scale": 1}
    data = page.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})["data"]
    write_bytes_atomic(path, base64.b64decode(data))
    print(path)


def main() -> None:
    images = ROOT / "docs" / "img"
    images.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source, rule = work / "nemo-skills-verdicts.json", work / "rule-judge.json"
        assert gpassk(["score", str(NEMO), "--k", "2", "--judge", "source", "--output", str(source)]) == 0
        assert gpassk(["score", str(NEMO), "--k", "2", "--output", str(rule)]) == 0
        site = work / "site"
        assert gpassk(["view", str(source), str(NEMO), str(rule), str(NEMO), "--export", str(site)]) == 0
        with Chromium() as browser:
            page = browser.new_page(1100, 800)
            page.navigate((site / "index.html").as_uri())
            wait_for(page, "document.querySelector('.runs-table a.run-link') !== null")
            photograph(page, images / "viewer-runs.png")
            press(page, ".runs-table a.run-link")
            wait_for(page, "document.querySelector('.qrow') !== null")
            photograph(page, images / "viewer-map.png")
            press(page, "input[name=unstable]")
            press(page, ".qrow")
            wait_for(page, "document.querySelector('.distribution') !== null")
            page.evaluate("document.querySelector('details.gen').open = true")
            wait_for(page, "document.querySelector('pre.generation') !== null")
            photograph(page, images / "viewer-question.png", 1400)
            page.evaluate("location.hash = '#/'")
            wait_for(page, "document.querySelector('a.compare-link') !== null")
            press(page, "a.compare-link")
            wait_for(page, "document.querySelector('.compare-table') !== null")
            press(page, "input[name=changed]")
            photograph(page, images / "viewer-compare.png")


if __name__ == "__main__":
    main()
