"""One replica of the cluster tests' server (tests/cluster): N copies run behind nginx on one Redis.

Every copy is the same code; the environment tells them apart and joins them:
  MCPCXX_CLUSTER_REPLICA  this replica's name ("r1"), in every tool result and server-log line
  MCPCXX_CLUSTER_DIR      a folder the test reads (markers a cancelled task leaves there)
  MCPCXX_STORE_URL        the shared store (redis://127.0.0.1:<port>/0), read by run("http")
  MCPCXX_REQUEST_STATE_KEY the requestState key every replica shares, read by run("http")
The engine has no response header naming the replica that served a request, so each tool says
it in its result and each server-log line starts with "[<replica>]"; nginx adds X-Replica from
the upstream address it used (tests/cluster/nginx.conf.in).

At-most-once (tests/cluster/test_at_most_once.py): `submit_payment` is an at-most-once tool
(window 5 minutes, status check `payment_status`). Every run of its function appends one JSON
line to MCPCXX_CLUSTER_DIR/payment-runs.jsonl (one O_APPEND write, so lines of concurrent runs
on any replica never mix) before it holds `hold_ms`, so a test counts the runs of all replicas,
also of a run whose replica it then kills. The replicas run with a claim lease of CLAIM_LEASE
(1 s, `Server(at_most_once={"lease": ...})`, default 5 s): a repeat of a call whose replica died
gets T12 (reason replica_lost) about 1 s after the death instead of 5 s.

Rate limit (tests/cluster/test_middleware.py): `quota` is limited by the built-in RateLimit to
QUOTA_BURST calls per `tag` argument, refilling one token every 1000 s, so a test picks a fresh
tag and counts how many calls of it the replicas let through together (the buckets are in Redis).

Response cache (tests/cluster/test_cache.py, MCPCXX_CLUSTER_CACHE=1 only): a public
ResponseCache over `lookup` and every resources/read, entries in Redis for CACHE_TTL. Each run of
`lookup` or of the `cluster://cached/{name}` resource appends a line to
MCPCXX_CLUSTER_DIR/cached-runs.jsonl and answers with a run id, so a test sees whether a reply
came from the cache and counts the handler runs of all replicas.

Run: python cluster_server.py [--port 0] (prints the served URL on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
import uuid
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field

from mcpcxx import AtMostOnce, Context, Server, StatusCheck
from mcpcxx.middleware import RateLimit, Request, ResponseCache

REPLICA = os.environ.get("MCPCXX_CLUSTER_REPLICA", "r?")
MARKERS = pathlib.Path(os.environ.get("MCPCXX_CLUSTER_DIR", "."))
PAYMENT_RUNS = MARKERS / "payment-runs.jsonl"
CACHED_RUNS = MARKERS / "cached-runs.jsonl"
CACHE_TTL = timedelta(minutes=2)
"""How long the response cache (MCPCXX_CLUSTER_CACHE=1) keeps an entry."""
QUOTA_BURST = 3
"""How many `quota` calls per tag all replicas together let through (tests/cluster/test_middleware.py)."""
CLAIM_LEASE = timedelta(seconds=1)
"""How long a running at-most-once call's claim in Redis outlives its replica (renewed every
lease / 3 while it runs); tests/cluster/test_at_most_once.py bounds the replica_lost T12 by it."""


def log_line(line: str) -> None:
    """Every server-log line names this replica, so a log shows who served what."""
    sys.stderr.write(f"[{REPLICA}] {line}\n")
    sys.stderr.flush()


server = Server(
    "cluster-test",
    "1.0.0",
    workers=8,
    max_workers=64,
    tasks={"poll_interval_ms": 100},
    client_request_timeout=20,  # a legacy question nobody answers fails the test in 20 s, not 5 min
    log_writer=log_line,
    at_most_once={"lease": CLAIM_LEASE},
)


def me(**extra: Any) -> dict[str, Any]:
    """The replica's identity, merged into a tool's structured result."""
    return {"replica": REPLICA, "pid": os.getpid(), **extra}


@server.tool(annotations={"read_only_hint": True})
def whoami() -> dict[str, Any]:
    """Which replica served this call."""
    return me()


@server.tool(annotations={"read_only_hint": True})
def echo(text: str) -> dict[str, Any]:
    """Returns `text` and the replica that served it."""
    return me(text=text)


@server.tool(annotations={"read_only_hint": True})
def sleep(seconds: float, ctx: Context) -> dict[str, Any]:
    """Sleeps `seconds` (until cancelled), then says which replica slept; a progress
    notification first tells a client that asked for progress that it started."""
    ctx.report_progress(0, seconds, f"{REPLICA} sleeping")
    end = time.monotonic() + seconds
    while time.monotonic() < end and not ctx.cancelled:
        time.sleep(0.01)
    return me(slept=seconds, cancelled=ctx.cancelled)


@server.tool(annotations={"read_only_hint": True})
def chatter(count: int, interval: float, ctx: Context) -> dict[str, Any]:
    """Reports progress `count` times, `interval` seconds apart (SSE events to resume)."""
    for i in range(count):
        ctx.report_progress(i + 1, count, f"{REPLICA} step {i + 1}")
        time.sleep(interval)
    return me(count=count)


@server.tool(annotations={"read_only_hint": True})
def say(ctx: Context) -> dict[str, Any]:
    """Logs one info and one error message (notifications/message, filtered by setLevel)."""
    ctx.info(f"info from {REPLICA}")
    ctx.error(f"error from {REPLICA}")
    return me()


class Answer(BaseModel):
    """What `ask` asks the user."""

    text: str = Field(description="Your answer")


@server.tool
def ask(question: str, ctx: Context) -> dict[str, Any]:
    """Asks the user (legacy: elicitation/create; 2026-07-28: input_required) and returns it."""
    answer = ctx.elicit_sync(question, Answer)
    text = answer.content.text if answer.content is not None else None
    return me(action=answer.action, text=text)


@server.tool(task="optional")
def job(seconds: float, tag: str, ctx: Context) -> dict[str, Any]:
    """Works `seconds` (a task when the client declares the tasks extension); on cancel it
    leaves the marker file cancelled-<tag> naming this replica."""
    end = time.monotonic() + seconds
    step = 0
    while time.monotonic() < end:
        if ctx.cancelled:
            (MARKERS / f"cancelled-{tag}").write_text(REPLICA)
            return me(tag=tag, cancelled=True)
        step += 1
        if step % 20 == 0:
            ctx.report_progress(step, None, f"{REPLICA} working on {tag}")
        time.sleep(0.01)
    return me(tag=tag, cancelled=False)


def payment_runs(payment_id: str) -> list[dict[str, Any]]:
    """The runs of submit_payment's function for `payment_id`, on every replica."""
    if not PAYMENT_RUNS.exists():
        return []
    runs = [json.loads(line) for line in PAYMENT_RUNS.read_text().splitlines() if line]
    return [r for r in runs if r["payment_id"] == payment_id]


