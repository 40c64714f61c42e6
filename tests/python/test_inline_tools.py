"""@server.tool(inline_dispatch=True): a quick tool's calls run on the thread that received them."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import Context
from mcpcxx.testing import LEGACY, MODERN, Client, decline, text_of


@pytest.fixture
def lines() -> list[str]:
    return []


@pytest.fixture
def quick_server(lines: list[str]) -> Any:
    server = mcpcxx.Server("inline", workers=2, log_writer=lines.append)

    @server.tool(inline_dispatch=True)
    def quick(text: str) -> dict[str, Any]:
        """Echo, declared quick."""
        return {"text": text, "thread": threading.get_ident()}

    @server.tool
    def pooled(text: str) -> dict[str, Any]:
        """Echo, on the worker pool."""
        return {"text": text, "thread": threading.get_ident()}

    @server.tool(inline_dispatch=True)
    def asks(ctx: Context) -> str:
        """Asks the client a question."""
        answer = ctx.elicit_sync(
            "Who?", {"type": "object", "properties": {"n": {"type": "string"}}}
        )
        return answer.action

    yield server
    server.close()


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_an_inline_tool_runs_on_the_calling_thread_and_others_on_the_pool(
    quick_server: mcpcxx.Server, era: str
) -> None:
    with Client(quick_server, protocol_version=era, inline=False) as c:
        quick = result_of(c.call_tool("quick", {"text": "a"}))["structuredContent"]
        pooled = result_of(c.call_tool("pooled", {"text": "b"}))["structuredContent"]
    assert quick == {"text": "a", "thread": threading.get_ident()}
    assert pooled["text"] == "b"
    assert pooled["thread"] != threading.get_ident()


def test_failures_of_an_inline_tool_are_those_of_the_pool(quick_server: mcpcxx.Server) -> None:
    with Client(quick_server, inline=False) as c:
        bad = result_of(c.call_tool("quick", {"text": 5}))
        unknown = error_of(c.call_tool("quik", {"text": "a"}))
    assert bad["isError"] is True
    assert bad["_meta"]["mcpcxx/error"]["category"] == "invalid_arguments"
    assert unknown["code"] == -32602
    assert "quick" in unknown["data"]["didYouMean"]


def test_a_legacy_question_from_an_inline_tool_fails_at_once_and_says_why_in_the_log(
    quick_server: mcpcxx.Server, lines: list[str]
) -> None:
    asked: list[object] = []

    def record(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return decline()

    with Client(
        quick_server,
        protocol_version=LEGACY,
        inline=False,
        capabilities={"elicitation": {}},
        elicitation_handler=record,
        timeout=10.0,
    ) as c:
        reply = result_of(c.call_tool("asks"))
    assert asked == []  # no question was sent: waiting for it could only time out
    assert reply["isError"] is True
    ref = reply["_meta"]["mcpcxx/error"]["reference"]
    assert "inline_dispatch" not in json.dumps(
        reply
    )  # the reason is the operator's, not the model's
    logged = [line for line in lines if ref in line and "tool_exception" in line]
    assert logged, lines
    assert "remove inline_dispatch from this tool" in logged[0]


def test_a_modern_question_from_an_inline_tool_is_an_input_round(
    quick_server: mcpcxx.Server,
) -> None:
    with Client(
        quick_server,
        protocol_version=MODERN,
        inline=False,
        capabilities={"elicitation": {}},
        elicitation_handler=lambda params: decline(),
    ) as c:
        assert text_of(c.call_tool("asks")) == "decline"


def test_inline_dispatch_is_refused_where_it_cannot_hold() -> None:
    server = mcpcxx.Server("refusals")
    try:

        async def slow() -> str:
            return "x"

        with pytest.raises(ValueError, match="needs a plain function; an async def tool"):
            server.tool(inline_dispatch=True)(slow)
        with pytest.raises(
            ValueError,
            match="tool 'task_tool' cannot be registered: .*cannot be both inline_dispatch and a "
            "task tool.*set task to forbidden or drop inline_dispatch",
        ):
            server.add_tool(lambda: "x", name="task_tool", task="optional", inline_dispatch=True)
        with pytest.raises(TypeError, match="inline_dispatch must be True or False, got 'yes'"):
            server.add_tool(lambda: "x", name="typo", inline_dispatch="yes")  # type: ignore[typeddict-item]
        assert server.remove_tool("slow") is False
        assert server.remove_tool("task_tool") is False
    finally:
        server.close()
