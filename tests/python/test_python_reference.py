"""docs/python-reference.md: the options tables are generated from the signatures and the Args
sections of their docstrings, and every Python example on the page runs here.

`python tests/python/test_python_reference.py --write` rewrites the generated part after a
signature or an Args entry changed; the tests fail while the page and the code disagree, or while
an option has no Args entry (or an entry names no option).
"""

from __future__ import annotations

import inspect
import pathlib
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest

import mcpcxx
from mcpcxx._components.resources import Resource, ResourceOptions
from mcpcxx._components.tools import Tool, ToolOptions
from mcpcxx._schema.docstrings import parse_docstring

PAGE = pathlib.Path(__file__).parents[2] / "docs" / "python-reference.md"
BEGIN = "<!-- BEGIN generated options: python tests/python/test_python_reference.py --write -->"
END = "<!-- END generated options -->"

# (heading, the callable, the from_function whose options its **options takes, their TypedDict)
SECTIONS: list[tuple[str, Callable[..., Any], Callable[..., Any] | None, Any]] = [
    ("`mcpcxx.Server(...)`", mcpcxx.Server.__init__, None, None),
    (
        "`@server.tool(...)` and `server.add_tool(fn, ...)`",
        mcpcxx.Server.tool,
        Tool.from_function,
        ToolOptions,
    ),
    (
        "`@server.resource(uri, ...)`",
        mcpcxx.Server.resource,
        Resource.from_function,
        ResourceOptions,
    ),
    ("`server.ui_resource(uri, ...)` (MCP Apps)", mcpcxx.Server.ui_resource, None, None),
    ("`server.add_skills(root, ...)` (Skills)", mcpcxx.Server.add_skills, None, None),
    ("`@server.prompt(...)`", mcpcxx.Server.prompt, None, None),
    ("`mcpcxx.ToolError(message, ...)`", mcpcxx.ToolError.__init__, None, None),
    ("`mcpcxx.ToolError.compose(operation, ...)`", mcpcxx.ToolError.compose, None, None),
    (
        "`mcpcxx.CompletionRequest` (what a `@server.completion` handler receives)",
        mcpcxx.CompletionRequest.__init__,
        None,
        None,
    ),
]


def _options(fn: Callable[..., Any], inner: Callable[..., Any] | None, keys: Any) -> list[Any]:
    """The parameters a caller passes by name: fn's own, then **options expanded."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self" or p.kind is p.POSITIONAL_ONLY:
            continue
        if p.kind is p.VAR_KEYWORD:
            inner_params = inspect.signature(inner).parameters if inner else {}
            out += [inner_params[k] for k in keys.__annotations__]
            continue
        out.append(p)
    return out


def _descriptions(fn: Callable[..., Any], inner: Callable[..., Any] | None) -> dict[str, str]:
    docs = dict(parse_docstring(inspect.getdoc(inner)).params) if inner else {}
    docs.update(parse_docstring(inspect.getdoc(fn)).params)
    return docs


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The generated part of the page."""
    lines = [BEGIN]
    for heading, fn, inner, keys in SECTIONS:
        docs = _descriptions(fn, inner)
        lines += [
            "",
            f"### {heading}",
            "",
            "| Option | Type | Default | Meaning |",
            "|---|---|---|---|",
        ]
        for p in _options(fn, inner, keys):
            default = "required" if p.default is p.empty else f"`{p.default!r}`"
            kind = "" if p.annotation is p.empty else f"`{_cell(str(p.annotation))}`"
            lines.append(f"| `{p.name}` | {kind} | {default} | {_cell(docs.get(p.name, ''))} |")
    lines += ["", END]
    return "\n".join(lines)


def _generated_part(text: str) -> str:
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    return text[start:stop]


@pytest.mark.parametrize("heading", [s[0] for s in SECTIONS])
def test_every_option_has_exactly_one_args_entry(heading: str) -> None:
    [(fn, inner, keys)] = [(f, i, k) for h, f, i, k in SECTIONS if h == heading]
    names = [p.name for p in _options(fn, inner, keys)]
    docs = _descriptions(fn, inner)
    assert [n for n in names if not docs.get(n)] == [], "options without an Args entry"
    documented = set(parse_docstring(inspect.getdoc(fn)).params)
    if inner is not None:
        documented |= set(parse_docstring(inspect.getdoc(inner)).params)
    # Not options: the decorated function, and the **options a table row stands for each key of.
    others = {"fn", "uri"} if inner is not None else {"fn"}
    others |= {f"**{p.name}" for p in inspect.signature(fn).parameters.values()} | {
        p.name for p in inspect.signature(fn).parameters.values() if p.kind is p.VAR_KEYWORD
    }
    assert sorted(documented - set(names) - others) == [], "Args entries naming no option"


def test_add_tool_takes_the_options_of_tool() -> None:
    def keywords(fn: Callable[..., Any]) -> list[str]:
        return [p.name for p in _options(fn, Tool.from_function, ToolOptions)]

    assert keywords(mcpcxx.Server.add_tool)[1:] == keywords(mcpcxx.Server.tool)


def test_the_page_matches_the_code() -> None:
    assert _generated_part(PAGE.read_text()) == render(), (
        "docs/python-reference.md is stale: run python tests/python/test_python_reference.py "
        "--write"
    )


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


@pytest.mark.parametrize("number", range(len(_examples())))
def test_each_example_runs(number: int) -> None:
    """Every ```python block of the page is self-contained and asserts what it shows."""
    namespace: dict[str, Any] = {"__name__": f"python_reference_example_{number}"}
    exec(
        compile(_examples()[number], f"docs/python-reference.md example {number}", "exec"),
        namespace,
    )
    for value in namespace.values():
        if isinstance(value, mcpcxx.Server):
            value.close()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    text = PAGE.read_text()
    PAGE.write_text(text.replace(_generated_part(text), render()))
    print(f"rewrote {PAGE}")
