"""Instructions per call of the in-process dispatcher benchmarks, measured with callgrind.

    python3 bench/callgrind_dispatch.py build/dev/bench/mcpcxx_bench_dispatch [--filter REGEX]

Runs each benchmark of mcpcxx_bench_dispatch under `valgrind --tool=callgrind` twice, with
MCPCXX_BENCH_ITERATIONS set to a small and a larger count; the difference of the two instruction
totals divided by the difference of the counts is the cost of one call, setup excluded. Unlike
CPU time this does not move with the load of a shared machine, so before/after comparisons and
ratios to the floor (BM_dispatch_floor_parse_dump) are exact. Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

DEFAULT = (
    "BM_dispatch_floor_parse_dump",
    "BM_dispatch_tools_call_echo",
    "BM_dispatch_tools_call_echo_logged",
    "BM_dispatch_tools_list_100_cached",
    "BM_dispatch_tools_list_100_cache_hit_only",
    "BM_copy_parsed_list_request",
    "BM_path_success",
    "BM_path_tool_error",
    "BM_path_tool_error_returned",
    "BM_path_invalid_args",
    "BM_path_unexpected",
    "BM_path_unknown_tool",
)


def instructions(binary: str, name: str, iterations: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                binary,
                f"--benchmark_filter=^{name}(/|$)",
            ],
            env={**os.environ, "MCPCXX_BENCH_ITERATIONS": str(iterations)},
            capture_output=True,
            check=True,
            timeout=600,
        )
        with open(out, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m:
                    return int(m.group(1))
    raise RuntimeError(f"no instruction total for {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--filter", default="", help="only benchmarks whose name matches")
    parser.add_argument("--low", type=int, default=50)
    parser.add_argument("--high", type=int, default=550)
    args = parser.parse_args()
    names = [n for n in DEFAULT if re.search(args.filter, n)]
    per_call: dict[str, float] = {}
    for name in names:
        low = instructions(args.binary, name, args.low)
        high = instructions(args.binary, name, args.high)
        per_call[name] = (high - low) / (args.high - args.low)
        floor = per_call.get("BM_dispatch_floor_parse_dump")
        ratio = f"  x floor {per_call[name] / floor:5.2f}" if floor else ""
        success = per_call.get("BM_path_success")
        vs = (
            f"  success/path {success / per_call[name]:5.2f}"
            if success and name.startswith("BM_path_")
            else ""
        )
        print(f"{name:44s} {per_call[name]:10,.0f} instructions/call{ratio}{vs}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
