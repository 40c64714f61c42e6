#!/usr/bin/env bash
# Lint gates: clang-format (no diff allowed) over all C++ we own, and clang-tidy (warnings as
# errors, .clang-tidy) over every library layer, the bindings and the examples; findings already
# known are listed in scripts/clang-tidy-baseline.txt and anything else fails.
# Python lint (ruff, mypy) runs in scripts/test-python.sh next to the installed package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mapfile -t cxx < <(git ls-files 'cpp/*.hpp' 'cpp/*.cpp' 'tests/cpp/*.hpp' 'tests/cpp/*.cpp' \
                                 'examples/*.cpp' 'bench/*.cpp' 'python/bindings/*.cpp' 'python/bindings/*.hpp')
echo "clang-format: ${#cxx[@]} files"
clang-format --dry-run --Werror "${cxx[@]}"
# clang-tidy needs only a configured tree (compile_commands.json, the generated version.hpp and
# the layer include roots), not a build: build/lint is configured with the bindings enabled.
db="${MCPCXX_LINT_BUILD:-build/lint}"
mkdir -p "$(dirname "$db")"
cmake -S . -B "$db" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPCXX_BUILD_PYTHON=ON \
  -DMCPCXX_BUILD_TESTS=ON -DMCPCXX_BUILD_EXAMPLES=ON > "$db.configure.log" 2>&1 \
  || { cat "$db.configure.log"; exit 1; }
python3 scripts/check_layers.py "$db"
# Every C++ folder that ships: the library (every layer), the bindings and the examples. The
# GoogleTest suites and bench/ are left out for CI time (about 10 s of clang-tidy per file).
mapfile -t tidy < <(git ls-files 'cpp/src/*.cpp' 'python/bindings/*.cpp' 'examples/*.cpp')
echo "clang-tidy: ${#tidy[@]} files (cpp/src, python/bindings, examples)"
python3 scripts/run_clang_tidy.py "$db" scripts/clang-tidy-baseline.txt "${tidy[@]}"
echo "lint: clean"
