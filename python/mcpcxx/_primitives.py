"""Resources, prompts and completion: specs and wrappers for the engine."""

from __future__ import annotations

import base64
import inspect
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpcxx._content import Completion, CompletionRequest, PromptMessage
from mcpcxx._context import Context
from mcpcxx._docstrings import parse_docstring
from mcpcxx._results import content_block, dumps, to_jsonable
from mcpcxx._schema import _check_parameter, _is_context, _type_hints

if TYPE_CHECKING:
    from mcpcxx import _core
    from mcpcxx._aio import LoopThread
    from mcpcxx._server import Server

_TEMPLATE_VAR = re.compile(r"\{([^{}]*)\}")


def _call(
    fn: Callable[..., Any], kwargs: dict[str, Any], loop: LoopThread, core: _core.RequestContext
) -> Any:
    value = fn(**kwargs)
    if inspect.isawaitable(value):
        value = loop.run(value, core)  # type: ignore[arg-type]
    return value


def _plain_params(fn: Callable[..., Any], where: str) -> tuple[list[inspect.Parameter], str | None]:
    """Parameters other than the Context one, each checked to be str-valued and by name."""
    hints = _type_hints(fn, where)
    params: list[inspect.Parameter] = []
    context_param = None
    for p in inspect.signature(fn).parameters.values():
        annotation = hints.get(p.name, str)
        if _is_context(annotation):
            context_param = p.name
            continue
        _check_parameter(p, where)
        if annotation not in (str, str | None):
            raise TypeError(
                f"{where}: parameter '{p.name}' must be str (the protocol sends strings here), "
                f"not {annotation!r}"
            )
        params.append(p)
    return params, context_param


def resource_spec(
    fn: Callable[..., Any],
    uri: str,
    name: str | None,
    title: str | None,
    description: str | None,
    mime_type: str | None,
    annotations: dict[str, Any] | None,
    size: int | None,
) -> tuple[dict[str, Any], bool]:
    """(spec dict, is a template) for @server.resource; TypeError when fn does not fit uri."""
    if not isinstance(uri, str) or not uri:
        raise TypeError("@server.resource needs the resource URI or URI template as a str")
    where = f"resource {uri!r}"
    params, _ = _plain_params(fn, where)
    variables = _TEMPLATE_VAR.findall(uri)
    wanted = {p.name for p in params}
    if set(variables) != wanted:
        raise TypeError(
            f"{where}: the function's parameters {sorted(wanted)} must be exactly the URI "
            f"template's variables {sorted(set(variables))}"
        )
    doc = parse_docstring(inspect.getdoc(fn))
    spec: dict[str, Any] = {
        "name": name or getattr(fn, "__name__", uri),
        "title": title,
        "description": description if description is not None else (doc.description or None),
        "mimeType": mime_type,
    }
    if annotations is not None:
        spec["annotations"] = annotations
    if variables:
        spec["uriTemplate"] = uri
        return spec, True
    spec["uri"] = uri
    if size is not None:
        spec["size"] = size
    return spec, False


def _contents(uri: str, value: Any, mime_type: str | None) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": value}]
    if isinstance(value, (bytes, bytearray)):
        blob = base64.b64encode(bytes(value)).decode("ascii")
        return [{"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob}]
    return [
        {"uri": uri, "mimeType": mime_type or "application/json", "text": dumps(to_jsonable(value))}
    ]


def resource_wrapper(
    fn: Callable[..., Any], uri: str, mime_type: str | None, loop: LoopThread, server: Server
) -> Callable[[str, dict[str, str] | None, _core.RequestContext], list[dict[str, Any]]]:
    """The reader the engine calls: (uri, template variables | None, ctx) -> contents."""
    _, ctx_name = _plain_params(fn, f"resource {uri!r}")

    def read(
        actual_uri: str, variables: dict[str, str] | None, core: _core.RequestContext
    ) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = dict(variables or {})
        if ctx_name is not None:
            kwargs[ctx_name] = Context(core, server)
        return _contents(actual_uri, _call(fn, kwargs, loop, core), mime_type)

    return read


def prompt_spec(
    fn: Callable[..., Any], name: str | None, title: str | None, description: str | None
) -> dict[str, Any]:
    """The prompt's spec dict (arguments from the str parameters)."""
    prompt_name = name or getattr(fn, "__name__", None)
    if not prompt_name or prompt_name == "<lambda>":
        raise TypeError("a lambda or nameless callable needs @prompt(name=...)")
    where = f"prompt {prompt_name!r}"
    params, _ = _plain_params(fn, where)
    doc = parse_docstring(inspect.getdoc(fn))
    arguments = [
        {
            "name": p.name,
            "description": doc.params.get(p.name),
            "required": p.default is inspect.Parameter.empty,
        }
        for p in params
    ]
    return {
        "name": prompt_name,
        "title": title,
        "description": description if description is not None else (doc.description or None),
        "arguments": arguments,
    }


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


def prompt_wrapper(
    fn: Callable[..., Any], spec: dict[str, Any], loop: LoopThread, server: Server
) -> Callable[[dict[str, str], _core.RequestContext], tuple[str | None, list[dict[str, Any]]]]:
    """The handler the engine calls: (arguments, ctx) -> (description, messages)."""
    _, ctx_name = _plain_params(fn, f"prompt {spec['name']!r}")
    known = {a["name"] for a in spec["arguments"]}

    def render(
        arguments: dict[str, str], core: _core.RequestContext
    ) -> tuple[str | None, list[dict[str, Any]]]:
        kwargs: dict[str, Any] = {k: v for k, v in arguments.items() if k in known}
        if ctx_name is not None:
            kwargs[ctx_name] = Context(core, server)
        value = _call(fn, kwargs, loop, core)
        items = value if isinstance(value, (list, tuple)) else [value]
        return spec["description"], [_message(i) for i in items]

    return render


def completion_wrapper(
    fn: Callable[..., Any], loop: LoopThread, server: Server
) -> Callable[..., tuple[list[str], int | None, bool]]:
    """The completion handler the engine calls."""
    params, ctx_name = [], None
    for p in inspect.signature(fn).parameters.values():
        if _is_context(_type_hints(fn, "completion handler").get(p.name)):
            ctx_name = p.name
        else:
            params.append(p.name)
    if len(params) != 1:
        raise TypeError(
            "the completion handler takes one CompletionRequest parameter (plus an optional "
            f"Context), not {params}"
        )

    def complete(
        ref_type: str,
        ref: str,
        argument: str,
        value: str,
        context: dict[str, str],
        core: _core.RequestContext,
    ) -> tuple[list[str], int | None, bool]:
        kwargs: dict[str, Any] = {
            params[0]: CompletionRequest(ref_type, ref, argument, value, context)
        }
        if ctx_name is not None:
            kwargs[ctx_name] = Context(core, server)
        out = _call(fn, kwargs, loop, core)
        if isinstance(out, Completion):
            return [str(v) for v in out.values], out.total, bool(out.has_more)
        return [str(v) for v in out], None, False

    return complete
