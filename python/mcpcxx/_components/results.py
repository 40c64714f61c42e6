"""Python values -> JSON-compatible data and MCP content blocks (shared by every primitive)."""

from __future__ import annotations

import json
from typing import Any, cast

from mcpcxx._protocol.content import CONTENT_TYPES, ContentBlock, Image

_JSON_SCALARS = (str, int, float, bool, type(None))
_MAX_DEPTH = 256


def to_jsonable(value: Any, _depth: int = 0) -> Any:
    """A JSON-compatible copy of `value`; pydantic handles models, dataclasses, dates, ..."""
    t = type(value)
    if t in _JSON_SCALARS:
        return value
    if _depth > _MAX_DEPTH:
        raise ValueError(
            f"the value nests deeper than {_MAX_DEPTH} levels (or contains itself); JSON needs a "
            "finite, acyclic value"
        )
    if t is dict:
        if all(type(k) is str for k in value):
            return {k: to_jsonable(v, _depth + 1) for k, v in value.items()}
    elif t is list or t is tuple:
        return [to_jsonable(v, _depth + 1) for v in value]
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value, by_alias=True)


def dumps(value: Any) -> str:
    """Compact JSON text of an already JSON-compatible value (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def content_block(item: Any) -> dict[str, Any]:
    """One ContentBlock from a helper object, a str, or an already-built block dict."""
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, CONTENT_TYPES):
        return cast(ContentBlock, item).to_content()
    if isinstance(item, (bytes, bytearray)):
        return Image(bytes(item)).to_content()
    if isinstance(item, dict) and isinstance(item.get("type"), str):
        return to_jsonable(item)  # type: ignore[no-any-return]
    raise TypeError(
        f"a {type(item).__name__} is not a content block; use str, Text, Image, Audio, "
        "ResourceLink, EmbeddedResource or a dict with a 'type' key"
    )


def is_content_list(value: Any) -> bool:
    """True for a list or tuple holding at least one content helper (Text, Image, ...).

    Its other items are then content too (str, bytes, block dicts; content_block() refuses the
    rest); a list without a helper is data, never reinterpreted.
    """
    if not isinstance(value, (list, tuple)):
        return False
    return any(isinstance(item, CONTENT_TYPES) for item in value)
