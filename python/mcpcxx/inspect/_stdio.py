"""`python -m mcpcxx inspect -- CMD...` or `--url URL`: drive a server, print the raw frames."""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import subprocess
import sys
import threading
from typing import Any, TextIO

from mcpcxx._protocol.envelope import LEGACY, MODERN
from mcpcxx.inspect._peer import CLIENT_INFO, InspectError, Peer, dumps


class StdioPeer(Peer):
    """A server subprocess spoken to over newline-delimited JSON-RPC; prints every frame."""

    def __init__(
        self, command: list[str], out: TextIO, timeout: float, quiet: bool, version: str
    ) -> None:
        super().__init__(out, timeout, version)
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL if quiet else None,
            )
        except OSError as e:
            raise InspectError(f"cannot start {command[0]!r}: {e.strerror}") from None
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_frame(self, frame: str) -> None:
        """Write one frame exactly as given (plus the newline delimiter) and print it."""
        print(f"--> {frame}", file=self.out, flush=True)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(frame.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise InspectError("the server closed its stdin (it exited)") from None

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request; print frames until its response arrives, and return that response."""
        body = self.next_request(method, params)
        self.send_frame(dumps(body))
        return self._await(body["id"])

    def notify(self, method: str) -> None:
        """Send a notification without params."""
        self.send_frame(dumps({"jsonrpc": "2.0", "method": method}))

    def _await(self, rid: int) -> dict[str, Any]:
        while True:
            try:
                line = self.lines.get(timeout=self.timeout)
            except queue.Empty:
                raise InspectError(
                    f"no response to request {rid} within {self.timeout} s"
                ) from None
            if line is None:
                raise InspectError(f"the server exited (code {self.proc.poll()}) before answering")
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            print(f"<-- {text}", file=self.out, flush=True)
            try:
                message = json.loads(text)
            except ValueError:
                raise InspectError("the server wrote a line that is not JSON to stdout") from None
            if isinstance(message, dict) and message.get("id") == rid and "method" not in message:
                return message

    def close(self) -> int:
        """Close stdin and wait for the server to exit; returns its exit code."""
        if self.proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def _invalid_arguments(tool: dict[str, Any]) -> dict[str, Any] | None:
    schema = tool.get("inputSchema") or {}
    for name, sub in (schema.get("properties") or {}).items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if kind in ("integer", "number", "boolean", "array", "object"):
            return {name: f"not-a-{kind}"}
    return {} if schema.get("required") else None


def _error_demo(peer: Peer, tools: list[dict[str, Any]]) -> None:
    peer.note("JSON-RPC error path: tools/call of a tool the server does not have")
    response = peer.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    peer.note(f"-> protocol error {response.get('error', {}).get('code')}")
    for tool in tools:
        bad = _invalid_arguments(tool)
        if bad is not None:
            peer.note(f"isError path: tools/call of {tool['name']!r} with invalid arguments")
            response = peer.request("tools/call", {"name": tool["name"], "arguments": bad})
            peer.note(f"-> isError {response.get('result', {}).get('isError')}")
            return
    peer.note("no tool declares arguments that can be made invalid; isError demo skipped")


def _session(peer: Peer, args: argparse.Namespace) -> None:
    if peer.version != MODERN:
        peer.note(f"legacy handshake ({peer.version})")
        init = peer.request(
            "initialize",
            {
                "protocolVersion": peer.version,
                "capabilities": {},
                "clientInfo": CLIENT_INFO,
            },
        )
        if "error" in init:
            raise InspectError("initialize was refused")
        peer.notify("notifications/initialized")
    listed = peer.request("tools/list")
    tools = (listed.get("result") or {}).get("tools", [])
    peer.note("tools: " + (", ".join(t["name"] for t in tools) or "(none)"))
    if args.call:
        try:
            arguments = json.loads(args.args)
        except ValueError as e:
            raise InspectError(f"--args is not valid JSON: {e}") from None
        peer.note(f"calling {args.call}")
        peer.request("tools/call", {"name": args.call, "arguments": arguments})
    if args.error_demo:
        _error_demo(peer, tools)


def main(argv: list[str]) -> int:
    """Entry point of `python -m mcpcxx inspect`."""
    parser = argparse.ArgumentParser(
        prog="python -m mcpcxx inspect",
        description="Talk to a stdio MCP server and print every frame exactly as sent/received.",
    )
    parser.add_argument("--call", metavar="TOOL", help="call this tool after listing")
    parser.add_argument("--args", default="{}", metavar="JSON", help="arguments for --call")
    parser.add_argument(
        "--error-demo",
        action="store_true",
        help="also show the JSON-RPC error path (unknown tool) and the isError path (invalid "
        "arguments)",
    )
    parser.add_argument("--legacy", action="store_true", help=f"use initialize ({LEGACY})")
    parser.add_argument("--protocol-version", help="a specific legacy version to initialize with")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait per reply")
    parser.add_argument("--quiet", action="store_true", help="discard the server's stderr")
    parser.add_argument("--url", help="talk to a Streamable HTTP endpoint instead of a command")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- server command line")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command and not args.url:
        parser.error("give --url URL, or the server command after --, e.g. -- python server.py")
    if command and args.url:
        parser.error("give either --url or a server command, not both")
    version = args.protocol_version or (LEGACY if args.legacy else MODERN)
    peer: Peer
    try:
        if args.url:
            from mcpcxx.inspect._http import HttpPeer

            peer = HttpPeer(args.url, sys.stdout, args.timeout, version)
        else:
            peer = StdioPeer(command, sys.stdout, args.timeout, args.quiet, version)
    except InspectError as e:
        print(f"inspect: {e}", file=sys.stderr)
        return 2
    try:
        _session(peer, args)
    except InspectError as e:
        print(f"inspect: {e}", file=sys.stderr)
        peer.close()
        return 1
    code = peer.close()
    if not args.url:
        peer.note(f"server exited with code {code}")
    return 0 if code == 0 else 1
