"""stdio throughput of an echo tool: mcpcxx (Python tool), the official SDK's MCPServer, and the
same engine with a C++ echo tool, in the same run.

    build/venv-test/bin/python bench/python_stdio_throughput.py --calls 2000 \
        --cpp build/ci/tests/fixtures/cpp/mcpcxx_example_server

Each server is driven over its stdin/stdout with the legacy handshake (every server here speaks
2025-11-25): `sequential` sends one tools/call and waits for its reply; `in flight 32` keeps 32
requests outstanding. Figures are calls per second, median of --repeats runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
MCPCXX_ECHO = """
import sys
from mcpcxx import Server
server = Server("bench")
@server.tool
def echo(text: str) -> str:
    return text
sys.exit(server.run())
"""
SDK_ECHO = """
import logging
logging.disable(logging.CRITICAL)
from mcp.server import MCPServer
server = MCPServer("bench")
@server.tool()
def echo(text: str) -> str:
    return text
server.run()
"""


class Peer:
    """A server process with a reader thread that counts replies by id."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.cond = threading.Condition()
        self.done: set[int] = set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            msg = json.loads(line)
            if "id" in msg and "method" not in msg:
                with self.cond:
                    self.done.add(msg["id"])
                    self.cond.notify_all()

    def send(self, body: dict[str, object]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(body).encode() + b"\n")
        self.proc.stdin.flush()

    def wait(self, pred: Callable[[], bool], timeout: float = 60) -> None:
        with self.cond:
            if not self.cond.wait_for(pred, timeout):
                raise TimeoutError("server stopped answering")

    def handshake(self) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            }
        )
        self.wait(lambda: 0 in self.done)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def call(rid: int) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hello"}},
    }


def run(command: list[str], calls: int, window: int) -> float:
    """Calls per second with at most `window` requests in flight."""
    peer = Peer(command)
    try:
        peer.handshake()
        start = time.perf_counter()
        for rid in range(1, calls + 1):
            if rid > window:
                oldest = rid - window
                peer.wait(lambda o=oldest: o in peer.done)  # type: ignore[misc]
            peer.send(call(rid))
        peer.wait(lambda: len(peer.done) == calls + 1)
        return calls / (time.perf_counter() - start)
    finally:
        peer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpp", default=os.environ.get("MCPCXX_EXAMPLE_SERVER", ""))
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="mcpcxx-bench-")
    servers: dict[str, list[str]] = {}
    pairs = (("mcpcxx, Python echo", MCPCXX_ECHO), ("official SDK MCPServer", SDK_ECHO))
    for n, (name, source) in enumerate(pairs):
        path = os.path.join(tmp, f"echo_server_{n}.py")
        with open(path, "w") as f:
            f.write(source)
        servers[name] = [sys.executable, path]
    if args.cpp:
        servers["mcpcxx, C++ echo"] = [args.cpp]
    print(f"{args.calls} echo calls per run, median of {args.repeats}, calls/s")
    print(f"{'server':<26}{'sequential':>12}{'in flight 32':>14}")
    for name, command in servers.items():
        row = []
        for window in (1, 32):
            try:
                rates = [run(command, args.calls, window) for _ in range(args.repeats)]
                row.append(f"{statistics.median(rates):>.0f}")
            except (TimeoutError, OSError, json.JSONDecodeError) as e:
                row.append(f"failed ({type(e).__name__})")
        print(f"{name:<26}{row[0]:>12}{row[1]:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
