"""ctx.sample and ctx.list_roots end to end in both eras, answered by testing.Client callbacks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import mcpcxx
from conftest import result_of
from mcpcxx import Context
from mcpcxx.testing import MODERN, Client, sampled, text_of


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_sampling_with_a_plain_string(
    server: mcpcxx.Server, asking: Callable[..., Client], kind: str
) -> None:
    if kind == "sync":

        @server.tool
        def summarize(ctx: Context, text: str) -> str:
            reply = ctx.sample_sync(f"Summarize: {text}", max_tokens=40, system_prompt="Be brief")
            return f"{reply.model}: {reply.text}"
    else:

        @server.tool
        async def summarize(ctx: Context, text: str) -> str:  # type: ignore[misc]
            reply = await ctx.sample(f"Summarize: {text}", max_tokens=40, system_prompt="Be brief")
            return f"{reply.model}: {reply.text}"

    def model(params: dict[str, Any]) -> str:
        asked: str = params["messages"][0]["content"]["text"]
        return "short: " + asked.removeprefix("Summarize: ")

    c = asking(sampling_handler=model)
    assert text_of(c.call_tool("summarize", {"text": "a long story"})) == (
        "mcpcxx-testing-model: short: a long story"
    )
    [question] = c.server_requests
    assert question["method"] == "sampling/createMessage"
    params = question["params"]
    assert params["maxTokens"] == 40
    assert params["systemPrompt"] == "Be brief"
    assert params["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Summarize: a long story"}}
    ]


def test_sampling_result_dict_is_kept_raw(
    server: mcpcxx.Server, asking: Callable[..., Client]
) -> None:
    @server.tool
    async def ask_model(ctx: Context) -> dict[str, Any]:
        reply = await ctx.sample(
            ["hi", {"role": "assistant", "content": {"type": "text", "text": "yo"}}]
        )
        return {"stop": reply.stop_reason, "role": reply.role, "raw": reply.raw}

    answer = {**sampled("done", model="m-1"), "stopReason": "maxTokens"}
    c = asking(sampling_handler=lambda params: answer)
    data = result_of(c.call_tool("ask_model"))["structuredContent"]
    assert data["stop"] == "maxTokens" and data["role"] == "assistant"
    assert data["raw"]["model"] == "m-1"
    assert c.server_requests[0]["params"]["maxTokens"] == 512  # the documented default


def test_malformed_sampling_answer_is_a_typed_error(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    @server.tool
    async def ask_model(ctx: Context) -> str:
        try:
            await ctx.sample("hi")
        except mcpcxx.ClientAnswerInvalidError as e:
            return f"invalid: {e.reason}"
        return "fine"

    c = asking(sampling_handler=lambda params: {"role": "assistant"}, max_input_rounds=2)
    response = c.call_tool("ask_model")
    if era == MODERN:  # a wrong-shaped answer is ignored and the question asked again
        assert result_of(response)["resultType"] == "input_required"
        assert len(c.server_requests) == 2  # answered twice, the third ask comes back raw
    else:
        assert text_of(response).startswith("invalid: ")


def test_sampling_tools_need_their_capability(
    server: mcpcxx.Server, asking: Callable[..., Client]
) -> None:
    @server.tool
    async def with_tools(ctx: Context) -> str:
        try:
            await ctx.sample("hi", tools=[{"name": "t", "inputSchema": {"type": "object"}}])
        except mcpcxx.ClientCapabilityError as e:
            return e.capability
        return "asked"

    c = asking(sampling_handler=lambda params: "ok", capabilities={"sampling": {}})
    assert text_of(c.call_tool("with_tools")) == "sampling.tools"
    assert c.server_requests == []


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_roots(server: mcpcxx.Server, asking: Callable[..., Client], kind: str) -> None:
    if kind == "sync":

        @server.tool
        def where(ctx: Context) -> list[str]:
            return [f"{r.uri} {r.name}" for r in ctx.list_roots_sync()]
    else:

        @server.tool
        async def where(ctx: Context) -> list[str]:  # type: ignore[misc]
            return [f"{r.uri} {r.name}" for r in await ctx.list_roots()]

    c = asking(roots=["file:///repo", {"uri": "file:///data", "name": "data"}])
    data = result_of(c.call_tool("where"))["structuredContent"]["result"]
    assert data == ["file:///repo None", "file:///data data"]
    assert [q["method"] for q in c.server_requests] == ["roots/list"]


def test_roots_callable_is_asked_each_time(
    server: mcpcxx.Server, asking: Callable[..., Client]
) -> None:
    calls: list[int] = []

    def current() -> list[str]:
        calls.append(1)
        return [f"file:///v{len(calls)}"]

    @server.tool
    async def where(ctx: Context) -> str:
        return (await ctx.list_roots())[0].uri

    c = asking(roots=current)
    first, second = text_of(c.call_tool("where")), text_of(c.call_tool("where"))
    assert (first, second) == ("file:///v1", "file:///v2")


def test_elicit_sample_and_roots_in_one_tool(
    server: mcpcxx.Server, era: str, asking: Callable[..., Client]
) -> None:
    runs: list[int] = []

    @server.tool
    async def plan(ctx: Context) -> str:
        runs.append(1)
        roots = await ctx.list_roots()
        ok = await ctx.elicit(f"Plan for {roots[0].uri}?")
        if not ok.accepted:
            return "stopped"
        reply = await ctx.sample("plan it")
        return f"{roots[0].uri}: {reply.text}"

    c = asking(
        roots=["file:///repo"],
        elicitation_handler=lambda params: {"action": "accept", "content": {}},
        sampling_handler=lambda params: "step 1",
    )
    assert text_of(c.call_tool("plan")) == "file:///repo: step 1"
    methods = [q["method"] for q in c.server_requests]
    assert methods == ["roots/list", "elicitation/create", "sampling/createMessage"]
    assert len(runs) == (4 if era == MODERN else 1)  # modern re-runs once per answer
