"""Golden transcripts over Streamable HTTP ("transport: http"), mirror of tests/cpp/golden/http_runner.

The client section holds raw requests separated by "===" lines: head lines, a blank line, the
body. The runner adds Host, Content-Length and "Connection: close" unless present and replaces
{SESSION} with the last Mcp-Session-Id the server sent ({REQUEST_STATE} with the last requestState
a response body carried); each request goes on its own connection.
The X-Golden-* directives (head only, close write, keep open, stop server, stop mid body, detach,
event id: its first SSE event's id replaces {EVENT_ID} later) work as in
tests/cpp/golden/http_runner.hpp.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from golden import STATE, Transcript

KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


@dataclass
class Request:
    head: list[str] = field(default_factory=list)
    body: str = ""


def requests(t: Transcript) -> list[Request]:
    """The requests of an http transcript's client section."""
    out = [Request()]
    in_body = False
    for raw in t.client:
        line = raw.decode("utf-8", errors="surrogateescape")
        if line == "===":
            out.append(Request())
            in_body = False
        elif not in_body and not line:
            in_body = True
        elif in_body:
            out[-1].body += ("\n" if out[-1].body else "") + line
        else:
            out[-1].head.append(line)
    for r in out:
        r.body = r.body.rstrip("\n")
    return [r for r in out if r.head]


def _header(r: Request, name: str) -> str | None:
    for h in r.head[1:]:
        key, colon, value = h.partition(":")
        if colon and key.strip().lower() == name:
            return value.strip()
    return None


def _take_directive(r: Request, name: str) -> bool:
    kept = [h for h in r.head[1:] if not h.lower().startswith(name + ":")]
    found = len(kept) != len(r.head) - 1
    r.head = r.head[:1] + kept
    return found


@dataclass
class Wire:
    """A request as sent, with the runner directives around it (see the C++ runner)."""

    data: bytes
    close_write: bool = False
    keep_open: bool = False
    stop_server: bool = False
    stop_mid_body: bool = False
    detach: bool = False
    event_id: bool = False  # as keep_open, and read the first SSE event's id for {EVENT_ID}


@dataclass
class Placeholders:
    """{SESSION}: the last Mcp-Session-Id; {EVENT_ID}: the last X-Golden-Event-Id event's id;
    {REQUEST_STATE}: the requestState of the last response body that carried one."""

    session: str = ""
    event_id: str = ""
    request_state: str = ""

    def substitute(self, text: str) -> str:
        return (
            text.replace("{SESSION}", self.session)
            .replace("{EVENT_ID}", self.event_id)
            .replace(STATE, self.request_state)
        )

    def capture(self, response: dict[str, Any]) -> dict[str, Any]:
        """Takes the requestState of `response`'s body (a message or SSE messages), if any."""
        body = response.get("body")
        for m in body if isinstance(body, list) else [body]:
            result = m.get("result") if isinstance(m, dict) else None
            if isinstance(result, dict) and isinstance(result.get("requestState"), str):
                self.request_state = result["requestState"]
        return response


def _wire_bytes(request: Request, port: int, v: Placeholders) -> Wire:
    """The request's bytes and the directives around it."""
    r = Request(list(request.head), request.body)
    head_only = _take_directive(r, "x-golden-head-only")
    w = Wire(b"", _take_directive(r, "x-golden-close-write"))
    w.keep_open = _take_directive(r, "x-golden-keep-open")
    w.stop_server = _take_directive(r, "x-golden-stop-server")
    w.stop_mid_body = _take_directive(r, "x-golden-stop-mid-body")
    w.detach = _take_directive(r, "x-golden-detach")
    w.event_id = _take_directive(r, "x-golden-event-id")
    w.keep_open = w.keep_open or w.event_id
    head = [v.substitute(h) for h in r.head]
    if head_only:
        w.data = "\r\n".join(head).encode("utf-8", errors="surrogateescape")
        return w
    text = v.substitute(r.body)
    if _header(r, "transfer-encoding") is not None:  # chunked bodies: one line per CRLF
        text = "".join(line + "\r\n" for line in text.split("\n")) + "\r\n"
    body = text.encode("utf-8", errors="surrogateescape")
    if _header(r, "host") is None:
        head.append(f"Host: 127.0.0.1:{port}")
    if _header(r, "content-length") is None and _header(r, "transfer-encoding") is None:
        head.append(f"Content-Length: {len(body)}")
    if _header(r, "connection") is None:
        head.append("Connection: close")
    w.data = ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", errors="surrogateescape") + body
    return w


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_ready(port: int) -> bool:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def _send(s: socket.socket, w: Wire, server: subprocess.Popen[bytes]) -> None:
    """Sends the request; with stop_mid_body the last byte goes 500 ms after the SIGTERM."""
    s.sendall(w.data[:-1] if w.stop_mid_body else w.data)
    if w.close_write:
        s.shutdown(socket.SHUT_WR)
    if w.stop_server or w.stop_mid_body:
        time.sleep(2.0)
        server.send_signal(signal.SIGTERM)
    if w.stop_mid_body:
        time.sleep(0.5)
        s.sendall(w.data[-1:])


