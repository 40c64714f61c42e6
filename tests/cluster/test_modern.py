"""2026-07-28 across three replicas behind nginx (round robin, no affinity).

Raw HTTP: plain calls spread over every replica; an input_required round answered on another
replica; a task seen, cancelled and read on every replica; a listen stream on one replica
getting the changes made on the others (resources and tasks), also past an SSE keep-alive. The
official Python SDK client: its own input_required retry and its listen stream, across replicas.
The module ends by checking that every key in Redis has a TTL.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
import uuid
from typing import Any

from harness import REPLICA_NAMES, Cluster, report
from sdk import Served, posts_of, with_sdk
from wire import (
    MODERN,
    WITH_ELICITATION,
    WITH_TASKS,
    Endpoint,
    acknowledged,
    create_task,
    structured,
    task_get,
    updates_within,
)

EVERY = set(REPLICA_NAMES)


def on_every_replica(ep: Endpoint, task_id: str) -> dict[str, dict[str, Any]]:
    """tasks/get on each replica (three consecutive requests: round robin visits all)."""
    seen: dict[str, dict[str, Any]] = {}
    for _ in range(len(REPLICA_NAMES)):
        reply = task_get(ep, task_id)
        seen[reply.replica] = reply.response()
    assert set(seen) == EVERY, f"round robin did not visit every replica: {sorted(seen)}"
    return seen


def wait_for_marker(cluster: Cluster, tag: str, timeout: float = 20) -> str:
    """The replica named in markers/cancelled-<tag> (a job's handler saw its cancellation)."""
    path = cluster.folder / "markers" / f"cancelled-{tag}"
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"the job's handler never saw the cancellation ({path})"
        time.sleep(0.05)
    return path.read_text()


def test_plain_calls_spread_over_every_replica(ep: Endpoint) -> None:
    served: collections.Counter[str] = collections.Counter()
    for i in range(30):
        reply = ep.tool("echo", text=f"call {i}")
        assert reply.status == 200
        out = structured(reply.result())
        assert out["text"] == f"call {i}"
        assert out["replica"] == reply.replica, "nginx's X-Replica names the replica that ran it"
        served[reply.replica] += 1
    report(f"2026-07-28 plain tools/call: 30 calls, served by {dict(sorted(served.items()))}")
    assert set(served) == EVERY


def test_input_required_answered_on_another_replica(ep: Endpoint) -> None:
    first = ep.tool("ask", WITH_ELICITATION, question="Which colour?")
    asked = first.result()
    assert asked.get("resultType") == "input_required", asked
    ((key, request),) = asked["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    params = {
        "name": "ask",
        "arguments": {"question": "Which colour?"},
        "requestState": asked["requestState"],
        "inputResponses": {key: {"action": "accept", "content": {"text": "blue"}}},
    }
    retry = ep.call("tools/call", params, WITH_ELICITATION)
    report(f"2026-07-28 input_required from {first.replica}, retry served by {retry.replica}")
    assert retry.replica != first.replica, "round robin sent the retry to the same replica"
    result = retry.result()
    assert not result.get("isError"), f"the retry on {retry.replica} failed: {result}"
    assert result.get("resultType") == "complete", result
    out = structured(result)
    assert (out["action"], out["text"], out["replica"]) == ("accept", "blue", retry.replica)


def test_sdk_input_required_retried_on_another_replica(cluster: Cluster) -> None:
    """The official client answers input_required itself; its retry lands on the next replica."""
    from mcp import types

    served: Served = []

    async def on_elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"text": "green"})

    async def body(client: Any) -> Any:
        return await client.call_tool("ask", {"question": "Which colour?"})

    result = asyncio.run(
        with_sdk(cluster.url, served, body, mode=MODERN, elicitation_callback=on_elicit)
    )
    calls = posts_of(served, "tools/call")
    report(f"2026-07-28 SDK input_required round: tools/call on {calls}")
    assert not result.is_error, result
    out = result.structured_content
    assert (out["action"], out["text"]) == ("accept", "green")
    assert len(calls) == 2 and calls[0] != calls[1], f"first call and retry on {calls}"
    assert out["replica"] == calls[1]


