"""Interop: the official Python SDK client (pip mcp) against an mcpcxx server over Streamable HTTP.

Usage: python interop_pysdk.py URL   (run by scripts/test-http-interop.sh for both eras)
Each case prints "ok <era> <case>"; the first failure raises and the exit code is non-zero.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcp import Client, types
from mcp.shared.exceptions import MCPError

# The fixture tools of the conformance scenarios tools-call-elicitation and tools-call-sampling
# (tests/fixtures/cpp/conformance_server.cpp, tests/fixtures/python/conformance_server.py): the same tool asks
# through a live request on a legacy session and through input_required on 2026-07-28.
ASKING_TOOLS = ("test_elicitation", "test_sampling")


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    content = {"username": "interop-py", "email": "py@example.com"}
    return types.ElicitResult(action="accept", content=content)


async def on_sample(context: Any, params: types.CreateMessageRequestParams) -> Any:
    asked = params.messages[0].content
    text = getattr(asked, "text", "")
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"sampled<{text}>"),
        model="interop-py-model",
        stop_reason="endTurn",
    )


async def asking(client: Client, era: str, names: set[str]) -> None:
    """The server asks the client (elicitation, sampling); the SDK answers from its callbacks."""
    missing = [t for t in ASKING_TOOLS if t not in names]
    assert not missing, f"the fixture lacks {', '.join(missing)}"
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert not result.is_error and "interop-py" in _text(result), result
    assert "accept" in _text(result), result
    print(f"ok {era} elicitation answered by the SDK's callback")

    result = await client.call_tool("test_sampling", {"prompt": "two words"})
    assert not result.is_error and "sampled<two words>" in _text(result), result
    print(f"ok {era} sampling answered by the SDK's callback")


async def run(url: str, mode: str) -> None:
    era = "legacy" if mode == "legacy" else mode
    callbacks: dict[str, Any] = {"elicitation_callback": on_elicit, "sampling_callback": on_sample}
    async with Client(url, mode=mode, **callbacks) as client:
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        assert {"echo", "test_error_handling", "test_tool_with_progress"} <= names, names
        print(f"ok {era} tools/list ({len(names)} tools)")

        result = await client.call_tool("echo", {"text": "hello interop"})
        assert not result.is_error and _text(result) == "hello interop", result
        print(f"ok {era} tools/call success")

        result = await client.call_tool("test_error_handling", {})
        assert result.is_error, result
        assert "intentionally returns an error" in _text(result), result
        print(f"ok {era} tools/call isError result")

        try:
            await client.call_tool("no_such_tool", {})
        except MCPError as e:
            assert e.error.code == -32602, e.error
        else:
            raise AssertionError("an unknown tool must be a JSON-RPC error")
        print(f"ok {era} unknown tool is -32602")

        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert not result.is_error and seen == [0, 50, 100], (seen, result)
        print(f"ok {era} progress over SSE")

        read = await client.read_resource("test://static-text")
        assert "static text resource" in read.contents[0].text, read  # type: ignore[union-attr]
        print(f"ok {era} resources/read")

        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "A1", "arg2": "B2"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "A1" in text and "B2" in text, prompt
        print(f"ok {era} prompts/get")

        await asking(client, era, names)


def main() -> int:
    url = sys.argv[1]
    for mode in ("legacy", "2026-07-28"):
        asyncio.run(run(url, mode))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
