"""Content helpers a tool may return, and the Annotations any content block may carry.

Text, Image, Audio, ResourceLink, EmbeddedResource and ToolResult.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
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
        annotations: Annotations | Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.data = _load(data, path, "Image")
        self.mime_type = mime_type or _mime_for(self.data, path, "Image", "image/")
        self.annotations = _annotations(annotations, "Image")
        self.meta = _meta(meta, "Image")

    def to_content(self) -> dict[str, Any]:
        """The ImageContent block."""
        block = {"type": "image", "data": _b64(self.data), "mimeType": self.mime_type}
        return _decorate(block, self.annotations, self.meta)


class Audio:
    """An audio content block: raw bytes (or a file) sent base64-encoded."""

    def __init__(
        self,
        data: bytes | None = None,
        *,
        path: str | os.PathLike[str] | None = None,
        mime_type: str | None = None,
        annotations: Annotations | Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.data = _load(data, path, "Audio")
        self.mime_type = mime_type or _mime_for(self.data, path, "Audio", "audio/")
        self.annotations = _annotations(annotations, "Audio")
        self.meta = _meta(meta, "Audio")

    def to_content(self) -> dict[str, Any]:
        """The AudioContent block."""
        block = {"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type}
        return _decorate(block, self.annotations, self.meta)


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


class Annotations(_Record):
    """Content annotations: who the content is for, how important it is, when it last changed.

    audience is a list of "user" / "assistant"; priority a number from 0 (optional) to 1
    (effectively required); last_modified an ISO 8601 str or a datetime (a naive one is UTC).
    """

    __slots__ = ("audience", "last_modified", "priority")

    def __init__(
        self,
        audience: Sequence[str] | None = None,
        priority: float | None = None,
        last_modified: str | datetime.datetime | None = None,
    ) -> None:
        if audience is not None:
            if isinstance(audience, str) or not all(a in _ROLES for a in audience):
                raise ValueError(
                    f"Annotations(audience=...) must be a list of 'user'/'assistant', "
                    f"got {audience!r}"
                )
            audience = list(audience)
        if priority is not None and (
            isinstance(priority, bool)
            or not isinstance(priority, (int, float))
            or not 0 <= priority <= 1
        ):
            raise ValueError(
                f"Annotations(priority=...) must be a number in [0, 1], got {priority!r}"
            )
        self.audience, self.priority = audience, priority
        self.last_modified = _iso_8601(last_modified)

    def to_json(self) -> dict[str, Any]:
        """The Annotations object (only the fields that are set)."""
        out: dict[str, Any] = {}
        if self.audience is not None:
            out["audience"] = self.audience
        if self.priority is not None:
            out["priority"] = self.priority
        if self.last_modified is not None:
            out["lastModified"] = self.last_modified
        return out


_ROLES = ("user", "assistant")


def _iso_8601(value: str | datetime.datetime | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, str):
        try:
            datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return value
    raise ValueError(
        "Annotations(last_modified=...) must be an ISO 8601 str like '2025-01-12T15:00:58Z' "
        f"or a datetime, got {value!r}"
    )


def _annotations(value: Annotations | Mapping[str, Any] | None, kind: str) -> Annotations | None:
    if value is None or isinstance(value, Annotations):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{kind}(annotations=...) must be Annotations or a dict, not {value!r}")
    keys = {"audience": "audience", "priority": "priority", "lastModified": "last_modified"}
    keys.update({v: v for v in keys.values()})
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise ValueError(
            f"{kind}(annotations=...) has unknown key(s) {unknown}; "
            "use audience, priority, lastModified"
        )
    return Annotations(**{keys[k]: v for k, v in value.items()})


def _meta(value: Mapping[str, Any] | None, kind: str) -> dict[str, Any] | None:
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{kind}(meta=...) must be a dict, not {type(value).__name__}")
    return None if value is None else dict(value)


def _decorate(
    block: dict[str, Any], annotations: Annotations | None, meta: dict[str, Any] | None
) -> dict[str, Any]:
    if annotations is not None:
        block["annotations"] = annotations.to_json()
    if meta is not None:
        block["_meta"] = meta
    return block


class Text(_Record):
    """A text content block (a plain str return does the same)."""

    __slots__ = ("annotations", "meta", "text")

    def __init__(
        self,
        text: str,
        *,
        annotations: Annotations | Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.text = text
        self.annotations = _annotations(annotations, "Text")
        self.meta = _meta(meta, "Text")

    def to_content(self) -> dict[str, Any]:
        """The TextContent block."""
        if not isinstance(self.text, str):
            raise TypeError(f"Text(text=...) must be str, not {type(self.text).__name__}")
        return _decorate({"type": "text", "text": self.text}, self.annotations, self.meta)


class ResourceLink(_Record):
    """A resource_link content block pointing at a resource the client may read."""

    __slots__ = (
        "annotations",
        "description",
        "icons",
        "meta",
        "mime_type",
        "name",
        "size",
        "title",
        "uri",
    )

    def __init__(
        self,
        uri: str,
        name: str,
        description: str | None = None,
        mime_type: str | None = None,
        *,
        title: str | None = None,
        size: int | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
        annotations: Annotations | Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        from mcpcxx._protocol.icons import check_icons

        for label, v in (("uri", uri), ("name", name)):
            if not isinstance(v, str) or not v:
                raise TypeError(f"ResourceLink({label}=...) must be a non-empty str, not {v!r}")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise ValueError(f"ResourceLink(size=...) must be an int >= 0 (bytes), got {size!r}")
        self.uri, self.name, self.description, self.mime_type = uri, name, description, mime_type
        self.title, self.size = title, size
        self.icons = check_icons(icons, "ResourceLink")
        self.annotations = _annotations(annotations, "ResourceLink")
        self.meta = _meta(meta, "ResourceLink")

    def to_content(self) -> dict[str, Any]:
        """The ResourceLink block."""
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        optional = {
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
            "size": self.size,
            "icons": self.icons,
        }
        out.update((k, v) for k, v in optional.items() if v is not None)
        return _decorate(out, self.annotations, self.meta)


class EmbeddedResource(_Record):
    """A resource content block: a resource's contents embedded in the result.

    Give exactly one of text= (str) or blob= (bytes, sent base64-encoded).
    """

    __slots__ = ("annotations", "blob", "meta", "mime_type", "resource_meta", "text", "uri")

    def __init__(
        self,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | None = None,
        mime_type: str | None = None,
        annotations: Annotations | Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        resource_meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(uri, str) or not uri:
            raise TypeError(f"EmbeddedResource(uri=...) must be a non-empty str, not {uri!r}")
        if (text is None) == (blob is None):
            raise TypeError("EmbeddedResource() takes exactly one of text= or blob=")
        if text is not None and not isinstance(text, str):
            raise TypeError(f"EmbeddedResource(text=...) must be str, not {type(text).__name__}")
        if blob is not None and not isinstance(blob, (bytes, bytearray, memoryview)):
            raise TypeError(f"EmbeddedResource(blob=...) must be bytes, not {type(blob).__name__}")
        self.uri, self.text, self.mime_type = uri, text, mime_type
        self.blob = None if blob is None else bytes(blob)
        self.annotations = _annotations(annotations, "EmbeddedResource")
        self.meta = _meta(meta, "EmbeddedResource")
        self.resource_meta = _meta(resource_meta, "EmbeddedResource")

    def to_content(self) -> dict[str, Any]:
        """The EmbeddedResource block."""
        resource: dict[str, Any] = {"uri": self.uri}
        if self.mime_type is not None:
            resource["mimeType"] = self.mime_type
        if self.blob is not None:
            resource["blob"] = _b64(self.blob)
        else:
            resource["text"] = self.text
        if self.resource_meta is not None:
            resource["_meta"] = self.resource_meta
        return _decorate({"type": "resource", "resource": resource}, self.annotations, self.meta)


ContentBlock = Text | Image | Audio | ResourceLink | EmbeddedResource
"""Anything with to_content() that becomes one content block."""

CONTENT_TYPES: tuple[type, ...] = (Text, Image, Audio, ResourceLink, EmbeddedResource)


class ResourceContents(_Record):
    """One item of a resource read (ctx.read_resource): text or bytes, with its URI and type."""

    __slots__ = ("blob", "meta", "mime_type", "text", "uri")

    def __init__(
        self,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | None = None,
        mime_type: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.uri, self.text, self.blob, self.mime_type, self.meta = uri, text, blob, mime_type, meta

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> ResourceContents:
        """A TextResourceContents or BlobResourceContents dict (blob base64-decoded)."""
        import base64

        blob = item.get("blob")
        return cls(
            str(item["uri"]),
            text=item.get("text"),
            blob=None if blob is None else base64.b64decode(blob),
            mime_type=item.get("mimeType"),
            meta=item.get("_meta"),
        )

    def to_embedded(self) -> EmbeddedResource:
        """These contents as an EmbeddedResource content block a tool may return."""
        if self.blob is not None:
            return EmbeddedResource(self.uri, blob=self.blob, mime_type=self.mime_type)
        return EmbeddedResource(self.uri, text=self.text or "", mime_type=self.mime_type)


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
        """Built by the engine from completion/complete; handlers only read it.

        Args:
            ref_type: "ref/prompt" or "ref/resource".
            ref: The prompt's name, or the resource's URI; for a resource template, the
                template string as registered ("issues://{key}").
            argument: The name of the argument (prompt argument or template variable) being
                completed.
            value: What the user typed so far.
            context: The arguments already resolved ({name: value}); {} when none.
        """
        self.ref_type, self.ref, self.argument = ref_type, ref, argument
        self.value, self.context = value, context


class PromptMessage(_Record):
    """One prompt message: a role and one content block (a str becomes text)."""

    __slots__ = ("content", "role")

    def __init__(self, role: str, content: ContentBlock | str | dict[str, Any]) -> None:
        self.role, self.content = role, content
