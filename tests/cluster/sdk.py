"""The official Python SDK client (`mcp` on PyPI) through nginx, each request's replica noted."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

Served = list[tuple[str, str, int, str]]
"""What the SDK client sent: (HTTP method, JSON-RPC method or "response", status, replica)."""


async def with_sdk(
    url: str,
    served: Served,
    body: Callable[[Any], Awaitable[Any]],
    mode: str = "legacy",
    **kw: Any,
) -> Any:
    """Runs body(client) with the official SDK client connected in `mode` ("legacy" or
    "2026-07-28"), recording where each of its HTTP requests went (nginx's X-Replica)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def record(response: Any) -> None:
        request = response.request
        what = ""
        if request.method == "POST":
            message = json.loads(request.content or b"{}")
            what = message.get("method", "response") if isinstance(message, dict) else "batch"
        served.append(
            (request.method, what, response.status_code, response.headers.get("x-replica", ""))
        )

    timeout = httpx2.Timeout(30, read=300)
    async with httpx2.AsyncClient(timeout=timeout, event_hooks={"response": [record]}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, **kw) as client:
            return await body(client)


def posts_of(served: Served, method: str) -> list[str]:
    """The replicas that served the POSTs of `method`."""
    return [replica for verb, what, _, replica in served if verb == "POST" and what == method]
