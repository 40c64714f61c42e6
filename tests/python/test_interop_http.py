"""Issue 29 with a client nobody here wrote: the official Python SDK (`mcp`, pinned) over
Streamable HTTP against a run("http") server. A task's progress reaches its pollers without a
progressToken; a tool declaring x-mcp-header is kept and called with its Mcp-Param header; a
cancelled legacy request ends in a way the client accepts without a word (no "Unexpected content
type")."""

from __future__ import annotations

import asyncio
import logging
import pathlib
import sys
import textwrap
from typing import Any

import pytest

from test_http import served
from test_interop import require

pytestmark = pytest.mark.interop

SERVER = textwrap.dedent(
    """
    import sys, time
    from typing import Annotated
    from pydantic import Field
    import mcpcxx
    from mcpcxx import Context

    server = mcpcxx.Server("interop-29", "1", workers=4)

    @server.tool(task="optional")
    def segments(ctx: Context) -> str:
        '''Reports twelve segments.'''
        for i in range(12):
            ctx.report_progress(i + 1, 12, f"segment {i + 1}")
            time.sleep(0.05)
        return "done"

    @server.tool
    def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
              query: str = "") -> str:
        '''Routes by region.'''
        return f"routed to {region}"

    @server.tool
    def nap(ctx: Context) -> str:
        '''Sleeps until cancelled.'''
        while not ctx.cancelled:
            time.sleep(0.01)
        return "woke"

    sys.exit(server.run("http", port=0))
    """
)


@pytest.fixture
def url(tmp_path: pathlib.Path) -> Any:
    try:
        import mcp  # noqa: F401
    except ImportError:
        require(False, "the mcp package")
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    with served([sys.executable, str(script)]) as endpoint:
        yield endpoint


async def poll_task_messages(url: str) -> list[str | None]:
    """Legacy: a task-augmented tools/call without a progressToken, then tasks/get until done."""
    from mcp import Client, types
    from mcp.client.streamable_http import streamable_http_client

    seen: list[str | None] = []
    async with Client(streamable_http_client(url), mode="legacy") as c:
        # The SDK types a tools/call result as CallToolResult only (it does not create tasks),
        # so the task-augmented call goes through its dispatcher raw; tasks/get is its own typed
        # request, validated by the SDK against the 2025-11-25 schema.
        raw = await c.session._dispatcher.send_raw_request(
            "tools/call", {"name": "segments", "arguments": {}, "task": {}}, {}
        )
        created = types.CreateTaskResult.model_validate(raw)
        get = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=created.task.task_id))
        for _ in range(500):
            task = await c.session.send_request(get, types.GetTaskResult)
            seen.append(task.status_message)
            if task.status == "completed":
                break
            await asyncio.sleep(0.02)
    return seen


def test_a_polled_task_shows_its_progress_without_a_token(url: str) -> None:
    seen = asyncio.run(poll_task_messages(url))
    assert seen[-1] == "segment 12"
    assert len({m for m in seen if m}) > 1, f"the pollers saw the segments go by: {seen}"


async def route_session(url: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(streamable_http_client(url), mode="2026-07-28") as c:
        tools = [t.name for t in (await c.list_tools()).tools]
        result = await c.call_tool("route", {"region": "eu-west1", "query": "q"})
    return {"tools": tools, "text": result.content[0].text, "error": result.is_error}


def test_a_tool_with_x_mcp_header_is_kept_and_called(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    out = asyncio.run(route_session(url))
    assert "route" in out["tools"], "the client dropped the tool"
    assert out["text"] == "routed to eu-west1" and not out["error"]
    assert not [r for r in caplog.records if "x-mcp-header" in r.getMessage()]


async def cancelled_session(url: str) -> str:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    async with Client(streamable_http_client(url), mode="legacy") as c:
        with pytest.raises(MCPError):
            await c.call_tool("nap", {}, read_timeout_seconds=0.3)  # then notifications/cancelled
        await asyncio.sleep(0.5)  # the cancelled POST's reply arrives meanwhile
        text = (await c.call_tool("route", {"region": "us"})).content[0].text
    return str(text)


def test_a_cancelled_legacy_request_ends_quietly(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert asyncio.run(cancelled_session(url)) == "routed to us"
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("mcp")]
    assert not loud, [r.getMessage() for r in loud]
    assert not [r for r in caplog.records if "Unexpected content type" in r.getMessage()]
