"""ctx.read_resource: a tool reads this server's own resources and templates through the engine."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import EmbeddedResource, ResourceContents, ResourceNotFoundError
from mcpcxx.testing import Client

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


@pytest.fixture
def reading_server(server: mcpcxx.Server) -> mcpcxx.Server:
    @server.resource("docs://readme", mime_type="text/markdown")
    def readme(ctx: mcpcxx.Context) -> str:
        return f"# readme (request {ctx.request_id})"

    @server.resource("blob://logo", mime_type="image/png")
    async def logo() -> bytes:
        await asyncio.sleep(0)
        return PNG

    @server.resource("issues://{key}")
    def issue(key: str) -> dict[str, Any]:
        if key == "gone":
            raise ResourceNotFoundError(f"issues://{key}")
        return {"key": key}

    @server.tool
    def read_sync(uri: str, ctx: mcpcxx.Context) -> list[Any]:
        contents = ctx.read_resource_sync(uri)
        return [c.to_embedded() for c in contents]

    @server.tool
    async def read_async(uri: str, ctx: mcpcxx.Context) -> dict[str, Any]:
        (item,) = await ctx.read_resource(uri)
        assert isinstance(item, ResourceContents)
        return {
            "uri": item.uri,
            "mime": item.mime_type,
            "text": item.text,
            "blob_len": None if item.blob is None else len(item.blob),
        }

    @server.tool
    def read_or_default(uri: str, ctx: mcpcxx.Context) -> str:
        try:
            return ctx.read_resource_sync(uri)[0].text or ""
        except ResourceNotFoundError as e:
            return f"no such resource: {e.uri}"

    return server


def call(client: Client, tool: str, uri: str) -> dict[str, Any]:
    return result_of(client.call_tool(tool, {"uri": uri}))


def test_sync_read_of_a_concrete_resource_runs_with_the_callers_context(
    reading_server: mcpcxx.Server, era: str
) -> None:
    with Client(reading_server, protocol_version=era) as c:
        response = c.call_tool("read_sync", {"uri": "docs://readme"})
        rid = response["id"]
        (block,) = result_of(response)["content"]
    assert (
        block
        == EmbeddedResource(
            "docs://readme", text=f"# readme (request {rid})", mime_type="text/markdown"
        ).to_content()
    )


def test_async_read_of_a_blob_and_a_template(reading_server: mcpcxx.Server, era: str) -> None:
    with Client(reading_server, protocol_version=era) as c:
        blob = call(c, "read_async", "blob://logo")["structuredContent"]
        templ = call(c, "read_async", "issues://ENG-1")["structuredContent"]
    assert blob == {"uri": "blob://logo", "mime": "image/png", "text": None, "blob_len": len(PNG)}
    assert templ == {
        "uri": "issues://ENG-1",
        "mime": "application/json",
        "text": '{"key":"ENG-1"}',
        "blob_len": None,
    }


@pytest.mark.parametrize("uri", ["docs://nope", "issues://gone", "issues://a/b"])
def test_unknown_uri_raises_resource_not_found(
    reading_server: mcpcxx.Server, era: str, uri: str
) -> None:
    with Client(reading_server, protocol_version=era) as c:
        text = call(c, "read_or_default", uri)["content"][0]["text"]
    assert text == f"no such resource: {uri}"


def test_uncaught_not_found_is_the_tools_not_found_result(
    reading_server: mcpcxx.Server, era: str
) -> None:
    with Client(reading_server, protocol_version=era) as c:
        result = call(c, "read_async", "docs://nope")
    assert result["isError"] is True
    assert result["_meta"]["mcpcxx/error"]["category"] == "not_found"
    assert "docs://nope" in result["content"][0]["text"]


def test_sync_form_refuses_to_block_an_event_loop(server: mcpcxx.Server, era: str) -> None:
    @server.resource("docs://a")
    def a() -> str:
        return "a"

    @server.tool
    async def wrong(ctx: mcpcxx.Context) -> str:
        return ctx.read_resource_sync("docs://a")[0].text or ""

    with Client(server, protocol_version=era) as c:
        result = result_of(c.call_tool("wrong", {}))
    assert result["isError"] is True


def test_bad_uri_argument_is_a_type_error(server: mcpcxx.Server, era: str) -> None:
    @server.tool
    def bad(ctx: mcpcxx.Context) -> str:
        try:
            ctx.read_resource_sync("")
        except TypeError as e:
            return str(e)
        return "not refused"

    with Client(server, protocol_version=era) as c:
        text = result_of(c.call_tool("bad", {}))["content"][0]["text"]
    assert text == "uri must be a non-empty str, not ''"
