#!/usr/bin/env bash
# Streamable HTTP load benchmark: keep-alive POST tools/call of an echo tool, 1 and 64 connections,
# for the C++ tool (mcpcxx_conformance_server), the Python tool (mcpcxx Python package, when
# installed) and the official Python SDK (pip mcp, installed into .tools/pysdk) in the same run.
# Load comes from bench/http_load/load.cpp in a separate process. Results: bench/results/http.jsonl
# and a Markdown table on stdout. Env: MCPCXX_BUILD_DIR (default build/ci), SECONDS_PER_RUN (5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${MCPCXX_BUILD_DIR:-build/ci}"
secs="${SECONDS_PER_RUN:-5}"
results="bench/results"
mkdir -p "$results" .tools
: >"$results/http.jsonl"

g++ -std=c++20 -O2 -pthread bench/http_load/load.cpp -o .tools/mcpcxx-http-load
cmake --build "$build" --target mcpcxx_conformance_server >/dev/null
if [[ ! -x .tools/pysdk/bin/python ]] || ! .tools/pysdk/bin/python -c 'import mcp, uvicorn' 2>/dev/null; then
  python3 -m venv .tools/pysdk
  .tools/pysdk/bin/pip install -q --disable-pip-version-check mcp==2.3.0 uvicorn
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench: nothing listens on port $1" >&2
  return 1
}

# name port era...
measure() {
  local name="$1" port="$2"
  shift 2
  for era in "$@"; do
    for conns in 1 64; do
      line="$(.tools/mcpcxx-http-load --port "$port" --connections "$conns" --seconds "$secs" \
              --warmup 1 --era "$era")"
      echo "{\"server\":\"$name\",${line#\{}" | tee -a "$results/http.jsonl"
    done
  done
}

"$build/tests/fixtures/cpp/mcpcxx_conformance_server" --port 18081 --io-threads 1 2>/dev/null &
pids+=($!)
wait_port 18081
measure "mcpcxx C++ tool" 18081 legacy modern

if python3 -c 'import mcpcxx' 2>/dev/null; then
  python3 bench/http_load/mcpcxx_echo.py 18082 2>/dev/null &
  pids+=($!)
  wait_port 18082
  measure "mcpcxx Python tool" 18082 legacy modern
else
  echo "bench: the mcpcxx Python package is not installed; skipping the Python tool" >&2
fi

.tools/pysdk/bin/python bench/http_load/pysdk_server.py 18083 2>/dev/null &
pids+=($!)
wait_port 18083
measure "official Python SDK (mcp 2.3.0)" 18083 legacy modern

python3 - "$results/http.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| Server | Era | Connections | calls/s | p50 ms | p90 ms | p99 ms | errors |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['server']} | {r['era']} | {r['connections']} | {r['rps']:,.0f} | {r['p50_ms']:.3f} "
          f"| {r['p90_ms']:.3f} | {r['p99_ms']:.3f} | {r['errors']} |")
PY
