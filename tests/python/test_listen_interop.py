"""subscriptions/listen with a client nobody here wrote: the official Python SDK (`mcp`, pinned in
scripts/requirements-dev.txt; its Client.listen() exists since 2.x) over stdio, against both
fixture servers (the C++ example server and its Python twin)."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
from typing import Any

import pytest

import golden_schema
import mcpcxx

pytestmark = pytest.mark.interop
IN_CI = os.environ.get("CI") == "true"
ROOT = pathlib.Path(__file__).parents[2]
PY_FIXTURE = ROOT / "tests" / "fixtures" / "python" / "fixture_server.py"


def cpp_fixture() -> pathlib.Path | None:
    # The same server the golden runner uses (MCPCXX_EXAMPLE_SERVER, else the dev build).
    path = golden_schema.CPP_EXAMPLE_SERVER
    return path if path.exists() else None


def command(fixture: str) -> list[str]:
    if fixture == "python":
        return [sys.executable, str(PY_FIXTURE)]
    path = cpp_fixture()
    if path is None:
        if IN_CI:
            pytest.fail("the C++ example server is required in CI")
        pytest.skip("the C++ example server is not built")
    return [str(path)]


def sdk_client_supports_listen() -> bool:
    try:
        from mcp import Client
    except ImportError:
        return False
    return hasattr(Client, "listen")


async def listen_session(argv: list[str]) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

    package_root = str(pathlib.Path(mcpcxx.__file__).parents[1])
    env = {
        **os.environ,
        "MCPCXX_EXAMPLE_LISTEN": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
    }
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    out: dict[str, Any] = {"events": []}
    async with Client(params, mode="2026-07-28") as client:
        async with client.listen(
            tools_list_changed=True,
            prompts_list_changed=True,
            resource_subscriptions=["memo://readme"],
        ) as sub:
            out["honored"] = sub.honored
            await client.call_tool("touch", {"uri": "memo://other"})  # not watched
            await client.call_tool("touch", {"uri": "memo://readme"})
            out["events"].append(await asyncio.wait_for(sub.__anext__(), 10))
            await asyncio.sleep(0.05)  # past the server's list_changed window
            await client.call_tool("grow", {"name": "fresh"})
            out["events"].append(await asyncio.wait_for(sub.__anext__(), 10))
        # Leaving the block cancels the listen (notifications/cancelled); the session goes on.
        out["after"] = await client.call_tool("fresh", {})
    out["types"] = (ResourceUpdated, ToolsListChanged)
    return out


@pytest.mark.parametrize("fixture", ["cpp", "python"])
def test_official_python_sdk_listens(fixture: str) -> None:
    if not sdk_client_supports_listen():
        if IN_CI:
            pytest.fail("an mcp package with Client.listen() is required in CI")
        pytest.skip("the installed mcp package has no Client.listen()")
    out = asyncio.run(listen_session(command(fixture)))
    honored = out["honored"]
    assert honored.tools_list_changed is True
    assert honored.prompts_list_changed is True
    assert honored.resource_subscriptions == ["memo://readme"]
    resource_updated, tools_list_changed = out["types"]
    first, second = out["events"]
    assert isinstance(first, resource_updated) and first.uri == "memo://readme"
    assert isinstance(second, tools_list_changed)
    assert out["after"].content[0].text == "I am fresh"
