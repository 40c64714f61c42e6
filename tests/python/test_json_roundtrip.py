"""Exact JSON <-> Python conversion: big ints, floats, unicode, nesting, large payloads."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx.testing import Client


@pytest.fixture
def mirror(server: mcpcxx.Server) -> Client:
    @server.tool
    def echo_value(value: Any = None) -> mcpcxx.ToolResult:
        return mcpcxx.ToolResult(
            content=["ok"], structured_content={"value": value, "type": type(value).__name__}
        )

    return Client(server)


VALUES = [
    0,
    -1,
    2**53 + 1,
    2**63 - 1,
    -(2**63),
    2**63,
    2**64 - 1,
    1.0,
    0.1,
    -0.0,
    1e308,
    5e-324,
    1.7976931348623157e308,
    3.141592653589793,
    True,
    False,
    None,
    "",
    "ünïcødé ✓ 🚀 \u0000 \u2028",
    '"quoted" \\ back',
    [1, [2, [3, []]]],
    {"nested": {"a": {"b": None}}},
    {"": "empty key"},
]


@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:30] for v in VALUES])
def test_round_trip_exact(mirror: Client, value: Any) -> None:
    out = result_of(mirror.call_tool("echo_value", {"value": value}))["structuredContent"]
    assert out["value"] == value
    assert type(out["value"]) is type(value)
    if isinstance(value, float):
        assert math.copysign(1, out["value"]) == math.copysign(1, value)
        assert out["value"].hex() == value.hex()


def test_float_stays_float_and_int_stays_int_on_the_wire(mirror: Client) -> None:
    mirror.call_tool("echo_value", {"value": [1, 1.0, 2**64 - 1]})
    frame = mirror.frames[-1]
    assert '"value":[1,1.0,18446744073709551615]' in frame


def test_int_parameter_accepts_integral_floats(server: mcpcxx.Server) -> None:
    @server.tool
    def kind(n: int) -> str:
        return type(n).__name__

    with Client(server) as c:
        assert result_of(c.call_tool("kind", {"n": 3.0}))["content"][0]["text"] == "int"


@pytest.mark.parametrize(
    ("value", "error", "kind"),
    [
        (2**64, "outside the 64-bit range", OverflowError),
        (-(2**63) - 1, "outside the 64-bit range", OverflowError),
        (float("nan"), "cannot represent", ValueError),
        (float("inf"), "cannot represent", ValueError),
        ({1: "x"}, "keys must be str", TypeError),
        ({"s": {1, 2}}, "not JSON-compatible", TypeError),
        ((1, [2, (3,)]), None, None),
    ],
)
def test_python_to_json_caster_rejects_what_json_cannot_hold(
    server: mcpcxx.Server, value: Any, error: str | None, kind: type | None
) -> None:
    frames: list[str] = []
    session = server.runtime.core.open_session(lambda f, k: frames.append(f), True)
    if kind is None:
        session.notify("notifications/test", {"v": value})
        assert json.loads(frames[-1])["params"]["v"] == [1, [2, [3]]]
    else:
        with pytest.raises(kind, match=error):
            session.notify("notifications/test", {"v": value})
        assert frames == []


@pytest.mark.parametrize("value", [2**64, float("nan")])
def test_unrepresentable_tool_results_are_internal_errors(value: Any) -> None:
    lines: list[str] = []
    srv = mcpcxx.Server("bad", log_writer=lines.append)

    @srv.tool
    def bad() -> mcpcxx.ToolResult:
        return mcpcxx.ToolResult(content=["x"], meta={"v": value})

    with Client(srv) as c:
        result = result_of(c.call_tool("bad"))
    assert result["isError"] is True
    assert any("tool_exception" in line for line in lines)


def test_cyclic_value_is_an_error_not_a_crash(server: mcpcxx.Server) -> None:
    lines: list[str] = []
    srv = mcpcxx.Server("cyc", log_writer=lines.append)
    loop: list[Any] = []
    loop.append(loop)

    @srv.tool
    def cyc() -> mcpcxx.ToolResult:
        return mcpcxx.ToolResult(content=["x"], meta={"v": loop})

    with Client(srv) as c:
        assert result_of(c.call_tool("cyc"))["isError"] is True
    assert any("levels" in line for line in lines)


def test_large_unicode_payload(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def echo(text: str) -> str:
        return text

    big = ("ü🚀" * 500_000)[:1_000_000]
    with Client(server, protocol_version=era) as c:
        result = result_of(c.call_tool("echo", {"text": big}))
    assert result["content"][0]["text"] == big


def test_message_over_the_size_limit_is_refused(server: mcpcxx.Server) -> None:
    srv = mcpcxx.Server("small", max_message_bytes=1000)

    @srv.tool
    def echo(text: str) -> str:
        return text

    c = Client(srv)
    frame = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x" * 2000}},
        }
    )
    assert c.send_raw(frame) == []  # the codec reads the id of an oversized message and echoes it
    reply = c.wait(5)
    assert reply["error"]["code"] == -32600
    assert json.dumps(reply).count("x" * 100) == 0
