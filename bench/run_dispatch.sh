#!/usr/bin/env bash
# Builds the dispatcher benchmark in Release and runs it with repetitions; prints medians, the
# ratio of dispatch to the nlohmann parse+dump floor, and the machine. Not part of the tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
MCPCXX_SKIP_PY=1 bash scripts/setup.sh
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DMCPCXX_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench --target mcpcxx_bench_dispatch -j "$(nproc)"
out=build/bench/dispatch.json
build/bench/bench/mcpcxx_bench_dispatch --benchmark_repetitions="${REPS:-7}" \
  --benchmark_report_aggregates_only=true --benchmark_format=json --benchmark_out="$out" \
  --benchmark_out_format=json >/dev/null
python3 - "$out" <<'PY'
import json, sys, platform, os
d = json.load(open(sys.argv[1]))
med = {b["run_name"]: b for b in d["benchmarks"] if b.get("aggregate_name") == "median"}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"machine: {cpu}, {os.cpu_count()} cores, {platform.platform()}")
floor = med["BM_dispatch_floor_parse_dump"]["cpu_time"]
for name, b in med.items():
    print(f"{name:48s} {b['cpu_time']:9.1f} ns  allocs/iter {b.get('allocs_per_iter', 0):6.1f}"
          f"  x floor {b['cpu_time'] / floor:5.2f}")
PY
