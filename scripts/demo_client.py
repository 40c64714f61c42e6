#!/usr/bin/env python3
"""Scripted MCP client for the demo: talks to a server over stdio and prints the raw wire.

Each step prints the exact line sent (-->) and every line received (<--), so both error paths are
visible: JSON-RPC error objects for protocol failures, isError results for tool failures.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcpcxx-demo", "version": "1"},
}


def modern(i: int, method: str, params: dict | None = None) -> str:
    p = dict(params or {})
    p["_meta"] = META
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": p})


def call(i: int, name: str, args: dict | None = None) -> str:
    params: dict = {"name": name}
    if args is not None:
        params["arguments"] = args
    return modern(i, "tools/call", params)


STEPS: list[tuple[str, str]] = [
    ("success (2026-07-28): tools/call echo", call(1, "echo", {"text": "hello"})),
    ("protocol error: bytes that are not JSON -> -32700", '{"jsonrpc":"2.0","id":2,'),
    ("protocol error: unknown method -> -32601", modern(3, "tools/frobnicate")),
    ("protocol error: unknown tool -> -32602 with suggestions", call(4, "ecko", {"text": "x"})),
    ("protocol error: missing _meta field -> -32602",
     json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                 "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})),
    ("protocol error: unsupported version -> -32022",
     json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list",
                 "params": {"_meta": {**META, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}}})),
    ("protocol error: legacy request before initialize -> -32602",
     json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})),
    ("tool error: invalid arguments -> isError, nothing executed", call(8, "echo", {"text": 42})),
    ("tool error: the tool raised a tool error -> isError with its exact text",
     call(9, "lookup_issue", {"key": "ENG-42"})),
    ("tool error: unexpected exception -> sanitized isError with a reference (detail on stderr)",
     call(10, "explode", {})),
    ("tool error: result breaks the outputSchema -> isError internal", call(11, "broken_add", {"a": 1, "b": 2})),
    ("tool error: deadline exceeded on a write -> isError timeout, outcome unknown",
     call(12, "slow_write", {"ms": 2000})),
    ("legacy era: initialize 2025-11-25, then the same echo call (no resultType)",
     json.dumps({"jsonrpc": "2.0", "id": 13, "method": "initialize",
                 "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "mcpcxx-demo", "version": "1"}}})),
    ("", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    ("", json.dumps({"jsonrpc": "2.0", "id": 14, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"text": "hello"}}})),
]


def main() -> int:
    server = sys.argv[1:] or ["build/demo/examples/cpp/mcpcxx_demo_server"]
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin and proc.stdout and proc.stderr
    replies: list[str] = []
    reader = threading.Thread(target=lambda: replies.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    for title, line in STEPS:
        if title:
            print(f"\n## {title}")
        print(f"--> {line}")
        before = len(replies)
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        expects_reply = '"id"' in line
        deadline = time.monotonic() + 5
        while expects_reply and len(replies) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        for reply in replies[before:]:
            print(f"<-- {reply.rstrip()}")
    proc.stdin.close()
    proc.wait(timeout=10)
    print("\n## server log (stderr): one JSON line per outcome; the exception detail is only here")
    for line in proc.stderr.read().splitlines():
        if '"tool_exception"' in line or '"tool_output_invalid"' in line:
            print(line)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
