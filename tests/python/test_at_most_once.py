"""At-most-once tools from Python (issue 32; docs/python.md, "At-most-once tools").

@server.tool(at_most_once=...) declares the engine's tool_spec::at_most_once: a call identical to
an earlier one within the window never runs the function again. These tests call through the
in-process client (real engine sessions) and count the function's runs, so each fails when the
engine runs a repeat, or when the declaration or the resolver does not reach it.
"""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import mcpcxx
from conftest import SOURCE_DIR, result_of
from mcpcxx import NOT_APPLIED, AtMostOnce, PriorCall, StatusCheck, ToolError
from mcpcxx.testing import Client, text_of

TEN_MINUTES = timedelta(minutes=10)


def error_details(response: dict[str, Any]) -> dict[str, Any]:
    result = result_of(response)
    assert result.get("isError") is True, result
    details: dict[str, Any] = result["_meta"]["mcpcxx/error"]
    return details


def replay_of(response: dict[str, Any]) -> dict[str, Any] | None:
    meta = result_of(response).get("_meta") or {}
    replay: dict[str, Any] | None = meta.get("mcpcxx/replay")
    return replay


def log_events(lines: list[str], event: str) -> list[dict[str, Any]]:
    out = []
    for line in lines:
        record = json.loads(line)
        if record.get("event") == event:
            out.append(record)
    return out


@pytest.fixture
def logged() -> Iterator[tuple[mcpcxx.Server, list[str]]]:
    lines: list[str] = []
    srv = mcpcxx.Server("once", workers=4, log_writer=lines.append)
    yield srv, lines
    srv.close()


# ----- repeats of a completed call ----------------------------------------------------------


def test_a_repeat_gets_the_first_result_again_without_running(server: mcpcxx.Server) -> None:
    runs: list[str] = []

    @server.tool(at_most_once=TEN_MINUTES)
    def deploy(service: str) -> str:
        runs.append(service)
        return f"deployed {service} #{len(runs)}"

    with Client(server) as c:
        first = c.call_tool("deploy", {"service": "web"})
        before = datetime.now(timezone.utc)
        second = c.call_tool("deploy", {"service": "web"})
    assert runs == ["web"]
    assert text_of(first) == text_of(second) == "deployed web #1"
    assert replay_of(first) is None
    replay = replay_of(second)
    assert replay is not None and set(replay) == {"firstCalledAt", "callId"}
    assert isinstance(replay["callId"], str) and replay["callId"]
    called_at = datetime.fromisoformat(replay["firstCalledAt"].replace("Z", "+00:00"))
    assert called_at.tzinfo is not None
    assert before - timedelta(seconds=5) <= called_at <= before + timedelta(seconds=1)


def test_key_order_and_number_spelling_are_the_same_operation(server: mcpcxx.Server) -> None:
    runs: list[dict[str, Any]] = []
    schema = {
        "type": "object",
        "properties": {"count": {"type": "number"}, "labels": {"type": "object"}},
        "required": ["count", "labels"],
    }

    @server.tool(input_schema=schema, at_most_once=TEN_MINUTES)
    def scale(count: float, labels: dict[str, Any]) -> str:
        runs.append({"count": count, "labels": labels})
        return "scaled"

    with Client(server) as c:
        c.call_tool("scale", {"count": 1, "labels": {"a": 1, "b": 2}})
        # The client writes 1.0 as "1.0": the engine compares canonical JSON, not the text.
        second = c.call_tool("scale", {"labels": {"b": 2.0, "a": 1}, "count": 1.0})
        c.call_tool("scale", {"count": 2, "labels": {"a": 1, "b": 2}})
    assert replay_of(second) is not None
    assert [r["count"] for r in runs] == [1, 2]


def test_different_arguments_run_again(server: mcpcxx.Server) -> None:
    runs: list[str] = []

    @server.tool(at_most_once=TEN_MINUTES)
    def deploy(service: str, version: str) -> str:
        runs.append(f"{service}@{version}")
        return "ok"

    with Client(server) as c:
        for version in ("1", "2", "1"):
            c.call_tool("deploy", {"service": "web", "version": version})
        c.call_tool("deploy", {"service": "api", "version": "1"})
    assert runs == ["web@1", "web@2", "api@1"]


