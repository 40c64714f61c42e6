"""Content helpers: embedded resources, resource links, annotations, and mixed content lists."""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest

import golden_schema
import mcpcxx
from conftest import result_of
from mcpcxx import Annotations, Audio, EmbeddedResource, Image, ResourceLink, Text
from mcpcxx.testing import Client

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "
EMBEDDED = {
    "type": "resource",
    "resource": {"uri": "docs://a", "text": "A", "mimeType": "text/plain"},
}


def call(server: mcpcxx.Server, era: str, fn: Any) -> dict[str, Any]:
    server.add_tool(fn, name="t")
    with Client(server, protocol_version=era) as c:
        response = c.call_tool("t", {})
    if not golden_schema.available():
        assert golden_schema.check(era, "tools/call", response) == ""
    return result_of(response)


# ----- the fix: helpers mixed with raw block dicts, helpers under `-> list` -------------------


def test_helpers_mixed_with_a_raw_embedded_resource_dict(server: mcpcxx.Server, era: str) -> None:
    def f():  # type: ignore[no-untyped-def]
        return [Image(PNG), Audio(WAV), EMBEDDED, "tail"]

    result = call(server, era, f)
    assert "isError" not in result, result
    assert [b["type"] for b in result["content"]] == ["image", "audio", "resource", "text"]
    assert result["content"][2] == EMBEDDED
    assert "structuredContent" not in result


def test_helpers_under_a_bare_list_annotation(server: mcpcxx.Server, era: str) -> None:
    def f() -> list:  # type: ignore[type-arg]
        return [Image(PNG), EMBEDDED]

    result = call(server, era, f)
    assert "isError" not in result, result
    assert [b["type"] for b in result["content"]] == ["image", "resource"]


def test_bare_list_annotation_with_data_stays_data(server: mcpcxx.Server, era: str) -> None:
    def f() -> list:  # type: ignore[type-arg]
        return [1, {"a": 2}]

    result = call(server, era, f)
    assert result["structuredContent"] == {"result": [1, {"a": 2}]}
    assert result["content"][0]["text"] == '[1,{"a":2}]'


def test_a_list_of_only_block_dicts_is_data(server: mcpcxx.Server, era: str) -> None:
    # Without a helper in it, a list of dicts is data: the author's value is never reinterpreted.
    def f():  # type: ignore[no-untyped-def]
        return [EMBEDDED]

    result = call(server, era, f)
    assert result["structuredContent"] == {"result": [EMBEDDED]}


def test_a_bad_item_in_a_content_list_is_a_clear_internal_error(
    server: mcpcxx.Server, era: str
) -> None:
    def f():  # type: ignore[no-untyped-def]
        return [Image(PNG), {"no": "type"}]

    result = call(server, era, f)
    assert result["isError"] is True
    assert result["_meta"]["mcpcxx/error"]["category"] == "internal"


# ----- the helpers -----------------------------------------------------------------------------

LINK_FIELDS = {
    "type": "resource_link",
    "uri": "docs://guide",
    "name": "guide",
    "title": "The guide",
    "description": "How to use it.",
    "mimeType": "text/markdown",
    "size": 1234,
    "icons": [{"src": "https://example.com/g.png", "mimeType": "image/png", "sizes": ["48x48"]}],
    "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"},
    "_meta": {"example.com/k": 1},
}


def test_resource_link_carries_every_field_of_the_revision(server: mcpcxx.Server, era: str) -> None:
    def f() -> ResourceLink:
        return ResourceLink(
            "docs://guide",
            "guide",
            "How to use it.",
            "text/markdown",
            title="The guide",
            size=1234,
            icons=[
                {"src": "https://example.com/g.png", "mimeType": "image/png", "sizes": ["48x48"]}
            ],
            annotations=Annotations(["user"], 0.5, "2025-01-12T15:00:58Z"),
            meta={"example.com/k": 1},
        )

    assert call(server, era, f)["content"] == [LINK_FIELDS]


