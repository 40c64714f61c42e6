"""Faults, each on a cluster of its own: a replica SIGKILLed under load, Redis stopped and started.

The kill: clients keep calling (2026-07-28 tools/call, half of them 0.3 s long so that some are
in flight on the victim) while one replica is SIGKILLed. Every request is counted; a failure is
expected only when nginx's access log shows it went to the killed replica before it died (a
POST in flight there: nginx never re-sends a POST, nginx.conf.in says why), or in the moment
after, on a pooled connection (POOLED_GRACE). The victim held a task, a listen stream and the
legacy session (initialized there): the task must turn `failed` within 2 x the task lease, the
listen stream must end and a new one must get updates, the session must go on elsewhere. Redis: plain calls go on while it is down, task
creation is refused quickly with a documented row, and everything works again once it is back,
without restarting a replica. Both tests end by checking that every key in Redis has a TTL.
"""

from __future__ import annotations

import collections
import http.client
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from harness import Cluster, report
from wire import (
    WITH_TASKS,
    Endpoint,
    LegacySession,
    Reply,
    Stream,
    acknowledged,
    create_task,
    structured,
    task_get,
    updates_within,
)

TASK_LEASE = 5.0
"""The task lease the replicas run with: the default (store_options::task_lease, Python's
`task_lease=`), which tests/cluster/cluster_server.py leaves as it is; failed within 2 x 5 s."""

POOLED_GRACE = 0.5
"""A POST nginx writes to a pooled keep-alive connection of the victim in the moment after its
death, before nginx's event loop saw that connection close, fails too (nginx cannot know the
replica never read it, and POSTs are never re-sent): allowed this long after the death."""

VICTIM = "r2"
CLIENTS = 8


@dataclass
class Outcome:
    """One request of the load: what it was, when, where it went and how it ended."""

    request_id: str
    kind: str
    sent: float
    done: float = 0.0
    replica: str = ""
    failure: str = ""


def one_call(ep: Endpoint, kind: str, n: int) -> tuple[Reply | None, str]:
    """A load request: (the reply, "" or why it failed)."""
    try:
        reply = ep.tool("sleep", seconds=0.3) if kind == "sleep" else ep.tool("echo", text=f"e{n}")
    except (OSError, http.client.HTTPException) as e:
        return None, f"{type(e).__name__}: {e}"
    if reply.status != 200:
        title = reply.body.split(b"<title>")[-1].split(b"</title>")[0].decode(errors="replace")
        return reply, f"HTTP {reply.status} ({title[:40]})"
    response = reply.response()
    if "error" in response:
        return reply, f"JSON-RPC error {response['error']['code']}"
    if response["result"].get("isError"):
        return reply, "tool error"
    out = structured(response["result"])
    if kind == "echo" and out.get("text") != f"e{n}":
        return reply, f"wrong result {out}"
    return reply, ""


class Load:
    """CLIENTS threads calling through nginx until stop(), every request recorded."""

    def __init__(self, ep: Endpoint) -> None:
        self.ep = ep
        self.outcomes: list[Outcome] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.client, args=(i,)) for i in range(CLIENTS)]

    def client(self, index: int) -> None:
        n = 0
        while not self.stopping.is_set():
            n += 1
            kind = "sleep" if (index + n) % 2 else "echo"
            sent = time.monotonic()
            reply, failure = one_call(self.ep, kind, n)
            outcome = Outcome(reply.request_id if reply else "", kind, sent, time.monotonic())
            outcome.replica = reply.replica if reply else ""
            outcome.failure = failure
            with self.lock:
                self.outcomes.append(outcome)

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=120)


def on_replica(make: Any, where: Any, replica: str) -> tuple[Any, list[Any]]:
    """make() until where(its result) is `replica` (round robin: within 3): (it, the others)."""
    others = []
    for _ in range(6):
        got = make()
        if where(got) == replica:
            return got, others
        others.append(got)
    raise AssertionError(f"round robin never reached {replica}")


def ttl_problems(cluster: Cluster, what: str) -> list[str]:
    """Stops the replicas, then lists the Redis keys without a TTL as problems."""
    codes = cluster.stop_serving()
    ttls = cluster.redis.ttls()
    forever = sorted(k for k, ttl in ttls.items() if ttl == -1)
    report(
        f"{what}: {len(ttls)} keys left in Redis after the replicas stopped, "
        f"{len(forever)} without a TTL {forever[:10]}; exit codes {codes}"
    )
    return [f"keys without a TTL: {forever}"] if forever else []


