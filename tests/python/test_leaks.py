"""100,000 calls keep RSS bounded (no per-call leak of Python or C++ objects)."""

from __future__ import annotations

import gc

import mcpcxx
from mcpcxx import Context
from mcpcxx.testing import Client


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmRSS")


def test_rss_bounded_over_100k_calls() -> None:
    server = mcpcxx.Server("leak", workers=2)

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def fail(ctx: Context, n: int) -> str:
        raise mcpcxx.ToolError(
            f"call {n} failed: nothing to see. Do not retry.", category="not_found"
        )

    c = Client(server)
    payload = "x" * 256
    for _ in range(5_000):  # warm up allocator pools and caches
        c.call_tool("echo", {"text": payload})
    gc.collect()
    before = rss_mib()
    for i in range(100_000):
        if i % 10 == 0:
            c.call_tool("fail", {"n": i})
        else:
            c.call_tool("echo", {"text": payload})
        if i % 20_000 == 0:
            c.frames.clear()
            c.notifications.clear()
    c.frames.clear()
    gc.collect()
    grown = rss_mib() - before
    print(f"rss growth {grown:.2f} MiB")
    assert grown < 8, f"RSS grew by {grown:.1f} MiB over 100,000 calls"
    c.close()
