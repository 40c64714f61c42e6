"""subscriptions/listen from Python: list_changed following registrations, notify_resource_updated
reaching legacy subscribers and modern listeners, remove_*, bad params, cancellation, and the
fixture server over stdio and Streamable HTTP (disconnect mid-stream, server stop)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpcxx
from mcp_requests import MODERN_META
from mcpcxx.testing import LEGACY, Client

SUB = "io.modelcontextprotocol/subscriptionId"
FIXTURE = pathlib.Path(__file__).parents[2] / "tests" / "fixtures" / "python" / "fixture_server.py"


def late() -> str:
    return "late"


def settle() -> None:
    """Waits out the 20 ms list_changed window so the next change is announced at once."""
    time.sleep(0.05)


def wait_for(client: Client, method: str, count: int = 1, timeout: float = 5.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [n for n in client.notifications if n.get("method") == method]
        if len(found) >= count:
            return found
        time.sleep(0.01)
    return [n for n in client.notifications if n.get("method") == method]


@pytest.fixture
def server() -> Iterator[mcpcxx.Server]:
    srv = mcpcxx.Server("listen-test", "1.0.0", workers=2)

    @srv.tool
    def first() -> str:
        return "first"

    @srv.resource("memo://a")
    def memo_a() -> str:
        return "a"

    @srv.prompt
    def greet() -> str:
        return "hello"

    yield srv
    srv.close()


def test_discover_advertises_list_changed_and_subscribe(server: mcpcxx.Server) -> None:
    with Client(server) as c:
        caps = c.discover()["result"]["capabilities"]
    assert caps["tools"] == {"listChanged": True}
    assert caps["prompts"] == {"listChanged": True}
    assert caps["resources"] == {"listChanged": True, "subscribe": True}


def test_listen_gets_only_what_it_asked_for(server: mcpcxx.Server) -> None:
    with Client(server) as c:
        c.send(
            "subscriptions/listen",
            {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["memo://a"]}},
            request_id="L",
        )
        (ack,) = wait_for(c, "notifications/subscriptions/acknowledged")
        assert ack["params"]["notifications"] == {
            "toolsListChanged": True,
            "resourceSubscriptions": ["memo://a"],
        }
        assert ack["params"]["_meta"][SUB] == "L"
        settle()

        @server.prompt
        def other() -> str:  # nobody asked for prompts
            return "x"

        server.notify_resource_updated("memo://elsewhere")  # nobody watches it
        server.add_tool(late)
        server.notify_resource_updated("memo://a")
        changed = wait_for(c, "notifications/tools/list_changed")
        updated = wait_for(c, "notifications/resources/updated")
        assert [n["params"]["_meta"][SUB] for n in changed + updated] == ["L", "L"]
        assert updated[0]["params"]["uri"] == "memo://a"
        methods = {n["method"] for n in c.notifications}
        assert "notifications/prompts/list_changed" not in methods
        assert not c.has_response("L"), "an open listen has no response"


def test_remove_functions(server: mcpcxx.Server) -> None:
    with Client(server) as c:
        c.send(
            "subscriptions/listen",
            {"notifications": {"promptsListChanged": True, "resourcesListChanged": True}},
        )
        settle()
        assert server.remove_prompt("greet") is True
        assert server.remove_prompt("greet") is False
        assert server.remove_resource("memo://a") is True
        assert server.remove_resource("memo://a") is False
        assert server.remove_tool("first") is True
        assert server.remove_tool("first") is False
        assert wait_for(c, "notifications/prompts/list_changed")
        assert wait_for(c, "notifications/resources/list_changed")
        # With the last one gone the server no longer has the capability at all.
        assert c.list_prompts()["error"]["code"] == -32601
        assert c.list_resources()["error"]["code"] == -32601
        assert c.list_tools()["error"]["code"] == -32601
        assert "tools" not in c.discover()["result"]["capabilities"]


def test_remove_a_resource_template(server: mcpcxx.Server) -> None:
    @server.resource("issue://{key}")
    def issue(key: str) -> str:
        return key

    assert server.remove_resource("issue://{key}") is True
    with Client(server) as c:
        assert c.list_resource_templates()["result"]["resourceTemplates"] == []


def test_legacy_sessions_get_list_changed_and_resource_updates(server: mcpcxx.Server) -> None:
    with Client(server, protocol_version=LEGACY) as c:
        assert c.request("resources/subscribe", {"uri": "memo://a"})["result"] == {}
        settle()
        server.notify_resource_updated("memo://a")
        server.remove_tool("first")
        (updated,) = wait_for(c, "notifications/resources/updated")
        assert updated["params"] == {"uri": "memo://a"}
        assert wait_for(c, "notifications/tools/list_changed")


def test_a_burst_of_registrations_is_coalesced(server: mcpcxx.Server) -> None:
    with Client(server) as c:
        c.send("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        settle()
        began = time.monotonic()
        for i in range(50):
            server.add_tool(late, name=f"t{i}")
        burst = time.monotonic() - began
        time.sleep(0.1)
        # At most two announcements (the leading one and one at the window's end) per 20 ms
        # window the burst spans: one window on an idle machine, more on a loaded one.
        windows = int(burst / 0.020) + 1
        announced = len(wait_for(c, "notifications/tools/list_changed"))
        assert 1 <= announced <= min(2 * windows, 49), f"burst took {burst * 1000:.1f} ms"


def test_cancelling_the_listen_stops_its_notifications(server: mcpcxx.Server) -> None:
    with Client(server) as c:
        rid = c.send("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        c.cancel(rid)
        settle()
        server.remove_tool("first")
        time.sleep(0.1)
        assert wait_for(c, "notifications/tools/list_changed", timeout=0.1) == []
        assert c.in_flight == 0


@pytest.mark.parametrize(
    ("notifications", "code", "needle"),
    [
        (None, -32602, "needs params.notifications"),
        ("tools", -32602, "got string"),
        ({"toolsListChanged": 1}, -32602, "toolsListChanged must be true or false"),
        ({"resourceSubscriptions": "memo://a"}, -32602, "must be an array"),
        ({"resourceSubscriptions": ["memo://a", None]}, -32602, "resourceSubscriptions member 1"),
    ],
)
def test_bad_params(server: mcpcxx.Server, notifications: Any, code: int, needle: str) -> None:
    params = {} if notifications is None else {"notifications": notifications}
    with Client(server) as c:
        error = c.request("subscriptions/listen", params)["error"]
    assert error["code"] == code
    assert needle in error["message"]


def test_limits_are_server_options() -> None:
    srv = mcpcxx.Server("small", max_listeners=1, max_listen_uris=1, listener_queue=8)
    try:
        with Client(srv) as c:
            many = {"notifications": {"resourceSubscriptions": ["a:1", "a:2"]}}
            assert c.request("subscriptions/listen", many)["error"]["data"] == {
                "count": 2,
                "limit": 1,
            }
            c.send("subscriptions/listen", {"notifications": {}})
            second = c.request("subscriptions/listen", {"notifications": {}})
            assert second["error"]["code"] == -32603
    finally:
        srv.close()


def test_listen_on_a_legacy_session_is_the_other_eras_method(server: mcpcxx.Server) -> None:
    with Client(server, protocol_version=LEGACY) as c:
        error = c.request("subscriptions/listen", {"notifications": {}})["error"]
    assert error["code"] == -32601
    assert "subscriptions/listen" in error["message"]


def test_notify_resource_updated_checks_its_argument(server: mcpcxx.Server) -> None:
    with pytest.raises(TypeError):
        server.notify_resource_updated("")


# ----- the fixture server as a process ------------------------------------------------------------


def fixture_env(**extra: str) -> dict[str, str]:
    package_root = str(pathlib.Path(mcpcxx.__file__).parents[1])
    path = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "MCPCXX_EXAMPLE_LISTEN": "1", **extra}


def listen_line(rid: Any, notifications: dict[str, Any]) -> bytes:
    params = {"notifications": notifications, "_meta": MODERN_META}
    body = {"jsonrpc": "2.0", "id": rid, "method": "subscriptions/listen", "params": params}
    return (json.dumps(body) + "\n").encode()


def call_line(rid: Any, tool: str, arguments: dict[str, Any]) -> bytes:
    return (json.dumps(call_body(rid, tool, arguments)) + "\n").encode()


def read_message(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "the server closed stdout"
    message: dict[str, Any] = json.loads(line)
    return message


def test_stdio_client_that_disconnects_mid_stream() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=fixture_env(),
    )
    assert proc.stdin is not None
    proc.stdin.write(listen_line(1, {"resourceSubscriptions": ["memo://readme"]}))
    proc.stdin.write(call_line(2, "touch", {"uri": "memo://readme"}))
    proc.stdin.flush()
    assert read_message(proc)["method"] == "notifications/subscriptions/acknowledged"
    updated = read_message(proc)
    assert updated["method"] == "notifications/resources/updated"
    assert updated["params"]["_meta"][SUB] == 1
    assert read_message(proc)["id"] == 2
    proc.stdin.close()  # the client goes away with its listen open
    assert proc.wait(timeout=20) == 0
    assert proc.stdout is not None and proc.stdout.read() == b"", "no reply after the client left"
    proc.stdout.close()


def test_stdio_server_stop_ends_the_listen_with_cancelled_and_the_result() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=fixture_env(MCPCXX_DRAIN_GRACE_MS="300"),
    )
    assert proc.stdin is not None
    proc.stdin.write(listen_line("s", {"toolsListChanged": True}))
    proc.stdin.flush()
    assert read_message(proc)["method"] == "notifications/subscriptions/acknowledged"
    proc.send_signal(signal.SIGTERM)
    cancelled = read_message(proc)
    assert cancelled["method"] == "notifications/cancelled"
    assert cancelled["params"]["requestId"] == "s"
    result = read_message(proc)
    assert result["id"] == "s"
    assert result["result"]["resultType"] == "complete"
    assert result["result"]["_meta"][SUB] == "s"
    assert proc.wait(timeout=20) == 0
    proc.stdin.close()
    assert proc.stdout is not None
    proc.stdout.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpStream:
    """A raw POST whose SSE events are read one at a time (chunked transfer, one event each)."""

    def __init__(self, port: int, body: dict[str, Any]) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        data = json.dumps(body).encode()
        head = (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            f"Mcp-Method: {body['method']}\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + data)
        self.file = self.sock.makefile("rb")
        status = self.file.readline()
        assert b" 200 " in status, status
        while self.file.readline() not in (b"\r\n", b""):
            pass

    def event(self) -> dict[str, Any] | None:
        size = int(self.file.readline().strip() or b"0", 16)
        if size == 0:
            return None
        chunk = self.file.read(size + 2)[:size].decode()
        data = [line[6:] for line in chunk.splitlines() if line.startswith("data: ")]
        event: dict[str, Any] = json.loads("\n".join(data))
        return event

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def http_fixture() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=fixture_env(MCPCXX_EXAMPLE_HTTP_PORT=str(port)),
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    yield proc, port
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def listen_body(rid: Any, notifications: dict[str, Any]) -> dict[str, Any]:
    params = {"notifications": notifications, "_meta": MODERN_META}
    return {"jsonrpc": "2.0", "id": rid, "method": "subscriptions/listen", "params": params}


def call_body(rid: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments, "_meta": MODERN_META}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def test_http_listen_disconnect_then_stop(
    http_fixture: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, port = http_fixture
    gone = HttpStream(port, listen_body(1, {"resourceSubscriptions": ["memo://readme"]}))
    assert gone.event()["method"] == "notifications/subscriptions/acknowledged"  # type: ignore[index]
    gone.close()  # disconnect mid-stream: the server cancels that listen

    stream = HttpStream(port, listen_body(2, {"resourceSubscriptions": ["memo://readme"]}))
    assert stream.event()["method"] == "notifications/subscriptions/acknowledged"  # type: ignore[index]
    # tools/call on its own POST (Mcp-Name is required for tools/call).
    body = call_body(3, "touch", {"uri": "memo://readme"})
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    data = json.dumps(body).encode()
    sock.sendall(
        (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            "Mcp-Method: tools/call\r\nMcp-Name: touch\r\nConnection: close\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        + data
    )
    reply = b""
    while chunk := sock.recv(65536):
        reply += chunk
    sock.close()
    assert b"Notified the watchers of memo://readme" in reply
    updated = stream.event()
    assert updated is not None and updated["method"] == "notifications/resources/updated"
    assert updated["params"]["_meta"][SUB] == 2
    proc.send_signal(signal.SIGTERM)
    result = stream.event()
    assert result is not None and result["id"] == 2 and result["result"]["_meta"][SUB] == 2
    assert stream.event() is None, "the stream ends after the result"
    stream.close()
    assert proc.wait(timeout=20) == 0
