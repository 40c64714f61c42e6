"""The scripted clients of scripts/cluster-demo.sh: the issue tracker through nginx, 3 replicas.

Each request prints the replica that served it (nginx's X-Replica header: the engine has no
header of its own naming the replica). The scenarios: 2026-07-28 calls spread over every
replica; a production deploy asking first (input_required) whose retry lands on another
replica; a 2025-11-25 session that lives on every replica, with a live elicitation answered
through another replica; a replica SIGKILLed while clients keep calling (counted: sent, failed,
why); the session going on afterwards, and DELETE ending it everywhere. Exits 1 when a step did
not do what it should (the steps print why).

Usage: python scripts/cluster_demo_client.py --url http://127.0.0.1:PORT/mcp --kill r2=PID
"""

from __future__ import annotations

import argparse
import collections
import http.client
import itertools
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from typing import Any

MODERN, LEGACY = "2026-07-28", "2025-11-25"
ELICITATION: dict[str, Any] = {"elicitation": {"form": {}}}
_ids = itertools.count(1)
failed_steps: list[str] = []


class Reply:
    """A whole reply: status, headers, and the JSON-RPC messages (JSON body or SSE events)."""

    def __init__(self, status: int, headers: dict[str, str], messages: list[Any]) -> None:
        self.status, self.headers, self.messages = status, headers, messages
        self.replica = headers.get("x-replica", "?")

    def response(self) -> dict[str, Any]:
        """The JSON-RPC response among the messages ({} when there is none)."""
        return next((m for m in self.messages if "result" in m or "error" in m), {})


class Client:
    """Raw Streamable HTTP to one URL; a new connection per request, like many clients."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "", parts.port or 80, parts.path
        self.session = ""

    def open(self, verb: str, headers: dict[str, str], body: Any = None) -> tuple[Any, Any]:
        """Sends a request; (connection, response) with the response's head read."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        if self.session:
            headers = {**headers, "Mcp-Session-Id": self.session, "MCP-Protocol-Version": LEGACY}
        try:
            conn.request(verb, self.path, None if body is None else json.dumps(body), headers)
            return conn, conn.getresponse()
        except BaseException:
            conn.close()
            raise

    def send(self, verb: str, headers: dict[str, str], body: Any = None) -> Reply:
        """One request, read to its end."""
        conn, resp = self.open(verb, headers, body)
        try:
            heads = {k.lower(): v for k, v in resp.getheaders()}
            data = resp.read().decode()
        finally:
            conn.close()
        if heads.get("content-type", "").startswith("text/event-stream"):
            messages = [
                json.loads(line[5:])
                for line in data.splitlines()
                if line.startswith("data:") and line[5:].strip()
            ]
        else:
            messages = [json.loads(data)] if data.strip().startswith("{") else []
        return Reply(resp.status, heads, messages)

    def modern(self, tool: str, arguments: dict[str, Any], **extra: Any) -> Reply:
        """A 2026-07-28 tools/call (per-request _meta, Mcp-Method and Mcp-Name headers)."""
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": ELICITATION,
        }
        params = {"name": tool, "arguments": arguments, **extra, "_meta": meta}
        headers = {
            **HEADERS,
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        }
        return self.send("POST", headers, rpc("tools/call", params))

    def legacy(self, method: str, params: dict[str, Any] | None = None) -> Reply:
        """A request of the legacy session."""
        return self.send("POST", dict(HEADERS), rpc(method, params or {}))


HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC request with a fresh id."""
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}


def check(ok: bool, step: str, detail: str = "") -> None:
    """Prints a step's outcome; remembers a failed one."""
    print(f"   {'ok' if ok else 'FAILED'}: {step}{f' ({detail})' if detail and not ok else ''}")
    if not ok:
        failed_steps.append(step)


def summary(reply: Reply) -> str:
    """One line for a reply: the tool's text, an error, or the status."""
    response = reply.response()
    if "error" in response:
        return f"error {response['error']['code']}: {response['error']['message'][:90]}"
    result = response.get("result")
    if result is None:
        return f"HTTP {reply.status}"
    if result.get("resultType") == "input_required":
        asked = next(iter(result["inputRequests"].values()))
        return f"input_required: {asked['params']['message']!r}"
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    return ("isError: " if result.get("isError") else "") + text[:110]


