#!/usr/bin/env bash
# Sets everything up and runs every test: the -Werror build and the GoogleTest suite, the consumer tests of the installed library, the address+undefined sanitizer
# build with the whole C++ suite again, the ThreadSanitizer build (clang 14) with the threaded suites
# (engine, stdio, HTTP, golden transcripts against the example server), lint (with the layer rules), the release wheels for CPython 3.10-3.13 (manylinux,
# each tested in a fresh venv), the full Python suite, the scale-out tests (tests/cluster: three
# replicas behind nginx on a private Redis), the sdist, and (when present) the HTTP
# conformance and interop suites, the fuzzers and the wire-text check. Exits non-zero on the first
# failure and prints each stage's time. Compiles go through ccache when it is installed (its cache
# survives between runs on one machine; a fresh machine simply compiles everything).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${MCPCXX_JOBS:-$(nproc)}"
export MCPCXX_JOBS="$jobs"
times=()
stage_name=""
stage_start=$SECONDS
begin_at=$SECONDS
stage() {
  [[ -n "$stage_name" ]] && times+=("$(printf '%5ds  %s' $((SECONDS - stage_start)) "$stage_name")")
  stage_name="$*"
  stage_start=$SECONDS
  printf '\n==== %s ====\n' "$*"
}

stage "setup"
bash scripts/setup.sh
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  ccache -z >/dev/null
fi

# The three C++ builds below are unity builds (CMake joins up to eight sources of a target into
# one translation unit): most of a source's compile time is parsing the headers it shares with
# the others (nlohmann/json, the standard library, GoogleTest), and a fresh machine compiles
# each build in a third of the time. Joined sources share their anonymous namespaces, so
# scripts/check_unity.py first fails the run on a name two sources of one target both define
# (the compile error or silent overload it would cause). Developers' builds stay per-file.
unity=(-DCMAKE_UNITY_BUILD=ON)

stage "build (-Werror)"
# The Python extension too: the golden corpus runs every transcript against the Python fixture.
# Line tables only (-g1: enough for backtraces) and the suites at -O0: full debug information and
# optimized test code doubled the compile time of a fresh machine, and CI never opens a debugger.
cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPCXX_WERROR=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
      -DMCPCXX_TESTS_UNOPTIMIZED=ON -DMCPCXX_BUILD_PYTHON=ON "${unity[@]}" "${launcher[@]}"
python3 scripts/check_unity.py build/ci
cmake --build build/ci -j "$jobs"

stage "C++ tests"
ctest --test-dir build/ci --output-on-failure -j "$jobs"

stage "consumer tests (find_package, pkg-config, add_subdirectory)"
bash scripts/test-consumer.sh build/ci

stage "build (address,undefined sanitizers)"
# Sanitizer reports need line numbers, not full debug information (-g1).
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMCPCXX_WERROR=ON -DMCPCXX_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DMCPCXX_BUILD_BENCH=OFF "${unity[@]}" \
      "${launcher[@]}"
cmake --build build/asan -j "$jobs"

stage "C++ tests under sanitizers"
# The sanitized build has no Python extension: its golden run plays the C++ fixture only (the
# Python fixture ran against the same transcripts in the -Werror stage).
no_descriptors='^HttpFaults\.OutOfDescriptorsBacksOffAndKeepsServing$'
# The corpus's second pass with inline tools ran in the -Werror stage; the inline path itself is
# in the engine and HTTP suites run here (its 40 s under ASan would only repeat them).
MCPCXX_GOLDEN_FIXTURES=cpp \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs" \
  -E "$no_descriptors|^GoldenTranscripts\.WithInlineTools$"
# The test that exhausts file descriptors leaves none for the sanitizer runtime, whose vptr check
# then reports valid objects (scripts/ubsan-no-descriptors.supp says why): it runs alone, with
# only that check suppressed.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/scripts/ubsan-no-descriptors.supp" \
  ctest --test-dir build/asan --output-on-failure -R "$no_descriptors"

stage "build (thread sanitizer, clang 14)"
# TSan cannot share a build with ASan, and only the threaded code needs it: the engine (worker
# pool, deadlines, sessions), the stdio and HTTP transports, and the golden transcripts, which run
# the TSan-built example server over both transports (a race in that process makes it exit 66,
# which fails its transcript). Only these targets are built, to keep the stage short.
tsan_suites=(engine stdio http golden)
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMCPCXX_WERROR=ON \
      -DMCPCXX_SANITIZE_THREAD=ON -DMCPCXX_BUILD_BENCH=OFF \
      -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only \
      -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${unity[@]}" "${launcher[@]}"
tsan_targets=()
for suite in "${tsan_suites[@]}"; do tsan_targets+=("mcpcxx_${suite}_tests"); done
cmake --build build/tsan -j "$jobs" --target "${tsan_targets[@]}"

stage "engine, stdio, HTTP and golden tests under ThreadSanitizer"
# Each suite runs as one process (all its tests), bounded in time; any report fails it at once.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"
for suite in "${tsan_suites[@]}"; do
  MCPCXX_GOLDEN_FIXTURES=cpp timeout 900 "build/tsan/tests/cpp/mcpcxx_${suite}_tests" \
    --gtest_brief=1
done
unset TSAN_OPTIONS

if [[ -x scripts/fuzz.sh ]]; then
  stage "fuzzers"
  bash scripts/fuzz.sh
fi

if [[ -x scripts/check-wire-text.sh ]]; then
  stage "wire text check"
  bash scripts/check-wire-text.sh
fi

if [[ -x scripts/lint.sh ]]; then
  stage "lint"
  bash scripts/lint.sh
fi

if [[ -f pyproject.toml ]]; then
  # python3 runs the full suite (scripts/test-python.sh) on the wheel build-wheels.sh made for it.
  full="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  stage "release wheels (CPython 3.10-3.13, manylinux, each tested)"
  MCPCXX_FULL_PYTHON="$full" bash scripts/build-wheels.sh
  version="$(sed -n 's/^project(mcpcxx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
  tag="cp${full/./}"
  wheel="$(ls build/wheelhouse/mcpcxx-"$version"-"$tag"-"$tag"-*manylinux*.whl 2>/dev/null || true)"

  if [[ "${CI:-}" == true || "${MCPCXX_CI:-}" == 1 ]] ||
     { command -v chromium && command -v npm; } >/dev/null 2>&1; then
    # The MCP Apps browser test (tests/python/test_apps_browser.py) runs in the Python suite: in CI
    # this installs Chromium (apt) and its npm packages (about a minute on a fresh machine, most of
    # it Chromium); elsewhere it runs when Chromium and npm are there, and skips otherwise.
    stage "MCP Apps browser test: Chromium (apt) and npm packages"
    eval "$(bash scripts/install-apps-browser.sh)"
  fi

  stage "Python package and tests (full suite on CPython $full)"
  MCPCXX_WHEEL="${wheel:+$root/$wheel}" bash scripts/test-python.sh

  stage "scale-out tests (Redis, nginx, three replicas; the venv test-python.sh made)"
  bash scripts/test-cluster.sh

  stage "sdist (builds and installs from the unpacked archive)"
  bash scripts/test-sdist.sh
fi

if [[ -x scripts/test-http.sh ]]; then
  stage "HTTP conformance and interop"
  bash scripts/test-http.sh
fi
stage "done"
printf '\n==== stage times ====\n'
printf '%s\n' "${times[@]}"
printf '%5ds  total\n' $((SECONDS - begin_at))
if command -v ccache >/dev/null 2>&1; then
  ccache -s | grep -E 'Hits|Misses' || true
fi
echo "all tests passed"
