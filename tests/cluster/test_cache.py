"""The response cache (issue 33) across three replicas behind nginx on one Redis.

The replicas of this module run with MCPCXX_CLUSTER_CACHE=1: a public ResponseCache over the
read-only tool `lookup` and every resources/read, its entries in Redis (tests/cluster/
cluster_server.py). Each real run of `lookup` or of `cluster://cached/{name}` appends a line to
markers/cached-runs.jsonl and answers with a fresh run id, so a test tells a cached reply from a
run and counts the runs of every replica. A result one replica cached is served by the others; a
resources/updated published by one replica (the `touch` tool) drops the entry on all of them;
with Redis down the reads still answer, uncached, and nothing is refused.
docs/middleware.md, "Response cache", describes the built-in.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from harness import REPLICA_NAMES, Cluster, report
from wire import Endpoint, Reply, structured

CACHE_TTL = 120
"""cluster_server.CACHE_TTL in seconds: the longest an entry may live in Redis."""


@contextlib.contextmanager
def caching_cluster(folder: pathlib.Path) -> Iterator[Cluster]:
    """A cluster whose replicas run the response cache."""
    cluster = Cluster(folder, env={"MCPCXX_CLUSTER_CACHE": "1"}).start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """This module's cluster (with the cache), shared by its tests."""
    with caching_cluster(tmp_path_factory.mktemp("cache-cluster")) as c:
        yield c


@pytest.fixture
def ep(cluster: Cluster) -> Endpoint:
    """The MCP endpoint behind nginx."""
    return Endpoint(cluster.url)


def runs_of(cluster: Cluster, what: str) -> list[dict[str, Any]]:
    """The handler runs recorded for `what` ("lookup <key>", "cached <name>") on every replica."""
    path = cluster.folder / "markers" / "cached-runs.jsonl"
    if not path.exists():
        return []
    lines = [json.loads(x) for x in path.read_text().splitlines() if x]
    return [x for x in lines if x["what"] == what]


def cache_meta(result: dict[str, Any]) -> dict[str, Any]:
    """The cache's hint on a result (_meta["mcpcxx/cache"]); {} when there is none."""
    return dict(result.get("_meta", {}).get("mcpcxx/cache", {}))


def read(ep: Endpoint, uri: str) -> tuple[str, Reply]:
    """resources/read of `uri` (2026-07-28): its text and the reply."""
    reply = ep.call("resources/read", {"uri": uri})
    return reply.result()["contents"][0]["text"], reply


def test_one_replica_runs_a_lookup_and_every_replica_serves_it(
    cluster: Cluster, ep: Endpoint
) -> None:
    """Six calls of one lookup through nginx: the tool runs once in all; every reply carries
    that run's id, five of them from the cache, on every replica."""
    key = uuid.uuid4().hex[:8]
    replies = [ep.tool("lookup", key=key) for _ in range(6)]
    results = [r.result() for r in replies]
    ids = {structured(r)["run"] for r in results}
    hits = [cache_meta(r).get("hit") for r in results]
    runs = runs_of(cluster, f"lookup {key}")
    served = {r.replica for r in replies}
    report(f"cache, 6 lookups: runs {len(runs)}, hits {hits}, served on {sorted(served)}")
    assert len(runs) == 1, f"the tool ran {len(runs)} times: {runs}"
    assert ids == {runs[0]["run"]}, ids
    assert hits.count(True) == 5, hits
    assert served == set(REPLICA_NAMES), f"nginx used only {served}"
    hit = next(cache_meta(r) for r in results if cache_meta(r).get("hit"))
    assert hit["cacheScope"] == "public" and 0 < hit["ttlMs"] <= CACHE_TTL * 1000, hit


def test_an_update_on_one_replica_drops_the_entry_on_all(cluster: Cluster, ep: Endpoint) -> None:
    """A cached resource read; `touch` (notify_resource_updated) on one replica; the next reads,
    whichever replica serves them, run the handler once more and then share the new entry."""
    name = uuid.uuid4().hex[:8]
    uri = f"cluster://cached/{name}"
    first = {read(ep, uri)[0] for _ in range(3)}
    assert len(first) == 1 and len(runs_of(cluster, f"cached {name}")) == 1, first
    touched = ep.tool("touch", uri=uri)
    assert touched.status == 200, touched.body
    deadline = time.monotonic() + 10
    after: set[str] = set()
    while time.monotonic() < deadline:
        after = {read(ep, uri)[0] for _ in range(3)}
        if not after & first:
            break
        time.sleep(0.1)
    runs = runs_of(cluster, f"cached {name}")
    report(
        f"cache, resource update on {touched.replica}: {len(runs)} runs, "
        f"before {sorted(first)}, after {sorted(after)}"
    )
    assert not after & first, f"a replica still served the dropped entry: {after}"
    assert len(after) == 1 and len(runs) == 2, (after, runs)


def test_the_entries_are_in_redis_and_expire(cluster: Cluster) -> None:
    """The module's entries are Redis keys (<prefix>rc:<sha256>, and the tag sets rct: that
    updates use to find them), each expiring within the cache's TTL."""
    ttls = cluster.redis.ttls()
    forever = sorted(k for k, ttl in ttls.items() if ttl == -1)
    entries = {k: ttl for k, ttl in ttls.items() if ":rc:" in k or ":rct:" in k}
    report(f"cache: {len(entries)} keys in Redis, TTLs {sorted(entries.values())}")
    assert entries, f"no cache key in Redis: {sorted(ttls)}"
    assert not forever, f"keys without a TTL: {forever}"
    assert all(0 < ttl <= CACHE_TTL for ttl in entries.values()), entries


def test_with_redis_down_reads_run_uncached(tmp_path: pathlib.Path) -> None:
    """Redis stopped: every lookup still answers with a result (a fresh run, no cache hint),
    never an error; Redis back: the cache serves again."""
    with caching_cluster(tmp_path) as cluster:
        ep = Endpoint(cluster.url)
        key = uuid.uuid4().hex[:8]
        ep.tool("lookup", key=key)
        cluster.redis.stop()
        down = [ep.tool("lookup", key=key) for _ in range(3)]
        metas = [cache_meta(r.result()) for r in down]
        report(f"cache, Redis down: hints {metas} on {[r.replica for r in down]}")
        assert all(not r.result().get("isError") for r in down)
        assert metas == [{}, {}, {}], metas
        assert len(runs_of(cluster, f"lookup {key}")) == 4
        cluster.redis.start()
        deadline = time.monotonic() + 20
        hit = False
        while not hit and time.monotonic() < deadline:
            hit = any(cache_meta(ep.tool("lookup", key=key).result()).get("hit") for _ in range(2))
            time.sleep(0.2)
        assert hit, "the cache served nothing 20 s after Redis came back"
