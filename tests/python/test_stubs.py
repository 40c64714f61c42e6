"""python/mcpcxx/_core.pyi matches the compiled extension: names, members and parameters."""

from __future__ import annotations

import ast
import pathlib
import re
from typing import Any

import pytest

from mcpcxx import _core

STUB = pathlib.Path(_core.__file__).with_name("_core.pyi")


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def stub_params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.args if a.arg != "self"]


def runtime_params(obj: Any) -> list[str]:
    """Parameter names from pybind11's signature line "name(a: T, b: U = ...) -> R"."""
    first = (obj.__doc__ or "").splitlines()[0]
    match = re.match(r"^\w+\((.*)\)\s*->", first)
    assert match, f"no signature line in {obj!r}: {first!r}"
    depth, current, names = 0, "", []
    for ch in match.group(1) + ",":
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            if current.strip():
                names.append(current.split(":")[0].strip())
            current = ""
        else:
            current += ch
    return [n for n in names if n != "self"]


def stub_module_names() -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}
    for node in stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def test_module_level_names_match() -> None:
    runtime = {n for n in dir(_core) if not n.startswith("_")}
    assert {n for n in stub_module_names() if not n.startswith("_")} == runtime


@pytest.mark.parametrize(
    "name", sorted(n for n, v in stub_module_names().items() if isinstance(v, ast.FunctionDef))
)
def test_function_parameters_match(name: str) -> None:
    node = stub_module_names()[name]
    assert isinstance(node, ast.FunctionDef)
    assert stub_params(node) == runtime_params(getattr(_core, name))


@pytest.mark.parametrize(
    "name", sorted(n for n, v in stub_module_names().items() if isinstance(v, ast.ClassDef))
)
def test_class_members_match(name: str) -> None:
    node = stub_module_names()[name]
    assert isinstance(node, ast.ClassDef)
    cls = getattr(_core, name)
    stub_members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
    runtime_members = {n for n, v in vars(cls).items() if not n.startswith("_") or n == "__init__"}
    if issubclass(cls, BaseException):
        return
    assert set(stub_members) - {"__init__"} == runtime_members - {"__init__"}
    for member, fn in stub_members.items():
        value = getattr(cls, member)
        if isinstance(value, property):
            assert any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)
        else:
            assert stub_params(fn) == runtime_params(value), member
