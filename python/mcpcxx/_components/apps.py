"""MCP Apps (extension io.modelcontextprotocol/ui): UI resources and tools linked to them.

The checks and messages are the engine's (cpp/include/mcpcxx/apps.hpp); this module checks only
the Python types of the arguments before handing them over.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from mcpcxx import _core

EXTENSION_ID: str = _core.APPS_EXTENSION_ID
"""The extension's id, "io.modelcontextprotocol/ui"."""
MIME_TYPE: str = _core.APPS_MIME_TYPE
"""The MIME type of a UI resource, "text/html;profile=mcp-app"."""

Permission = Literal["camera", "microphone", "geolocation", "clipboardWrite"]
Visibility = Literal["model", "app"]


class Csp(TypedDict, total=False):
    """The origins a UI may reach (`_meta.ui.csp`).

    Each is "scheme://host[:port]" with scheme http, https, ws or wss; the host's leftmost label
    may be * (its subdomains).
    """

    connect_domains: Sequence[str]
    resource_domains: Sequence[str]
    frame_domains: Sequence[str]
    base_uri_domains: Sequence[str]


def _strings(value: object, what: str, example: str) -> list[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of str, e.g. {example}, not {value!r}")
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"{what} must be a list of str, e.g. {example}, not {list(value)!r}")
    return list(value)


def _csp(csp: Mapping[str, Any] | None, where: str) -> dict[str, list[str]] | None:
    if csp is None:
        return None
    if not isinstance(csp, Mapping):
        raise TypeError(
            f"{where}: csp must be a dict such as "
            f"{{'connect_domains': ['https://api.example.com']}}, not {csp!r}"
        )
    for key in csp:
        if key not in Csp.__annotations__:
            raise ValueError(
                f"{where}: csp has key {key!r}: use connect_domains, resource_domains, "
                "frame_domains or base_uri_domains"
            )
    return {
        str(k): _strings(v, f"{where}: csp[{k!r}]", "['https://api.example.com']")
        for k, v in csp.items()
    }


def _html(html: str | None, path: str | os.PathLike[str] | None, where: str) -> tuple[str, str]:
    if html is not None and not isinstance(html, str):
        raise TypeError(
            f"{where}: html must be the document as a str (decode bytes first), not "
            f"{type(html).__name__}"
        )
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{where}: path must be a str or os.PathLike, not {type(path).__name__}")
    return html or "", "" if path is None else os.fspath(path)


def add_ui_resource(
    core: _core.Server,
    uri: str,
    *,
    html: str | None,
    path: str | os.PathLike[str] | None,
    name: str | None,
    title: str | None,
    description: str | None,
    csp: Mapping[str, Any] | None,
    permissions: Sequence[str] | None,
    domain: str | None,
    prefers_border: bool | None,
    icons: Sequence[Mapping[str, Any]] | None,
    cache: tuple[int | None, str | None],
) -> None:
    """Registers a UI resource on the engine (ValueError/TypeError naming what is wrong)."""
    if not isinstance(uri, str):
        raise TypeError(f"ui_resource needs the ui:// URI as a str, not {uri!r}")
    where = f"UI resource {uri!r}"
    text, file = _html(html, path, where)
    perms = []
    if permissions is not None:
        perms = _strings(permissions, f"{where}: permissions", "['camera']")
    if prefers_border is not None and not isinstance(prefers_border, bool):
        raise TypeError(f"{where}: prefers_border must be True, False or None")
    if domain is not None and not isinstance(domain, str):
        raise TypeError(f"{where}: domain must be a str such as 'abc123.claudemcpcontent.com'")
    _core.add_ui_resource(
        core,
        uri,
        name or "",
        title,
        description,
        text,
        file,
        _csp(csp, where),
        perms,
        domain,
        prefers_border,
        None if icons is None else [dict(i) for i in icons],
        *cache,
    )


def link_tool(
    core: _core.Server,
    spec: dict[str, Any],
    ui: str,
    visibility: Sequence[str] | None,
) -> dict[str, Any]:
    """`spec` (a Tool dict) with `_meta` linked to the registered UI resource `ui`."""
    where = f"tool {spec['name']!r}"
    if not isinstance(ui, str):
        raise TypeError(
            f"{where}: ui must be the ui:// URI of a registered UI resource, not {ui!r}"
        )
    audiences: list[str] = []
    if visibility is not None:
        audiences = _strings(visibility, f"{where}: visibility", "['model', 'app']")
        if not audiences:
            raise ValueError(
                f"{where}: visibility must name 'model' and/or 'app' (omit it for both)"
            )
    linked = dict(spec)
    linked["_meta"] = _core.link_ui_tool(core, spec["name"], spec.get("_meta"), ui, audiences)
    return linked


def client_mime_types(ctx_core: _core.RequestContext) -> list[str]:
    """The MIME types the request's client declared for the extension ([] when none)."""
    return _core.apps_mime_types(ctx_core)