def test_embedded_resource_text_and_blob(server: mcpcxx.Server, era: str) -> None:
    def f() -> list[Any]:
        return [
            EmbeddedResource("docs://a", text="A", mime_type="text/plain"),
            EmbeddedResource(
                "blob://b",
                blob=PNG,
                mime_type="image/png",
                annotations={"audience": ["assistant"], "priority": 1},
                meta={"m": True},
                resource_meta={"r": 1},
            ),
        ]

    text, blob = call(server, era, f)["content"]
    assert text == EMBEDDED
    assert blob == {
        "type": "resource",
        "resource": {
            "uri": "blob://b",
            "mimeType": "image/png",
            "blob": base64.b64encode(PNG).decode(),
            "_meta": {"r": 1},
        },
        "annotations": {"audience": ["assistant"], "priority": 1},
        "_meta": {"m": True},
    }


def test_annotations_on_text_image_and_audio(server: mcpcxx.Server, era: str) -> None:
    when = datetime.datetime(2025, 1, 12, 15, 0, 58)
    note = Annotations(audience=["user", "assistant"], priority=0, last_modified=when)

    def f() -> list[Any]:
        return [
            Text("t", annotations=note),
            Image(PNG, annotations=note),
            Audio(WAV, annotations=note),
        ]

    expected = {
        "audience": ["user", "assistant"],
        "priority": 0,
        "lastModified": "2025-01-12T15:00:58Z",
    }
    for block in call(server, era, f)["content"]:
        assert block["annotations"] == expected


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: Annotations(audience=["robot"]), ValueError, "'user'/'assistant'"),
        (lambda: Annotations(audience="user"), ValueError, "'user'/'assistant'"),
        (lambda: Annotations(priority=1.5), ValueError, r"\[0, 1\]"),
        (lambda: Annotations(priority=True), ValueError, r"\[0, 1\]"),
        (lambda: Annotations(last_modified="yesterday"), ValueError, "ISO 8601"),
        (lambda: Text("x", annotations={"prio": 1}), ValueError, "unknown key"),
        (lambda: Text("x", annotations=3), TypeError, "Annotations or a dict"),
        (lambda: Text("x", meta=[1]), TypeError, "meta"),
        (lambda: EmbeddedResource("u://x"), TypeError, "exactly one of text= or blob="),
        (lambda: EmbeddedResource("u://x", text="a", blob=b"b"), TypeError, "exactly one"),
        (lambda: EmbeddedResource("", text="a"), TypeError, "non-empty str"),
        (lambda: EmbeddedResource("u://x", blob="str"), TypeError, "must be bytes"),
        (lambda: ResourceLink("u://x", ""), TypeError, "name"),
        (lambda: ResourceLink("u://x", "x", size=-1), ValueError, "size"),
        (lambda: ResourceLink("u://x", "x", icons=[{"src": "ftp://x"}]), ValueError, "https:"),
    ],
)
def test_helpers_refuse_bad_fields(make: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        make()


def test_annotations_dict_accepts_wire_and_python_names() -> None:
    a = Text("x", annotations={"lastModified": "2025-01-12T15:00:58+01:00"}).to_content()
    b = Text("x", annotations={"last_modified": "2025-01-12"}).to_content()
    assert a["annotations"] == {"lastModified": "2025-01-12T15:00:58+01:00"}
    assert b["annotations"] == {"lastModified": "2025-01-12"}


def test_prompt_messages_take_the_helpers(server: mcpcxx.Server, era: str) -> None:
    from mcpcxx import PromptMessage

    @server.prompt
    def review() -> list[Any]:
        return [
            PromptMessage("user", EmbeddedResource("docs://a", text="A", mime_type="text/plain")),
            PromptMessage("assistant", Text("ok", annotations={"priority": 0.2})),
        ]

    with Client(server, protocol_version=era) as c:
        response = c.get_prompt("review")
    if not golden_schema.available():
        assert golden_schema.check(era, "prompts/get", response) == ""
    messages = result_of(response)["messages"]
    assert messages[0]["content"] == EMBEDDED
    assert messages[1]["content"] == {
        "type": "text",
        "text": "ok",
        "annotations": {"priority": 0.2},
    }
