"""The Python side of asking the client, without a client answering: building the questions,
typing the answers, the exception classes, and what is refused before anything is sent."""

from __future__ import annotations

import asyncio
import enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import Context, ElicitResult, InputRequired
from mcpcxx._protocol.asking import (
    elicit_result,
    requested_schema,
    roots,
    sampling_params,
    sampling_result,
)
from mcpcxx.testing import LEGACY, MODERN, Client, text_of


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Order(BaseModel):
    quantity: int
    color: Color
    size: Literal["s", "m", "l"] = "m"
    note: str | None = None
    shade: Color | None = None


# ----- building the question -------------------------------------------------------------------


def test_pydantic_schema_is_flat_with_enums_inlined() -> None:
    schema = requested_schema(Order)
    assert "$defs" not in schema
    assert schema["type"] == "object"
    assert schema["required"] == ["quantity", "color"]
    color = schema["properties"]["color"]
    assert "$ref" not in color and color["enum"] == ["red", "blue"]
    assert schema["properties"]["size"]["enum"] == ["s", "m", "l"]
    # `X | None` is an optional X: no anyOf (outside the subset), no null default
    assert schema["properties"]["note"] == {"type": "string", "title": "Note"}
    shade = schema["properties"]["shade"]
    assert shade["enum"] == ["red", "blue"] and "anyOf" not in shade and "default" not in shade


def test_dict_schema_passes_unchanged_and_none_is_a_confirmation() -> None:
    mine = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    assert requested_schema(mine) == mine
    assert requested_schema(None) == {"type": "object", "properties": {}}


@pytest.mark.parametrize("bad", [str, 3, ["a"], Order(quantity=1, color=Color.RED)])
def test_schema_of_another_kind_is_refused(bad: object) -> None:
    with pytest.raises(TypeError, match="pydantic model class or a JSON-schema dict"):
        requested_schema(bad)


def test_sampling_params_accept_plain_strings() -> None:
    params = sampling_params(
        ["hello", {"role": "assistant", "content": {"type": "text", "text": "hi"}}],
        max_tokens=64,
        system_prompt="be brief",
        temperature=0.2,
        model_preferences=["claude", "gpt"],
        include_context="none",
    )
    assert params["messages"][0] == {"role": "user", "content": {"type": "text", "text": "hello"}}
    assert params["messages"][1]["role"] == "assistant"
    assert params["maxTokens"] == 64
    assert params["systemPrompt"] == "be brief"
    assert params["temperature"] == 0.2
    assert params["modelPreferences"] == {"hints": [{"name": "claude"}, {"name": "gpt"}]}
    assert params["includeContext"] == "none"
    assert "tools" not in params and "stopSequences" not in params
    assert sampling_params("one", max_tokens=1)["messages"][0]["content"]["text"] == "one"


@pytest.mark.parametrize(
    ("messages", "max_tokens", "error"),
    [
        ([], 10, "at least one message"),
        ([{"text": "no role"}], 10, "SamplingMessage dict"),
        ([3], 10, "SamplingMessage dict"),
        ("hi", 0, "max_tokens must be a positive int"),
        ("hi", True, "max_tokens must be a positive int"),
    ],
)
def test_sampling_params_refuse_bad_input(messages: Any, max_tokens: Any, error: str) -> None:
    with pytest.raises((TypeError, ValueError), match=error):
        sampling_params(messages, max_tokens=max_tokens)


# ----- typing the answer -----------------------------------------------------------------------


def test_accepted_content_is_parsed_into_the_model() -> None:
    raw = {"action": "accept", "content": {"quantity": 2, "color": "blue"}}
    result = elicit_result(raw, Order)
    assert result.accepted
    assert result.content == Order(quantity=2, color=Color.BLUE, size="m", note=None)
    assert elicit_result(raw, {"type": "object"}).content == raw["content"]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_declined_or_cancelled_has_no_content(action: str) -> None:
    result = elicit_result({"action": action, "content": {"x": 1}}, Order)
    assert result == ElicitResult(action)  # type: ignore[arg-type]
    assert not result.accepted


def test_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="action 'maybe'"):
        elicit_result({"action": "maybe"}, None)


