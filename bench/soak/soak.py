#!/usr/bin/env python3
"""Soak and fault benchmark: mixed success and error traffic over stdio and HTTP, both eras.

Starts the example server (C++ by default, or the Python fixture server) as three processes: stdio
for a legacy client (initialize handshake, 2025-11-25), stdio for a 2026-07-28 client (per-request
_meta) and Streamable HTTP serving both eras (legacy sessions, closed and reopened every 500 calls,
and stateless 2026-07-28 POSTs). One client thread per stream sends, one call in flight at a time,
a seeded mix: tool success (50 %), tool error, invalid arguments, unknown tool, unexpected
exception and malformed JSON (10 % each). Every reply is checked (see traffic.py); a wrong or
missing reply is counted, never ignored.

Reports calls/s and p50/p99 latency per stream, and the RSS of each server process sampled every
second, with its least-squares slope after the warm-up and whether it is flat. Writes the table
into docs/benchmarks.md between <!-- soak:begin --> and <!-- soak:end --> and the plot into
docs/soak.svg (made here, no plotting library).

    python3 bench/soak/soak.py                     # 30 s quick look, C++ server
    python3 bench/soak/soak.py --duration 3600     # a real soak
    python3 bench/soak/soak.py --server python     # the Python fixture server
    python3 bench/soak/soak.py --no-docs           # print only

The C++ server binary defaults to build/dev/tests/fixtures/cpp/mcpcxx_example_server (build it with
`cmake --build build/dev --target mcpcxx_example_server`); the Python server needs the mcpcxx
package importable (installed, or the dev build's _core found through --python-build).
Latencies include the Python client's own cost; on a shared machine they are an upper bound.
"""

from __future__ import annotations

import argparse
import atexit
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clients import HttpClient, SoakError, StdioClient
from report import RssSeries, StreamStats, markdown, rss_verdict, svg, write_section
from traffic import ERAS, LEGACY, OPERATIONS, Mix, check_reply, request_body

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ServerProc:
    """One server process, the streams that talk to it and its RSS samples."""

    label: str
    proc: subprocess.Popen[bytes]
    series: RssSeries
    port: int = 0
    streams: list[StreamStats] = field(default_factory=list)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--duration", type=float, default=30.0, help="seconds of traffic (default 30)")
    p.add_argument("--warmup", type=float, help="seconds before RSS is judged (default 20 %%)")
    p.add_argument("--server", choices=("cpp", "python"), default="cpp")
    p.add_argument(
        "--server-bin",
        type=Path,
        default=ROOT / "build/dev/tests/fixtures/cpp/mcpcxx_example_server",
    )
    p.add_argument(
        "--python-build",
        type=Path,
        default=ROOT / "build/dev/python/bindings/pkg/mcpcxx",
        help="folder of the dev build's mcpcxx/_core*.so (else an installed mcpcxx is used)",
    )
    p.add_argument("--transports", default="stdio,http", help="comma list: stdio, http")
    p.add_argument("--seed", type=int, default=10)
    p.add_argument("--server-log", type=Path, help="append the servers' stderr to this file")
    p.add_argument("--doc", type=Path, default=ROOT / "docs/benchmarks.md")
    p.add_argument("--no-docs", action="store_true", help="print the table, write no file")
    args = p.parse_args()
    if args.duration <= 0:
        p.error("--duration must be positive")
    if args.warmup is None:
        args.warmup = min(0.2 * args.duration, 300.0)
    if args.server == "cpp" and not args.server_bin.is_file():
        p.error(
            f"{args.server_bin} does not exist; build it with `cmake --build build/dev "
            "--target mcpcxx_example_server` or pass --server-bin"
        )
    return args


def server_command(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if args.server == "cpp":
        return [str(args.server_bin)], env
    staged = stage_python_package(args.python_build)
    if staged:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [staged, env.get("PYTHONPATH")]))
    return [sys.executable, str(ROOT / "tests/fixtures/python/fixture_server.py")], env


