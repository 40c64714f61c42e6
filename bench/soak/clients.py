"""Minimal MCP clients for the soak: one message in flight, raw bytes out, raw reply bytes back.

They speak just enough of each transport to drive the traffic mix: newline-delimited JSON over a
child's stdin/stdout, and Streamable HTTP POSTs on one keep-alive connection (legacy sessions with
Mcp-Session-Id, or 2026-07-28 requests with the MCP header set). Every reply is returned whole so
the caller can check it; anything the transport does wrong raises SoakError.
"""

from __future__ import annotations

import http.client
import json
import subprocess
from typing import IO

from traffic import INITIALIZED_BODY, LEGACY, MODERN, Operation, initialize_body


class SoakError(Exception):
    """The server broke the transport contract (no reply, wrong status, closed pipe)."""


class StdioClient:
    """A client of a server process it talks to over the child's stdin and stdout."""

    def __init__(self, proc: subprocess.Popen[bytes], era: str) -> None:
        assert proc.stdin is not None
        assert proc.stdout is not None
        self._in: IO[bytes] = proc.stdin
        self._out: IO[bytes] = proc.stdout
        self._next_id = 1_000_000
        if era == LEGACY:
            reply = self._round_trip(initialize_body(self._take_id()))
            if b'"result"' not in reply:
                raise SoakError(f"stdio initialize failed: {reply[:200]!r}")
            self._send(INITIALIZED_BODY)

    def call(self, op: Operation, body: bytes) -> bytes:
        """Sends one message and returns the line that answers it."""
        del op
        return self._round_trip(body)

    def close(self) -> None:
        self._in.close()

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _send(self, body: bytes) -> None:
        self._in.write(body + b"\n")
        self._in.flush()

    def _round_trip(self, body: bytes) -> bytes:
        self._send(body)
        line = self._out.readline()
        if not line:
            raise SoakError("the stdio server closed its stdout")
        return line


class HttpClient:
    """A Streamable HTTP client on one keep-alive connection to 127.0.0.1:port/mcp."""

    # Legacy sessions are closed and opened again every this many calls, so the session table
    # churns during the soak the way real hosts use it.
    SESSION_CALLS = 500

    def __init__(self, port: int, era: str) -> None:
        self._port = port
        self._era = era
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self._session = ""
        self._calls = 0
        if era == LEGACY:
            self._open_session()

    def call(self, op: Operation, body: bytes) -> bytes:
        """POSTs one message and returns the JSON-RPC reply in the response body."""
        if self._era == LEGACY and self._calls >= self.SESSION_CALLS:
            self._close_session()
            self._open_session()
        self._calls += 1
        status, reply = self._post(body, self._headers(op))
        expected = 400 if op.malformed else 200
        if status != expected:
            raise SoakError(f"HTTP {status} for {op.name}, expected {expected}: {reply[:200]!r}")
        return reply

    def close(self) -> None:
        if self._session:
            self._close_session()
        self._conn.close()

    def _headers(self, op: Operation) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self._era == LEGACY:
            headers["MCP-Protocol-Version"] = LEGACY
            headers["Mcp-Session-Id"] = self._session
        else:
            headers["MCP-Protocol-Version"] = MODERN
            if not op.malformed:
                headers["Mcp-Method"] = "tools/call"
                headers["Mcp-Name"] = op.tool
        return headers

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        self._conn.request("POST", "/mcp", body=body, headers=headers)
        resp = self._conn.getresponse()
        data = resp.read()
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            data = _last_sse_message(data)
        return resp.status, data

    def _open_session(self) -> None:
        self._conn.request(
            "POST",
            "/mcp",
            body=initialize_body(1),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        resp = self._conn.getresponse()
        data = resp.read()
        session = resp.getheader("Mcp-Session-Id")
        if resp.status != 200 or not session:
            raise SoakError(f"HTTP initialize failed ({resp.status}): {data[:200]!r}")
        self._session = session
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": LEGACY,
            "Mcp-Session-Id": session,
        }
        status, _ = self._post(INITIALIZED_BODY, headers)
        if status != 202:
            raise SoakError(f"notifications/initialized got HTTP {status}, expected 202")
        self._calls = 0

    def _close_session(self) -> None:
        headers = {"MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": self._session}
        self._conn.request("DELETE", "/mcp", headers=headers)
        resp = self._conn.getresponse()
        resp.read()
        if resp.status not in (200, 204):
            raise SoakError(f"session DELETE got HTTP {resp.status}")
        self._session = ""


def _last_sse_message(stream: bytes) -> bytes:
    """The JSON-RPC response among an SSE stream's events (the last `data:` holding an id)."""
    found = b""
    for line in stream.splitlines():
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            try:
                if "id" in json.loads(payload):
                    found = payload
            except ValueError:
                continue
    return found
