#!/usr/bin/env bash
# Streamable HTTP checks: the official conformance suite (pinned) in both eras with the committed
# expected-failures baseline, and the official Python and TypeScript SDK clients (interop), against
# the C++ fixture server and (when the wheel is installed) the Python fixture server; then the HTTP
# GoogleTest suite. Runs everything, then exits non-zero if anything failed.
# Env: MCPCXX_BUILD_DIR (default build/ci when present, else build/http), MCPCXX_JOBS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${MCPCXX_JOBS:-2}"
build="${MCPCXX_BUILD_DIR:-}"
if [[ -z "$build" ]]; then
  if [[ -f build/ci/CMakeCache.txt ]]; then build=build/ci; else build=build/http; fi
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPCXX_BUILD_BENCH=OFF
fi
cmake --build "$build" -j "$jobs" --target mcpcxx_conformance_server
eval "$(bash scripts/install-conformance.sh)"

out="$(mktemp -d "${TMPDIR:-/tmp}/mcpcxx-http.XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

# Starts a fixture server (command...) that prints its URL on stderr; sets server_pid and url.
start_fixture() {
  : >"$out/server.log"
  "$@" 2>"$out/server.log" &
  server_pid=$!
  for _ in $(seq 1 200); do
    url="$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$out/server.log" | head -n1 || true)"
    [[ -n "$url" ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "test-http: the fixture server did not start:" >&2
  cat "$out/server.log" >&2
  return 1
}

stop_fixture() {
  cleanup
  server_pid=""
}

interop() {
  echo "test-http: interop, official Python SDK client (mcp) against $url"
  "$PYSDK_PYTHON" tests/conformance/interop_pysdk.py "$url"
  echo "test-http: interop, official TypeScript client (@modelcontextprotocol/client) against $url"
  cp tests/conformance/interop_ts.mjs "$TOOLS_DIR/interop_ts.mjs"  # ESM resolves from its folder
  "$NODE22" "$TOOLS_DIR/interop_ts.mjs" "$url"
}

run_conformance() {
  local rev="$1" log="$out/$label-$1" baseline=tests/conformance/baseline.yml
  # A fixture may have its own baseline (tests/conformance/baseline-<label>.yml) for what only
  # that fixture cannot do yet; each entry there says why.
  [[ -f "tests/conformance/baseline-$label.yml" ]] && baseline="tests/conformance/baseline-$label.yml"
  echo "test-http: conformance --requirements $rev against $url"
  if ! "$NODE22" "$CONFORMANCE" server --url "$url" --requirements "$rev" \
        --expected-failures "$baseline" -o "$log" >"$log.log" 2>&1; then
    grep -E '^Total|^  [✗+]|Unexpected|[Ss]tale' "$log.log" >&2 || true
    python3 - "$log" "$log.log" >&2 <<'PY' || true
import glob, json, re, sys
log = open(sys.argv[2], encoding="utf-8", errors="replace").read()
unexpected = set(re.findall(r"^\s+\S+ ([a-z0-9-]+)$", log.split("Unexpected failures")[1], re.M)) \
    if "Unexpected failures" in log else set()
for f in sorted(glob.glob(sys.argv[1] + "/*/checks.json")):
    scenario = f.split("/")[-2][len("server-"):-len("-2026-01-01T00-00-00-000Z")]
    if unexpected and scenario not in unexpected:
        continue
    for c in json.load(open(f)):
        if c.get("status") in ("FAILURE", "WARNING"):
            print(scenario, c.get("id"), c.get("status"), (c.get("errorMessage") or "")[:240])
PY
    echo "test-http: conformance $rev failed (full log: $log.log)" >&2
    return 1
  fi
  grep -E '^Total|Baseline' "$log.log" || true
}

label=cpp
echo "test-http: C++ fixture server (tests/fixtures/cpp/conformance_server.cpp)"
start_fixture "$build/tests/fixtures/cpp/mcpcxx_conformance_server" --host 127.0.0.1 --port 0
failed=0
run_conformance 2025-11-25 || failed=1
run_conformance 2026-07-28 || failed=1
interop || failed=1
stop_fixture

# The Python fixture on the installed wheel (scripts/test-python.sh leaves it in build/venv-test).
vpy="${MCPCXX_PYTHON:-build/venv-test/bin/python}"
if command -v "$vpy" >/dev/null 2>&1 && "$vpy" -c 'import mcpcxx._core' 2>/dev/null; then
  label=python
  echo "test-http: Python fixture server (tests/fixtures/python/conformance_server.py)"
  start_fixture "$vpy" tests/fixtures/python/conformance_server.py --port 0
  run_conformance 2025-11-25 || failed=1
  run_conformance 2026-07-28 || failed=1
  interop || failed=1
  stop_fixture
else
  echo "test-http: no installed mcpcxx wheel ($vpy); skipping the Python fixture server" >&2
fi

if [[ "${MCPCXX_HTTP_CTEST:-1}" == 1 ]]; then
  cmake --build "$build" -j "$jobs" --target mcpcxx_http_tests
  ctest --test-dir "$build" --output-on-failure -R '^Http' -j "$jobs"
fi
if ((failed)); then
  echo "test-http: FAILED (see the conformance and interop output above)" >&2
  exit 1
fi
echo "test-http: all HTTP checks passed"
