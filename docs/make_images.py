"""Make the images of docs/leaderboard-page.md from the test fixtures (synthetic runs).

    PYTHONPATH=$PWD python docs/make_images.py

Writes ``docs/img/leaderboard.png`` (the HTML page in headless Chromium),
``docs/img/gpass_vs_tau.png`` and ``docs/img/greedy_vs_mgpass.png`` (the plots).
The runs are ``tests/leaderboard_workdirs.standard_grid()``: three synthetic models on
two benchmarks, laid out as OpenCompass writes them.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cdp_browser import Chromium  # noqa: E402
from gpassk_opencompass.files.writing import write_bytes_atomic, write_text_atomic  # noqa: E402
from gpassk_opencompass.leaderboard import build_leaderboard, collect_runs, render_html  # noqa: E402
from gpassk_opencompass.render.plots import greedy_vs_mg_figure, png_bytes, threshold_figure  # noqa: E402
from leaderboard_workdirs import standard_grid, write_run  # noqa: E402


def main() -> None:
    images = ROOT / "docs" / "img"
    images.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        outputs = Path(folder) / "outputs"
        write_run(outputs, "20250213_101500", standard_grid())
        collection = collect_runs([outputs])
        board = build_leaderboard(collection.runs, k=16, notices=collection.notices)
        write_bytes_atomic(images / "gpass_vs_tau.png", png_bytes(threshold_figure(board, board.tables[0].benchmark)))
        write_bytes_atomic(images / "greedy_vs_mgpass.png", png_bytes(greedy_vs_mg_figure(board)))
        page_path = Path(folder) / "board.html"
        write_text_atomic(page_path, render_html(board))
        with Chromium() as browser:
            page = browser.new_page(1200, 900)
            page.navigate(page_path.as_uri())
            page.evaluate(
                "document.querySelector('tbody tr[data-model=\"middle-7b\"]')"
                ".dispatchEvent(new MouseEvent('mouseenter'))"
            )  # show the hover highlighting
            page.screenshot(Path(folder) / "leaderboard.png")
            write_bytes_atomic(images / "leaderboard.png", (Path(folder) / "leaderboard.png").read_bytes())
    for name in ("leaderboard.png", "gpass_vs_tau.png", "greedy_vs_mgpass.png"):
        print(images / name)


if __name__ == "__main__":
    main()
