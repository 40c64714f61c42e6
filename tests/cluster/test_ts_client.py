"""The official TypeScript client (@modelcontextprotocol/client, pinned by
scripts/install-conformance.sh) through nginx: one legacy session over three replicas, no affinity.

tests/cluster/ts_client.mjs does the steps with the client's own API (Client,
StreamableHTTPClientTransport, its elicitation handler, terminateSession) and prints one JSON line
per scenario; these tests check them: 30 tools/call spread by round robin, an elicitation whose
answer is POSTed to another replica than the one running the tool, tools/list and resources/read
on the same session, and DELETE ending the session on every replica.

Node 22 and the client come from MCPCXX_NODE22 and MCPCXX_TOOLS_DIR (set by
scripts/test-cluster.sh) or else from running scripts/install-conformance.sh; without them the
tests fail (they are part of the proof, not optional).
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import shutil
import subprocess
import time
from typing import Any

import pytest
from harness import REPLICA_NAMES, Cluster, report

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = pathlib.Path(__file__).with_name("ts_client.mjs")
CLIENT_PACKAGE = pathlib.Path("node_modules", "@modelcontextprotocol", "client", "package.json")
ANSWER = "blue"  # what ts_client.mjs's elicitation handler answers


def node_and_tools() -> tuple[pathlib.Path, pathlib.Path]:
    """Node 22 and the folder whose node_modules holds the TS client: from MCPCXX_NODE22 and
    MCPCXX_TOOLS_DIR, else from scripts/install-conformance.sh's output; fails without them."""
    node, tools = os.environ.get("MCPCXX_NODE22"), os.environ.get("MCPCXX_TOOLS_DIR")
    why = "as MCPCXX_NODE22 and MCPCXX_TOOLS_DIR name them"
    if not (node and tools):
        run = subprocess.run(
            ["bash", str(ROOT / "scripts" / "install-conformance.sh")],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        found = dict(line.split("=", 1) for line in run.stdout.splitlines() if "=" in line)
        node, tools = found.get("NODE22"), found.get("TOOLS_DIR")
        why = f"scripts/install-conformance.sh exited {run.returncode}: {run.stderr[-2000:]}"
    if not (
        node
        and tools
        and os.access(node, os.X_OK)
        and (pathlib.Path(tools) / CLIENT_PACKAGE).is_file()
    ):
        pytest.fail(
            f"no Node 22 with the official TypeScript client ({why}; node {node!r}, tools "
            f"{tools!r}): run `bash scripts/install-conformance.sh` (scripts/test-cluster.sh does)",
            pytrace=False,
        )
    return pathlib.Path(node), pathlib.Path(tools)


@pytest.fixture(scope="module")
def ts_run(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Runs ts_client.mjs once against the module's cluster; its lines by scenario name."""
    node, tools = node_and_tools()
    # ESM resolves packages from the script's folder (not NODE_PATH): a copy next to a link.
    folder = tmp_path_factory.mktemp("ts-client")
    shutil.copy(SCRIPT, folder / SCRIPT.name)
    (folder / "node_modules").symlink_to(tools / "node_modules", target_is_directory=True)
    started = time.monotonic()
    try:
        run = subprocess.run(
            [str(node), str(folder / SCRIPT.name), cluster.url],
            capture_output=True,
            text=True,
            timeout=90,  # the script gives up after 60 s itself
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"ts_client.mjs hung for {e.timeout} s; stderr: {e.stderr!r}", pytrace=False)
    elapsed = time.monotonic() - started
    assert run.returncode == 0, (
        f"ts_client.mjs exited {run.returncode}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    )
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    by_name = {line["scenario"]: line for line in lines}
    http = by_name.get("http", {})
    report(
        f"TS client ({elapsed:.1f} s): {http.get('requests')} HTTP requests, statuses "
        f"{http.get('statuses')}, GET streams (status, replica) {http.get('get_streams')}"
    )
    return by_name


def scenario(ts_run: dict[str, Any], name: str) -> dict[str, Any]:
    """One scenario's line; fails when the script did not print it."""
    assert name in ts_run, f"ts_client.mjs printed no {name!r} line: {sorted(ts_run)}"
    line: dict[str, Any] = ts_run[name]
    return line


def test_ts_session_continues_over_every_replica(cluster: Cluster, ts_run: dict[str, Any]) -> None:
    connect, echo = scenario(ts_run, "connect"), scenario(ts_run, "echo")
    by_tool = collections.Counter(echo["replicas"])
    report(
        f"legacy TS session ({connect['protocol_version']}): initialize on "
        f"{connect['initialize_on']}, {echo['ok']}/{echo['calls']} tools/call echo succeeded, "
        f"served by {dict(sorted(by_tool.items()))}"
    )
    assert connect["session"], "the client holds no Mcp-Session-Id"
    assert connect["protocol_version"] == "2025-11-25"
    assert echo["calls"] == 30
    assert echo["ok"] == echo["calls"], f"failed or wrong echo results: {echo}"
    assert len(by_tool) > 1, f"round robin without affinity, yet one replica served all: {by_tool}"
    assert set(by_tool) == set(REPLICA_NAMES)
    # The replica in each result is the one nginx says served the POST: no replica forwarded.
    assert echo["posts"] == echo["replicas"]


def test_ts_elicitation_answered_through_another_replica(
    cluster: Cluster, ts_run: dict[str, Any]
) -> None:
    ask = scenario(ts_run, "ask")
    tries = ask["tries"]
    report(
        "legacy TS elicitation: "
        + "; ".join(
            f"tool on {t['tool_replica']}, answer POSTed to {t['answer_posted_to']} "
            f"({t['answer_status']}), result {t['action']}/{t['text']}"
            for t in tries
        )
    )
    assert tries, "no ask call ran"
    assert ask["elicitations"] == ["Which colour?"] * len(tries), "the handler was not asked"
    for t in tries:
        assert not t["error"], f"ask failed: {t}"
        assert (t["action"], t["text"]) == ("accept", ANSWER), t
        assert t["tool_replica"] in REPLICA_NAMES, t
        assert t["call_posted_to"] == [t["tool_replica"]], t
        assert len(t["answer_posted_to"]) == 1 and t["answer_status"] == [202], t
    crossed = [t for t in tries if t["answer_posted_to"][0] != t["tool_replica"]]
    assert crossed, "round robin never sent the answer to another replica than the tool's"


def test_ts_list_and_read_on_the_same_session(cluster: Cluster, ts_run: dict[str, Any]) -> None:
    line = scenario(ts_run, "list_read")
    report(
        f"legacy TS tools/list on {line['tools_list_on']} ({len(line['tools'])} tools), "
        f"resources/read on {line['read_on']}: {line['doc']!r}"
    )
    expected = {"ask", "chatter", "echo", "job", "say", "sleep", "touch", "whoami"}
    expected |= {"submit_payment", "payment_status"}  # test_at_most_once.py
    expected |= {"quota", "lookup"}  # test_middleware.py, test_cache.py
    assert set(line["tools"]) == expected
    assert len(line["read_on"]) == 1
    assert line["doc"] == f"document x, read on {line['read_on'][0]}"


def test_ts_terminate_ends_the_session_everywhere(cluster: Cluster, ts_run: dict[str, Any]) -> None:
    line = scenario(ts_run, "terminate")
    report(
        f"legacy TS terminateSession: DELETE {line['deleted']} (status, replica); the old "
        f"session id afterwards {line['after']}"
    )
    assert line["session_cleared"], "the client still holds the session id"
    assert len(line["deleted"]) == 1 and line["deleted"][0][0] in (200, 204), line
    assert {replica for _, replica in line["after"]} == set(REPLICA_NAMES), line
    assert [status for status, _ in line["after"]] == [404] * len(line["after"]), line
