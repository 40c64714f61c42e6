"""ASGI route serving a Server's Prometheus metrics (``mcpcxx.asgi.MetricsApp``).

The request goes through the engine's own HTTP endpoint with metrics on, so Host and Origin are
checked exactly as on ``server.run("http", metrics=True)``: a foreign Origin gets 403, a method
other than GET gets 405 (row H50).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from mcpcxx import _core

if TYPE_CHECKING:
    from mcpcxx._api.server import Server

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_PATH = "/metrics"


class MetricsApp:
    """An ASGI application answering GET with ``server.metrics_text()``.

    Mount it where Prometheus scrapes (``Mount("/metrics", app=MetricsApp(server))``). Options:
    allowed_hosts and allowed_origins, as for ``MCPApp``.
    """

    def __init__(self, server: Server, **options: Any) -> None:
        unknown = set(options) - {"allowed_hosts", "allowed_origins"}
        if unknown:
            raise TypeError(f"unknown MetricsApp option(s): {', '.join(sorted(unknown))}")
        settings = dict(options, metrics=True, metrics_path=_PATH, path="/_mcp_not_served")
        self._endpoint = _core.HttpEndpoint(server.runtime.core, settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one http scope; other scope types are ignored."""
        if scope["type"] != "http":
            return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        start: list[Any] = []
        chunks: list[bytes] = []
        done = asyncio.get_running_loop().create_future()
        loop = asyncio.get_running_loop()

        def on_start(status: int, hdrs: list[tuple[str, str]]) -> None:
            start.extend((status, hdrs))

        def finish() -> None:
            if not done.done():
                done.set_result(None)

        def on_end() -> None:
            loop.call_soon_threadsafe(finish)

        self._endpoint.handle(scope["method"], _PATH, headers, b"", on_start, chunks.append, on_end)
        await done
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in start[1]]
        await send({"type": "http.response.start", "status": start[0], "headers": raw})
        await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})
