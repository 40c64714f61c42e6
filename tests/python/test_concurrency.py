"""How tools run (issue 26): async def tools on the server's one event loop, holding no worker;
plain def tools on a pool that grows while they wait; a coroutine that blocks the loop is
detected and logged, and everything that does not need the loop keeps being answered."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import mcpcxx
from conftest import result_of
from mcpcxx.testing import Client, text_of


def test_async_tools_hold_no_worker_so_more_run_at_once_than_there_are_workers(era: str) -> None:
    server = mcpcxx.Server("aio", workers=1, max_workers=1)
    n = 64
    arrived = 0
    everyone: asyncio.Event | None = None
    threads: set[str] = set()

    @server.tool
    async def meet() -> str:
        nonlocal arrived, everyone
        threads.add(threading.current_thread().name)
        if everyone is None:
            everyone = asyncio.Event()
        arrived += 1
        if arrived == n:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), timeout=20)  # only if all 64 run at once
        return "met"

    c = Client(server, protocol_version=era, inline=False)
    ids = [c.call_tool_nowait("meet") for _ in range(n)]
    assert [text_of(c.wait(i)) for i in ids] == ["met"] * n
    assert len(threads) == 1, threads  # one loop thread, not a thread per call
    c.close()
    server.close()


def test_plain_tools_that_wait_run_on_a_pool_grown_past_the_core_count(era: str) -> None:
    server = mcpcxx.Server("sync", workers=2)
    barrier = threading.Barrier(32, timeout=20)

    @server.tool
    def meet() -> str:
        barrier.wait()  # returns only when 32 calls wait at the same time
        return "met"

    c = Client(server, protocol_version=era, inline=False)
    ids = [c.call_tool_nowait("meet") for _ in range(32)]
    assert [text_of(c.wait(i)) for i in ids] == ["met"] * 32
    assert server.metrics()["worker_threads"] >= 32
    c.close()
    server.close()


def test_max_workers_bounds_the_pool(era: str) -> None:
    server = mcpcxx.Server("bounded", workers=1, max_workers=3)
    running = 0
    most = 0
    lock = threading.Lock()

    @server.tool
    def hold() -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return "ok"

    c = Client(server, protocol_version=era, inline=False)
    ids = [c.call_tool_nowait("hold") for _ in range(9)]
    assert [text_of(c.wait(i)) for i in ids] == ["ok"] * 9
    assert most == 3
    c.close()
    server.close()


def test_cancelling_a_call_cancels_its_asyncio_task(era: str) -> None:
    server = mcpcxx.Server("cancel", workers=1)
    started = threading.Event()
    cancelled = threading.Event()

    @server.tool
    async def wait_forever() -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "woke"

    c = Client(server, protocol_version=era, inline=False)
    rid = c.call_tool_nowait("wait_forever")
    assert started.wait(10)
    c.cancel(rid)
    assert cancelled.wait(10), "the coroutine never saw CancelledError"
    assert not c.has_response(rid)  # a cancelled request gets no response
    c.close()
    server.close()


def test_an_async_tools_deadline_answers_and_cancels_the_task(era: str) -> None:
    server = mcpcxx.Server("deadline")
    cancelled = threading.Event()

    @server.tool(timeout=0.1)
    async def slow() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    c = Client(server, protocol_version=era, inline=False)
    r = result_of(c.call_tool("slow"))
    assert r["isError"] is True
    assert r["_meta"]["mcpcxx/error"]["category"] == "timeout"
    assert cancelled.wait(10)
    c.close()
    server.close()


def test_async_tool_errors_and_results_match_the_plain_tools(era: str) -> None:
    server = mcpcxx.Server("same")

    @server.tool
    async def fails(key: str) -> str:
        await asyncio.sleep(0)
        raise mcpcxx.ToolError(
            f"Lookup failed: {key} does not exist. List keys first. Do not retry unchanged.",
            category="not_found",
        )

    @server.tool
    async def crashes() -> str:
        raise RuntimeError("secret internals")

    @server.tool
    async def total(a: int, b: int) -> int:
        await asyncio.sleep(0)
        return a + b

    c = Client(server, protocol_version=era, inline=False)
    r = result_of(c.call_tool("fails", {"key": "K-1"}))
    assert r["isError"] is True and r["_meta"]["mcpcxx/error"]["category"] == "not_found"
    assert r["content"][0]["text"].startswith("Lookup failed: K-1 does not exist")
    crash = result_of(c.call_tool("crashes"))
    assert crash["isError"] is True
    assert "secret internals" not in json.dumps(crash)
    assert crash["_meta"]["mcpcxx/error"]["reference"]
    bad = result_of(c.call_tool("total", {"a": "x", "b": 2}))
    assert bad["_meta"]["mcpcxx/error"]["category"] == "invalid_arguments"
    assert result_of(c.call_tool("total", {"a": 2, "b": 3}))["structuredContent"] == {"result": 5}
    c.close()
    server.close()


def test_progress_and_log_from_an_async_tool_reach_the_client(era: str) -> None:
    server = mcpcxx.Server("progress")

    @server.tool
    async def steps(ctx: mcpcxx.Context) -> str:
        for i in range(3):
            await asyncio.sleep(0)
            ctx.report_progress(i + 1, 3, f"step {i + 1}")
        return "done"

    c = Client(server, protocol_version=era, inline=False)
    r = c.call_tool("steps", progress_token="p")
    assert text_of(r) == "done"
    progress = [n for n in c.notifications if n["method"] == "notifications/progress"]
    assert [p["params"]["progress"] for p in progress] == [1, 2, 3]
    c.close()
    server.close()


def test_a_coroutine_that_blocks_the_loop_is_logged_and_plain_tools_are_still_served(
    era: str,
) -> None:
    lines: list[str] = []
    server = mcpcxx.Server("blocked", log_writer=lines.append)

    @server.tool
    async def blocker() -> str:
        time.sleep(1.5)  # the mistake: a blocking call inside a coroutine
        return "unblocked"

    @server.tool
    def plain() -> str:
        return "served"

    c = Client(server, protocol_version=era, inline=False)
    slow = c.call_tool_nowait("blocker")
    time.sleep(0.2)  # the loop is inside blocker now
    quick = c.call_tool_nowait("plain")
    assert text_of(c.wait(quick)) == "served"
    assert not c.has_response(slow), "the plain tool waited for the blocked loop"
    assert text_of(c.wait(slow)) == "unblocked"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not any("event_loop_unblocked" in x for x in lines):
        time.sleep(0.05)
    events = [json.loads(x) for x in lines if "event_loop_" in x]
    blocked = [e for e in events if e["event"] == "event_loop_blocked"]
    assert len(blocked) == 1, events
    assert blocked[0]["handler"] == "tool blocker"
    assert blocked[0]["level"] == "warning"
    assert "asyncio.sleep" in blocked[0]["note"]
    assert any(e["event"] == "event_loop_unblocked" for e in events)
    assert server.metrics()["event_loop_blocked"] == 1
    c.close()
    server.close()


def test_an_async_tool_calling_back_into_the_server_does_not_deadlock(era: str) -> None:
    server = mcpcxx.Server("nested", workers=1, max_workers=1)

    @server.tool
    async def inner(x: int) -> int:
        await asyncio.sleep(0)
        return x + 1

    @server.tool
    async def outer(x: int) -> int:
        # An in-process client dispatching inline: the nested call runs on this (the loop's)
        # thread, so its coroutine gets a private loop instead of waiting for the blocked one.
        with Client(server, protocol_version=era) as nested:
            r = nested.call_tool("inner", {"x": x})
        return int(result_of(r)["structuredContent"]["result"]) * 10

    c = Client(server, protocol_version=era, inline=False)
    assert result_of(c.call_tool("outer", {"x": 1}))["structuredContent"] == {"result": 20}
    c.close()
    server.close()
