"""Return values -> wire content, structuredContent and isError."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import pytest
from pydantic import BaseModel

import mcpcxx
from conftest import result_of
from mcpcxx import Audio, Image, ResourceLink, Text, ToolResult
from mcpcxx.testing import Client

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "


class Issue(BaseModel):
    key: str
    votes: int


@dataclasses.dataclass
class Point:
    x: int
    y: float


def call(server: mcpcxx.Server, era: str, fn: Any, **kw: Any) -> dict[str, Any]:
    server.add_tool(fn, name="t", **kw)
    with Client(server, protocol_version=era) as c:
        return result_of(c.call_tool("t", {}))


def test_str_is_one_text_block(server: mcpcxx.Server, era: str) -> None:
    def f() -> str:
        return "héllo ✓"

    result = call(server, era, f)
    assert result["content"] == [{"type": "text", "text": "héllo ✓"}]
    assert "structuredContent" not in result and "isError" not in result


def test_dict_gives_structured_content_and_json_text(server: mcpcxx.Server, era: str) -> None:
    def f():  # type: ignore[no-untyped-def]
        return {"a": [1, 2.5, None, True], "b": "ü"}

    result = call(server, era, f)
    assert result["structuredContent"] == {"a": [1, 2.5, None, True], "b": "ü"}
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_list_without_schema_is_wrapped(server: mcpcxx.Server, era: str) -> None:
    def f():  # type: ignore[no-untyped-def]
        return [1, 2]

    result = call(server, era, f)
    assert result["structuredContent"] == {"result": [1, 2]}
    assert result["content"][0]["text"] == "[1,2]"


def test_model_and_dataclass_match_their_output_schema(server: mcpcxx.Server, era: str) -> None:
    def m() -> Issue:
        return Issue(key="ENG-1", votes=3)

    def d() -> Point:
        return Point(1, 2.0)

    server.add_tool(m)
    server.add_tool(d)
    with Client(server, protocol_version=era) as c:
        r = result_of(c.call_tool("m"))
        assert r["structuredContent"] == {"key": "ENG-1", "votes": 3}
        r = result_of(c.call_tool("d"))
        assert r["structuredContent"] == {"x": 1, "y": 2.0}


def test_primitive_annotation_is_wrapped_with_matching_schema(
    server: mcpcxx.Server, era: str
) -> None:
    def f() -> int:
        return 7

    result = call(server, era, f)
    assert result["structuredContent"] == {"result": 7}
    assert result["content"] == [{"type": "text", "text": "7"}]


def test_images_audio_bytes_and_content_lists(server: mcpcxx.Server, era: str) -> None:
    def f() -> list[Any]:
        return [Text("a"), Image(PNG), Audio(WAV), ResourceLink("docs://x", "x"), "tail"]

    result = call(server, era, f)
    kinds = [b["type"] for b in result["content"]]
    assert kinds == ["text", "image", "audio", "resource_link", "text"]
    assert base64.b64decode(result["content"][1]["data"]) == PNG
    assert result["content"][1]["mimeType"] == "image/png"
    assert result["content"][2]["mimeType"] == "audio/wav"
    assert "structuredContent" not in result


def test_raw_bytes_are_an_image(server: mcpcxx.Server, era: str) -> None:
    def f() -> bytes:
        return PNG

    assert call(server, era, f)["content"][0]["type"] == "image"


def test_unknown_bytes_are_a_server_bug_not_a_guess(server: mcpcxx.Server, era: str) -> None:
    def f() -> bytes:
        return b"\x00\x01"

    result = call(server, era, f)
    assert result["isError"] is True
    assert result["_meta"]["mcpcxx/error"]["category"] == "internal"


def test_explicit_tool_result(server: mcpcxx.Server, era: str) -> None:
    def f() -> ToolResult:
        return ToolResult(content=["x"], structured_content={"k": 1}, meta={"m": True})

    result = call(server, era, f)
    assert result["content"] == [{"type": "text", "text": "x"}]
    assert result["structuredContent"] == {"k": 1}
    assert result["_meta"]["m"] is True


def test_structured_output_false_gives_text_only(server: mcpcxx.Server, era: str) -> None:
    def f() -> Issue:
        return Issue(key="K", votes=1)

    result = call(server, era, f, structured_output=False)
    assert "structuredContent" not in result
    assert json.loads(result["content"][0]["text"]) == {"key": "K", "votes": 1}


def test_none_is_empty_content(server: mcpcxx.Server, era: str) -> None:
    def f() -> None:
        return None

    assert call(server, era, f)["content"] == []


def test_unserializable_return_is_an_internal_error(server: mcpcxx.Server, era: str) -> None:
    def f():  # type: ignore[no-untyped-def]
        return object()

    result = call(server, era, f)
    assert result["isError"] is True
    assert "reference ERR-" in result["content"][0]["text"]


def test_sync_function_returning_a_coroutine(server: mcpcxx.Server, era: str) -> None:
    async def inner() -> str:
        return "awaited"

    def f():  # type: ignore[no-untyped-def]
        return inner()

    assert call(server, era, f)["content"][0]["text"] == "awaited"


def test_helper_validation() -> None:
    with pytest.raises(TypeError, match="exactly one of"):
        Image()
    with pytest.raises(ValueError, match="cannot tell the image type"):
        Image(b"abc")
    assert Image(b"abc", mime_type="image/x-test").mime_type == "image/x-test"
    with pytest.raises(TypeError, match="must be bytes"):
        Image("not bytes")  # type: ignore[arg-type]


def test_image_from_path(tmp_path: Any) -> None:
    p = tmp_path / "pic.webp"
    p.write_bytes(b"RIFF\x00\x00\x00\x00WEBPVP8 ")
    assert Image(path=p).mime_type == "image/webp"
