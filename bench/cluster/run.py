"""Scale-out benchmark (issue 31; results in docs/scale-out.md, "Measured"). Not part of CI.

Throughput and latency (p50/p99) of keep-alive tools/call of a Python echo tool, in both eras
(2026-07-28; legacy 2025-11-25 with one session per connection), driven by the C++ load driver
bench/http_load/load.cpp (1 and 8 connections), against:
  - one replica without a store (state in memory), called directly;
  - one replica on Redis, called directly, and through nginx;
  - three replicas on Redis behind nginx (tests/cluster/nginx.conf.in: round robin, keep-alive).
With Redis, each run also reports Redis's main-thread CPU and commands per request (INFO).
Then, on three replicas: Redis CPU per tasks/get, per task created-run-completed and per listen
delivery (the capacity model's inputs), and the latency of two cross-replica paths against the
same path on one replica: a listen delivery (touch on replica A ->
notifications/resources/updated on a subscriptions/listen stream of replica B), and the answer
to a legacy elicitation/create POSTed to a replica other than the one whose tool waits for it
(one that never served the session, and one that holds a copy of it).
Finally bench/cluster/redis_ops.py counts Redis round trips per request kind (--no-ops skips it).

Every process (redis-server, replicas of bench/cluster/bench_server.py, nginx) is started in a
temporary folder on free loopback ports and stopped at the end (tests/cluster/harness.py).

Run with an interpreter that has the mcpcxx package and pydantic, e.g. the test venv:
    build/venv-test/bin/python bench/cluster/run.py [--seconds 0.5] [--json out.json]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import platform
import subprocess
import sys
import time
import uuid
from typing import Any

from common import ROOT, build_load_driver, cluster, endpoint, percentiles, run_load, wire

ERAS = ("modern", "legacy")
CONNECTIONS = (1, 8)


def redis_counters(c: Any) -> dict[str, float]:
    """Redis's main-thread CPU seconds and commands processed so far (INFO)."""
    raw = c.redis.command("INFO", "everything").decode()
    info = dict(line.split(":", 1) for line in raw.splitlines() if ":" in line)
    cpu = float(info["used_cpu_sys_main_thread"]) + float(info["used_cpu_user_main_thread"])
    return {"cpu_s": cpu, "commands": float(info["total_commands_processed"])}


def throughput(args: argparse.Namespace, driver: pathlib.Path) -> list[dict[str, Any]]:
    """Every setup x era x connection count: one load run each; with Redis also what Redis
    spent per request (main-thread CPU, commands; the idle rate measured first is subtracted)."""
    rows: list[dict[str, Any]] = []

    def measure(setup: str, port: int, c: Any, store: bool) -> None:
        idle: dict[str, float] = {}
        if store:
            before = redis_counters(c)
            time.sleep(1.0)
            after = redis_counters(c)
            idle = {k: after[k] - before[k] for k in after}
        for era in ERAS:
            for conns in CONNECTIONS:
                before = redis_counters(c) if store else {}
                started = time.monotonic()
                r = run_load(driver, port, era, conns, args.seconds, args.warmup)
                elapsed = time.monotonic() - started
                r.update(setup=setup)
                note = ""
                if store and r["requests"]:
                    after = redis_counters(c)
                    sent = r["requests"] * (args.seconds + args.warmup) / args.seconds
                    for k in ("cpu_s", "commands"):
                        r[f"redis_{k}"] = (after[k] - before[k] - idle[k] * elapsed) / sent
                    note = (
                        f", Redis {r['redis_cpu_s'] * 1e6:.1f} us CPU and "
                        f"{r['redis_commands']:.2f} commands per request"
                    )
                rows.append(r)
                print(
                    f"  {setup:30} {era:6} c={conns}: {r['requests']:6} requests, "
                    f"{r['errors']} errors, {r['rps']:6.0f}/s, p50 {r['p50_ms']:.2f} ms, "
                    f"p99 {r['p99_ms']:.2f} ms{note}",
                    flush=True,
                )

    with cluster(1, store=False) as c:
        measure("1 replica, no store", c.replicas[0].port, c, False)
    with cluster(1) as c:
        measure("1 replica, Redis", c.replicas[0].port, c, True)
        measure("1 replica, Redis, via nginx", c.port, c, True)
    with cluster(3) as c:
        measure("3 replicas, Redis, via nginx", c.port, c, True)
    return rows


def listen_latency(c: Any, rounds: int) -> dict[str, dict[str, float]]:
    """Touch on A or B -> the update on a listen stream of B: milliseconds, per path."""
    a, b = endpoint(c.replicas[0]), endpoint(c.replicas[1])
    uri = f"cluster://doc/bench-{uuid.uuid4().hex[:8]}"
    stream = b.listen({"resourceSubscriptions": [uri]})
    samples: dict[str, list[float]] = {"same replica": [], "cross replica": []}
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        wire.acknowledged(stream)
        for i in range(2 * rounds):
            path, where = ("cross replica", a) if i % 2 else ("same replica", b)
            sent: list[float] = []

            def touch(ep: wire.Endpoint = where, sent: list[float] = sent) -> wire.Reply:
                sent.append(time.perf_counter())
                return ep.tool("touch", uri=uri)

            done = pool.submit(touch)
            note = stream.next_message(10)
            arrived = time.perf_counter()
            assert note, "the listen stream ended"
            assert note.get("method") == "notifications/resources/updated", note
            assert done.result().status == 200
            samples[path].append((arrived - sent[0]) * 1000)
            time.sleep(0.005)
    finally:
        stream.close()
        pool.shutdown()
    return {k: percentiles(v) for k, v in samples.items()}


