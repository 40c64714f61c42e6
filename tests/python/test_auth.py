"""Bearer-token auth over run("http") with real RS256/ES256 JWTs from a loopback JWKS: 401/403
challenges, RFC 9728 metadata, per-tool scopes, ctx.principal, rotation, and no token in logs."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auth_keys import AUDIENCE, ISSUER, LoopbackServer, SigningKey, tampered
from mcp_requests import SERVED_URL, http_post, mcp_http_headers, modern_body

SERVER = Path(__file__).with_name("auth_server.py")


class Running:
    """The auth test server in a subprocess, with everything it logged."""

    def __init__(self, jwks: str) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(SERVER),
                "--jwks",
                jwks,
                "--issuer",
                ISSUER,
                "--audience",
                AUDIENCE,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        found = threading.Event()
        self.url = ""

        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line)
                m = SERVED_URL.search(line)
                if m and not self.url:
                    self.url = m.group(0)
                    found.set()

        self._drain = threading.Thread(target=drain, daemon=True)
        self._drain.start()
        assert found.wait(30), "the server did not print its URL: " + "".join(self.log)
        self.base = self.url.removesuffix("/mcp")

    def post(
        self, method: str, params: dict[str, Any], token: str | None = None, scheme: str = "Bearer"
    ) -> tuple[int, dict[str, str], Any]:
        """POST one 2026-07-28 request with an optional token: status, headers, JSON body or None."""
        headers = mcp_http_headers(method, params.get("name"))
        if token is not None:
            headers["Authorization"] = f"{scheme} {token}"
        reply = http_post(self.url, modern_body(method, params), headers)
        return reply.status, reply.headers, reply.json() if reply.body else None

    def call(self, tool: str, token: str | None, **kw: Any) -> tuple[int, dict[str, str], Any]:
        return self.post("tools/call", {"name": tool, "arguments": kw}, token)

    def stop(self) -> str:
        self.proc.terminate()
        self.proc.wait(30)
        self._drain.join(30)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return "".join(self.log)


@pytest.fixture(scope="module")
def keys() -> dict[str, SigningKey]:
    return {
        "rs": SigningKey("rs-1", "RS256"),
        "es": SigningKey("es-1", "ES256"),
        "new": SigningKey("rs-2", "RS256"),
    }


@pytest.fixture(scope="module")
def jwks(keys: dict[str, SigningKey]) -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    server.keys = [keys["rs"].jwk, keys["es"].jwk]
    yield server
    server.close()


@pytest.fixture(scope="module")
def running(jwks: LoopbackServer) -> Iterator[Running]:
    r = Running(jwks.url + "/jwks")
    yield r
    r.stop()


TOKENS_USED: list[str] = []


def used(token: str) -> str:
    TOKENS_USED.append(token)
    return token


def challenge(headers: dict[str, str]) -> str:
    return next(v for k, v in headers.items() if k.lower() == "www-authenticate")


def test_metadata_document_names_resource_and_issuer(running: Running) -> None:
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        with urllib.request.urlopen(running.base + path, timeout=10) as resp:
            doc = json.loads(resp.read())
        assert doc == {
            "resource": AUDIENCE,
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["issues:read", "issues:write"],
        }


def test_valid_rs256_and_es256_tokens_reach_the_tool_with_a_principal(
    running: Running, keys: dict[str, SigningKey]
) -> None:
    for key in (keys["rs"], keys["es"]):
        status, _, reply = running.call("whoami", used(key.token()))
        assert status == 200, reply
        assert reply["result"]["structuredContent"] == {
            "subject": "alice",
            "scopes": ["issues:read"],
            "client": "test-client",
        }


def test_missing_token_and_other_scheme_get_401_with_resource_metadata(running: Running) -> None:
    metadata = running.base + "/.well-known/oauth-protected-resource/mcp"
    for status, headers, reply in (
        running.call("whoami", None),
        running.post(
            "tools/call", {"name": "whoami", "arguments": {}}, used("dXNlcjpwYXNz"), scheme="Basic"
        ),
    ):
        assert status == 401
        assert challenge(headers) == (
            f'Bearer resource_metadata="{metadata}", scope="issues:read issues:write"'
        )
        assert reply["error"]["message"] == "Unauthorized: send a valid bearer access token"


@pytest.mark.parametrize(
    ("case", "description"),
    [
        ("expired", "The access token expired"),
        ("not_yet", "The access token is not valid yet"),
        ("audience", "The access token was not issued for this resource"),
        ("issuer", "The access token was issued by an untrusted issuer"),
        ("tampered", "The access token's signature does not verify"),
        ("no_exp", "The access token lacks a required claim"),
        ("unknown_kid", "The access token's signing key is unknown"),
        ("hs256", "The access token's algorithm is not accepted"),
        ("garbage", "The access token is not a well-formed JWT"),
    ],
)
def test_refused_tokens_get_401_invalid_token(
    running: Running, keys: dict[str, SigningKey], case: str, description: str
) -> None:
    rs = keys["rs"]
    now = int(time.time())
    token = {
        "expired": lambda: rs.token(exp=now - 3600),
        "not_yet": lambda: rs.token(nbf=now + 3600),
        "audience": lambda: rs.token(aud="https://other.example.test/mcp"),
        "issuer": lambda: rs.token(iss="https://evil.example.test"),
        "tampered": lambda: tampered(rs.token()),
        "no_exp": lambda: rs.token(exp=None),
        "unknown_kid": lambda: SigningKey("never-published", "ES256").token(),
        "hs256": lambda: __import__("jwt").encode({"sub": "x"}, "k" * 32, algorithm="HS256"),
        "garbage": lambda: "not-a-jwt",
    }[case]()
    status, headers, reply = running.call("whoami", used(token))
    assert status == 401, reply
    assert challenge(headers) == (
        f'Bearer resource_metadata="{running.base}/.well-known/oauth-protected-resource/mcp", '
        f'error="invalid_token", scope="issues:read issues:write", '
        f'error_description="{description}"'
    )


def test_key_rotation_unknown_kid_refetches_the_jwks(
    running: Running, jwks: LoopbackServer, keys: dict[str, SigningKey]
) -> None:
    token = used(keys["new"].token())
    assert running.call("whoami", token)[0] == 401  # not published yet
    published = jwks.keys
    jwks.keys = [keys["new"].jwk, keys["es"].jwk]  # rotation: rs-1 retired, rs-2 published
    try:
        status, _, reply = running.call("whoami", token)
        assert status == 200, reply
        status, _, _ = running.call("whoami", used(keys["rs"].token()))
        assert status == 401  # the retired key's tokens stop working once the set is refetched
    finally:
        jwks.keys = published


def test_tool_scopes_hide_the_tool_and_refuse_the_call_with_403(
    running: Running, keys: dict[str, SigningKey]
) -> None:
    reader = used(keys["es"].token(scope="issues:read"))
    writer = used(keys["es"].token(scope="issues:read issues:write"))
    listed = running.post("tools/list", {}, reader)[2]["result"]
    assert [t["name"] for t in listed["tools"]] == ["whoami"]
    assert listed["cacheScope"] == "private"
    listed = running.post("tools/list", {}, writer)[2]["result"]
    assert [t["name"] for t in listed["tools"]] == ["whoami", "close_issue"]

    status, headers, reply = running.call("close_issue", reader, key="ENG-1")
    assert status == 403
    assert challenge(headers) == (
        f'Bearer resource_metadata="{running.base}/.well-known/oauth-protected-resource/mcp", '
        'error="insufficient_scope", scope="issues:write"'
    )
    assert reply["error"]["message"].startswith(
        "Forbidden: tool close_issue needs the scope(s) issues:write, which the access token lacks"
    )
    status, _, reply = running.call("close_issue", writer, key="ENG-1")
    assert status == 200 and reply["result"]["content"][0]["text"] == "closed ENG-1"


def test_a_crashing_verifier_gets_500_and_no_token_is_ever_logged(running: Running) -> None:
    status, _, reply = running.call("whoami", used("boom-secret-token-123"))
    assert status == 500
    ref = reply["error"]["data"]["reference"]
    assert "boom" not in json.dumps(reply)
    time.sleep(0.2)
    log = "".join(running.log)
    assert ref in log and "[token]" in log  # the detail is logged, the token redacted
    for token in TOKENS_USED:
        assert token not in log
