"""The conformance fixture server on the public mcpcxx Python API, served over Streamable HTTP.

Exposes every fixture the official suite (@modelcontextprotocol/conformance) calls; the C++
fixture examples/cpp/conformance_server.cpp exposes the same ones.
Run: python examples/conformance/server.py [--port 3000] [--host 127.0.0.1] [--modern-only]
"""

from __future__ import annotations

import argparse
import base64
import json
import threading
import time
from typing import Annotated, Any

from pydantic import BaseModel, Field

from mcpcxx import (
    Audio,
    Completion,
    CompletionRequest,
    Context,
    Image,
    ProtocolError,
    Server,
    ToolResult,
)

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


SEP1034_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}


def _choices(prefix: str, title: str) -> list[dict[str, str]]:
    names = ["First", "Second", "Third"]
    return [{"const": f"{prefix}{i + 1}", "title": f"{names[i]} {title}"} for i in range(3)]


SEP1330_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": _choices("value", "Option")},
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {"type": "array", "items": {"anyOf": _choices("value", "Choice")}},
    },
}


def _elicitation_text(action: str, content: Any) -> str:
    compact = json.dumps(content, separators=(",", ":"))
    return f"Elicitation completed: action={action}, content={compact}"


@server.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Elicits with a default for every primitive type."""
    answer = await ctx.elicit("Please review your details", SEP1034_SCHEMA)
    return _elicitation_text(answer.action, answer.content)


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Elicits with all five enum schema forms."""
    answer = await ctx.elicit("Please choose", SEP1330_SCHEMA)
    return _elicitation_text(answer.action, answer.content)


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


_JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(input_schema=_JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    """Takes a JSON Schema 2020-12 input with $defs."""
    return "ok"


@server.tool
def echo(text: str) -> str:
    """Returns its text argument (the bench/http_load workload)."""
    return text


# ----- 2026-07-28 input-required-result fixtures (the C++ ones: conformance_input_required.cpp) --
# Each question carries the inputRequests key the suite expects; the handler is re-run per round.


def _string_schema(field: str) -> dict[str, Any]:
    return {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}


def _elicitation(key: str, message: str, schema: dict[str, Any]) -> dict[str, Any]:
    params = {"message": message, "requestedSchema": schema}
    return {"method": "elicitation/create", "params": params, "key": key}


def _sampling(key: str, text: str, max_tokens: int) -> dict[str, Any]:
    message = {"role": "user", "content": {"type": "text", "text": text}}
    params = {"messages": [message], "maxTokens": max_tokens}
    return {"method": "sampling/createMessage", "params": params, "key": key}


def _roots(key: str) -> dict[str, Any]:
    return {"method": "roots/list", "params": {}, "key": key}


def _field(answer: dict[str, Any], field: str) -> str:
    if answer.get("action") != "accept":
        return f"({answer.get('action', '?')})"
    value = (answer.get("content") or {}).get(field)
    if value is None:
        return "(none)"
    return value if isinstance(value, str) else json.dumps(value)


def _sampled(answer: dict[str, Any]) -> str:
    content = answer.get("content")
    return str(content.get("text", "")) if isinstance(content, dict) else ""


_CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


@server.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks the user's name (elicitation)."""
    [a] = await ctx.ask_all(
        [_elicitation("user_name", "What is your name?", _string_schema("name"))]
    )
    return f"Hello, {_field(a, 'name')}!"


@server.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client's model a question (sampling)."""
    [a] = await ctx.ask_all([_sampling("capital_question", "What is the capital of France?", 100)])
    return f"The model said: {_sampled(a)}"


@server.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks the client's roots (roots/list)."""
    [a] = await ctx.ask_all([_roots("client_roots")])
    return f"Client roots: {json.dumps(a.get('roots', []))}"


@server.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Asks a confirmation; the answer comes back with the sealed requestState."""
    [a] = await ctx.ask_all([_elicitation("confirm", "Confirm to continue", _CONFIRM)])
    return f"state-ok: requestState verified, answer {_field(a, 'ok')}"


@server.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Asks a confirmation; a tampered requestState on the retry is refused."""
    [a] = await ctx.ask_all([_elicitation("confirm", "Confirm to continue", _CONFIRM)])
    return f"confirmed: {_field(a, 'ok')}"


@server.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Asks elicitation, sampling and roots in one round."""
    name, greeting, roots = await ctx.ask_all(
        [
            _elicitation("user_name", "What is your name?", _string_schema("name")),
            _sampling("greeting", "Generate a greeting", 50),
            _roots("client_roots"),
        ]
    )
    listed = json.dumps(roots.get("roots"))
    return f"name {_field(name, 'name')}, greeting {_sampled(greeting)}, roots {listed}"


@server.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Asks two questions in two rounds."""
    [name] = await ctx.ask_all(
        [_elicitation("step1", "Step 1: What is your name?", _string_schema("name"))]
    )
    [color] = await ctx.ask_all(
        [_elicitation("step2", "Step 2: What is your favorite color?", _string_schema("color"))]
    )
    return f"{_field(name, 'name')} likes {_field(color, 'color')}"


@server.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only what the request's client capabilities declare."""
    caps = ctx.client_capabilities or {}
    questions = []
    if "elicitation" in caps:
        questions.append(_elicitation("user_name", "What is your name?", _string_schema("name")))
    if "sampling" in caps:
        questions.append(_sampling("greeting", "Say hello", 50))
    if not questions:
        return "the client declared nothing to ask"
    return f"answered {len(await ctx.ask_all(questions))} question(s)"


@server.prompt
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that asks the user for context first."""
    [a] = await ctx.ask_all(
        [
            _elicitation(
                "user_context", "What context should the prompt use?", _string_schema("context")
            )
        ]
    )
    return f"Use this context: {_field(a, 'context')}"


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


# ----- tasks fixtures (io.modelcontextprotocol/tasks; the C++ ones: conformance_tasks.cpp) -----


def _sleep_unless_cancelled(ctx: Context, seconds: float) -> bool:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if ctx.cancelled:
            return False
        time.sleep(0.02)
    return not ctx.cancelled


_ANSWER = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
}


@server.tool
def greet(name: str = "World") -> str:
    """Greets `name` (never a task)."""
    return f"Hello, {name}!"


@server.tool(task="optional")
def slow_compute(ctx: Context, seconds: float = 0, label: str = "?") -> str:
    """Sleeps `seconds` (a task when the client supports tasks)."""
    if not _sleep_unless_cancelled(ctx, seconds):
        return "cancelled"
    return f"computed {label} after {seconds} s"


@server.tool(task="required")
def failing_job(ctx: Context) -> ToolResult:
    """Fails as a tool after about a second (runs only as a task)."""
    _sleep_unless_cancelled(ctx, 1.0)
    return ToolResult(
        content=["failing_job failed: the job always fails. Do not retry."], is_error=True
    )


@server.tool(task="optional")
def protocol_error_job(ctx: Context) -> str:
    """Raises a protocol error after about a second."""
    _sleep_unless_cancelled(ctx, 1.0)
    raise ProtocolError(-31000, "protocol_error_job: the job raised a protocol error")


@server.tool(task="optional")
def confirm_delete(ctx: Context, filename: str = "?") -> str:
    """Asks the user to confirm deleting `filename`."""
    [a] = ctx.ask_all_sync([_elicitation("confirm", f"Delete {filename}?", _ANSWER)])
    return f"deleted {filename}" if a.get("action") == "accept" else f"kept {filename}"


@server.tool(task="optional")
def multi_input(ctx: Context) -> str:
    """Asks two questions at once."""
    first, second = ctx.ask_all_sync(
        [_elicitation("first", "First?", _ANSWER), _elicitation("second", "Second?", _ANSWER)]
    )
    return f"answers: {json.dumps(first)} {json.dumps(second)}"


@server.tool(task="required", task_start="handler")
def test_tool_with_task(ctx: Context) -> str:
    """Asks for user_name in the request, then finishes as a task."""
    [a] = ctx.ask_all_sync([_elicitation("user_name", "What is your name?", _ANSWER)])
    name = (a.get("content") or {}).get("name", "?")
    ctx.start_task()
    _sleep_unless_cancelled(ctx, 0.5)
    return f"Hello, {name} (from the task)"


@server.completion
def complete(request: CompletionRequest) -> Completion:
    """Completes arg1 of test_prompt_with_arguments."""
    values = [v for v in ("paris", "park", "party") if v.startswith(request.value)]
    return Completion(values=values, total=len(values))


# The hooks server-stateless calls while a subscriptions/listen stream is open: each call adds a
# transient tool (or prompt), and the next removes it, so list_changed follows every call.
_toggling = threading.Lock()


def _transient_tool() -> str:
    """Exists between two test_trigger_tool_change calls."""
    return "transient"


def _transient_prompt() -> str:
    """Exists between two test_trigger_prompt_change calls."""
    return "transient"


@server.tool
def test_trigger_tool_change() -> str:
    """Adds or removes the tool test_transient_tool."""
    with _toggling:
        if server.remove_tool("test_transient_tool"):
            return "removed"
        server.tool(name="test_transient_tool")(_transient_tool)
        return "added"


@server.tool
def test_trigger_prompt_change() -> str:
    """Adds or removes the prompt test_transient_prompt."""
    with _toggling:
        if server.remove_prompt("test_transient_prompt"):
            return "removed"
        server.prompt(name="test_transient_prompt")(_transient_prompt)
        return "added"


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
