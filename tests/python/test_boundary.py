"""The typed boundary: Python errors keep their type in every handler kind, anything else is
logged with its traceback under the reference the client sees, and results cross as their wire
objects (checked by the engine's from_json)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import mcpcxx
from mcpcxx import (
    CompletionRequest,
    Context,
    MissingClientCapabilityError,
    ProtocolError,
    ResourceNotFoundError,
    ToolError,
)
from mcpcxx.testing import Client, text_of

REFERENCE = re.compile(r"ERR-[0-9a-f]{8}")


class Logged:
    """A server whose log lines are kept."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.server = mcpcxx.Server("boundary", log_writer=self.lines.append)

    def under(self, reference: str) -> str:
        """Every log line that names `reference`, joined."""
        return "\n".join(line for line in self.lines if reference in line)


@pytest.fixture
def logged() -> Iterator[Logged]:
    out = Logged()
    yield out
    out.server.close()


def test_tool_raising_resource_not_found_keeps_its_category(logged: Logged, era: str) -> None:
    # Issue 8: a documented typed error raised inside a tool. The binding translates it to
    # mcpcxx::resource_not_found; the engine's classifier keeps its category (the engine half of
    # the fix lands with the engine's single classifier; before it, this was "internal").
    @logged.server.tool
    def lookup(key: str) -> str:
        raise ResourceNotFoundError(f"issues://{key}")

    response = Client(logged.server, protocol_version=era).call_tool("lookup", {"key": "ENG-1"})
    result = response["result"]
    assert result["isError"] is True
    details = result["_meta"]["mcpcxx/error"]
    assert details["category"] == "not_found", result
    assert "internal error" not in text_of(response)


def test_crashing_resource_reader_logs_its_traceback_under_the_reference(
    logged: Logged, era: str
) -> None:
    # Issue 8: the traceback of a crashing reader never reached the log.
    @logged.server.resource("crash://now")
    def crashing_reader() -> str:
        raise ValueError("boom: the secret is hunter2")

    error = Client(logged.server, protocol_version=era).read_resource("crash://now")["error"]
    assert error["code"] == -32603
    reference = error["data"]["reference"]
    assert REFERENCE.fullmatch(reference)
    assert "hunter2" not in json.dumps(error)
    log = logged.under(reference)
    assert "Traceback (most recent call last)" in log, logged.lines
    assert "crashing_reader" in log
    assert "ValueError: boom: the secret is hunter2" in log


def test_crashing_prompt_and_completion_log_their_tracebacks(logged: Logged) -> None:
    @logged.server.prompt
    def broken_prompt(topic: str) -> str:
        raise KeyError("prompt-secret")

    @logged.server.completion
    def broken_completion(request: CompletionRequest) -> list[str]:
        raise RuntimeError("completion-secret")

    c = Client(logged.server)
    prompt_error = c.get_prompt("broken_prompt", {"topic": "x"})["error"]
    completion_error = c.complete({"type": "ref/prompt", "name": "broken_prompt"}, "topic", "")[
        "error"
    ]
    for error, function, secret in (
        (prompt_error, "broken_prompt", "KeyError: 'prompt-secret'"),
        (completion_error, "broken_completion", "RuntimeError: completion-secret"),
    ):
        assert error["code"] == -32603
        assert "secret" not in json.dumps(error)
        log = logged.under(error["data"]["reference"])
        assert "Traceback (most recent call last)" in log and function in log and secret in log


def test_typed_errors_keep_their_type_in_every_handler_kind(logged: Logged, era: str) -> None:
    @logged.server.resource("issues://{key}")
    def issue(key: str) -> str:
        raise ResourceNotFoundError(f"issues://{key}")

    @logged.server.prompt
    def needs_sampling(topic: str) -> str:
        raise MissingClientCapabilityError({"sampling": {}})

    @logged.server.completion
    def refuse(request: CompletionRequest) -> list[str]:
        raise ProtocolError(-31050, "completion is switched off", {"why": "maintenance"})

    @logged.server.tool
    def quota() -> str:
        raise ToolError("Quota exceeded. Retry in a minute.", category="rate_limited")

    c = Client(logged.server, protocol_version=era)
    not_found = c.read_resource("issues://ENG-404")["error"]
    assert not_found["code"] == (-32602 if era == mcpcxx.testing.MODERN else -32002)
    assert not_found["data"]["uri"] == "issues://ENG-404"
    missing = c.get_prompt("needs_sampling", {"topic": "x"})["error"]
    # A legacy session cannot declare capabilities per request: it is told to start a new one.
    assert missing["code"] == (-32021 if era == mcpcxx.testing.MODERN else -32600)
    assert missing["data"]["requiredCapabilities"] == {"sampling": {}}
    refused = c.complete({"type": "ref/prompt", "name": "needs_sampling"}, "topic", "")["error"]
    assert refused == {
        "code": -31050,
        "message": "completion is switched off",
        "data": {"why": "maintenance"},
    }
    result = c.call_tool("quota")["result"]
    assert result["isError"] is True
    assert result["_meta"]["mcpcxx/error"]["category"] == "rate_limited"
    assert not any("Traceback" in line for line in logged.lines)


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        ({"content": "not a list"}, "CallToolResult: 'content' must be a list of content blocks"),
        ({"content": [], "isError": "yes"}, "CallToolResult: 'isError' must be a boolean"),
        ([], "CallToolResult must be a JSON object"),
    ],
)
def test_malformed_results_are_refused_by_the_engine_model(
    logged: Logged, result: Any, problem: str
) -> None:
    # The handler's result is read by the C++ model's from_json; a bad shape is a server bug:
    # sanitized for the client, named in the log.
    from mcpcxx._schema.signature import describe_tool

    def raw() -> None: ...

    signature = describe_tool(raw, name="raw", description=None, structured_output=False)
    logged.server.runtime.core.add_tool(
        {"name": "raw", "inputSchema": signature.input_schema}, lambda args, core: result
    )
    response = Client(logged.server).call_tool("raw")
    reference = response["result"]["_meta"]["mcpcxx/error"]["reference"]
    assert problem not in text_of(response)
    assert problem in logged.under(reference)


