#!/usr/bin/env bash
# The scale-out proof (issue 31, tests/cluster): a private redis-server, three replicas of
# tests/cluster/cluster_server.py and nginx in front (round robin, no affinity), all started by
# the tests on free ports in temporary folders and stopped at the end; scenarios of both eras
# through nginx (the official Python SDK client, the official TypeScript client, raw HTTP), a
# replica SIGKILLed under load, Redis stopped and started, and a TTL on every key
# left in Redis. Runs against the installed package of scripts/test-python.sh's fresh venv
# (build/venv-test: the wheel, pytest and the official `mcp` client), or the interpreter named by
# MCPCXX_CLUSTER_PYTHON. The counts the tests record (requests sent, failed and why) are printed
# at the end under "cluster counts". Exits non-zero on any failure; collecting no test is one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${MCPCXX_CLUSTER_PYTHON:-$root/build/venv-test/bin/python}"
if ! command -v "$py" >/dev/null 2>&1; then
  echo "test-cluster: no $py; run scripts/test-python.sh first (or set MCPCXX_CLUSTER_PYTHON)" >&2
  exit 1
fi
for tool in /usr/bin/redis-server /usr/sbin/nginx; do
  [[ -x "$tool" ]] || { echo "test-cluster: $tool is missing; bash scripts/setup.sh installs it" >&2; exit 1; }
done
# Node 22 and the official TypeScript client for tests/cluster/test_ts_client.py (installed into
# .tools/ on first use, found there afterwards).
tools_env="$(bash scripts/install-conformance.sh)"  # an assignment, so that set -e sees a failure
eval "$tools_env"
export MCPCXX_NODE22="$NODE22" MCPCXX_TOOLS_DIR="$TOOLS_DIR"

printf '\n---- lint: ruff check, ruff format --check ----\n'
python3 -m ruff check tests/cluster scripts/cluster_demo_client.py
python3 -m ruff format --check tests/cluster scripts/cluster_demo_client.py

printf '\n---- pytest tests/cluster ----\n'
run_dir="$root/build/pytest-cluster"
mkdir -p "$run_dir"
cd "$run_dir"  # the source tree's python/ is not importable from here
set +e
# SIGINT first, so that the fixtures stop what they started; a run this long is a hang.
timeout -s INT -k 60 1800 "$py" -m pytest -c "$root/pyproject.toml" --rootdir "$root" \
  "$root/tests/cluster" -p no:cacheprovider
rc=$?
set -e
if [[ $rc -eq 5 ]]; then
  echo "test-cluster: pytest collected no tests" >&2
  exit 1
fi
exit $rc
