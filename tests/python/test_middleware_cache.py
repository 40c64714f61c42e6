"""The response cache from Python (mcpcxx.middleware.ResponseCache; docs/middleware.md): sync and
async read-only tools answered from the cache without running, tools that may write and errors
never cached, resources dropped by notify_resource_updated, expiry on an injected clock, `vary`,
the hints in both eras, and the option checks. Each test counts the runs of the handlers, so a hit
that ran anyway or a miss served from the cache fails it.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import ToolError
from mcpcxx.middleware import Request, ResponseCache
from mcpcxx.testing import Client, text_of


def cache_meta(response: dict[str, Any]) -> dict[str, Any] | None:
    meta: dict[str, Any] | None = result_of(response).get("_meta", {}).get("mcpcxx/cache")
    return meta


def hit(response: dict[str, Any]) -> bool:
    return bool((cache_meta(response) or {}).get("hit"))


def make_server(**cache: Any) -> tuple[mcpcxx.Server, dict[str, int]]:
    server = mcpcxx.Server("cache")
    runs = {"search": 0, "fetch": 0, "write": 0, "fail": 0, "doc": 0}

    @server.tool(annotations={"readOnlyHint": True})
    def search(q: str, tenant: str = "") -> str:
        runs["search"] += 1
        return f"{q} in {tenant} #{runs['search']}"

    @server.tool(annotations={"readOnlyHint": True})
    async def fetch(url: str) -> str:
        await asyncio.sleep(0.01)
        runs["fetch"] += 1
        return f"{url} #{runs['fetch']}"

    @server.tool()
    def write() -> str:
        runs["write"] += 1
        return f"written #{runs['write']}"

    @server.tool(annotations={"readOnlyHint": True})
    def fail() -> str:
        runs["fail"] += 1
        raise ToolError(f"fail #{runs['fail']}: nothing changed.")

    @server.resource("doc://readme", name="readme", mime_type="text/plain")
    def readme() -> str:
        runs["doc"] += 1
        return f"readme #{runs['doc']}"

    server.add_middleware(ResponseCache(**{"ttl": 30, **cache}))
    return server, runs


def test_a_sync_read_only_tool_is_answered_from_the_cache() -> None:
    server, runs = make_server()
    with Client(server) as c:
        first = c.call_tool("search", {"q": "a", "tenant": "t"})
        again = c.call_tool("search", {"tenant": "t", "q": "a"})
        assert text_of(first) == text_of(again) == "a in t #1"
        assert cache_meta(first) == {"hit": False, "ttlMs": 30000, "cacheScope": "private"}
        assert hit(again)
        assert "ttlMs" not in result_of(again)
        assert text_of(c.call_tool("search", {"q": "b"})) == "b in  #2"
    assert runs["search"] == 2


def test_an_async_read_only_tool_is_answered_from_the_cache() -> None:
    server, runs = make_server(ttl=timedelta(minutes=1))
    with Client(server, inline=False) as c:
        assert text_of(c.call_tool("fetch", {"url": "u"})) == "u #1"
        r = c.call_tool("fetch", {"url": "u"})
        assert hit(r) and text_of(r) == "u #1"
        assert cache_meta(r)["ttlMs"] <= 60000  # type: ignore[index]
    assert runs["fetch"] == 1


def test_a_tool_that_may_write_and_tool_errors_are_never_cached() -> None:
    server, runs = make_server(tools=["write", "fail"])
    with Client(server) as c:
        assert text_of(c.call_tool("write")) == "written #1"
        second = c.call_tool("write")
        assert text_of(second) == "written #2" and cache_meta(second) is None
        for n in (1, 2):
            r = c.call_tool("fail")
            assert result_of(r)["isError"] is True
            assert f"fail #{n}" in text_of(r)
    assert runs["write"] == 2 and runs["fail"] == 2


def test_notify_resource_updated_drops_the_cached_read() -> None:
    server, runs = make_server()
    with Client(server) as c:
        first = c.read_resource("doc://readme")
        assert result_of(first)["contents"][0]["text"] == "readme #1"
        assert result_of(first)["ttlMs"] == 30000
        cached = c.read_resource("doc://readme")
        assert hit(cached) and result_of(cached)["contents"][0]["text"] == "readme #1"
        server.notify_resource_updated("doc://readme")
        fresh = c.read_resource("doc://readme")
        assert not hit(fresh) and result_of(fresh)["contents"][0]["text"] == "readme #2"
    assert runs["doc"] == 2


def test_entries_expire_by_the_given_clock() -> None:
    now = [100.0]
    server, runs = make_server(ttl=2, clock=lambda: now[0])
    with Client(server) as c:
        c.call_tool("search", {"q": "a"})
        now[0] += 1.5
        r = c.call_tool("search", {"q": "a"})
        assert hit(r) and cache_meta(r)["ttlMs"] == 500  # type: ignore[index]
        now[0] += 0.5
        assert not hit(c.call_tool("search", {"q": "a"}))
    assert runs["search"] == 2


def test_vary_adds_to_the_key_and_public_scope_is_announced() -> None:
    def tenant(r: Request) -> str:
        return str((r.arguments or {}).get("tenant", ""))

    server, runs = make_server(scope="public", vary=tenant)
    with Client(server) as c:
        c.call_tool("search", {"q": "a", "tenant": "acme"})
        r = c.call_tool("search", {"q": "a", "tenant": "acme"})
        assert hit(r) and cache_meta(r)["cacheScope"] == "public"  # type: ignore[index]
        assert not hit(c.call_tool("search", {"q": "a", "tenant": "zeta"}))
    assert runs["search"] == 2


def test_a_legacy_session_gets_only_the_meta_hint() -> None:
    server, runs = make_server()
    with Client(server, protocol_version="2025-11-25") as c:
        c.read_resource("doc://readme")
        r = result_of(c.read_resource("doc://readme"))
        assert r["_meta"]["mcpcxx/cache"]["hit"] is True
        assert "ttlMs" not in r and "cacheScope" not in r
        assert text_of(c.call_tool("search", {"q": "x"})) == text_of(
            c.call_tool("search", {"q": "x"})
        )
    assert runs == {"search": 1, "fetch": 0, "write": 0, "fail": 0, "doc": 1}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"ttl": 0}, "ttl must be a number of seconds above 0"),
        ({"ttl": -1}, "ttl must be a number of seconds above 0"),
        ({"ttl": timedelta(0)}, "ttl must be a number of seconds above 0"),
        ({"ttl": 1, "scope": "shared"}, "scope must be 'private'"),
        ({"ttl": 1, "max_entries": 0}, "max_entries and max_bytes must be above 0"),
        ({"ttl": 1, "methods": ["tools/list"]}, 'cannot cache "tools/list"'),
    ],
)
def test_bad_options_are_refused_with_what_to_change(options: dict[str, Any], says: str) -> None:
    server = mcpcxx.Server("bad")
    with pytest.raises(ValueError, match=says):
        server.add_middleware(ResponseCache(**options))
