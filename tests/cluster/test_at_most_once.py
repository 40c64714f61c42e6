"""At-most-once tools (issue 32) across three replicas behind nginx on one Redis.

`submit_payment` (tests/cluster/cluster_server.py) is at-most-once: each run of its function
appends a line to markers/payment-runs.jsonl, so the tests count the runs of every replica.
Identical calls sent at once through nginx (2026-07-28, then a legacy 2025-11-25 session) land on
every replica: the function runs once in all, one caller gets its result, every other caller T11
(the first still runs) or the replay, and a later repeat the replay. A repeat of a completed call
through another replica gets the same result replayed. A replica SIGKILLed while it runs a call
(on a cluster of its own): repeats get T11 until the claim's lease (1 s) lapses, then T12 with
reason replica_lost naming payment_status, and the function never runs a second time. The
module ends by checking that its records are in Redis, each expiring within the window.
docs/error-model.md, "Repeated calls (at-most-once tools)", has the rows.
"""

from __future__ import annotations

import collections
import http.client
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from harness import REPLICA_NAMES, Cluster, report
from wire import Endpoint, LegacySession, Reply, structured

CLAIM_LEASE = 1.0
"""The claim lease the replicas run with (cluster_server.CLAIM_LEASE, seconds)."""

LOST_MARGIN = 1.5
"""How long after the lease lapsed a repeat may still get T11 instead of T12 (the last renewal
came up to lease / 3 before the kill; Redis, nginx and the loop's own pace take the rest)."""

WINDOW = 300
"""submit_payment's window (seconds): its records expire this long after the first call."""

EVERY = set(REPLICA_NAMES)


def new_payment() -> str:
    """A payment id no other test uses (the module's cluster keeps its records 5 minutes)."""
    return f"pay-{uuid.uuid4().hex[:12]}"


def runs_of(cluster: Cluster, payment_id: str) -> list[dict[str, Any]]:
    """The runs of submit_payment's function for `payment_id`, on every replica."""
    path = cluster.folder / "markers" / "payment-runs.jsonl"
    if not path.exists():
        return []
    runs = [json.loads(line) for line in path.read_text().splitlines() if line]
    return [r for r in runs if r["payment_id"] == payment_id]


def kind_of(reply: Reply) -> str:
    """What a reply to submit_payment is: "plain" (the function's result), "replay", "T11",
    "T12", or a description of anything else."""
    if reply.status != 200:
        return f"HTTP {reply.status} from {reply.replica or 'nginx'}"
    response = reply.response()
    if "error" in response:
        return f"JSON-RPC error {response['error']}"
    result = response["result"]
    meta = result.get("_meta") or {}
    if not result.get("isError"):
        return "replay" if "mcpcxx/replay" in meta else "plain"
    error = meta.get("mcpcxx/error") or {}
    if error.get("category") == "conflict" and error.get("effect") == "not_applied":
        return "T11"
    if error.get("category") == "conflict" and error.get("effect") == "unknown":
        return "T12"
    return f"tool error {error}"


def details(reply: Reply) -> dict[str, Any]:
    """A refusal's _meta["mcpcxx/error"]."""
    return dict(reply.result()["_meta"]["mcpcxx/error"])


def at_once(count: int, send: Callable[[], Reply]) -> list[Reply | str]:
    """`count` threads, released together, each sending one request: their replies (or why a
    request failed), in thread order."""
    barrier = threading.Barrier(count)
    out: list[Reply | str] = ["no reply"] * count

    def one(i: int) -> None:
        barrier.wait(timeout=30)
        try:
            out[i] = send()
        except (OSError, http.client.HTTPException) as e:
            out[i] = f"{type(e).__name__}: {e}"

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return out


