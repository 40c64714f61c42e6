"""Peer benchmark: mcpcxx beside the official MCP SDKs, built and measured in one run.

Run through bench/peers/run.sh (it passes its arguments here). Steps: build or install every
peer at its pinned version (bench/peers/.build, not in git), then measure with the servers
interleaved inside each measure and the repetitions outermost, and write the median table into
docs/benchmarks.md between <!-- peers:begin --> and <!-- peers:end --> plus an SVG chart.

Measures (every reply is checked: the echoed text, or isError: true, or a JSON-RPC error):
- stdio, legacy handshake (2025-11-25): calls/s sequentially and with 32 in flight, for the echo
  tool (success), the failing tool (isError), invalid arguments and an unknown tool, driven by
  bench/stdio_load.cpp (a C++ client: a Python one bounds a sequential run at about 12,000
  calls/s), each timed run in a fresh server process after --warmup untimed calls;
- cold start: spawn to the initialize response;
- RSS: VmRSS after --rss-calls echo calls with 32 in flight;
- Streamable HTTP: echo over keep-alive connections (1 and 64), legacy sessions and 2026-07-28,
  requests/s with p50/p99 latency, by bench/http_load/load.cpp (built here, unchanged).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from clients import StdioServer, driven_rate, http_measure, request_template
from report import report, svg_chart, write_doc
from servers import BUILD, KINDS, PATH_KEYS, ROOT, Peer, Samples, build_all, peers


def add(res: Samples, peer: Peer, key: str, value: float) -> None:
    res.setdefault(peer.name, {}).setdefault(key, []).append(value)


def note(notes: dict[str, str], peer: Peer, what: str, why: str) -> None:
    key = f"{peer.name}: {what} (in at least one repetition)"
    if key not in notes:
        notes[key] = why
        print(f"   ! {key}: {why}", flush=True)


def stdio_round(
    peer: Peer, stdio_load: str, args: argparse.Namespace, res: Samples, notes: dict[str, str]
) -> None:
    for _ in range(args.cold_spawns):
        s = StdioServer(peer)
        try:
            add(res, peer, "cold_ms", s.handshake() * 1000)
        finally:
            s.close()
    s = StdioServer(peer)
    try:
        add(res, peer, "cold_ms", s.handshake() * 1000)
        s.run(request_template(peer, "echo"), "echo", 32, calls=args.rss_calls)
        add(res, peer, "rss_mib", s.rss_mib())
    except (RuntimeError, OSError, ValueError) as e:
        note(notes, peer, "stdio", f"{type(e).__name__}: {e}")
    finally:
        s.close()
    for kind in KINDS:
        for in_flight in (1, 32):
            try:
                rate = driven_rate(stdio_load, peer, kind, in_flight, args.duration, args.warmup)
            except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
                note(notes, peer, f"stdio {kind}", f"{type(e).__name__}: {e}")
            else:
                add(res, peer, f"{kind}_{in_flight}", rate)


def http_round(
    peer: Peer, load: str, args: argparse.Namespace, res: Samples, notes: dict[str, str]
) -> None:
    for era in ("legacy", "modern"):
        if (peer.http_legacy if era == "legacy" else peer.http_modern) is None:
            continue
        for conns in (1, 64):
            out = http_measure(peer, era, load, conns, args.duration)
            if "error" in out:
                note(notes, peer, f"HTTP {era} {conns}", str(out["error"]))
                continue
            add(res, peer, f"http_{era}_{conns}", float(out["rps"]))
            add(res, peer, f"http_{era}_{conns}_p50", float(out["p50_ms"]))
            add(res, peer, f"http_{era}_{conns}_p99", float(out["p99_ms"]))


def measure(
    all_peers: list[Peer], load: str, stdio_load: str, args: argparse.Namespace
) -> tuple[Samples, dict[str, str], list[float]]:
    res: Samples = {}
    notes: dict[str, str] = {}
    loads: list[float] = []
    for rep in range(args.repeats):
        # Repetitions outermost, servers interleaved inside each measure, the order rotated.
        order = all_peers[rep % len(all_peers) :] + all_peers[: rep % len(all_peers)]
        loads.append(os.getloadavg()[0])
        for peer in order:
            if peer.stdio is None:  # an HTTP-only variant
                continue
            print(f"rep {rep + 1}/{args.repeats} stdio {peer.name}", flush=True)
            stdio_round(peer, stdio_load, args, res, notes)
        loads.append(os.getloadavg()[0])
        for peer in order:
            if peer.http_legacy or peer.http_modern:
                print(f"rep {rep + 1}/{args.repeats} http {peer.name}", flush=True)
                http_round(peer, load, args, res, notes)
    loads.append(os.getloadavg()[0])
    return res, notes, loads


RUN_ARGS = ("duration", "repeats", "rss_calls", "cold_spawns", "warmup")


def publish(all_peers: list[Peer], res: Samples, section: str, args: argparse.Namespace) -> None:
    print(section)
    if not args.no_write:
        write_doc(section)
        with open(os.path.join(ROOT, "docs", "peers-benchmark.svg"), "w", encoding="utf-8") as f:
            f.write(svg_chart(all_peers, res))


def rerender(args: argparse.Namespace) -> int:
    """Renders the section and chart of the last run again (after a change to the report code)."""
    with open(os.path.join(BUILD, "last-run.json"), encoding="utf-8") as f:
        record = json.load(f)
    for k, v in record.get("args", {}).items():
        setattr(args, k, v)
    res: Samples = record["samples"]
    all_peers = [p for p in peers(dict.fromkeys(PATH_KEYS, "")) if p.name in res]
    section = report(all_peers, res, record["notes"], record["loads"], args, record["started"])
    publish(all_peers, res, section, args)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--duration", type=float, default=1.0, help="seconds per timed run (default 1)")
    ap.add_argument("--repeats", type=int, default=3, help="repetitions, median taken (default 3)")
    ap.add_argument("--rss-calls", type=int, default=2000, help="echo calls before reading RSS")
    ap.add_argument(
        "--warmup", type=int, default=200, help="untimed stdio calls before each timed run"
    )
    ap.add_argument(
        "--cold-spawns", type=int, default=1, help="extra spawns per rep for cold start"
    )
    ap.add_argument(
        "--mcpcxx-build",
        default=os.path.join(ROOT, "build", "dev"),
        help="configured mcpcxx build dir with -DMCPCXX_BUILD_PYTHON=ON (default build/dev)",
    )
    ap.add_argument(
        "--only", default="", help="comma-separated substrings: measure only these servers"
    )
    ap.add_argument("--no-write", action="store_true", help="print the section, do not edit docs/")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="render docs/ again from .build/last-run.json without building or measuring",
    )
    args = ap.parse_args()
    if args.report_only:
        return rerender(args)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    paths = build_all(args.mcpcxx_build)
    all_peers = peers(paths)
    if args.only:
        keep = [s.strip().lower() for s in args.only.split(",")]
        all_peers = [p for p in all_peers if any(k in p.name.lower() for k in keep)]
    res, notes, loads = measure(all_peers, paths["load"], paths["stdio_load"], args)
    section = report(all_peers, res, notes, loads, args, started)
    publish(all_peers, res, section, args)
    record = {
        "started": started,
        "loads": loads,
        "notes": notes,
        "samples": res,
        "args": {k: getattr(args, k) for k in RUN_ARGS},
    }
    with open(os.path.join(BUILD, "last-run.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