def test_the_key_argument_alone_names_the_operation(server: mcpcxx.Server) -> None:
    titles: list[str] = []

    @server.tool(at_most_once=AtMostOnce(window=TEN_MINUTES, key="request_id"))
    def create_ticket(request_id: str, title: str) -> str:
        titles.append(title)
        return f"created ticket T-{len(titles)}: {title}"

    with Client(server) as c:
        first = c.call_tool("create_ticket", {"request_id": "r1", "title": "Login broken"})
        again = c.call_tool("create_ticket", {"request_id": "r1", "title": "Login is broken"})
        other = c.call_tool("create_ticket", {"request_id": "r2", "title": "Login is broken"})
    assert titles == ["Login broken", "Login is broken"]
    assert text_of(again) == text_of(first) == "created ticket T-1: Login broken"
    assert replay_of(again) is not None
    assert text_of(other) == "created ticket T-2: Login is broken" and replay_of(other) is None


def test_an_async_tool_is_at_most_once_too(server: mcpcxx.Server) -> None:
    runs: list[str] = []

    @server.tool(at_most_once=TEN_MINUTES)
    async def publish(topic: str) -> str:
        runs.append(topic)
        return f"published {topic}"

    with Client(server) as c:
        c.call_tool("publish", {"topic": "news"})
        second = c.call_tool("publish", {"topic": "news"})
    assert runs == ["news"]
    assert text_of(second) == "published news" and replay_of(second) is not None


# ----- failed first calls -------------------------------------------------------------------


def test_a_failure_that_applied_nothing_lets_the_repeat_run(server: mcpcxx.Server) -> None:
    runs: list[int] = []

    @server.tool(at_most_once=TEN_MINUTES)
    def deploy(service: str) -> str:
        runs.append(1)
        if len(runs) == 1:
            raise ToolError(
                "deploy failed: web is frozen. Nothing was deployed.",
                category="precondition_failed",
                effect="not_applied",
            )
        return "deployed"

    with Client(server) as c:
        first = c.call_tool("deploy", {"service": "web"})
        second = c.call_tool("deploy", {"service": "web"})
        third = c.call_tool("deploy", {"service": "web"})  # the second call is the operation now
    assert error_details(first)["effect"] == "not_applied"
    assert len(runs) == 2
    assert text_of(second) == "deployed" and replay_of(second) is None
    assert text_of(third) == "deployed" and replay_of(third) is not None


def unknown_tool(server: mcpcxx.Server, runs: list[str], **once: Any) -> None:
    """deploy(service): fails unexpectedly the first time (its outcome is then unknown)."""

    @server.tool(
        at_most_once=AtMostOnce(
            window=TEN_MINUTES, status_check=StatusCheck("deployment_status", ["service"]), **once
        )
    )
    def deploy(service: str, version: str) -> str:
        runs.append(service)
        if len(runs) == 1:
            raise RuntimeError("deploy agent crashed")
        return f"deployed {service} {version}"

    @server.tool(annotations={"read_only_hint": True})
    def deployment_status(service: str) -> str:
        return f"service {service}: 0 deployment(s) recorded"


def test_an_unknown_outcome_refuses_the_repeat_naming_the_status_check(
    server: mcpcxx.Server,
) -> None:
    runs: list[str] = []
    unknown_tool(server, runs)
    with Client(server) as c:
        first = c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
    assert error_details(first)["effect"] == "unknown"  # an unexpected failure, row T3w
    details = error_details(second)
    assert runs == ["web"]
    assert details["effect"] == "unknown" and details["category"] == "conflict"
    assert details["retryable"] is False
    text = text_of(second)
    assert 'check its outcome with deployment_status({"service":"web"})' in text
    assert "(failed)" in text and "Do not call again unchanged" in text


