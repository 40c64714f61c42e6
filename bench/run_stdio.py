"""stdio throughput of the success and error paths, servers interleaved, medians of --reps.

    python3 bench/run_stdio.py --load build/rel/bench/mcpcxx_stdio_load \
        --server "C++ example=build/rel/tests/fixtures/cpp/mcpcxx_example_server" \
        --server "Python fixture=python3 tests/fixtures/python/fixture_server.py" --reps 5 \
        --echo "Python echo=python3 bench/peers/mcpcxx_py/server.py stdio" \
        --peer "official SDK=python3 bench/peers/python_sdk/server.py stdio"

Each measure is one run of the C++ driver bench/stdio_load.cpp (spawn, legacy handshake,
--warmup untimed calls, then --calls tools/call of one case with 1 or 32 in flight). The floor
(the driver's --floor mode: nlohmann parse, build the echo reply, dump, in a blocking loop) is
always measured. Prints, per server and window, calls/s of every case, the worst error case's
ratio to the same server's success (tool_error against lookup_ok, the same tool and argument
check succeeding; the others against echo), echo's ratio to the floor, and the server's CPU
microseconds per call. --echo (an mcpcxx server with only an echo tool, such as bench/peers'
Python one) and --peer (another implementation's, from bench/peers) are measured on echo only,
in the same interleaving, and the echo of every --server and --echo is divided by each peer's: a
peer ratio from this C++ driver, not from bench/peers' Python client, whose own round trip
bounds a sequential run. A peer makes --peer-calls calls per measure (the official Python SDK
does about a thousand a second). Not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys

CASES = ("echo", "lookup_ok", "tool_error", "invalid_args", "unexpected", "unknown_tool")
WINDOWS = (1, 32)


def measure(
    load: str, command: list[str], case: str, window: int, calls: int, warmup: int
) -> dict[str, float]:
    argv = [load, "--case", case, "--calls", str(calls), "--warmup", str(warmup)]
    out = subprocess.run(
        [*argv, "--window", str(window), "--", *command],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", required=True, help="the mcpcxx_stdio_load binary")
    parser.add_argument("--server", action="append", default=[], help="NAME=COMMAND")
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=500, help="untimed calls before each measure")
    parser.add_argument("--echo", action="append", default=[], help="NAME=COMMAND, echo only")
    parser.add_argument("--peer", action="append", default=[], help="NAME=COMMAND, echo only")
    parser.add_argument("--peer-calls", type=int, default=2000, help="calls per peer measure")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    servers = {"floor": [args.load, "--floor"]}
    servers.update(named(args.server))
    echo_only = named(args.echo)
    peers = named(args.peer)
    servers.update(echo_only)
    servers.update(peers)
    rate: dict[tuple[str, str, int], list[float]] = {}
    cpu: dict[tuple[str, str, int], list[float]] = {}
    switches: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(args.reps):  # interleaved: every server sees the same machine load
        for window in WINDOWS:
            for case in CASES:
                for name, command in servers.items():
                    if (name == "floor" or name in echo_only or name in peers) and case != "echo":
                        continue
                    calls = args.peer_calls if name in peers else args.calls
                    r = measure(args.load, command, case, window, calls, args.warmup)
                    rate.setdefault((name, case, window), []).append(r["calls_per_s"])
                    cpu.setdefault((name, case, window), []).append(r["server_cpu_us_per_call"])
                    switches.setdefault((name, case, window), []).append(
                        r["server_switches_per_call"]
                    )
    med = {k: statistics.median(v) for k, v in rate.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    sw_med = {k: statistics.median(v) for k, v in switches.items()}
    print(f"calls/s, median of {args.reps} interleaved runs of {args.calls} calls", end="")
    print(f" after {args.warmup} untimed ones", end="")
    print(f" ({args.peer_calls} for a peer)" if peers else "")
    print("| server | in flight | " + " | ".join(CASES) + " | echo / floor | worst error / echo |")
    print("|---|---:|" + "---:|" * (len(CASES) + 2))
    for name in servers:
        for window in WINDOWS:
            echo = med[(name, "echo", window)]
            floor = med[("floor", "echo", window)]
            cells = []
            for case in CASES:
                k = (name, case, window)
                cells.append(
                    f"{med[k]:,.0f} ({cpu_med[k]:.1f} µs, {sw_med[k]:.1f} sw)" if k in med else "—"
                )
            errors = [med[(name, c, window)] / echo for c in CASES[2:] if (name, c, window) in med]
            if (name, "tool_error", window) in med:  # against its own success twin
                twin = med[(name, "lookup_ok", window)]
                errors[0] = med[(name, "tool_error", window)] / twin
            worst = f"{min(errors):.2f}" if errors else "—"
            row = " | ".join(cells)
            print(f"| {name} | {window} | {row} | {echo / floor:.2f} | {worst} |")
    print(
        "(in parentheses: the server's CPU time per call, user + system, and its threads'"
        " voluntary context switches per call)"
    )
    print_peer_ratios(med, [n for n in servers if n != "floor" and n not in peers], list(peers))
    return 0


def named(specs: list[str]) -> dict[str, list[str]]:
    """NAME=COMMAND arguments as {name: argv}."""
    out = {}
    for spec in specs:
        name, _, command = spec.partition("=")
        out[name] = shlex.split(command)
    return out


def print_peer_ratios(
    med: dict[tuple[str, str, int], float], ours: list[str], peers: list[str]
) -> None:
    """Echo of each server divided by echo of each peer, per window (same run)."""
    if not peers:
        return
    print("\necho of the server ÷ echo of the peer (medians of the same run)")
    print("| server | peer | " + " | ".join(f"in flight {w}" for w in WINDOWS) + " |")
    print("|---|---|" + "---:|" * len(WINDOWS))
    for name in ours:
        for peer in peers:
            cells = [f"{med[(name, 'echo', w)] / med[(peer, 'echo', w)]:.2f}" for w in WINDOWS]
            print(f"| {name} | {peer} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
