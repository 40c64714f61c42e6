"""Resources, resource templates, prompts and completion through the Python API."""

from __future__ import annotations

import base64
from typing import Any

import pytest

import mcpcxx
from conftest import error_of, result_of
from mcpcxx import Completion, CompletionRequest, Context, PromptMessage, Text
from mcpcxx.testing import Client


@pytest.fixture
def client(server: mcpcxx.Server, era: str) -> Any:
    @server.resource("docs://readme", title="Readme", description="The readme.")
    def readme() -> str:
        return "# hello"

    @server.resource("blob://logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    @server.resource("issues://{project}/{key}")
    async def issue(project: str, key: str, ctx: Context) -> dict[str, str]:
        return {"project": project, "key": key, "era": ctx.protocol_version}

    @server.prompt(title="Review")
    def review(code: str, style: str = "short") -> list[Any]:
        """Review some code.

        Args:
            code: The code to review.
            style: How long the review should be.
        """
        return [f"Review ({style}):", PromptMessage("assistant", Text(code))]

    @server.completion
    def complete(request: CompletionRequest) -> Completion:
        keys = [f"ENG-{i}" for i in range(150)]
        hits = [k for k in keys if k.startswith(request.value)]
        return Completion(hits, total=len(hits), has_more=len(hits) > 100)

    c = Client(server, protocol_version=era)
    yield c
    c.close()


def test_resources_listed_and_read(client: Client) -> None:
    listed = result_of(client.list_resources())["resources"]
    assert {r["uri"] for r in listed} == {"docs://readme", "blob://logo"}
    readme = next(r for r in listed if r["uri"] == "docs://readme")
    assert readme["title"] == "Readme" and readme["description"] == "The readme."
    text = result_of(client.read_resource("docs://readme"))["contents"][0]
    assert text == {"uri": "docs://readme", "mimeType": "text/plain", "text": "# hello"}
    blob = result_of(client.read_resource("blob://logo"))["contents"][0]
    assert base64.b64decode(blob["blob"]) == b"\x89PNG\r\n\x1a\n"
    assert blob["mimeType"] == "image/png"


def test_templates_expand_variables_into_parameters(client: Client) -> None:
    templates = result_of(client.list_resource_templates())["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["issues://{project}/{key}"]
    contents = result_of(client.read_resource("issues://core/ENG-7"))["contents"][0]
    import json

    assert json.loads(contents["text"]) == {
        "project": "core",
        "key": "ENG-7",
        "era": client.protocol_version,
    }


def test_prompts(client: Client) -> None:
    (prompt,) = result_of(client.list_prompts())["prompts"]
    assert prompt["name"] == "review" and prompt["title"] == "Review"
    args = {a["name"]: a for a in prompt["arguments"]}
    assert args["code"]["required"] is True and args["style"].get("required", False) is False
    assert args["code"]["description"] == "The code to review."
    messages = result_of(client.get_prompt("review", {"code": "x=1", "style": "long"}))["messages"]
    assert messages == [
        {"role": "user", "content": {"type": "text", "text": "Review (long):"}},
        {"role": "assistant", "content": {"type": "text", "text": "x=1"}},
    ]


def test_completion(client: Client) -> None:
    result = result_of(client.complete({"type": "ref/prompt", "name": "review"}, "code", "ENG-1"))
    completion = result["completion"]
    assert completion["values"][:3] == ["ENG-1", "ENG-10", "ENG-11"]
    assert completion["total"] == 61
    assert len(completion["values"]) <= 100


def test_bad_declarations_fail_at_decoration(server: mcpcxx.Server) -> None:
    with pytest.raises(TypeError, match="exactly the URI template's variables"):

        @server.resource("issues://{key}")
        def wrong(name: str) -> str:
            return ""

    with pytest.raises(TypeError, match="must be str"):

        @server.prompt
        def typed(n: int) -> str:
            return ""

    with pytest.raises(TypeError, match="one CompletionRequest parameter"):

        @server.completion
        def two(a: CompletionRequest, b: str) -> list[str]:
            return []

    with pytest.raises(TypeError, match="needs the resource URI"):
        server.resource("")


def test_crashing_prompt_is_a_sanitized_internal_error(server: mcpcxx.Server, era: str) -> None:
    @server.prompt
    def broken() -> str:
        raise RuntimeError("prompt secret")

    with Client(server, protocol_version=era) as c:
        error = error_of(c.get_prompt("broken"))
    assert error["code"] == -32603 and "secret" not in str(error)
