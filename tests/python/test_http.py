"""Streamable HTTP from Python: server.run("http"), the ASGI adapter, and inspect --url."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

import pytest

import mcpcxx
from conftest import SOURCE_DIR
from mcpcxx.asgi import MCPApp

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
FIXTURE = SOURCE_DIR / "examples" / "conformance" / "server.py"


def modern_call(rid: int, tool: str, args: dict[str, Any], meta: dict[str, Any] | None = None):
    body = {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": {**MODERN_META, **(meta or {})}},
    }
    headers = [
        (b"host", b"localhost:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", b"2026-07-28"),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", tool.encode()),
    ]
    return json.dumps(body).encode(), headers


async def asgi_request(
    app: MCPApp, body: bytes, headers: list[tuple[bytes, bytes]], disconnect_after: float = 0
) -> tuple[int, dict[str, str], bytes]:
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        if disconnect_after:
            await asyncio.sleep(disconnect_after)
            return {"type": "http.disconnect"}
        await asyncio.Event().wait()
        return {}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(app(scope, receive, send), 30)
    start = next((m for m in sent if m["type"] == "http.response.start"), None)
    status = start["status"] if start else 0
    hdrs = {k.decode(): v.decode() for k, v in (start["headers"] if start else [])}
    data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, hdrs, data


@pytest.fixture
def http_server() -> mcpcxx.Server:
    srv = mcpcxx.Server("http-test", "1.0.0")
    started = threading.Event()
    cancelled = threading.Event()

    @srv.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    @srv.tool
    def progress(ctx: mcpcxx.Context) -> str:
        """Three progress steps."""
        for p in (1, 2, 3):
            ctx.report_progress(p, 3)
        return "done"

    @srv.tool
    def slow(ctx: mcpcxx.Context) -> str:
        """Runs until cancelled."""
        started.set()
        for _ in range(2000):
            if ctx.cancelled:
                cancelled.set()
                return "cancelled"
            time.sleep(0.005)
        return "finished"

    srv.started, srv.cancelled = started, cancelled  # type: ignore[attr-defined]
    return srv


def test_asgi_json_and_sse(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server)
    body, headers = modern_call(1, "echo", {"text": "via asgi"})
    status, hdrs, data = asyncio.run(asgi_request(app, body, headers))
    assert status == 200 and hdrs["content-type"] == "application/json"
    assert json.loads(data)["result"]["content"][0]["text"] == "via asgi"
    body, headers = modern_call(2, "progress", {}, {"progressToken": "t"})
    status, hdrs, data = asyncio.run(asgi_request(app, body, headers))
    assert hdrs["content-type"] == "text/event-stream"
    events = [json.loads(m) for m in re.findall(r"^data: (.*)$", data.decode(), re.M)]
    assert [e.get("method") for e in events[:3]] == ["notifications/progress"] * 3
    assert events[3]["id"] == 2
    app.close(0)


def test_asgi_checks_and_legacy_sessions(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server, max_body_bytes=64)
    status, _, _ = asyncio.run(asgi_request(app, b"x" * 65, []))
    assert status == 413
    init = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    ).encode()
    base = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]
    accept = [(b"accept", b"application/json, text/event-stream")]
    status, hdrs, _ = asyncio.run(asgi_request(app, b"x" * 10, base))
    assert status == 406  # no Accept header
    app2 = MCPApp(http_server)
    status, hdrs, data = asyncio.run(asgi_request(app2, init, base + accept))
    assert status == 200, data
    assert len(hdrs["mcp-session-id"]) == 32
    assert app2.stats()["sessions"] == 1
    evil = [(b"host", b"evil.example.com"), *base[1:], *accept]
    status, _, _ = asyncio.run(asgi_request(app2, init, evil))
    assert status == 403
    app2.close(0)
    assert app2.stats()["sessions"] == 0


def test_asgi_disconnect_cancels_modern_request(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server)
    body, headers = modern_call(1, "slow", {})
    asyncio.run(asgi_request(app, body, headers, disconnect_after=0.2))
    assert http_server.started.wait(10)  # type: ignore[attr-defined]
    assert http_server.cancelled.wait(10)  # type: ignore[attr-defined]


def test_http_options_are_validated(http_server: mcpcxx.Server) -> None:
    # The engine's http_options from_json is the one check, for MCPApp and run("http") alike.
    MCPApp(http_server, legacy=False, max_body_bytes=64).close()
    with pytest.raises(TypeError, match="unexpected HTTP option 'prot'; known options: host"):
        MCPApp(http_server, prot=1)
    with pytest.raises(TypeError, match="'port' must be an integer >= 0, got string \"80\""):
        http_server.run("http", port="80")
    with pytest.raises(TypeError, match="'port' must be an integer <= 65535"):
        http_server.run("http", port=70000)
    with pytest.raises(TypeError, match="'allowed_hosts' must be a list of strings"):
        MCPApp(http_server, allowed_hosts="localhost")
    with pytest.raises(TypeError, match="'session_idle_timeout' must be a number of seconds"):
        MCPApp(http_server, session_idle_timeout=-1)


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, json.loads(resp.read())


def test_run_http_serves_until_sigterm_and_inspect_url() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE), "--port", "0"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:
            m = re.search(r"http://127\.0\.0\.1:\d+/mcp", line)
            if m:
                url = m.group(0)
                break
        assert url, "the server did not print its URL"
        status, reply = _post(
            url,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": MODERN_META},
            },
            {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/call",
                "Mcp-Name": "echo",
            },
        )
        assert status == 200 and reply["result"]["content"][0]["text"] == "hi"
        for legacy in ([], ["--legacy"]):
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "mcpcxx",
                    "inspect",
                    *legacy,
                    "--url",
                    url,
                    "--call",
                    "echo",
                    "--args",
                    '{"text": "inspected"}',
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert out.returncode == 0, out.stderr
            assert "# HTTP 200" in out.stdout and "inspected" in out.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert code == 0
