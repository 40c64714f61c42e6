#!/usr/bin/env python3
"""Starts an example C++ server over stdio, plays a scripted client and checks every answer.

Usage: run_example.py hello|demo_server <server binary>   (ctest Examples.*, examples/cpp)

Exits 0 when every answer is as expected, 1 naming the first one that is not.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from typing import IO, Any

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "run_example", "version": "1"},
}


class Failure(Exception):
    """An answer that is not the expected one."""


class Session:
    """One server process and the lines it writes to stdout."""

    def __init__(self, binary: str) -> None:
        self.proc = subprocess.Popen(
            [binary],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None
        out = self.proc.stdout
        threading.Thread(target=self._read, args=(out,), daemon=True).start()
        self.next_id = 0

    def _read(self, out: IO[str]) -> None:
        for line in out:
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Sends a request and returns its response (notifications before it are skipped)."""
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            try:
                line = self.lines.get(timeout=10)
            except queue.Empty:
                raise Failure(f"{method}: no response within 10 s") from None
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                return dict(reply)

    def call(self, name: str, arguments: dict[str, Any], modern: bool = False) -> dict[str, Any]:
        """tools/call; returns the result (fails on a JSON-RPC error)."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if modern:
            params["_meta"] = MODERN_META
        reply = self.request("tools/call", params)
        if "result" not in reply:
            raise Failure(f"tools/call {name}: expected a result, got {reply}")
        return dict(reply["result"])

    def initialize(self) -> dict[str, Any]:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "run_example", "version": "1"},
            },
        )
        if reply.get("result", {}).get("protocolVersion") != "2025-11-25":
            raise Failure(f"initialize: expected protocolVersion 2025-11-25, got {reply}")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return dict(reply["result"])

    def close(self) -> str:
        """Closes stdin (the server stops at EOF); returns its stderr. Fails on a non-zero exit."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure("the server did not exit within 15 s of EOF on stdin") from None
        err = self.proc.stderr.read()
        if code != 0:
            raise Failure(f"the server exited with {code}; stderr:\n{err}")
        return err


def text_of(result: dict[str, Any]) -> str:
    content = result.get("content") or [{}]
    return str(content[0].get("text", ""))


def expect(condition: bool, what: str, got: object) -> None:
    if not condition:
        raise Failure(f"{what}; got {json.dumps(got)}")


def check_hello(s: Session) -> None:
    s.initialize()
    tools = s.request("tools/list")["result"]["tools"]
    expect([t["name"] for t in tools] == ["echo"], "tools/list: expected one tool, echo", tools)
    expect(tools[0]["inputSchema"].get("required") == ["text"], "echo requires text", tools[0])
    result = s.call("echo", {"text": "hello"})
    expect(not result.get("isError") and text_of(result) == "hello", "echo answers hello", result)
    result = s.call("echo", {"text": 42})
    expect(result.get("isError") is True, "echo with a number is an isError result", result)
    result = s.call("echo", {"text": "modern"}, modern=True)
    expect(text_of(result) == "modern", "echo answers on 2026-07-28 too", result)
    s.close()


def check_demo_server(s: Session) -> None:
    s.initialize()
    names = sorted(t["name"] for t in s.request("tools/list")["result"]["tools"])
    expected = ["add", "broken_add", "echo", "explode", "lookup_issue", "slow_write"]
    expect(names == expected, f"tools/list: expected {expected}", names)
    result = s.call("echo", {"text": "hello"}, modern=True)
    expect(not result.get("isError") and text_of(result) == "hello", "echo answers hello", result)
    result = s.call("lookup_issue", {"key": "ENG-42"})
    expect(
        result.get("isError") is True
        and text_of(result).startswith("Issue lookup failed: issue ENG-42. It was not found."),
        "lookup_issue ENG-42 is the tool error's exact text",
        result,
    )
    result = s.call("explode", {})
    expect(
        result.get("isError") is True and "hunter2" not in json.dumps(result),
        "explode is a sanitized isError result",
        result,
    )
    result = s.call("add", {"a": 1, "b": 2})
    expect(result.get("structuredContent") == {"sum": 3}, "add returns {sum: 3}", result)
    result = s.call("broken_add", {"a": 1, "b": 2})
    expect(result.get("isError") is True, "broken_add breaks its outputSchema: isError", result)
    result = s.call("slow_write", {"ms": 2000})
    expect(result.get("isError") is True, "slow_write past its 200 ms deadline: isError", result)
    reply = s.request("tools/call", {"name": "ecko", "arguments": {"text": "x"}})
    expect(reply.get("error", {}).get("code") == -32602, "an unknown tool is -32602", reply)
    err = s.close()
    expect("hunter2" in err, "the exception's detail is in the server log", err)


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("hello", "demo_server"):
        print(__doc__, file=sys.stderr)
        return 2
    session = Session(sys.argv[2])
    try:
        (check_hello if sys.argv[1] == "hello" else check_demo_server)(session)
    except Failure as e:
        if session.proc.poll() is None:
            session.proc.kill()
        print(f"run_example {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    print(f"run_example {sys.argv[1]}: every answer as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
