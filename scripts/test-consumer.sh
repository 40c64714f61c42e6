#!/usr/bin/env bash
# Consumer tests: installs the C++ library from an existing build (default build/ci) into a
# temporary prefix, then builds tests/consumer/server.cpp three ways and talks to each over stdio:
#   1. find_package(mcpcxx <version> EXACT) against the installed tree (tests/consumer/find_package)
#   2. pkg-config --cflags --libs mcpcxx against the installed tree
#   3. add_subdirectory(<source tree>) (tests/consumer/add_subdirectory)
# Exits non-zero on the first failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${1:-build/ci}"
jobs="${MCPCXX_JOBS:-$(nproc)}"
work="$root/build/consumer"
stage() { printf '\n---- %s ----\n' "$*"; }
fail() { echo "test-consumer: $*" >&2; exit 1; }

[[ -f "$build/CMakeCache.txt" ]] || fail "$build is not a configured build; run cmake first"
version="$(sed -n 's/^project(mcpcxx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
[[ -n "$version" ]] || fail "no project(mcpcxx VERSION x.y.z) line in CMakeLists.txt"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
rm -rf "$work"
mkdir -p "$work"

# Sends initialize, initialized, ping and an echo call; checks every reply and the version.
talk() {
  local server="$1" out="$work/reply.jsonl"
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"consumer-test","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"ping"}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' \
    | timeout 20 "$server" > "$out" 2> "$work/server.log" \
    || fail "$server exited with $? (log: $work/server.log)"
  python3 - "$out" "$version" <<'EOF'
import json, sys
replies = {m["id"]: m for m in map(json.loads, open(sys.argv[1]))}
assert replies[1]["result"]["serverInfo"] == {"name": "consumer", "version": sys.argv[2]}, replies[1]
assert replies[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}, replies[2]
assert replies[3]["result"]["content"] == [{"type": "text", "text": "hi"}], replies[3]
assert replies[3]["result"].get("isError", False) is False, replies[3]
EOF
  echo "ok: $server answered initialize, ping and tools/call (version $version)"
}

stage "install $build into a temporary prefix"
cmake --build "$build" -j "$jobs" --target mcpcxx_libraries
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in include/mcpcxx/mcpcxx.hpp include/mcpcxx/version.hpp lib/cmake/mcpcxx/mcpcxxConfig.cmake \
         lib/cmake/mcpcxx/mcpcxxConfigVersion.cmake lib/cmake/mcpcxx/mcpcxxTargets.cmake \
         lib/pkgconfig/mcpcxx.pc; do
  [[ -f "$work/prefix/$f" ]] || fail "the install is missing $f"
done
if grep -rlE '#include ["<](asio|llhttp|pybind11)' "$work/prefix/include"; then
  fail "an installed public header includes asio, llhttp or pybind11 (listed above)"
fi

stage "find_package(mcpcxx $version EXACT) against the installed tree"
cmake -S tests/consumer/find_package -B "$work/find_package" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DMCPCXX_EXPECTED_VERSION="$version" "${launcher[@]}" \
  > "$work/find_package.log"
cmake --build "$work/find_package" -j "$jobs" >> "$work/find_package.log"
talk "$work/find_package/consumer_server"

stage "pkg-config mcpcxx against the installed tree"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
[[ "$(pkg-config --modversion mcpcxx)" == "$version" ]] || fail "mcpcxx.pc reports another version"
mkdir -p "$work/pkg_config"
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
c++ -O1 tests/consumer/server.cpp -o "$work/pkg_config/consumer_server" \
  $(pkg-config --cflags --libs mcpcxx)
talk "$work/pkg_config/consumer_server"

stage "add_subdirectory(<mcpcxx source tree>)"
# This consumer compiles the whole library again; unoptimized (Debug without -g) it takes half
# the time, and what it checks (the targets, include paths and links add_subdirectory gives) does
# not depend on the optimization level. A unity build, like CI's own (scripts/test-all.sh says
# why), for the same reason.
cmake -S tests/consumer/add_subdirectory -B "$work/add_subdirectory" -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_UNITY_BUILD=ON \
  -DMCPCXX_SOURCE_DIR="$root" "${launcher[@]}" \
  > "$work/add_subdirectory.log"
cmake --build "$work/add_subdirectory" -j "$jobs" >> "$work/add_subdirectory.log"
talk "$work/add_subdirectory/consumer_server"
