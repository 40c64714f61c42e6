"""Tools whose inputSchema is given verbatim: @server.tool(input_schema={...}).

The engine validates arguments against the given schema before the function runs, so arguments
arrive as plain JSON values (no pydantic conversion). Each schema property goes to the parameter
of the same name; a `**kwargs` parameter receives every argument instead.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

Converter = Callable[[dict[str, Any]], dict[str, Any]]


def _plain_schema(schema: object, where: str) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        raise TypeError(f"{where}: input_schema must be a dict, not {type(schema).__name__}")
    try:
        # A deep copy that also proves the schema is JSON (the engine receives it as JSON).
        plain: dict[str, Any] = json.loads(json.dumps(schema, allow_nan=False))
    except (TypeError, ValueError) as e:
        raise TypeError(f"{where}: input_schema is not JSON-serialisable: {e}") from None
    if plain.get("type") != "object":
        raise ValueError(
            f'{where}: input_schema must have "type": "object" (MCP tool arguments are an '
            f"object), got type {plain.get('type')!r}"
        )
    if not isinstance(plain.get("properties", {}), dict):
        raise ValueError(f"{where}: input_schema 'properties' must be an object")
    if not isinstance(plain.get("required", []), list):
        raise ValueError(f"{where}: input_schema 'required' must be an array of names")
    return plain


def _parameters(
    fn: Callable[..., Any], where: str, is_context: Callable[[Any], bool]
) -> tuple[dict[str, inspect.Parameter], str | None, bool]:
    """(named parameters, Context parameter, whether a **kwargs parameter exists)."""
    try:
        hints = inspect.get_annotations(fn, eval_str=True)
    except NameError as e:
        raise TypeError(f"{where}: cannot resolve a type hint: {e}") from None
    named: dict[str, inspect.Parameter] = {}
    context_param: str | None = None
    var_keyword = False
    for p in inspect.signature(fn).parameters.values():
        if is_context(hints.get(p.name)):
            context_param = p.name
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            var_keyword = True
        elif p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY):
            raise TypeError(
                f"{where}: parameter '{p.name}' cannot be passed by name; JSON arguments are "
                "passed by name, so use named parameters or **kwargs"
            )
        else:
            named[p.name] = p
    return named, context_param, var_keyword


def given_input(
    fn: Callable[..., Any], schema: object, where: str, is_context: Callable[[Any], bool]
) -> tuple[dict[str, Any], Converter, str | None]:
    """(inputSchema, argument converter, Context parameter name) for an explicit schema."""
    plain = _plain_schema(schema, where)
    named, context_param, var_keyword = _parameters(fn, where, is_context)
    properties = set(plain.get("properties", {}))
    required = set(plain.get("required", []))
    unknown = sorted(properties - set(named))
    if unknown and not var_keyword:
        raise TypeError(
            f"{where}: input_schema declares {unknown} but the function has no parameter of "
            "that name; add the parameters or a **kwargs parameter"
        )
    for p in named.values():
        if p.default is inspect.Parameter.empty and p.name not in required:
            raise TypeError(
                f"{where}: parameter '{p.name}' has no default but input_schema does not list "
                "it in 'required'; give it a default or require it"
            )
    if var_keyword:
        return plain, dict, context_param
    names = frozenset(named)

    def convert(arguments: dict[str, Any]) -> dict[str, Any]:
        # Arguments the schema allows but the function does not take are not passed.
        return {k: v for k, v in arguments.items() if k in names}

    return plain, convert, context_param
