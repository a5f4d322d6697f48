"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol.

It stands in for a vLLM / lmdeploy / SGLang endpoint in tests and benchmarks:
everything on our side of the socket (the ``openai`` client, OpenCompass's
model classes, retries, timeouts) runs for real.

The behaviour is a *responder*: a function called (from a server thread) with
the parsed request body that returns what to send back:

* a ``str``: a normal completion whose message content is that string;
* a :class:`Fault`: an HTTP error status (with optional ``Retry-After``),
  a dropped connection, or a reply delayed by ``delay`` seconds;
* a :class:`Reply`: content plus an extra ``delay`` and a ``finish_reason``;
* a :class:`Drip`: a reply whose first bytes come one at a time, slowly;
* a :class:`Raw`: exact bytes and headers (a huge body, a gzip bomb).

:class:`Overloaded` wraps a responder in the faults of an overloaded server
(seeded): 15% HTTP 500, 10% 429, 5% replies without a verdict, 3% dropped
connections.

Usage::

    with LoopbackOpenAI(lambda body: "\\\\boxed{yes}") as server:
        client = openai.OpenAI(base_url=server.url, api_key="EMPTY")

The server records every request body it parsed in ``server.requests``.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    """A successful completion, optionally sent after ``delay`` seconds.

    ``reasoning`` is sent as the message's ``reasoning_content``, where vLLM's reasoning parser puts what the
    model wrote before it closed its thinking (``content`` may then be ``None``).
    """

    content: str | None
    delay: float = 0.0
    finish_reason: str = "stop"
    reasoning: str | None = None


@dataclass(frozen=True)
class Drip:
    """A verdict reply whose first ``count`` bytes are sent one every ``interval`` seconds (blank padding).

    The server records in ``server.drips`` how many padding bytes went out and
    whether the whole reply did (``False``: the client hung up first).
    """

    content: str
    count: int = 30
    interval: float = 0.25


@dataclass(frozen=True)
class Raw:
    """Exactly these bytes as a 200 reply, with these extra headers (e.g. ``Content-Encoding: gzip``)."""

    data: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Fault:
    """A failure to inject.

    Attributes:
        status: HTTP status to answer with (e.g. 429, 500); ignored when
            ``drop`` is set.
        retry_after: value of the ``Retry-After`` header, if any.
        drop: close the connection without answering.
        delay: seconds to wait before failing (to provoke client timeouts).
        body: send this raw text as the body instead of a JSON error (with
            ``status``, which may be 200: a garbage reply).
    """

    status: int = 500
    retry_after: float | None = None
    drop: bool = False
    delay: float = 0.0
    body: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


Response = str | Reply | Fault | Drip | Raw
Responder = Callable[[dict], Response]


