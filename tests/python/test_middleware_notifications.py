"""Middleware on client notifications (Middleware.on_notification, docs/middleware.md): the hook
sees each notification it wraps, True or None lets it through (a cancellation then cancels), False
drops it (the call runs on), a hook that raises drops it with the failure in the server log, and
registration refuses an async hook or a methods list that leaves the hook nothing to wrap.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

import mcpcxx
from mcpcxx import Context, Middleware
from mcpcxx.middleware import Notification
from mcpcxx.testing import Client, text_of


class Gate(Middleware):
    """Records each notification; lets it through unless `drop` names its method."""

    def __init__(self, drop: tuple[str, ...] = (), answer: Any = False) -> None:
        self.seen: list[Notification] = []
        self.drop, self.answer = drop, answer

    def on_notification(self, notification: Notification) -> bool | None:
        self.seen.append(notification)
        return self.answer if notification.method in self.drop else None


def spinning_server(lines: list[str] | None = None) -> tuple[mcpcxx.Server, threading.Event]:
    """A server whose `spin` tool runs until cancelled or released (it says which)."""
    kw: dict[str, Any] = {} if lines is None else {"log_writer": lines.append}
    server = mcpcxx.Server("notified", **kw)
    release = threading.Event()

    @server.tool
    def spin(ctx: Context) -> str:
        while not ctx.cancelled and not release.is_set():
            release.wait(0.002)
        return "cancelled" if ctx.cancelled else "released"

    return server, release


def test_the_hook_sees_what_a_legacy_session_sends() -> None:
    server, _ = spinning_server()
    gate = Gate()
    server.add_middleware(gate)
    c = Client(server, protocol_version="2025-06-18")
    c.notify("notifications/roots/list_changed")
    c.notify("notifications/progress", {"progressToken": "t", "progress": 1})
    assert [n.method for n in gate.seen] == [
        "notifications/initialized",
        "notifications/roots/list_changed",
        "notifications/progress",
    ]
    assert {n.protocol_version for n in gate.seen} == {"2025-06-18"}
    assert gate.seen[2].params == {"progressToken": "t", "progress": 1}
    assert gate.seen[0].principal is None
    c.close()


@pytest.mark.parametrize("answer", [None, True])
def test_a_cancellation_let_through_cancels_the_call(answer: bool | None) -> None:
    server, release = spinning_server()
    gate = Gate(drop=("notifications/cancelled",), answer=answer)
    server.add_middleware(gate)
    c = Client(server, protocol_version="2025-11-25", inline=False)
    rid = c.call_tool_nowait("spin")
    c.cancel(rid)
    c.wait_idle()
    release.set()
    assert not c.has_response(rid), "a cancelled call got a reply"
    cancels = [n.params for n in gate.seen if n.method == "notifications/cancelled"]
    assert [(p or {}).get("requestId") for p in cancels] == [rid], cancels
    c.close()


def test_a_dropped_cancellation_leaves_the_call_running() -> None:
    lines: list[str] = []
    server, release = spinning_server(lines)
    server.add_middleware(Gate(drop=("notifications/cancelled",)), name="no_cancel")
    c = Client(server, protocol_version="2025-11-25", inline=False)
    rid = c.call_tool_nowait("spin")
    c.cancel(rid)
    release.set()
    assert text_of(c.wait(rid)) == "released"
    assert any('"notification_dropped"' in x and '"no_cancel"' in x for x in lines), lines
    c.close()


def test_a_hook_that_raises_drops_the_notification_and_logs_it() -> None:
    lines: list[str] = []
    server, release = spinning_server(lines)

    class Broken(Middleware):
        methods = ("notifications/cancelled",)

        def on_notification(self, notification: Notification) -> bool | None:
            raise LookupError("policy table missing")

    server.add_middleware(Broken())
    c = Client(server, protocol_version="2025-11-25", inline=False)
    rid = c.call_tool_nowait("spin")
    c.cancel(rid)
    release.set()
    assert text_of(c.wait(rid)) == "released"
    failures = [x for x in lines if '"middleware_exception"' in x]
    assert failures and "policy table missing" in failures[0], lines
    assert '"reference":"' in failures[0]
    c.close()


def test_a_hook_must_answer_a_bool_or_none() -> None:
    lines: list[str] = []
    server, release = spinning_server(lines)
    server.add_middleware(Gate(drop=("notifications/cancelled",), answer="yes"))
    c = Client(server, protocol_version="2025-11-25", inline=False)
    rid = c.call_tool_nowait("spin")
    c.cancel(rid)
    release.set()
    assert text_of(c.wait(rid)) == "released"
    assert any("must return True, False or None, not str" in x for x in lines), lines
    c.close()


def test_registration_refuses_hooks_that_cannot_run() -> None:
    server = mcpcxx.Server("refusals")

    class Async(Middleware):
        async def on_notification(self, notification: Notification) -> bool | None:  # type: ignore[override]
            return None

    with pytest.raises(TypeError, match="must be a plain def, not async def"):
        server.add_middleware(Async())

    class OnlyRequests(Middleware):
        methods = ("tools/call",)

        def on_notification(self, notification: Notification) -> bool | None:
            return None

    with pytest.raises(ValueError, match="names no client notification"):
        server.add_middleware(OnlyRequests())

    class NoHook(Middleware):
        methods = ("notifications/cancelled",)

        def before(self, request: Any) -> None:
            return None

    with pytest.raises(ValueError, match="no on_notification hook"):
        server.add_middleware(NoHook())
