"""Issue 10: a Python server run("http") stopping while handlers still run Python code.

Before the fix, a 2026-07-28 client that closed its connection while the server was stopping
made the process abort ("FATAL: exception not rethrown") or segfault: serve_http returned once
the disconnect had ended the HTTP exchange, the interpreter began finalizing, and the cancelled
handler, still inside Python, was ended by pthread_exit() when it next took the GIL. Interpreter
exit now waits for engine threads to leave Python (mcpcxx._runtime.exit).
"""

from __future__ import annotations

import json
import pathlib
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time

from mcp_requests import MODERN_META

SERVER = textwrap.dedent(
    """
    import sys, time
    import mcpcxx._runtime.exit
    from mcpcxx import Context, Server

    mcpcxx._runtime.exit.WAIT_SECONDS = 1.0
    server = Server("exit")

    @server.tool
    def nap(ctx: Context, ms: int) -> str:
        until = time.monotonic() + ms / 1000
        while not ctx.cancelled and time.monotonic() < until:
            time.sleep(0.05)  # a wide window between cancellation and return
        return "cancelled" if ctx.cancelled else "slept"

    @server.tool
    def stubborn(ms: int) -> str:
        time.sleep(ms / 1000)  # ignores cancellation
        return "late"

    sys.exit(server.run("http", port=0))
    """
)

META = {**MODERN_META, "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}


def _start(tmp_path: pathlib.Path) -> tuple[subprocess.Popen[bytes], int]:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    proc = subprocess.Popen([sys.executable, str(script)], stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
    assert m, line
    return proc, int(m.group(1))


def _call(port: int, tool: str, ms: int) -> socket.socket:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": {"ms": ms}, "_meta": META},
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(head.encode() + body)
    return s


def _stop(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, err.decode(errors="replace")


def test_a_client_leaving_while_the_server_stops_does_not_crash_it(
    tmp_path: pathlib.Path,
) -> None:
    for pause in (0.1, 0.5):  # the client leaves early or late in the stop's grace period
        proc, port = _start(tmp_path)
        s = _call(port, "nap", 60000)
        time.sleep(0.5)  # the call runs
        proc.send_signal(signal.SIGTERM)
        time.sleep(pause)
        s.close()
        code, err = _stop(proc)
        assert code == 0, err[-2000:]
        assert "FATAL" not in err, err[-2000:]


def test_a_handler_ignoring_cancellation_at_exit_ends_the_process_cleanly(
    tmp_path: pathlib.Path,
) -> None:
    proc, port = _start(tmp_path)
    s = _call(port, "stubborn", 60000)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    reply = b""
    while chunk := s.recv(65536):
        reply += chunk
    s.close()
    code, err = _stop(proc)
    assert reply.startswith(b"HTTP/1.1 503"), reply  # row H18 after the stop grace (5 s)
    assert code == 0, err[-2000:]
    assert "1 handler(s) still running Python code" in err, err[-2000:]
    assert time.monotonic() - start < 20
