#!/usr/bin/env bash
# The sdist: builds it, unpacks it under build/sdist-check (so nothing but its own files is used),
# builds a wheel from it, installs that wheel in a fresh venv with no compiler and runs the install
# and stdio tests. Then checks that every header and source the compile read came from the sdist,
# the Python/pybind11 build environment, the C++ toolchain (build-essential) or a Debian package
# that docs/python.md lists: a machine with only those packages can build it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-python3}"
work="$root/build/sdist-check"
stage() { printf '\n---- %s ----\n' "$*"; }
fail() { echo "test-sdist: $*" >&2; exit 1; }
# A unity build, as CI's others (scripts/test-all.sh says why). Its batches name the unpacked
# sources by absolute path, so nothing of the release wheels' cache applies: it compiles afresh.
export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_UNITY_BUILD=ON"
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  export CMAKE_ARGS="$CMAKE_ARGS -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${MCPCXX_JOBS:-$(nproc)}"
version="$(sed -n 's/^project(mcpcxx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"

stage "sdist (scikit-build-core's PEP 517 build_sdist)"
rm -rf "$work"
mkdir -p "$work/dist"
# build_sdist logs to stdout too; the archive's name is the last line.
sdist="$("$py" -c 'import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))' "$work/dist" | tail -n 1)"
[[ "$sdist" == "mcpcxx-$version.tar.gz" ]] || fail "unexpected sdist name $sdist"
tar -xzf "$work/dist/$sdist" -C "$work"
src="$work/mcpcxx-$version"
for f in CMakeLists.txt pyproject.toml cpp/include/mcpcxx/mcpcxx.hpp python/bindings/module.cpp \
         python/mcpcxx/__init__.py cmake/version.hpp.in; do
  [[ -f "$src/$f" ]] || fail "the sdist lacks $f"
done

stage "wheel from the unpacked sdist"
CCACHE_BASEDIR="$src" "$py" -m pip wheel "$src" -w "$work/wheel" --no-deps --no-build-isolation \
  --disable-pip-version-check -q
wheel="$(ls "$work"/wheel/mcpcxx-"$version"-*.whl)"
echo "built $wheel"

stage "fresh venv, binary-only install, install and stdio tests"
"$py" -m venv "$work/venv"
pins() { grep -E "^($1)==" scripts/requirements-dev.txt; }
CC=/bin/false CXX=/bin/false "$work/venv/bin/python" -m pip install -q --disable-pip-version-check \
  --only-binary=:all: "$wheel" $(pins 'pytest|pydantic|jsonschema')
(cd "$work" && MCPCXX_SOURCE_DIR="$src" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider \
   -c "$src/pyproject.toml" --rootdir "$src" "$src/tests/python/test_install.py" \
   "$src/tests/python/test_stdio.py")

stage "every file the compile read comes from an allowed place"
builddir="$(ls -d "$src"/build/wheel-*/)"
allowed_pkgs="$(grep -oE '`[a-z0-9][a-z0-9.+-]*-dev`|`node-[a-z0-9-]+`' docs/python.md | tr -d '`' | sort -u)"
echo "docs/python.md lists: $(echo $allowed_pkgs)"
"$py" - "$builddir" "$src" "$allowed_pkgs" <<'EOF'
import os, re, subprocess, sys, sysconfig
import pybind11
build, src, allowed = sys.argv[1], os.path.realpath(sys.argv[2]), set(sys.argv[3].split())
out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True, check=True)
files = {l.strip() for l in out.stdout.splitlines() if l.startswith("    ")}
files |= {os.path.join(build, f) for f in ()}
env = [os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, os.path.dirname(pybind11.__file__),
                                    sysconfig.get_paths()["include"], build)]
outside = sorted({os.path.realpath(f if os.path.isabs(f) else os.path.join(build, f)) for f in files})
outside = [f for f in outside if not any(f.startswith(p + os.sep) for p in [src, *env])]
owners = subprocess.run(["dpkg", "-S", *outside], capture_output=True, text=True)
pkgs, found = set(), set()
for line in owners.stdout.splitlines():
    names, path = line.split(": ", 1)
    found.add(path)
    pkgs |= {n.split(":")[0] for n in names.split(", ")}
unowned = [f for f in outside if f not in found]
toolchain = re.compile(r"^(libstdc\+\+-\d+-dev|libc6-dev|linux-libc-dev|libgcc-\d+-dev|libcrypt-dev|gcc-\d+|g\+\+-\d+|cpp-\d+)$")
extra = sorted(p for p in pkgs if p not in allowed and not toolchain.match(p))
print(f"{len(outside)} files outside the sdist and Python; Debian packages: {sorted(pkgs)}")
if unowned:
    sys.exit(f"test-sdist: files from no Debian package: {unowned[:10]}")
if extra:
    sys.exit(f"test-sdist: the build needs {extra}, which docs/python.md does not list")
EOF
echo "test-sdist: ok ($sdist)"