def _first_event_id(raw: bytes) -> str:
    """The id of the first complete SSE event after the response head ("" while none)."""
    _, sep, body = raw.partition(b"\r\n\r\n")
    event, end, _ = (b"\n" + body).partition(b"\n\n")  # chunk framing uses CRLF
    if not sep or not end or b"\nid:" not in event:
        return ""
    value = event.split(b"\nid:", 1)[1].split(b"\n", 1)[0]
    return value.removeprefix(b" ").decode()


def _round_trip(
    port: int, w: Wire, server: subprocess.Popen[bytes], keep: list[Any], v: Placeholders
) -> bytes:
    """Sends on a new connection; reads to EOF, only the head of a connection kept open (and its
    first event's id with event_id), or nothing for a detached request (its connection stays open
    to the end)."""
    out = b""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        _send(s, w, server)
        if w.detach:
            keep.append(s)
            return out
        while chunk := s.recv(65536):
            out += chunk
            if w.event_id:
                v.event_id = _first_event_id(out)
            if w.keep_open and b"\r\n\r\n" in out and (not w.event_id or v.event_id):
                keep.append(s)
                return out[: out.index(b"\r\n\r\n") + 4]
    except OSError:
        pass
    s.close()
    return out


def _dechunk(body: bytes) -> bytes:
    out, at = b"", 0
    while at < len(body):
        eol = body.find(b"\r\n", at)
        if eol < 0:
            break
        n = int(body[at:eol], 16)
        if n == 0:
            break
        out += body[eol + 2 : eol + 2 + n]
        at = eol + 2 + n + 2
    return out


def _parse(raw: bytes, v: Placeholders) -> dict[str, Any]:
    """{"status", "body"?} of a raw response; v.session takes its Mcp-Session-Id."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not raw.startswith(b"HTTP/1.1 ") or not sep:
        return {"status": 0}
    lines = head.decode("latin-1").split("\r\n")
    out: dict[str, Any] = {"status": int(lines[0][9:12])}
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    if "mcp-session-id" in headers:
        v.session = headers["mcp-session-id"]
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    if not body:
        return out
    if headers.get("content-type", "").startswith("text/event-stream"):
        out["body"] = [
            json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:")
        ]
        return out
    try:
        out["body"] = json.loads(body)
    except ValueError:
        out["body"] = body.decode(errors="replace")
    return out


def run(argv: list[str], env: dict[str, str], t: Transcript) -> tuple[list[Any], int, str]:
    """(responses, exit status, stderr) of the fixture serving HTTP for the transcript."""
    port = _free_port()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**env, **t.env, "MCPCXX_EXAMPLE_HTTP_PORT": str(port)},
    )
    responses: list[Any] = []
    keep: list[Any] = []
    stopped = False  # a second SIGTERM could cut the fixture's graceful stop short
    try:
        if _wait_ready(port):
            v = Placeholders()
            for r in requests(t):
                w = _wire_bytes(r, port, v)
                stopped = stopped or w.stop_server or w.stop_mid_body
                responses.append(v.capture(_parse(_round_trip(port, w, proc, keep, v), v)))
    finally:
        if not stopped:
            for s in keep:
                s.close()
            proc.send_signal(signal.SIGTERM)
        # A stopping fixture keeps its connections until it exits: closing one first would cancel
        # the request on it instead of letting the stop finish or cut it off.
        _, err = proc.communicate(timeout=30)
        for s in keep:
            s.close()
    return responses, proc.returncode, err.decode(errors="replace")[-3000:]


def request_facts(r: Request) -> tuple[str, str]:
    """(revision named by MCP-Protocol-Version, else 2025-11-25; JSON-RPC method of the body)."""
    rev = _header(r, "mcp-protocol-version") or ""
    if rev not in KNOWN_REVISIONS:
        rev = "2025-11-25"
    try:
        body = json.loads(r.body)
    except ValueError:
        body = None
    method = body.get("method") if isinstance(body, dict) else None
    return rev, method if isinstance(method, str) else ""
