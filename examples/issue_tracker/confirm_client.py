"""Scripted client: deploy_release asks the user before production, shown in both protocol eras.

python examples/issue_tracker/confirm_client.py

Prints every frame exactly as it crosses stdio, "-->" client to server, "<--" server to client,
with a "#" line before each saying what it is:

- legacy (2025-11-25 initialize session): staging deploys without a question; production makes
  the server send a live elicitation/create request, the client answers it with the user's
  confirmation, and the tool's result follows;
- 2026-07-28 (stateless): the first tools/call ends with resultType "input_required" carrying the
  question in inputRequests and the sealed requestState; the client retries the call with
  inputResponses and that requestState and gets the complete result. Then the user declines: an
  isError result saying nothing was deployed.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import tempfile
from typing import Any

from mcpcxx.inspect import (
    CLIENT_CAPABILITIES_KEY,
    LEGACY,
    MODERN,
    InspectError,
    StdioPeer,
    dumps,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ELICITATION: dict[str, Any] = {"elicitation": {"form": {}}}
CONFIRMED = {"action": "accept", "content": {"confirm": True, "reason": "release train #119"}}
DECLINED = {"action": "decline"}
STAGING = {"name": "deploy_release", "arguments": {"version": "v2.4.0", "environment": "staging"}}
PRODUCTION = {
    "name": "deploy_release",
    "arguments": {"version": "v2.4.0", "environment": "production"},
}


def receive(peer: StdioPeer) -> dict[str, Any]:
    """The server's next frame, printed as it arrived."""
    try:
        line = peer.lines.get(timeout=peer.timeout)
    except queue.Empty:
        raise InspectError(f"no frame from the server within {peer.timeout} s") from None
    if line is None:
        raise InspectError(f"the server exited (code {peer.proc.poll()})")
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    print(f"<-- {text}", flush=True)
    message: dict[str, Any] = json.loads(text)
    return message


def outcome(response: dict[str, Any]) -> str:
    """What a tools/call response says, in a few words."""
    result = response.get("result") or {}
    if result.get("isError"):
        return "the final result, isError: nothing was deployed"
    return f"the final result: deployment {(result.get('structuredContent') or {}).get('id')}"


def legacy_call(peer: StdioPeer, params: dict[str, Any], answer: dict[str, Any]) -> None:
    """tools/call on a session; answers each elicitation/create the server sends with `answer`."""
    body = peer.next_request("tools/call", params)
    peer.note("client -> server: tools/call")
    peer.send_frame(dumps(body))
    while True:
        message = receive(peer)
        if message.get("method") == "elicitation/create" and "id" in message:
            peer.note("^ server -> client: elicitation/create, a live request with its own id")
            peer.note(f"client -> server: the user's answer ({answer['action']}), same id")
            peer.send_frame(dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer}))
        elif message.get("id") == body["id"] and "method" not in message:
            peer.note(f"^ server -> client: {outcome(message)}")
            return


def modern_call(peer: StdioPeer, params: dict[str, Any], answer: dict[str, Any]) -> None:
    """tools/call; answers an input_required result with `answer` and retries once."""
    params = {**params, "_meta": {CLIENT_CAPABILITIES_KEY: ELICITATION}}
    peer.note("client -> server: tools/call (client capabilities in _meta)")
    first = peer.request("tools/call", params).get("result") or {}
    if first.get("resultType") != "input_required":
        raise InspectError("expected resultType input_required for a production deploy")
    peer.note("^ server -> client: input_required, the question in inputRequests, requestState")
    retry = {
        **params,
        "inputResponses": dict.fromkeys(first.get("inputRequests") or {}, answer),
        "requestState": first["requestState"],
    }
    peer.note(
        f"client -> server: the same call again, new id, inputResponses ({answer['action']}) "
        "and the requestState echoed; the server re-runs the tool with the answer"
    )
    peer.note(f"^ server -> client: {outcome(peer.request('tools/call', retry))}")


def legacy_era(command: list[str]) -> None:
    peer = StdioPeer(command, sys.stdout, 30.0, True, LEGACY)
    peer.note(f"=== legacy era: {LEGACY} session; the server asks with a live request ===")
    peer.note("client -> server: initialize declaring the elicitation capability")
    peer.request(
        "initialize",
        {
            "protocolVersion": LEGACY,
            "capabilities": ELICITATION,
            "clientInfo": {"name": "demo", "version": "1"},
        },
    )
    peer.notify("notifications/initialized")
    print()
    peer.note("staging: deployed without a question")
    peer.request("tools/call", STAGING)
    print()
    peer.note("production: the server asks the user first; the user confirms")
    legacy_call(peer, PRODUCTION, CONFIRMED)
    if peer.close() != 0:
        raise InspectError("the legacy server exited with an error")


def modern_era(command: list[str]) -> None:
    peer = StdioPeer(command, sys.stdout, 30.0, True, MODERN)
    peer.note(f"=== {MODERN} era: stateless; the question comes back as a result ===")
    print()
    peer.note("production: the user confirms")
    modern_call(peer, PRODUCTION, CONFIRMED)
    print()
    peer.note("production: the user declines; nothing is deployed")
    modern_call(peer, PRODUCTION, DECLINED)
    if peer.close() != 0:
        raise InspectError("the 2026-07-28 server exited with an error")


def main() -> int:
    env_db = os.environ.setdefault(
        "ISSUE_TRACKER_DB", os.path.join(tempfile.mkdtemp(prefix="issue-tracker-"), "tracker.db")
    )
    print(f"# issue tracker over stdio, database {env_db}")
    print("# frames: --> client to server, <-- server to client")
    command = [sys.executable, os.path.join(HERE, "server.py")]
    try:
        legacy_era(command)
        print()
        modern_era(command)
    except InspectError as e:
        print(f"client: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
