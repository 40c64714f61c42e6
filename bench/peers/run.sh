#!/usr/bin/env bash
# Peer benchmark: builds/installs every peer at its pinned version and measures them beside
# mcpcxx; writes the peers section of docs/benchmarks.md and docs/peers-benchmark.svg.
# Usage: bench/peers/run.sh [--duration S] [--repeats N] [--only NAME,...] [--no-write]
# Needs python3, node/npm, go, cargo, g++, and a configured build/dev (see README). Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/driver.py" "$@"
