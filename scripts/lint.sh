#!/usr/bin/env bash
# Lint gates: every repository path and CMake target README.md and docs/*.md name exists, and the
# README's C++ snippet equals examples/cpp/hello.cpp (scripts/check_docs_paths.py); clang-format
# (no diff allowed) over all C++ we own, and clang-tidy (warnings as errors, .clang-tidy) over every
# C++ folder; scripts/clang-tidy-baseline.txt (kept empty) lists findings known, anything else fails.
# Python lint (ruff, mypy) runs in scripts/test-python.sh next to the installed package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python3 scripts/check_docs_paths.py
mapfile -t cxx < <(git ls-files 'cpp/*.hpp' 'cpp/*.cpp' 'tests/*.hpp' 'tests/*.cpp' \
                                 'examples/*.cpp' 'bench/*.cpp' 'bench/*.hpp' 'python/bindings/*.cpp' \
                                 'python/bindings/*.hpp')
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
# Revision strings live only in the revisions table (cpp/src/wire/revisions.hpp).
python3 scripts/check_revisions.py --self-test
python3 scripts/check_revisions.py
# The library (every layer), the bindings, the examples, the C++ tests, the fuzz harnesses, the
# consumer test, the Google Benchmark programs and the HTTP load generator. Results are cached by
# preprocessed text (run_clang_tidy.py), so only changed translation units cost clang-tidy time.
# Sources no target of this tree builds borrow the command of a file built the same way: the fuzz
# harnesses (tests/fuzz/CMakeLists.txt, clang only) that of their layer, the consumer that of the
# hello example (both link mcpcxx::mcpcxx); the load generator gets the line bench/http_load/run.sh uses.
mapfile -t tidy < <(git ls-files 'cpp/src/*.cpp' 'python/bindings/*.cpp' 'examples/*.cpp' \
                                  'tests/cpp/*.cpp' 'tests/fixtures/*.cpp' 'tests/fuzz/*.cpp' 'tests/consumer/*.cpp' \
                                  'bench/bench_*.cpp' 'bench/http_load/load.cpp')
echo "clang-tidy: ${#tidy[@]} files (cpp/src, python/bindings, examples, tests, bench)"
# --group 8: sources with one compiler line are analysed eight at a time as one unit (the headers
# they share are parsed and matched once per group, a third of the time of a fresh machine); the
# unity build's check (scripts/check_unity.py) keeps them free of clashing names.
python3 scripts/run_clang_tidy.py -j "$(nproc)" --group 8 \
  --like tests/fuzz/fuzz_codec.cpp=cpp/src/jsonrpc/parse.cpp \
  --like tests/fuzz/fuzz_json_schema.cpp=cpp/src/schema/api.cpp \
  --like tests/fuzz/fuzz_http_request.cpp=cpp/src/transport/http/request_parser.cpp \
  --command "bench/http_load/load.cpp=c++ -std=c++20 -O2 -pthread" \
  --like tests/consumer/server.cpp=examples/cpp/hello.cpp \
  "$db" scripts/clang-tidy-baseline.txt "${tidy[@]}"
echo "lint: clean"
