"""Raw Streamable HTTP for the cluster tests: exact requests of both eras, exact replies.

Every request carries X-Request-Id (nginx logs it with the replica it went to); every reply
says which replica served it (nginx's X-Replica header). Streams (SSE) are read on a thread of
their own into a queue, so a test waits for the next event with a timeout without ever leaving
a half-read line in a socket buffer.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import queue
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from typing import Any

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TASKS = "io.modelcontextprotocol/tasks"
WITH_TASKS: dict[str, Any] = {"extensions": {TASKS: {}}}
WITH_ELICITATION: dict[str, Any] = {"elicitation": {"form": {}}}

_ids = itertools.count(1)


def next_id() -> int:
    """A JSON-RPC id unique in this process."""
    return next(_ids)


def request_id() -> str:
    """An X-Request-Id unique across this test run's processes."""
    return f"c{os.getpid()}-{next_id()}"


@dataclass
class Event:
    """One server-sent event."""

    id: str | None
    data: str

    def json(self) -> Any:
        """The event's data as JSON (None for a priming event without data)."""
        return json.loads(self.data) if self.data else None


@dataclass
class Reply:
    """A whole HTTP reply: status, headers (lower-case names), body, and its SSE events."""

    status: int
    headers: dict[str, str]
    body: bytes
    events: list[Event] = field(default_factory=list)
    request_id: str = ""

    @property
    def replica(self) -> str:
        """The replica nginx sent the request to ("" without nginx's header)."""
        return self.headers.get("x-replica", "")

    def messages(self) -> list[Any]:
        """The JSON-RPC messages: the JSON body, or every SSE event's data."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            return [e.json() for e in self.events if e.data]
        return [json.loads(self.body)] if self.body else []

    def response(self) -> dict[str, Any]:
        """The one JSON-RPC response (a message with a result or an error)."""
        found = [m for m in self.messages() if "result" in m or "error" in m]
        assert len(found) == 1, f"expected one response, got {self.status} {self.body[:500]!r}"
        return dict(found[0])

    def result(self) -> dict[str, Any]:
        """The response's result (fails, showing the reply, on an error)."""
        r = self.response()
        assert "result" in r, f"expected a result from {self.replica}, got {r}"
        return dict(r["result"])


def structured(result: dict[str, Any]) -> dict[str, Any]:
    """A tool result's structuredContent (the cluster server's tools all return an object)."""
    sc = result.get("structuredContent")
    assert isinstance(sc, dict), f"no structuredContent in {result}"
    return sc


