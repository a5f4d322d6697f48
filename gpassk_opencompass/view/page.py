"""The page's files, shipped in the package at ``gpassk_opencompass/render/viewer/`` (the page's own code), and the
Content-Security-Policy both the server and the exported page hold to.

>>> sorted(ASSETS)
['index.html', 'viewer.css', 'viewer.js']
>>> "script-src 'self'" in CONTENT_SECURITY_POLICY and "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
True
"""

from __future__ import annotations

from importlib import resources

#: The page's files and their content types.
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "viewer.js": "text/javascript; charset=utf-8",
    "viewer.css": "text/css; charset=utf-8",
}
#: The policy of the page: its own scripts, styles and images only, nothing from elsewhere, no inline script.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
#: The package folder holding the page's files.
ASSET_PACKAGE, ASSET_FOLDER = "gpassk_opencompass.render", "viewer"


def asset(name: str) -> bytes | None:
    """The bytes of one of the page's files (:data:`ASSETS`), or ``None`` when it is not installed."""
    if name not in ASSETS:
        return None
    resource = resources.files(ASSET_PACKAGE).joinpath(ASSET_FOLDER).joinpath(name)
    try:
        return resource.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
