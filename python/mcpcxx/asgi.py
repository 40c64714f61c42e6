"""ASGI adapter: mount an mcpcxx Server into Starlette, FastAPI or any ASGI server.

The adapter only moves bytes: the engine's C++ HTTP endpoint (mcpcxx._core.HttpEndpoint) does the
routing, header checks, sessions, SSE and error statuses, exactly as ``server.run("http")`` does.

    from starlette.applications import Starlette
    from starlette.routing import Mount
    app = Starlette(routes=[Mount("/mcp", app=mcpcxx.asgi.MCPApp(server))])

With auth=BearerAuth(...), mount the same app at "/.well-known/oauth-protected-resource" too:
it serves the RFC 9728 metadata for requests whose path starts with that prefix.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from mcpcxx import _core
from mcpcxx.observability._metrics_asgi import MetricsApp as MetricsApp

if TYPE_CHECKING:
    from mcpcxx._api.server import Server

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_METADATA_PREFIX = "/.well-known/oauth-protected-resource"


class MCPApp:
    """An ASGI application serving one mcpcxx Server's MCP endpoint (both protocol eras).

    Every request that reaches this app is treated as a request to the MCP endpoint, so mount it
    at the path you want (``Mount("/mcp", app=MCPApp(server))``). Options are those of
    ``server.run("http")`` that apply without sockets: legacy, max_body_bytes, allowed_hosts,
    allowed_origins, session_idle_timeout. Behind a public host name, set allowed_hosts.
    auth=mcpcxx.auth.BearerAuth(verifier, resource=..., resource_metadata_url=...) requires a
    bearer token (both URLs are needed here: the app does not know its public address).
    """

    def __init__(self, server: Server, *, auth: Any = None, **options: Any) -> None:
        runtime = server.runtime
        hook = None
        if auth is not None:
            from mcpcxx.auth import BearerAuth

            hook = BearerAuth.of(auth).hook(runtime.loop)
        # The engine checks the options (http_options' JSON form): TypeError names a bad one.
        self._endpoint = _core.HttpEndpoint(runtime.core, options, hook)
        # A verifier may block (key fetch, introspection): then handle() runs off the loop.
        self._offload = hook is not None
        self._server_lifespan = runtime.lifespan
        self._max_body = int(options.get("max_body_bytes", 4 * 1024 * 1024))
        self._path = str(options.get("path", "/mcp"))

    def close(self, grace_seconds: float = 5.0) -> None:
        """End every session; later requests get 503."""
        self._endpoint.close(grace_seconds)

    def stats(self) -> dict[str, int]:
        """Counters: sessions, requests, sessions_expired."""
        stats: dict[str, int] = self._endpoint.stats()
        return stats

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection scope (http or lifespan)."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self._max_body:
                await _plain(send, 413, "Request body too large")
                return
            if not message.get("more_body", False):
                break
        await self._serve(scope, bytes(body), receive, send)

    async def _serve(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, Any, Any]] = asyncio.Queue()

        def push(kind: str, a: Any = None, b: Any = None) -> None:
            loop.call_soon_threadsafe(events.put_nowait, (kind, a, b))

        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        query = scope.get("query_string", b"").decode("latin-1")
        path = str(scope.get("path", ""))
        # Starlette's Mount keeps the full path in scope["path"]: the metadata document's own
        # path reaches the endpoint as it is, everything else is the MCP endpoint.
        route = path if path.startswith(_METADATA_PREFIX) else self._path
        target = route + (f"?{query}" if query else "")
        args = (
            scope["method"],
            target,
            headers,
            body,
            lambda status, hdrs: push("start", status, hdrs),
            lambda data: push("data", data),
            lambda: push("end"),
        )
        if self._offload:
            exchange = await asyncio.to_thread(self._endpoint.handle, *args)
        else:
            exchange = self._endpoint.handle(*args)
        watcher = asyncio.ensure_future(_wait_disconnect(receive))
        try:
            await self._pump(events, watcher, exchange, send)
        finally:
            watcher.cancel()

    async def _pump(
        self, events: asyncio.Queue[tuple[str, Any, Any]], watcher: Any, exchange: Any, send: Send
    ) -> None:
        while True:
            getter = asyncio.ensure_future(events.get())
            done, _ = await asyncio.wait({getter, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                exchange.disconnected()  # the client left: a 2026-07-28 request is cancelled
                return
            kind, a, b = getter.result()
            if kind == "start":
                raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in b]
                await send({"type": "http.response.start", "status": a, "headers": raw})
            elif kind == "data":
                await send({"type": "http.response.body", "body": a, "more_body": True})
            else:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        # The Server's own lifespan (Server(lifespan=...)) runs between these two events.
        lifespan = self._server_lifespan
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await asyncio.to_thread(lifespan.acquire)
                except Exception as e:
                    await send({"type": "lifespan.startup.failed", "message": str(e)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await asyncio.to_thread(self.close, 5.0)
                finally:
                    await asyncio.to_thread(lifespan.release)
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
