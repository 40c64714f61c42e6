"""@server.tool(input_schema=...): an explicit inputSchema, validated by the engine."""

from __future__ import annotations

from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import Context
from mcpcxx.testing import Client

CONTACT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {"$anchor": "addr", "type": "object", "properties": {"city": {"type": "string"}}}
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "required": ["name"],
    "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
    "additionalProperties": False,
}


def add_contact(server: mcpcxx.Server) -> None:
    @server.tool(input_schema=CONTACT)
    def contact(name: str, ctx: Context, phone: str = "", **rest: Any) -> dict[str, Any]:
        """Stores a contact."""
        assert ctx.request_id is not None
        return {"name": name, "phone": phone, "rest": rest}


def tool_call(c: Client, arguments: dict[str, Any]) -> dict[str, Any]:
    return result_of(c.request("tools/call", {"name": "contact", "arguments": arguments}))


def test_schema_is_listed_verbatim(server: mcpcxx.Server, era: str) -> None:
    add_contact(server)
    with Client(server, protocol_version=era) as c:
        tools = result_of(c.request("tools/list", {}))["tools"]
    assert tools[0]["inputSchema"] == CONTACT
    assert tools[0]["description"] == "Stores a contact."


def test_arguments_reach_named_parameters_and_kwargs(server: mcpcxx.Server, era: str) -> None:
    add_contact(server)
    with Client(server, protocol_version=era) as c:
        args = {"name": "Ada", "email": "a@x", "address": {"city": "London"}}
        out = tool_call(c, args)["structuredContent"]
    assert out == {
        "name": "Ada",
        "phone": "",
        "rest": {"email": "a@x", "address": {"city": "London"}},
    }


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({"name": "Ada"}, "neither phone nor email (anyOf)"),
        ({"name": "Ada", "phone": "1", "fax": "2"}, "additionalProperties false"),
        ({"name": "Ada", "phone": "1", "address": {"city": 7}}, "$ref into $defs"),
        ({"phone": "1"}, "name is required"),
    ],
)
def test_invalid_arguments_are_tool_errors(
    server: mcpcxx.Server, era: str, arguments: dict[str, Any], why: str
) -> None:
    add_contact(server)
    with Client(server, protocol_version=era) as c:
        result = tool_call(c, arguments)
    assert result.get("isError") is True, why
    text = result["content"][0]["text"]
    assert "contact" in text, text


def test_without_kwargs_only_declared_parameters_are_passed(server: mcpcxx.Server) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}

    @server.tool(input_schema=schema)
    def add_one(a: int = 0) -> int:
        return a + 1

    with Client(server) as c:
        r = result_of(c.request("tools/call", {"name": "add_one", "arguments": {"a": 41}}))
    assert r["structuredContent"] == {"result": 42}


@pytest.mark.parametrize(
    ("schema", "fn_src", "message"),
    [
        ([1], "def f(a): ...", "input_schema must be a dict"),
        ({"type": "array"}, "def f(a): ...", 'must have "type": "object"'),
        ({"type": "object", "properties": []}, "def f(): ...", "'properties' must be an object"),
        ({"type": "object", "required": "a"}, "def f(a): ...", "'required' must be an array"),
        ({"type": "object", "x": {1, 2}}, "def f(): ...", "not JSON-serialisable"),
        (
            {"type": "object", "properties": {"b": {}}},
            "def f(a=1): ...",
            "no parameter of that name",
        ),
        ({"type": "object", "properties": {"a": {}}}, "def f(a): ...", "has no default"),
        ({"type": "object"}, "def f(*a): ...", "cannot be passed by name"),
        ({"type": "object"}, "def f(a, /): ...", "cannot be passed by name"),
    ],
)
def test_bad_declarations_fail_at_decoration(
    server: mcpcxx.Server, schema: Any, fn_src: str, message: str
) -> None:
    namespace: dict[str, Any] = {}
    exec(fn_src, namespace)
    with pytest.raises((TypeError, ValueError), match="tool 'f'") as info:
        server.tool(input_schema=schema)(namespace["f"])
    assert message in str(info.value)


def test_a_schema_the_engine_cannot_compile_is_refused(server: mcpcxx.Server) -> None:
    schema = {"type": "object", "properties": {"a": {"type": 12}}}
    with pytest.raises(ValueError, match="cannot be registered") as info:

        @server.tool(input_schema=schema)
        def f(a: int = 0) -> int:
            return a

    assert "a" in str(info.value)