def test_spec_dicts_are_checked_by_the_engine_model(logged: Logged) -> None:
    with pytest.raises(TypeError, match="Tool: 'name' must be a string, got null"):
        logged.server.runtime.core.add_tool({"name": None}, lambda args, core: {})
    with pytest.raises(TypeError, match="Resource: 'uri' must be a string"):
        logged.server.runtime.core.add_resource({"name": "x"}, lambda uri, core: [])
    with pytest.raises(TypeError, match="unexpected server option 'workers'"):
        mcpcxx._core.Server({"workers": 2})
    with pytest.raises(TypeError, match="'worker_threads' must be an integer >= 0"):
        mcpcxx.Server("x", workers=True)  # type: ignore[arg-type]


def test_exceptions_share_one_base_and_old_names_alias_new_ones() -> None:
    errors = [getattr(mcpcxx, n) for n in mcpcxx.__all__ if n.endswith("Error")]
    assert {e.__name__ for e in errors} == {
        "ClientAnswerInvalidError",
        "ClientCapabilityError",
        "ClientRequestError",
        "ClientRequestTimeoutError",
        "LifespanError",
        "McpcxxError",
        "MissingClientCapabilityError",
        "ProtocolError",
        "RequestCancelledError",
        "ResourceNotFoundError",
        "ToolError",
        "UrlElicitationRequiredError",
    }
    assert all(issubclass(e, mcpcxx.McpcxxError) for e in errors)
    assert mcpcxx.ResourceNotFound is mcpcxx.ResourceNotFoundError
    assert mcpcxx.MissingClientCapability is mcpcxx.MissingClientCapabilityError
    assert mcpcxx.Cancelled is mcpcxx.RequestCancelledError


def test_python_error_names_come_from_the_engine() -> None:
    import typing

    from mcpcxx import _core
    from mcpcxx._protocol import errors as _errors

    assert typing.get_args(_errors.ErrorCategory) == _core.ERROR_CATEGORIES == _errors.CATEGORIES
    assert typing.get_args(_errors.ErrorEffect) == _core.ERROR_EFFECTS == _errors.EFFECTS


def test_components_list_exactly_what_the_engine_lists(server: mcpcxx.Server) -> None:
    from mcpcxx._components.prompts import Prompt
    from mcpcxx._components.resources import Resource
    from mcpcxx._components.tools import Tool

    def search(query: str, limit: int = 10) -> dict[str, int]:
        """Search issues.

        Args:
            query: Words to look for.
        """
        return {"hits": 0}

    def issue(key: str) -> str:
        """One issue."""
        return key

    def review(code: str, style: str = "short") -> str:
        """Review code.

        Args:
            code: The code.
        """
        return code

    def bare() -> str:
        return ""

    tool = Tool.from_function(search, title="Search", annotations={"read_only_hint": True})
    template = Resource.from_function(issue, "issues://{key}", mime_type="application/json")
    readme = Resource.from_function(bare, "docs://readme", size=3)
    prompts = [Prompt.from_function(review), Prompt.from_function(bare)]
    server.tool(search, title="Search", annotations={"read_only_hint": True})
    server.resource("issues://{key}", mime_type="application/json")(issue)
    server.resource("docs://readme", size=3)(bare)
    server.prompt(review)
    server.prompt(bare)
    c = Client(server)
    assert c.list_tools()["result"]["tools"] == [tool.to_mcp_tool()]
    assert c.list_resource_templates()["result"]["resourceTemplates"] == [
        template.to_mcp_resource()
    ]
    assert c.list_resources()["result"]["resources"] == [readme.to_mcp_resource()]
    assert c.list_prompts()["result"]["prompts"] == [p.to_mcp_prompt() for p in prompts]


def test_context_is_a_protocol_the_engine_context_satisfies(server: mcpcxx.Server) -> None:
    seen: list[object] = []

    @server.tool
    def who(ctx: Context) -> str:
        seen.append(ctx)
        return str(ctx.request_id)

    assert "ctx" not in Client(server).list_tools()["result"]["tools"][0]["inputSchema"].get(
        "properties", {}
    )
    assert text_of(Client(server).call_tool("who")) == "1"
    assert len(seen) == 1 and isinstance(seen[0], Context)
    assert getattr(Context, "_is_protocol", False)
