"""At-most-once tools (docs/python.md, "At-most-once tools").

An at-most-once tool never runs its function twice for one operation: a call identical to an
earlier one within the window (same caller, tool and arguments, or with `key` the same value of
that argument alone) gets the first call's result again, or a refusal saying why the function did
not run. The engine keeps the records (tool_spec::at_most_once); this module holds the declaration
a tool takes, what a resolver receives and answers, and their checked forms for the engine.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, cast

if TYPE_CHECKING:
    from mcpcxx._core import RequestContext
    from mcpcxx._runtime.runtime import Runtime


class NotApplied(enum.Enum):
    """The type of NOT_APPLIED (a resolver's answer: the earlier call changed nothing)."""

    NOT_APPLIED = "NOT_APPLIED"

    def __repr__(self) -> str:
        return "mcpcxx.NOT_APPLIED"


NOT_APPLIED: Final = NotApplied.NOT_APPLIED
"""A resolver's answer when the earlier call applied nothing: the repeat runs the tool."""

PriorCallReason = Literal["timeout", "cancelled", "failed", "replica_lost"]


@dataclass(frozen=True)
class PriorCall:
    """An earlier identical call whose outcome is unknown, as a resolver receives it.

    Attributes:
        call_id: The earlier call's id (the server log names it too).
        first_called_at: When it started (an aware datetime in UTC).
        reason: Why its outcome is unknown: "timeout", "cancelled" (after it started),
            "failed" (an unexpected exception, or a ToolError with effect "unknown") or
            "replica_lost" (the replica running it stopped).
        arguments: The arguments of the call asking now, as JSON values; identical to the
            earlier call's by the tool's key.
    """

    call_id: str
    first_called_at: datetime
    reason: PriorCallReason
    arguments: dict[str, Any]


Resolver = Callable[[PriorCall], Any]
"""resolver(prior) -> the earlier call's result, None (still unknown) or NOT_APPLIED; it may be
an `async def` function."""


@dataclass(frozen=True)
class StatusCheck:
    """The tool a refused repeat points the model to, so it can learn what the first call did.

    The refusal text shows it as `tool({"arg": value, ...})` with the repeat's values of
    `arguments`, which must be arguments of the at-most-once tool.

    Attributes:
        tool: The name of the tool that reads the operation's state.
        arguments: The names of this tool's arguments passed on to it.
    """

    tool: str
    arguments: Sequence[str] = ()


@dataclass(frozen=True)
class AtMostOnce:
    """How a tool runs each operation at most once (`@server.tool(at_most_once=...)`).

    Attributes:
        window: How long after the first call an identical call is matched against it (a
            timedelta, more than 0 and at most 7 days).
        key: The argument carrying a caller-chosen idempotency key (a required argument):
            calls with the same value are one operation whatever their other arguments.
            None: every argument is compared.
        status_check: The read a refusal names (see StatusCheck); None: the refusal tells the
            model to check the current state with the tools that read it.
        resolver: Called when a repeat finds the first call's outcome unknown:
            resolver(prior: PriorCall) returns that call's result (converted as the tool's
            return value is), None when it is still unknown (the repeat is refused), or
            NOT_APPLIED when it changed nothing (the repeat runs the tool). An exception counts
            as unknown (and is logged). May be an `async def` function.
    """

    window: timedelta
    key: str | None = None
    status_check: StatusCheck | None = None
    resolver: Resolver | None = None


class AtMostOnceOptions(TypedDict, total=False):
    """Server(at_most_once=...): how the server keeps the records of at-most-once tools."""

    max_result_bytes: int  # a larger result is not kept (a repeat gets T13), default 65536
    max_records: int  # records kept in this process (no shared store), default 100000
    lease: timedelta  # a running call's claim in a shared store outlives its replica, default 5 s
    warn_destructive: bool  # log destructive tools without at_most_once, default True


_SERVER_KEYS = tuple(AtMostOnceOptions.__annotations__)
_HOW = (
    "pass a datetime.timedelta, e.g. at_most_once=timedelta(minutes=10), or "
    "mcpcxx.AtMostOnce(window=timedelta(minutes=10), key=..., status_check=..., resolver=...)"
)


def at_most_once_options(value: Mapping[str, object] | None) -> dict[str, Any] | None:
    """Server(at_most_once=...) in the form the engine reads (durations in seconds).

    TypeError/ValueError name a bad key or value.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(
            "at_most_once must be a dict of at-most-once options "
            f"({', '.join(_SERVER_KEYS)}), not {type(value).__name__}"
        )
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key not in _SERVER_KEYS:
            raise ValueError(
                f"unknown at_most_once option {key!r}; use one of {', '.join(_SERVER_KEYS)}"
            )
        if key == "lease":
            if not isinstance(v, timedelta) or v <= timedelta(0):
                raise TypeError(
                    "at_most_once option 'lease' must be a positive datetime.timedelta, "
                    f"e.g. timedelta(seconds=5), got {v!r}"
                )
            out[key] = v.total_seconds()
        elif key == "warn_destructive":
            if not isinstance(v, bool):
                raise TypeError(
                    f"at_most_once option 'warn_destructive' must be True or False, got {v!r}"
                )
            out[key] = v
        else:
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"at_most_once option {key!r} must be a positive int, got {v!r}")
            out[key] = v
    return out


def check_at_most_once(value: object, where: str) -> AtMostOnce | None:
    """The declaration `at_most_once=` gives a tool; TypeError naming `where` when malformed.

    The engine checks the rest when the tool registers: the window's range, the key being a
    required argument, the status check's arguments being arguments of the tool.
    """
    if value is None:
        return None
    if isinstance(value, timedelta):
        value = AtMostOnce(window=value)
    if not isinstance(value, AtMostOnce):
        seconds = isinstance(value, (int, float)) and not isinstance(value, bool)
        why = (
            "a number of seconds is not accepted (a timedelta makes the unit explicit); "
            if seconds
            else ""
        )
        raise TypeError(f"{where}: at_most_once={value!r} is not a window: {why}{_HOW}")
    if not isinstance(value.window, timedelta):
        raise TypeError(
            f"{where}: AtMostOnce window must be a datetime.timedelta, e.g. "
            f"timedelta(minutes=10), not {type(value.window).__name__}"
        )
    if value.key is not None and (not isinstance(value.key, str) or not value.key):
        raise TypeError(
            f"{where}: AtMostOnce key must be the name of a required argument (a str), "
            f"got {value.key!r}"
        )
    check = value.status_check
    if check is not None:
        if not isinstance(check, StatusCheck):
            raise TypeError(
                f"{where}: AtMostOnce status_check must be a "
                f'mcpcxx.StatusCheck("tool_name", ["argument", ...]), not {type(check).__name__}'
            )
        names = check.arguments
        if (
            not isinstance(check.tool, str)
            or not check.tool
            or isinstance(names, str)
            or not isinstance(names, Sequence)
            or not all(isinstance(a, str) for a in names)
        ):
            raise TypeError(
                f"{where}: StatusCheck needs the tool's name (a str) and a list of this tool's "
                f"argument names, got StatusCheck({check.tool!r}, {names!r})"
            )
    if value.resolver is not None and not callable(value.resolver):
        raise TypeError(
            f"{where}: AtMostOnce resolver must be a function resolver(prior: PriorCall), "
            f"not {type(value.resolver).__name__}"
        )
    return value


def engine_form(declaration: AtMostOnce) -> dict[str, Any]:
    """tool_spec::at_most_once in the form the engine reads (the window in seconds)."""
    check = declaration.status_check
    return {
        "window": declaration.window.total_seconds(),
        "key_argument": declaration.key or "",
        "status_check": None
        if check is None
        else {"tool": check.tool, "arguments": list(check.arguments)},
    }


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

ResolverHandler = Callable[[str, int, str, dict[str, Any], "RequestContext"], dict[str, Any]]
"""What the engine calls: (call_id, first_called_at_ms, reason, arguments, ctx) -> verdict."""


def resolver_handler(
    resolver: Resolver, convert: Callable[[Any], dict[str, Any]], runtime: Runtime
) -> ResolverHandler:
    """The engine's resolver: calls `resolver` and turns its answer into the engine's verdict.

    `convert` turns a result into the tool's CallToolResult; a coroutine runs on the server's
    event loop (the worker thread waits, and the request's cancellation cancels it).
    """
    loop = runtime.loop

    def resolve(
        call_id: str,
        first_called_at_ms: int,
        reason: str,
        arguments: dict[str, Any],
        core: RequestContext,
    ) -> dict[str, Any]:
        first = _EPOCH + timedelta(milliseconds=first_called_at_ms)
        prior = PriorCall(call_id, first, cast("PriorCallReason", reason), arguments)
        value = resolver(prior)
        if inspect.iscoroutine(value):  # an async def resolver
            value = loop.run(value, core)
        if value is None:
            return {"verdict": "unknown"}
        if value is NOT_APPLIED:
            return {"verdict": "not_applied"}
        return {"verdict": "applied", "result": convert(value)}

    return resolve