def redis_cpu_per_kind(c: Any, n: int) -> dict[str, dict[str, float]]:
    """Redis main-thread CPU and commands per request for what 2026-07-28 sends to Redis: `n`
    tasks/get of one running task, `n` tasks created, run and completed (bench_server's `hold`
    for 0 s, nobody polling), `n` listen deliveries (touch: one PUBLISH, received by every
    replica's bus bridge). The idle rate measured first is subtracted."""
    a, b = endpoint(c.replicas[0]), endpoint(c.replicas[1])
    before = redis_counters(c)
    time.sleep(1.0)
    idle = {k: v - before[k] for k, v in redis_counters(c).items()}

    def per_request(work: Any, settle: float = 0.0) -> dict[str, float]:
        start, t0 = redis_counters(c), time.monotonic()
        work()
        time.sleep(settle)
        end, elapsed = redis_counters(c), time.monotonic() - t0
        return {k: (end[k] - start[k] - idle[k] * elapsed) / n for k in end}

    held = a.tool("hold", wire.WITH_TASKS, seconds=120).result()["taskId"]
    out = {"tasks/get": per_request(lambda: [wire.task_get(b, held) for _ in range(n)])}
    a.call("tasks/cancel", {"taskId": held}, wire.WITH_TASKS)
    out["task created, run, completed"] = per_request(
        lambda: [a.tool("hold", wire.WITH_TASKS, seconds=0) for _ in range(n)], settle=1.0
    )
    uri = f"cluster://doc/cpu-{uuid.uuid4().hex[:8]}"
    with b.listen({"resourceSubscriptions": [uri]}) as stream:
        wire.acknowledged(stream)
        out["listen delivery (touch)"] = per_request(
            lambda: [a.tool("touch", uri=uri) for _ in range(n)], settle=0.5
        )
    return out


ASK_PATHS = ("same replica", "cross replica", "cross replica, session cached there")


def elicitation_latency(c: Any, rounds: int) -> dict[str, Any]:
    """A legacy tool on A asks (elicitation/create); the answer is POSTed to A, to B (which
    never served the session), or to B after B served one request of the session (B holds a
    copy) -> the tool's result on the call's stream: milliseconds per path, or why it failed
    (a path is abandoned at its first failure: the tool then waits out its timeout)."""
    a, b = endpoint(c.replicas[0]), endpoint(c.replicas[1])
    samples: dict[str, list[float]] = {path: [] for path in ASK_PATHS}
    failures: dict[str, str] = {}
    for i in range(len(ASK_PATHS) * rounds):
        path = ASK_PATHS[i % len(ASK_PATHS)]
        if path in failures:
            continue
        session = wire.LegacySession(a, wire.WITH_ELICITATION)
        session.initialize()
        answering = wire.LegacySession(a if path == "same replica" else b, wire.WITH_ELICITATION)
        answering.session_id = session.session_id
        if path.endswith("cached there"):
            assert answering.request("ping").status == 200
        call = session.open("tools/call", {"name": "ask", "arguments": {"question": "Colour?"}})
        try:
            _, asked = call.until(lambda m: m.get("method") == "elicitation/create", 15)
            t0 = time.perf_counter()
            answer = answering.answer(asked["id"], {"action": "accept", "content": {"text": "red"}})
            try:
                _, response = call.until(lambda m: "result" in m or "error" in m, 5)
            except (TimeoutError, AssertionError) as e:
                failures[path] = f"answer HTTP {answer.status}, then no result on the stream: {e}"
                continue
            t1 = time.perf_counter()
            out = wire.structured(response.get("result", {}))
            if answer.status != 202 or out.get("text") != "red":
                failures[path] = f"answer HTTP {answer.status}, result {response}"
                continue
            samples[path].append((t1 - t0) * 1000)
        finally:
            call.close()
            session.delete()
    out: dict[str, Any] = {k: percentiles(v) for k, v in samples.items()}
    for k, why in failures.items():
        out[k] = {**out[k], "failed": why}
    return out


def machine() -> str:
    """CPU model, cores and load, for the report."""
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = os.getloadavg()
    return (
        f"{model}, {os.cpu_count()} cores, load average {load[0]:.1f} at start; "
        f"Python {platform.python_version()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=200, help="listen deliveries per path")
    parser.add_argument("--ask-rounds", type=int, default=30, help="elicitations per path")
    parser.add_argument("--kind-requests", type=int, default=300, help="per Redis CPU kind")
    parser.add_argument("--no-ops", action="store_true", help="skip redis_ops.py")
    parser.add_argument("--json", help="write every result to this file")
    parser.add_argument(
        "--driver-dir", default=str(ROOT / "build" / "bench-cluster"), help="load driver here"
    )
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine()}
    print(f"machine: {results['machine']}")
    driver = build_load_driver(pathlib.Path(args.driver_dir))
    print("throughput (tools/call of echo, keep-alive):")
    results["throughput"] = throughput(args, driver)
    with cluster(3) as c:
        results["redis_cpu"] = redis_cpu_per_kind(c, args.kind_requests)
        for kind, v in results["redis_cpu"].items():
            print(
                f"  Redis per {kind}: {v['cpu_s'] * 1e6:.1f} us CPU, {v['commands']:.2f} commands",
                flush=True,
            )
        results["listen"] = listen_latency(c, args.rounds)
        print(f"listen delivery, ms: {json.dumps(results['listen'])}", flush=True)
        results["elicitation"] = elicitation_latency(c, args.ask_rounds)
        print(f"legacy elicitation answer, ms: {json.dumps(results['elicitation'])}", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
    if not args.no_ops:
        print("Redis per request kind (bench/cluster/redis_ops.py):", flush=True)
        ops = [sys.executable, str(pathlib.Path(__file__).with_name("redis_ops.py"))]
        subprocess.run(ops, check=True)


if __name__ == "__main__":
    main()
