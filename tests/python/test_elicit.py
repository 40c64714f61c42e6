"""ctx.elicit end to end in both eras: a live request on a legacy session, an input_required
round trip on 2026-07-28, the same tool code and the same testing.Client callbacks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import Context, InputRequired
from mcpcxx.testing import LEGACY, MODERN, NO_REPLY, Client, accept, cancel, decline, text_of

Handler = Callable[[dict[str, Any]], Any]


class Deploy(BaseModel):
    environment: Literal["staging", "production"]
    confirm: bool


DEPLOY_SCHEMA = {
    "type": "object",
    "properties": {
        "environment": {"type": "string", "enum": ["staging", "production"]},
        "confirm": {"type": "boolean"},
    },
    "required": ["environment", "confirm"],
}


def register_deploy(server: mcpcxx.Server, kind: str, schema: Any) -> list[int]:
    """A deploy tool asking for confirmation; returns the list counting its runs."""
    runs: list[int] = []

    def report(service: str, answer: mcpcxx.ElicitResult[Any]) -> str:
        if not answer.accepted:
            return f"{service} not deployed: {answer.action}"
        content = answer.content
        if isinstance(content, Deploy):
            return f"{service} -> {content.environment} (model, confirm={content.confirm})"
        assert isinstance(content, dict)
        return f"{service} -> {content['environment']} (dict, confirm={content['confirm']})"

    if kind == "sync":

        @server.tool
        def deploy(ctx: Context, service: str) -> str:
            runs.append(1)
            return report(service, ctx.elicit_sync(f"Deploy {service}?", schema))
    else:

        @server.tool
        async def deploy(ctx: Context, service: str) -> str:  # type: ignore[misc]
            runs.append(1)
            return report(service, await ctx.elicit(f"Deploy {service}?", schema))

    return runs


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("schema", [Deploy, DEPLOY_SCHEMA], ids=["pydantic", "dict"])
def test_accepted_answer_is_typed_in_both_eras(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client], kind: str, schema: Any
) -> None:
    runs = register_deploy(server, kind, schema)
    answers = {"environment": "production", "confirm": True}
    c = asking(elicitation_handler=lambda params: accept(answers))
    response = c.call_tool("deploy", {"service": "api"})
    typed = "model" if schema is Deploy else "dict"
    assert text_of(response) == f"api -> production ({typed}, confirm=True)"
    [question] = c.server_requests
    assert question["method"] == "elicitation/create"
    assert question["params"]["message"] == "Deploy api?"
    requested = question["params"]["requestedSchema"]
    assert requested["properties"]["environment"]["enum"] == ["staging", "production"]
    if era == MODERN:
        # The handler ran twice: once to ask, once with the answer (the documented contract).
        assert len(runs) == 2
        assert any('"input_required"' in f for f in c.frames)
        assert "key" in question
    else:
        assert len(runs) == 1
        assert any('"elicitation/create"' in f and '"id"' in f for f in c.frames)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_declined_and_cancelled(
    server: mcpcxx.Server, asking: Callable[..., Client], action: str
) -> None:
    register_deploy(server, "async", Deploy)
    reply = decline() if action == "decline" else cancel()
    c = asking(elicitation_handler=lambda params: reply)
    assert text_of(c.call_tool("deploy", {"service": "api"})) == f"api not deployed: {action}"


def test_except_exception_does_not_swallow_the_modern_signal(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    swallowed: list[str] = []

    @server.tool
    def careful(ctx: Context) -> str:
        try:
            answer = ctx.elicit_sync("Sure?", {"type": "object", "properties": {}})
        except Exception as e:  # what a tool author writes; must not catch InputRequired
            swallowed.append(type(e).__name__)
            return "swallowed"
        return answer.action

    @server.tool
    async def careful_async(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("Sure?")
        except Exception as e:
            swallowed.append(type(e).__name__)
            return "swallowed"
        return answer.action

    c = asking(elicitation_handler=lambda params: accept({}))
    assert text_of(c.call_tool("careful")) == "accept"
    assert text_of(c.call_tool("careful_async")) == "accept"
    assert swallowed == []


def test_signal_caught_as_base_exception_and_reraised_still_works(
    server: mcpcxx.Server, asking: Callable[..., Client]
) -> None:
    seen: list[str] = []

    @server.tool
    def cleanup(ctx: Context) -> str:
        try:
            return ctx.elicit_sync("Sure?").action
        except BaseException as e:
            seen.append(type(e).__name__)
            raise

    c = asking(elicitation_handler=lambda params: decline())
    assert text_of(c.call_tool("cleanup")) == "decline"
    assert set(seen) <= {InputRequired.__name__}


def test_two_asks_in_one_tool(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    @server.tool
    async def wizard(ctx: Context) -> str:
        name = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"v": {"type": "string"}}}
        )
        size = await ctx.elicit(
            "Size?", {"type": "object", "properties": {"v": {"type": "integer"}}}
        )
        assert name.content is not None and size.content is not None
        return f"{name.content['v']}:{size.content['v']}"

    def handler(params: dict[str, Any]) -> dict[str, Any]:
        return accept({"v": "box"} if params["message"] == "Name?" else {"v": 3})

    c = asking(elicitation_handler=handler)
    assert text_of(c.call_tool("wizard")) == "box:3"
    # Modern: round 1 asks Name?, round 2 (Name? answered) asks Size?; legacy asks both live.
    assert [q["params"]["message"] for q in c.server_requests] == ["Name?", "Size?"]


def test_invalid_content_is_refused_with_a_typed_error(
    server: mcpcxx.Server, asking: Callable[..., Client]
) -> None:
    @server.tool
    def strict(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Deploy?", DEPLOY_SCHEMA)
        except mcpcxx.ClientAnswerInvalidError as e:
            return f"invalid: {e.method}"
        return "accepted"

    c = asking(elicitation_handler=lambda params: accept({"environment": "moon", "confirm": 1}))
    assert text_of(c.call_tool("strict")) == "invalid: elicitation/create"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"nested": {"type": "object", "properties": {}}}},
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "properties": {"r": {"$ref": "#/$defs/x"}}},
    ],
    ids=["nested-object", "not-an-object", "ref"],
)
def test_schema_outside_the_subset_is_a_value_error_and_nothing_is_sent(
    server: mcpcxx.Server, asking: Callable[..., Client], schema: dict[str, Any]
) -> None:
    @server.tool
    def bad(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Fill this", schema)
        except ValueError as e:
            return f"refused: {e}"
        return "sent"

    c = asking(elicitation_handler=lambda params: accept({}))
    assert text_of(c.call_tool("bad")).startswith("refused: ")
    assert c.server_requests == []


def test_unanswered_question_stays_visible_on_2026(
    server: mcpcxx.Server, asking: Callable[..., Client], era: str
) -> None:
    if era != MODERN:
        pytest.skip("a legacy question without an answer is a timeout (test_legacy_timeout)")
    register_deploy(server, "sync", Deploy)
    c = asking(elicitation_handler=lambda params: NO_REPLY)
    result = result_of(c.call_tool("deploy", {"service": "api"}))
    assert result["resultType"] == "input_required"
    [request] = result["inputRequests"].values()
    assert request["method"] == "elicitation/create"
    assert isinstance(result.get("requestState"), str)


def test_legacy_timeout_sends_cancelled_and_raises(server: mcpcxx.Server, era: str) -> None:
    if era != LEGACY:
        pytest.skip("2026-07-28 has no waiting call to time out")
    impatient = mcpcxx.Server("timeouts", workers=2, client_request_timeout=0.2)
    try:

        @impatient.tool
        def deploy(ctx: Context) -> str:
            try:
                ctx.elicit_sync("Deploy?")
            except mcpcxx.ClientRequestTimeoutError as e:
                return f"timed out: {e.method} after {e.timeout:g} s"
            return "answered"

        with Client(impatient, protocol_version=era, elicitation_handler=lambda p: NO_REPLY) as c:
            assert text_of(c.call_tool("deploy")) == "timed out: elicitation/create after 0.2 s"
            [asked] = c.server_requests
            cancelled = [n for n in c.notifications if n["method"] == "notifications/cancelled"]
            assert [n["params"]["requestId"] for n in cancelled] == [asked["id"]]
    finally:
        impatient.close()


def test_client_error_reaches_the_tool(
    server: mcpcxx.Server, asking: Callable[..., Client], era: str
) -> None:
    if era != LEGACY:
        pytest.skip("inputResponses carry results only; a client error is a legacy response")

    @server.tool
    def deploy(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Deploy?")
        except mcpcxx.ClientRequestError as e:
            return f"{e.code} {e.message}"
        return "answered"

    def refuse(params: dict[str, Any]) -> Any:
        raise mcpcxx.ProtocolError(-1, "the user agent refused")

    c = asking(elicitation_handler=refuse)
    assert text_of(c.call_tool("deploy")) == "-1 the user agent refused"


def test_url_elicitation(server: mcpcxx.Server, asking: Callable[..., Client], era: str) -> None:
    if era != LEGACY:
        pytest.skip("URL mode is a 2025-11-25 feature")

    @server.tool
    def connect(ctx: Context) -> str:
        answer = ctx.elicit_url_sync("Sign in to GitHub", "https://example.com/auth", "el-7")
        return f"{answer.action} {answer.content}"

    c = asking(elicitation_handler=lambda params: accept())
    assert text_of(c.call_tool("connect")) == "accept None"
    params = c.server_requests[0]["params"]
    assert (params["mode"], params["url"], params["elicitationId"]) == (
        "url",
        "https://example.com/auth",
        "el-7",
    )


def test_url_elicitation_required_is_minus_32042(server: mcpcxx.Server) -> None:
    @server.tool
    def needs_login(ctx: Context) -> str:
        raise mcpcxx.UrlElicitationRequiredError(
            [{"elicitationId": "el-1", "url": "https://example.com/auth", "message": "Sign in"}]
        )

    caps: dict[str, Any] = {"elicitation": {"url": {}}}
    with Client(server, protocol_version=LEGACY, capabilities=caps) as c:
        response = c.call_tool("needs_login")
    if "result" in response:
        pytest.skip("-32042 for url_elicitation_required waits for live12's row")
    error = error_of(response)
    assert error["code"] == -32042
    assert error["data"]["elicitations"][0]["elicitationId"] == "el-1"
    assert error["data"]["elicitations"][0]["mode"] == "url"


def test_callbacks_run_concurrently_with_other_requests(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    register_deploy(server, "async", Deploy)
    gate = threading.Event()

    def slow(params: dict[str, Any]) -> dict[str, Any]:
        gate.wait(5)
        return accept({"environment": "staging", "confirm": False})

    c = asking(elicitation_handler=slow, inline=False)
    rid = c.call_tool_nowait("deploy", {"service": "web"})
    gate.set()
    if era == LEGACY:
        assert text_of(c.wait(rid)) == "web -> staging (model, confirm=False)"
    else:  # call_tool_nowait does not retry: the raw input_required result comes back
        assert result_of(c.wait(rid))["resultType"] == "input_required"


def test_ask_all_puts_keyed_questions_in_one_round(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    runs: list[int] = []

    @server.tool
    async def both(ctx: Context) -> str:
        runs.append(1)
        name, roots = await ctx.ask_all(
            [
                {
                    "method": "elicitation/create",
                    "key": "who",
                    "params": {
                        "message": "Name?",
                        "requestedSchema": {"type": "object", "properties": {}},
                    },
                },
                {"method": "roots/list", "key": "where", "params": {}},
            ]
        )
        return f"{name['action']} {roots['roots'][0]['uri']}"

    c = asking(elicitation_handler=lambda params: decline(), roots=["file:///r"])
    assert text_of(c.call_tool("both")) == "decline file:///r"
    # inputRequests is a JSON object: its keys have no order
    assert sorted(q["method"] for q in c.server_requests) == ["elicitation/create", "roots/list"]
    if era == MODERN:
        assert sorted(q["key"] for q in c.server_requests) == ["where", "who"]
        assert len(runs) == 2  # one round asked both questions


def test_ask_all_refuses_malformed_requests(server: mcpcxx.Server) -> None:
    @server.tool
    def bad(ctx: Context) -> str:
        refused = []
        for requests in ([], [{"params": {}}], [{"method": "roots/list", "key": 3}], "x"):
            try:
                ctx.ask_all_sync(requests)  # type: ignore[arg-type]
            except (TypeError, ValueError) as e:
                refused.append(type(e).__name__)
        return ",".join(refused)

    with Client(server, roots=["file:///r"]) as c:
        assert text_of(c.call_tool("bad")) == "ValueError,ValueError,ValueError,TypeError"
        assert c.server_requests == []


def test_cancelling_the_call_ends_a_legacy_wait(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    if era != LEGACY:
        pytest.skip("2026-07-28 has no waiting call to cancel")
    seen: list[str] = []
    asked = threading.Event()

    @server.tool
    def waits(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Sure?")
        except mcpcxx.RequestCancelledError:
            seen.append("cancelled")
            raise
        return "answered"

    def never(params: dict[str, Any]) -> Any:
        asked.set()
        return NO_REPLY

    c = asking(elicitation_handler=never, inline=False)
    rid = c.call_tool_nowait("waits")
    assert asked.wait(5)
    c.cancel(rid)
    c.wait_idle()
    assert seen == ["cancelled"]
    assert not c.has_response(rid)  # a cancelled request gets no response
