"""Middleware (issue 33) across three replicas behind nginx on one Redis.

`quota` (tests/cluster/cluster_server.py) is limited by the built-in RateLimit to QUOTA_BURST
calls per `tag` argument; a token comes back only every 1000 s. nginx spreads the calls over the
replicas, and the buckets are in Redis, so the replicas together let exactly QUOTA_BURST calls of
one tag through, whichever replica serves them and however many arrive at once; every other call
gets the tool error of row T14 (category rate_limited, retryAfterSeconds), in both eras. With
Redis down the limit cannot be counted, so a limited call is refused with row P57 (nothing ran,
retry in a few seconds) while unlimited tools go on; once Redis is back the limit works again.
docs/middleware.md, "Rate limits", describes the built-in.
"""

from __future__ import annotations

import collections
import threading
import time
import uuid
from typing import Any

from harness import REPLICA_NAMES, Cluster, report
from wire import Endpoint, LegacySession, Reply, structured

QUOTA_BURST = 3
"""cluster_server.QUOTA_BURST: the calls of one tag the cluster lets through."""

REFILL_SECONDS = 1000
"""One token per 1000 s (per_second=0.001): a refusal says to wait about that long."""


def new_tag() -> str:
    """A tag no other test uses (its bucket lives in Redis for the module's cluster)."""
    return f"t-{uuid.uuid4().hex[:10]}"


def kind_of(reply: Reply) -> str:
    """ "ok", "T14", or a description of anything else."""
    if reply.status != 200:
        return f"HTTP {reply.status} from {reply.replica or 'nginx'}"
    msg = reply.response()
    if "error" in msg:
        return f"error {msg['error'].get('code')}"
    result = msg["result"]
    if not result.get("isError"):
        return "ok"
    details = result.get("_meta", {}).get("mcpcxx/error", {})
    return "T14" if details.get("category") == "rate_limited" else f"tool error {details}"


def check_refusal(reply: Reply, tag: str) -> None:
    """A T14 refusal (its details in _meta, since quota has an output schema) names the tool
    and the limit, changed nothing, and says when to retry."""
    result = reply.result()
    details = result["_meta"]["mcpcxx/error"]
    assert details["category"] == "rate_limited" and details["effect"] == "not_applied", details
    assert details["resource"] == "quota" and details["retryable"] is True, details
    assert 0 < details["retryAfterSeconds"] <= REFILL_SECONDS, details
    assert details["limit"] == f"{QUOTA_BURST} calls of quota per tag", details
    text = result["content"][0]["text"]
    assert "quota was not run" in text and "Call it again after" in text, text


def tally(replies: list[Reply]) -> tuple[collections.Counter[str], set[str], set[str]]:
    """How many replies of each kind, the replicas that let a call through, those that refused."""
    kinds = collections.Counter(kind_of(r) for r in replies)
    passed = {r.replica for r in replies if kind_of(r) == "ok"}
    refused = {r.replica for r in replies if kind_of(r) == "T14"}
    return kinds, passed, refused


def test_the_replicas_share_one_bucket_per_tag(ep: Endpoint) -> None:
    """Nine calls of one tag in turn (nginx spreads them over the three replicas): the first
    QUOTA_BURST pass, every later one is refused, whichever replica serves it."""
    tag = new_tag()
    replies = [ep.tool("quota", tag=tag) for _ in range(9)]
    kinds, passed, refused = tally(replies)
    report(f"rate limit, 9 calls in turn: {dict(kinds)}; passed on {passed}, refused on {refused}")
    assert [kind_of(r) for r in replies] == ["ok"] * QUOTA_BURST + ["T14"] * (9 - QUOTA_BURST)
    assert len(passed | refused) == len(REPLICA_NAMES), "nginx did not use every replica"
    assert len(refused) >= 2, f"only {refused} refused: the buckets may not be shared"
    for r in replies[QUOTA_BURST:]:
        check_refusal(r, tag)
    assert {structured(r.result())["tag"] for r in replies[:QUOTA_BURST]} == {tag}


