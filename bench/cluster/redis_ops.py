"""Redis commands and round trips per request kind (docs/scale-out.md, "What a request costs").

Two replicas of bench_server.py (A and B) on one private redis-server, called directly (no
nginx, so that each step lands where it must); a MONITOR connection records every command Redis
runs. Each request kind is prepared, then run between two markers (ECHO on a connection of our
own) followed by a settle pause, so that asynchronous work (the bus bridge's PUBLISH, a task's
status updates on its replica) falls inside the window. Each kind is repeated and the repetition
with the fewest commands kept: background work (subscriber PINGs, lease and route renewals, the
session reaper) only ever adds.

Counted per window: commands the replicas sent (top level), commands that Lua scripts ran inside
Redis, and round trips: the socket reads Redis made (INFO stats total_reads_processed, less our
own commands and the subscribers' keep-alive PINGs); a pipeline is one read. --verbose also
prints each window with the gaps between commands (within a pipeline they run back to back).

Run: python bench/cluster/redis_ops.py [--repeat 5] [--json FILE] [--verbose]
(with the interpreter that has the mcpcxx package, as bench/cluster/run.py says).
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common import cluster, endpoint, harness, wire

SETTLE_S = 0.4
LINE = re.compile(r"^\+(\d+\.\d+) \[\d+ ([^\]]+)\] (.*)$")
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass
class Command:
    """One command MONITOR showed."""

    t: float
    client: str  # "lua" for a command a script ran
    args: list[str]

    @property
    def name(self) -> str:
        return self.args[0].upper() if self.args else ""


class Monitor:
    """A MONITOR connection that records every command, on a thread of its own."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")
        self.sock.sendall(b"MONITOR\r\n")
        assert self.file.readline().startswith(b"+OK")
        self.commands: list[Command] = []
        self.lock = threading.Lock()
        self.marks = harness.Resp(port)
        self.marks("CLIENT", "SETNAME", "bench-marks")
        self.seen = threading.Condition(self.lock)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            raw = self.file.readline()
            if not raw:
                return
            m = LINE.match(raw.decode(errors="replace").rstrip("\r\n"))
            if not m:
                continue
            cmd = Command(float(m.group(1)), m.group(2), ARG.findall(m.group(3)))
            with self.lock:
                self.commands.append(cmd)
                self.seen.notify_all()

    def mark(self, label: str) -> int:
        """Sends ECHO <label> and returns the index of its line once MONITOR showed it."""
        self.marks("ECHO", label)
        with self.lock:
            while True:
                for i in range(len(self.commands) - 1, -1, -1):
                    c = self.commands[i]
                    if c.name == "ECHO" and c.args[1:] == [label]:
                        return i
                self.seen.wait(5)

    def reads(self) -> int:
        """Redis's total_reads_processed (this INFO's own read included)."""
        raw = self.marks("INFO", "stats").decode()
        return int(raw.split("total_reads_processed:", 1)[1].split()[0])

    def window(self, start: int, end: int) -> list[Command]:
        """The commands between two marks, without the marks' connection."""
        with self.lock:
            inside = self.commands[start + 1 : end]
        marker = self.commands[start].client
        return [c for c in inside if c.client != marker]


@dataclass
class Cost:
    """What one window cost."""

    top: list[Command] = field(default_factory=list)
    round_trips: int = 0
    in_scripts: int = 0
    pings: int = 0

    def summary(self) -> str:
        """The top-level commands, runs of one name folded ("EVALSHA x2")."""
        names: list[list[Any]] = []
        for c in self.top:
            if names and names[-1][0] == c.name:
                names[-1][1] += 1
            else:
                names.append([c.name, 1])
        return ", ".join(n if k == 1 else f"{n} x{k}" for n, k in names) or "none"


def cost_of(window: list[Command], reads: int) -> Cost:
    """Counts a window (see the module comment); `reads`: Redis's socket reads meanwhile, less
    our own."""
    out = Cost()
    for c in window:
        if c.client == "lua":
            out.in_scripts += 1
        elif c.name == "PING":
            out.pings += 1
        else:
            out.top.append(c)
    out.round_trips = reads - out.pings
    return out


Step = Callable[[], Any]
Scenario = Callable[["Context"], tuple[Step, Step]]


@dataclass
class Context:
    """The two replicas' endpoints."""

    a: wire.Endpoint
    b: wire.Endpoint