def last_user_message(body: dict) -> str:
    """The text of the last ``user`` message of a chat-completions request."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content", "")
            if isinstance(content, list):  # content parts
                return "".join(part.get("text", "") for part in content)
            return content
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    # TCP_NODELAY, as uvicorn (vLLM, SGLang) sets it: without it the body,
    # written after the headers, waits for the client's delayed ACK (~40 ms).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def _send_json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    @property
    def route(self) -> str:
        """The request's path without its query (the query is recorded in ``server.queries``)."""
        return self.path.split("?", 1)[0].rstrip("/")

    def do_GET(self):
        self.server.queries.append(self.path.partition("?")[2])
        if self.route.endswith("/models"):
            self._send_json(
                200,
                {"object": "list", "data": [{"id": self.server.model_name, "object": "model", "owned_by": "loopback"}]},
            )
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length)
        self.server.queries.append(self.path.partition("?")[2])
        if not self.route.endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "body is not JSON"}})
            return
        server = self.server
        with server.lock:
            server.requests.append(body)
            server.headers_seen.append(dict(self.headers))
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
        try:
            response = server.responder(body)
            if server.latency:
                time.sleep(server.latency)
            self._respond(body, response)
        finally:
            with server.lock:
                server.in_flight -= 1

    def _respond(self, body: dict, response: Response) -> None:
        if isinstance(response, Fault):
            if response.delay:
                time.sleep(response.delay)
            if response.drop:
                self.close_connection = True
                self.connection.shutdown(2)  # RST/FIN without an HTTP answer
                return
            headers = dict(response.headers)
            if response.retry_after is not None:
                headers["Retry-After"] = str(response.retry_after)
            if response.body is not None:
                self._send_raw(response.status, response.body.encode(), headers)
                return
            self._send_json(
                response.status,
                {"error": {"message": f"injected fault {response.status}", "type": "loopback"}},
                headers,
            )
            return
        if isinstance(response, Raw):
            self._send_raw(200, response.data, dict(response.headers))
            return
        if isinstance(response, Drip):
            self._drip(self._completion(body, response.content, "stop"), response)
            return
        finish_reason, reasoning = "stop", None
        content: str | None
        if isinstance(response, Reply):
            if response.delay:
                time.sleep(response.delay)
            content, finish_reason, reasoning = response.content, response.finish_reason, response.reasoning
        else:
            content = response
        self._send_json(200, self._completion(body, content, finish_reason, reasoning))

    def _drip(self, payload: dict, drip: Drip) -> None:
        data = b" " * drip.count + json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        sent, whole = 0, False
        try:
            self.wfile.flush()
            for sent in range(1, drip.count + 1):  # noqa: B007 - read after the loop: how far the drip got
                time.sleep(drip.interval)
                self.wfile.write(b" ")
                self.wfile.flush()
            self.wfile.write(data[drip.count :])
            self.wfile.flush()
            whole = True
        except OSError:  # the client hung up
            self.close_connection = True
        with self.server.drip_done:
            self.server.drips.append((sent, whole))
            self.server.drip_done.notify_all()

    def _completion(self, body: dict, content: str | None, finish_reason: str, reasoning: str | None = None) -> dict:
        n = int(body.get("n", 1) or 1)
        message = {"role": "assistant", "content": content}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        return {
            "id": f"chatcmpl-loopback-{len(self.server.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.server.model_name),
            "choices": [
                {
                    "index": i,
                    "message": message,
                    "finish_reason": finish_reason,
                }
                for i in range(n)
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


class _Server(ThreadingHTTPServer):
    # Class-level so that listen() sees it: the backlog is fixed when the
    # constructor binds. With the default of 5, a client opening 32
    # connections at once gets some of them reset.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that timed out and hung up is expected; anything else is printed.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class LoopbackOpenAI:
    """An OpenAI-compatible chat-completions server on 127.0.0.1.

    Args:
        responder: maps a request body to a :data:`Response`.
        latency: seconds every request takes before answering (a model's
            think time), on top of any per-reply delay.
        model_name: the id reported by ``GET /v1/models``.
    """

    def __init__(self, responder: Responder, latency: float = 0.0, model_name: str = "loopback-model"):
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.responder = responder
        self._httpd.latency = latency
        self._httpd.model_name = model_name
        self._httpd.lock = threading.Lock()
        self._httpd.requests = []
        self._httpd.queries = []
        self._httpd.headers_seen = []
        self._httpd.drips = []
        self._httpd.drip_done = threading.Condition()
        self._httpd.in_flight = 0
        self._httpd.max_in_flight = 0
        # A short poll interval makes stop() (shutdown) quick: tests start many servers.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL to give an OpenAI client (ends in ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict]:
        return self._httpd.requests

    @property
    def queries(self) -> list[str]:
        """The query string of every request, in order (empty when the URL had none)."""
        return self._httpd.queries

    @property
    def headers_seen(self) -> list[dict]:
        return self._httpd.headers_seen

    @property
    def drips(self) -> list[tuple[int, bool]]:
        """Per :class:`Drip` reply: (padding bytes sent, whether the whole reply went out)."""
        return self._httpd.drips

    def wait_for_drips(self, count: int, timeout: float = 60.0) -> list[tuple[int, bool]]:
        """:attr:`drips` once ``count`` drip replies have ended (sent whole or hung up on)."""
        with self._httpd.drip_done:
            self._httpd.drip_done.wait_for(lambda: len(self._httpd.drips) >= count, timeout)
        return self.drips

    @property
    def max_in_flight(self) -> int:
        return self._httpd.max_in_flight

    def start(self) -> LoopbackOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LoopbackOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Overloaded:
    """An overloaded server in front of ``responder``: seeded faults on every attempt, none capped.

    Each request about a prompt draws (from ``seed``, the prompt and its
    attempt number) 15% HTTP 500, 10% HTTP 429, 5% a reply without a verdict,
    3% a dropped connection; otherwise ``responder`` answers.  ``injected``
    counts each kind.
    """

    MIX = (("500", 0.15), ("429", 0.10), ("no verdict", 0.05), ("drop", 0.03))

    def __init__(self, responder: Responder, seed: int) -> None:
        self.responder = responder
        self.seed = seed
        self.attempts: dict[str, int] = {}
        self.injected = {name: 0 for name, _ in self.MIX}
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Response:
        prompt = last_user_message(body)
        with self.lock:
            attempt = self.attempts[prompt] = self.attempts.get(prompt, 0) + 1
        draw = random.Random(f"{self.seed}:{prompt}:{attempt}").random()
        for name, share in self.MIX:
            if draw < share:
                with self.lock:
                    self.injected[name] += 1
                return {
                    "500": Fault(status=500),
                    "429": Fault(status=429),
                    "drop": Fault(drop=True),
                    "no verdict": "I believe they agree.",
                }[name]
            draw -= share
        return self.responder(body)


def main() -> None:  # pragma: no cover - manual use: python tests/loopback_openai.py
    """Serve a fixed reply so OpenCompass configs can be tried by hand."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reply", default="The answer is \\boxed{42}.")
    parser.add_argument(
        "--reply-if",
        nargs=2,
        metavar=("SUBSTRING", "REPLY"),
        help="answer REPLY instead when the last user message contains SUBSTRING",
    )
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()

    def respond(body: dict) -> str:
        if args.reply_if and args.reply_if[0] in last_user_message(body):
            return args.reply_if[1]
        return args.reply

    with LoopbackOpenAI(respond, latency=args.latency) as server:
        print(server.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    main()