def check_identical_calls(
    era: str, cluster: Cluster, payment_id: str, replies: list[Reply | str], repeat: Reply
) -> None:
    """The verdict on identical calls sent at once, then one more: one run, one plain result,
    the rest T11 or the replay, the last one the replay of that result."""
    kinds = [r if isinstance(r, str) else kind_of(r) for r in replies]
    counts = collections.Counter(kinds)
    answered = [r for r in replies if isinstance(r, Reply)]
    served = collections.Counter(r.replica for r in answered)
    runs = runs_of(cluster, payment_id)
    report(
        f"{era} at-most-once: {len(replies)} identical submit_payment at once, served by "
        f"{dict(sorted(served.items()))}: {dict(sorted(counts.items()))}; function runs "
        f"{len(runs)} (on {[r['replica'] for r in runs]}); one more: {kind_of(repeat)} "
        f"from {repeat.replica}, runs then {len(runs_of(cluster, payment_id))}"
    )
    assert len(runs) == 1, f"the function ran {len(runs)} times: {runs}"
    assert counts["plain"] == 1, f"expected one plain result: {dict(counts)}"
    assert set(counts) <= {"plain", "T11", "replay"}, f"unexpected answers: {dict(counts)}"
    assert set(served) == EVERY, f"round robin did not reach every replica: {dict(served)}"
    (first,) = [r for r, k in zip(replies, kinds, strict=True) if k == "plain"]
    assert isinstance(first, Reply)
    out = structured(first.result())
    assert out["replica"] == runs[0]["replica"] == first.replica, (out, runs, first.replica)
    assert kind_of(repeat) == "replay", f"the later repeat got {kind_of(repeat)}"
    assert repeat.result()["content"] == first.result()["content"]
    assert structured(repeat.result()) == out, "the replay is not the first call's result"
    call_id = repeat.result()["_meta"]["mcpcxx/replay"]["callId"]
    refused = [
        details(r)
        for r, k in zip(replies, kinds, strict=True)
        if k == "T11" and isinstance(r, Reply)
    ]
    replays = [
        r.result()["_meta"]["mcpcxx/replay"]
        for r, k in zip(replies, kinds, strict=True)
        if k == "replay" and isinstance(r, Reply)
    ]
    assert {d["firstCallId"] for d in refused} <= {call_id}, (call_id, refused[:3])
    assert {r["callId"] for r in replays} <= {call_id}, (call_id, replays[:3])
    for d in refused:
        assert d["retryable"] is True and d["retryAfterSeconds"] >= 1, d
        assert d["statusCheck"] == {
            "tool": "payment_status",
            "arguments": {"payment_id": payment_id},
        }
    assert len(runs_of(cluster, payment_id)) == 1, "the later repeat ran the function"


def test_identical_calls_at_once_run_once(cluster: Cluster, ep: Endpoint) -> None:
    payment_id = new_payment()
    # Each call holds 1 s, so the others arrive while the first still runs (T11).
    replies = at_once(
        30, lambda: ep.tool("submit_payment", payment_id=payment_id, amount=100, hold_ms=1000)
    )
    repeat = ep.tool("submit_payment", payment_id=payment_id, amount=100, hold_ms=1000)
    check_identical_calls("2026-07-28", cluster, payment_id, replies, repeat)


def test_identical_calls_at_once_run_once_in_a_legacy_session(
    cluster: Cluster, ep: Endpoint
) -> None:
    session = LegacySession(ep)
    session.initialize()
    payment_id = new_payment()
    replies = at_once(
        10,
        lambda: session.tool("submit_payment", payment_id=payment_id, amount=7, hold_ms=1000),
    )
    repeat = session.tool("submit_payment", payment_id=payment_id, amount=7, hold_ms=1000)
    try:
        check_identical_calls("2025-11-25 session", cluster, payment_id, replies, repeat)
    finally:
        session.delete()


def test_a_completed_call_is_replayed_by_the_other_replicas(cluster: Cluster, ep: Endpoint) -> None:
    payment_id = new_payment()
    first = ep.tool("submit_payment", payment_id=payment_id, amount=250)
    assert kind_of(first) == "plain", kind_of(first)
    repeats: dict[str, Reply] = {}
    for _ in range(2 * len(REPLICA_NAMES)):  # round robin: the next two are the other replicas
        reply = ep.tool("submit_payment", payment_id=payment_id, amount=250)
        repeats.setdefault(reply.replica, reply)
        if set(repeats) - {first.replica} == EVERY - {first.replica}:
            break
    runs = runs_of(cluster, payment_id)
    report(
        f"2026-07-28 at-most-once: completed on {first.replica}, repeated on "
        + ", ".join(f"{r} ({kind_of(x)})" for r, x in sorted(repeats.items()))
        + f"; function runs {len(runs)}"
    )
    assert set(repeats) >= EVERY - {first.replica}, f"repeats only on {sorted(repeats)}"
    out = structured(first.result())
    for replica, reply in sorted(repeats.items()):
        assert kind_of(reply) == "replay", f"the repeat on {replica} got {kind_of(reply)}"
        result = reply.result()
        assert result["content"] == first.result()["content"], replica
        assert structured(result) == out, f"{replica} replayed another result"
        assert result["_meta"]["mcpcxx/replay"]["callId"], result["_meta"]
    assert len(runs) == 1 and runs[0]["replica"] == first.replica, runs


def wait_for_run(cluster: Cluster, payment_id: str, timeout: float = 15) -> dict[str, Any]:
    """The first run of the function for `payment_id` (its replica), once it started."""
    end = time.monotonic() + timeout
    while not (runs := runs_of(cluster, payment_id)):
        assert time.monotonic() < end, f"submit_payment {payment_id} never started"
        time.sleep(0.02)
    return runs[0]