def on(session: wire.LegacySession, ep: wire.Endpoint) -> wire.LegacySession:
    """The same legacy session, its requests sent to `ep`."""
    other = wire.LegacySession(ep, session.caps)
    other.session_id = session.session_id
    return other


def ok(reply: wire.Reply, status: int = 200) -> wire.Reply:
    """`reply`, checked."""
    assert reply.status == status, f"HTTP {reply.status}: {reply.body[:300]!r}"
    return reply


def nothing() -> None:
    """No cleanup."""


# ---- 2026-07-28 ---------------------------------------------------------------------------


def modern_tools_call(ctx: Context) -> tuple[Step, Step]:
    return lambda: ok(ctx.a.tool("echo", text="x")).result(), nothing


def modern_tools_list(ctx: Context) -> tuple[Step, Step]:
    return lambda: ok(ctx.a.call("tools/list", {})).result(), nothing


def modern_resources_read(ctx: Context) -> tuple[Step, Step]:
    return lambda: ok(ctx.a.call("resources/read", {"uri": "cluster://doc/x"})).result(), nothing


def modern_prompts_get(ctx: Context) -> tuple[Step, Step]:
    params = {"name": "greet", "arguments": {"name": "x"}}
    return lambda: ok(ctx.a.call("prompts/get", params)).result(), nothing


def modern_mrtr_retry_elsewhere(ctx: Context) -> tuple[Step, Step]:
    first = ok(ctx.a.tool("ask", wire.WITH_ELICITATION, question="Colour?")).result()
    assert first.get("resultType") == "input_required", first
    key = next(iter(first["inputRequests"]))
    retry = {
        "name": "ask",
        "arguments": {"question": "Colour?"},
        "inputResponses": {key: {"action": "accept", "content": {"text": "red"}}},
        "requestState": first["requestState"],
    }

    def step() -> None:
        out = ok(ctx.b.call("tools/call", retry, wire.WITH_ELICITATION)).result()
        assert wire.structured(out)["text"] == "red", out

    return step, nothing


def create_hold(ep: wire.Endpoint, seconds: float, reports: int = 0) -> str:
    """Starts bench_server's `hold` as a task on `ep`; its id."""
    result = ok(ep.tool("hold", wire.WITH_TASKS, seconds=seconds, reports=reports)).result()
    assert result.get("resultType") == "task", result
    return str(result["taskId"])


def task_create(ctx: Context) -> tuple[Step, Step]:
    ids: list[str] = []

    def step() -> None:
        ids.append(create_hold(ctx.a, 60))

    def cleanup() -> None:
        ctx.a.call("tasks/cancel", {"taskId": ids[0]}, wire.WITH_TASKS)
        time.sleep(0.3)

    return step, cleanup


def running_task(ctx: Context) -> str:
    return create_hold(ctx.a, 60)


def cancel_later(ctx: Context, task_id: str) -> Step:
    def cleanup() -> None:
        ctx.a.call("tasks/cancel", {"taskId": task_id}, wire.WITH_TASKS)
        time.sleep(0.3)

    return cleanup


def tasks_get_owner(ctx: Context) -> tuple[Step, Step]:
    task_id = running_task(ctx)
    return lambda: ok(wire.task_get(ctx.a, task_id)).result(), cancel_later(ctx, task_id)


def tasks_get_other(ctx: Context) -> tuple[Step, Step]:
    task_id = running_task(ctx)
    return lambda: ok(wire.task_get(ctx.b, task_id)).result(), cancel_later(ctx, task_id)


def tasks_cancel_other(ctx: Context) -> tuple[Step, Step]:
    task_id = running_task(ctx)

    def step() -> None:
        ok(ctx.b.call("tasks/cancel", {"taskId": task_id}, wire.WITH_TASKS)).result()

    return step, lambda: time.sleep(0.3)


def tasks_cancel_owner(ctx: Context) -> tuple[Step, Step]:
    task_id = running_task(ctx)

    def step() -> None:
        ok(ctx.a.call("tasks/cancel", {"taskId": task_id}, wire.WITH_TASKS)).result()

    return step, lambda: time.sleep(0.3)


def task_lifecycle(reports: int) -> Scenario:
    def scenario(ctx: Context) -> tuple[Step, Step]:
        def step() -> None:
            create_hold(ctx.a, 0.2, reports)
            time.sleep(0.5)  # it finishes on A meanwhile: its status updates fall in the window

        return step, nothing

    return scenario


