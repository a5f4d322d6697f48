"""Reading ``gpassk view``'s page in a real Chromium (tests/cdp_browser.py): the map as drawn, waiting, controls."""

from __future__ import annotations

import json
import time

#: The map as drawn: per row its id, c/n, mark, G-Pass and the colour of each generation's cell, read from the
#: pixels of its canvas (the centre of cell j sits at x = 8 j + 3; past the row's last cell, the canvas is clear).
MAP_JS = """
[...document.querySelectorAll('.map > *')].map(node => {
  if (node.classList.contains('tau-line')) return 'τ-line';
  if (!node.classList.contains('qrow')) return null;
  const canvas = node.querySelector('canvas.cells');
  const pixels = canvas.getContext('2d').getImageData(0, 6, canvas.width, 1).data;
  const cells = [];
  for (let x = 3; x < canvas.width && pixels[4 * x + 3]; x += 8) {
    cells.push(`rgb(${pixels[4 * x]}, ${pixels[4 * x + 1]}, ${pixels[4 * x + 2]})`);
  }
  return {id: node.querySelector('.qid').textContent, cn: node.querySelector('.cn').textContent,
          mark: node.querySelector('.mark').textContent, gp: node.querySelector('.gp').textContent,
          cells, width: canvas.width, href: node.getAttribute('href')};
}).filter(Boolean)
"""

#: The verdicts' colours (viewer.css: Okabe and Ito's colour-blind-safe palette).
PALETTE = {"R": "rgb(0, 158, 115)", "W": "rgb(230, 159, 0)", "U": "rgb(204, 121, 167)", "C": "rgb(34, 34, 34)"}


def wait_for(page, expression: str, timeout: float = 10.0):
    """The value of ``expression`` once it is truthy (polled), or a failure after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{expression} stayed falsy for {timeout} s")
        time.sleep(0.03)


def go(page, route: str) -> None:
    """Follow a link inside the page (a hash change: no new document, so no load event)."""
    page.evaluate(f"location.hash = {json.dumps(route)}")


def choose(page, selector: str, value: str, event: str = "change") -> None:
    """Set a control's value as a user would, and tell the page (a select's change, a search box's input)."""
    page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = {json.dumps(value)};"
        f" e.dispatchEvent(new Event({json.dumps(event)})); }})()"
    )


def count_text(page) -> str:
    return page.evaluate("document.querySelector('.count').textContent")


def data_urls(page) -> list[str]:
    return [url.split("/data/", 1)[1] for url in page.requested_urls() if "/data/" in url]
