"""@server.tool: names, descriptions, schemas from type hints, and fail-fast TypeErrors."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

import mcpcxx
from mcpcxx.testing import Client


def listed(server: mcpcxx.Server) -> dict[str, dict[str, Any]]:
    with Client(server) as c:
        response = c.list_tools()
    if "error" in response:  # no tools: the engine does not advertise the capability
        assert response["error"]["code"] == -32601
        return {}
    return {t["name"]: t for t in response["result"]["tools"]}


def test_bare_and_called_decorator_return_the_function(server: mcpcxx.Server) -> None:
    @server.tool
    def a(x: int) -> int:
        return x

    @server.tool(name="b_renamed", title="B", description="explicit")
    def b() -> str:
        """Ignored docstring."""
        return "b"

    assert a(2) == 2 and b() == "b"
    tools = listed(server)
    assert set(tools) == {"a", "b_renamed"}
    assert tools["b_renamed"]["title"] == "B"
    assert tools["b_renamed"]["description"] == "explicit"


def test_description_and_parameter_docs(server: mcpcxx.Server) -> None:
    @server.tool
    def search(query: str, limit: Annotated[int, Field(description="from Field")] = 10) -> str:
        """Search the tracker.

        Args:
            query: Words to look for.
            limit: From the docstring (Field wins).
        """
        return query

    tool = listed(server)["search"]
    assert tool["description"] == "Search the tracker."
    props = tool["inputSchema"]["properties"]
    assert props["query"]["description"] == "Words to look for."
    assert props["limit"]["description"] == "from Field"
    assert props["limit"]["default"] == 10
    assert tool["inputSchema"]["required"] == ["query"]


def test_constraints_literals_models_and_context_hidden(server: mcpcxx.Server) -> None:
    class Filter(BaseModel):
        state: Literal["open", "closed"]

    @server.tool
    def q(
        n: Annotated[int, Field(ge=1, le=50)], f: Filter, ctx: mcpcxx.Context, tags: list[str] = []
    ) -> str:
        return ""

    schema = listed(server)["q"]["inputSchema"]
    assert set(schema["properties"]) == {"n", "f", "tags"}
    assert schema["properties"]["n"]["minimum"] == 1
    assert schema["properties"]["n"]["maximum"] == 50
    assert schema["$defs"]["Filter"]["properties"]["state"]["enum"] == ["open", "closed"]


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Pair:
    left: str
    right: str


class Model(BaseModel):
    count: int


@pytest.mark.parametrize(
    ("annotation", "wrapped"),
    [
        (Model, False),
        (Pair, False),
        (Point, False),
        (dict[str, int], False),
        (int, True),
        (list[int], True),
        (Model | None, True),
    ],
)
def test_output_schema_from_return_annotation(
    server: mcpcxx.Server, annotation: Any, wrapped: bool
) -> None:
    def f() -> Any:
        return None

    f.__annotations__["return"] = annotation
    server.add_tool(f, name="f")
    schema = listed(server)["f"]["outputSchema"]
    assert schema["type"] == "object"
    assert ("result" in schema.get("properties", {})) is wrapped


@pytest.mark.parametrize("annotation", [str, None, mcpcxx.Image, mcpcxx.ToolResult, Any])
def test_content_returns_have_no_output_schema(server: mcpcxx.Server, annotation: Any) -> None:
    def f() -> Any:
        return None

    f.__annotations__["return"] = annotation
    server.add_tool(f, name="f")
    assert "outputSchema" not in listed(server)["f"]


def test_structured_output_switch(server: mcpcxx.Server) -> None:
    @server.tool(structured_output=True)
    def s() -> str:
        return "x"

    @server.tool(structured_output=False)
    def m() -> Model:
        return Model(count=1)

    tools = listed(server)
    assert tools["s"]["outputSchema"]["properties"]["result"]["type"] == "string"
    assert "outputSchema" not in tools["m"]
    with pytest.raises(TypeError, match="needs a return annotation"):

        @server.tool(structured_output=True)
        def none():  # type: ignore[no-untyped-def]
            return 1


def _f_varargs(*args: int) -> None: ...
def _f_kwargs(**kw: int) -> None: ...
def _f_posonly(a: int, /) -> None: ...
def _f_private(_a: int) -> None: ...
def _f_two_ctx(a: mcpcxx.Context, b: mcpcxx.Context) -> None: ...
def _f_gen(a: int):  # type: ignore[no-untyped-def]
    yield a


def _f_bad_type(a: object.__class__) -> None: ...  # type: ignore[valid-type]


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (_f_varargs, r"\*args is not supported"),
        (_f_kwargs, r"\*\*kw is not supported"),
        (_f_posonly, "positional-only"),
        (_f_private, "starts with '_'"),
        (_f_two_ctx, "only one Context"),
        (_f_gen, "generators are not supported"),
        (_f_bad_type, "has no JSON Schema"),
        (lambda x: x, "needs @tool\\(name=...\\)"),
        (42, "needs a function"),
    ],
)
def test_unsupported_signatures_fail_at_decoration(
    server: mcpcxx.Server, fn: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        server.tool(fn)
    assert listed(server) == {}


def test_unresolvable_forward_reference(server: mcpcxx.Server) -> None:
    def f(a: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        ...

    with pytest.raises(TypeError, match="cannot resolve the type hints"):
        server.tool(f)


def test_engine_rejections_surface_as_value_errors(server: mcpcxx.Server) -> None:
    @server.tool
    def dup() -> str:
        return ""

    with pytest.raises(ValueError, match="cannot be registered"):
        server.tool(dup)
    with pytest.raises(ValueError, match="cannot be registered"):
        server.add_tool(dup, name="bad name with spaces")
    with pytest.raises(TypeError, match="@server.tool\\(name=...\\)"):
        server.tool("named")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="timeout must be a positive"):
        server.add_tool(dup, name="t", timeout=0)


def test_remove_tool(server: mcpcxx.Server) -> None:
    @server.tool
    def gone() -> str:
        return ""

    assert server.remove_tool("gone") is True
    assert server.remove_tool("gone") is False
    assert listed(server) == {}


def test_annotations_snake_case_keys_become_camel_case(server: mcpcxx.Server) -> None:
    @server.tool(annotations={"read_only_hint": True, "openWorldHint": False})
    def ro() -> str:
        return ""

    assert listed(server)["ro"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}


def test_server_constructor_validation() -> None:
    with pytest.raises(TypeError):
        mcpcxx.Server("")
    with pytest.raises(ValueError, match="workers"):
        mcpcxx.Server("x", workers=-1)


def _header(name: object) -> Any:
    return Field(json_schema_extra={"x-mcp-header": name})  # type: ignore[dict-item]


def test_x_mcp_header_declarations_a_client_would_drop_are_refused(server: mcpcxx.Server) -> None:
    """Issue 29: each rule of SEP-2243 refuses the tool, naming it, the property and the rule."""

    def ratio(ratio: Annotated[float, _header("Ratio")]) -> str:
        return "r"

    def optional(region: Annotated[str | None, _header("Region")] = None) -> str:
        return "o"

    def spaced(region: Annotated[str, _header("Re gion")]) -> str:
        return "s"

    def empty(region: Annotated[str, _header("")]) -> str:
        return "e"

    def twice(a: Annotated[str, _header("Region")], b: Annotated[str, _header("region")]) -> str:
        return "t"

    cases = [
        (ratio, "property 'ratio'", 'got "number"'),
        (optional, "property 'region'", "optional value (Optional[str], str | None)"),
        (spaced, "property 'region'", "is not an HTTP header token"),
        (empty, "property 'region'", "x-mcp-header is empty"),
        (twice, "property 'b'", "repeats the one of property 'a'"),
    ]
    for fn, prop, rule in cases:
        with pytest.raises(ValueError) as refused:
            server.tool(name="route")(fn)
        text = str(refused.value)
        assert "tool 'route' inputSchema" in text and prop in text and rule in text, text
    with pytest.raises(ValueError, match='through "properties" alone'):
        server.add_tool(
            lambda items: "x",
            name="listed",
            input_schema={
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"x-mcp-header": "Item"}}},
                "required": ["items"],
            },
        )

    @server.tool(name="route")
    def route(region: Annotated[str, _header("Region")], dry_run: bool = False) -> str:
        return region

    with Client(server) as c:
        [tool] = c.list_tools()["result"]["tools"]
    assert tool["inputSchema"]["properties"]["region"]["x-mcp-header"] == "Region"
