"""The pydantic-free input schema (mcpcxx._schema._direct_schema) equals pydantic's, and the
signatures it does not cover fall back to pydantic."""

from __future__ import annotations

import subprocess
import sys
from typing import Annotated, Any, Literal, Optional

import pydantic
import pytest

from mcpcxx._schema import _direct_schema, build_input

COVERED: list[dict[str, Any]] = [
    {},
    {"text": (str, ...)},
    {"n": (int, 5), "f": (float, 1.5), "b": (bool, False), "s": (str, "x")},
    {"some_name": (str, ...), "o2": (int | None, None), "o": (Optional[str], None)},  # noqa: UP045
    {"first": (None | float, ...), "maybe": (bool | None, True)},
    {"tags": (list[str], ...), "nums": (list[int], ...), "raw": (list, ...)},
    {"d": (dict[str, Any], ...), "dd": (dict, None), "a": (Any, ...)},
]
NOT_COVERED: list[dict[str, Any]] = [
    {"k": (Annotated[str, pydantic.Field(max_length=3)], ...)},
    {"mode": (Literal["a", "b"], ...)},
    {"pair": (tuple[int, int], ...)},
    {"nested": (list[list[int]], ...)},
    {"x": (int | str, ...)},
    {"when": (float, float("inf"))},
    {"items": (list[str], ["a"])},
]


def _pydantic_schema(fields: dict[str, Any], docs: dict[str, str]) -> dict[str, Any]:
    with_docs = {
        n: (Annotated[a, pydantic.Field(description=docs[n])] if n in docs else a, d)
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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