class Stream:
    """An open HTTP exchange whose SSE events arrive on a reader thread."""

    def __init__(self, conn: http.client.HTTPConnection, rid: str) -> None:
        self.conn = conn
        self.request_id = rid
        resp = conn.getresponse()
        self.resp = resp
        self.status = resp.status
        self.headers = {k.lower(): v for k, v in resp.getheaders()}
        self.events: queue.Queue[Event | None] = queue.Queue()
        self.ended = threading.Event()
        self.body = b""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.body = resp.read()
            self.ended.set()
            self.events.put(None)

    @property
    def replica(self) -> str:
        """The replica nginx sent the request to."""
        return self.headers.get("x-replica", "")

    def _read(self) -> None:
        ident: str | None = None
        data: list[str] = []
        seen = False
        try:
            while True:
                raw = self.resp.readline()
                if not raw:
                    break
                line = raw.decode().rstrip("\r\n")
                if not line:
                    if seen:
                        self.events.put(Event(ident, "\n".join(data)))
                    ident, data, seen = None, [], False
                elif line.startswith(":"):
                    continue
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    seen = True
                    if name == "id":
                        ident = value
                    elif name == "data":
                        data.append(value)
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # the stream was cut (a killed replica, or close())
        finally:
            self.ended.set()
            self.events.put(None)

    def next_event(self, timeout: float = 30) -> Event | None:
        """The next event; None when the stream ended; TimeoutError after `timeout` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no event from {self.replica} within {timeout:.1f} s") from None

    def next_message(self, timeout: float = 30) -> Any:
        """The next event that carries a message (priming events skipped); None at the end."""
        while True:
            e = self.next_event(timeout)
            if e is None or e.data:
                return None if e is None else e.json()

    def until(self, match: Any, timeout: float = 30) -> tuple[list[Any], Any]:
        """Messages up to the first for which match(message) holds: (those before, it)."""
        before = []
        while True:
            m = self.next_message(timeout)
            if m is None:
                raise AssertionError(f"the stream ended before a match; got {before}")
            if match(m):
                return before, m
            before.append(m)

    def close(self) -> None:
        """Closes the connection (the client goes away)."""
        self.conn.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Endpoint:
    """The MCP endpoint (nginx, or a replica directly)."""

    def __init__(self, url: str, timeout: float = 60) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path
        self.timeout = timeout

    def open(self, method: str, headers: dict[str, str], body: Any = None) -> Stream:
        """Sends one request (a JSON body when given) and returns the open reply."""
        rid = request_id()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        data = None if body is None else json.dumps(body).encode()
        try:
            conn.request(method, self.path, data, {**headers, "X-Request-Id": rid})
            return Stream(conn, rid)
        except BaseException:
            conn.close()  # a refused or cut connection leaves no socket behind
            raise

    def exchange(self, method: str, headers: dict[str, str], body: Any = None) -> Reply:
        """Sends one request and reads the whole reply (every SSE event to the stream's end)."""
        s = self.open(method, headers, body)
        try:
            events = []
            while True:
                e = s.next_event(self.timeout)
                if e is None:
                    break
                events.append(e)
            return Reply(s.status, s.headers, s.body, events, s.request_id)
        finally:
            s.close()

    # ---- 2026-07-28 -------------------------------------------------------------------------

    def modern(
        self, method: str, params: dict[str, Any], caps: dict[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Headers and body of a 2026-07-28 request (Mcp-Name from the params, as required)."""
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps or {},
            "io.modelcontextprotocol/clientInfo": {"name": "cluster-test", "version": "1"},
        }
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
        }
        name = params.get("name") or params.get("uri") or params.get("taskId")
        if name is not None:
            headers["Mcp-Name"] = str(name)
        body = {"jsonrpc": "2.0", "id": next_id(), "method": method}
        body["params"] = {**params, "_meta": meta}
        return headers, body

    def call(
        self, method: str, params: dict[str, Any], caps: dict[str, Any] | None = None
    ) -> Reply:
        """One 2026-07-28 request, read to its end."""
        headers, body = self.modern(method, params, caps)
        return self.exchange("POST", headers, body)

    def tool(self, name: str, caps: dict[str, Any] | None = None, **arguments: Any) -> Reply:
        """A 2026-07-28 tools/call of `name` with `arguments`."""
        return self.call("tools/call", {"name": name, "arguments": arguments}, caps)

    def listen(self, notifications: dict[str, Any], caps: dict[str, Any] | None = None) -> Stream:
        """Opens a 2026-07-28 subscriptions/listen stream (its acknowledgement still unread)."""
        headers, body = self.modern("subscriptions/listen", {"notifications": notifications}, caps)
        return self.open("POST", headers, body)


class LegacySession:
    """A 2025-11-25 session over one endpoint: its id and negotiated headers."""

    def __init__(self, endpoint: Endpoint, caps: dict[str, Any] | None = None) -> None:
        self.endpoint = endpoint
        self.caps = caps or {}
        self.session_id = ""

    def headers(self, accept: str = "application/json, text/event-stream") -> dict[str, str]:
        """The headers every request of the session carries."""
        h = {"Content-Type": "application/json", "Accept": accept}
        if self.session_id:
            h.update({"Mcp-Session-Id": self.session_id, "MCP-Protocol-Version": LEGACY})
        return h

    def start(self) -> Reply:
        """initialize alone; keeps the session id."""
        params = {
            "protocolVersion": LEGACY,
            "capabilities": self.caps,
            "clientInfo": {"name": "cluster-test", "version": "1"},
        }
        body = {"jsonrpc": "2.0", "id": next_id(), "method": "initialize", "params": params}
        reply = self.endpoint.exchange("POST", self.headers(), body)
        assert reply.status == 200, f"initialize: {reply.status} {reply.body!r}"
        self.session_id = reply.headers["mcp-session-id"]
        return reply

    def initialize(self) -> Reply:
        """initialize, then notifications/initialized (202 expected); keeps the session id."""
        reply = self.start()
        done = self.notify("notifications/initialized")
        assert done.status == 202, f"notifications/initialized: {done.status} {done.body!r}"
        return reply

    def body(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A request of the session."""
        return {"jsonrpc": "2.0", "id": next_id(), "method": method, "params": params or {}}

    def request(self, method: str, params: dict[str, Any] | None = None) -> Reply:
        """One request, read to its end."""
        return self.endpoint.exchange("POST", self.headers(), self.body(method, params))

    def open(self, method: str, params: dict[str, Any] | None = None) -> Stream:
        """One request whose reply stream the test reads itself."""
        return self.endpoint.open("POST", self.headers(), self.body(method, params))

    def tool(self, name: str, **arguments: Any) -> Reply:
        """tools/call of `name`."""
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Reply:
        """A notification (202 expected)."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return self.endpoint.exchange("POST", self.headers(), body)

    def answer(self, request_id: Any, result: dict[str, Any]) -> Reply:
        """The client's response to a server-to-client request (202 expected)."""
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        return self.endpoint.exchange("POST", self.headers(), body)

    def get(self, last_event_id: str | None = None) -> Stream:
        """GET: the session's stream, or a resumed one after `last_event_id`."""
        headers = self.headers("text/event-stream")
        del headers["Content-Type"]
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        return self.endpoint.open("GET", headers)

    def delete(self) -> Reply:
        """DELETE: ends the session."""
        headers = self.headers()
        del headers["Content-Type"]
        return self.endpoint.exchange("DELETE", headers)


# ---- scenario steps the test modules share -----------------------------------------------


def task_get(ep: Endpoint, task_id: str) -> Reply:
    """tasks/get of `task_id` (Mcp-Name carries it, as SEP-2663 asks)."""
    return ep.call("tasks/get", {"taskId": task_id}, WITH_TASKS)


def create_task(ep: Endpoint, seconds: float) -> tuple[Reply, str, str]:
    """A `job` task: (the CreateTaskResult reply, the task id, the job's tag)."""
    tag = uuid.uuid4().hex[:12]
    created = ep.tool("job", WITH_TASKS, seconds=seconds, tag=tag)
    result = created.result()
    assert result.get("resultType") == "task", f"not a task: {result}"
    return created, str(result["taskId"]), tag


def acknowledged(stream: Stream) -> dict[str, Any]:
    """The listen's acknowledgement (its first message)."""
    assert stream.status == 200, f"listen: {stream.status} {stream.body!r}"
    ack = stream.next_message(10)
    assert ack and ack.get("method") == "notifications/subscriptions/acknowledged", ack
    return dict(ack["params"]["notifications"])


def updates_within(stream: Stream, seconds: float) -> list[str]:
    """The URIs of the notifications/resources/updated the stream brings within `seconds`."""
    uris = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            note = stream.next_message(left)
        except TimeoutError:
            break
        if note is None:
            break
        if note.get("method") == "notifications/resources/updated":
            uris.append(note["params"]["uri"])
    return uris
