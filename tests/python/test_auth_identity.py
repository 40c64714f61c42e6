"""Ownership by the principal's identity (docs/auth.md), through the ASGI adapter: a task and a
2026-07-28 input_required round survive a token refresh and a step-up (real JWTs from a loopback
JWKS and plain Principal verifiers), on both eras; another subject, issuer or client id is still
refused (P45, P38, H14); BearerAuth(identity_claims=...) adds a tenant and refuses volatile claims.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mcpcxx
from asgi_driver import asgi_request, mcp_headers
from auth_keys import AUDIENCE, ISSUER, LoopbackServer, SigningKey
from mcp_requests import modern_body
from mcpcxx.asgi import MCPApp
from mcpcxx.auth import BearerAuth, JWTVerifier, Principal

METADATA_URL = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"
TASKS = {
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }
}
ELICIT = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
LEGACY = "2025-11-25"


def make_server() -> mcpcxx.Server:
    server = mcpcxx.Server("identity")

    @server.tool(task="optional")
    def job(ctx: mcpcxx.Context) -> str:
        """A job that may run as a task."""
        return f"job of {ctx.principal.subject if ctx.principal else '-'}"

    @server.tool
    async def confirm(ctx: mcpcxx.Context) -> str:
        """Ask once (2026-07-28: an input_required round trip)."""
        answer = await ctx.elicit("Sure?", {"type": "object", "properties": {}})
        return f"confirmed {answer.action}"

    return server


def app_for(verifier: Callable[[str], Any], identity_claims: tuple[str, ...] = ()) -> MCPApp:
    auth = BearerAuth(
        verifier,
        authorization_servers=[ISSUER],
        resource=AUDIENCE,
        resource_metadata_url=METADATA_URL,
        identity_claims=identity_claims,
    )
    return MCPApp(make_server(), auth=auth)


def alice(**changes: Any) -> Principal:
    """alice's principal as a verifier gives it; `changes` replace claims or fields."""
    claims = {"iss": ISSUER, "iat": 100, "exp": 4000, "jti": "j1", "tid": "t1"}
    fields: dict[str, Any] = {"scopes": {"read"}, "client_id": "cli-1", "sub": "alice"}
    for k, v in changes.items():
        (fields if k in fields else claims)[k] = v
    return Principal(fields["sub"], fields["scopes"], claims, fields["client_id"])


PRINCIPALS = {
    "alice": alice(),
    "refreshed": alice(iat=4000, exp=8000, jti="j2"),
    "stepped-up": alice(scopes={"read", "write"}, jti="j3"),
    "bob": alice(sub="bob"),
    "other-issuer": alice(iss="https://evil.example"),
    "other-client": alice(client_id="cli-2"),
    "other-tenant": alice(tid="t2"),
}


def modern(app: MCPApp, method: str, params: dict[str, Any], token: str, meta: Any) -> Any:
    # SEP-2243: Mcp-Name carries params.name, or a tasks/* request's taskId.
    headers = mcp_headers(method, params.get("name", params.get("taskId")))
    headers.append((b"authorization", f"Bearer {token}".encode()))
    resp = asyncio.run(
        asgi_request(
            app, "POST", "/mcp", headers=headers, body=modern_body(method, params, meta=meta)
        )
    )
    assert resp.status == 200, resp.body
    return resp.json()


def new_task(app: MCPApp, token: str = "alice") -> str:
    created = modern(app, "tools/call", {"name": "job", "arguments": {}}, token, TASKS)
    assert created["result"]["resultType"] == "task", created
    return str(created["result"]["taskId"])


def task_get(app: MCPApp, task_id: str, token: str) -> Any:
    return modern(app, "tasks/get", {"taskId": task_id}, token, TASKS)


def assert_p45(reply: Any) -> None:
    assert reply["error"]["code"] == -32602, reply
    assert "exists for you" in reply["error"]["message"], reply


def test_a_modern_task_survives_a_refresh_and_a_step_up() -> None:
    app = app_for(PRINCIPALS.get)
    task_id = new_task(app)
    for token in ("refreshed", "stepped-up", "alice"):
        assert task_get(app, task_id, token)["result"]["taskId"] == task_id, token


def test_a_modern_task_stays_refused_to_another_subject_issuer_or_client() -> None:
    app = app_for(PRINCIPALS.get)
    task_id = new_task(app)
    for token in ("bob", "other-issuer", "other-client"):
        assert_p45(task_get(app, task_id, token))


def test_identity_claims_add_a_tenant() -> None:
    app = app_for(PRINCIPALS.get, ("tid",))
    task_id = new_task(app)
    assert "result" in task_get(app, task_id, "refreshed")
    assert_p45(task_get(app, task_id, "other-tenant"))
    plain = app_for(PRINCIPALS.get)
    assert "result" in task_get(plain, new_task(plain), "other-tenant")


def retry_of(first: Any) -> dict[str, Any]:
    return {
        "name": "confirm",
        "arguments": {},
        "requestState": first["result"]["requestState"],
        "inputResponses": {
            k: {"action": "accept", "content": {}} for k in first["result"]["inputRequests"]
        },
    }


