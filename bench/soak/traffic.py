"""The soak traffic mix: which requests are sent and what each must get back.

Every operation is a tools/call (or a line that is not JSON) against the example server's tools
(tests/fixtures/cpp/example_server.cpp, tests/fixtures/python/fixture_server.py). Each has an
expectation that the reply is checked against; a reply that does not meet it counts as a failure in
the report (the soak is not only about speed: a wrong or missing answer under load is a finding).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ERAS = (LEGACY, MODERN)

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1"},
}

# The secret in the example servers' "explode" exception: it must never reach the client.
LEAK_MARKER = "hunter2"
SOAK_TEXT = "soak text"


@dataclass(frozen=True)
class Operation:
    """One kind of call in the mix: its tool and arguments, or a malformed body."""

    name: str
    weight: int
    tool: str = ""
    arguments: Any = None
    malformed: bool = False


# Weights: half the traffic succeeds, the other half covers each error path equally.
OPERATIONS = (
    Operation("tool success", 50, "echo", {"text": SOAK_TEXT}),
    Operation("tool error", 10, "lookup_issue", {"key": "ENG-404"}),
    Operation("invalid arguments", 10, "echo", {"text": 5}),
    Operation("unknown tool", 10, "no_such_tool", {}),
    Operation("unexpected exception", 10, "explode", {}),
    Operation("malformed JSON", 10, malformed=True),
)


class Mix:
    """Draws operations by weight from a seeded generator (runs are repeatable)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._ops = list(OPERATIONS)
        self._weights = [op.weight for op in OPERATIONS]

    def next(self) -> Operation:
        return self._rng.choices(self._ops, self._weights)[0]


def request_body(op: Operation, era: str, request_id: int) -> bytes:
    """The bytes of one message (no trailing newline) for `op` in `era`."""
    if op.malformed:
        return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":' % request_id
    params: dict[str, Any] = {"name": op.tool, "arguments": op.arguments}
    if era == MODERN:
        params["_meta"] = MODERN_META
    msg = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(msg, separators=(",", ":")).encode()


def initialize_body(request_id: int) -> bytes:
    """A legacy initialize request."""
    msg = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "soak", "version": "1"},
        },
    }
    return json.dumps(msg, separators=(",", ":")).encode()


INITIALIZED_BODY = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def check_reply(op: Operation, request_id: int, raw: bytes) -> str:
    """An empty string when `raw` is the reply `op` must get, else what is wrong with it."""
    try:
        reply = json.loads(raw)
    except ValueError:
        return "reply is not JSON"
    if not isinstance(reply, dict):
        return "reply is not an object"
    if LEAK_MARKER.encode() in raw:
        return "exception text leaked to the client"
    if op.malformed:
        return _expect_error(reply, None, -32700)
    if op.name == "unknown tool":
        return _expect_error(reply, request_id, -32602)
    if reply.get("id") != request_id:
        return f"id {reply.get('id')!r}, expected {request_id}"
    result = reply.get("result")
    if not isinstance(result, dict):
        return f"no result: {raw[:200]!r}"
    if op.name == "tool success":
        text = (result.get("content") or [{}])[0].get("text")
        ok = not result.get("isError") and text == SOAK_TEXT
        return "" if ok else f"bad success result: {raw[:200]!r}"
    return "" if result.get("isError") is True else f"expected isError: {raw[:200]!r}"


def _expect_error(reply: dict[str, Any], request_id: int | None, code: int) -> str:
    error = reply.get("error")
    if not isinstance(error, dict) or error.get("code") != code:
        return f"expected JSON-RPC error {code}, got {json.dumps(reply)[:200]}"
    if reply.get("id") != request_id:
        return f"error id {reply.get('id')!r}, expected {request_id!r}"
    return ""
