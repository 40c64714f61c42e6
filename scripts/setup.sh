#!/usr/bin/env bash
# Installs every system and Python dependency mcpcxx needs, skipping what is already present.
# Used by the README's commands and by .ci/run. Safe to run repeatedly.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_packages=(build-essential cmake ninja-build pkg-config libasio-dev nlohmann-json3-dev libssl-dev
              libgtest-dev libgmock-dev libbenchmark-dev node-llhttp clang-format clang-tidy
              ccache clang-14 libclang-rt-14-dev libhiredis-dev redis-server nginx-light)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ "${MCPCXX_SKIP_PY:-0}" != 1 && -f "$here/scripts/requirements-dev.txt" ]]; then
  python3 -m pip install -q --disable-pip-version-check -r "$here/scripts/requirements-dev.txt"
fi