def listen_open(ctx: Context) -> tuple[Step, Step]:
    streams: list[wire.Stream] = []

    def step() -> None:
        s = ctx.b.listen({"resourceSubscriptions": ["cluster://doc/open"]})
        streams.append(s)
        wire.acknowledged(s)

    return step, lambda: streams[0].close()


def listen_delivery(ctx: Context) -> tuple[Step, Step]:
    uri = "cluster://doc/delivery"
    stream = ctx.b.listen({"resourceSubscriptions": [uri]})
    wire.acknowledged(stream)

    def step() -> None:
        ok(ctx.a.tool("touch", uri=uri)).result()
        assert wire.updates_within(stream, 5)[:1] == [uri], "no delivery on B"

    return step, stream.close


# ---- legacy (2025-11-25) ------------------------------------------------------------------


def legacy_initialize(ctx: Context) -> tuple[Step, Step]:
    s = wire.LegacySession(ctx.a)
    return s.start, lambda: s.delete()


def legacy_initialized(ctx: Context) -> tuple[Step, Step]:
    s = wire.LegacySession(ctx.a)
    s.start()
    return lambda: ok(s.notify("notifications/initialized"), 202), lambda: s.delete()


def session_on_a(ctx: Context, caps: dict[str, Any] | None = None) -> wire.LegacySession:
    s = wire.LegacySession(ctx.a, caps)
    s.initialize()
    return s


