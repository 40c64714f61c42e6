"""Well-formed 2026-07-28 MCP requests for the tests, and one blocking HTTP POST to a server.

The body and header builders serve every HTTP path the tests take (a server in a subprocess
through http_post, the ASGI adapter through asgi_driver); the raw-socket tests that need byte
control keep writing their own request lines.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any

MODERN_VERSION = "2026-07-28"
MODERN_META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def modern_message(
    method: str, params: dict[str, Any], *, rid: int = 1, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A 2026-07-28 JSON-RPC request: params with _meta = MODERN_META updated by `meta`."""
    full = {**params, "_meta": {**MODERN_META, **(meta or {})}}
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": full}


def modern_body(
    method: str, params: dict[str, Any], *, rid: int = 1, meta: dict[str, Any] | None = None
) -> bytes:
    """modern_message() encoded as a request body."""
    return json.dumps(modern_message(method, params, rid=rid, meta=meta)).encode()


def mcp_http_headers(mcp_method: str, mcp_name: str | None = None) -> dict[str, str]:
    """The headers a 2026-07-28 POST carries (Mcp-Name only when given), Host aside."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN_VERSION,
        "Mcp-Method": mcp_method,
    }
    if mcp_name is not None:
        headers["Mcp-Name"] = mcp_name
    return headers


@dataclass(frozen=True)
class HttpReply:
    """An HTTP response: status, headers (lower-cased names) and the whole body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body decoded as JSON (raises on an empty or non-JSON body)."""
        return json.loads(self.body)


def http_post(url: str, body: bytes, headers: dict[str, str], *, timeout: float = 30) -> HttpReply:
    """POST `body` to `url` and read the whole reply; an error status is a reply, not a raise."""
    request = urllib.request.Request(url, body, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return HttpReply(resp.status, _lowered(resp.headers.items()), resp.read())
    except urllib.error.HTTPError as e:
        return HttpReply(e.code, _lowered(e.headers.items()), e.read())


def _lowered(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for k, v in items:
        name = k.lower()
        headers[name] = f"{headers[name]}, {v}" if name in headers else v
    return headers


SERVED_URL = re.compile(r"http://127\.0\.0\.1:\d+/mcp")
"""The endpoint URL that server.run("http") prints on stderr when it starts serving."""


def read_served_url(stderr: IO[str]) -> str:
    """Reads a server's stderr up to the line naming its URL; fails with what it read instead."""
    seen = []
    for line in stderr:
        m = SERVED_URL.search(line)
        if m:
            return m.group(0)
        seen.append(line)
    raise AssertionError("the server did not print its URL: " + "".join(seen))