def test_a_timed_out_first_call_is_unknown_with_reason_timeout(server: mcpcxx.Server) -> None:
    import asyncio

    runs: list[int] = []

    @server.tool(timeout=0.2, at_most_once=TEN_MINUTES)
    async def migrate(table: str) -> str:
        runs.append(1)
        await asyncio.sleep(30)  # cancelled at the deadline: it never returns a result
        return "migrated"

    with Client(server, inline=False) as c:
        first = c.call_tool("migrate", {"table": "users"})
        c.wait_idle()
        second = c.call_tool("migrate", {"table": "users"})
    assert error_details(first)["category"] == "timeout"
    assert error_details(second)["effect"] == "unknown"
    assert "(timeout)" in text_of(second)
    assert "check the current state with the tools that read it" in text_of(second)
    assert runs == [1]


def test_a_result_returned_after_the_deadline_is_what_a_repeat_gets(
    server: mcpcxx.Server,
) -> None:
    """The client got the timeout, but the function went on and returned: that was applied."""
    runs: list[int] = []
    ended = threading.Event()

    @server.tool(timeout=0.2, at_most_once=TEN_MINUTES)
    def migrate(ctx: mcpcxx.Context, table: str) -> str:
        runs.append(1)
        while not ctx.cancelled:
            time.sleep(0.01)
        ended.set()
        return "migrated after the deadline"

    with Client(server, inline=False) as c:
        first = c.call_tool("migrate", {"table": "users"})
        assert ended.wait(5)
        c.wait_idle()  # the handler has returned and its end is recorded
        second = c.call_tool("migrate", {"table": "users"})
    assert error_details(first)["category"] == "timeout"
    assert text_of(second) == "migrated after the deadline" and replay_of(second) is not None
    assert runs == [1]


# ----- resolvers ----------------------------------------------------------------------------


def test_a_resolver_result_is_replayed_and_kept(server: mcpcxx.Server) -> None:
    runs: list[str] = []
    asked: list[PriorCall] = []

    def resolver(prior: PriorCall) -> str:
        asked.append(prior)
        return f"deployed {prior.arguments['service']} (found by the resolver)"

    unknown_tool(server, runs, resolver=resolver)
    with Client(server) as c:
        c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
        third = c.call_tool("deploy", {"version": "2", "service": "web"})
    assert runs == ["web"]
    assert len(asked) == 1  # settled as applied: the third call replays without asking
    prior = asked[0]
    assert prior.reason == "failed"
    assert prior.arguments == {"service": "web", "version": "2"}
    assert isinstance(prior.call_id, str) and prior.call_id
    assert prior.first_called_at.tzinfo is not None
    assert prior.first_called_at.utcoffset() == timedelta(0)
    assert abs(datetime.now(timezone.utc) - prior.first_called_at) < timedelta(seconds=10)
    for response in (second, third):
        assert text_of(response) == "deployed web (found by the resolver)"
        replay = replay_of(response)
        assert replay is not None and replay["callId"] == prior.call_id


def test_a_resolver_saying_not_applied_lets_the_repeat_run(server: mcpcxx.Server) -> None:
    runs: list[str] = []
    unknown_tool(server, runs, resolver=lambda prior: NOT_APPLIED)
    with Client(server) as c:
        c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
        third = c.call_tool("deploy", {"service": "web", "version": "2"})
    assert runs == ["web", "web"]
    assert text_of(second) == "deployed web 2" and replay_of(second) is None
    assert text_of(third) == "deployed web 2" and replay_of(third) is not None


def test_a_resolver_returning_none_keeps_the_outcome_unknown(server: mcpcxx.Server) -> None:
    runs: list[str] = []
    asked: list[PriorCall] = []

    def resolver(prior: PriorCall) -> None:
        asked.append(prior)

    unknown_tool(server, runs, resolver=resolver)
    with Client(server) as c:
        c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
    assert len(asked) == 1 and runs == ["web"]
    assert error_details(second)["effect"] == "unknown"