def legacy_call_holder(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    ok(s.tool("echo", text="warm"))
    return lambda: ok(s.tool("echo", text="x")).result(), lambda: s.delete()


def legacy_call_revival(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    b = on(s, ctx.b)
    return lambda: ok(b.tool("echo", text="x")).result(), lambda: s.delete()


def legacy_call_cached_elsewhere(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    b = on(s, ctx.b)
    ok(b.tool("echo", text="revive"))
    return lambda: ok(b.tool("echo", text="x")).result(), lambda: s.delete()


def legacy_set_level(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    step = lambda: ok(s.request("logging/setLevel", {"level": "error"})).result()  # noqa: E731
    return step, lambda: s.delete()


CHATTER = {"name": "chatter", "arguments": {"count": 2, "interval": 0}}


def legacy_sse_call(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    params = {**CHATTER, "_meta": {"progressToken": "p"}}

    def step() -> None:
        reply = ok(s.request("tools/call", params))
        assert len(reply.events) >= 3, reply.events  # 2 progress notifications, the result

    return step, lambda: s.delete()


def legacy_sse_resume_elsewhere(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    reply = ok(s.request("tools/call", {**CHATTER, "_meta": {"progressToken": "p"}}))
    first = next(e.id for e in reply.events if e.id and e.data)
    b = on(s, ctx.b)
    ok(b.tool("echo", text="revive"))  # B holds the session already: only the resume is counted

    def step() -> None:
        with b.get(last_event_id=first) as stream:
            assert stream.status == 200, stream.body
            while stream.next_event(10) is not None:
                pass

    return step, lambda: s.delete()


def legacy_elicitation_answer(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx, wire.WITH_ELICITATION)
    call = s.open("tools/call", {"name": "ask", "arguments": {"question": "Colour?"}})
    _, asked = call.until(lambda m: m.get("method") == "elicitation/create", 15)

    def step() -> None:
        ok(s.answer(asked["id"], {"action": "accept", "content": {"text": "red"}}), 202)
        call.until(lambda m: "result" in m or "error" in m, 15)

    def cleanup() -> None:
        call.close()
        s.delete()

    return step, cleanup


def legacy_elicitation_answer_elsewhere(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx, wire.WITH_ELICITATION)
    call = s.open("tools/call", {"name": "ask", "arguments": {"question": "Colour?"}})
    _, asked = call.until(lambda m: m.get("method") == "elicitation/create", 15)
    b = on(s, ctx.b)

    def step() -> None:
        ok(b.answer(asked["id"], {"action": "accept", "content": {"text": "red"}}), 202)
        call.until(lambda m: "result" in m or "error" in m, 15)

    def cleanup() -> None:
        call.close()
        s.delete()

    return step, cleanup


def legacy_delete(ctx: Context) -> tuple[Step, Step]:
    s = session_on_a(ctx)
    return lambda: ok(s.delete(), 204), nothing


SCENARIOS: list[tuple[str, str, Scenario]] = [
    ("2026-07-28", "tools/call (plain)", modern_tools_call),
    ("2026-07-28", "tools/list", modern_tools_list),
    ("2026-07-28", "resources/read", modern_resources_read),
    ("2026-07-28", "prompts/get", modern_prompts_get),
    ("2026-07-28", "MRTR retry (inputResponses) on the other replica", modern_mrtr_retry_elsewhere),
    ("2026-07-28", "tools/call that creates a task", task_create),
    ("2026-07-28", "tasks/get on the owner replica", tasks_get_owner),
    ("2026-07-28", "tasks/get on another replica", tasks_get_other),
    ("2026-07-28", "tasks/cancel on the owner replica", tasks_cancel_owner),
    ("2026-07-28", "tasks/cancel on another replica, the owner reacting", tasks_cancel_other),
    ("2026-07-28", "a 0.2 s task: created, run, completed (no polling)", task_lifecycle(0)),
    ("2026-07-28", "the same task reporting progress once", task_lifecycle(1)),
    ("2026-07-28", "subscriptions/listen opened", listen_open),
    ("2026-07-28", "listen delivery: touch on A, listen on B", listen_delivery),
    ("legacy", "initialize", legacy_initialize),
    ("legacy", "notifications/initialized", legacy_initialized),
    ("legacy", "tools/call on the holding replica (JSON reply)", legacy_call_holder),
    ("legacy", "tools/call on another replica, first time (revival)", legacy_call_revival),
    ("legacy", "tools/call on another replica, cached there", legacy_call_cached_elsewhere),
    ("legacy", "logging/setLevel", legacy_set_level),
    ("legacy", "tools/call with 2 progress notifications (SSE, 3 stored events)", legacy_sse_call),
    (
        "legacy",
        "GET with Last-Event-ID on another replica (replay of 2 events)",
        legacy_sse_resume_elsewhere,
    ),
    ("legacy", "elicitation answer POST on the holding replica", legacy_elicitation_answer),
    (
        "legacy",
        "elicitation answer POST on another replica that never served the session",
        legacy_elicitation_answer_elsewhere,
    ),
    ("legacy", "DELETE", legacy_delete),
]


def dump(window: list[Command]) -> None:
    """Prints a window: every command, scripts' steps indented, gaps in microseconds."""
    last = window[0].t if window else 0.0
    for c in window:
        indent = "      " if c.client == "lua" else "    "
        shown = " ".join(a[:40] for a in c.args[:5])
        print(f"{indent}+{(c.t - last) * 1e6:7.1f} us {c.client:>15} {shown}")
        last = c.t


def measure(
    mon: Monitor, ctx: Context, scenario: Scenario, repeat: int, verbose: bool = False
) -> Cost:
    """The cheapest of `repeat` windows of `scenario` (one unmeasured run first: scripts get
    loaded, connections opened)."""
    best: Cost | None = None
    for i in range(repeat + 1):
        step, cleanup = scenario(ctx)
        time.sleep(SETTLE_S)
        before = mon.reads()
        start = mon.mark(f"start-{id(scenario)}-{i}")
        step()
        time.sleep(SETTLE_S)
        end = mon.mark(f"end-{id(scenario)}-{i}")
        ours = 3  # the two ECHOs and the INFO below
        reads = mon.reads() - before - ours
        cleanup()
        if i == 0:
            continue
        window = mon.window(start, end)
        cost = cost_of(window, reads)
        if verbose:
            print(f"  repetition {i}: {cost.round_trips} round trips")
            dump(window)
        if best is None or len(cost.top) + cost.in_scripts < len(best.top) + best.in_scripts:
            best = cost
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--verbose", action="store_true", help="print each kept window")
    parser.add_argument("--only", default="", help="kinds whose era or name contains this")
    args = parser.parse_args()
    rows = []
    with cluster(2) as c:
        mon = Monitor(c.redis.port)
        ctx = Context(endpoint(c.replicas[0]), endpoint(c.replicas[1]))
        print("| era | request | round trips | commands | commands in scripts | sent |")
        print("|---|---|---:|---:|---:|---|")
        for era, name, scenario in SCENARIOS:
            if args.only not in f"{era} {name}":
                continue
            cost = measure(mon, ctx, scenario, args.repeat, args.verbose)
            row = {
                "era": era,
                "request": name,
                "round_trips": cost.round_trips,
                "commands": len(cost.top),
                "in_scripts": cost.in_scripts,
                "sent": cost.summary(),
            }
            rows.append(row)
            print(
                f"| {era} | {name} | {cost.round_trips} | {len(cost.top)} | {cost.in_scripts} "
                f"| {cost.summary()} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
