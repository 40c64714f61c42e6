#!/usr/bin/env bash
# Builds the wheel (or takes MCPCXX_WHEEL, one scripts/build-wheels.sh built and repaired), installs
# it into a fresh virtual environment (binary only: nothing is compiled there), checks that its
# version is project(VERSION), and runs ruff, mypy --strict and the pytest suite against the installed
# package, including the interop tests with the official Python and TypeScript MCP clients.
# Exits non-zero on any failure; a pytest run that collects no tests (exit 5) is a failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"
stage() { printf '\n---- %s ----\n' "$*"; }

stage "lint: ruff check, ruff format --check, mypy --strict"
"$py" -m ruff check python/mcpcxx tests/python tests/fixtures/python tests/examples examples/python examples/issue_tracker scripts/check_docs_paths.py bench/import_compare.py bench/python_stdio_throughput.py
"$py" -m ruff format --check python/mcpcxx tests/python tests/fixtures/python tests/examples examples/python examples/issue_tracker scripts/check_docs_paths.py bench/import_compare.py bench/python_stdio_throughput.py
"$py" -m mypy --strict python/mcpcxx

if [[ -n "${MCPCXX_WHEEL:-}" ]]; then
  # scripts/build-wheels.sh already built and repaired this interpreter's wheel.
  wheel="$MCPCXX_WHEEL"
  [[ -f "$wheel" ]] || { echo "test-python: MCPCXX_WHEEL=$wheel does not exist" >&2; exit 1; }
  stage "wheel: $wheel (from scripts/build-wheels.sh)"
else
  stage "wheel (pip wheel ., persistent build dir build/wheel-*)"
  rm -f build/wheelhouse-dev/mcpcxx-*.whl
  CMAKE_BUILD_PARALLEL_LEVEL="${MCPCXX_JOBS:-2}" \
    "$py" -m pip wheel . -w build/wheelhouse-dev --no-deps --no-build-isolation \
    --disable-pip-version-check -q
  wheel="$(ls build/wheelhouse-dev/mcpcxx-*.whl)"
  echo "built $wheel"
fi

stage "fresh venv build/venv-test, binary-only install (no compiler used)"
rm -rf build/venv-test
"$py" -m venv build/venv-test
vpy="$root/build/venv-test/bin/python"
pins() { grep -E "^($1)==" scripts/requirements-dev.txt; }
CC=/bin/false CXX=/bin/false "$vpy" -m pip install -q --disable-pip-version-check \
  --only-binary=:all: "$wheel" $(pins 'pytest|pytest-xdist|mcp|jsonschema|pydantic|PyJWT|cryptography|opentelemetry-api|opentelemetry-sdk|prometheus_client')

version="$(sed -n 's/^project(mcpcxx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
"$vpy" -c "import importlib.metadata as m, mcpcxx; v = mcpcxx.__version__; \
assert v == m.version('mcpcxx') == '$version', (v, m.version('mcpcxx'), '$version')"

if command -v npm >/dev/null 2>&1; then
  stage "TypeScript SDK client for interop (pinned, from npm)"
  ts_pin="$(sed -n 's/^# \(@modelcontextprotocol\/sdk@.*\)$/\1/p' scripts/requirements-dev.txt)"
  mkdir -p build/node-interop
  if [[ ! -f build/node-interop/.installed-"${ts_pin//\//_}" ]]; then
    npm install --prefix build/node-interop --no-audit --no-fund --silent "${ts_pin}"
    touch build/node-interop/.installed-"${ts_pin//\//_}"
  fi
  export MCPCXX_NODE_MODULES="$root/build/node-interop/node_modules"
fi

example="$root/build/ci/tests/fixtures/cpp/mcpcxx_example_server"
if [[ -z "${MCPCXX_EXAMPLE_SERVER:-}" && -x "$example" ]]; then
  export MCPCXX_EXAMPLE_SERVER="$example"
fi

stage "pytest against the installed wheel"
run_dir="$root/build/pytest-run"
mkdir -p "$run_dir"
cd "$run_dir"  # the source tree's python/ is not importable from here
set +e
MCPCXX_SOURCE_DIR="$root" "$vpy" -m pytest -c "$root/pyproject.toml" --rootdir "$root" \
  "$root/tests/python" -p no:cacheprovider -n "${MCPCXX_PYTEST_WORKERS:-$((2 * $(nproc)))}"
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
  echo "test-python: pytest collected no tests" >&2
  exit 1
fi
exit $rc
