"""Issue 10 for the Python server: SIGTERM/SIGINT drain over stdio, and hung handlers."""

from __future__ import annotations

import json
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

import mcpcxx
from mcpcxx.testing import LEGACY, Client

SERVER = textwrap.dedent(
    """
    import asyncio, sys, time
    from mcpcxx import Context, Server

    server = Server("drain", workers=2)

    @server.tool
    def nap(ms: int, ctx: Context) -> str:
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end and not ctx.cancelled:
            time.sleep(0.005)
        return "cancelled" if ctx.cancelled else "slept"

    @server.tool
    async def anap(ms: int) -> str:
        await asyncio.sleep(ms / 1000)
        return "slept"

    sys.exit(server.run(drain_grace_seconds=1.5))
    """
)

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def line(msg: dict[str, Any]) -> bytes:
    return json.dumps(msg).encode() + b"\n"


def call(rid: int, name: str, ms: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"ms": ms}},
    }


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_drains_in_flight_calls_and_answers_the_rest(
    tmp_path: pathlib.Path, signo: int
) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(line(INIT))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        for msg in (
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            call(1, "nap", 300),
            call(2, "nap", 60000),
            call(3, "anap", 60000),
        ):
            proc.stdin.write(line(msg))
        proc.stdin.flush()
        time.sleep(0.3)
        proc.send_signal(signo)
        # stdin stays open until the server exited: closing it would race the signal with EOF
        # (an EOF drain cancels what remains without a reply; the client is gone).
        out = proc.stdout.read()
        proc.wait(timeout=30)
        assert proc.stderr is not None
        err = proc.stderr.read()
    finally:
        proc.kill()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    replies = {r["id"]: r for r in map(json.loads, out.decode().splitlines())}
    assert replies[1]["result"]["content"][0]["text"] == "slept", replies
    for rid in (2, 3):
        assert rid in replies, (replies, proc.returncode, err.decode()[-2000:])
        assert replies[rid]["error"]["code"] == -32603, replies
        assert replies[rid]["error"]["data"] == {"graceMs": 1500, "effect": "unknown"}
        assert "shutting down" in replies[rid]["error"]["message"]
    assert proc.returncode == 0, err.decode()


def test_stuck_handlers_are_counted_and_a_healthy_tool_is_served() -> None:
    server = mcpcxx.Server("stuck", workers=2, max_stuck_workers=8)
    release = threading.Event()

    @server.tool(timeout=0.05)
    def hang() -> str:
        release.wait(30)  # ignores cancellation on purpose
        return "late"

    @server.tool
    def ok() -> str:
        return "fine"

    client = Client(server, protocol_version=LEGACY, inline=False)
    try:
        ids = [client.call_tool_nowait("hang", {}) for _ in range(4)]
        for rid in ids:
            assert client.wait(rid)["result"]["isError"] is True  # the deadline answered
        deadline = time.monotonic() + 10
        while server.metrics()["stuck_handlers"] != 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.metrics()["stuck_handlers"] == 4
        assert client.call_tool("ok", {})["result"]["content"][0]["text"] == "fine"
        release.set()
        deadline = time.monotonic() + 10
        while server.metrics()["stuck_handlers"] != 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.metrics()["stuck_handlers"] == 0
    finally:
        release.set()
        client.close()
        server.close()
