"""Middleware from Python (docs/middleware.md): plain and async hooks, their order, the refusal
rows they answer with in both eras, replaced results, state from before to after, hooks that
raise, async tools, and the registration errors. Each test fails when the hook does not run, runs
in the wrong place, or its answer does not reach the wire as the row the error model says.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import Middleware, Refusal, Reply, ToolError
from mcpcxx.middleware import Request
from mcpcxx.testing import Client, text_of


def details(response: dict[str, Any]) -> dict[str, Any]:
    result = result_of(response)
    assert result.get("isError") is True, result
    d: dict[str, Any] = result["_meta"]["mcpcxx/error"]
    return d


def make_server() -> tuple[mcpcxx.Server, list[str]]:
    server = mcpcxx.Server("mw")
    runs: list[str] = []

    @server.tool(annotations={"readOnlyHint": True})
    def echo(say: str = "-") -> str:
        runs.append("echo")
        return f"echo {say}"

    @server.tool()
    def write() -> str:
        runs.append("write")
        return "w" * 300

    @server.tool()
    async def later() -> str:
        await asyncio.sleep(0.02)
        runs.append("later")
        return "done later"

    return server, runs


class Trace(Middleware):
    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def before(self, request: Request) -> None:
        self.log.append(f"before {self.name} {request.method} {request.name}")

    async def after(self, request: Request, reply: Reply) -> None:
        await asyncio.sleep(0)
        self.log.append(f"after {self.name} {reply.kind}")


def test_hooks_run_in_order_before_and_in_reverse_after_plain_and_async() -> None:
    server, _ = make_server()
    log: list[str] = []
    server.add_middleware(Trace("a", log), methods=["tools/call"])
    server.add_middleware(Trace("b", log), methods=["tools/call"])
    with Client(server) as c:
        assert text_of(c.call_tool("echo", {"say": "hi"})) == "echo hi"
    assert log == [
        "before a tools/call echo",
        "before b tools/call echo",
        "after b result",
        "after a result",
    ]


class Tenant(Middleware):
    methods = ("tools/call",)

    def before(self, request: Request) -> Reply | None:
        if request.name == "write":
            return Reply.refuse(Refusal.forbidden("tenant acme cannot write"))
        return None


@pytest.mark.parametrize("version", ["2026-07-28", "2025-11-25"])
def test_a_forbidden_refusal_is_p58_and_the_tool_never_runs(version: str) -> None:
    server, runs = make_server()
    server.add_middleware(Tenant())
    with Client(server, protocol_version=version) as c:
        r = c.call_tool("write")
        assert r["error"]["code"] == -32602
        assert (
            "tools/call write is not allowed for this caller: tenant acme cannot write"
            in (r["error"]["message"])
        )
        assert text_of(c.call_tool("echo")) == "echo -"
    assert runs == ["echo"]


class Limit(Middleware):
    async def before(self, request: Request) -> Reply:
        await asyncio.sleep(0)
        return Reply.refuse(Refusal.rate_limited("10 calls per minute per caller", 1.2))


def test_a_rate_limit_is_t14_on_tools_call_and_p59_on_other_methods() -> None:
    server, runs = make_server()
    server.add_middleware(Limit())
    with Client(server) as c:
        d = details(c.call_tool("write"))
        assert (d["category"], d["effect"], d["retryable"], d["retryAfterSeconds"]) == (
            "rate_limited",
            "not_applied",
            True,
            2,
        )
        listed = c.list_tools()
        assert listed["error"]["code"] == -32029
        assert listed["error"]["data"]["retryAfterSeconds"] == 2
    assert runs == []


class Cap(Middleware):
    def after(self, request: Request, reply: Reply) -> Reply | None:
        if reply.kind == "result" and reply.size() > 200:
            return Reply.refuse(Refusal.too_large(reply.size(), 200, "ask for one page"))
        return None


def test_a_result_over_the_limit_is_withheld_as_t15w_for_a_tool_that_wrote() -> None:
    server, runs = make_server()
    server.add_middleware(Cap(), tools=["write"])
    with Client(server) as c:
        d = details(c.call_tool("write"))
        assert d["effect"] == "applied" and d["limitBytes"] == 200
        assert d["askLess"] == "ask for one page"
        assert text_of(c.call_tool("echo")) == "echo -"
    assert runs == ["write", "echo"]


class Stamp(Middleware):
    methods = ("tools/call",)

    def before(self, request: Request) -> None:
        request.state["tool"] = request.name
        request.state["arguments"] = request.arguments

    def after(self, request: Request, reply: Reply) -> Reply:
        result = reply.payload()
        assert result is not None
        note = f"via {request.state['tool']} {request.state['arguments']}"
        result["content"].append({"type": "text", "text": note})
        return Reply.result(result)


def test_after_replaces_the_result_with_what_before_left_in_state_also_for_async_tools() -> None:
    server, _ = make_server()
    server.add_middleware(Stamp())
    with Client(server, inline=False) as c:
        r = result_of(c.call_tool("echo", {"say": "x"}))
        assert [p["text"] for p in r["content"]] == ["echo x", "via echo {'say': 'x'}"]
        r = result_of(c.call_tool("later"))  # no arguments sent: None
        assert [p["text"] for p in r["content"]] == ["done later", "via later None"]


class Maintenance(Middleware):
    def before(self, request: Request) -> Reply:
        return Reply.tool_error(
            ToolError(
                "Maintenance until 10:00: nothing was done. Call again after 10:00.",
                category="unavailable",
                retryable=True,
            )
        )


def test_a_tool_error_is_t2_on_tools_call() -> None:
    server, runs = make_server()
    server.add_middleware(Maintenance(), methods=["tools/call"])
    with Client(server) as c:
        r = c.call_tool("echo")
        assert details(r)["category"] == "unavailable"
        assert text_of(r).startswith("Maintenance until 10:00")
    assert runs == []


class Broken(Middleware):
    def before(self, request: Request) -> None:
        raise KeyError("secret-internal-detail")


def test_a_hook_that_raises_is_sanitized_with_a_reference_in_the_log() -> None:
    lines: list[str] = []
    server = mcpcxx.Server("mw", log_writer=lines.append)

    @server.tool()
    def write() -> str:
        return "w"

    server.add_middleware(Broken())
    with Client(server) as c:
        r = c.call_tool("write")
        d = details(r)
        assert d["category"] == "internal" and d["effect"] == "unknown"
        assert "secret" not in text_of(r)
    logged = "\n".join(lines)
    assert d["reference"] in logged and "secret-internal-detail" in logged


class WrongAnswer(Middleware):
    def before(self, request: Request) -> Any:
        return {"result": {}}


def test_a_hook_answering_something_else_than_a_reply_is_an_internal_error() -> None:
    server, runs = make_server()
    server.add_middleware(WrongAnswer(), methods=["tools/call"])
    with Client(server) as c:
        assert details(c.call_tool("echo"))["category"] == "internal"
    assert runs == []


def test_registration_errors_say_what_is_wrong() -> None:
    server, _ = make_server()
    with pytest.raises(TypeError, match="Middleware instance"):
        server.add_middleware(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="set a before hook, an after hook, or both"):
        server.add_middleware(Middleware())
    with pytest.raises(ValueError, match='"tools/cal" is not a request method'):
        server.add_middleware(Tenant(), methods=["tools/cal"])
    with pytest.raises(ValueError, match="give the reason"):
        Refusal.forbidden("")
    with pytest.raises(RuntimeError, match="only a reply passed to an after hook"):
        _ = Reply.result({}).kind


def test_hooks_run_concurrently_for_concurrent_requests() -> None:
    server = mcpcxx.Server("mw")
    gate = threading.Barrier(2, timeout=10)

    @server.tool(annotations={"readOnlyHint": True})
    def ping() -> str:
        return "pong"

    class Meet(Middleware):
        def before(self, request: Request) -> None:
            gate.wait()  # both requests must be inside a hook at once

    server.add_middleware(Meet(), methods=["tools/call"])
    with Client(server, inline=False) as c:
        a = c.call_tool_nowait("ping")
        b = c.call_tool_nowait("ping")
        assert text_of(c.wait(a)) == "pong" and text_of(c.wait(b)) == "pong"


# ---- the built-ins (the engine's own, configured from Python) ----


def test_rate_limit_with_a_key_computed_in_python() -> None:
    from mcpcxx.middleware import RateLimit

    server, runs = make_server()
    server.add_middleware(
        RateLimit(burst=1, per_second=0.01, key=lambda r: (r.arguments or {}).get("say", ""))
    )
    with Client(server) as c:
        assert text_of(c.call_tool("echo", {"say": "a"})) == "echo a"
        d = details(c.call_tool("echo", {"say": "a"}))
        assert (d["category"], d["retryAfterSeconds"]) == ("rate_limited", 100)
        assert text_of(c.call_tool("echo", {"say": "b"})) == "echo b"
        for _ in range(3):
            assert text_of(c.call_tool("echo")) == "echo -"  # no "say": exempt
    assert runs == ["echo", "echo", "echo", "echo", "echo"]
    with pytest.raises(ValueError, match="per must be"):
        server.add_middleware(RateLimit(per="everyone"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="burst must be at least 1"):
        server.add_middleware(RateLimit(burst=0))


def test_size_limit_audit_and_authorize() -> None:
    from mcpcxx.middleware import Audit, Authorize, SizeLimit

    server, runs = make_server()
    lines: list[dict[str, Any]] = []
    server.add_middleware(Audit(sink=lines.append))  # outermost: its after hook runs last
    server.add_middleware(SizeLimit(max_bytes=200, ask_less="ask for less"))
    server.add_middleware(
        Authorize(deny=lambda r: "echo is closed today" if r.name == "echo" else None)
    )
    with Client(server) as c:
        assert details(c.call_tool("write"))["effect"] == "applied"
        r = c.call_tool("echo")
        assert r["error"]["data"]["reason"] == "echo is closed today"
    assert runs == ["write"]
    assert [(x["tool"], x["outcome"], x["row"]) for x in lines] == [("write", "tool_error", "T15w")]
    assert lines[0]["argumentsDigest"].startswith("sha256:")