@server.tool(
    annotations={"destructive_hint": True},
    at_most_once=AtMostOnce(
        window=timedelta(minutes=5),
        status_check=StatusCheck("payment_status", ["payment_id"]),
    ),
)
def submit_payment(payment_id: str, amount: int, hold_ms: int = 0) -> dict[str, Any]:
    """Pays `amount` once per payment: records the run (payment-runs.jsonl), then holds
    `hold_ms` milliseconds before it answers with a confirmation unique to this run."""
    line = json.dumps({"payment_id": payment_id, "amount": amount, **me()}) + "\n"
    fd = os.open(PAYMENT_RUNS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    time.sleep(hold_ms / 1000)
    return me(payment_id=payment_id, amount=amount, confirmation=uuid.uuid4().hex)


@server.tool(annotations={"read_only_hint": True})
def payment_status(payment_id: str) -> dict[str, Any]:
    """How many times submit_payment's function ran for `payment_id`, and where."""
    runs = payment_runs(payment_id)
    return me(payment_id=payment_id, runs=len(runs), on=[r["replica"] for r in runs])


@server.resource("cluster://doc/{name}", mime_type="text/plain")
def doc(name: str) -> str:
    """A document; `touch` announces that it changed."""
    return f"document {name}, read on {REPLICA}"


@server.tool
def touch(uri: str) -> dict[str, Any]:
    """Announces that resource `uri` changed (notifications/resources/updated)."""
    server.notify_resource_updated(uri)
    return me(uri=uri)


@server.tool(annotations={"read_only_hint": True})
def quota(tag: str) -> dict[str, Any]:
    """A call the rate limit counts per `tag` (QUOTA_BURST per tag across the cluster)."""
    return me(tag=tag)


def quota_key(request: Request) -> str:
    """The rate limit's bucket: one per `tag` argument."""
    return f"tag:{(request.arguments or {}).get('tag', '')}"


server.add_middleware(
    RateLimit(
        name="cluster_quota",
        burst=QUOTA_BURST,
        per_second=0.001,
        key=quota_key,
        description=f"{QUOTA_BURST} calls of quota per tag",
        tools=("quota",),
    )
)


def record_run(what: str) -> str:
    """Appends one line for a handler run (one O_APPEND write); returns the run's id."""
    run = uuid.uuid4().hex[:12]
    line = json.dumps({"what": what, "run": run, **me()}) + "\n"
    fd = os.open(CACHED_RUNS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return run


@server.tool(annotations={"read_only_hint": True})
def lookup(key: str) -> dict[str, Any]:
    """A read the response cache answers (MCPCXX_CLUSTER_CACHE=1): a new run id per real run."""
    return me(key=key, run=record_run(f"lookup {key}"))


@server.resource("cluster://cached/{name}", mime_type="text/plain")
def cached(name: str) -> str:
    """A resource the response cache answers (MCPCXX_CLUSTER_CACHE=1)."""
    return f"{name} run {record_run(f'cached {name}')} on {REPLICA}"


if os.environ.get("MCPCXX_CLUSTER_CACHE") == "1":
    server.add_middleware(
        ResponseCache(
            name="cluster_cache",
            ttl=CACHE_TTL,
            scope="public",
            tools=("lookup",),
            methods=("tools/call", "resources/read"),
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    log_line(f"replica {REPLICA} starting, pid {os.getpid()}")
    sys.exit(server.run("http", host="127.0.0.1", port=args.port))
