"""The pydantic-free schemas (mcpcxx._schema.signature: inputs, and outputs of plain types and TypedDicts)
equal pydantic's, and the signatures they do not cover fall back to pydantic."""

from __future__ import annotations

import subprocess
import sys
from typing import Annotated, Any, Literal, Optional

import annotated_types as at
import pydantic
import pytest
from typing_extensions import NotRequired, TypedDict

from mcpcxx._schema.signature import (
    _direct_schema,
    _direct_type_schema,
    _direct_typeddict_schema,
    _has_description,
    build_input,
    build_output,
)

Field = pydantic.Field

COVERED: list[dict[str, Any]] = [
    {},
    {"text": (str, ...)},
    {"n": (int, 5), "f": (float, 1.5), "b": (bool, False), "s": (str, "x")},
    {"some_name": (str, ...), "o2": (int | None, None), "o": (Optional[str], None)},  # noqa: UP045
    {"first": (None | float, ...), "maybe": (bool | None, True)},
    {"tags": (list[str], ...), "nums": (list[int], ...), "raw": (list, ...)},
    {"d": (dict[str, Any], ...), "dd": (dict, None), "a": (Any, ...)},
    {"k": (Annotated[str, Field(max_length=3)], ...)},
    {"text": (Annotated[str, Field(min_length=1, max_length=1000, pattern=r"^[a-z]+$")], "ab")},
    {"steps": (Annotated[int, Field(ge=1, le=50)], ...), "f": (Annotated[float, Field(gt=0)], 1)},
    {
        "n": (Annotated[int, Field(lt=10, multiple_of=2)], ...),
        "x": (Annotated[float, at.Ge(0.5)], 2),
    },
    {"tags": (Annotated[list[str], Field(min_length=1, max_length=4)], ...)},
    {"d": (Annotated[str, Field(description="Said by the Field.")], ...)},
    {"region": (Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], ...)},
    {"e": (Annotated[str, Field(json_schema_extra={"examples": ["a"], "x": {"y": [1]}})], ...)},
    {"bare": (Annotated[str, at.MaxLen(5), at.MinLen(2)], ...)},
]
NOT_COVERED: list[dict[str, Any]] = [
    {"k": (Annotated[str, Field(max_length=3, alias="kk")], ...)},
    {"k": (Annotated[str, Field(title="Key")], ...)},
    {"k": (Annotated[str, Field(examples=["a"])], ...)},
    {"k": (Annotated[str, Field(strict=True)], ...)},
    {"k": (Annotated[str, Field(max_length=3), Field(min_length=1)], ...)},
    {"k": (Annotated[str, Field(ge=3)], ...)},
    {"k": (Annotated[int, Field(max_length=3)], ...)},
    {"k": (Annotated[bool, Field(ge=0)], ...)},
    {"k": (Annotated[float, Field(le=float("inf"))], ...)},
    {"k": (Annotated[str, Field(description="")], ...)},
    {"k": (Annotated[str, Field(json_schema_extra={"title": "Other"})], ...)},
    {"k": (Annotated[str, Field(json_schema_extra=lambda s: None)], ...)},
    {"k": (Annotated[str | None, Field(max_length=3)], None)},
    {"k": (Annotated[str, at.Interval(ge=1)], ...)},
    {"mode": (Literal["a", "b"], ...)},
    {"pair": (tuple[int, int], ...)},
    {"nested": (list[list[int]], ...)},
    {"x": (int | str, ...)},
    {"when": (float, float("inf"))},
    {"items": (list[str], ["a"])},
]


def _pydantic_schema(fields: dict[str, Any], docs: dict[str, str]) -> dict[str, Any]:
    # As mcpcxx._schema.signature.input_fields: a docstring describes a parameter its Field does not.
    with_docs = {
        n: (
            Annotated[a, pydantic.Field(description=docs[n])]
            if n in docs and not _has_description(a)
            else a,
            d,
        )
        for n, (a, d) in fields.items()
    }
    schema = pydantic.create_model("T", **with_docs).model_json_schema(by_alias=True)
    schema.pop("title", None)
    schema.setdefault("properties", {})
    return schema


@pytest.mark.parametrize("fields", COVERED)
@pytest.mark.parametrize("docs", [{}, {"text": "What to echo.", "n": "How many.", "d": "Map."}])
def test_direct_schema_equals_pydantic(fields: dict[str, Any], docs: dict[str, str]) -> None:
    docs = {k: v for k, v in docs.items() if k in fields}
    assert _direct_schema(fields, docs) == _pydantic_schema(fields, docs)