def test_sdk_listen_gets_updates_published_on_other_replicas(
    cluster: Cluster, ep: Endpoint
) -> None:
    """The official client's listen stream on one replica, touches made through the others."""
    from mcp.client.subscriptions import ResourceUpdated

    served: Served = []
    uris = [f"cluster://doc/sdk-{uuid.uuid4().hex[:8]}-{i}" for i in range(len(REPLICA_NAMES))]
    got: set[str] = set()

    async def body(client: Any) -> dict[str, str]:
        async with client.listen(resource_subscriptions=uris) as subscription:
            touched = {}
            for uri in uris:  # the raw client, through the same nginx: the next replicas
                touched[uri] = (await asyncio.to_thread(ep.tool, "touch", uri=uri)).replica

            async def collect() -> None:
                async for event in subscription:
                    if isinstance(event, ResourceUpdated):
                        got.add(event.uri)
                        if got >= set(uris):
                            return

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(collect(), 10)
            return touched

    touched = asyncio.run(with_sdk(cluster.url, served, body, mode=MODERN))
    listener = posts_of(served, "subscriptions/listen")
    report(
        f"2026-07-28 SDK listen on {listener}: resources/updated published on "
        + ", ".join(
            f"{r} {'delivered' if u in got else 'NOT delivered'}" for u, r in touched.items()
        )
    )
    assert set(touched.values()) == EVERY
    assert got == set(uris), (
        f"missed what {[r for u, r in touched.items() if u not in got]} published"
    )


def test_a_task_is_seen_cancelled_and_read_on_every_replica(cluster: Cluster, ep: Endpoint) -> None:
    created, task_id, tag = create_task(ep, seconds=300)
    owner = created.replica
    seen = on_every_replica(ep, task_id)
    for replica, response in sorted(seen.items()):
        assert "result" in response, f"tasks/get on {replica} (task of {owner}): {response}"
        assert response["result"]["status"] == "working", (replica, response)
    cancel = ep.call("tasks/cancel", {"taskId": task_id}, WITH_TASKS)
    report(
        f"2026-07-28 task created on {owner}, tasks/get on {sorted(seen)}, "
        f"tasks/cancel on {cancel.replica}"
    )
    assert cancel.replica != owner, "round robin sent tasks/cancel to the owner"
    assert cancel.result().get("resultType") == "complete", cancel.response()
    assert wait_for_marker(cluster, tag) == owner, "the owner's handler saw the cancellation"
    for replica, response in sorted(on_every_replica(ep, task_id).items()):
        assert response.get("result", {}).get("status") == "cancelled", (replica, response)


def test_a_finished_task_is_read_from_every_replica(ep: Endpoint) -> None:
    created, task_id, tag = create_task(ep, seconds=0.2)
    end = time.monotonic() + 30
    while True:
        reply = task_get(ep, task_id)
        response = reply.response()
        assert "result" in response, f"tasks/get on {reply.replica}: {response}"
        if response["result"]["status"] != "working":
            break
        assert time.monotonic() < end, "the task did not finish"
        time.sleep(0.1)
    for replica, response in sorted(on_every_replica(ep, task_id).items()):
        task = response.get("result", {})
        assert task.get("status") == "completed", (replica, response)
        out = structured(task["result"])
        assert (out["tag"], out["replica"]) == (tag, created.replica), (replica, task)


