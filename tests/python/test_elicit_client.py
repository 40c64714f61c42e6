"""testing.Client answering the server's questions, against a scripted engine session: a legacy
server request answered on another thread (even while an inline call blocks the sender), and a
2026-07-28 input_required result answered by a retry with inputResponses and requestState."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcpcxx.testing import LEGACY, MODERN, NO_REPLY, Client, accept, decline, sampled

Sink = Callable[[str, str], object]
QUESTION = {"method": "elicitation/create", "params": {"message": "Proceed?"}}


class ScriptedSession:
    """Plays the engine: tools/call "ask" asks QUESTION, then answers with what it got back."""

    def __init__(self, sink: Sink, inline: bool) -> None:
        self.sink = sink
        self.inline = inline
        self.received: list[dict[str, Any]] = []
        self.answers: dict[Any, dict[str, Any]] = {}
        self.answered = threading.Condition()

    # the part of _core.Session the Client uses
    def receive(self, frame: str | bytes) -> None:
        message = json.loads(frame)
        self.received.append(message)
        if "method" not in message:  # the client's response to our request
            with self.answered:
                self.answers[message["id"]] = message
                self.answered.notify_all()
            return
        if message["method"] == "initialize":
            self.reply(message["id"], {"protocolVersion": LEGACY, "capabilities": {}})
        elif message["method"] == "tools/call":
            if self.inline:
                self.call(message)  # like inline dispatch: the sender's thread runs the tool
            else:
                threading.Thread(target=self.call, args=(message,)).start()

    def shutdown(self, grace_seconds: float = 5.0) -> bool:
        return True

    def wait_idle(self) -> None:
        pass

    @property
    def in_flight(self) -> int:
        return 0

    # the scripted tool
    def reply(self, request_id: Any, result: dict[str, Any]) -> None:
        self.sink(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}), "response")

    def call(self, message: dict[str, Any]) -> None:
        params = message["params"]
        if "_meta" in params and "io.modelcontextprotocol/protocolVersion" in params["_meta"]:
            self.call_modern(message["id"], params)
        else:
            self.call_legacy(message["id"])

    def call_legacy(self, request_id: Any) -> None:
        question = {"jsonrpc": "2.0", "id": "srv-1", **QUESTION}
        self.sink(json.dumps(question), "request")
        with self.answered:
            got = self.answered.wait_for(lambda: "srv-1" in self.answers, timeout=0.3)
        answer = self.answers.get("srv-1") if got else None
        self.reply(request_id, {"content": [], "structuredContent": {"answer": answer}})

    def call_modern(self, request_id: Any, params: dict[str, Any]) -> None:
        responses = params.get("inputResponses")
        if responses is None or "confirm" not in responses:
            self.reply(
                request_id,
                {
                    "resultType": "input_required",
                    "inputRequests": {"confirm": QUESTION},
                    "requestState": f"state-{request_id}",
                },
            )
            return
        seen = {"answer": responses["confirm"], "state": params.get("requestState")}
        self.reply(request_id, {"resultType": "complete", "content": [], "structuredContent": seen})


class NoLifespan:
    """A Server without a lifespan: acquire and release do nothing."""

    def acquire(self) -> None:
        pass

    def release(self) -> None:
        pass


class ScriptedServer:
    """Stands in for mcpcxx.Server: the Client uses `runtime.core.open_session` and
    `runtime.lifespan` only."""

    def __init__(self) -> None:
        self.sessions: list[ScriptedSession] = []
        self.runtime = self
        self.core = self
        self.lifespan = NoLifespan()

    def open_session(self, sink: Sink, inline: bool = True) -> ScriptedSession:
        session = ScriptedSession(sink, inline)
        self.sessions.append(session)
        return session


def client(era: str, **kw: Any) -> Client:
    return Client(ScriptedServer(), protocol_version=era, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "pool"])
def test_legacy_request_is_answered_on_another_thread(inline: bool) -> None:
    threads: list[str] = []

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        assert params == QUESTION["params"]
        return accept({"ok": True})

    c = client(LEGACY, elicitation_handler=handler, inline=inline)
    answer = c.call_tool("ask")["result"]["structuredContent"]["answer"]
    assert answer == {
        "jsonrpc": "2.0",
        "id": "srv-1",
        "result": {"action": "accept", "content": {"ok": True}},
    }
    assert threads == ["mcpcxx-client-answer"]
    assert c.server_requests == [{**QUESTION, "id": "srv-1"}]
    assert any('"srv-1"' in f and "elicitation/create" in f for f in c.frames)
    assert c.notifications == []  # a server request is not a notification


def test_legacy_request_without_a_handler_gets_method_not_found() -> None:
    c = client(LEGACY)
    answer = c.call_tool("ask")["result"]["structuredContent"]["answer"]
    assert answer["error"]["code"] == -32601


def test_legacy_failing_handler_answers_an_internal_error() -> None:
    def broken(params: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("boom")

    c = client(LEGACY, elicitation_handler=broken)
    answer = c.call_tool("ask")["result"]["structuredContent"]["answer"]
    assert answer["error"]["code"] == -32603 and "KeyError" in answer["error"]["message"]


def test_legacy_no_reply_leaves_the_question_open() -> None:
    c = client(LEGACY, elicitation_handler=lambda params: NO_REPLY)
    assert c.call_tool("ask")["result"]["structuredContent"]["answer"] is None


def test_modern_input_required_is_answered_and_retried() -> None:
    c = client(MODERN, elicitation_handler=lambda params: decline())
    response = c.call_tool("ask", {"x": 1}, progress_token="p")
    seen = response["result"]["structuredContent"]
    assert seen == {"answer": {"action": "decline"}, "state": "state-1"}
    [first, retry] = [m for m in c._session.received if m.get("method") == "tools/call"]  # type: ignore[attr-defined]
    assert retry["id"] != first["id"]
    assert retry["params"]["arguments"] == {"x": 1}
    assert retry["params"]["_meta"]["progressToken"] == "p"
    assert retry["params"]["inputResponses"] == {"confirm": {"action": "decline"}}
    assert c.server_requests == [{**QUESTION, "key": "confirm"}]
    assert sum('"input_required"' in f for f in c.frames) == 1


def test_modern_without_an_answer_returns_the_raw_input_required() -> None:
    for kw in ({}, {"elicitation_handler": lambda params: NO_REPLY}):
        c = client(MODERN, **kw)
        result = c.call_tool("ask")["result"]
        assert result["resultType"] == "input_required"
        assert result["inputRequests"] == {"confirm": QUESTION}


def test_capabilities_follow_the_handlers_unless_given() -> None:
    c = client(
        MODERN, elicitation_handler=lambda p: decline(), sampling_handler=lambda p: "x", roots=[]
    )
    assert set(c.capabilities) == {"elicitation", "sampling", "roots"}
    assert (
        client(MODERN, capabilities={}, elicitation_handler=lambda p: decline()).capabilities == {}
    )
    assert client(MODERN).capabilities == {}


def test_sampling_and_roots_answers() -> None:
    from mcpcxx.testing._answers import answer

    c = client(MODERN, sampling_handler=lambda p: "hi", roots=lambda: ["file:///a"])
    assert answer(c, "sampling/createMessage", {}) == sampled("hi")
    assert answer(c, "roots/list", {}) == {"roots": [{"uri": "file:///a"}]}
    assert answer(c, "ping", {}) == {}
