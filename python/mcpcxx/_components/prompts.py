"""Prompts as component objects.

Prompt.from_function(fn) derives the arguments from the str parameters once; to_mcp_prompt() is
its prompts/list entry, convert_result() turns a return value into a GetPromptResult, and
handler() is what the engine calls.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcpcxx._components.results import content_block
from mcpcxx._protocol.content import PromptMessage
from mcpcxx._protocol.icons import check_icons
from mcpcxx._runtime.invoke import caller
from mcpcxx._schema.docstrings import parse_docstring
from mcpcxx._schema.params import plain_params

if TYPE_CHECKING:
    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime

PromptHandler = Callable[["dict[str, str]", "RequestContext"], dict[str, Any]]


def _message(item: Any) -> dict[str, Any]:
    if isinstance(item, str):
        return {"role": "user", "content": {"type": "text", "text": item}}
    if isinstance(item, PromptMessage):
        if item.role not in ("user", "assistant"):
            raise ValueError(
                f"prompt message role must be 'user' or 'assistant', not {item.role!r}"
            )
        return {"role": item.role, "content": content_block(item.content)}
    if isinstance(item, dict) and "role" in item and "content" in item:
        return {"role": item["role"], "content": content_block(item["content"])}
    raise TypeError(f"a {type(item).__name__} is not a prompt message; use str or PromptMessage")


class Prompt:
    """A function rendering a prompt; its str parameters are the prompt's arguments."""

    __slots__ = ("arguments", "context_param", "description", "fn", "icons", "name", "title")

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str,
        arguments: list[dict[str, Any]],
        context_param: str | None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
    ) -> None:
        self.fn, self.name, self.arguments = fn, name, arguments
        self.context_param, self.title, self.description = context_param, title, description
        self.icons = icons

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[Mapping[str, Any]] | None = None,
    ) -> Prompt:
        """Analyse `fn`.

        TypeError for a nameless callable or a parameter that is not str; TypeError/ValueError
        for icons not of the spec's Icon shape.
        """
        prompt_name = name or getattr(fn, "__name__", None)
        if not prompt_name or prompt_name == "<lambda>":
            raise TypeError("a lambda or nameless callable needs @prompt(name=...)")
        checked_icons = check_icons(icons, f"prompt {prompt_name!r}")
        params, context_param = plain_params(fn, f"prompt {prompt_name!r}")
        doc = parse_docstring(inspect.getdoc(fn))
        arguments = []
        for p in params:
            argument: dict[str, Any] = {"name": p.name}
            if doc.params.get(p.name):
                argument["description"] = doc.params[p.name]
            argument["required"] = p.default is inspect.Parameter.empty
            arguments.append(argument)
        return cls(
            fn,
            name=prompt_name,
            arguments=arguments,
            context_param=context_param,
            title=title,
            description=description if description is not None else (doc.description or None),
            icons=checked_icons,
        )

    def to_mcp_prompt(self) -> dict[str, Any]:
        """The Prompt object prompts/list shows."""
        entry: dict[str, Any] = {"name": self.name}
        if self.arguments:
            entry["arguments"] = self.arguments
        if self.title is not None:
            entry["title"] = self.title
        if self.description is not None:
            entry["description"] = self.description
        if self.icons is not None:
            entry["icons"] = self.icons
        return entry

    def convert_result(self, value: Any) -> dict[str, Any]:
        """The GetPromptResult for a return value.

        The value is a str, or a list of str / PromptMessage / message dicts.
        """
        items = value if isinstance(value, (list, tuple)) else [value]
        result: dict[str, Any] = {"messages": [_message(i) for i in items]}
        if self.description is not None:
            result["description"] = self.description
        return result

    def handler(self, runtime: Runtime) -> PromptHandler:
        """The engine's handler: (arguments, request) -> GetPromptResult."""
        call = caller(self.fn, self.context_param, runtime)
        known = {a["name"] for a in self.arguments}

        def render(arguments: dict[str, str], core: RequestContext) -> dict[str, Any]:
            kwargs: dict[str, Any] = {k: v for k, v in arguments.items() if k in known}
            return self.convert_result(call(kwargs, core))

        return render
