"""icons= on tools, resources, templates and prompts: listed as given, refused when malformed."""

from __future__ import annotations

from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import _core
from mcpcxx.testing import Client

ICONS = [
    {"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]},
    {"src": "data:image/svg+xml;base64,PHN2Zy8+", "sizes": ["any"], "theme": "dark"},
]


def test_icons_are_listed_on_every_primitive(server: mcpcxx.Server, era: str) -> None:
    @server.tool(icons=ICONS)
    def t() -> str:
        return "x"

    @server.resource("docs://a", icons=ICONS)
    def a() -> str:
        return "a"

    @server.resource("docs://{key}", icons=ICONS[:1])
    def by_key(key: str) -> str:
        return key

    @server.prompt(icons=ICONS)
    def p() -> str:
        return "p"

    with Client(server, protocol_version=era) as c:
        assert result_of(c.list_tools())["tools"][0]["icons"] == ICONS
        assert result_of(c.list_resources())["resources"][0]["icons"] == ICONS
        templates = result_of(c.list_resource_templates())["resourceTemplates"]
        assert templates[0]["icons"] == ICONS[:1]
        assert result_of(c.list_prompts())["prompts"][0]["icons"] == ICONS


BAD: list[tuple[Any, type[Exception], str]] = [
    ("https://x/a.png", TypeError, "icons must be a list of Icon dicts"),
    ({"src": "https://x/a.png"}, TypeError, "icons must be a list"),
    (["https://x/a.png"], TypeError, r"icons\[0\] must be a dict"),
    ([{}], ValueError, r"icons\[0\] needs 'src'"),
    ([{"src": ""}], ValueError, "needs 'src'"),
    ([{"src": "ftp://x/a.png"}], ValueError, "https:, http: or data: URI"),
    ([{"src": "https://x", "theme": "blue"}], ValueError, "'light' or 'dark'"),
    ([{"src": "https://x", "sizes": "48x48"}], ValueError, "'sizes' must be a list of str"),
    ([{"src": "https://x", "sizes": [48]}], ValueError, "'sizes' must be a list of str"),
    ([{"src": "https://x", "mimeType": "png"}], ValueError, "'mimeType' must be a MIME type"),
    ([{"src": "https://x", "size": "48x48"}], ValueError, r"unknown key\(s\) \['size'\]"),
]


@pytest.mark.parametrize(("icons", "error", "match"), BAD)
def test_bad_icons_are_refused_at_decoration(
    server: mcpcxx.Server, icons: Any, error: type[Exception], match: str
) -> None:
    def f() -> str:
        return "x"

    def g(x: str) -> str:
        return x

    attempts: list[tuple[str, Any]] = [
        ("tool 'f'", lambda: server.tool(icons=icons)(f)),
        ("resource 'docs://a'", lambda: server.resource("docs://a", icons=icons)(f)),
        ("resource 'docs://{x}'", lambda: server.resource("docs://{x}", icons=icons)(g)),
        ("prompt 'f'", lambda: server.prompt(icons=icons)(f)),
        ("Server 's'", lambda: mcpcxx.Server("s", icons=icons)),
    ]
    for where, attempt in attempts:
        with pytest.raises(error, match=match) as refused:
            attempt()
        assert str(refused.value).startswith(where + ": "), refused.value
    assert server.runtime.core.capabilities().get("tools") is None  # nothing was registered


def test_the_engine_refuses_bad_icons_too() -> None:
    # Past the Python checks (a spec built by hand), the C++ model refuses the same shapes: a
    # malformed spec dict is a TypeError naming the key (python/bindings/json_caster.hpp).
    core = _core.Server({"info": {"name": "s"}}, None)
    with pytest.raises(TypeError, match=r"Prompt icons\[0\]: 'theme' must be \"light\" or"):
        core.add_prompt(
            {"name": "p", "icons": [{"src": "https://x", "theme": "blue"}]},
            lambda args, ctx: {"messages": []},
        )
    with pytest.raises(TypeError, match="'src' must be an https:, http: or data: URI"):
        core.add_resource(
            {"uri": "a://b", "name": "b", "icons": [{"src": "file:///x.png"}]},
            lambda uri, ctx: [],
        )
    with pytest.raises(TypeError, match="Implementation: 'icons' must be a list of Icon objects"):
        _core.Server({"info": {"name": "s", "icons": "https://x"}}, None)