def test_an_input_required_round_survives_a_refresh_and_a_step_up() -> None:
    app = app_for(PRINCIPALS.get)
    first = modern(app, "tools/call", {"name": "confirm", "arguments": {}}, "alice", ELICIT)
    assert first["result"]["resultType"] == "input_required", first
    for token in ("bob", "other-issuer", "other-client"):
        refused = modern(app, "tools/call", retry_of(first), token, ELICIT)
        assert refused["error"]["message"].startswith(
            "Invalid params: requestState was issued to another authenticated principal"
        ), token
    for token in ("refreshed", "stepped-up"):
        done = modern(app, "tools/call", retry_of(first), token, ELICIT)
        assert done["result"]["content"][0]["text"] == "confirmed accept", (token, done)


@pytest.fixture
def jwks() -> Iterator[tuple[LoopbackServer, SigningKey]]:
    key = SigningKey("id-1", "RS256")
    server = LoopbackServer()
    server.keys = [key.jwk]
    yield server, key
    server.close()


def test_jwt_refresh_and_step_up_keep_the_task_and_the_round(
    jwks: tuple[LoopbackServer, SigningKey],
) -> None:
    loopback, key = jwks
    verifier = JWTVerifier(jwks_url=loopback.url + "/jwks", issuer=ISSUER, audience=AUDIENCE)
    app = MCPApp(make_server(), auth=BearerAuth(verifier, resource_metadata_url=METADATA_URL))
    now = int(time.time())
    first = key.token(iat=now - 60, exp=now + 240, jti="first")
    refreshed = key.token(iat=now, exp=now + 3600, jti="second")
    stepped_up = key.token(jti="third", scope="issues:read issues:write")
    other_client = key.token(jti="fourth", client_id="another-client")
    task_id = new_task(app, first)
    for token in (refreshed, stepped_up):
        assert task_get(app, task_id, token)["result"]["taskId"] == task_id
    assert_p45(task_get(app, task_id, other_client))
    asked = modern(app, "tools/call", {"name": "confirm", "arguments": {}}, first, ELICIT)
    done = modern(app, "tools/call", retry_of(asked), refreshed, ELICIT)
    assert done["result"]["content"][0]["text"] == "confirmed accept", done


def legacy_post(
    app: MCPApp, message: dict[str, Any], token: str, session: str | None
) -> tuple[int, dict[str, str], Any]:
    headers = [
        (b"host", b"localhost:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"authorization", f"Bearer {token}".encode()),
    ]
    if session is not None:
        headers += [
            (b"mcp-session-id", session.encode()),
            (b"mcp-protocol-version", LEGACY.encode()),
        ]
    resp = asyncio.run(
        asgi_request(app, "POST", "/mcp", headers=headers, body=json.dumps(message).encode())
    )
    assert resp.status is not None
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        data = [e.json() for e in resp.sse_events() if e.data]
        return resp.status, resp.headers, data[-1] if data else None
    return resp.status, resp.headers, resp.json() if resp.body else None


def legacy_task(app: MCPApp) -> tuple[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    status, headers, _ = legacy_post(app, init, "alice", None)
    assert status == 200
    sid = headers["mcp-session-id"]
    legacy_post(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, "alice", sid)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "job", "arguments": {}, "task": {}},
    }
    _, _, created = legacy_post(app, call, "alice", sid)
    return sid, str(created["result"]["task"]["taskId"])


def test_a_legacy_session_and_its_task_survive_a_refresh_and_a_step_up() -> None:
    app = app_for(PRINCIPALS.get)
    sid, task_id = legacy_task(app)
    get = {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": task_id}}
    for token in ("refreshed", "stepped-up"):
        status, _, got = legacy_post(app, get, token, sid)
        assert status == 200 and got["result"]["taskId"] == task_id, (token, got)
    for token in ("bob", "other-issuer", "other-client"):
        status, _, refused = legacy_post(app, get, token, sid)
        assert status == 404, (token, refused)  # H14: not this caller's session
        assert refused["error"]["message"].startswith("Session not found"), refused


@pytest.mark.parametrize(
    "claim", ["iat", "exp", "nbf", "jti", "auth_time", "scope", "scp", "scopes", "claims"]
)
def test_identity_claims_that_a_refresh_changes_are_refused(claim: str) -> None:
    with pytest.raises(ValueError, match=f"'{claim}' cannot be an identity claim"):
        BearerAuth(PRINCIPALS.get, authorization_servers=[ISSUER], identity_claims=["tid", claim])


def test_identity_claims_must_be_a_list_of_names() -> None:
    with pytest.raises(TypeError, match="list of str"):
        BearerAuth(PRINCIPALS.get, authorization_servers=[ISSUER], identity_claims="tid")
    with pytest.raises(ValueError, match="not a claim name"):
        BearerAuth(PRINCIPALS.get, authorization_servers=[ISSUER], identity_claims=[""])
