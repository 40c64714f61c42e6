"""Bearer-token auth through the ASGI adapter (a direct ASGI call): async verifiers, the RFC 7662
introspection verifier against a loopback endpoint, an unreachable JWKS (503), principal-bound
requestState, and the JWKS cache's rotation and refetch bound."""

from __future__ import annotations

import asyncio
import base64
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

import mcpcxx
from asgi_driver import asgi_request, mcp_headers
from auth_keys import AUDIENCE, ISSUER, LoopbackServer, SigningKey
from mcp_requests import modern_body
from mcpcxx.asgi import MCPApp
from mcpcxx.auth import (
    BearerAuth,
    IntrospectionVerifier,
    InvalidTokenError,
    JWTVerifier,
    Principal,
)

METADATA_URL = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"


def request(
    app: MCPApp,
    method: str,
    params: dict[str, Any],
    token: str | None,
    path: str = "/mcp",
    meta: dict[str, Any] | None = None,
) -> tuple[int, dict[str, str], Any]:
    """One 2026-07-28 request with an optional bearer token: POST to /mcp, GET elsewhere."""
    headers = mcp_headers(method, params.get("name"))
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    http_method = "GET" if path != "/mcp" else "POST"
    body = modern_body(method, params, meta=meta)
    resp = asyncio.run(asgi_request(app, http_method, path, headers=headers, body=body))
    assert resp.status is not None, "the app sent no response"
    return resp.status, resp.headers, resp.json() if resp.body else None


def make_server(log: list[str] | None = None) -> mcpcxx.Server:
    server = mcpcxx.Server("auth-asgi", log_writer=(log.append if log is not None else None))

    @server.tool
    def whoami(ctx: mcpcxx.Context) -> str:
        """The principal's subject."""
        p = ctx.principal
        return "anonymous" if p is None else f"{p.subject} {' '.join(sorted(p.scopes))}"

    @server.tool(scopes=["admin"])
    def reset() -> str:
        """Admin only."""
        return "reset"

    return server


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    yield server
    server.close()


def text(reply: dict[str, Any]) -> str:
    return str(reply["result"]["content"][0]["text"])


def test_async_verifier_and_principal_through_asgi() -> None:
    async def verify(token: str) -> Principal | None:
        await asyncio.sleep(0)
        return Principal("bob", {"admin"}) if token == "good-token" else None

    app = MCPApp(
        make_server(),
        auth=BearerAuth(
            verify,
            authorization_servers=[ISSUER],
            resource=AUDIENCE,
            resource_metadata_url=METADATA_URL,
        ),
    )
    status, _, reply = request(app, "tools/call", {"name": "whoami", "arguments": {}}, "good-token")
    assert status == 200 and text(reply) == "bob admin"
    status, headers, _ = request(app, "tools/call", {"name": "whoami", "arguments": {}}, "bad")
    assert status == 401
    assert headers["www-authenticate"] == (
        f'Bearer resource_metadata="{METADATA_URL}", error="invalid_token", '
        'error_description="The access token is invalid"'
    )
    status, _, doc = request(app, "", {}, None, path="/.well-known/oauth-protected-resource/mcp")
    assert (
        status == 200 and doc["resource"] == AUDIENCE and doc["authorization_servers"] == [ISSUER]
    )


def test_required_scopes_on_every_request_give_403() -> None:
    app = MCPApp(
        make_server(),
        auth=BearerAuth(
            lambda t: Principal("eve", {"read"}),
            authorization_servers=[ISSUER],
            resource=AUDIENCE,
            resource_metadata_url=METADATA_URL,
            required_scopes=["mcp"],
        ),
    )
    status, headers, reply = request(app, "tools/call", {"name": "whoami", "arguments": {}}, "t")
    assert status == 403
    assert 'error="insufficient_scope", scope="mcp"' in headers["www-authenticate"]
    assert reply["error"]["message"] == "Forbidden: the access token lacks a required scope"