def test_sampling_result_and_roots_are_typed() -> None:
    raw = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    result = sampling_result(raw)
    assert (result.role, result.text, result.model, result.stop_reason) == (
        "assistant",
        "hi",
        "m",
        None,
    )
    multi = sampling_result({**raw, "content": [{"type": "text", "text": "a"}, {"type": "x"}]})
    assert multi.text == "a"
    listed = roots([{"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}])
    assert [(r.uri, r.name) for r in listed] == [("file:///a", "a"), ("file:///b", None)]


# ----- exceptions ------------------------------------------------------------------------------


def test_input_required_cannot_be_swallowed_by_except_exception() -> None:
    assert issubclass(InputRequired, BaseException)
    assert not issubclass(InputRequired, Exception)
    for cls in (
        mcpcxx.ClientCapabilityError,
        mcpcxx.ClientRequestTimeoutError,
        mcpcxx.ClientRequestError,
        mcpcxx.ClientAnswerInvalidError,
        mcpcxx.UrlElicitationRequiredError,
    ):
        assert issubclass(cls, mcpcxx.McpcxxError)
    assert issubclass(mcpcxx.ClientCapabilityError, mcpcxx.MissingClientCapabilityError)


def test_capability_error_names_the_nested_capability() -> None:
    e = mcpcxx.ClientCapabilityError("elicitation/create", "elicitation.url")
    assert e.required == {"elicitation": {"url": {}}}
    assert "elicitation.url" in str(e) and "nothing was sent" in str(e)


@pytest.mark.parametrize(
    "bad",
    [[], "x", [{"url": "https://x", "message": "m"}], ["not a dict"]],
)
def test_url_elicitation_required_checks_its_elicitations(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        mcpcxx.UrlElicitationRequiredError(bad)


# ----- refused before anything is sent ---------------------------------------------------------


def test_ask_without_the_capability_raises_a_typed_error_and_sends_nothing(
    server: mcpcxx.Server, era: str
) -> None:
    @server.tool
    def confirm(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Proceed?")
        except mcpcxx.ClientCapabilityError as e:
            return f"{e.method} needs {e.capability}"
        return "asked"

    @server.tool
    async def sample(ctx: Context) -> str:
        try:
            await ctx.sample("hi")
        except mcpcxx.ClientCapabilityError as e:
            return f"{e.method} needs {e.capability}"
        return "asked"

    @server.tool
    async def roots_(ctx: Context) -> str:
        try:
            await ctx.list_roots()
        except mcpcxx.ClientCapabilityError as e:
            return f"{e.method} needs {e.capability}"
        return "asked"

    with Client(server, protocol_version=era) as c:
        assert text_of(c.call_tool("confirm")) == "elicitation/create needs elicitation"
        assert text_of(c.call_tool("sample")) == "sampling/createMessage needs sampling"
        assert text_of(c.call_tool("roots_")) == "roots/list needs roots"
        assert c.server_requests == []
        assert all("input_required" not in f for f in c.frames)


def test_uncaught_capability_error_is_the_missing_capability_error(
    server: mcpcxx.Server, era: str
) -> None:
    @server.tool
    def confirm(ctx: Context) -> str:
        return ctx.elicit_sync("Proceed?").action

    @server.tool
    def reraised(ctx: Context) -> str:
        try:
            return ctx.elicit_sync("Proceed?").action
        except mcpcxx.McpcxxError:
            raise

    with Client(server, protocol_version=era) as c:
        for tool in ("confirm", "reraised"):
            error = error_of(c.call_tool(tool))
            assert error["code"] == (-32021 if era == MODERN else -32600)
            assert error["data"]["requiredCapabilities"] == {"elicitation": {}}


def test_url_elicitation_needs_its_own_capability(server: mcpcxx.Server) -> None:
    @server.tool
    def link(ctx: Context) -> str:
        try:
            ctx.elicit_url_sync("Sign in", "https://example.com/auth", "el-1")
        except mcpcxx.ClientCapabilityError as e:
            return e.capability
        return "asked"

    caps: dict[str, Any] = {"elicitation": {"form": {}}}
    with Client(server, protocol_version=LEGACY, capabilities=caps) as c:
        assert text_of(c.call_tool("link")) == "elicitation.url"
    with Client(server, protocol_version="2025-06-18", capabilities={"elicitation": {}}) as c:
        assert text_of(c.call_tool("link")) == "elicitation.url"


def test_sync_ask_inside_an_async_tool_is_refused(server: mcpcxx.Server) -> None:
    @server.tool
    async def blocking(ctx: Context) -> str:
        try:
            ctx.elicit_sync("Proceed?")
        except RuntimeError as e:
            return str(e)
        return "blocked the loop"

    with Client(server) as c:
        assert "await ctx.elicit(...)" in text_of(c.call_tool("blocking"))


def test_bad_arguments_are_refused_at_the_call_site(server: mcpcxx.Server) -> None:
    @server.tool
    async def bad(ctx: Context, which: str) -> str:
        try:
            if which == "message":
                await ctx.elicit("", None)
            elif which == "url":
                await ctx.elicit_url("Sign in", "", "id")
            else:
                await ctx.sample([], max_tokens=5)
        except (TypeError, ValueError) as e:
            return type(e).__name__
        return "sent"

    with Client(server, capabilities={"elicitation": {"url": {}}, "sampling": {}}) as c:
        for which, expected in (
            ("message", "TypeError"),
            ("url", "TypeError"),
            ("s", "ValueError"),
        ):
            assert text_of(c.call_tool("bad", {"which": which})) == expected
        assert c.server_requests == []


def test_a_context_used_after_its_request_finished_refuses_to_ask(server: mcpcxx.Server) -> None:
    kept: list[Context] = []

    @server.tool
    def keep(ctx: Context) -> str:
        kept.append(ctx)
        return "ok"

    with Client(server, elicitation_handler=lambda p: {"action": "decline"}) as c:
        result_of(c.call_tool("keep"))
    with pytest.raises(RuntimeError, match="already finished"):
        kept[0].elicit_sync("late?")
    with pytest.raises(RuntimeError, match="already finished"):
        asyncio.run(kept[0].list_roots())