def show(what: str, reply: Reply) -> Reply:
    """Prints `what`, the replica that served it and the outcome."""
    print(f"  {what:<44} -> {reply.replica:<3} {summary(reply)}")
    return reply


def modern_calls(c: Client) -> None:
    """2026-07-28: calls spread over the replicas; an input_required retry elsewhere."""
    print("\n== 2026-07-28: no session, every call stands alone: round robin spreads them")
    served = [
        show(f"get_issue {k}", c.modern("get_issue", {"key": k})).replica
        for k in ("ENG-1", "ENG-2", "ENG-42", "OPS-7")
    ]
    check(len(set(served)) == 3, "every replica served calls", str(served))
    print("\n== 2026-07-28: a production deploy asks first; the answer goes to another replica")
    first = show(
        "deploy_release v2.4.0 production",
        c.modern("deploy_release", {"version": "v2.4.0", "environment": "production"}),
    )
    result = first.response().get("result", {})
    if result.get("resultType") != "input_required":
        check(False, "input_required", summary(first))
        return
    key = next(iter(result["inputRequests"]))
    answer = {key: {"action": "accept", "content": {"confirm": True, "reason": "cluster demo"}}}
    retry = show(
        "  retry: inputResponses + requestState",
        c.modern(
            "deploy_release",
            {"version": "v2.4.0", "environment": "production"},
            inputResponses=answer,
            requestState=result["requestState"],
        ),
    )
    done = retry.response().get("result", {})
    check(
        retry.replica != first.replica
        and done.get("resultType") == "complete"
        and not done.get("isError"),
        "the retry on another replica completed the deploy",
        summary(retry),
    )


def legacy_session(c: Client) -> Client:
    """2025-11-25: a session on every replica; a live elicitation answered elsewhere."""
    print("\n== 2025-11-25: a session started on one replica, used on all of them")
    init = c.send(
        "POST",
        dict(HEADERS),
        rpc(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": ELICITATION,
                "clientInfo": {"name": "cluster-demo", "version": "1"},
            },
        ),
    )
    c.session = init.headers.get("mcp-session-id", "")
    print(f"  {'initialize':<44} -> {init.replica:<3} session {c.session or '(none)'}")
    note = c.send("POST", dict(HEADERS), {"jsonrpc": "2.0", "method": "notifications/initialized"})
    print(f"  {'notifications/initialized':<44} -> {note.replica:<3} HTTP {note.status}")
    calls = [
        show(
            "get_issue ENG-42",
            c.legacy("tools/call", {"name": "get_issue", "arguments": {"key": "ENG-42"}}),
        ),
        show(
            "update_issue ENG-2 closed",
            c.legacy(
                "tools/call",
                {"name": "update_issue", "arguments": {"key": "ENG-2", "state": "closed"}},
            ),
        ),
        show(
            "get_issue ENG-2",
            c.legacy("tools/call", {"name": "get_issue", "arguments": {"key": "ENG-2"}}),
        ),
    ]
    ok = note.status == 202 and all(r.status == 200 and "result" in r.response() for r in calls)
    check(
        ok,
        "the session works on every replica",
        ", ".join(f"{r.replica} {r.status}" for r in [note, *calls]),
    )
    print("  deploy_release v2.5.0 production: the tool asks the user live (elicitation/create)")
    conn, resp = c.open(
        "POST",
        dict(HEADERS),
        rpc(
            "tools/call",
            {
                "name": "deploy_release",
                "arguments": {"version": "v2.5.0", "environment": "production"},
            },
        ),
    )
    running_on = resp.getheader("X-Replica", "?")
    asked, result = None, None
    try:
        while True:
            line = resp.readline().decode()
            if not line:
                break
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if message.get("method") == "elicitation/create":
                    asked = message
                    print(
                        f"    tool running on {running_on}, asks: {message['params']['message']!r}"
                    )
                    sent = c.send(
                        "POST",
                        dict(HEADERS),
                        {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {
                                "action": "accept",
                                "content": {"confirm": True, "reason": "demo"},
                            },
                        },
                    )
                    print(f"    the user's answer POSTed -> {sent.replica} (HTTP {sent.status})")
                elif "result" in message or "error" in message:
                    result = Reply(200, {"x-replica": running_on}, [message])
                    break
    finally:
        conn.close()
    if result is not None:
        show("  the tool's result", result)
    check(
        asked is not None
        and result is not None
        and "result" in result.response()
        and not result.response()["result"].get("isError", False),
        "the live question was answered through another replica",
    )
    return c


