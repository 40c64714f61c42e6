"""Issue 13 section 3: ctx.request_meta, ctx.headers, extensions and per-primitive cache hints."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import mcpcxx
from asgi_driver import mcp_post
from conftest import result_of
from mcpcxx import Context
from mcpcxx.asgi import MCPApp
from mcpcxx.testing import MODERN, Client

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def add_probe(server: mcpcxx.Server) -> None:
    @server.tool
    def probe(ctx: Context) -> dict[str, Any]:
        headers = ctx.headers
        return {
            "meta": ctx.request_meta,
            "headers": None if headers is None else dict(headers),
            "ext": ctx.client_extension("com.example/trace"),
        }


def test_request_meta_and_client_extension(server: mcpcxx.Server, era: str) -> None:
    add_probe(server)
    caps = {"extensions": {"com.example/trace": {"sample": 0.25}}}
    with Client(server, protocol_version=era, capabilities=caps) as c:
        meta = {"traceparent": TRACEPARENT, "tracestate": "v=1", "com.example/k": [1]}
        r = c.request("tools/call", {"name": "probe", "_meta": meta})
    seen = result_of(r)["structuredContent"]
    for key, value in meta.items():
        assert seen["meta"][key] == value
    assert seen["headers"] is None, "no HTTP request on an in-process session"
    assert seen["ext"] == {"sample": 0.25}


def test_undeclared_extension_and_absent_meta(server: mcpcxx.Server, era: str) -> None:
    add_probe(server)
    with Client(server, protocol_version=era) as c:
        seen = result_of(c.call_tool("probe"))["structuredContent"]
    assert seen["ext"] is None
    assert "traceparent" not in seen["meta"]
    if era != MODERN:
        assert seen["meta"] == {}


async def asgi_call(
    app: MCPApp, extra: list[tuple[bytes, bytes]], tool: str = "probe"
) -> dict[str, Any]:
    """Call `tool` over the ASGI adapter with `extra` headers; its structuredContent."""
    params = {"name": tool, "arguments": {}}
    resp = await mcp_post(app, "tools/call", params, extra_headers=extra)
    assert resp.status == 200, resp.body
    return dict(resp.json()["result"]["structuredContent"])


def test_headers_over_http_withhold_credentials(server: mcpcxx.Server) -> None:
    add_probe(server)
    app = MCPApp(server)
    try:
        extra = [
            (b"x-request-id", b"r-7"),
            (b"authorization", b"Bearer s3cret"),
            (b"cookie", b"a=1"),
        ]
        seen = asyncio.run(asgi_call(app, extra))
    finally:
        app.close(0)
    assert seen["headers"]["x-request-id"] == "r-7"
    assert seen["headers"]["mcp-method"] == "tools/call"
    assert "authorization" not in seen["headers"]
    assert "cookie" not in seen["headers"]
    assert "s3cret" not in json.dumps(seen)


def test_expose_headers_opts_into_named_credentials(server: mcpcxx.Server) -> None:
    add_probe(server)
    app = MCPApp(server, expose_headers=["Authorization"])
    try:
        extra = [(b"authorization", b"Bearer abc"), (b"cookie", b"a=1")]
        seen = asyncio.run(asgi_call(app, extra))
    finally:
        app.close(0)
    assert seen["headers"]["authorization"] == "Bearer abc"
    assert "cookie" not in seen["headers"]


def test_expose_headers_refuses_a_header_never_withheld(server: mcpcxx.Server) -> None:
    with pytest.raises((ValueError, TypeError), match="X-Trace"):
        MCPApp(server, expose_headers=["X-Trace"])


def test_headers_mapping_is_read_only(server: mcpcxx.Server) -> None:
    errors: list[str] = []

    @server.tool
    def mutate(ctx: Context) -> dict[str, Any]:
        headers = ctx.headers
        assert headers is not None
        try:
            headers["x-new"] = "y"  # type: ignore[index]
        except TypeError as e:
            errors.append(str(e))
        return {"count": len(headers), "same": ctx.headers is headers}

    app = MCPApp(server)
    try:
        seen = asyncio.run(asgi_call(app, [(b"x-a", b"1")], tool="mutate"))
    finally:
        app.close(0)
    assert len(errors) == 1 and "item assignment" in errors[0]
    assert seen["count"] >= 5
    assert seen["same"] is True


def test_extensions_are_declared_and_advertised(server: mcpcxx.Server, era: str) -> None:
    server.add_extension("com.example/trace", {"formats": ["w3c"]})
    server.add_extension("io.modelcontextprotocol/ui")
    with Client(server, protocol_version=era) as c:
        if era == MODERN:
            caps = result_of(c.discover())["capabilities"]
        else:
            assert c.initialize_result is not None
            caps = result_of(c.initialize_result)["capabilities"]
    assert caps["extensions"] == {
        "com.example/trace": {"formats": ["w3c"]},
        "io.modelcontextprotocol/ui": {},
    }
    assert server.remove_extension("io.modelcontextprotocol/ui") is True
    assert server.remove_extension("io.modelcontextprotocol/ui") is False


@pytest.mark.parametrize(
    ("ext_id", "settings", "match"),
    [
        ("tasks", {}, "com.example/feature"),
        ("com.example/", {}, "invalid extension id"),
        ("com.example/x", [1], "must be a dict"),
        ("com.example/x", "on", "must be a dict"),
    ],
)
def test_bad_extensions_are_refused(
    server: mcpcxx.Server, ext_id: str, settings: Any, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        server.add_extension(ext_id, settings)
    assert "extensions" not in server.capabilities()


def test_duplicate_extension_is_refused(server: mcpcxx.Server) -> None:
    server.add_extension("com.example/x")
    with pytest.raises(ValueError, match="already declared"):
        server.add_extension("com.example/x", {"v": 2})


def test_cache_hints_per_primitive(server: mcpcxx.Server) -> None:
    @server.tool
    def plain() -> str:
        return "p"

    @server.tool(ttl_ms=1500, cache_scope="private")
    def mine() -> str:
        return "m"

    @server.resource("res://shared", ttl_ms=0)
    def shared() -> str:
        return "s"

    @server.resource("res://item/{id}", cache_scope="private")
    def item(id: str) -> str:
        return id

    @server.prompt(ttl_ms=42)
    def greet() -> str:
        return "hi"

    with Client(server, protocol_version=MODERN) as c:
        tools = result_of(c.list_tools())
        read = result_of(c.read_resource("res://shared"))
        item_read = result_of(c.read_resource("res://item/9"))
        prompts = result_of(c.list_prompts())
        templates = result_of(c.list_resource_templates())
    assert (tools["ttlMs"], tools["cacheScope"]) == (1500, "private")
    assert all("ttlMs" not in t for t in tools["tools"])
    assert (read["ttlMs"], read["cacheScope"]) == (0, "public")
    assert (item_read["ttlMs"], item_read["cacheScope"]) == (60000, "private")
    assert (templates["ttlMs"], templates["cacheScope"]) == (60000, "private")
    assert (prompts["ttlMs"], prompts["cacheScope"]) == (42, "public")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"ttl_ms": -1}, ValueError, ">= 0"),
        ({"ttl_ms": 1.5}, TypeError, "int of milliseconds"),
        ({"ttl_ms": True}, TypeError, "int of milliseconds"),
        ({"cache_scope": "shared"}, ValueError, '"public"'),
    ],
)
def test_bad_cache_hints_are_refused_at_registration(
    server: mcpcxx.Server, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        server.tool(name="t", **kwargs)(lambda: "x")
    with pytest.raises(error, match=match):
        server.resource("res://bad", **kwargs)(lambda: "x")
    with pytest.raises(error, match=match):

        @server.prompt(**kwargs)
        def p() -> str:
            return "x"

    assert server.capabilities().get("tools") is None
    assert server.capabilities().get("resources") is None


def test_server_wide_cache_defaults() -> None:
    server = mcpcxx.Server("defaults", list_ttl_ms=250, cache_scope="private")
    try:

        @server.tool
        def plain() -> str:
            return "p"

        @server.prompt(ttl_ms=9, cache_scope="public")
        def greet() -> str:
            return "hi"

        with Client(server, protocol_version=MODERN) as c:
            tools = result_of(c.list_tools())
            prompts = result_of(c.list_prompts())
            discover = result_of(c.request("server/discover", {}))
        assert (tools["ttlMs"], tools["cacheScope"]) == (250, "private")
        assert (prompts["ttlMs"], prompts["cacheScope"]) == (9, "public")
        assert (discover["ttlMs"], discover["cacheScope"]) == (250, "private")
    finally:
        server.close()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"list_ttl_ms": -5}, ValueError, r"Server 'x': list_ttl_ms must be >= 0"),
        ({"list_ttl_ms": "60"}, TypeError, "int of milliseconds"),
        ({"cache_scope": "everyone"}, ValueError, '"private"'),
    ],
)
def test_bad_server_wide_cache_defaults(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        mcpcxx.Server("x", **kwargs)