def test_a_resolver_that_raises_keeps_the_outcome_unknown(
    logged: tuple[mcpcxx.Server, list[str]],
) -> None:
    server, lines = logged
    runs: list[str] = []

    def resolver(prior: PriorCall) -> str:
        raise ConnectionError("deploy registry unreachable")

    unknown_tool(server, runs, resolver=resolver)
    with Client(server) as c:
        c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
    assert runs == ["web"]
    assert error_details(second)["effect"] == "unknown"
    failed = log_events(lines, "at_most_once_resolver_failed")
    assert len(failed) == 1 and "deploy registry unreachable" in json.dumps(failed[0])


def test_an_async_resolver_runs_on_the_event_loop(server: mcpcxx.Server) -> None:
    runs: list[str] = []
    loops: list[bool] = []

    async def resolver(prior: PriorCall) -> mcpcxx.ToolResult:
        import asyncio

        await asyncio.sleep(0)
        loops.append(asyncio.get_running_loop().is_running())
        return mcpcxx.ToolResult(content=["deployed after all"], structured_content={"ok": True})

    unknown_tool(server, runs, resolver=resolver)
    with Client(server) as c:
        c.call_tool("deploy", {"service": "web", "version": "2"})
        second = c.call_tool("deploy", {"service": "web", "version": "2"})
    assert loops == [True] and runs == ["web"]
    assert text_of(second) == "deployed after all"
    assert result_of(second)["structuredContent"] == {"ok": True}
    assert replay_of(second) is not None


# ----- concurrent repeats, the window, kept results ----------------------------------------


def test_a_repeat_while_the_first_runs_is_refused_then_replayed(server: mcpcxx.Server) -> None:
    started, release = threading.Event(), threading.Event()
    runs: list[int] = []

    @server.tool(at_most_once=TEN_MINUTES)
    def deploy(service: str) -> str:
        runs.append(1)
        started.set()
        release.wait(10)
        return "deployed"

    with Client(server, inline=False) as c:
        first = c.call_tool_nowait("deploy", {"service": "web"})
        assert started.wait(10)
        during = c.call_tool("deploy", {"service": "web"})
        release.set()
        assert text_of(c.wait(first)) == "deployed"
        after = c.call_tool("deploy", {"service": "web"})
    details = error_details(during)
    assert details["category"] == "conflict" and details["effect"] == "not_applied"
    assert details["retryable"] is True and details["retryAfterSeconds"] >= 1
    assert "has been running since" in text_of(during)
    assert text_of(after) == "deployed" and replay_of(after) is not None
    assert runs == [1]