def dead(pid: int) -> float:
    """Waits until process `pid` is dead (gone or a zombie: its sockets are closed); when."""
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return time.monotonic()
        except FileNotFoundError:
            return time.monotonic()
        time.sleep(0.001)


def load_and_kill(url: str, victim: str, pid: int) -> None:
    """Clients calling while `victim` is SIGKILLed: every request counted, failures explained."""
    print(f"\n== {victim} is killed (SIGKILL) while 6 clients keep calling get_issue for 4 s")
    stop, lock = threading.Event(), threading.Lock()
    outcomes: list[tuple[float, str, str]] = []  # (sent, replica, why it failed or "")

    def client() -> None:
        c = Client(url)
        while not stop.is_set():
            sent = time.monotonic()
            try:
                r = c.modern("get_issue", {"key": "ENG-1"})
                why = "" if r.status == 200 and "result" in r.response() else f"HTTP {r.status}"
                where = r.replica
            except (OSError, http.client.HTTPException) as e:
                why, where = type(e).__name__, "?"
            with lock:
                outcomes.append((sent, where, why))

    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    time.sleep(2)
    os.kill(pid, signal.SIGKILL)
    killed_at = dead(pid)
    print(f"  killed {victim} (pid {pid})")
    time.sleep(2)
    stop.set()
    for t in threads:
        t.join()
    failed = [o for o in outcomes if o[2]]
    before = collections.Counter(r for s, r, w in outcomes if not w and s < killed_at)
    after = collections.Counter(r for s, r, w in outcomes if not w and s >= killed_at)
    print(f"  sent {len(outcomes)}, succeeded {len(outcomes) - len(failed)}, failed {len(failed)}")

    def why(sent: float, where: str, failure: str) -> str:
        if where == victim and sent < killed_at:
            return f"{failure}: in flight on {victim} when it died"
        if where == victim and sent < killed_at + 0.5:
            return (
                f"{failure}: sent to {victim} as it died, on a pooled connection nginx had not "
                "yet seen close (a POST is never re-sent)"
            )
        return f"{failure}: UNEXPECTED (went to {where})"

    reasons = collections.Counter(why(*o) for o in failed)
    for reason, n in reasons.items():
        print(f"    {n} x {reason}")
    print(f"  served before the kill: {dict(sorted(before.items()))}")
    print(f"  served after the kill:  {dict(sorted(after.items()))}")
    check(victim not in after, f"nothing was served by {victim} after its death")
    check(
        not any("UNEXPECTED" in r for r in reasons),
        f"only requests that were on {victim} as it died failed",
    )


def after_the_kill(c: Client, victim: str) -> None:
    """The session of legacy_session() after the kill, then DELETE."""
    print(f"\n== the session goes on without {victim}; DELETE ends it everywhere")
    pings = [c.legacy("ping") for _ in range(2)]
    print("  ping: " + ", ".join(f"{r.replica} HTTP {r.status}" for r in pings))
    check(all(r.status == 200 for r in pings), "the session survived its replicas' loss")
    gone = c.send("DELETE", {"Accept": HEADERS["Accept"]})
    print(f"  {'DELETE':<44} -> {gone.replica:<3} HTTP {gone.status}")
    pings = [c.legacy("ping") for _ in range(2)]
    print("  ping: " + ", ".join(f"{r.replica} HTTP {r.status}" for r in pings))
    check(
        gone.status == 204 and all(r.status == 404 for r in pings),
        "after DELETE every replica answers 404",
    )


def main() -> int:
    """Runs the scenarios; 1 when a step failed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--kill", required=True, metavar="NAME=PID")
    args = parser.parse_args()
    victim, pid = args.kill.split("=")
    modern_calls(Client(args.url))
    session = legacy_session(Client(args.url))
    load_and_kill(args.url, victim, int(pid))
    after_the_kill(session, victim)
    print(
        f"\n== {len(failed_steps)} step(s) failed: {failed_steps}"
        if failed_steps
        else "\n== every step did what it should"
    )
    return 1 if failed_steps else 0


if __name__ == "__main__":
    sys.exit(main())
