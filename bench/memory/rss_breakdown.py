#!/usr/bin/env python3
"""RSS of a stdio server after N echo calls, and where it sits (a measurement, not a timed test).

Each server is spawned, initialized over the 2025-06-18 handshake, sent --calls tools/call of the
echo tool with 32 in flight, and then its /proc/PID/status and /proc/PID/smaps are read while it
is still running. Servers are interleaved within each of --reps rounds; the table gives the median
VmRSS, RssAnon (private memory: heap, stacks, copied-on-write pages) and RssFile (pages of the
executable and shared libraries mapped in this process; shared with every other process using
them, and inflated by the kernel's fault-around, so it moves with the page cache), then the
mappings that hold the most, from the last round.

Usage:
  python3 bench/memory/rss_breakdown.py \\
      --server "C++ example=build/dev/tests/fixtures/cpp/mcpcxx_example_server" \\
      [--server "NAME=COMMAND ..."] [--calls 20000] [--reps 3]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shlex
import statistics
import subprocess

IN_FLIGHT = 32
MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def drive(command: list[str], calls: int) -> tuple[dict[str, int], collections.Counter[str]]:
    """Runs one server through `calls` echo calls; returns its status figures and RSS by mapping."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        initialize = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "rss", "version": "1"},
            },
        }
        proc.stdin.write((json.dumps(initialize) + "\n").encode())
        proc.stdin.flush()
        if not proc.stdout.readline():
            raise SystemExit(f"{command[0]} exited before answering initialize")
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        sent = answered = 0
        while answered < calls:
            while sent < calls and sent - answered < IN_FLIGHT:
                sent += 1
                call = {"name": "echo", "arguments": {"text": "hello"}}
                line = {"jsonrpc": "2.0", "id": sent, "method": "tools/call", "params": call}
                proc.stdin.write((json.dumps(line) + "\n").encode())
            proc.stdin.flush()
            reply = proc.stdout.readline()
            if not reply:
                raise SystemExit(f"{command[0]} exited after {answered} replies")
            if b'"error"' in reply or b'"isError":true' in reply:
                raise SystemExit(f"{command[0]} did not echo: {reply[:200]!r}")
            answered += 1
        return read_status(proc.pid), read_smaps(proc.pid)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


def read_status(pid: int) -> dict[str, int]:
    """VmRSS, RssAnon and RssFile in KiB."""
    figures = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                figures[key] = int(value.split()[0])
    return figures


def read_smaps(pid: int) -> collections.Counter[str]:
    """KiB resident per mapped file (anonymous mappings under their bracketed names)."""
    resident: collections.Counter[str] = collections.Counter()
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            if MAPPING.match(line):
                fields = line.split()
                name = fields[5] if len(fields) > 5 else "[anon]"
            elif line.startswith("Rss:"):
                resident[name] += int(line.split()[1])
    return resident


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", action="append", required=True, help="NAME=COMMAND")
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    servers = [(s.partition("=")[0], shlex.split(s.partition("=")[2])) for s in args.server]
    figures: dict[str, list[dict[str, int]]] = {name: [] for name, _ in servers}
    last: dict[str, collections.Counter[str]] = {}
    for _ in range(args.reps):
        for name, command in servers:
            status, mappings = drive(command, args.calls)
            figures[name].append(status)
            last[name] = mappings
    print(f"RSS after {args.calls:,} echo calls ({IN_FLIGHT} in flight), MiB, ", end="")
    print(f"median of {args.reps}:")
    print("\n| server | VmRSS | RssAnon | RssFile |\n|---|---:|---:|---:|")
    for name, rows in figures.items():
        keys = ("VmRSS", "RssAnon", "RssFile")
        cells = [statistics.median(r[k] for r in rows) / 1024 for k in keys]
        print(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    for name, mappings in last.items():
        print(f"\n{name}, resident KiB by mapping (last round):")
        for mapping, kib in mappings.most_common(10):
            print(f"  {kib:7,d}  {mapping}")


if __name__ == "__main__":
    main()
