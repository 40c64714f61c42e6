"""Interop with clients nobody here wrote: the official Python SDK (mcp, pinned) in both eras and
the official TypeScript SDK (@modelcontextprotocol/sdk, pinned), both over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

from conftest import DEMO_SERVER

pytestmark = pytest.mark.interop
IN_CI = os.environ.get("CI") == "true"


def require(condition: bool, what: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"{what} is required in CI (scripts/test-python.sh installs it)")
        pytest.skip(f"{what} is not installed")


async def python_sdk_session(mode: str) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(
        command=sys.executable, args=[str(DEMO_SERVER)], env=dict(os.environ)
    )
    out: dict[str, Any] = {}
    async with Client(params, mode=mode) as client:
        out["tools"] = [t.name for t in (await client.list_tools()).tools]
        out["echo"] = await client.call_tool("echo", {"text": "hi ✓"})
        try:
            await client.call_tool("no_such_tool", {})
        except MCPError as e:
            out["unknown"] = e
        out["invalid"] = await client.call_tool("get_issue", {"key": 7})
        out["tool_error"] = await client.call_tool("get_issue", {"key": "ENG-9"})
        out["structured"] = await client.call_tool("stats", {"text": "a b"})
    return out


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_python_sdk_client(mode: str) -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        require(False, "the mcp package")
    out = asyncio.run(python_sdk_session(mode))
    assert {"echo", "get_issue", "stats"} <= set(out["tools"])
    assert out["echo"].is_error is False and out["echo"].content[0].text == "hi ✓"
    assert "unknown" in out, "an unknown tool must surface as a protocol error"
    assert out["unknown"].error.code == -32602
    assert "no_such_tool" in out["unknown"].error.message
    assert out["invalid"].is_error is True
    assert out["invalid"].content[0].text.startswith("Invalid arguments for tool get_issue")
    assert out["tool_error"].is_error is True
    assert out["tool_error"].content[0].text.startswith("Issue lookup failed: issue ENG-9.")
    assert out["structured"].structured_content == {"words": 2, "characters": 3}


def ts_report(script: str, *args: str) -> dict[str, Any]:
    """Run interop/<script>, an official TypeScript SDK client, on `args`; its JSON report."""
    modules = os.environ.get("MCPCXX_NODE_MODULES", "")
    node = shutil.which("node")
    require(bool(node), "node")
    require(
        bool(modules) and pathlib.Path(modules, "@modelcontextprotocol/sdk").is_dir(),
        "@modelcontextprotocol/sdk",
    )
    proc = subprocess.run(
        [str(node), str(pathlib.Path(__file__).with_name("interop") / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_PATH": modules},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_official_typescript_sdk_client() -> None:
    report = ts_report("ts_client.cjs", sys.executable, str(DEMO_SERVER))
    assert {"echo", "get_issue", "stats"} <= set(report["tools"])
    assert report["echo"]["ok"]["content"] == [{"type": "text", "text": "hi ✓"}]
    assert report["unknown"]["error"]["code"] == -32602, "must surface as a protocol error"
    invalid = report["invalid"]["ok"]
    assert invalid["isError"] is True
    assert invalid["content"][0]["text"].startswith("Invalid arguments for tool get_issue")
    tool_error = report["toolError"]["ok"]
    assert tool_error["isError"] is True
    assert tool_error["content"][0]["text"].startswith("Issue lookup failed: issue ENG-9.")
    assert report["structured"]["ok"]["structuredContent"] == {"words": 2, "characters": 3}