def stage_python_package(ext_dir: Path) -> str:
    """A directory where `import mcpcxx` finds the sources of python/mcpcxx and the dev build's
    compiled _core (the dev build puts only _core in ext_dir); "" without a dev build, so an
    installed mcpcxx is used."""
    cores = sorted(ext_dir.glob("_core*.so"))
    if not cores:
        return ""
    stage = Path(tempfile.mkdtemp(prefix="mcpcxx-soak-"))
    atexit.register(shutil.rmtree, stage, ignore_errors=True)
    (stage / "mcpcxx").mkdir()
    for src in [*(ROOT / "python/mcpcxx").iterdir(), cores[0]]:
        if src.name != "__pycache__":
            (stage / "mcpcxx" / src.name).symlink_to(src)
    return str(stage)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the HTTP server exited with {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after 30 s")


def start_servers(args: argparse.Namespace, log: int | IO[bytes]) -> list[ServerProc]:
    cmd, env = server_command(args)
    transports = {t.strip() for t in args.transports.split(",")}
    servers = []
    if "stdio" in transports:
        for era in ERAS:
            proc = subprocess.Popen(
                cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
            )
            label = f"{args.server} stdio ({era_name(era)})"
            servers.append(ServerProc(label, proc, RssSeries(label)))
    if "http" in transports:
        port = free_port()
        http_env = dict(env, MCPCXX_EXAMPLE_HTTP_PORT=str(port))
        proc = subprocess.Popen(cmd, env=http_env, stdin=subprocess.DEVNULL, stderr=log)
        wait_listening(port, proc)
        label = f"{args.server} HTTP (both eras)"
        servers.append(ServerProc(label, proc, RssSeries(label), port))
    return servers


def era_name(era: str) -> str:
    return "legacy 2025-11-25" if era == LEGACY else era


def run_stream(server: ServerProc, era: str, stats: StreamStats, seed: int, until: float) -> None:
    """Sends the mix until `until`, checking every reply; reconnects HTTP after a failure."""
    mix = Mix(seed)
    next_id = 0
    client: StdioClient | HttpClient | None = None
    while time.monotonic() < until:
        try:
            if client is None:
                client = make_client(server, era)
            op = mix.next()
            next_id += 1
            body = request_body(op, era, next_id)
            t0 = time.perf_counter()
            reply = client.call(op, body)
            stats.latency.add(time.perf_counter() - t0)
            stats.per_op[op.name] = stats.per_op.get(op.name, 0) + 1
            problem = check_reply(op, next_id, reply)
        except (SoakError, OSError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
            client = None
            if server.proc.poll() is not None:
                record(stats, f"server exited with {server.proc.returncode}")
                return
        if problem:
            record(stats, problem)
    if client is not None:
        client.close()


def make_client(server: ServerProc, era: str) -> StdioClient | HttpClient:
    if server.port:
        return HttpClient(server.port, era)
    return StdioClient(server.proc, era)


def record(stats: StreamStats, problem: str) -> None:
    stats.failures += 1
    if not stats.first_failure:
        stats.first_failure = problem


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def sample(servers: list[ServerProc], start: float, until: float) -> None:
    """Every second until `until`: each server's RSS and its calls so far."""
    while True:
        now = time.monotonic()
        for s in servers:
            s.series.times.append(now - start)
            s.series.rss_mib.append(rss_mib(s.proc.pid))
            s.series.calls.append(sum(st.latency.count for st in s.streams))
        if now >= until:
            return
        time.sleep(min(1.0, max(0.0, until - time.monotonic())))


def launch(servers: list[ServerProc], args: argparse.Namespace) -> list[threading.Thread]:
    start = time.monotonic()
    until = start + args.duration
    threads = [threading.Thread(target=sample, args=(servers, start, until))]
    seed = args.seed
    for s in servers:
        eras = ERAS if s.port else (LEGACY if "legacy" in s.label else ERAS[1],)
        for era in eras:
            stats = StreamStats(f"{s.label.split(' (')[0]}, {era_name(era)}")
            s.streams.append(stats)
            seed += 1
            threads.append(threading.Thread(target=run_stream, args=(s, era, stats, seed, until)))
    for t in threads:
        t.start()
    return threads


def stop(servers: list[ServerProc]) -> list[str]:
    """Stops every server (EOF on stdio, SIGTERM on HTTP); returns the ones that misbehaved."""
    problems = []
    for s in servers:
        if s.proc.stdin is not None:
            s.proc.stdin.close()
        else:
            s.proc.terminate()
        try:
            code = s.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            s.proc.kill()
            code = s.proc.wait()
            problems.append(f"{s.label}: did not exit within 15 s of being stopped")
            continue
        if code != 0:
            problems.append(f"{s.label}: exited with {code}")
    return problems


def header(args: argparse.Namespace) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0]
    mix = ", ".join(f"{op.name} {op.weight} %" for op in OPERATIONS)
    return (
        f"`python3 bench/soak/soak.py --duration {args.duration:g} --server {args.server}`, run on "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, {platform.system()} {os.cpu_count()} vCPU "
        f"({cpu}), load average {load:.1f} at the end (the machine was shared). One Python client "
        f"thread per stream, one call in flight; mix: {mix}. Latency is the client's round trip "
        "(Python client cost included)."
    )


def main() -> int:
    args = parse_args()
    log: int | IO[bytes] = subprocess.DEVNULL
    if args.server_log is not None:
        log = args.server_log.open("ab")
    servers = start_servers(args, log)
    try:
        for t in launch(servers, args):
            t.join()
    finally:
        problems = stop(servers)
    streams = [st for s in servers for st in s.streams]
    series = [s.series for s in servers]
    body = markdown(header(args), streams, series, args.duration, args.warmup, "soak.svg")
    print(body)
    for st in streams:
        if st.failures:
            problems.append(f"{st.label}: {st.failures} wrong replies, first: {st.first_failure}")
    for p in problems:
        print(f"soak: PROBLEM: {p}", file=sys.stderr)
    if not args.no_docs:
        write_section(args.doc, body)
        (args.doc.parent / "soak.svg").write_text(svg(series, args.duration, args.warmup))
        print(f"soak: wrote {args.doc} and {args.doc.parent / 'soak.svg'}")
    flat = all(rss_verdict(s, args.warmup).flat for s in series)
    return 0 if not problems and flat else 1


if __name__ == "__main__":
    sys.exit(main())
