"""A Python server with a JWT verifier, driven by the official Python and TypeScript MCP clients:
exactly the right tokens are accepted (valid, right audience and issuer, enough scope)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from auth_keys import LoopbackServer, SigningKey
from test_auth import Running
from test_interop import require, ts_report

# Needs the official clients (mcp from PyPI, the TypeScript SDK from npm): scripts/test-python.sh
# installs them; the per-interpreter wheel runs (-m 'not interop') do not.
pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def setup() -> Iterator[tuple[Running, SigningKey]]:
    key = SigningKey("interop-1", "ES256")
    jwks = LoopbackServer()
    jwks.keys = [key.jwk]
    running = Running(jwks.url + "/jwks")
    yield running, key
    running.stop()
    jwks.close()


async def python_session(url: str, token: str, mode: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    out: dict[str, Any] = {}
    try:
        async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as c:
            out["tools"] = [t.name for t in (await c.list_tools()).tools]
            out["whoami"] = (await c.call_tool("whoami", {})).structured_content
            try:
                out["close"] = (await c.call_tool("close_issue", {"key": "ENG-7"})).content[0].text
            except Exception as e:
                out["close_error"] = repr(e)
    except Exception as e:
        out["connect_error"] = repr(e)
    return out


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_python_client_with_jwt_tokens(
    setup: tuple[Running, SigningKey], mode: str
) -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        require(False, "the mcp package")
    running, key = setup
    reader = asyncio.run(python_session(running.url, key.token(), mode))
    assert reader["tools"] == ["whoami"]
    assert reader["whoami"]["subject"] == "alice"
    assert "close" not in reader and "close_error" in reader
    writer = asyncio.run(
        python_session(running.url, key.token(scope="issues:read issues:write"), mode)
    )
    assert writer["tools"] == ["whoami", "close_issue"] and writer["close"] == "closed ENG-7"
    for bad in (
        key.token(exp=int(time.time()) - 600),
        key.token(aud="https://other/mcp"),
        SigningKey("interop-1", "ES256").token(),
        "garbage",
    ):
        refused = asyncio.run(python_session(running.url, bad, mode))
        assert "connect_error" in refused and "tools" not in refused, refused


def test_official_typescript_client_with_jwt_tokens(setup: tuple[Running, SigningKey]) -> None:
    running, key = setup
    reader = ts_report("ts_auth_client.cjs", running.url, key.token())
    assert "error" not in reader["connect"], reader
    assert reader["tools"]["ok"] == ["whoami"]
    assert reader["whoami"]["ok"]["structuredContent"]["subject"] == "alice"
    assert "error" in reader["close"]
    writer = ts_report(
        "ts_auth_client.cjs", running.url, key.token(scope="issues:read issues:write")
    )
    assert writer["tools"]["ok"] == ["whoami", "close_issue"]
    assert writer["close"]["ok"]["content"] == [{"type": "text", "text": "closed ENG-7"}]
    for bad in (key.token(iss="https://evil"), SigningKey("interop-1", "ES256").token()):
        refused = ts_report("ts_auth_client.cjs", running.url, bad)
        assert "error" in refused["connect"] and "tools" not in refused, refused
