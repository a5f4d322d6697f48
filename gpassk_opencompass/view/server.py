"""``gpassk view``'s local server: the page's files and the data documents, read-only, to this machine only.

Only ``GET`` and ``HEAD`` (anything else: 405) of ``/`` (or ``/index.html``), ``/viewer.js``, ``/viewer.css`` and
``/data/KEY.js`` with KEY in the grammar of :mod:`~gpassk_opencompass.view.keys`; every other path is 404 before
anything is looked up (a ``%``, ``..`` or any name outside the grammar never reaches a file: the server opens no
path a request names, only the files indexed at start-up). Every answer carries the Content-Security-Policy,
``X-Content-Type-Options: nosniff`` and ``Cache-Control: no-store``; a malformed request is 400; a request whose
``Host`` is not this machine's (DNS rebinding) is 403 while bound to the loopback; a failure is 500 with one line,
its traceback logged once, never sent.
"""

from __future__ import annotations

import ipaddress
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO

from gpassk_opencompass.console import inert
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.log import logger
from gpassk_opencompass.view.page import ASSETS, CONTENT_SECURITY_POLICY, asset
from gpassk_opencompass.view.viewer import Viewer

#: Where the server listens unless told otherwise.
DEFAULT_HOST = "127.0.0.1"
#: Seconds a connection may stay idle before it is closed.
TIMEOUT = 30
_DATA, _SUFFIX = "/data/", ".js"
_LOCAL_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ViewerServer(ThreadingHTTPServer):
    """A threading HTTP server over one :class:`~gpassk_opencompass.view.viewer.Viewer`."""

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, viewer: Viewer, host: str = DEFAULT_HOST, port: int = 0) -> None:
        self.viewer = viewer
        self.loopback = is_loopback(host)
        try:
            super().__init__((host, port), ViewerHandler)
        except OSError as error:
            raise InputError(f"--host {host} --port {port}: cannot listen there ({error.strerror})") from None

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


class ViewerHandler(BaseHTTPRequestHandler):
    """One request (see the module docstring)."""

    server: ViewerServer
    server_version = "gpassk-view"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    timeout = TIMEOUT

    def version_string(self) -> str:
        return self.server_version

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def __getattr__(self, name: str):
        if name.startswith("do_"):  # every other method: refused, never dispatched anywhere
            return self._not_allowed
        raise AttributeError(name)

    def _not_allowed(self) -> None:
        self._send(
            HTTPStatus.METHOD_NOT_ALLOWED,
            b"only GET and HEAD\n",
            "text/plain; charset=utf-8",
            True,
            {"Allow": "GET, HEAD"},
        )

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A refusal as one plain line with the same headers as every answer (never the request echoed back)."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self.close_connection = True
        self._send(code, f"{code} {phrase}\n".encode(), "text/plain; charset=utf-8", self.command != "HEAD")

    def log_message(self, format: str, *args: object) -> None:
        logger.debug("gpassk view: " + format % args)

    def _answer(self, send_body: bool) -> None:
        if self.server.loopback and not self._local_host():
            self.send_error(HTTPStatus.FORBIDDEN)
            return
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        try:
            found = self._resolve(path)
        except InputError as error:  # a file changed since start-up: said, not a bug
            logger.warning(str(error))
            self._send(HTTPStatus.CONFLICT, f"{error}\n".encode(), "text/plain; charset=utf-8", send_body)
            return
        except Exception:  # noqa: BLE001 - a bug: its traceback in the log once, one line to the client
            logger.exception(f"gpassk view: failed to answer {path[:200]!r}")
            self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR)
            return
        if found is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        body, content_type = found
        self._send(HTTPStatus.OK, body, content_type, send_body)

    def _local_host(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        if not host:  # an HTTP/1.0 client without a Host header: no browser, no rebinding
            return True
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in _LOCAL_NAMES or is_loopback(name)

    def _resolve(self, path: str) -> tuple[bytes, str] | None:
        """The body and content type of a path, or ``None`` (404)."""
        if path in ("/", "/index.html"):
            name = "index.html"
        else:
            name = path[1:]
        if name in ASSETS:
            body = asset(name)
            return None if body is None else (body, ASSETS[name])
        if path.startswith(_DATA) and path.endswith(_SUFFIX):
            script = self.server.viewer.script(path[len(_DATA) : -len(_SUFFIX)])
            return None if script is None else (script, ASSETS["viewer.js"])
        return None

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        send_body: bool,
        extra: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        headers = {
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
            "Content-Security-Policy": CONTENT_SECURITY_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
            "Cross-Origin-Resource-Policy": "same-origin",
            "X-Frame-Options": "DENY",
            **(extra or {}),
        }
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)


def serve(viewer: Viewer, host: str = DEFAULT_HOST, port: int = 0, out: TextIO | None = None) -> None:
    """Serve ``viewer`` until interrupted (Ctrl-C, or SIGTERM under :func:`~gpassk_opencompass.cli.stop_on_signals`);
    the first line printed is the URL."""
    out = out or sys.stdout
    server = ViewerServer(viewer, host, port)
    try:
        out.write(inert(f"{server.url}\n"))
        out.flush()
        if not server.loopback:
            sys.stderr.write(
                inert(
                    f"warning: listening on {host}: anyone who can reach this machine's port "
                    f"{server.server_address[1]} can read these runs\n"
                )
            )
            sys.stderr.flush()
        server.serve_forever(poll_interval=0.25)
    finally:
        server.server_close()
