"""Registers a middleware with the engine (Server.add_middleware; docs/middleware.md)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mcpcxx._components.middleware import (
    Middleware,
    Notification,
    Reply,
    Request,
    engine_answer,
    overrides,
)
from mcpcxx._components.middleware_builtins import BuiltinMiddleware

if TYPE_CHECKING:
    from mcpcxx._runtime.runtime import Runtime


def add_middleware(
    core: Any,
    runtime: Runtime,
    mw: Middleware,
    name: str | None,
    methods: Sequence[str] | None,
    tools: Sequence[str] | None,
) -> None:
    """Registers `mw` with the engine: its hooks wrapped so coroutines run on the server loop."""
    if not isinstance(mw, Middleware):
        raise TypeError("add_middleware takes a Middleware instance (subclass mcpcxx.Middleware)")
    chosen_methods = list(mw.methods if methods is None else methods)
    chosen_tools = list(mw.tools if tools is None else tools)
    if isinstance(mw, BuiltinMiddleware):
        mw.register_with(core, chosen_methods, chosen_tools)
        return
    label = name or type(mw).__name__
    before = after = None
    if overrides(mw, "before"):

        def before(d: dict[str, Any]) -> dict[str, Any] | None:
            req = Request.from_engine(d)
            answer = engine_answer(mw.before(req), runtime, f"{label}.before")
            d["state"] = req.state
            return answer

    if overrides(mw, "after"):

        def after(d: dict[str, Any], view: Any) -> dict[str, Any] | None:
            reply = Reply.from_engine(view)
            return engine_answer(mw.after(Request.from_engine(d), reply), runtime, f"{label}.after")

    core.add_middleware(
        label, chosen_methods, chosen_tools, before, after, notification_hook(mw, label)
    )


def notification_hook(mw: Middleware, label: str) -> Callable[[dict[str, Any]], bool] | None:
    """`mw.on_notification` as the engine calls it, or None when `mw` does not override it."""
    if not overrides(mw, "on_notification"):
        return None
    if inspect.iscoroutinefunction(type(mw).on_notification):
        raise TypeError(
            f"{label}.on_notification must be a plain def, not async def: it runs on the thread "
            "that read the notification, before the server acts on it"
        )

    def on_notification(d: dict[str, Any]) -> bool:
        answer: object = mw.on_notification(Notification.from_engine(d))  # may break its type
        if answer is None or isinstance(answer, bool):
            return answer is not False
        if inspect.iscoroutine(answer):
            answer.close()
        raise TypeError(
            f"{label}.on_notification must return True, False or None, not {type(answer).__name__}"
        )

    return on_notification
