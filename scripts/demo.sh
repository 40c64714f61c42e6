#!/usr/bin/env bash
# The README's main job. Sets everything up, then:
#  1. the issue tracker demo (examples/issue_tracker): a Python server on SQLite built with the
#     mcpcxx package, driven by a scripted client that prints every exchange as raw JSON-RPC
#     (not found, locked, approval required, protected branch, upstream timeout, rate limited),
#     and an at-most-once deployment: the model's retry is refused while the first deploy runs
#     and replayed after it finished, and a repeat of the deploy whose outcome is unknown is
#     refused naming the status check;
#  2. the same server asking the user to confirm a production deploy (elicitation) in both eras:
#     a live elicitation/create request on a 2025-11-25 session, and on 2026-07-28 an
#     input_required result answered by a retry with inputResponses and requestState, plus a
#     declined confirmation (isError, nothing deployed);
#  3. the C++ demo server (examples/cpp/demo_server.cpp) answering a scripted client over stdio,
#     printing the raw wire for a success and for every protocol and tool error path.
# The C++ build prints no compiler warnings (a warning here reads as an error to a newcomer).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DMCPCXX_BUILD_TESTS=OFF \
      -DMCPCXX_BUILD_BENCH=OFF >/dev/null
cmake --build build/demo --target mcpcxx_demo_server -j "$(nproc)"
venv=build/venv-demo
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check .
echo "######## issue tracker demo (Python tools on the mcpcxx engine) ########"
"$venv/bin/python" examples/issue_tracker/client.py
echo
echo "######## asking before a production deploy (elicitation, both protocol eras) ########"
"$venv/bin/python" examples/issue_tracker/confirm_client.py
echo
echo "######## wire demo (C++ demo server over stdio) ########"
python3 scripts/demo_client.py build/demo/examples/cpp/mcpcxx_demo_server