def test_unreachable_jwks_gets_503_with_retry_after() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/jwks"
    log: list[str] = []
    verifier = JWTVerifier(jwks_url=dead, issuer=ISSUER, audience=AUDIENCE, timeout=2)
    app = MCPApp(make_server(log), auth=BearerAuth(verifier, resource_metadata_url=METADATA_URL))
    token = SigningKey("k", "ES256").token()
    status, headers, reply = request(app, "tools/call", {"name": "whoami", "arguments": {}}, token)
    assert status == 503 and headers["retry-after"] == "5"
    assert reply["error"]["message"].startswith("Service unavailable: the access token cannot be")
    assert any("http_auth_unavailable" in line for line in log)
    assert not any(token in line for line in log)


def test_jwks_cache_rotation_and_bounded_refetch(loopback: LoopbackServer) -> None:
    old, new = SigningKey("old", "RS256"), SigningKey("new", "ES256")
    loopback.keys = [old.jwk]
    verifier = JWTVerifier(
        jwks_url=loopback.url + "/jwks", issuer=ISSUER, audience=AUDIENCE, min_refetch_interval=3600
    )
    assert verifier(old.token()).subject == "alice"
    assert loopback.jwks_hits == 1
    for i in range(20):  # a flood of unknown kids: no refetch within the interval
        with pytest.raises(InvalidTokenError, match="signing key is unknown"):
            verifier(SigningKey(f"forged-{i % 2}", "ES256").token())
    assert loopback.jwks_hits == 1
    assert verifier(old.token()).subject == "alice"  # cached: no fetch

    rotating = JWTVerifier(
        jwks_url=loopback.url + "/jwks", issuer=ISSUER, audience=AUDIENCE, min_refetch_interval=0
    )
    assert rotating(old.token()).subject == "alice"
    loopback.keys = [new.jwk]
    assert rotating(new.token(sub="carol")).subject == "carol"  # unknown kid: refetched


def test_introspection_verifier(loopback: LoopbackServer) -> None:
    basic = "Basic " + base64.b64encode(b"rs-client:s3cret").decode()
    answers = {
        "live": {
            "active": True,
            "sub": "dan",
            "scope": "admin read",
            "aud": [AUDIENCE],
            "iss": ISSUER,
            "client_id": "cli",
            "exp": 4102444800,
        },
        "other-aud": {"active": True, "sub": "dan", "aud": "https://else", "iss": ISSUER},
        "revoked": {"active": False},
    }
    seen: list[str] = []

    def introspect(form: dict[str, str], authorization: str) -> tuple[int, Any]:
        if authorization != basic:
            return 401, {"error": "invalid_client"}
        seen.append(form["token"])
        return 200, answers.get(form["token"], {"active": False})

    loopback.introspect = introspect
    verifier = IntrospectionVerifier(
        endpoint=loopback.url + "/introspect",
        client_id="rs-client",
        client_secret="s3cret",
        audience=AUDIENCE,
        issuer=ISSUER,
    )
    app = MCPApp(make_server(), auth=BearerAuth(verifier, resource_metadata_url=METADATA_URL))
    for _ in range(3):
        status, _, reply = request(app, "tools/call", {"name": "reset", "arguments": {}}, "live")
        assert status == 200 and text(reply) == "reset"
    assert seen == ["live"], "answers are cached"
    for token, why in (
        ("other-aud", "was not issued for this resource"),
        ("revoked", "is not active"),
    ):
        status, headers, _ = request(app, "tools/call", {"name": "whoami", "arguments": {}}, token)
        assert status == 401 and why in headers["www-authenticate"]

    wrong = IntrospectionVerifier(
        endpoint=loopback.url + "/introspect",
        client_id="rs-client",
        client_secret="nope",
        audience=AUDIENCE,
    )
    app = MCPApp(
        make_server(),
        auth=BearerAuth(wrong, authorization_servers=[ISSUER], resource_metadata_url=METADATA_URL),
    )
    status, _, _ = request(app, "tools/call", {"name": "whoami", "arguments": {}}, "live")
    assert status == 503  # the endpoint refused our client credentials: not the caller's fault


