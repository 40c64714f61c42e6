"""Concurrency and the GIL: parallel calls, tools calling back into the server, registration."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import mcpcxx
from conftest import result_of
from mcpcxx import Context
from mcpcxx.testing import Client, text_of


def test_concurrent_calls_from_many_threads(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    def worker(k: int) -> list[int]:
        with Client(server, protocol_version=era) as c:
            return [
                result_of(c.call_tool("add", {"a": k, "b": i}))["structuredContent"]["result"]
                for i in range(200)
            ]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(worker, range(8)))
    assert results == [[k + i for i in range(200)] for k in range(8)]


def test_requests_in_flight_run_in_parallel_on_the_pool(era: str) -> None:
    server = mcpcxx.Server("pool", workers=4)
    barrier = threading.Barrier(3, timeout=20)

    @server.tool
    def meet() -> str:
        barrier.wait()  # only returns once three calls run at the same time
        return "met"

    c = Client(server, protocol_version=era, inline=False)
    ids = [c.call_tool_nowait("meet") for _ in range(3)]
    assert [text_of(c.wait(i)) for i in ids] == ["met"] * 3
    c.close()


def test_async_tools_run_concurrently_on_the_servers_loop(era: str) -> None:
    server = mcpcxx.Server("aio", workers=4)
    threads: set[str] = set()

    @server.tool
    async def nap(n: int) -> int:
        import asyncio

        threads.add(threading.current_thread().name)
        await asyncio.sleep(0.2)
        return n

    c = Client(server, protocol_version=era, inline=False)
    ids = [c.call_tool_nowait("nap", {"n": i}) for i in range(4)]
    assert [result_of(c.wait(i))["structuredContent"]["result"] for i in ids] == [0, 1, 2, 3]
    assert len(threads) == 1 and next(iter(threads)).startswith("mcpcxx-asyncio")
    c.close()
    server.close()


def test_a_tool_calling_the_server_does_not_deadlock(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def inner(x: int) -> int:
        return x * 2

    @server.tool
    def outer(x: int) -> int:
        with Client(server, protocol_version=era) as nested:
            return (
                int(result_of(nested.call_tool("inner", {"x": x}))["structuredContent"]["result"])
                + 1
            )

    @server.tool
    async def outer_async(x: int) -> int:
        with Client(server, protocol_version=era) as nested:
            r = nested.call_tool("outer_async_inner", {"x": x})
        return int(result_of(r)["structuredContent"]["result"])

    @server.tool
    async def outer_async_inner(x: int) -> int:
        return x + 100

    for inline in (True, False):
        c = Client(server, protocol_version=era, inline=inline)
        assert result_of(c.call_tool("outer", {"x": 5}))["structuredContent"] == {"result": 11}
        assert result_of(c.call_tool("outer_async", {"x": 1}))["structuredContent"] == {
            "result": 101
        }
        c.close()


def test_a_tool_registering_and_removing_tools(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def grow(name: str) -> str:
        def made() -> str:
            return f"I am {name}"

        server.add_tool(made, name=name)
        return "ok"

    @server.tool
    def shrink(name: str) -> bool:
        return server.remove_tool(name)

    c = Client(server, protocol_version=era, inline=False)
    assert text_of(c.call_tool("grow", {"name": "fresh"})) == "ok"
    assert text_of(c.call_tool("fresh")) == "I am fresh"
    assert result_of(c.call_tool("shrink", {"name": "fresh"}))["structuredContent"] == {
        "result": True
    }
    assert c.call_tool("fresh")["error"]["code"] == -32602
    if era != "2026-07-28":
        assert any(n["method"] == "notifications/tools/list_changed" for n in c.notifications)
    c.close()


def test_gil_is_released_while_a_tool_blocks(era: str) -> None:
    server = mcpcxx.Server("gil", workers=2)
    release = threading.Event()

    @server.tool
    def block() -> str:
        release.wait(20)
        return "released"

    c = Client(server, protocol_version=era, inline=False)
    rid = c.call_tool_nowait("block")
    # Python keeps running here while the engine and the blocked tool wait.
    counter = 0
    deadline = time.monotonic() + 0.2
    while time.monotonic() < deadline:
        counter += 1
    assert counter > 1000
    release.set()
    assert text_of(c.wait(rid)) == "released"
    c.close()


def test_context_used_from_a_thread_the_tool_started(server: mcpcxx.Server) -> None:
    @server.tool
    def spawn(ctx: Context) -> str:
        out: list[object] = []
        t = threading.Thread(target=lambda: out.append(ctx.request_id))
        t.start()
        t.join()
        return repr(out[0])

    with Client(server) as c:
        rid = c.call_tool_nowait("spawn")
        assert text_of(c.wait(rid)) == repr(rid)


def test_context_after_the_request_finished_raises(server: mcpcxx.Server) -> None:
    kept: list[Context] = []

    @server.tool
    def keep(ctx: Context) -> str:
        kept.append(ctx)
        return "kept"

    with Client(server) as c:
        c.call_tool("keep")
    import pytest

    with pytest.raises(RuntimeError, match="already finished"):
        kept[0].report_progress(1)
    assert kept[0].cancelled in (True, False)