def test_listen_gets_resource_updates_published_on_other_replicas(ep: Endpoint) -> None:
    base = f"cluster://doc/{uuid.uuid4().hex[:8]}"
    uris = [f"{base}-{i}" for i in range(len(REPLICA_NAMES))]
    stream = ep.listen({"resourceSubscriptions": uris})
    try:
        assert acknowledged(stream) == {"resourceSubscriptions": uris}
        touched_on = {}
        for uri in uris:  # consecutive requests: round robin puts them on every replica
            touched = ep.tool("touch", uri=uri)
            assert touched.status == 200 and not touched.result().get("isError")
            touched_on[uri] = touched.replica
        got = updates_within(stream, 10)
        report(
            f"2026-07-28 listen on {stream.replica}: resources/updated published on "
            + ", ".join(
                f"{r} {'delivered' if u in got else 'NOT delivered'}" for u, r in touched_on.items()
            )
        )
        assert set(touched_on.values()) == EVERY
        missed = [r for u, r in touched_on.items() if u not in got]
        assert not missed, f"the listen on {stream.replica} missed what {missed} published"
    finally:
        stream.close()


def test_listen_delivers_after_an_sse_keepalive(cluster: Cluster, ep: Endpoint) -> None:
    """A listen outlives the replicas' SSE keep-alive comment (every 15 s) and still delivers.

    Not about several replicas (the touches go to the listener's own replica, directly), but
    every long-lived listen behind a balancer meets it.
    """
    uri = f"cluster://doc/{uuid.uuid4().hex[:8]}"
    stream = ep.listen({"resourceSubscriptions": [uri]})
    try:
        assert acknowledged(stream) == {"resourceSubscriptions": [uri]}
        local = Endpoint(f"http://127.0.0.1:{cluster.replica(stream.replica).port}/mcp")
        before = local.tool("touch", uri=uri)
        assert before.status == 200
        assert updates_within(stream, 5) == [uri], "no update before the keep-alive"
        time.sleep(17)  # past the replica's sse_keepalive (15 s): one ":" comment went out
        local.tool("touch", uri=uri)
        got = updates_within(stream, 10)
        report(
            f"listen on {stream.replica} after its first SSE keep-alive: update published on "
            f"the same replica {'delivered' if got else 'NOT delivered'}"
        )
        assert got == [uri], f"the listen on {stream.replica} went quiet after a keep-alive"
    finally:
        stream.close()


def test_listen_follows_a_task_changed_on_other_replicas(ep: Endpoint) -> None:
    created, task_id, _ = create_task(ep, seconds=300)
    stream = ep.listen({"taskIds": [task_id]}, WITH_TASKS)
    try:
        assert stream.replica != created.replica, "round robin put the listen on the owner"
        assert acknowledged(stream) == {"taskIds": [task_id]}, (
            f"listen on {stream.replica} does not know the task {created.replica} created"
        )
        cancel = ep.call("tasks/cancel", {"taskId": task_id}, WITH_TASKS)
        assert cancel.result().get("resultType") == "complete"
        _, note = stream.until(
            lambda m: m.get("method") == "notifications/tasks"
            and m["params"].get("status") == "cancelled",
            timeout=15,
        )
        assert note["params"]["taskId"] == task_id
        report(
            f"2026-07-28 task of {created.replica} cancelled on {cancel.replica}: "
            f"notifications/tasks reached the listen on {stream.replica}"
        )
    finally:
        stream.close()


def test_every_key_in_redis_has_a_ttl(cluster: Cluster) -> None:
    codes = cluster.stop_serving()  # the module's last test: replicas drain and release first
    ttls = cluster.redis.ttls()
    forever = sorted(k for k, ttl in ttls.items() if ttl == -1)
    report(
        f"2026-07-28 module: {len(ttls)} keys left in Redis after the replicas stopped, "
        f"{len(forever)} without a TTL {forever[:10]}; exit codes {codes}"
    )
    assert codes == {"nginx": 0, "r1": 0, "r2": 0, "r3": 0}
    assert ttls, "the replicas wrote nothing to Redis (tasks were created: they are not shared)"
    assert not forever, f"keys without a TTL: {forever}"
