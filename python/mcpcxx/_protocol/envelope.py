"""The 2026-07-28 request envelope: the per-request `_meta` a stateless client sends.

One definition for every client in the package (the inspector's stdio and HTTP peers and the
testing kit). Legacy revisions carry this information in `initialize` instead, so clients add the
envelope only to 2026-07-28 requests.
"""

from __future__ import annotations

from typing import Any

from mcpcxx import _core

MODERN: str = _core.MODERN_VERSION
"""The stateless revision, whose requests carry the envelope."""
LEGACY: str = _core.LATEST_LEGACY_VERSION
"""The newest revision that negotiates with initialize."""

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"


def with_envelope(
    params: dict[str, Any] | None,
    *,
    protocol_version: str,
    client_info: dict[str, Any],
    capabilities: dict[str, Any],
    log_level: str | None = None,
) -> dict[str, Any]:
    """A copy of `params` whose `_meta` carries the envelope.

    Keys the caller already put in params["_meta"] win over the envelope's.
    """
    out = dict(params or {})
    meta: dict[str, Any] = {
        PROTOCOL_VERSION_KEY: protocol_version,
        CLIENT_CAPABILITIES_KEY: capabilities,
        CLIENT_INFO_KEY: client_info,
    }
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    meta.update(out.get("_meta") or {})
    out["_meta"] = meta
    return out


def request(request_id: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC request object (params omitted when None)."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return body
