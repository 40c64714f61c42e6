"""Calling a handler function for the engine: its Context argument and awaitable results."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpcxx._runtime.context import EngineContext
from mcpcxx.observability import _otel

if TYPE_CHECKING:
    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime

Caller = Callable[[dict[str, Any], "RequestContext"], Any]
"""caller(kwargs, core) -> the function's value (awaited when it is awaitable)."""

Starter = Callable[[dict[str, Any], "RequestContext", Callable[[Any], None]], None]
"""starter(kwargs, core, finished) schedules an async function on the server's loop and returns;
finished(value_or_exception) runs on the loop when the coroutine ends."""


def caller(fn: Callable[..., Any], context_param: str | None, runtime: Runtime) -> Caller:
    """A caller of `fn` adding the Context under `context_param`.

    Coroutines run on the server's event loop and are cancelled with the request.
    """
    loop = runtime.loop
    is_async = inspect.iscoroutinefunction(fn)
    isawaitable = inspect.isawaitable

    def call(kwargs: dict[str, Any], core: RequestContext) -> Any:
        if context_param is not None:
            kwargs[context_param] = EngineContext(core, runtime)
        span = core.trace_span if runtime.tracing else None
        if span is not None:  # the handler's own spans become children of the request span
            with _otel.current(span):
                value = fn(**kwargs)
            if is_async or (type(value) is not str and isawaitable(value)):
                value = loop.run(_otel.in_span(value, span), core)
            return value
        value = fn(**kwargs)
        if is_async or (type(value) is not str and isawaitable(value)):
            value = loop.run(value, core)
        return value

    return call


def starter(
    fn: Callable[..., Any], context_param: str | None, runtime: Runtime, name: str
) -> Starter:
    """A starter of the `async def` function `fn` on the server's event loop (no thread waits).

    The coroutine runs as an asyncio task named after the tool and request, and is cancelled with
    the request (deadline, notifications/cancelled, shutdown).
    """
    loop = runtime.loop

    def start(
        kwargs: dict[str, Any], core: RequestContext, finished: Callable[[Any], None]
    ) -> None:
        if context_param is not None:
            kwargs[context_param] = EngineContext(core, runtime)
        span = core.trace_span if runtime.tracing else None
        if span is not None:
            with _otel.current(span):
                coro = _otel.in_span(fn(**kwargs), span)
        else:
            coro = fn(**kwargs)
        loop.start(coro, core, finished, f"mcpcxx tool {name} (request {core.request_id!r})")

    return start
