"""One replica of the scale-out benchmark: the cluster tests' server
(tests/cluster/cluster_server.py: echo, touch, ask, job, chatter, the cluster://doc/{name}
resource) plus one prompt, so that every request kind of docs/scale-out.md has something to call.
Configured by the environment exactly as the tests' replicas are (MCPCXX_STORE_URL,
MCPCXX_REQUEST_STATE_KEY, MCPCXX_CLUSTER_REPLICA).

Run: python bench_server.py [--port 0] (prints the served URL on stderr).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "cluster"))

import cluster_server

from mcpcxx import Context

server = cluster_server.server


@server.prompt
def greet(name: str) -> str:
    """A greeting for `name` (prompts/get)."""
    return f"Say hello to {name}, from {cluster_server.REPLICA}."


@server.tool(task="optional")
def hold(seconds: float, ctx: Context, reports: int = 0) -> dict[str, Any]:
    """Reports progress `reports` times, then waits `seconds` or until cancelled (a task whose
    only Redis traffic is that of the task itself)."""
    for i in range(reports):
        ctx.report_progress(i + 1, reports, "holding")
    end = time.monotonic() + seconds
    while time.monotonic() < end and not ctx.cancelled:
        time.sleep(0.01)
    return cluster_server.me(cancelled=ctx.cancelled)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    cluster_server.log_line(f"replica {cluster_server.REPLICA} starting (bench)")
    sys.exit(server.run("http", host="127.0.0.1", port=args.port))
