"""Scripted client for the issue tracker: prints every exchange as raw JSON-RPC.

python examples/issue_tracker/client.py [--legacy]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from mcpcxx.inspect import LEGACY, MODERN, InspectError, StdioPeer

HERE = os.path.dirname(os.path.abspath(__file__))
STAGING = {"branch": "feature-x", "environment": "staging"}
SCRIPT = [
    ("success: get_issue", "get_issue", {"key": "ENG-1"}),
    ("protocol error: unknown tool", "get_issues", {"key": "ENG-1"}),
    ("isError: invalid arguments", "get_issue", {"key": "eng-1"}),
    ("isError: not found", "get_issue", {"key": "ENG-404"}),
    ("isError: locked by another workflow", "update_issue", {"key": "ENG-42", "state": "closed"}),
    ("protocol error: forbidden by policy", "update_issue", {"key": "OPS-7", "state": "open"}),
    (
        "isError: approval required",
        "create_deployment",
        {"branch": "release-2", "environment": "production"},
    ),
    (
        "isError: protected branch",
        "create_deployment",
        {"branch": "main", "environment": "staging"},
    ),
    (
        "isError: upstream timeout, outcome unknown",
        "create_deployment",
        {"branch": "release-2", "environment": "production", "change_request": "CR-7"},
    ),
    ("isError: deadline exceeded (engine timeout)", "sync_mirror", {}),
    (
        "at most once: a staging deploy outlives its 1 s deadline (outcome unknown)",
        "create_deployment",
        STAGING,
    ),
    (
        "at most once: the model retries at once: refused, the first deploy still runs",
        "create_deployment",
        STAGING,
    ),
    ("(the client waits 1 s: the first deploy finishes)", "", {}),
    (
        "at most once: the retry after it finished gets the first result again",
        "create_deployment",
        STAGING,
    ),
    (
        "at most once: the production deploy with an unknown outcome, repeated",
        "create_deployment",
        {"branch": "release-2", "environment": "production", "change_request": "CR-7"},
    ),
    *[("list_issues (rate limited after 5)", "list_issues", {}) for _ in range(6)],
]


def main() -> int:
    version = LEGACY if "--legacy" in sys.argv else MODERN
    env_db = os.environ.setdefault(
        "ISSUE_TRACKER_DB", os.path.join(tempfile.mkdtemp(prefix="issue-tracker-"), "tracker.db")
    )
    peer = StdioPeer(
        [sys.executable, os.path.join(HERE, "server.py")], sys.stdout, 30.0, True, version
    )
    peer.note(f"issue tracker over stdio, protocol {version}, database {env_db}")
    try:
        if version != MODERN:
            peer.request(
                "initialize",
                {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "demo", "version": "1"},
                },
            )
            peer.notify("notifications/initialized")
        peer.request("tools/list")
        for title, tool, arguments in SCRIPT:
            print(file=sys.stdout)
            peer.note(title)
            if not tool:  # a pause in the script
                time.sleep(1.0)
                continue
            peer.request("tools/call", {"name": tool, "arguments": arguments})
    except InspectError as e:
        print(f"client: {e}", file=sys.stderr)
        return 1
    return peer.close()


if __name__ == "__main__":
    sys.exit(main())