def test_calls_at_once_take_exactly_the_burst(ep: Endpoint) -> None:
    """Twelve calls of one tag at once across the replicas: Redis updates the bucket atomically,
    so exactly QUOTA_BURST pass and nine are refused."""
    tag = new_tag()
    replies: list[Any] = [None] * 12
    start = threading.Barrier(len(replies))

    def send(i: int) -> None:
        start.wait()
        replies[i] = ep.tool("quota", tag=tag)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(replies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(isinstance(r, Reply) for r in replies), "a call got no reply in 60 s"
    kinds, passed, refused = tally(replies)
    report(f"rate limit, 12 calls at once: {dict(kinds)}; passed on {passed}, refused on {refused}")
    assert kinds == collections.Counter({"ok": QUOTA_BURST, "T14": 12 - QUOTA_BURST}), kinds
    for r in replies:
        if kind_of(r) == "T14":
            check_refusal(r, tag)


def test_a_legacy_session_shares_the_buckets_of_modern_calls(ep: Endpoint) -> None:
    """A 2025-11-25 session's calls count in the same buckets as 2026-07-28 calls: one modern
    call, then the session gets the rest of the burst and the same T14 after it."""
    tag = new_tag()
    first = ep.tool("quota", tag=tag)
    session = LegacySession(ep)
    session.initialize()
    replies = [session.tool("quota", tag=tag) for _ in range(QUOTA_BURST + 1)]
    kinds = [kind_of(first)] + [kind_of(r) for r in replies]
    report(f"rate limit, a modern call then a legacy session: {kinds}")
    assert kinds == ["ok"] * QUOTA_BURST + ["T14", "T14"], kinds
    check_refusal(replies[-1], tag)
    assert session.delete().status in (200, 204)


def test_other_tags_and_tools_are_not_limited(ep: Endpoint) -> None:
    """A tag's empty bucket refuses only that tag: another tag and another tool still pass."""
    tag = new_tag()
    for _ in range(QUOTA_BURST + 1):
        ep.tool("quota", tag=tag)
    assert kind_of(ep.tool("quota", tag=tag)) == "T14"
    assert kind_of(ep.tool("quota", tag=new_tag())) == "ok"
    assert all(kind_of(ep.tool("echo", text="x")) == "ok" for _ in range(QUOTA_BURST + 2))


def test_with_redis_down_limited_calls_are_refused_and_others_go_on(own_cluster: Cluster) -> None:
    """Redis stopped: every replica refuses `quota` with P57 (the limit fails closed: it cannot
    be counted) and still serves `echo`; Redis started again: `quota` passes again."""
    ep = Endpoint(own_cluster.url)
    tag = new_tag()
    assert kind_of(ep.tool("quota", tag=tag)) == "ok"
    own_cluster.redis.stop()
    down = [ep.tool("quota", tag=tag) for _ in range(3)]
    echoes = [kind_of(ep.tool("echo", text="x")) for _ in range(3)]
    codes = [r.response().get("error", {}).get("code") for r in down]
    report(f"rate limit, Redis down: quota {codes} on {[r.replica for r in down]}; echo {echoes}")
    for r in down:
        error = r.response()["error"]
        assert error["code"] == -32603 and "did not answer" in error["message"], error
        assert "nothing was changed" in error["message"], error
    assert len({r.replica for r in down}) == len(REPLICA_NAMES), "nginx did not use every replica"
    assert echoes == ["ok"] * 3, echoes
    own_cluster.redis.start()
    deadline = time.monotonic() + 20
    while (kind := kind_of(ep.tool("quota", tag=tag))) != "ok" and time.monotonic() < deadline:
        time.sleep(0.2)
    report(f"rate limit, Redis back: quota {kind}")
    assert kind == "ok", f"quota still refused 20 s after Redis came back: {kind}"


def test_the_buckets_are_in_redis_and_expire(cluster: Cluster) -> None:
    """The module's buckets are Redis keys, each expiring once it would be full again
    (burst / rate + 1 s): no bucket lives forever."""
    buckets = {k: ttl for k, ttl in cluster.redis.ttls().items() if ":rl:" in k}
    report(f"rate limit: {len(buckets)} bucket keys in Redis, TTLs {sorted(buckets.values())}")
    assert len(buckets) >= 4, f"too few bucket keys in Redis: {sorted(buckets)}"
    assert all(0 < ttl <= QUOTA_BURST * REFILL_SECONDS + 1 for ttl in buckets.values()), buckets