def test_a_repeat_after_the_replica_died_gets_replica_lost(own_cluster: Cluster) -> None:
    cluster, payment_id = own_cluster, new_payment()
    ep = Endpoint(cluster.url)
    held: list[Reply | str] = []

    def hold() -> None:
        try:
            held.append(ep.tool("submit_payment", payment_id=payment_id, amount=9, hold_ms=20000))
        except (OSError, http.client.HTTPException) as e:
            held.append(f"{type(e).__name__}: {e}")

    holder = threading.Thread(target=hold)
    holder.start()
    victim = wait_for_run(cluster, payment_id)["replica"]
    # Past two leases the claim lives on because its replica renews it: still T11.
    time.sleep(2 * CLAIM_LEASE)
    alive = ep.tool("submit_payment", payment_id=payment_id, amount=9, hold_ms=20000)
    killed_at = cluster.kill(victim)
    holder.join(timeout=30)
    # Repeats through nginx, each waiting at most 10 s: one that runs the function holds 20 s.
    repeater = Endpoint(cluster.url, timeout=10)
    seen: collections.Counter[str] = collections.Counter()
    lost: Reply | None = None
    lost_after = 0.0
    while time.monotonic() < killed_at + CLAIM_LEASE + 10:
        try:
            reply = repeater.tool("submit_payment", payment_id=payment_id, amount=9, hold_ms=20000)
        except TimeoutError:
            seen["no answer within 10 s (the function runs again?)"] += 1
            break
        except (OSError, http.client.HTTPException) as e:
            seen[f"{type(e).__name__}"] += 1
            continue
        kind = kind_of(reply)
        if reply.replica == victim or reply.status == 502:
            seen[f"{kind} via the dead {victim}"] += 1
            continue
        seen[kind] += 1
        if kind == "T12":
            lost, lost_after = reply, time.monotonic() - killed_at
            break
        if kind != "T11":
            break
        time.sleep(0.05)
    again = ep.tool("submit_payment", payment_id=payment_id, amount=9, hold_ms=20000)
    status = ep.tool("payment_status", payment_id=payment_id)
    runs = runs_of(cluster, payment_id)
    held_answer = held[0] if held else "no answer"
    report(
        f"at-most-once replica kill: a repeat {2 * CLAIM_LEASE:.0f} s into the call on "
        f"{victim} got {kind_of(alive)} from {alive.replica}; killed, the held call got "
        + (
            held_answer
            if isinstance(held_answer, str)
            else f"HTTP {held_answer.status} via {held_answer.replica}"
        )
        + f"; repeats until T12: {dict(seen)}; T12 "
        + (
            f"{lost_after:.2f} s after the kill (lease {CLAIM_LEASE:.0f} s, bound "
            f"{CLAIM_LEASE + LOST_MARGIN:.1f} s) on {lost.replica}"
            if lost
            else "never"
        )
        + f"; one more: {kind_of(again)}; payment_status on {status.replica}: "
        f"{structured(status.result()).get('runs')} run(s); function runs {len(runs)}"
    )
    # nginx answers the held call for its dead replica (a POST is never re-sent).
    if isinstance(held_answer, Reply):
        assert (held_answer.status, held_answer.replica) == (502, victim), held_answer.status
    assert kind_of(alive) == "T11", f"a repeat while the first call ran: {kind_of(alive)}"
    assert lost is not None, f"no T12 after the kill of {victim}: {dict(seen)}"
    d = details(lost)
    assert d["reason"] == "replica_lost", d
    assert d["retryable"] is False and d["windowEndsAt"], d
    assert d["firstCallId"] == details(alive)["firstCallId"], (d, details(alive))
    assert d["statusCheck"] == {"tool": "payment_status", "arguments": {"payment_id": payment_id}}
    text = lost.result()["content"][0]["text"]
    assert "replica_lost" in text and "payment_status" in text, text
    assert lost_after <= CLAIM_LEASE + LOST_MARGIN, f"T12 only {lost_after:.2f} s after the kill"
    assert kind_of(again) == "T12" and details(again)["reason"] == "replica_lost", kind_of(again)
    assert structured(status.result())["runs"] == 1
    assert len(runs) == 1 and runs[0]["replica"] == victim, f"the function ran again: {runs}"


def test_the_records_are_in_redis_and_expire_with_the_window(cluster: Cluster) -> None:
    """The module's operations left their records in Redis (shared by the replicas), each
    expiring at most the window (5 minutes) after its first call; no key lives forever."""
    codes = cluster.stop_serving()  # the module's last test
    ttls = cluster.redis.ttls()
    forever = sorted(k for k, ttl in ttls.items() if ttl == -1)
    records = {k: ttl for k, ttl in ttls.items() if ":once:" in k}
    report(
        f"at-most-once module: {len(ttls)} keys left in Redis after the replicas stopped, "
        f"{len(records)} at-most-once records (TTLs {sorted(records.values())}), "
        f"{len(forever)} without a TTL {forever[:10]}; exit codes {codes}"
    )
    assert not forever, f"keys without a TTL: {forever}"
    assert len(records) >= 3, f"the three operations left no records in Redis: {sorted(ttls)}"
    assert all(0 < ttl <= WINDOW for ttl in records.values()), records
