#!/usr/bin/env bash
# Lint gates: clang-format (no diff allowed) over all C++ we own, and clang-tidy (warnings as
# errors, .clang-tidy) over the engine and codec sources using build/ci's compile_commands.json.
# Python lint (ruff, mypy) runs in scripts/test-python.sh next to the installed package.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mapfile -t cxx < <(git ls-files 'cpp/*.hpp' 'cpp/*.cpp' 'tests/cpp/*.hpp' 'tests/cpp/*.cpp' \
                                 'examples/*.cpp' 'bench/*.cpp' 'python/bindings/*.cpp' 'python/bindings/*.hpp')
echo "clang-format: ${#cxx[@]} files"
clang-format --dry-run --Werror "${cxx[@]}"
db="${MCPCXX_LINT_BUILD:-build/ci}"
[[ -f "$db/compile_commands.json" ]] || { echo "lint: $db/compile_commands.json missing; build first" >&2; exit 1; }
mapfile -t tidy < <(git ls-files 'cpp/src/engine/*.cpp' 'cpp/src/jsonrpc/*.cpp')
echo "clang-tidy: ${#tidy[@]} files"
mkdir -p build
# clang-tidy exits non-zero on findings; the log decides, so a clean run is not mistaken for one.
printf '%s\n' "${tidy[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$db" --quiet \
  > build/clang-tidy.raw 2>&1 || true
grep -vE '^[0-9]+ warnings? generated|^Suppressed|^Use -header-filter' build/clang-tidy.raw \
  > build/clang-tidy.log || true
cat build/clang-tidy.log
if grep -qE 'error:|warning:' build/clang-tidy.log; then
  echo "lint: clang-tidy findings above" >&2
  exit 1
fi
echo "lint: clean"
