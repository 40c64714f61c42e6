"""Every row of docs/error-model.md, produced through the Python API and asserted on the wire."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import Context, ProtocolError, ResourceNotFound, ToolError
from mcpcxx.testing import LEGACY, MODERN, Client, text_of


class Count(BaseModel):
    count: int


def build(server: mcpcxx.Server) -> None:
    @server.tool(annotations={"read_only_hint": True})
    def echo(text: str) -> str:
        return text

    @server.tool
    def bounded(n: Annotated[int, Field(ge=1, le=50)], token: str = "") -> str:
        return str(n)

    @server.tool
    def lookup(key: str) -> str:
        raise ToolError.compose(
            "Issue lookup",
            resource=f"issue {key}",
            reason="it was not found",
            next_step="Verify the issue key or list recent issues first",
            retry_guidance="Do not retry unchanged",
            category="not_found",
            resource_id=key,
        )

    @server.tool
    def locked() -> Count:
        raise ToolError(
            "Issue update failed: ENG-42 is locked by another workflow. Retry after the workflow "
            "finishes; no fields were changed.",
            category="conflict",
            resource="ENG-42",
            retry_after=30,
        )

    @server.tool
    def quota() -> str:
        raise ProtocolError(-31001, "Daily quota exhausted", {"retryAfterSeconds": 3600})

    @server.tool(annotations={"read_only_hint": True})
    def crash_ro() -> str:
        raise KeyError("id")

    @server.tool
    def crash_rw() -> str:
        raise ValueError("db password is hunter2")

    @server.tool
    def bad_output() -> Count:
        return {"count": "many"}  # type: ignore[return-value]

    @server.tool
    def own_error() -> mcpcxx.ToolResult:
        return mcpcxx.ToolResult(content=["I failed my own way"], is_error=True)

    @server.tool(timeout=0.05, annotations={"read_only_hint": True})
    def slow_ro(ctx: Context) -> str:
        while not ctx.cancelled:
            pass
        return "late"

    @server.tool(timeout=0.05)
    async def slow_rw() -> str:
        import asyncio

        await asyncio.sleep(30)
        return "late"

    @server.tool
    def needs_elicitation(ctx: Context) -> str:
        ctx.require_client_capability("elicitation")
        return "can elicit"

    @server.resource("docs://readme")
    def readme() -> str:
        return "hello"

    @server.resource("issues://{key}")
    def issue(key: str) -> dict[str, str]:
        if key != "ENG-1":
            raise ResourceNotFound(f"issues://{key}")
        return {"key": key}

    @server.resource("crash://now")
    def crash_resource() -> str:
        raise RuntimeError("resource secret")

    @server.prompt
    def review(code: str, style: str = "short") -> str:
        """Review code."""
        return f"Review ({style}): {code}"


@pytest.fixture
def client(server: mcpcxx.Server, era: str) -> Any:
    build(server)
    c = Client(server, protocol_version=era)
    yield c
    c.close()


def details(response: dict[str, Any]) -> dict[str, Any]:
    return result_of(response)["_meta"]["mcpcxx/error"]


# ----- protocol errors ----------------------------------------------------------------------


def test_p1_parse_error_gets_id_null(client: Client) -> None:
    (reply,) = client.send_raw('{"jsonrpc": "2.0", "id": 1, "method": ')
    assert reply["id"] is None and reply["error"]["code"] == -32700
    (reply,) = client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}')
    assert reply["error"]["code"] == -32700


def test_p2_not_a_message(client: Client) -> None:
    (reply,) = client.send_raw('{"jsonrpc":"2.0","id":true,"method":"tools/list"}')
    assert reply["error"]["code"] == -32600
    client.send_raw('{"jsonrpc":"1.0","id":7,"method":"tools/list"}')
    assert client.wait(7)["error"]["code"] == -32600


def test_p3_nesting_limit(client: Client) -> None:
    (reply,) = client.send_raw("[" * 100 + "]" * 100)
    assert reply["error"]["code"] == -32600
    assert "maximum" in reply["error"]["message"]


def test_p4_batch_refused(client: Client) -> None:
    replies = client.send_raw('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]')
    assert replies[0]["error"]["code"] == -32600
    assert "batch" in replies[0]["error"]["message"]


def test_p5_batches_on_a_2025_03_26_session(server: mcpcxx.Server) -> None:
    build(server)
    c = Client(server, protocol_version="2025-03-26")
    assert c.initialize_result is not None
    assert c.initialize_result["result"]["protocolVersion"] == "2025-03-26"
    (reply,) = c.send_raw("[]")
    assert reply["error"]["code"] == -32600
    c.send_raw(
        json.dumps(
            [
                {
                    "jsonrpc": "2.0",
                    "id": 41,
                    "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "a"}},
                },
                {"jsonrpc": "2.0", "id": 42, "method": "tools/list"},
            ]
        )
    )
    assert text_of(c.wait(41)) == "a"
    assert "tools" in c.wait(42)["result"]


def test_p6_duplicate_in_flight_id(server: mcpcxx.Server, era: str) -> None:
    build(server)
    c = Client(server, protocol_version=era, inline=False)
    first = c.call_tool_nowait("slow_rw", {}, request_id="same")
    c.call_tool_nowait("echo", {"text": "x"}, request_id="same")
    reply = c.wait(first)
    assert reply["error"]["code"] == -32600 and "already in use" in reply["error"]["message"]
    late = c.wait(first)
    assert late["result"]["isError"] is True  # the original request still times out normally
    c.close()


def test_p7_second_initialize(server: mcpcxx.Server) -> None:
    build(server)
    c = Client(server, protocol_version=LEGACY)
    assert error_of(c.initialize())["code"] == -32600


def test_p8_unknown_method(client: Client) -> None:
    error = error_of(client.request("tools/frobnicate"))
    assert error["code"] == -32601 and error["data"]["method"] == "tools/frobnicate"


def test_p9_method_of_the_other_era(client: Client) -> None:
    if client.modern:
        error = error_of(client.request("ping"))
    else:
        error = error_of(client.request("server/discover"))
    assert error["code"] == -32601


def test_p10_capability_not_offered(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def only() -> str:
        return ""

    c = Client(server, protocol_version=era)
    error = error_of(c.request("prompts/list"))
    assert error["code"] == -32601 and error["data"]["capability"] == "prompts"


def test_p11_p12_modern_meta(server: mcpcxx.Server) -> None:
    build(server)
    c = Client(server)
    (reply,) = [
        c.wait(c.send("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": None}}))
    ]
    assert reply["error"]["code"] in (-32602, -32022)
    raw = {
        "jsonrpc": "2.0",
        "id": 99,
        "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
    }
    c.send_raw(json.dumps(raw))
    reply = c.wait(99)
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"]["missing"] == ["io.modelcontextprotocol/clientCapabilities"]
    bad = Client(server, protocol_version="2030-01-01", initialize=False)
    bad.modern = True
    error = error_of(bad.list_tools())
    assert error["code"] == -32022 and error["data"]["requested"] == "2030-01-01"


def test_p13_missing_client_capability(server: mcpcxx.Server) -> None:
    build(server)
    error = error_of(Client(server).call_tool("needs_elicitation"))
    assert error["code"] == -32021
    assert error["data"]["requiredCapabilities"] == {"elicitation": {}}
    ok = Client(server, capabilities={"elicitation": {}}).call_tool("needs_elicitation")
    assert text_of(ok) == "can elicit"


def test_p14_request_before_initialize(server: mcpcxx.Server) -> None:
    build(server)
    c = Client(server, protocol_version=LEGACY, initialize=False)
    error = error_of(c.list_tools())
    assert error["code"] == -32602 and "send initialize" in error["message"]
    assert error["data"]["supported"][0] == MODERN


def test_p15_p16_malformed_params(client: Client) -> None:
    error = error_of(client.request("tools/call", {"arguments": {}}))
    assert error["code"] == -32602 and "params.name" in error["message"]
    error = error_of(client.request("tools/call", {"name": "echo", "arguments": [1]}))
    assert error["code"] == -32602 and "arguments" in error["message"]


def test_p17_unknown_tool_with_suggestion(client: Client) -> None:
    error = error_of(client.call_tool("ecko", {}))
    assert error["code"] == -32602
    assert error["message"] == "Unknown tool: ecko"
    assert "echo" in error["data"]["didYouMean"]


def test_p18_invalid_cursor(client: Client) -> None:
    error = error_of(client.list_tools(cursor="not-a-cursor"))
    assert error["code"] == -32602 and "cursor" in error["message"]


def test_p19_prompts(client: Client) -> None:
    assert error_of(client.get_prompt("nope"))["code"] == -32602
    error = error_of(client.get_prompt("review", {}))
    assert error["code"] == -32602 and error["data"]["missing"] == ["code"]
    result = result_of(client.get_prompt("review", {"code": "x = 1"}))
    assert result["messages"][0]["content"] == {"type": "text", "text": "Review (short): x = 1"}
    assert result["description"] == "Review code."


def test_p20_p21_resource_not_found(client: Client) -> None:
    error = error_of(client.read_resource("issues://ENG-2"))
    assert error["code"] == (-32602 if client.modern else -32002)
    assert error["data"] == {"uri": "issues://ENG-2"}
    error = error_of(client.read_resource("nothing://here"))
    assert error["code"] == (-32602 if client.modern else -32002)
    contents = result_of(client.read_resource("issues://ENG-1"))["contents"]
    assert json.loads(contents[0]["text"]) == {"key": "ENG-1"}
    assert contents[0]["mimeType"] == "application/json"


def test_p22_invalid_log_level(client: Client) -> None:
    if client.modern:
        c = Client(client.server, log_level="loud")
        error = error_of(c.list_tools())
    else:
        error = error_of(client.request("logging/setLevel", {"level": "loud"}))
    assert error["code"] == -32602 and "log level" in error["message"]


def test_p23_explicit_protocol_error(client: Client) -> None:
    error = error_of(client.call_tool("quota"))
    assert error == {
        "code": -31001,
        "message": "Daily quota exhausted",
        "data": {"retryAfterSeconds": 3600},
    }


def test_p23_reserved_codes_refused_at_the_raise_site() -> None:
    with pytest.raises(ValueError, match="reserved"):
        ProtocolError(-32601, "no")
    for code in (-32602, -32603, -32002, -31999, -32769, 1):
        assert ProtocolError(code, "ok").code == code


def test_p24_crash_in_a_resource_reader(client: Client) -> None:
    error = error_of(client.read_resource("crash://now"))
    assert error["code"] == -32603
    assert re.fullmatch(r"ERR-[0-9a-f]{8}", error["data"]["reference"])
    assert "secret" not in json.dumps(error)


# ----- tool execution errors ----------------------------------------------------------------


def test_t1_invalid_arguments(client: Client) -> None:
    response = client.call_tool("bounded", {"n": 999, "token": 5})
    result = result_of(response)
    assert result["isError"] is True
    text = text_of(response)
    assert text.startswith("Invalid arguments for tool bounded; nothing was executed.")
    assert "/n" in text and "/token" in text and "999" not in text
    assert details(response)["category"] == "invalid_arguments"
    assert details(response)["retryable"] is False


def test_t1_from_pydantic_conversion_after_engine_validation(client: Client) -> None:
    server = client.server

    class Window(BaseModel):
        start: int
        end: int

        def model_post_init(self, context: Any) -> None:
            if self.end < self.start:
                raise ValueError("end must not be before start")

    @server.tool
    def window(w: Window) -> str:
        return "ok"

    response = client.call_tool("window", {"w": {"start": 5, "end": 1}})
    assert result_of(response)["isError"] is True
    assert details(response)["category"] == "invalid_arguments"
    assert "Invalid arguments for tool window" in text_of(response)


def test_t2_tool_error_exact_text_and_details(client: Client) -> None:
    response = client.call_tool("lookup", {"key": "ENG-42"})
    assert text_of(response) == (
        "Issue lookup failed: issue ENG-42. It was not found. Verify the issue key or list recent "
        "issues first. Do not retry unchanged."
    ) or text_of(response).startswith("Issue lookup failed: issue ENG-42.")
    result = result_of(response)
    assert result["isError"] is True
    assert details(response) == {
        "category": "not_found",
        "retryable": False,
        "effect": "not_applied",
        "resource": "ENG-42",
    }
    assert result["structuredContent"] == details(response)


def test_t2_tool_error_on_a_tool_with_output_schema(client: Client) -> None:
    response = client.call_tool("locked")
    result = result_of(response)
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert details(response)["retryAfterSeconds"] == 30
    assert details(response)["retryable"] is True
    assert details(response)["category"] == "conflict"


@pytest.mark.parametrize("expose", [False, True])
def test_t3_unexpected_exception_sanitized(era: str, expose: bool) -> None:
    lines: list[str] = []
    server = mcpcxx.Server("t3", expose_exception_details=expose, log_writer=lines.append)
    build(server)
    c = Client(server, protocol_version=era)
    for tool, effect in (("crash_ro", "not_applied"), ("crash_rw", "unknown")):
        response = c.call_tool(tool)
        text = text_of(response)
        meta = details(response)
        ref = meta["reference"]
        assert re.fullmatch(r"ERR-[0-9a-f]{8}", ref)
        assert text.startswith(f"{tool} failed with an internal error (reference {ref}).")
        assert meta["category"] == "internal" and meta["effect"] == effect
        assert "Traceback" not in text
        secret = "hunter2" if tool == "crash_rw" else "KeyError"
        assert (secret in text) is expose
        logged = [json.loads(x) for x in lines if ref in x and "tool_exception" in x]
        assert len(logged) == 1
        assert "Traceback (most recent call last)" in logged[0]["detail"]
        assert logged[0]["reference"] == ref
    server.close()


def test_t4_output_schema_mismatch(client: Client) -> None:
    response = client.call_tool("bad_output")
    result = result_of(response)
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert "did not match the tool's declared output schema" in text_of(response)
    assert details(response)["category"] == "internal"


@pytest.mark.parametrize(
    ("tool", "phrase"), [("slow_ro", "retrying is safe"), ("slow_rw", "outcome is unknown")]
)
def test_t5_deadline(client: Client, tool: str, phrase: str) -> None:
    response = client.call_tool(tool)
    assert result_of(response)["isError"] is True
    assert details(response)["category"] == "timeout"
    assert phrase in text_of(response)


def test_t6_tool_returns_its_own_error(client: Client) -> None:
    result = result_of(client.call_tool("own_error"))
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "I failed my own way"}]


def test_no_reply_to_notifications(client: Client) -> None:
    before = len(client.frames)
    client.notify("notifications/whatever")
    client.notify("notifications/initialized")
    assert len(client.frames) == before


def test_metrics_count_outcomes(client: Client) -> None:
    client.call_tool("echo", {"text": "x"})
    client.call_tool("lookup", {"key": "K"})
    client.call_tool("nope")
    m = client.server.metrics()
    assert m["tool_errors"] >= 1 and m["protocol_errors"] >= 1
    assert m["by_category"]["not_found"] >= 1
