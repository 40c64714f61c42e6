"""Middleware: hooks before and after the handler of chosen request methods (docs/middleware.md).

A middleware is a `Middleware` subclass overriding `before`, `after` or both; either may be a
plain or an `async def` method. `before(request)` returns None to go on or a `Reply` that answers
instead; `after(request, reply)` returns None to keep the reply or a `Reply` that replaces it.
Every reply a middleware can give is a row of the error model: a result, a `ToolError`, or a
`Refusal` (forbidden, rate limited, too large). A hook that raises anything else is an unexpected
failure: the client gets sanitized text and a reference id, the server log the traceback.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcpcxx._protocol.errors import ToolError

if TYPE_CHECKING:
    from mcpcxx._runtime.runtime import Runtime

ReplyKind = Literal["result", "tool_error", "protocol_error", "other"]


@dataclass
class Request:
    """One request as a middleware sees it. `state` carries JSON values from before to after."""

    method: str
    name: str
    arguments: dict[str, Any] | None
    meta: dict[str, Any] | None
    principal: dict[str, Any] | None
    http_headers: dict[str, Any] | None
    modern: bool
    protocol_version: str
    tool_annotations: dict[str, Any] | None
    elapsed: float
    """Seconds since the request was received."""
    state: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, d: dict[str, Any]) -> Request:
        """The request from the dict the engine hands a hook (not for user code)."""
        return cls(
            method=d["method"],
            name=d["name"],
            arguments=d["arguments"],
            meta=d["meta"],
            principal=d["principal"],
            http_headers=d["http_headers"],
            modern=d["modern"],
            protocol_version=d["protocol_version"],
            tool_annotations=d["tool_annotations"],
            elapsed=d["elapsed_us"] / 1e6,
            state=d["state"],
        )


@dataclass(frozen=True)
class Notification:
    """A notification from the client as `Middleware.on_notification` sees it."""

    method: str
    params: dict[str, Any] | None
    principal: dict[str, Any] | None
    protocol_version: str
    """The revision a legacy session negotiated; "" outside one (2026-07-28)."""

    @classmethod
    def from_engine(cls, d: dict[str, Any]) -> Notification:
        """The notification from the dict the engine hands the hook (not for user code)."""
        return cls(
            method=d["method"],
            params=d["params"],
            principal=d["principal"],
            protocol_version=d["protocol_version"],
        )


class Refusal:
    """A refusal: each is a row of the situation table (docs/error-model.md)."""

    __slots__ = ("_answer",)

    def __init__(self, answer: dict[str, Any]) -> None:
        self._answer = answer

    @classmethod
    def forbidden(cls, reason: str) -> Refusal:
        """Row P58: this caller may not use the method or primitive; `reason` says why."""
        if not reason:
            raise ValueError("Refusal.forbidden: give the reason")
        return cls({"forbidden": reason})

    @classmethod
    def rate_limited(cls, limit: str, retry_after: float) -> Refusal:
        """Rows T14 (tools/call) and P59: `limit` names what is limited; `retry_after` seconds."""
        if not limit:
            raise ValueError("Refusal.rate_limited: name the limit")
        if retry_after < 0:
            raise ValueError("Refusal.rate_limited: retry_after must be >= 0 seconds")
        return cls({"rate_limited": {"limit": limit, "retry_after_ms": round(retry_after * 1000)}})

    @classmethod
    def too_large(cls, size: int, limit: int, ask_less: str = "") -> Refusal:
        """Rows T15/T15w (tools/call) and P60: the reply is `size` bytes, over `limit`."""
        return cls({"too_large": {"bytes": size, "limit": limit, "ask_less": ask_less}})


class Reply:
    """A reply as a middleware sees it (in `after`) or gives it (`Reply.result`, ...)."""

    __slots__ = ("_answer", "_view")

    def __init__(self, answer: dict[str, Any] | None = None, view: Any = None) -> None:
        self._answer = answer
        self._view = view

    @classmethod
    def result(cls, result: Mapping[str, Any]) -> Reply:
        """Answers with `result`, a result object for the method (a CallToolResult dict, ...)."""
        if not isinstance(result, Mapping):
            raise TypeError("Reply.result takes the result object as a dict")
        return cls({"result": dict(result)})

    @classmethod
    def tool_error(cls, error: ToolError) -> Reply:
        """Answers with a tool error (T2 on tools/call, P26 on other methods)."""
        if not isinstance(error, ToolError):
            raise TypeError("Reply.tool_error takes a ToolError")
        return cls({"tool_error": error})

    @classmethod
    def refuse(cls, refusal: Refusal) -> Reply:
        """Answers with a refusal's row."""
        return cls(refusal._answer)

    @classmethod
    def from_engine(cls, view: Any) -> Reply:
        """The reply an after hook sees, over the engine's view (not for user code)."""
        return cls(None, view)

    @property
    def kind(self) -> ReplyKind:
        """result, tool_error, protocol_error or other (a task, an input_required)."""
        return self._seen().kind  # type: ignore[no-any-return]

    @property
    def row(self) -> str:
        """The situation row of an error reply ("P17", "T2"); "" for results."""
        return self._seen().row  # type: ignore[no-any-return]

    @property
    def category(self) -> str:
        """The metrics category ("ok", "invalid_arguments", "rate_limited", ...)."""
        return self._seen().category  # type: ignore[no-any-return]

    @property
    def is_error(self) -> bool:
        """True for tool errors and protocol errors."""
        return self.kind in ("tool_error", "protocol_error")

    def payload(self) -> dict[str, Any] | None:
        """The result object of a result or tool error (converted on each call); else None."""
        return self._seen().result()  # type: ignore[no-any-return]

    def size(self) -> int:
        """The result object's size in bytes as sent; 0 for errors without one."""
        return self._seen().result_bytes()  # type: ignore[no-any-return]

    def _seen(self) -> Any:
        if self._view is None:
            raise RuntimeError("only a reply passed to an after hook can be inspected")
        return self._view


class Middleware:
    """Base class: override `before`, `after` or both, and/or `on_notification`.

    `before` and `after` may be plain or async def; `on_notification` is a plain def. `methods`
    limits it to those request methods and client notifications (default: every request method
    but initialize and ping, and every client notification); `tools` limits tools/call to those
    tools.
    """

    methods: Sequence[str] = ()
    tools: Sequence[str] = ()

    def before(self, request: Request) -> Any:
        """Return None to go on, or a Reply that answers the request instead."""
        return None

    def after(self, request: Request, reply: Reply) -> Any:
        """Return None to keep `reply`, or a Reply that replaces it."""
        return None

    def on_notification(self, notification: Notification) -> bool | None:
        """Runs before the server acts on a client notification (on the thread that read it).

        Return None or True to let it through, False to drop it (logged).
        """
        return None


def overrides(mw: Middleware, name: str) -> bool:
    """True when `mw`'s class overrides the hook `name`."""
    return getattr(type(mw), name) is not getattr(Middleware, name)


def engine_answer(value: Any, runtime: Runtime, hook: str) -> dict[str, Any] | None:
    """What a hook returned, as the engine's tagged dict (a coroutine is run first)."""
    if inspect.iscoroutine(value):
        value = runtime.loop.run(value, None)
    if value is None:
        return None
    if not isinstance(value, Reply) or value._answer is None:
        raise TypeError(
            f"{hook} must return None or a Reply made by Reply.result, "
            f"Reply.tool_error or Reply.refuse, not {type(value).__name__}"
        )
    return value._answer
