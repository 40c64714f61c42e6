"""The conformance fixture server on the public mcpcxx Python API, served over Streamable HTTP.

Exposes every fixture the official suite (@modelcontextprotocol/conformance) calls; the C++
fixture examples/cpp/conformance_server.cpp exposes the same ones.
Run: python examples/conformance/server.py [--port 3000] [--host 127.0.0.1] [--modern-only]
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from typing import Annotated, Any

from pydantic import BaseModel, Field

from mcpcxx import Audio, Completion, CompletionRequest, Context, Image, Server, ToolResult

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA")

server = Server("mcpcxx-conformance-fixture-py", "0.1.0")


@server.tool
def test_simple_text() -> str:
    """Returns a simple text response."""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> ToolResult:
    """Returns a 1x1 PNG image."""
    return ToolResult(content=[Image(data=PNG, mime_type="image/png")])


@server.tool
def test_audio_content() -> ToolResult:
    """Returns a short WAV clip."""
    return ToolResult(content=[Audio(data=WAV, mime_type="audio/wav")])


def _resource_block(uri: str, mime: str, text: str) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": text}}


@server.tool
def test_embedded_resource() -> ToolResult:
    """Returns an embedded text resource."""
    block = _resource_block(
        "test://embedded-resource", "text/plain", "This is an embedded resource content."
    )
    return ToolResult(content=[block])


@server.tool
def test_multiple_content_types() -> ToolResult:
    """Returns text, an image and a resource."""
    data = json.dumps({"test": "data", "value": 123})
    return ToolResult(
        content=[
            "Multiple content types test:",
            Image(data=PNG, mime_type="image/png"),
            _resource_block("test://mixed-content-resource", "application/json", data),
        ]
    )


@server.tool
def test_error_handling() -> ToolResult:
    """Always returns an error result."""
    return ToolResult(
        content=["This tool intentionally returns an error for testing"], is_error=True
    )


@server.tool
def test_tool_with_logging(ctx: Context) -> str:
    """Sends three log messages while it runs."""
    for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        ctx.info(text)
        time.sleep(0.02)
    return "Logging test completed"


@server.tool
def test_tool_with_progress(ctx: Context) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    for p in (0, 50, 100):
        ctx.report_progress(p, 100)
        time.sleep(0.02)
    return "Progress test completed"


@server.tool
def test_missing_capability(ctx: Context) -> str:
    """Needs the client's sampling capability."""
    ctx.require_client_capability("sampling")
    return "The client declared sampling"


@server.tool
def test_streaming_elicitation(ctx: Context) -> str:
    """Needs the client's elicitation capability."""
    ctx.require_client_capability("elicitation")
    return "The client declared elicitation"


class UserInfo(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


@server.tool
async def test_elicitation(ctx: Context, message: str) -> str:
    """Asks the user for a username and an email (live on legacy, input_required on 2026)."""
    answer = await ctx.elicit(message, UserInfo)
    content = answer.content.model_dump() if answer.content is not None else None
    return f"User response: action={answer.action}, content={json.dumps(content)}"


@server.tool
async def test_sampling(ctx: Context, prompt: str) -> str:
    """Asks the client's model to answer a prompt."""
    reply = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {reply.text}"


@server.tool
def test_logging_tool(ctx: Context) -> str:
    """Logs while it runs (only sent when the request sets logLevel)."""
    for i in range(3):
        ctx.info(f"log entry {i}")
    return "Logged three entries"


@server.tool
def test_custom_header(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
) -> str:
    """Echoes a region that clients mirror into Mcp-Param-Region."""
    return f"region={region}"


@server.tool
def echo(text: str) -> str:
    """Returns its text argument (the bench/http_load workload)."""
    return text


@server.resource("test://static-text", name="static-text", mime_type="text/plain")
def static_text() -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A static binary resource."""
    return PNG


@server.resource("test://watched-resource", name="watched-resource", mime_type="text/plain")
def watched() -> str:
    """A resource clients subscribe to."""
    return "Watched resource content"


@server.resource("test://template/{id}/data", name="template", mime_type="application/json")
def template(id: str) -> str:
    """A templated JSON resource."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.prompt
def test_simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Any]:
    """Embeds a resource."""
    block = _resource_block(resourceUri, "text/plain", "Embedded resource content for testing.")
    return [{"role": "user", "content": block}, "Please process the embedded resource above."]


@server.prompt
def test_prompt_with_image() -> list[Any]:
    """Contains an image."""
    image = Image(data=PNG, mime_type="image/png").to_content()
    return [{"role": "user", "content": image}, "Please analyze the image above."]


@server.completion
def complete(request: CompletionRequest) -> Completion:
    """Completes arg1 of test_prompt_with_arguments."""
    values = [v for v in ("paris", "park", "party") if v.startswith(request.value)]
    return Completion(values=values, total=len(values))


def main() -> int:
    """Serve the fixtures over Streamable HTTP."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
    parser.add_argument("--modern-only", action="store_true")
    args = parser.parse_args()
    return server.run("http", host=args.host, port=args.port, legacy=not args.modern_only)


if __name__ == "__main__":
    raise SystemExit(main())
