"""Context: request metadata, progress, logging, cancellation of sync and async tools."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import Context
from mcpcxx.testing import LEGACY, MODERN, Client, text_of


def test_request_metadata(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def who(ctx: Context) -> dict[str, Any]:
        return {
            "id": ctx.request_id,
            "version": ctx.protocol_version,
            "modern": ctx.modern,
            "client": ctx.client_info,
            "server": ctx.server.name if ctx.server else None,
        }

    info = {"name": "probe-client", "version": "9"}
    with Client(server, protocol_version=era, client_info=info) as c:
        rid = c.call_tool_nowait("who")
        data = result_of(c.wait(rid))["structuredContent"]
    assert data["id"] == rid
    assert data["version"] == era
    assert data["modern"] is (era == MODERN)
    assert data["client"]["name"] == "probe-client"
    assert data["server"] == "test-server"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_progress_notifications(server: mcpcxx.Server, era: str, kind: str) -> None:
    if kind == "sync":

        @server.tool
        def work(ctx: Context) -> str:
            for i in range(1, 4):
                ctx.report_progress(i, 3, f"step {i}")
            return "done"
    else:

        @server.tool
        async def work(ctx: Context) -> str:
            for i in range(1, 4):
                await ctx.report_progress(i, 3, f"step {i}")
            return "done"

    with Client(server, protocol_version=era) as c:
        assert text_of(c.call_tool("work", progress_token="tok")) == "done"
        progress = [n["params"] for n in c.notifications if n["method"] == "notifications/progress"]
    assert [p["progress"] for p in progress] == [1, 2, 3]
    assert all(p["progressToken"] == "tok" and p["total"] == 3 for p in progress)
    assert progress[0]["message"] == "step 1"


def test_progress_without_token_sends_nothing_and_must_increase(server: mcpcxx.Server) -> None:
    @server.tool
    def regress(ctx: Context) -> str:
        ctx.report_progress(2)
        try:
            ctx.report_progress(1)
        except ValueError as e:
            return f"refused: {e}"
        return "accepted"

    with Client(server) as c:
        assert text_of(c.call_tool("regress", progress_token=1)).startswith("refused")
        assert text_of(c.call_tool("regress")).startswith("refused")
        assert len([n for n in c.notifications if n["method"] == "notifications/progress"]) == 1


def test_logging_reaches_the_client_when_asked_and_stderr_always(era: str) -> None:
    lines: list[str] = []
    server = mcpcxx.Server("logs", log_writer=lines.append)

    @server.tool
    def chatty(ctx: Context) -> str:
        ctx.info("plain info")
        ctx.logger.warning("via stdlib %s", "logger")
        ctx.debug("too detailed")
        return "ok"

    if era == MODERN:
        c = Client(server, log_level="info")
    else:
        c = Client(server, protocol_version=LEGACY)
        assert "result" in c.request("logging/setLevel", {"level": "info"})
    c.call_tool("chatty")
    sent = [n["params"] for n in c.notifications if n["method"] == "notifications/message"]
    assert [(m["level"], m["data"]) for m in sent] == [
        ("info", "plain info"),
        ("warning", "via stdlib logger"),
    ]
    assert any("too detailed" in line for line in lines)
    quiet = Client(server, protocol_version=era)
    quiet.call_tool("chatty")
    assert not [n for n in quiet.notifications if n["method"] == "notifications/message"]


def test_cancelling_a_sync_tool(server: mcpcxx.Server, era: str) -> None:
    started, observed = threading.Event(), threading.Event()

    @server.tool
    def spin(ctx: Context) -> str:
        started.set()
        while not ctx.cancelled:
            pass
        observed.set()
        ctx.raise_if_cancelled()
        return "unreachable"

    c = Client(server, protocol_version=era, inline=False)
    rid = c.call_tool_nowait("spin")
    assert started.wait(10)
    c.cancel(rid)
    assert observed.wait(10)
    c.wait_idle()
    assert not c.has_response(rid)  # a cancelled request gets no response at all
    c.close()


def test_cancelling_an_async_tool_raises_cancelled_error_inside(era: str) -> None:
    server = mcpcxx.Server("cancel-async", workers=2)
    started, saw_cancel = threading.Event(), threading.Event()

    @server.tool
    async def wait_forever() -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            saw_cancel.set()
            raise
        return "unreachable"

    c = Client(server, protocol_version=era, inline=False)
    rid = c.call_tool_nowait("wait_forever")
    assert started.wait(10)
    c.cancel(rid)
    assert saw_cancel.wait(10)
    c.wait_idle()
    assert not c.has_response(rid)
    c.close()
    server.close()


def test_session_shutdown_cancels_in_flight_tools(era: str) -> None:
    server = mcpcxx.Server("shutdown", workers=2)
    started = threading.Event()

    @server.tool
    def spin(ctx: Context) -> str:
        started.set()
        while not ctx.cancelled:
            pass
        return "stopped"

    c = Client(server, protocol_version=era, inline=False)
    c.call_tool_nowait("spin")
    assert started.wait(10)
    assert c.close(grace_seconds=1.0) is True


def test_on_cancel_callback_runs_for_sync_tools(server: mcpcxx.Server) -> None:
    fired = threading.Event()
    started = threading.Event()

    @server.tool
    def wait_for_it(ctx: Context) -> str:
        ctx._core.on_cancel(fired.set)
        started.set()
        fired.wait(10)
        return "x"

    c = Client(server, inline=False)
    rid = c.call_tool_nowait("wait_for_it")
    assert started.wait(10)
    c.cancel(rid)
    assert fired.wait(10)
    c.close()
