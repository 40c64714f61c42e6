#!/usr/bin/env bash
# Sets everything up and runs every test: lint, the -Werror build with the GoogleTest suite, the
# address+undefined sanitizer build with the whole C++ suite again, the Python package with pytest,
# and (when present) the HTTP conformance and interop suites. Exits non-zero on the first failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${MCPCXX_JOBS:-$(nproc)}"
stage() { printf '\n==== %s ====\n' "$*"; }

stage "setup"
bash scripts/setup.sh

stage "build (-Werror)"
cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPCXX_WERROR=ON
cmake --build build/ci -j "$jobs"

stage "C++ tests"
ctest --test-dir build/ci --output-on-failure -j "$jobs"

stage "build (address,undefined sanitizers)"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMCPCXX_WERROR=ON -DMCPCXX_SANITIZE=ON \
      -DMCPCXX_BUILD_BENCH=OFF
cmake --build build/asan -j "$jobs"

stage "C++ tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs"

if [[ -x scripts/lint.sh ]]; then
  stage "lint"
  bash scripts/lint.sh
fi

if [[ -f pyproject.toml ]]; then
  stage "Python package and tests"
  bash scripts/test-python.sh
fi

if [[ -x scripts/test-http.sh ]]; then
  stage "HTTP conformance and interop"
  bash scripts/test-http.sh
fi
stage "all tests passed"
