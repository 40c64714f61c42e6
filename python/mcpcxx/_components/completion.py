"""The completion handler as a component object.

Completer.from_function(fn) checks the signature once; handler() is what the engine calls with
the CompleteRequest params.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpcxx._protocol.content import Completion, CompletionRequest
from mcpcxx._runtime.invoke import caller
from mcpcxx._schema.signature import is_context, type_hints

if TYPE_CHECKING:
    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime

CompletionHandler = Callable[[dict[str, Any], "RequestContext"], dict[str, Any]]


class Completer:
    """fn(request: CompletionRequest[, ctx: Context]) -> list[str] | Completion."""

    __slots__ = ("context_param", "fn", "request_param")

    def __init__(
        self, fn: Callable[..., Any], request_param: str, context_param: str | None
    ) -> None:
        self.fn, self.request_param, self.context_param = fn, request_param, context_param

    @classmethod
    def from_function(cls, fn: Callable[..., Any]) -> Completer:
        """Check the signature; TypeError unless it takes one request (plus a Context)."""
        hints = type_hints(fn, "completion handler")
        params, context_param = [], None
        for p in inspect.signature(fn).parameters.values():
            if is_context(hints.get(p.name)):
                context_param = p.name
            else:
                params.append(p.name)
        if len(params) != 1:
            raise TypeError(
                "the completion handler takes one CompletionRequest parameter (plus an optional "
                f"Context), not {params}"
            )
        return cls(fn, params[0], context_param)

    @staticmethod
    def request_from(params: dict[str, Any]) -> CompletionRequest:
        """The CompletionRequest for CompleteRequest params (ref, argument, context)."""
        ref = params["ref"]
        return CompletionRequest(
            ref["type"],
            ref.get("name", ref.get("uri", "")),
            params["argument"]["name"],
            params["argument"]["value"],
            params.get("context", {}).get("arguments", {}),
        )

    @staticmethod
    def convert_result(value: Any) -> dict[str, Any]:
        """The Completion object for a list of values or a Completion."""
        if isinstance(value, Completion):
            out: dict[str, Any] = {"values": [str(v) for v in value.values]}
            out["hasMore"] = bool(value.has_more)
            if value.total is not None:
                out["total"] = value.total
            return out
        return {"values": [str(v) for v in value], "hasMore": False}

    def handler(self, runtime: Runtime) -> CompletionHandler:
        """The engine's handler: (CompleteRequest params, request) -> Completion."""
        call = caller(self.fn, self.context_param, runtime)

        def complete(params: dict[str, Any], core: RequestContext) -> dict[str, Any]:
            request = self.request_from(params)
            return self.convert_result(call({self.request_param: request}, core))

        return complete