def classify(cluster: Cluster, load: Load, killed_at: float) -> tuple[list[str], list[str]]:
    """Report lines and problems: every failure must be a request in flight on the victim."""
    victim = f"127.0.0.1:{cluster.replica(VICTIM).port}"
    entries = {e["id"]: e for e in cluster.access_entries()}
    failed = [o for o in load.outcomes if o.failure]
    why: collections.Counter[str] = collections.Counter()
    problems = []
    for o in failed:
        entry = entries.get(o.request_id, {})
        tried = [a.strip() for a in entry.get("upstream", "").split(",")]
        on_victim = tried[-1:] == [victim]
        if on_victim and o.sent < killed_at:  # sent before it was dead: in flight at its death
            why[f"in flight on the killed {VICTIM} ({o.kind}): {o.failure}"] += 1
        elif on_victim and o.sent < killed_at + POOLED_GRACE:
            why[
                f"sent as {VICTIM} died, on a pooled connection its death had just closed "
                f"({o.kind}): {o.failure}"
            ] += 1
        else:
            why[
                f"UNEXPECTED ({o.kind}, sent {o.sent - killed_at:+.2f} s from the kill, "
                f"upstreams {tried}): {o.failure}"
            ] += 1
            problems.append(f"request {o.request_id} failed unexpectedly: {o.failure} {entry}")
    passed_on = [e for e in entries.values() if victim in e["upstream"] and "," in e["upstream"]]
    nginx_said = collections.Counter(
        line.split(", client:")[0].split("] ")[-1].split(": ", 1)[-1].split(" ", 1)[-1]
        for line in (cluster.folder / "nginx-error.log").read_text().splitlines()
        if "upstream" in line and "[error]" in line
    )
    served = collections.Counter(o.replica for o in load.outcomes if not o.failure)
    lines = [
        f"kill under load: {len(load.outcomes)} requests sent by {CLIENTS} clients, "
        f"{len(load.outcomes) - len(failed)} succeeded (by {dict(sorted(served.items()))}), "
        f"{len(failed)} failed",
        *[f"  failed: {n} x {reason}" for reason, n in sorted(why.items())],
        f"  refused by the dead {VICTIM} and passed on by nginx (never sent, so safe): "
        f"{len(passed_on)}",
        *[f"  nginx error log: {n} x {message}" for message, n in sorted(nginx_said.items())],
    ]
    return lines, problems


def wait_failed(ep: Endpoint, task_id: str, killed_at: float) -> tuple[dict[str, Any], float, str]:
    """Polls tasks/get until the task is not `working`: (its last answer, seconds after the
    kill, what went wrong or "")."""
    end = killed_at + 2 * TASK_LEASE + 5
    while True:
        reply = task_get(ep, task_id)
        response = reply.response()
        if "error" in response:
            return (
                response,
                time.monotonic() - killed_at,
                f"tasks/get on {reply.replica}: {response}",
            )
        if response["result"]["status"] != "working":
            return response["result"], time.monotonic() - killed_at, ""
        if time.monotonic() > end:
            return response["result"], time.monotonic() - killed_at, "still working"
        time.sleep(0.2)