def test_twenty_identical_calls_at_once_run_the_function_once(server: mcpcxx.Server) -> None:
    runs: list[int] = []
    lock = threading.Lock()

    @server.tool(at_most_once=TEN_MINUTES)
    def deploy(service: str) -> str:
        with lock:
            runs.append(1)
        time.sleep(0.3)
        return "deployed web"

    gate = threading.Barrier(20)
    ids: list[Any] = []
    with Client(server, inline=False) as c:

        def send() -> None:
            gate.wait()
            rid = c.call_tool_nowait("deploy", {"service": "web"})
            with lock:
                ids.append(rid)

        threads = [threading.Thread(target=send) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        responses = [c.wait(rid) for rid in ids]
    assert len(runs) == 1
    ran = [r for r in responses if not result_of(r).get("isError") and replay_of(r) is None]
    replayed = [r for r in responses if replay_of(r) is not None]
    refused = [r for r in responses if result_of(r).get("isError")]
    assert len(ran) == 1 and len(ran) + len(replayed) + len(refused) == 20
    assert all(text_of(r) == "deployed web" for r in replayed)
    for r in refused:
        details = error_details(r)
        assert (details["category"], details["effect"]) == ("conflict", "not_applied")


def test_a_call_after_the_window_runs_again(server: mcpcxx.Server) -> None:
    runs: list[int] = []

    @server.tool(at_most_once=timedelta(milliseconds=300))
    def note(text: str) -> str:
        runs.append(1)
        return f"noted {text} ({len(runs)})"

    with Client(server) as c:
        c.call_tool("note", {"text": "hi"})
        within = c.call_tool("note", {"text": "hi"})
        time.sleep(0.45)
        after = c.call_tool("note", {"text": "hi"})
    assert text_of(within) == "noted hi (1)" and replay_of(within) is not None
    assert text_of(after) == "noted hi (2)" and replay_of(after) is None


def test_server_option_max_result_bytes_reaches_the_engine() -> None:
    server = mcpcxx.Server("small", at_most_once={"max_result_bytes": 64})
    runs: list[int] = []

    @server.tool(at_most_once=TEN_MINUTES)
    def export(size: int) -> str:
        runs.append(1)
        return "x" * size

    try:
        with Client(server) as c:
            c.call_tool("export", {"size": 10})
            small = c.call_tool("export", {"size": 10})
            c.call_tool("export", {"size": 500})
            large = c.call_tool("export", {"size": 500})
    finally:
        server.close()
    assert replay_of(small) is not None
    details = error_details(large)
    assert details["effect"] == "applied" and details["category"] == "conflict"
    assert "too large to keep" in text_of(large)
    assert len(runs) == 2


# ----- declarations -------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [600, 600.0])
def test_a_number_of_seconds_is_refused_naming_the_tool(
    server: mcpcxx.Server, seconds: float
) -> None:
    with pytest.raises(TypeError, match=r"tool 'deploy'.*number of seconds.*timedelta"):

        @server.tool(at_most_once=seconds)  # type: ignore[arg-type]
        def deploy(service: str) -> str:
            return service


def test_a_window_of_seconds_inside_at_most_once_is_refused(server: mcpcxx.Server) -> None:
    with pytest.raises(TypeError, match=r"tool 'deploy'.*window must be a datetime.timedelta"):

        @server.tool(at_most_once=AtMostOnce(window=600))  # type: ignore[arg-type]
        def deploy(service: str) -> str:
            return service


@pytest.mark.parametrize("window", [timedelta(minutes=-1), timedelta(0), timedelta(days=8)])
def test_a_window_outside_its_range_is_refused(server: mcpcxx.Server, window: timedelta) -> None:
    with pytest.raises(ValueError, match=r"tool 'deploy'.*window must be more than 0"):

        @server.tool(at_most_once=window)
        def deploy(service: str) -> str:
            return service

    assert "deploy" not in text_of_tools(server)


def text_of_tools(server: mcpcxx.Server) -> str:
    with Client(server) as c:
        return json.dumps(c.list_tools())


@pytest.mark.parametrize("key", ["title", "missing"])
def test_a_key_that_is_not_a_required_argument_is_refused(server: mcpcxx.Server, key: str) -> None:
    with pytest.raises(ValueError, match=rf"tool 'create_ticket'.*key_argument '{key}'.*required"):

        @server.tool(at_most_once=AtMostOnce(window=TEN_MINUTES, key=key))
        def create_ticket(request_id: str, title: str = "untitled") -> str:
            return title


def test_a_status_check_naming_a_missing_argument_is_refused(server: mcpcxx.Server) -> None:
    check = StatusCheck("deployment_status", ["service", "region"])
    with pytest.raises(ValueError, match=r"tool 'deploy'.*'region'.*no property"):

        @server.tool(at_most_once=AtMostOnce(window=TEN_MINUTES, status_check=check))
        def deploy(service: str) -> str:
            return service


@pytest.mark.parametrize(
    ("once", "match"),
    [
        (AtMostOnce(TEN_MINUTES, status_check="deployment_status"), "StatusCheck"),  # type: ignore[arg-type]
        (AtMostOnce(TEN_MINUTES, status_check=StatusCheck("s", "service")), "argument names"),
        (AtMostOnce(TEN_MINUTES, key=""), "key must be the name of a required argument"),
        (AtMostOnce(TEN_MINUTES, resolver="lookup"), "resolver must be a function"),  # type: ignore[arg-type]
        ({"window": TEN_MINUTES}, "mcpcxx.AtMostOnce"),
    ],
)
def test_malformed_declarations_are_refused_naming_the_tool(
    server: mcpcxx.Server, once: Any, match: str
) -> None:
    with pytest.raises(TypeError, match=rf"tool 'deploy'.*{match}"):
        server.add_tool(lambda service: service, name="deploy", at_most_once=once)


def test_an_async_resolver_on_an_inline_tool_is_refused(server: mcpcxx.Server) -> None:
    async def resolver(prior: PriorCall) -> None:
        return None

    with pytest.raises(ValueError, match=r"tool 'deploy'.*async def resolver"):

        @server.tool(inline_dispatch=True, at_most_once=AtMostOnce(TEN_MINUTES, resolver=resolver))
        def deploy(service: str) -> str:
            return service


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"max_records": 0}, ValueError, "'max_records' must be a positive int"),
        ({"max_result_bytes": True}, ValueError, "'max_result_bytes' must be a positive int"),
        ({"lease": 5}, TypeError, "'lease' must be a positive datetime.timedelta"),
        ({"lease": timedelta(0)}, TypeError, "'lease' must be a positive datetime.timedelta"),
        ({"warn_destructive": "no"}, TypeError, "'warn_destructive' must be True or False"),
        ({"window": TEN_MINUTES}, ValueError, "unknown at_most_once option 'window'"),
        ([("lease", TEN_MINUTES)], TypeError, "at_most_once must be a dict"),
    ],
)
def test_bad_server_options_are_refused(options: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        mcpcxx.Server("bad", at_most_once=options)


def test_the_engine_refuses_unknown_keys_itself() -> None:
    from mcpcxx import _core

    info = {"name": "x", "version": "1"}
    with pytest.raises(TypeError, match="unexpected at_most_once server option 'lease_ms'"):
        _core.Server({"info": info, "at_most_once": {"lease_ms": 5}}, None)
    core = _core.Server({"info": info, "at_most_once": {"lease": 2.5}}, None)
    with pytest.raises(ValueError, match="unexpected at_most_once option 'key'"):
        core.add_tool({"name": "t"}, lambda a, ctx: {"content": []}, at_most_once={"key": "x"})


# ----- the destructive-tool warning ---------------------------------------------------------


def test_a_destructive_tool_without_at_most_once_is_logged_once(
    logged: tuple[mcpcxx.Server, list[str]],
) -> None:
    server, lines = logged

    def drop(table: str) -> str:
        return f"dropped {table}"

    server.add_tool(drop, name="drop_table", annotations={"destructive_hint": True})
    server.remove_tool("drop_table")
    server.add_tool(drop, name="drop_table", annotations={"destructiveHint": True})
    server.add_tool(drop, name="purge", annotations={"destructive_hint": True})
    server.add_tool(
        drop, name="safe_drop", annotations={"destructive_hint": True}, at_most_once=TEN_MINUTES
    )
    server.add_tool(drop, name="not_destructive", annotations={"destructive_hint": False})
    warned = log_events(lines, "destructive_tool_without_at_most_once")
    assert [w["tool"] for w in warned] == ["drop_table", "purge"]
    assert all(w["level"] == "warning" for w in warned)
    assert "timedelta(minutes=10)" in warned[0]["hint"]


def test_warn_destructive_false_silences_the_warning() -> None:
    lines: list[str] = []
    server = mcpcxx.Server(
        "quiet", log_writer=lines.append, at_most_once={"warn_destructive": False}
    )
    try:
        server.add_tool(
            lambda table: table, name="drop_table", annotations={"destructiveHint": True}
        )
    finally:
        server.close()
    assert log_events(lines, "destructive_tool_without_at_most_once") == []


# ----- the fixture server's twins of the C++ fixture's tools --------------------------------


def fixture_server(monkeypatch: pytest.MonkeyPatch, once: bool) -> mcpcxx.Server:
    if once:
        monkeypatch.setenv("MCPCXX_EXAMPLE_ONCE", "1")
    else:
        monkeypatch.delenv("MCPCXX_EXAMPLE_ONCE", raising=False)
    path = SOURCE_DIR / "tests" / "fixtures" / "python" / "fixture_server.py"
    spec = importlib.util.spec_from_file_location("fixture_server_once", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server: mcpcxx.Server = module.build()
    return server


ONCE_TOOLS = ["deploy", "deployment_status", "release_deploys", "create_ticket", "note"]


def test_the_fixture_offers_the_once_tools_only_with_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = fixture_server(monkeypatch, once=False)
    with Client(plain) as c:
        names = [t["name"] for t in result_of(c.list_tools())["tools"]]
    plain.close()
    assert not set(ONCE_TOOLS) & set(names)
    server = fixture_server(monkeypatch, once=True)
    with Client(server) as c:
        tools = {t["name"]: t for t in result_of(c.list_tools())["tools"]}
    server.close()
    assert [n for n in tools if n in ONCE_TOOLS] == ONCE_TOOLS
    assert tools["deploy"] == {
        "name": "deploy",
        "description": "Deploys a version of a service (at most once per service and version "
        "within 10 minutes).",
        "inputSchema": {
            "type": "object",
            "properties": {"service": {"type": "string"}, "version": {"type": "string"}},
            "required": ["service", "version"],
        },
        "annotations": {"destructiveHint": True},
    }
    assert tools["deployment_status"] == {
        "name": "deployment_status",
        "inputSchema": {
            "type": "object",
            "properties": {"service": {"type": "string"}},
            "required": ["service"],
        },
        "annotations": {"readOnlyHint": True},
    }
    assert tools["release_deploys"] == {
        "name": "release_deploys",
        "inputSchema": {"type": "object"},
    }
    assert "description" not in tools["create_ticket"] and "description" not in tools["note"]


def test_the_fixture_once_tools_behave_as_the_cpp_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    server = fixture_server(monkeypatch, once=True)
    try:
        with Client(server, inline=False) as c:

            def call(name: str, **args: str) -> dict[str, Any]:
                return c.call_tool(name, args)

            assert text_of(call("deploy", service="web", version="1")) == (
                "deployed web 1 as deployment 1"
            )
            again = call("deploy", service="web", version="1")
            assert text_of(again) == "deployed web 1 as deployment 1"
            assert replay_of(again) is not None
            frozen = [text_of(call("deploy", service="frozen", version="1")) for _ in range(2)]
            assert frozen == [
                f"deploy failed: service frozen is in a change freeze (attempt {n}). Nothing "
                "was deployed. Deploy another service, or wait for the freeze to end."
                for n in (1, 2)
            ]
            crash = call("deploy", service="crash", version="1")
            assert error_details(crash)["effect"] == "unknown"
            refused = call("deploy", service="crash", version="1")
            assert 'deployment_status({"service":"crash"})' in text_of(refused)
            held = call("deploy", service="hold", version="1")  # answered at its 1 s deadline
            assert error_details(held)["category"] == "timeout"
            during = call("deploy", service="hold", version="1")
            assert error_details(during)["effect"] == "not_applied"  # T11: it still runs
            assert text_of(call("release_deploys")) == "released held deploys"
            deadline = time.monotonic() + 5
            after = during
            while replay_of(after) is None and time.monotonic() < deadline:
                time.sleep(0.05)
                after = call("deploy", service="hold", version="1")
            assert text_of(after) == "deployed hold 1 as deployment 2"
            bulk = call("deploy", service="bulk", version="7")
            assert text_of(bulk) == "deployed bulk 7 as deployment 3 " + "#" * 600
            assert text_of(call("deployment_status", service="web")) == (
                "service web: 1 deployment(s) recorded"
            )
            assert text_of(call("create_ticket", request_id="r1", title="A")) == (
                "created ticket T-1: A"
            )
            assert text_of(call("create_ticket", request_id="r1", title="B")) == (
                "created ticket T-1: A"
            )
            assert text_of(call("create_ticket", request_id="r2", title="B")) == (
                "created ticket T-2: B"
            )
            assert text_of(call("note", text="x")) == "noted x (1)"
            assert text_of(call("note", text="x")) == "noted x (1)"
            time.sleep(1.2)
            assert text_of(call("note", text="x")) == "noted x (2)"
    finally:
        server.close()
