"""Bounded HTTP for the LLM judge: size caps and no redirects, under the ``openai`` client.

:func:`judge_http_client` builds the ``httpx2.AsyncClient`` handed to ``openai.AsyncOpenAI``; its
:class:`BoundedTransport` sends through ``openai.DefaultAioHttpClient`` (a constant-time connection pool, see
docs/benchmarks.md), reads at most :data:`MAX_REPLY_BYTES` off the wire and after its own incremental
decompression, and refuses a 3xx (:class:`RedirectRefused`). The per-request deadline is the caller's
(:mod:`~gpassk_opencompass.judges.llm`). Both exceptions are ``httpx2.TransportError`` s, so ``openai`` raises
them as ``APIConnectionError``; a failed connection is a :class:`TransportFault` (a retry may help).
"""

from __future__ import annotations

import asyncio
import zlib
from urllib.parse import urljoin, urlsplit

import httpx2

#: Largest reply accepted, in bytes, both as sent and after decompression.
MAX_REPLY_BYTES = 4 * 2**20
_INFLATED = ("gzip", "x-gzip", "deflate")
# Headers that describe the body as sent; the body handed on is plain and whole.
_BODY_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class TransportFault(httpx2.TransportError):
    """The request got no usable reply (oversized or unreadable body): a retry may help."""


class ReplyTooLarge(TransportFault):
    """The reply's body, sent or inflated, is over the size limit: a judge that keeps doing it is misconfigured."""


class RedirectRefused(httpx2.TransportError):
    """The server answered with a redirect; it is not followed."""


class BoundedTransport(httpx2.AsyncBaseTransport):
    """``openai.DefaultAioHttpClient`` with replies read whole, decompressed, size-capped; redirects refused.

    Args:
        connections: most connections kept open at once.
    """

    def __init__(self, connections: int) -> None:
        import openai  # as in judges.llm: importing the judges stays cheap until an LLM judge runs

        self._inner = openai.DefaultAioHttpClient(
            limits=httpx2.Limits(max_connections=connections, max_keepalive_connections=connections),
            follow_redirects=False,
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        import aiohttp  # as openai above

        request.headers["Accept-Encoding"] = "gzip, deflate"
        if request.url.userinfo:
            # The client has made the URL's user:password its Authorization header, as it does for any transport;
            # aiohttp would read them from the URL again and refuse the two together.
            request.url = request.url.copy_with(userinfo=b"")
        try:
            response = await self._inner.send(request, stream=True, follow_redirects=False)
            try:
                if 300 <= response.status_code < 400:
                    raise RedirectRefused(
                        _redirect_message(str(request.url), response.status_code, response.headers.get("location", "")),
                        request=request,
                    )
                body = await read_bounded(response)
            finally:
                await response.aclose()
        except httpx2.TimeoutException as error:
            # openai's aiohttp adapter raises every dropped or refused connection as a ConnectTimeout
            if error.__cause__ is None or isinstance(error.__cause__, asyncio.TimeoutError):
                raise
            raise TransportFault(connection_failed(error.__cause__)) from None
        except aiohttp.ClientError as error:  # what the adapter does not translate: a reply that is not HTTP
            raise TransportFault(connection_failed(error)) from None
        headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in _BODY_HEADERS]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            content=body,
            request=request,
            extensions={
                key: value for key, value in response.extensions.items() if key in ("http_version", "reason_phrase")
            },
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def connection_failed(cause: BaseException) -> str:
    """Why a request got no reply: the connection's failure, named.

    >>> connection_failed(ConnectionResetError("Connection reset by peer"))
    'connection failed (ConnectionResetError: Connection reset by peer)'
    """
    return f"connection failed ({type(cause).__name__}: {str(cause) or 'closed'})"


def judge_http_client(connections: int) -> httpx2.AsyncClient:
    """The HTTP client for one judge URL: :class:`BoundedTransport`, redirects not followed.

    Args:
        connections: most connections kept open at once (the concurrency,
            plus room for the model list).
    """
    return httpx2.AsyncClient(transport=BoundedTransport(connections), follow_redirects=False)


async def read_bounded(response: httpx2.Response, limit: int = MAX_REPLY_BYTES) -> bytes:
    """The body of ``response``, decompressed, refused once it passes ``limit`` bytes sent or inflated.

    Raises:
        ReplyTooLarge: the body is over ``limit`` (sent or inflated).
        TransportFault: the body is in an encoding other
            than identity, gzip or deflate, or not valid compressed data.
    """
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity", *_INFLATED):
        raise TransportFault(f"reply in an unsupported content encoding {encoding!r}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ReplyTooLarge(f"reply of {int(declared)} bytes is over the limit of {limit} bytes")
    inflate = zlib.decompressobj(wbits=47) if encoding in _INFLATED else None  # 47: gzip or zlib header
    parts, sent, size = [], 0, 0
    try:
        async for chunk in response.aiter_raw():
            sent += len(chunk)
            if sent > limit:
                raise ReplyTooLarge(f"reply is over the limit of {limit} bytes")
            if inflate is not None:
                chunk = inflate.decompress(chunk, limit - size + 1)
            size += len(chunk)
            if size > limit:
                raise ReplyTooLarge(f"reply inflates to over the limit of {limit} bytes ({encoding})")
            parts.append(chunk)
    except zlib.error as error:
        raise TransportFault(f"reply is not valid {encoding} data ({error})") from None
    return b"".join(parts)


def _redirect_message(url: str, status: int, location: str) -> str:
    """Why a redirect is refused, naming both hosts.

    >>> _redirect_message("http://a:1/v1/models", 307, "http://b:2/v1/models")
    'judge server http://a:1/v1/models redirects (HTTP 307) to http://b:2/v1/models, host a:1 -> b:2; redirects are not followed: give the final URL as the judge URL'
    """
    target = urljoin(url, location)
    hosts = f"host {urlsplit(url).netloc} -> {urlsplit(target).netloc}"
    return (
        f"judge server {url} redirects (HTTP {status}) to {target}, {hosts}; redirects are not followed: "
        "give the final URL as the judge URL"
    )
