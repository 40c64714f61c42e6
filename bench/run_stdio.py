"""stdio throughput of the success and error paths, servers interleaved, medians of --reps.

    python3 bench/run_stdio.py --load build/rel/bench/mcpcxx_stdio_load \
        --server "C++ example=build/rel/examples/cpp/mcpcxx_example_server" \
        --server "Python fixture=python3 examples/python/fixture_server.py" --reps 5

Each measure is one run of the C++ driver bench/stdio_load.cpp (spawn, legacy handshake,
--calls tools/call of one case with 1 or 32 in flight). The floor (the driver's --floor mode:
nlohmann parse, build the echo reply, dump, in a blocking loop) is always measured. Prints, per
server and window, calls/s of every case, the worst error case's ratio to the same server's
success (tool_error against lookup_ok, the same tool and argument check succeeding; the others
against echo), echo's ratio to the floor, and the server's CPU microseconds per call. Not part
of the tests.
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


def measure(load: str, command: list[str], case: str, window: int, calls: int) -> dict[str, float]:
    out = subprocess.run(
        [load, "--case", case, "--calls", str(calls), "--window", str(window), "--", *command],
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
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    servers = {"floor": [args.load, "--floor"]}
    for spec in args.server:
        name, _, command = spec.partition("=")
        servers[name] = shlex.split(command)
    rate: dict[tuple[str, str, int], list[float]] = {}
    cpu: dict[tuple[str, str, int], list[float]] = {}
    switches: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(args.reps):  # interleaved: every server sees the same machine load
        for window in WINDOWS:
            for case in CASES:
                for name, command in servers.items():
                    if name == "floor" and case != "echo":
                        continue
                    r = measure(args.load, command, case, window, args.calls)
                    rate.setdefault((name, case, window), []).append(r["calls_per_s"])
                    cpu.setdefault((name, case, window), []).append(r["server_cpu_us_per_call"])
                    switches.setdefault((name, case, window), []).append(
                        r["server_switches_per_call"]
                    )
    med = {k: statistics.median(v) for k, v in rate.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    sw_med = {k: statistics.median(v) for k, v in switches.items()}
    print(f"calls/s, median of {args.reps} interleaved runs of {args.calls} calls")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
