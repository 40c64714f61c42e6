"""Content helpers a tool may return: Text, Image, Audio, ResourceLink, ToolResult."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)
_AUDIO_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"ID3", "audio/mpeg"),
    (b"\xff\xfb", "audio/mpeg"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
)
_EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".svg": "image/svg+xml",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
}


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def sniff_mime_type(data: bytes) -> str | None:
    """The image or audio MIME type announced by `data`'s first bytes, or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    for magic, mime in _IMAGE_MAGIC + _AUDIO_MAGIC:
        if data.startswith(magic):
            return mime
    return None


def _load(data: bytes | None, path: str | os.PathLike[str] | None, kind: str) -> bytes:
    if (data is None) == (path is None):
        raise TypeError(f"{kind}() takes exactly one of data= or path=")
    if data is not None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{kind}(data=...) must be bytes, not {type(data).__name__}")
        return bytes(data)
    assert path is not None
    with open(os.fspath(path), "rb") as f:
        return f.read()


def _mime_for(raw: bytes, path: str | os.PathLike[str] | None, kind: str, prefix: str) -> str:
    mime = sniff_mime_type(raw)
    if mime is None and path is not None:
        mime = _EXTENSIONS.get(os.path.splitext(os.fspath(path))[1].lower())
    if mime is None or not mime.startswith(prefix):
        raise ValueError(
            f"cannot tell the {prefix.rstrip('/')} type of these {len(raw)} bytes; "
            f"pass {kind}(..., mime_type='{prefix}...')"
        )
    return mime


class Image:
    """An image content block: raw bytes (or a file) sent base64-encoded."""

    def __init__(
        self,
        data: bytes | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
    ) -> None:
        self.data = _load(data, path, "Image")
        self.mime_type = mime_type or _mime_for(self.data, path, "Image", "image/")

    def to_content(self) -> dict[str, Any]:
        """The ImageContent block."""
        return {
            "type": "image",
            "data": _b64(self.data),
            "mimeType": self.mime_type,
        }


class Audio:
    """An audio content block: raw bytes (or a file) sent base64-encoded."""

    def __init__(
        self,
        data: bytes | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
    ) -> None:
        self.data = _load(data, path, "Audio")
        self.mime_type = mime_type or _mime_for(self.data, path, "Audio", "audio/")

    def to_content(self) -> dict[str, Any]:
        """The AudioContent block."""
        return {
            "type": "audio",
            "data": _b64(self.data),
            "mimeType": self.mime_type,
        }


class _Record:
    """Plain value objects (dataclasses would import inspect and slow `import mcpcxx`)."""

    __slots__: tuple[str, ...] = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]


class Text(_Record):
    """A text content block (a plain str return does the same)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def to_content(self) -> dict[str, Any]:
        """The TextContent block."""
        if not isinstance(self.text, str):
            raise TypeError(f"Text(text=...) must be str, not {type(self.text).__name__}")
        return {"type": "text", "text": self.text}


class ResourceLink(_Record):
    """A resource_link content block pointing at a resource the client may read."""

    __slots__ = ("description", "mime_type", "name", "uri")

    def __init__(
        self, uri: str, name: str, description: str | None = None, mime_type: str | None = None
    ) -> None:
        self.uri, self.name, self.description, self.mime_type = uri, name, description, mime_type

    def to_content(self) -> dict[str, Any]:
        """The ResourceLink block."""
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.description is not None:
            out["description"] = self.description
        if self.mime_type is not None:
            out["mimeType"] = self.mime_type
        return out


ContentBlock = Text | Image | Audio | ResourceLink
"""Anything with to_content() that becomes one content block."""

CONTENT_TYPES: tuple[type, ...] = (Text, Image, Audio, ResourceLink)


class ToolResult(_Record):
    """An explicit tool result, for full control over content, structure and isError."""

    __slots__ = ("content", "is_error", "meta", "structured_content")

    def __init__(
        self,
        content: Sequence[ContentBlock | str | dict[str, Any]] = (),
        structured_content: Any = None,
        is_error: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.content = list(content)
        self.structured_content = structured_content
        self.is_error = is_error
        self.meta = meta


class Completion(_Record):
    """A completion/complete answer: up to 100 values are sent; has_more says there are more."""

    __slots__ = ("has_more", "total", "values")

    def __init__(
        self, values: Sequence[str], total: int | None = None, has_more: bool = False
    ) -> None:
        self.values, self.total, self.has_more = values, total, has_more


class CompletionRequest(_Record):
    """What the client asks to complete.

    ref_type is "ref/prompt" or "ref/resource", ref the prompt name or resource URI, argument the
    argument being completed, value what was typed so far, context the resolved arguments.
    """

    __slots__ = ("argument", "context", "ref", "ref_type", "value")

    def __init__(
        self, ref_type: str, ref: str, argument: str, value: str, context: dict[str, str]
    ) -> None:
        self.ref_type, self.ref, self.argument = ref_type, ref, argument
        self.value, self.context = value, context


class PromptMessage(_Record):
    """One prompt message: a role and one content block (a str becomes text)."""

    __slots__ = ("content", "role")

    def __init__(self, role: str, content: ContentBlock | str | dict[str, Any]) -> None:
        self.role, self.content = role, content
