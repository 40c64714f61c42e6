"""Scopes and principal rules on resources, resource templates and prompts (and rules on tools),
through the ASGI adapter and the engine's HTTP endpoint: lists hide what a principal may not use,
a call lacking scopes is 403 insufficient_scope (row H44; H42 for tools, unchanged), a failed rule
is P66, no principal P65, a rule that raises P24 with the detail only in the log; require_roles and
require_claims; bad registrations raise here.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import mcpcxx
from asgi_driver import asgi_request, mcp_headers
from mcp_requests import modern_body
from mcpcxx.asgi import MCPApp
from mcpcxx.auth import BearerAuth, Principal, require_claims, require_roles

ISSUER = "https://auth.example.test"
AUDIENCE = "https://mcp.example.test/mcp"
METADATA_URL = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"

PRINCIPALS = {
    "rita": Principal("rita", {"docs:read"}),
    "olga": Principal("olga", {"docs:read", "ops:read"}, {"roles": ["ops"], "tenant": "acme"}),
    "zed": Principal("zed", {"ops:read"}, {"roles": "ops audit", "tenant": "zeta"}),
}


def make_server(log: list[str] | None = None) -> mcpcxx.Server:
    server = mcpcxx.Server("scopes", log_writer=(log.append if log is not None else None))

    @server.resource("docs://readme")
    def readme() -> str:
        return "hello"

    @server.resource("ops://runbook", scopes=["ops:read"])
    def runbook() -> str:
        return "restart it"

    @server.resource("ops://pager", visible_to=require_roles("ops"))
    def pager() -> str:
        return "call olga"

    @server.resource("ops://job/{id}", scopes=["ops:read"])
    def job(id: str) -> str:
        return f"job {id}"

    @server.resource("ops://broken", visible_to=lambda p: 1 / 0 > 0)
    def broken() -> str:
        return "never"

    @server.prompt(scopes=["ops:read"], visible_to=require_claims(tenant="acme"))
    def postmortem() -> str:
        """Write a postmortem."""
        return "write it"

    @server.prompt
    def greet() -> str:
        """Say hi."""
        return "hi"

    @server.tool(visible_to=lambda p: p.subject.startswith("o"))
    def page_ops() -> str:
        """Page the on-call."""
        return "paged"

    return server


def app_for(server: mcpcxx.Server) -> MCPApp:
    return MCPApp(
        server,
        auth=BearerAuth(
            PRINCIPALS.get,
            authorization_servers=[ISSUER],
            resource=AUDIENCE,
            resource_metadata_url=METADATA_URL,
        ),
    )


@pytest.fixture(scope="module")
def app() -> MCPApp:
    return app_for(make_server())


def post(app: MCPApp, method: str, params: dict[str, Any], token: str) -> tuple[int, Any, Any]:
    name = params.get("name", params.get("uri"))
    headers = mcp_headers(method, name)
    headers.append((b"authorization", f"Bearer {token}".encode()))
    resp = asyncio.run(
        asgi_request(app, "POST", "/mcp", headers=headers, body=modern_body(method, params))
    )
    return resp.status, resp.headers, resp.json()


def listed(app: MCPApp, method: str, field: str, key: str, token: str) -> list[str]:
    status, _, reply = post(app, method, {}, token)
    assert status == 200, reply
    assert reply["result"]["cacheScope"] == "private"
    return [e[key] for e in reply["result"][field]]


def test_lists_hide_per_principal(app: MCPApp) -> None:
    assert listed(app, "resources/list", "resources", "uri", "rita") == ["docs://readme"]
    assert listed(app, "resources/list", "resources", "uri", "olga") == [
        "docs://readme",
        "ops://runbook",
        "ops://pager",
    ]
    assert listed(app, "resources/templates/list", "resourceTemplates", "uriTemplate", "rita") == []
    assert listed(app, "resources/templates/list", "resourceTemplates", "uriTemplate", "olga") == [
        "ops://job/{id}"
    ]
    assert listed(app, "prompts/list", "prompts", "name", "rita") == ["greet"]
    assert listed(app, "prompts/list", "prompts", "name", "olga") == ["postmortem", "greet"]
    assert listed(app, "prompts/list", "prompts", "name", "zed") == ["greet"]
    assert listed(app, "tools/list", "tools", "name", "rita") == []
    assert listed(app, "tools/list", "tools", "name", "olga") == ["page_ops"]


def test_a_read_lacking_scopes_is_403_naming_the_resource(app: MCPApp) -> None:
    status, headers, reply = post(app, "resources/read", {"uri": "ops://job/7"}, "rita")
    assert status == 403
    assert headers["www-authenticate"] == (
        f'Bearer resource_metadata="{METADATA_URL}", error="insufficient_scope", scope="ops:read"'
    )
    assert reply["error"]["message"] == (
        "Forbidden: resource ops://job/7 needs the scope(s) ops:read, which the access token "
        "lacks; nothing was done. Obtain a token that grants them (step-up authorization) and "
        "retry"
    )
    status, _, reply = post(app, "resources/read", {"uri": "ops://job/7"}, "olga")
    assert status == 200 and reply["result"]["contents"][0]["text"] == "job 7"
    assert reply["result"]["cacheScope"] == "private"


def test_prompts_get_and_subscribe_lacking_scopes_are_403(app: MCPApp) -> None:
    status, _, reply = post(app, "prompts/get", {"name": "postmortem"}, "rita")
    assert status == 403 and "prompt postmortem needs the scope(s) ops:read" in str(reply)
    status, _, reply = post(app, "resources/subscribe", {"uri": "ops://runbook"}, "rita")
    assert status == 403 and "resource ops://runbook" in reply["error"]["message"]


def test_a_failed_rule_is_p66_with_its_requirement(app: MCPApp) -> None:
    status, _, reply = post(app, "prompts/get", {"name": "postmortem"}, "zed")
    assert status == 200
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"] == {
        "primitive": "prompt",
        "name": "postmortem",
        "requirement": 'the claim tenant="acme"',
    }
    _, _, reply = post(app, "resources/read", {"uri": "ops://pager"}, "rita")
    assert reply["error"]["data"]["requirement"] == "the role ops"
    _, _, reply = post(app, "tools/call", {"name": "page_ops", "arguments": {}}, "rita")
    assert reply["error"]["data"] == {"primitive": "tool", "name": "page_ops", "requirement": None}
    assert "is not available to this caller;" in reply["error"]["message"]
    _, _, ok = post(app, "tools/call", {"name": "page_ops", "arguments": {}}, "olga")
    assert ok["result"]["content"][0]["text"] == "paged"
    _, _, ok = post(app, "prompts/get", {"name": "postmortem"}, "olga")
    assert ok["result"]["messages"][0]["content"]["text"] == "write it"


def test_a_rule_that_raises_is_p24_and_logged() -> None:
    log: list[str] = []
    app = app_for(make_server(log))
    _, _, reply = post(app, "resources/read", {"uri": "ops://broken"}, "olga")
    assert reply["error"]["code"] == -32603
    assert "ZeroDivisionError" not in reply["error"]["message"]
    ref = reply["error"]["data"]["reference"]
    assert any(ref in line and "ZeroDivisionError" in line for line in log), log
    assert "ops://broken" not in listed(app, "resources/list", "resources", "uri", "olga")
    assert any("principal_rule_exception" in line for line in log)


def test_without_auth_everything_guarded_is_hidden_and_p65() -> None:
    app = MCPApp(make_server())  # no auth: no request carries a principal
    headers = mcp_headers("resources/list")
    resp = asyncio.run(
        asgi_request(app, "POST", "/mcp", headers=headers, body=modern_body("resources/list", {}))
    )
    assert [r["uri"] for r in resp.json()["result"]["resources"]] == ["docs://readme"]
    headers = mcp_headers("resources/read", "ops://job/1")
    body = modern_body("resources/read", {"uri": "ops://job/1"})
    resp = asyncio.run(asgi_request(app, "POST", "/mcp", headers=headers, body=body))
    assert resp.status == 200
    assert resp.json()["error"]["data"] == {
        "primitive": "resource",
        "name": "ops://job/1",
        "scopes": "ops:read",
    }


def test_python_rules_match_the_engine_rules() -> None:
    ops = require_roles("ops", "audit")
    assert ops(PRINCIPALS["zed"]) and not ops(PRINCIPALS["olga"])
    assert ops.requirement == "the roles ops audit"
    acme = require_claims(tenant="acme")
    assert acme(PRINCIPALS["olga"]) and not acme(PRINCIPALS["zed"])
    assert require_claims(sub="rita")(PRINCIPALS["rita"])


def test_bad_registrations_raise_here() -> None:
    server = mcpcxx.Server("bad")
    with pytest.raises(ValueError, match="not a scope token"):
        server.resource("a://b", scopes=["two words"])(lambda: "x")
    with pytest.raises(TypeError, match="scopes must be a list of str"):
        server.prompt(name="p", scopes="admin")(lambda: "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="visible_to must be a callable"):
        server.resource("a://c", visible_to="ops")(lambda: "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one role"):
        require_roles()
    with pytest.raises(ValueError, match="non-empty str without spaces"):
        require_roles("two words")
    with pytest.raises(ValueError, match="at least one claim"):
        require_claims()
    with pytest.raises(TypeError, match="JSON-compatible"):
        require_claims(tenant=object())
