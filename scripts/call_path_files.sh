#!/usr/bin/env bash
# Which .cpp files of the library one stdio tools/call executes, measured with gcov.
#
#   scripts/call_path_files.sh [--modern] [--idle] [SRC_ROOT]
#
# Builds the stdio layer of the mcpcxx source tree SRC_ROOT (default: this checkout) and the probe
# bench/call_path/call_path.cpp (always from this checkout) with --coverage -O0, as the standalone
# project bench/call_path (no tests, examples, benchmarks, Python or HTTP layer; only the layers
# the probe links). The probe serves a server with one plain tool (echo, {"text": string}, an
# input schema, no task support, no scopes) with the stdio transport over pipes and plays the
# client: initialize 2025-11-25 + notifications/initialized and one warm-up tools/call (with
# --modern: no initialize; 2026-07-28 requests carrying _meta protocolVersion, clientCapabilities
# and clientInfo), then __gcov_reset(), one measured tools/call and its checked reply, a settle
# pause of 200 ms, __gcov_dump(). The script deletes stale .gcda files before the run, then runs
# gcov over the library's object files (bench/call_path/summarize.py).
#
# How to read the output:
#   * first block: every cpp/src/**/*.cpp with at least one line executed during the measured
#     call (setup, initialize and the warm-up are not counted), followed by the number of
#     distinct executed lines in it; then "# total: N .cpp files" - N is the figure asked for;
#   * second block: headers of cpp/src and cpp/include whose inline code (inline functions,
#     templates, lambdas defined in the header) ran, from any library .cpp, with their executed
#     lines; headers are not part of the .cpp count;
#   * the last line counts third-party and system headers that ran (not listed);
#   * the probe's own code (and the handler lambda in it) is not in the library's objects and is
#     never counted.
# The settle pause lets the threads that answered finish what follows the reply (releasing the
# request, metrics, returning to wait); --idle measures the same window without a call (what runs
# on its own, expected empty; the probe refuses to dump a window ending 0.9 s or more after the
# server started, where the worker pool's once-a-second supervisor wake could fall in it: exit
# status 3, run again). Line counts can vary by a few lines between runs where a thread's
# timing decides a branch (the reader's poll for the next request); the file list is stable.
#
# Build folder: build/call-path of this checkout when SRC_ROOT is this checkout, otherwise
# SRC_ROOT's path with "-call-path" appended (e.g. /tmp/before -> /tmp/before-call-path);
# CALL_PATH_BUILD_DIR overrides it. Environment: CALL_PATH_JOBS (default 2), GCOV (default gcov;
# must match the compiler, e.g. gcov-12 for g++-12), CCACHE_BASEDIR (default /work when ccache is
# used; the coverage flags make ccache miss on a first build).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
modern=0
idle=0
src_root=""
for arg in "$@"; do
  case "$arg" in
    --modern) modern=1 ;;
    --idle) idle=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "call_path_files.sh: unknown option $arg (usage: [--modern] [--idle] [SRC_ROOT])" >&2
      exit 2
      ;;
    *)
      if [[ -n "$src_root" ]]; then
        echo "call_path_files.sh: one SRC_ROOT only (got '$src_root' and '$arg')" >&2
        exit 2
      fi
      src_root="$arg"
      ;;
  esac
done
src_root="$(cd "${src_root:-$here}" && pwd)"
if [[ ! -f "$src_root/cpp/CMakeLists.txt" ]]; then
  echo "call_path_files.sh: $src_root is not an mcpcxx source tree (no cpp/CMakeLists.txt)" >&2
  exit 2
fi
if [[ -n "${CALL_PATH_BUILD_DIR:-}" ]]; then
  build="$CALL_PATH_BUILD_DIR"
elif [[ "$src_root" == "$here" ]]; then
  build="$here/build/call-path"
else
  build="${src_root%/}-call-path"
fi
jobs="${CALL_PATH_JOBS:-2}"
gcov="${GCOV:-gcov}"
for tool in cmake ninja python3 "$gcov"; do
  command -v "$tool" >/dev/null || {
    echo "call_path_files.sh: $tool is not installed" >&2
    exit 1
  }
done

launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-/work}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# -fprofile-update=atomic: the server's threads update the counters concurrently; exact counts.
flags="--coverage -O0 -fprofile-update=atomic"

echo "== configure $build (mcpcxx from $src_root)" >&2
mkdir -p "$build"
cmake -S "$here/bench/call_path" -B "$build" -G Ninja -DMCPCXX_SOURCE_DIR="$src_root" \
  -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DMCPCXX_BUILD_TESTS=OFF -DMCPCXX_BUILD_PYTHON=OFF \
  -DMCPCXX_BUILD_EXAMPLES=OFF -DMCPCXX_BUILD_BENCH=OFF "${launcher[@]}" >"$build/configure.log" 2>&1 ||
  {
    cat "$build/configure.log" >&2
    echo "call_path_files.sh: configuring $build failed" >&2
    exit 1
  }
echo "== build call_path (-j$jobs)" >&2
cmake --build "$build" -j "$jobs" --target call_path >&2

# Stale counters would be summed with the new ones (libgcov merges into existing .gcda files).
find "$build" -name '*.gcda' -delete

probe_args=()
era="2025-11-25 (initialize)"
if ((modern)); then
  probe_args+=(--modern)
  era="2026-07-28 (per-request _meta)"
fi
window="one $era tools/call"
if ((idle)); then
  probe_args+=(--idle)
  window="no call (--idle), $era warm-up"
fi
echo "== run the probe: $window" >&2
if ! "$build/call_path" "${probe_args[@]}" 2>"$build/probe.stderr"; then
  cat "$build/probe.stderr" >&2
  echo "call_path_files.sh: the probe failed (its stderr is above)" >&2
  exit 1
fi

summary_args=(--objects "$build/mcpcxx" --src-root "$src_root"
  --generated "$build/mcpcxx/generated/include" --gcov "$gcov")
if ((idle)); then
  summary_args+=(--allow-empty)
fi
echo "# stdio, a server with one plain tool: $window"
python3 "$here/bench/call_path/summarize.py" "${summary_args[@]}"
