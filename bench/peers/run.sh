#!/usr/bin/env bash
# Peer benchmark: builds/installs every peer at its pinned version and measures them beside
# mcpcxx (quick tools: driver.py), then the tools that wait 0.5 s (bench/waiting/run.py: `def` and
# `async def`, stdio and HTTP, the official Python SDK and FastMCP beside mcpcxx's defaults).
# Writes the peers and waiting-tools sections of docs/benchmarks.md and docs/peers-benchmark.svg.
# Usage: bench/peers/run.sh [--duration S] [--repeats N] [--only NAME,...] [--no-write]
#                           [--no-waiting]
# Needs python3, node/npm, go, cargo, g++, and a configured build/dev (see README). Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
args=() waiting=1 write=1 repeats=5
while (($#)); do
  case "$1" in
    --no-waiting) waiting=0 ;;
    --no-write) write=0; args+=("$1") ;;
    --repeats) repeats="$2"; args+=("$1" "$2"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
python3 "$here/driver.py" "${args[@]}"
((waiting)) || exit 0
waiting_args=(--repeats "$repeats")
((write)) && waiting_args+=(--write)
exec python3 "$here/../waiting/run.py" "${waiting_args[@]}"
