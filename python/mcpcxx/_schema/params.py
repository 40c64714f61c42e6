"""The str parameters of resource readers and prompts (the protocol sends strings there)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcpcxx._schema.signature import check_parameter, is_context, type_hints


def plain_params(fn: Callable[..., Any], where: str) -> tuple[list[inspect.Parameter], str | None]:
    """(parameters other than the Context one, the Context parameter's name).

    Raises TypeError for a parameter that is not str-valued or not passable by name.
    """
    hints = type_hints(fn, where)
    params: list[inspect.Parameter] = []
    context_param = None
    for p in inspect.signature(fn).parameters.values():
        annotation = hints.get(p.name, str)
        if is_context(annotation):
            context_param = p.name
            continue
        check_parameter(p, where)
        if annotation not in (str, str | None):
            raise TypeError(
                f"{where}: parameter '{p.name}' must be str (the protocol sends strings here), "
                f"not {annotation!r}"
            )
        params.append(p)
    return params, context_param
