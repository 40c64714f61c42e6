"""The issue-tracker demo: its scripted client shows every failure case with the right shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from conftest import SOURCE_DIR

CLIENT = SOURCE_DIR / "examples" / "issue_tracker" / "client.py"


def exchanges(output: str) -> list[tuple[str, dict[str, Any]]]:
    """(title, response) per scripted call, read back from the printed raw frames."""
    out, title = [], ""
    for line in output.splitlines():
        if line.startswith("# "):
            title = line[2:]
        elif line.startswith("<-- "):
            out.append((title, json.loads(line[4:])))
    return out


def test_scripted_client_prints_every_case(tmp_path: Any) -> None:
    env = {**os.environ, "ISSUE_TRACKER_DB": str(tmp_path / "t.db")}
    for flag in ([], ["--legacy"]):
        proc = subprocess.run(
            [sys.executable, str(CLIENT), *flag],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        got = dict(exchanges(proc.stdout)[-16:-6])
        meta = {
            t: (r.get("result") or {}).get("_meta", {}).get("mcpcxx/error", {})
            for t, r in got.items()
        }
        assert "error" not in got["success: get_issue"]
        assert got["protocol error: unknown tool"]["error"]["code"] == -32602
        assert meta["isError: invalid arguments"]["category"] == "invalid_arguments"
        assert meta["isError: not found"]["category"] == "not_found"
        assert meta["isError: locked by another workflow"]["category"] == "conflict"
        assert meta["isError: approval required"]["category"] == "precondition_failed"
        assert meta["isError: protected branch"]["category"] == "permission_denied"
        unknown = meta["isError: upstream timeout, outcome unknown"]
        assert unknown["category"] == "timeout" and unknown["effect"] == "unknown"
        assert meta["isError: deadline exceeded (engine timeout)"]["category"] == "timeout"
        last = exchanges(proc.stdout)[-1][1]
        assert last["result"]["_meta"]["mcpcxx/error"]["category"] == "rate_limited"
        (tmp_path / "t.db").unlink()
