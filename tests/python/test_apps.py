"""MCP Apps from Python (docs/apps.md): Server.ui_resource, @server.tool(ui=..., visibility=...),
ctx.client_supports_apps() in both eras, and every refusal with the field it names."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import Context
from mcpcxx.apps import EXTENSION_ID, MIME_TYPE
from mcpcxx.testing import Client

PAGE = "<!DOCTYPE html><html><body><main>board</main></body></html>"
UI_CAPS = {"extensions": {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}}


def test_constants_are_the_extensions() -> None:
    assert EXTENSION_ID == "io.modelcontextprotocol/ui"
    assert MIME_TYPE == "text/html;profile=mcp-app"


def test_ui_resource_is_listed_and_read_with_meta_ui(
    server: mcpcxx.Server, connect: Callable[..., Client]
) -> None:
    server.ui_resource(
        "ui://t/board",
        html=PAGE,
        title="Board",
        csp={"connect_domains": ["https://api.example.com"], "frame_domains": []},
        permissions=["camera", "clipboardWrite"],
        domain="abc.example-host.com",
        prefers_border=False,
    )
    ui = {
        "csp": {"connectDomains": ["https://api.example.com"]},
        "permissions": {"camera": {}, "clipboardWrite": {}},
        "domain": "abc.example-host.com",
        "prefersBorder": False,
    }
    client = connect()
    listed = result_of(client.list_resources())["resources"]
    assert listed == [
        {
            "uri": "ui://t/board",
            "name": "ui://t/board",
            "title": "Board",
            "mimeType": MIME_TYPE,
            "size": len(PAGE),
            "_meta": {"ui": ui},
        }
    ]
    contents = result_of(client.read_resource("ui://t/board"))["contents"]
    assert contents == [
        {"uri": "ui://t/board", "mimeType": MIME_TYPE, "text": PAGE, "_meta": {"ui": ui}}
    ]


def test_the_first_ui_resource_declares_the_extension(server: mcpcxx.Server) -> None:
    assert EXTENSION_ID not in server.capabilities().get("extensions", {})
    server.ui_resource("ui://t/a", html=PAGE)
    server.ui_resource("ui://t/b", html=PAGE)
    assert server.capabilities()["extensions"] == {EXTENSION_ID: {}}


def test_html_from_a_file(
    server: mcpcxx.Server, connect: Callable[..., Client], tmp_path: pathlib.Path
) -> None:
    page = tmp_path / "board.html"
    page.write_text("<!DOCTYPE html><p>é</p>", encoding="utf-8")
    server.ui_resource("ui://t/board", path=page)
    page.unlink()  # read at registration
    contents = result_of(connect().read_resource("ui://t/board"))["contents"]
    assert contents[0]["text"] == "<!DOCTYPE html><p>é</p>"


def test_linked_tools_carry_the_link_and_visibility(
    server: mcpcxx.Server, connect: Callable[..., Client]
) -> None:
    server.ui_resource("ui://t/board", html=PAGE)

    @server.tool(ui="ui://t/board", meta={"com.example/k": 1})
    def show() -> str:
        """Show."""
        return "shown"

    @server.tool(ui="ui://t/board", visibility=["app"])
    def refresh() -> str:
        """Refresh."""
        return "refreshed"

    tools = {t["name"]: t for t in result_of(connect().list_tools())["tools"]}
    assert tools["show"]["_meta"] == {
        "com.example/k": 1,
        "ui": {"resourceUri": "ui://t/board"},
        "ui/resourceUri": "ui://t/board",
    }
    assert tools["refresh"]["_meta"] == {
        "ui": {"resourceUri": "ui://t/board", "visibility": ["app"]},
        "ui/resourceUri": "ui://t/board",
    }


def test_client_supports_apps_in_both_eras(server: mcpcxx.Server, era: str) -> None:
    seen: list[tuple[bool, Any]] = []

    @server.tool
    def probe(ctx: Context) -> str:
        """Probe."""
        seen.append((ctx.client_supports_apps(), ctx.client_extension(EXTENSION_ID)))
        return "ok"

    with Client(server, protocol_version=era, capabilities=UI_CAPS) as host:
        result_of(host.call_tool("probe", {}))
    with Client(server, protocol_version=era, capabilities={}) as plain:
        result_of(plain.call_tool("probe", {}))
    other = {"extensions": {EXTENSION_ID: {"mimeTypes": ["text/x-other"]}}}
    with Client(server, protocol_version=era, capabilities=other) as elsewhere:
        result_of(elsewhere.call_tool("probe", {}))
    assert seen == [
        (True, {"mimeTypes": [MIME_TYPE]}),
        (False, None),
        (False, {"mimeTypes": ["text/x-other"]}),
    ]


REFUSED_RESOURCES: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("https://x/board", {"html": PAGE}, ValueError, "'https://x/board' must use the ui:// scheme"),
    ("ui://", {"html": PAGE}, ValueError, "must name a resource after ui://"),
    ("ui://t/b", {}, ValueError, "has no HTML: give the document as html or its path as html_file"),
    ("ui://t/b", {"html": " "}, ValueError, "its html is blank"),
    ("ui://t/b", {"html": PAGE, "path": "/tmp/x.html"}, ValueError, "has both html and html_file"),
    ("ui://t/b", {"path": "/nonexistent/board.html"}, ValueError, "cannot read html_file"),
    ("ui://t/b", {"html": b"<html>"}, TypeError, "html must be the document as a str"),
    ("ui://t/b", {"path": 7}, TypeError, "path must be a str or os.PathLike"),
    (
        "ui://t/b",
        {"html": PAGE, "csp": {"connect_domains": ["api.example.com"]}},
        ValueError,
        "_meta.ui.csp.connectDomains[0] 'api.example.com' is not an origin",
    ),
    (
        "ui://t/b",
        {"html": PAGE, "csp": {"resource_domains": ["https://cdn.example.com/js/"]}},
        ValueError,
        "_meta.ui.csp.resourceDomains[0] 'https://cdn.example.com/js/' has a path",
    ),
    (
        "ui://t/b",
        {"html": PAGE, "csp": {"base_uri_domains": ["gopher://x.example.com"]}},
        ValueError,
        "has scheme 'gopher': use http, https, ws or wss",
    ),
    (
        "ui://t/b",
        {"html": PAGE, "csp": {"connectDomains": ["https://api.example.com"]}},
        ValueError,
        "UI resource 'ui://t/b': csp has key 'connectDomains': use connect_domains",
    ),
    (
        "ui://t/b",
        {"html": PAGE, "csp": {"connect_domains": "https://api.example.com"}},
        TypeError,
        "csp['connect_domains'] must be a list of str",
    ),
    ("ui://t/b", {"html": PAGE, "csp": ["x"]}, TypeError, "csp must be a dict"),
    (
        "ui://t/b",
        {"html": PAGE, "permissions": ["usb"]},
        ValueError,
        "_meta.ui.permissions has 'usb', which the extension does not define",
    ),
    ("ui://t/b", {"html": PAGE, "permissions": "camera"}, TypeError, "permissions must be a list"),
    ("ui://t/b", {"html": PAGE, "domain": ""}, ValueError, "_meta.ui.domain '' is empty"),
    ("ui://t/b", {"html": PAGE, "prefers_border": 1}, TypeError, "prefers_border must be True"),
    ("ui://t/b", {"html": PAGE, "ttl_ms": -1}, ValueError, "ttl_ms must be >= 0"),
]


@pytest.mark.parametrize(("uri", "options", "error", "message"), REFUSED_RESOURCES)
def test_ui_resource_refusals_name_the_field(
    server: mcpcxx.Server, uri: str, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=None) as caught:
        server.ui_resource(uri, **options)
    assert message in str(caught.value)
    assert server.capabilities().get("extensions", {}) == {}, "a refused resource declares nothing"


def test_a_link_to_an_unregistered_resource_is_refused(server: mcpcxx.Server) -> None:
    with pytest.raises(ValueError) as caught:

        @server.tool(ui="ui://t/board")
        def show() -> str:
            """Show."""
            return "shown"

    assert str(caught.value) == (
        "tool 'show' links UI resource 'ui://t/board', which is not registered on this server: "
        "register it first (apps::add_ui_resource), then the tools that link it"
    )


REFUSED_LINKS: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"ui": "https://x/board"}, ValueError, "'https://x/board' must use the ui:// scheme"),
    ({"ui": "ui://t/board", "visibility": ["user"]}, ValueError, "visibility has 'user'"),
    ({"ui": "ui://t/board", "visibility": ["app", "app"]}, ValueError, "lists 'app' twice"),
    ({"ui": "ui://t/board", "visibility": []}, ValueError, "must name 'model' and/or 'app'"),
    ({"ui": "ui://t/board", "visibility": "app"}, TypeError, "visibility must be a list"),
    ({"visibility": ["app"]}, TypeError, "visibility applies to a tool linked to a UI"),
    ({"ui": 3}, TypeError, "ui must be the ui:// URI"),
    ({"ui": "ui://t/board", "meta": {"ui": "x"}}, ValueError, "_meta.ui must be an object"),
]


@pytest.mark.parametrize(("options", "error", "message"), REFUSED_LINKS)
def test_link_refusals_name_the_tool_and_field(
    server: mcpcxx.Server, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    server.ui_resource("ui://t/board", html=PAGE)

    def show() -> str:
        """Show."""
        return "shown"

    with pytest.raises(error) as caught:
        server.add_tool(show, **options)
    assert message in str(caught.value)
    if error is ValueError:
        assert "tool 'show'" in str(caught.value)
    assert server.remove_tool("show") is False, "nothing was registered"