def stream_ends(stream: Stream, timeout: float) -> bool:
    """Whether the stream ends (its events run out) within `timeout` seconds."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        try:
            if stream.next_event(left) is None:
                return True
        except TimeoutError:
            return False
    return False


def test_a_replica_killed_under_load(own_cluster: Cluster) -> None:
    cluster, ep, problems = own_cluster, Endpoint(own_cluster.url), []
    (_, task_id, _), other_tasks = on_replica(
        lambda: create_task(ep, 300), lambda t: t[0].replica, VICTIM
    )
    for _, other, _ in other_tasks:
        ep.call("tasks/cancel", {"taskId": other}, WITH_TASKS)
    listen, other_listens = on_replica(
        lambda: ep.listen({"resourceSubscriptions": ["cluster://doc/k"]}),
        lambda s: s.replica,
        VICTIM,
    )
    for s in other_listens:
        s.close()
    with listen:
        acknowledged(listen)
        (session, _), _ = on_replica(
            lambda: (s := LegacySession(ep), s.start()), lambda t: t[1].replica, VICTIM
        )
        done = session.notify("notifications/initialized")
        if done.status != 202:
            problems.append(f"legacy notifications/initialized on {done.replica}: {done.status}")
        with Load(ep) as load:
            time.sleep(2)
            killed_at = cluster.kill(VICTIM)  # when it was dead: requests sent before may fail
            ended = stream_ends(listen, 10)
            time.sleep(max(0.0, killed_at + 3 - time.monotonic()))
    lines, found = classify(cluster, load, killed_at)
    problems += found
    state, after, wrong = wait_failed(ep, task_id, killed_at)
    lines.append(
        f"  task of {VICTIM}: {wrong[:150]}"
        if wrong
        else f"  task of {VICTIM}: {state.get('status')} {after:.1f} s after the kill "
        f"(bound 2 x lease = {2 * TASK_LEASE:.0f} s); {state.get('statusMessage')!r}"
    )
    if wrong or state.get("status") != "failed":
        problems.append(f"the killed replica's task: {wrong or state}")
    if not ended:
        problems.append(f"the listen stream on {VICTIM} did not end when it was killed")
    relisten = ep.listen({"resourceSubscriptions": ["cluster://doc/k"]})
    try:
        acknowledged(relisten)
        touches = [ep.tool("touch", uri="cluster://doc/k").replica for _ in range(2)]
        got = updates_within(relisten, 10)
        lines.append(
            f"  listen on {VICTIM} ended: {ended}; listened again on {relisten.replica}, "
            f"touches on {touches}: {len(got)} updates"
        )
        if len(got) < len(touches):
            problems.append(f"the new listen on {relisten.replica} got {got} after {touches}")
    finally:
        relisten.close()
    if session.session_id:
        pings = [session.request("ping") for _ in range(4)]
        lines.append(
            f"  legacy session initialized on {VICTIM}, after the kill: "
            + ", ".join(f"{p.replica} {p.status}" for p in pings)
        )
        problems += [f"legacy ping on {p.replica}: {p.status}" for p in pings if p.status != 200]
    for line in lines:
        report(line)
    problems += ttl_problems(cluster, "kill test")
    assert not problems, "\n".join(problems)


def store_refusal(reply: Reply) -> str:
    """ "" when `reply` is a documented refusal of a store-dependent call (T11: an isError
    result, category unavailable; P57: JSON-RPC -32603 "Server unavailable"), else what it is."""
    response = reply.response()
    if "error" in response:
        error = response["error"]
        ok = error.get("code") == -32603 and error.get("message", "").startswith(
            "Server unavailable"
        )
        return "" if ok else f"error {error}"
    result = response["result"]
    if (
        result.get("isError")
        and result.get("structuredContent", {}).get("category") == "unavailable"
    ):
        return ""
    return f"{result.get('resultType')} {result.get('status', '')} (not refused)"


def test_redis_stopped_then_restarted(own_cluster: Cluster) -> None:
    cluster, ep, problems, lines = own_cluster, Endpoint(own_cluster.url), [], []
    pids = {r.name: r.proc.pid for r in cluster.replicas}
    session = LegacySession(ep)
    holder = ""
    try:
        holder = session.initialize().replica
    except AssertionError as e:
        problems.append(f"legacy session could not start: {e}")
    create_task(ep, 0.1)
    cluster.redis.stop()
    plain = []
    for i in range(6):
        started = time.monotonic()
        reply = ep.tool("echo", text=f"down {i}")
        ok = reply.status == 200 and structured(reply.result()).get("text") == f"down {i}"
        plain.append((reply.replica, ok, time.monotonic() - started))
    lines.append(
        "redis down: plain 2026-07-28 calls "
        + ", ".join(f"{r} {'ok' if ok else 'FAILED'} {t * 1000:.0f} ms" for r, ok, t in plain)
    )
    problems += [f"plain call on {r} failed with Redis down" for r, ok, _ in plain if not ok]
    for _ in range(3):
        started = time.monotonic()
        reply = ep.tool("job", WITH_TASKS, seconds=0.1, tag=uuid.uuid4().hex[:8])
        took = time.monotonic() - started
        wrong = store_refusal(reply)
        lines.append(
            f"redis down: task creation on {reply.replica} answered in {took * 1000:.0f} ms: "
            + (wrong or "refused (T11/P57)")
        )
        if wrong:
            problems.append(f"task creation on {reply.replica} with Redis down: {wrong}")
    if session.session_id:
        for _ in range(3):
            ping = session.request("ping")
            lines.append(
                f"redis down: legacy ping on {ping.replica}: {ping.status}"
                f" Retry-After {ping.headers.get('retry-after')}"
            )
            # The holder serves from its copy; the others cannot load the session (H51).
            expected = 200 if ping.replica == holder else 503
            if ping.status != expected or (
                ping.status == 503 and "retry-after" not in ping.headers
            ):
                problems.append(
                    f"legacy ping on {ping.replica} with Redis down: {ping.status} {ping.body!r}"
                )
    cluster.redis.start()
    restarted = time.monotonic()
    recovered: dict[str, float] = {}
    while len(recovered) < 3 and time.monotonic() < restarted + 30:
        reply = ep.tool("job", WITH_TASKS, seconds=0.1, tag=uuid.uuid4().hex[:8])
        if reply.status == 200 and reply.response().get("result", {}).get("resultType") == "task":
            recovered.setdefault(reply.replica, time.monotonic() - restarted)
        else:
            recovered.pop(reply.replica, None)
            time.sleep(0.2)
    lines.append(
        "redis back: task creation works again on "
        + ", ".join(f"{r} after {t:.1f} s" for r, t in sorted(recovered.items()))
    )
    if len(recovered) < 3:
        problems.append(f"task creation did not recover on every replica: {recovered}")
    same = {r.name: r.proc.pid for r in cluster.replicas if r.alive}
    if same != pids:
        problems.append(f"replicas restarted or died: {pids} -> {same}")
    for line in lines:
        report(line)
    problems += ttl_problems(cluster, "redis test")
    assert not problems, "\n".join(problems)
