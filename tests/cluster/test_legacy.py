"""Legacy sessions (2025-11-25) across three replicas behind nginx, no affinity of any kind.

The official Python SDK client (`mcp`) where it does the step itself: a session whose calls
spread over every replica, logging/setLevel and resources/subscribe holding on every replica, an
elicitation it answers. Raw HTTP where the test must place a step on another replica: an
elicitation answered through another replica, an SSE stream resumed elsewhere with
Last-Event-ID, and DELETE ending the session everywhere. The module ends with the TTL check.
"""

from __future__ import annotations

import asyncio
import collections
import time
import warnings
from typing import Any

from harness import REPLICA_NAMES, Cluster, report
from sdk import Served, posts_of, with_sdk
from wire import WITH_ELICITATION, Endpoint, LegacySession, Stream, structured

EVERY = set(REPLICA_NAMES)


def test_sdk_session_continues_over_every_replica(cluster: Cluster) -> None:
    served: Served = []

    async def calls(client: Any) -> list[Any]:
        return [await client.call_tool("echo", {"text": f"call {i}"}) for i in range(30)]

    results = asyncio.run(with_sdk(cluster.url, served, calls))
    by_tool = collections.Counter(r.structured_content["replica"] for r in results)
    report(
        f"legacy SDK session: initialize on {posts_of(served, 'initialize')}, 30 tools/call "
        f"served by {dict(sorted(by_tool.items()))}; HTTP statuses "
        f"{dict(collections.Counter(s for _, _, s, _ in served))}"
    )
    assert [r.structured_content["text"] for r in results] == [f"call {i}" for i in range(30)]
    assert not [r for r in results if r.is_error]
    assert set(by_tool) == EVERY
    assert posts_of(served, "tools/call") == [r.structured_content["replica"] for r in results]


def test_sdk_log_level_and_subscriptions_hold_on_every_replica(cluster: Cluster) -> None:
    from mcp import types
    from mcp.shared.exceptions import MCPDeprecationWarning

    served: Served = []
    logs: list[str] = []
    updates: list[str] = []
    uris = [f"cluster://doc/sdk-{i}" for i in range(len(REPLICA_NAMES))]

    async def on_log(params: Any) -> None:
        logs.append(str(params.data))

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async def body(client: Any) -> tuple[list[str], dict[str, str]]:
        with warnings.catch_warnings():  # deprecated as of 2026-07-28; this session is 2025-11-25
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.set_logging_level("error")
            for uri in uris:
                await client.subscribe_resource(uri)
        said = []
        # Round robin spreads calls, but the session's own GET stream and notifications take
        # turns too: call until every replica has served one (a bounded number of calls).
        for _ in range(4 * len(REPLICA_NAMES)):
            said.append((await client.call_tool("say", {})).structured_content["replica"])
            if set(said) == EVERY:
                break
        touched = {}
        for uri in uris:
            touched[uri] = (await client.call_tool("touch", {"uri": uri})).structured_content[
                "replica"
            ]
        end = time.monotonic() + 10
        while not set(uris) <= set(updates) and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return said, touched

    said, touched = asyncio.run(
        with_sdk(cluster.url, served, body, logging_callback=on_log, message_handler=on_message)
    )
    report(
        f"legacy SDK: setLevel on {posts_of(served, 'logging/setLevel')}, say on {said}, "
        f"log messages received {logs}; subscribe on {posts_of(served, 'resources/subscribe')}, "
        f"touch on {list(touched.values())}, GET stream on "
        f"{[r for v, _, _, r in served if v == 'GET']}, updates received for "
        f"{[touched[u] for u in uris if u in updates]}"
    )
    assert set(said) == EVERY and set(touched.values()) == EVERY
    assert sorted(logs) == sorted(f"error from {r}" for r in said), "level error held everywhere"
    assert set(updates) == set(uris), f"updates missed: {sorted(set(uris) - set(updates))}"


def test_sdk_answers_an_elicitation(cluster: Cluster) -> None:
    from mcp import types

    served: Served = []

    async def on_elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"text": "green"})

    async def body(client: Any) -> Any:
        return await client.call_tool("ask", {"question": "Which colour?"})

    result = asyncio.run(with_sdk(cluster.url, served, body, elicitation_callback=on_elicit))
    report(
        f"legacy SDK elicitation: tools/call on {posts_of(served, 'tools/call')}, its answer "
        f"POSTed to {posts_of(served, 'response')}"
    )
    assert not result.is_error, result
    out = result.structured_content
    assert (out["action"], out["text"]) == ("accept", "green")


def initialized(ep: Endpoint, caps: dict[str, Any] | None = None) -> LegacySession:
    """A raw legacy session (initialize and notifications/initialized, on two replicas)."""
    session = LegacySession(ep, caps)
    session.initialize()
    return session


def test_elicitation_answered_through_another_replica(ep: Endpoint) -> None:
    session = initialized(ep, WITH_ELICITATION)
    call = session.open("tools/call", {"name": "ask", "arguments": {"question": "Which colour?"}})
    try:
        assert call.status == 200, f"tools/call on {call.replica}: {call.status} {call.body!r}"
        _, asked = call.until(lambda m: m.get("method") == "elicitation/create", 15)
        answer = session.answer(asked["id"], {"action": "accept", "content": {"text": "red"}})
        report(
            f"legacy elicitation: tool running on {call.replica}, answer POSTed to "
            f"{answer.replica} ({answer.status})"
        )
        assert answer.replica != call.replica, "round robin sent the answer to the same replica"
        assert answer.status == 202, f"the answer on {answer.replica}: {answer.body!r}"
        _, response = call.until(lambda m: "result" in m or "error" in m, 15)
        out = structured(response["result"])
        assert (out["action"], out["text"], out["replica"]) == ("accept", "red", call.replica)
    finally:
        call.close()


