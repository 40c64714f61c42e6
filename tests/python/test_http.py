"""Streamable HTTP from Python: server.run("http"), the ASGI adapter, and inspect --url."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpcxx
from asgi_driver import AsgiResponse, Headers, asgi_request, mcp_headers, mcp_post
from conftest import SOURCE_DIR
from mcp_requests import http_post, mcp_http_headers, modern_body, read_served_url
from mcpcxx.asgi import MCPApp

FIXTURE = SOURCE_DIR / "tests" / "fixtures" / "python" / "conformance_server.py"


def call_tool(
    app: MCPApp,
    rid: int,
    tool: str,
    args: dict[str, Any],
    meta: dict[str, Any] | None = None,
    **options: Any,
) -> AsgiResponse:
    """tools/call through the ASGI adapter (asgi_driver.mcp_post), run to completion."""
    params = {"name": tool, "arguments": args}
    return asyncio.run(mcp_post(app, "tools/call", params, rid=rid, meta=meta, **options))


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
    resp = call_tool(app, 1, "echo", {"text": "via asgi"})
    assert resp.status == 200 and resp.headers["content-type"] == "application/json"
    assert resp.json()["result"]["content"][0]["text"] == "via asgi"
    resp = call_tool(app, 2, "progress", {}, {"progressToken": "t"})
    assert resp.headers["content-type"] == "text/event-stream"
    events = [e.json() for e in resp.sse_events()]
    assert [e.get("method") for e in events[:3]] == ["notifications/progress"] * 3
    assert events[3]["id"] == 2
    app.close(0)


def post(app: MCPApp, body: bytes | list[bytes], headers: Headers, **options: Any) -> AsgiResponse:
    return asyncio.run(asgi_request(app, headers=headers, body=body, **options))


def test_asgi_checks_and_legacy_sessions(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server, max_body_bytes=64)
    assert post(app, b"x" * 65, []).status == 413
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
    assert post(app, b"x" * 10, base).status == 406  # no Accept header
    app2 = MCPApp(http_server)
    resp = post(app2, init, base + accept)
    assert resp.status == 200, resp.body
    assert len(resp.headers["mcp-session-id"]) == 32
    assert app2.stats()["sessions"] == 1
    evil = [(b"host", b"evil.example.com"), *base[1:], *accept]
    assert post(app2, init, evil).status == 403
    app2.close(0)
    assert app2.stats()["sessions"] == 0


def test_asgi_reassembles_a_chunked_body_and_bounds_its_total(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server)
    body = modern_body("tools/call", {"name": "echo", "arguments": {"text": "in pieces"}})
    resp = post(app, [body[:7], b"", body[7:30], body[30:]], mcp_headers("tools/call", "echo"))
    assert resp.status == 200 and resp.complete
    assert resp.json()["result"]["content"][0]["text"] == "in pieces"
    assert app.stats()["requests"] == 1
    app.close(0)
    small = MCPApp(http_server, max_body_bytes=64)
    resp = post(small, [b"x" * 40, b"x" * 40], mcp_headers("tools/call", "echo"))
    assert resp.status == 413 and resp.body == b"Request body too large"
    assert small.stats()["requests"] == 0
    small.close(0)


def test_asgi_client_leaving_mid_body_gets_no_response(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server)
    body = modern_body("tools/call", {"name": "echo", "arguments": {"text": "cut"}})
    headers = mcp_headers("tools/call", "echo")
    resp = post(app, [body[:20]], headers, body_complete=False, disconnect_after=0)
    assert (resp.status, resp.body, resp.complete) == (None, b"", False)
    assert app.stats()["requests"] == 0, "a partial body never reaches the engine"
    app.close(0)


def test_asgi_disconnect_cancels_modern_request(http_server: mcpcxx.Server) -> None:
    app = MCPApp(http_server)
    call_tool(app, 1, "slow", {}, disconnect_after=0.2)
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
    with pytest.raises(TypeError, match="'reply_poll' must be a number of seconds >= 0"):
        http_server.run("http", port=0, reply_poll=-0.001)
    with pytest.raises(ValueError, match="reply_poll must be between 0 and 10 ms"):
        http_server.run("http", port=0, reply_poll=0.02)
    # A refused run leaves this thread able to stop on SIGINT and SIGTERM, and so the processes
    # it starts: serve_http blocks both while serving and must restore them on every way out.
    still_blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert signal.SIGTERM not in still_blocked
    assert signal.SIGINT not in still_blocked


@contextlib.contextmanager
def served(argv: list[str]) -> Iterator[str]:
    """Runs a server.run("http") process and yields its URL; SIGTERM must end it with exit 0."""
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        yield read_served_url(proc.stderr)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
    assert code == 0


def test_run_http_serves_until_sigterm_and_inspect_url() -> None:
    with served([sys.executable, str(FIXTURE), "--port", "0"]) as url:
        body = modern_body("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        reply = http_post(url, body, mcp_http_headers("tools/call", "echo"), timeout=10)
        assert reply.status == 200 and reply.json()["result"]["content"][0]["text"] == "hi"
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


INLINE_SERVER = """
import sys
import mcpcxx

server = mcpcxx.Server("inline")


@server.tool
def echo(text: str) -> str:
    return text


@server.tool
def fail(text: str) -> str:
    raise mcpcxx.ToolError(f"refused {text!r}", category="invalid_arguments", retryable=False)


sys.exit(server.run("http", port=0, inline_dispatch=True))
"""


def test_run_http_inline_dispatch_runs_python_tools_on_the_io_thread() -> None:
    with served([sys.executable, "-c", INLINE_SERVER]) as url:
        for text in ("one", "two"):
            body = modern_body("tools/call", {"name": "echo", "arguments": {"text": text}})
            reply = http_post(url, body, mcp_http_headers("tools/call", "echo"), timeout=10)
            assert reply.status == 200, reply.body
            assert reply.json()["result"]["content"][0]["text"] == text
        body = modern_body("tools/call", {"name": "fail", "arguments": {"text": "x"}})
        failed = http_post(url, body, mcp_http_headers("tools/call", "fail"), timeout=10).json()
        assert failed["result"]["isError"] is True
        assert failed["result"]["_meta"]["mcpcxx/error"]["category"] == "invalid_arguments"


def test_an_asgi_app_refuses_inline_dispatch(http_server: mcpcxx.Server) -> None:
    # The ASGI server's threads call the endpoint: there is no I/O thread of ours to run on.
    with pytest.raises(
        ValueError, match=r"inline_dispatch is for http_server only \(Python: server"
    ):
        MCPApp(http_server, inline_dispatch=True)
    with pytest.raises(TypeError, match="'inline_dispatch' must be"):
        MCPApp(http_server, inline_dispatch="yes")
