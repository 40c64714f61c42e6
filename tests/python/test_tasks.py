"""Tasks from the Python API: @server.tool(task=...), both eras, cancellation, questions."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpcxx
from mcpcxx import Context, ProtocolError, ToolError
from mcpcxx.testing import LEGACY, MODERN, Client

EXT = "io.modelcontextprotocol/tasks"
WITH_TASKS: dict[str, Any] = {"extensions": {EXT: {}}, "elicitation": {}}


@pytest.fixture
def tasks_server() -> Iterator[mcpcxx.Server]:
    srv = mcpcxx.Server("tasks", "1", workers=2, tasks={"poll_interval_ms": 50})
    release = threading.Event()
    began = threading.Event()

    @srv.tool(task="optional")
    def quick(x: str = "-") -> str:
        """Returns x."""
        return f"done: {x}"

    @srv.tool(task="optional")
    def until_cancelled(ctx: Context) -> str:
        """Runs until the task is cancelled."""
        began.set()
        while not ctx.cancelled:
            time.sleep(0.01)
        release.set()
        return "stopped"

    @srv.tool(task="required")
    def only_task() -> str:
        """Runs only as a task."""
        return "ran as a task"

    @srv.tool
    def plain() -> str:
        """Never a task."""
        return "plain"

    @srv.tool(task="optional")
    def fails() -> str:
        """Fails as a tool."""
        raise ToolError("fails failed: always. Do not retry.")

    @srv.tool(task="optional")
    def breaks() -> str:
        """Raises a protocol error."""
        raise ProtocolError(-31002, "breaks: a protocol error")

    @srv.tool(task="optional")
    def asks(ctx: Context) -> str:
        """Asks one question."""
        [a] = ctx.ask_all_sync(
            [
                {
                    "method": "elicitation/create",
                    "key": "ok",
                    "params": {
                        "message": "Go?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"go": {"type": "boolean"}},
                        },
                    },
                }
            ]
        )
        return f"answer: {a.get('action')}"

    @srv.tool(task="required", task_start="handler")
    def starts_itself(ctx: Context) -> str:
        """Becomes a task when it says so."""
        started = ctx.start_task()
        return f"started={started}"

    srv.release = release  # type: ignore[attr-defined]
    srv.began = began  # type: ignore[attr-defined]
    yield srv
    srv.close()


def poll(c: Client, task_id: str, until: tuple[str, ...]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        r = c.request("tasks/get", {"taskId": task_id})
        status = r["result"]["status"] if "result" in r else None
        if status in until:
            return dict(r["result"])
        time.sleep(0.02)
    raise AssertionError(f"task {task_id} never reached {until}")


def modern(server: mcpcxx.Server, caps: dict[str, Any] | None = None) -> Client:
    return Client(server, protocol_version=MODERN, capabilities=caps or WITH_TASKS)


def legacy(server: mcpcxx.Server) -> Client:
    return Client(server, protocol_version=LEGACY, capabilities={"elicitation": {}})


# ----- registration -----------------------------------------------------------------------------


def test_task_option_is_checked() -> None:
    srv = mcpcxx.Server("bad", "1")
    with pytest.raises(ValueError, match="task must be 'forbidden', 'optional' or 'required'"):
        srv.tool(task="sometimes")(lambda: "x")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="task_start must be 'call' or 'handler'"):
        srv.tool(task="optional", task_start="later")(lambda: "x")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="task_start='handler' needs task="):
        srv.tool(task_start="handler")(lambda: "x")
    with pytest.raises(ValueError, match="unknown task option 'ttl'"):
        mcpcxx.Server("bad", "1", tasks={"ttl": 5})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a positive int"):
        mcpcxx.Server("bad", "1", tasks={"max_tasks": 0})
    srv.close()


def test_advertised_per_era(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as c:
        assert c.initialize_result is not None
        caps = c.initialize_result["result"]["capabilities"]
        assert caps["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        tools = {t["name"]: t for t in c.list_tools()["result"]["tools"]}
        assert tools["quick"]["execution"] == {"taskSupport": "optional"}
        assert tools["only_task"]["execution"] == {"taskSupport": "required"}
        assert "execution" not in tools["plain"]
    with modern(tasks_server) as c:
        caps = c.discover()["result"]["capabilities"]
        assert caps["extensions"][EXT] == {}
        assert "tasks" not in caps
        assert all("execution" not in t for t in c.list_tools()["result"]["tools"])


# ----- 2026-07-28 ------------------------------------------------------------------------------


def test_modern_task_completes_with_the_result(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        created = c.call_tool("quick", {"x": "a"})["result"]
        assert created["resultType"] == "task"
        assert created["ttlMs"] == 600000 and created["pollIntervalMs"] == 50
        assert "task" not in created and "requestState" not in created
        done = poll(c, created["taskId"], ("completed",))
        assert done["result"]["content"] == [{"type": "text", "text": "done: a"}]
        assert done["resultType"] == "complete"


def test_modern_tool_error_completes_and_protocol_error_fails(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        tid = c.call_tool("fails")["result"]["taskId"]
        done = poll(c, tid, ("completed", "failed"))
        assert done["status"] == "completed" and done["result"]["isError"] is True
        tid = c.call_tool("breaks")["result"]["taskId"]
        failed = poll(c, tid, ("completed", "failed"))
        assert failed["status"] == "failed" and "result" not in failed
        assert failed["error"] == {"code": -31002, "message": "breaks: a protocol error"}


def test_modern_cancel_reaches_the_handler(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        tid = c.call_tool("until_cancelled")["result"]["taskId"]
        assert c.request("tasks/get", {"taskId": tid})["result"]["status"] == "working"
        # Cancelled while it runs (a task cancelled before a task thread took it never starts).
        assert tasks_server.began.wait(5)  # type: ignore[attr-defined]
        ack = c.request("tasks/cancel", {"taskId": tid})["result"]
        assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
        assert tasks_server.release.wait(5)  # type: ignore[attr-defined]
        assert poll(c, tid, ("cancelled",))["status"] == "cancelled"
        again = c.request("tasks/cancel", {"taskId": tid})
        assert again["result"]["resultType"] == "complete"


def test_modern_questions_park_the_task_until_update(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        tid = c.call_tool("asks")["result"]["taskId"]
        parked = poll(c, tid, ("input_required",))
        assert parked["inputRequests"]["ok"]["method"] == "elicitation/create"
        ack = c.request(
            "tasks/update",
            {"taskId": tid, "inputResponses": {"ok": {"action": "accept", "content": {}}}},
        )
        assert ack["result"]["resultType"] == "complete"
        done = poll(c, tid, ("completed",))
        assert done["result"]["content"][0]["text"] == "answer: accept"


def test_modern_without_the_extension(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server, {"elicitation": {}}) as c:
        sync = c.call_tool("quick", {"x": "b"})["result"]
        assert sync["resultType"] == "complete" and sync["content"][0]["text"] == "done: b"
        refused = c.call_tool("only_task")["error"]
        assert refused["code"] == -32021
        assert refused["data"]["requiredCapabilities"] == {"extensions": {EXT: {}}}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("tasks/get", {"taskId": "x"}),
            ("tasks/cancel", {"taskId": "x"}),
            ("tasks/update", {"taskId": "x", "inputResponses": {}}),
        ]
        for method, params in calls:
            assert c.request(method, params)["error"]["code"] == -32021, method


def test_modern_bad_paths(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        for method in ("tasks/result", "tasks/list"):
            assert c.request(method, {"taskId": "x"})["error"]["code"] == -32601
        missing = c.request("tasks/get", {"taskId": "nope"})["error"]
        assert missing["code"] == -32602 and "nope" in missing["message"]
        assert c.request("tasks/get", {})["error"]["code"] == -32602
        bad = c.request("tasks/update", {"taskId": "x", "inputResponses": []})["error"]
        assert bad["code"] == -32602 and "inputResponses" in bad["message"]


def test_handler_starts_its_own_task(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server) as c:
        created = c.call_tool("starts_itself")["result"]
        assert created["resultType"] == "task"
        done = poll(c, created["taskId"], ("completed",))
        assert done["result"]["content"][0]["text"] == "started=True"


# ----- 2025-11-25 ------------------------------------------------------------------------------


def test_legacy_task_result_is_the_call_result(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as c:
        created = c.request(
            "tools/call", {"name": "quick", "arguments": {"x": "c"}, "task": {"ttl": 5000}}
        )["result"]
        task = created["task"]
        assert task["status"] == "working" and task["ttl"] == 5000 and task["pollInterval"] == 50
        result = c.request("tasks/result", {"taskId": task["taskId"]})["result"]
        assert result["content"] == [{"type": "text", "text": "done: c"}]
        assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
        got = c.request("tasks/get", {"taskId": task["taskId"]})["result"]
        assert got["status"] == "completed"
        refused = c.request("tasks/cancel", {"taskId": task["taskId"]})["error"]
        assert refused["code"] == -32602 and "already completed" in refused["message"]


def test_legacy_failed_task_result_is_the_error(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as c:
        tid = c.request("tools/call", {"name": "breaks", "task": {}})["result"]["task"]["taskId"]
        error = c.request("tasks/result", {"taskId": tid})["error"]
        assert error == {"code": -31002, "message": "breaks: a protocol error"}


def test_legacy_cancel_and_list(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as c:
        tid = c.request("tools/call", {"name": "until_cancelled", "task": {}})["result"]["task"][
            "taskId"
        ]
        cancelled = c.request("tasks/cancel", {"taskId": tid})["result"]
        assert cancelled["status"] == "cancelled" and cancelled["taskId"] == tid
        error = c.request("tasks/result", {"taskId": tid})["error"]
        assert error["code"] == -32602 and "was cancelled" in error["message"]
        listed = c.request("tasks/list")["result"]["tasks"]
        assert [t["taskId"] for t in listed] == [tid]
        assert c.request("tasks/list", {"cursor": "bogus"})["error"]["code"] == -32602


def test_legacy_task_support_rules(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as c:
        forbidden = c.request("tools/call", {"name": "plain", "task": {}})["error"]
        assert forbidden["code"] == -32601 and "forbidden" in forbidden["message"]
        required = c.request("tools/call", {"name": "only_task"})["error"]
        assert required["code"] == -32601 and "params.task" in required["message"]
        bad = c.request("tools/call", {"name": "quick", "task": "soon"})["error"]
        assert bad["code"] == -32602
        assert c.request("tools/call", {"name": "quick"})["result"]["content"][0]["text"] == (
            "done: -"
        )


def test_tasks_are_private_to_their_session(tasks_server: mcpcxx.Server) -> None:
    with legacy(tasks_server) as a, legacy(tasks_server) as b:
        tid = a.request("tools/call", {"name": "quick", "task": {}})["result"]["task"]["taskId"]
        assert b.request("tasks/get", {"taskId": tid})["error"]["code"] == -32602
        assert a.request("tasks/result", {"taskId": tid})["result"]["content"]


def test_legacy_task_progress_and_questions_carry_the_related_task() -> None:
    srv = mcpcxx.Server("tasks-live", "1", workers=2)

    @srv.tool(task="optional")
    def reports(ctx: Context) -> str:
        """Reports progress, then asks."""
        ctx.report_progress(1, 2, message="half way")
        answer = ctx.elicit_sync("Go on?", {"type": "object", "properties": {}})
        return f"answer: {answer.action}"

    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {}}

    with Client(srv, protocol_version=LEGACY, elicitation_handler=answer) as c:
        created = c.request(
            "tools/call",
            {"name": "reports", "task": {}, "_meta": {"progressToken": "p1"}},
        )["result"]["task"]
        tid = created["taskId"]
        result = c.request("tasks/result", {"taskId": tid})["result"]
        assert result["content"][0]["text"] == "answer: accept"
        related = {"taskId": tid}
        progress = [n for n in c.notifications if n["method"] == "notifications/progress"]
        assert progress and progress[0]["params"]["_meta"][
            "io.modelcontextprotocol/related-task"
        ] == (related)
        assert progress[0]["params"]["progressToken"] == "p1"
        assert asked and asked[0]["_meta"]["io.modelcontextprotocol/related-task"] == related
        done = c.request("tasks/get", {"taskId": tid})["result"]
        assert done["status"] == "completed" and done["statusMessage"] == "half way"
    srv.close()


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_progress_without_a_token_is_the_status_message_pollers_see(era: str) -> None:
    """Issue 29: tasks/get shows each report_progress message, no progressToken needed."""
    srv = mcpcxx.Server("tasks-progress", "1", workers=2)
    seen_all = threading.Event()

    @srv.tool(task="optional")
    def segments(ctx: Context) -> str:
        """Reports twelve segments, then waits for the poller."""
        for i in range(12):
            ctx.report_progress(i + 1, 12, f"segment {i + 1}")
        seen_all.wait(10)
        return "done"

    client = modern(srv) if era == MODERN else legacy(srv)
    with client as c:
        params: dict[str, Any] = {"name": "segments"}
        if era == LEGACY:
            params["task"] = {}
        created = c.request("tools/call", params)["result"]
        tid = created["taskId"] if era == MODERN else created["task"]["taskId"]
        deadline = time.monotonic() + 10
        message = None
        while message != "segment 12" and time.monotonic() < deadline:
            message = c.request("tasks/get", {"taskId": tid})["result"].get("statusMessage")
            time.sleep(0.01)
        assert message == "segment 12"
        seen_all.set()
        assert poll(c, tid, ("completed",))["statusMessage"] == "segment 12"
        assert not [n for n in c.notifications if n["method"] == "notifications/progress"]
    srv.close()


def test_max_tasks_bounds_the_store() -> None:
    srv = mcpcxx.Server("tasks-full", "1", tasks={"max_tasks": 1})
    stop = threading.Event()

    @srv.tool(task="optional")
    def hold(ctx: Context) -> str:
        """Runs until cancelled."""
        while not ctx.cancelled and not stop.is_set():
            time.sleep(0.01)
        return "held"

    with modern(srv) as c:
        tid = c.call_tool("hold")["result"]["taskId"]
        full = c.call_tool("hold")["error"]
        assert full["code"] == -32603 and "task store is full" in full["message"]
        c.request("tasks/cancel", {"taskId": tid})
    stop.set()
    srv.close()


def test_start_task_is_false_where_no_task_can_start(tasks_server: mcpcxx.Server) -> None:
    with modern(tasks_server, {"elicitation": {}}) as c:
        assert c.call_tool("starts_itself")["error"]["code"] == -32021  # required, no extension
    with legacy(tasks_server) as c:
        created = c.request("tools/call", {"name": "starts_itself", "task": {}})["result"]
        result = c.request("tasks/result", {"taskId": created["task"]["taskId"]})["result"]
        assert result["content"][0]["text"] == "started=False"  # legacy tasks start at the call
