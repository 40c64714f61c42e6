#!/usr/bin/env bash
# Sets up, builds the example server, and runs the scripted demo client against it over stdio,
# printing the raw wire for a success and for each error path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
MCPCXX_SKIP_PY=1 bash scripts/setup.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DMCPCXX_BUILD_TESTS=OFF \
      -DMCPCXX_BUILD_BENCH=OFF >/dev/null
cmake --build build/demo --target mcpcxx_example_server -j "$(nproc)"
python3 scripts/demo_client.py build/demo/examples/cpp/mcpcxx_example_server