@pytest.mark.parametrize("fields", NOT_COVERED)
def test_other_signatures_are_left_to_pydantic(fields: dict[str, Any]) -> None:
    assert _direct_schema(fields, {}) is None


def test_a_fields_description_wins_over_the_docstring() -> None:
    fields = {"d": (Annotated[str, Field(description="From the Field.")], ...)}
    schema = _direct_schema(fields, {"d": "From the docstring."})
    assert schema == _pydantic_schema(fields, {})  # pydantic keeps the Field's own description
    assert schema is not None and schema["properties"]["d"]["description"] == "From the Field."


class Sum(TypedDict):
    sum: int


class Described(TypedDict):
    """A result.

    Indented lines stay.
    """

    total: float
    names: list[str]
    note: str | None


class Partial(TypedDict, total=False):
    a: int
    b: Annotated[str, Field(max_length=3)]


class Child(Sum):
    extra: bool


class Nested(TypedDict):
    inner: Sum


class WithNotRequired(TypedDict):
    a: int
    b: NotRequired[int]


OUTPUTS_COVERED: list[Any] = [
    int, float, bool, list[int], dict[str, Any], dict, int | None,
    Annotated[int, Field(ge=0)], Sum, Described, Partial, Child,
]  # fmt: skip
OUTPUTS_NOT_COVERED: list[Any] = [Nested, WithNotRequired, tuple[int, str], Literal["a"]]


@pytest.mark.parametrize("tp", OUTPUTS_COVERED)
def test_direct_output_schema_equals_pydantic(tp: Any) -> None:
    direct = _direct_type_schema(tp) or _direct_typeddict_schema(tp)
    assert direct == pydantic.TypeAdapter(tp).json_schema(mode="serialization", by_alias=True)


@pytest.mark.parametrize("tp", OUTPUTS_NOT_COVERED)
def test_other_outputs_are_left_to_pydantic(tp: Any) -> None:
    assert _direct_type_schema(tp) is None and _direct_typeddict_schema(tp) is None


@pytest.mark.parametrize("tp", OUTPUTS_COVERED + OUTPUTS_NOT_COVERED)
def test_build_output_gives_pydantics_schema_either_way(tp: Any) -> None:
    def fn() -> None: ...

    fn.__annotations__["return"] = tp
    schema, wrapped = build_output(fn, "tool 'fn'", None)
    inner = pydantic.TypeAdapter(tp).json_schema(mode="serialization", by_alias=True)
    if wrapped:
        assert schema is not None and schema["properties"]["result"] == {
            k: v for k, v in inner.items() if k != "$defs"
        }
    else:
        assert schema == inner


def test_build_input_fast_path_converts_integral_floats() -> None:
    def add(a: int, b: int = 2) -> int:
        return a + b

    schema, convert, ctx = build_input(add, "add", "tool 'add'", {})
    assert schema == _pydantic_schema({"a": (int, ...), "b": (int, 2)}, {})
    assert convert({"a": 1.0, "b": 3, "extra": 1}) == {"a": 1, "b": 3}
    assert ctx is None


def test_a_plain_server_starts_without_pydantic() -> None:
    code = (
        "import sys\n"
        "from mcpcxx import Server\n"
        "s = Server('x')\n"
        "@s.tool\n"
        "def echo(text: str, times: int = 1) -> str:\n"
        "    '''Echo.\n\n    Args:\n        text: what to echo\n    '''\n"
        "    return text * times\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    assert _printed_by(code) == "[]"


def test_constrained_fields_and_typeddict_results_build_no_pydantic_model() -> None:
    # Field constraints and a TypedDict result are written directly: pydantic's model machinery
    # (pydantic.main, several megabytes of a server's memory) is never imported.
    code = (
        "import sys\n"
        "from typing import Annotated\n"
        "from pydantic import Field\n"
        "from typing_extensions import TypedDict\n"
        "from mcpcxx import Server\n"
        "class Sum(TypedDict):\n"
        "    sum: int\n"
        "s = Server('x')\n"
        "@s.tool\n"
        "def add(a: Annotated[int, Field(ge=0)], b: Annotated[int, Field(le=9)]) -> Sum:\n"
        "    return {'sum': a + b}\n"
        "@s.tool\n"
        "def key(k: Annotated[str, Field(pattern='^[A-Z]+$', max_length=8)]) -> str:\n"
        "    return k\n"
        "print('pydantic.main' in sys.modules)\n"
    )
    assert _printed_by(code) == "False"


def _printed_by(code: str) -> str:
    """What `code` prints, run in a fresh interpreter (modules loaded by this one do not count)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()