def test_scoped_tools_without_auth_are_hidden_and_refused() -> None:
    app = MCPApp(make_server())
    _, _, reply = request(app, "tools/list", {}, None)
    assert [t["name"] for t in reply["result"]["tools"]] == ["whoami"]
    _, _, reply = request(app, "tools/call", {"name": "whoami", "arguments": {}}, None)
    assert text(reply) == "anonymous"  # ctx.principal is None without auth
    status, _, reply = request(app, "tools/call", {"name": "reset", "arguments": {}}, None)
    assert status == 200 and reply["error"]["code"] == -32602
    assert reply["error"]["message"].startswith(
        "Invalid params: tool reset is served only to authenticated callers holding the scope(s) admin"
    )


def test_bad_auth_configuration_is_refused_early() -> None:
    with pytest.raises(ValueError, match="authorization_servers"):
        BearerAuth(lambda t: None)
    with pytest.raises(TypeError, match="callable verifier"):
        BearerAuth("not callable", authorization_servers=[ISSUER])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scope token"):
        BearerAuth(lambda t: None, authorization_servers=[ISSUER], scopes_supported=["a b"])
    server = make_server()
    with pytest.raises(ValueError, match="not a scope token"):
        server.tool(name="x", scopes=["has space"])(lambda: None)
    with pytest.raises(TypeError, match="list of str"):
        server.tool(name="y", scopes="admin")(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="issuer= and audience="):
        JWTVerifier(jwks_url="https://x/jwks", issuer="", audience=AUDIENCE)
    with pytest.raises(ValueError, match="asymmetric"):
        JWTVerifier(
            jwks_url="https://x/jwks", issuer=ISSUER, audience=AUDIENCE, algorithms=["HS256"]
        )


def test_request_state_is_bound_to_the_principal() -> None:
    server = make_server()

    @server.tool
    async def title(ctx: mcpcxx.Context) -> str:
        """Ask for a title (2026-07-28: an input_required round trip)."""
        answer = await ctx.elicit(
            "Title?", {"type": "object", "properties": {"t": {"type": "string"}}}
        )
        return f"{ctx.principal.subject if ctx.principal else '-'}: {answer.content}"

    users = {"tok-ann": Principal("ann"), "tok-ben": Principal("ben")}
    app = MCPApp(
        server,
        auth=BearerAuth(
            users.get,
            authorization_servers=[ISSUER],
            resource=AUDIENCE,
            resource_metadata_url=METADATA_URL,
        ),
    )
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    }
    call = {"name": "title", "arguments": {}}
    _, _, first = request(app, "tools/call", call, "tok-ann", meta=meta)
    assert first["result"]["resultType"] == "input_required"
    retry = {
        **call,
        "requestState": first["result"]["requestState"],
        "inputResponses": {
            key: {"action": "accept", "content": {"t": "x"}}
            for key in first["result"]["inputRequests"]
        },
    }
    _, _, stolen = request(app, "tools/call", retry, "tok-ben", meta=meta)
    assert stolen["error"]["message"].startswith(
        "Invalid params: requestState was issued to another authenticated principal"
    )
    _, _, done = request(app, "tools/call", retry, "tok-ann", meta=meta)
    assert text(done) == "ann: {'t': 'x'}"


def test_jwt_verifier_details(loopback: LoopbackServer) -> None:
    key = SigningKey("k1", "RS256")
    loopback.keys = [{**key.jwk, "alg": "RS256"}]
    verifier = JWTVerifier(
        jwks_url=loopback.url + "/jwks",
        issuer=ISSUER,
        audience=AUDIENCE,
        algorithms=["RS256", "RS384"],
        scope_claim="scp",
    )
    now = int(time.time())
    p = verifier(key.token(exp=now - 10, scp=["a", "b", 7], scope=None, client_id=None, azp="web"))
    assert p.scopes == {"a", "b"} and p.client_id == "web"  # expired 10 s ago: within leeway
    assert Principal.from_json(p.to_json()) == p
    with pytest.raises(InvalidTokenError, match="expired"):
        verifier(key.token(exp=now - 60))
    with pytest.raises(InvalidTokenError, match="does not match its key"):
        verifier(key.signed({"sub": "x"}, "RS384"))
    with pytest.raises(InvalidTokenError, match="not issued for this resource"):
        verifier(key.token(aud=["https://a", "https://b"]))
    assert verifier(key.token(aud=["https://a", AUDIENCE])).subject == "alice"
