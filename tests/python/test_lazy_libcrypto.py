"""A server built with MCPCXX_LAZY_LIBCRYPTO maps libcrypto only once it seals a requestState.

The C++ example server ($MCPCXX_EXAMPLE_SERVER) is checked when its executable does not list
libcrypto among its DT_NEEDED libraries (a lazy build, the default for native builds): an echo call
leaves libcrypto unmapped, and the first 2026-07-28 question, answered with a sealed requestState,
maps it (state/libcrypto.hpp). A build that links libcrypto (the wheel's) is skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import golden_schema

CPP_SERVER = golden_schema.CPP_EXAMPLE_SERVER
IN_CI = os.environ.get("CI") == "true"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "lazy-libcrypto-test", "version": "1"},
}


def _links_libcrypto(executable: Path) -> bool:
    dynamic = subprocess.run(
        ["readelf", "-d", str(executable)], capture_output=True, text=True, check=True
    ).stdout
    return "libcrypto" in dynamic


def _maps_libcrypto(pid: int) -> bool:
    return "libcrypto" in Path(f"/proc/{pid}/maps").read_text()


def _call(proc: subprocess.Popen[str], call_id: int, tool: str, arguments: dict[str, Any]) -> Any:
    assert proc.stdin is not None and proc.stdout is not None
    params = {"name": tool, "arguments": arguments, "_meta": META}
    request = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    assert reply["id"] == call_id, reply
    return reply["result"]


def test_libcrypto_is_mapped_only_when_a_state_is_sealed() -> None:
    if not CPP_SERVER.exists():
        why = f"C++ example server {CPP_SERVER} is missing (set MCPCXX_EXAMPLE_SERVER)"
        if IN_CI:
            pytest.fail(why)
        pytest.skip(why)
    if _links_libcrypto(CPP_SERVER):
        pytest.skip("this build links libcrypto (MCPCXX_LAZY_LIBCRYPTO=OFF)")
    env = {**os.environ, "MCPCXX_EXAMPLE_ASKING": "1"}
    with subprocess.Popen(
        [str(CPP_SERVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as proc:
        try:
            echoed = _call(proc, 1, "echo", {"text": "hi"})
            assert echoed["content"][0]["text"] == "hi", echoed
            assert not _maps_libcrypto(proc.pid), "libcrypto was mapped before any state was sealed"
            asked = _call(proc, 2, "elicit", {})
            assert asked["resultType"] == "input_required", asked
            assert asked["requestState"], asked
            assert _maps_libcrypto(proc.pid), "sealing a requestState did not load libcrypto"
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=30)