def test_cancel_reaches_the_replica_running_the_request(ep: Endpoint) -> None:
    session = initialized(ep)
    # Every replica holds a copy of the session: the one a cancel lands on holds it too, yet
    # must not be the only one to see it.
    warmed = {session.request("tools/list").replica for _ in range(len(REPLICA_NAMES))}
    assert warmed == set(REPLICA_NAMES), f"round robin reached only {sorted(warmed)}"
    params = {"name": "sleep", "arguments": {"seconds": 20}, "_meta": {"progressToken": "p"}}
    body = session.body("tools/call", params)
    started = time.monotonic()
    call = ep.open("POST", session.headers(), body)
    try:
        assert call.status == 200, f"tools/call on {call.replica}: {call.status} {call.body!r}"
        call.until(lambda m: m.get("method") == "notifications/progress", 10)  # it runs
        cancel = session.notify(
            "notifications/cancelled", {"requestId": body["id"], "reason": "no longer needed"}
        )
        assert cancel.status == 202, f"the cancel on {cancel.replica}: {cancel.body!r}"
        assert cancel.replica != call.replica, "round robin sent the cancel to the same replica"
        # A cancelled request gets no response: its stream ends, long before the 20 s sleep.
        while call.next_event(10) is not None:
            pass
        elapsed = time.monotonic() - started
        report(
            f"legacy cancel: tool on {call.replica}, notifications/cancelled POSTed to "
            f"{cancel.replica}, the stream ended after {elapsed:.2f} s"
        )
        assert elapsed < 10, f"the request ran on for {elapsed:.1f} s after its cancel"
    finally:
        call.close()


def events_until_result(
    stream: Stream, seen: list[tuple[str | None, Any]], stop_after: int | None
) -> bool:
    """Reads events into `seen` (id, message) until the result (True) or, when `stop_after` is
    given, until that many progress notifications arrived (False)."""
    while True:
        event = stream.next_event(15)
        if event is None:
            return False
        message = event.json()
        if message is None:
            continue
        seen.append((event.id, message))
        if "result" in message or "error" in message:
            return True
        progress = [m for _, m in seen if m.get("method") == "notifications/progress"]
        if stop_after is not None and len(progress) >= stop_after:
            return False


def test_sse_resumed_with_last_event_id_on_another_replica(ep: Endpoint) -> None:
    session = initialized(ep)
    params = {
        "name": "chatter",
        "arguments": {"count": 10, "interval": 0.2},
        "_meta": {"progressToken": "resume-me"},
    }
    call = session.open("tools/call", params)
    before: list[tuple[str | None, Any]] = []
    try:
        assert call.status == 200, f"tools/call on {call.replica}: {call.status} {call.body!r}"
        assert not events_until_result(call, before, stop_after=3)
    finally:
        call.close()  # the client lost its stream; legacy: the tool goes on
    last_id = [i for i, _ in before if i][-1]
    resumed = session.get(last_event_id=last_id)
    after: list[tuple[str | None, Any]] = []
    try:
        assert resumed.status == 200, (
            f"resume on {resumed.replica}: {resumed.status} {resumed.body!r}"
        )
        finished = events_until_result(resumed, after, stop_after=None)
    finally:
        resumed.close()
    steps = [
        m["params"]["progress"]
        for _, m in before + after
        if m.get("method") == "notifications/progress"
    ]
    report(
        f"legacy SSE resume: call on {call.replica}, {len(before)} events read, stream lost "
        f"after event {last_id}; GET with Last-Event-ID on {resumed.replica} brought "
        f"{len(after)} events (result {'included' if finished else 'MISSING'})"
    )
    assert resumed.replica != call.replica, "round robin sent the resume to the same replica"
    assert finished, f"no result after resuming on {resumed.replica}: {after}"
    assert steps == list(range(1, 11)), f"each progress exactly once, in order: {steps}"
    assert structured(after[-1][1]["result"])["replica"] == call.replica


def test_delete_ends_the_session_everywhere(ep: Endpoint) -> None:
    session = initialized(ep)
    alive = [session.request("ping") for _ in range(len(REPLICA_NAMES))]
    assert {r.replica for r in alive} == EVERY
    assert [r.status for r in alive] == [200] * 3, [(r.replica, r.status, r.body) for r in alive]
    deleted = session.delete()
    gone = [session.request("ping") for _ in range(len(REPLICA_NAMES))]
    report(
        f"legacy DELETE on {deleted.replica} ({deleted.status}); later requests: "
        + ", ".join(f"{r.replica} {r.status}" for r in gone)
    )
    assert deleted.status == 204, deleted.body
    assert {r.replica for r in gone} == EVERY
    assert [r.status for r in gone] == [404] * 3, [(r.replica, r.status, r.body) for r in gone]


def test_every_key_in_redis_has_a_ttl(cluster: Cluster) -> None:
    codes = cluster.stop_serving()  # the module's last test: replicas drain and release first
    ttls = cluster.redis.ttls()
    forever = sorted(k for k, ttl in ttls.items() if ttl == -1)
    report(
        f"legacy module: {len(ttls)} keys left in Redis after the replicas stopped, "
        f"{len(forever)} without a TTL {forever[:10]}; exit codes {codes}"
    )
    assert codes == {"nginx": 0, "r1": 0, "r2": 0, "r3": 0}
    assert not forever, f"keys without a TTL: {forever}"
