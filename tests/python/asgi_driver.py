"""Drives an ASGI application in-process for one HTTP request and collects its response.

One driver for every test of mcpcxx.asgi (MCPApp, MetricsApp): it builds the http scope, feeds
the request body (whole, in chunks, or cut short), can simulate the client leaving, and checks
that the application keeps the ASGI message order (one http.response.start, then body messages,
nothing after the last one) while it collects the response.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_requests import mcp_http_headers, modern_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]


def mcp_headers(mcp_method: str, mcp_name: str | None = None) -> Headers:
    """mcp_requests.mcp_http_headers() as ASGI headers, after Host: localhost:8000."""
    pairs = mcp_http_headers(mcp_method, mcp_name).items()
    return [(b"host", b"localhost:8000"), *((k.lower().encode(), v.encode()) for k, v in pairs)]


@dataclass(frozen=True)
class SseEvent:
    """One event block of a stream: data lines joined by newlines (empty data kept), name, id."""

    data: str
    event: str | None = None
    id: str | None = None

    def json(self) -> Any:
        """The data decoded as JSON (raises on an event without JSON data)."""
        return json.loads(self.data)


@dataclass(frozen=True)
class AsgiResponse:
    """What the application sent: status is None when it never started a response."""

    status: int | None
    headers: dict[str, str]  # lower-cased names; repeated headers joined with ", "
    raw_headers: Headers
    body: bytes
    complete: bool  # the application sent the final body message (more_body false)

    def json(self) -> Any:
        """The body decoded as JSON (raises on an empty or non-JSON body)."""
        return json.loads(self.body)

    def sse_events(self) -> list[SseEvent]:
        """The body parsed as an event stream; raises unless it is text/event-stream."""
        kind = self.headers.get("content-type", "")
        if not kind.startswith("text/event-stream"):
            raise AssertionError(f"not an event stream: content-type {kind!r}")
        return parse_sse(self.body.decode())


def parse_sse(text: str) -> list[SseEvent]:
    """Events of a complete SSE stream; an unterminated last event is an error, not dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = text.split("\n\n")
    if blocks[-1].strip("\n"):
        raise AssertionError(f"event stream ends inside an event: {blocks[-1]!r}")
    events = []
    for block in blocks[:-1]:
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        if fields:
            event, ids = fields.get("event"), fields.get("id")
            data = "\n".join(fields.get("data", []))
            events.append(SseEvent(data, event[-1] if event else None, ids[-1] if ids else None))
    return events


class _Collector:
    """The send side: records the response and fails on messages out of ASGI order."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.raw_headers: Headers = []
        self.chunks: list[bytes] = []
        self.complete = False

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if self.complete:
            raise AssertionError(f"{kind} sent after the response ended")
        if kind == "http.response.start":
            if self.status is not None:
                raise AssertionError("http.response.start sent twice")
            self.status = int(message["status"])
            self.raw_headers = list(message.get("headers", []))
        elif kind == "http.response.body":
            if self.status is None:
                raise AssertionError("http.response.body sent before http.response.start")
            self.chunks.append(bytes(message.get("body", b"")))
            self.complete = not message.get("more_body", False)
        else:
            raise AssertionError(f"unexpected ASGI message {kind!r}")

    def response(self) -> AsgiResponse:
        headers: dict[str, str] = {}
        for k, v in self.raw_headers:
            name, value = k.decode("latin-1").lower(), v.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        body = b"".join(self.chunks)
        return AsgiResponse(self.status, headers, self.raw_headers, body, self.complete)


def _receiver(
    chunks: Sequence[bytes], body_complete: bool, disconnect_after: float | None
) -> Receive:
    """The receive side: the body chunks, then a disconnect after a delay, or nothing ever."""
    pending = list(chunks) or [b""]
    last = len(pending) - 1
    sent = 0
    gone = False

    async def receive() -> Message:
        nonlocal sent, gone
        if sent < len(pending):
            more = sent < last or not body_complete
            sent += 1
            return {"type": "http.request", "body": pending[sent - 1], "more_body": more}
        if disconnect_after is None:
            await asyncio.Event().wait()  # never set: the client stays until the app returns
        elif not gone:
            await asyncio.sleep(disconnect_after)
            gone = True
        return {"type": "http.disconnect"}

    return receive


async def asgi_request(
    app: AsgiApp,
    method: str = "POST",
    path: str = "/mcp",
    *,
    headers: Headers | None = None,
    body: bytes | Sequence[bytes] = b"",
    query_string: bytes = b"",
    body_complete: bool = True,
    disconnect_after: float | None = None,
    timeout: float = 30,
) -> AsgiResponse:
    """Run `app` on one http request and return what it sent.

    body: the request body, or its chunks (one http.request message each, more_body set on all
    but the last). body_complete=False leaves more_body set on the last chunk too (a client that
    stops sending). disconnect_after: seconds after the body until receive() reports
    http.disconnect (None: never). The app must return within `timeout` seconds.
    """
    chunks = [body] if isinstance(body, bytes) else list(body)
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query_string,
        "headers": list(headers or []),
    }
    collector = _Collector()
    receive = _receiver(chunks, body_complete, disconnect_after)
    await asyncio.wait_for(app(scope, receive, collector.send), timeout)
    return collector.response()


async def mcp_post(
    app: AsgiApp,
    method: str,
    params: dict[str, Any],
    *,
    rid: int = 1,
    meta: dict[str, Any] | None = None,
    extra_headers: Headers | None = None,
    **options: Any,
) -> AsgiResponse:
    """POST modern_body(method, params) with mcp_headers (Mcp-Name: params["name"] if any).

    extra_headers come after those; options go to asgi_request (disconnect_after, timeout, ...).
    """
    headers = mcp_headers(method, params.get("name")) + list(extra_headers or [])
    body = modern_body(method, params, rid=rid, meta=meta)
    return await asgi_request(app, headers=headers, body=body, **options)
