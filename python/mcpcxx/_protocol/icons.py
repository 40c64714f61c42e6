"""The spec's Icon shape (2025-11-25+), checked when a tool, resource or prompt is declared.

Icon = {src (required; an https:, http: or data: URI), mimeType?, sizes?: str[], theme?:
"light" | "dark"}. The C++ model refuses the same shapes (cpp/src/model/icons.cpp).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_KEYS = ("src", "mimeType", "sizes", "theme")
_SCHEMES = ("https:", "http:", "data:")
_THEMES = ("light", "dark")


def check_icons(icons: Any, where: str) -> list[dict[str, Any]] | None:
    """A list copy of `icons` (None stays None); TypeError/ValueError name what is wrong."""
    if icons is None:
        return None
    if isinstance(icons, (str, bytes, Mapping)) or not isinstance(icons, Sequence):
        raise TypeError(f"{where}: icons must be a list of Icon dicts, not {type(icons).__name__}")
    return [_check_icon(icon, f"{where}: icons[{i}]") for i, icon in enumerate(icons)]


def _check_icon(icon: Any, where: str) -> dict[str, Any]:
    if not isinstance(icon, Mapping):
        raise TypeError(f"{where} must be a dict like {{'src': 'https://...'}}, not {icon!r}")
    unknown = sorted(str(k) for k in icon if k not in _KEYS)
    if unknown:
        raise ValueError(f"{where} has unknown key(s) {unknown}; an Icon has {list(_KEYS)}")
    src = icon.get("src")
    if not isinstance(src, str) or not src:
        raise ValueError(f"{where} needs 'src', a non-empty str URI, got {src!r}")
    if not src.lower().startswith(_SCHEMES):
        raise ValueError(f"{where}: 'src' must be an https:, http: or data: URI, got {src[:80]!r}")
    mime = icon.get("mimeType")
    if mime is not None and (not isinstance(mime, str) or "/" not in mime):
        raise ValueError(f"{where}: 'mimeType' must be a MIME type str like 'image/png'")
    sizes = icon.get("sizes")
    if sizes is not None and (
        isinstance(sizes, str)
        or not isinstance(sizes, Sequence)
        or not all(isinstance(s, str) and s for s in sizes)
    ):
        raise ValueError(f"{where}: 'sizes' must be a list of str like ['48x48', 'any']")
    theme = icon.get("theme")
    if theme is not None and theme not in _THEMES:
        raise ValueError(f"{where}: 'theme' must be 'light' or 'dark', got {theme!r}")
    out = dict(icon)
    if sizes is not None:
        out["sizes"] = list(sizes)
    return {k: v for k, v in out.items() if v is not None}
