#!/usr/bin/env bash
# Installs what the MCP Apps browser test (tests/python/test_apps_browser.py) needs: Chromium from
# Debian (apt) and, from npm at pinned versions, the extension's package
# (@modelcontextprotocol/ext-apps: its app bridge is the test host), the MCP client it drives,
# esbuild (bundles the host page) and playwright-core (drives Chromium). The npm packages go to
# build/node-apps (not in git). Skips what is already present; prints the environment for the
# test as shell assignments (eval it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(@modelcontextprotocol/ext-apps@2.0.4 @modelcontextprotocol/client@2.4.0
          @modelcontextprotocol/core@2.4.0 zod@4.6.7 esbuild@0.28.2 playwright-core@1.65.2)
if ! command -v chromium >/dev/null 2>&1; then
  echo "install-apps-browser: installing the Debian package chromium" >&2
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >&2
fi
prefix="$root/build/node-apps"
stamp="$prefix/.installed-$(printf '%s\n' "${packages[@]}" | sha256sum | cut -c1-16)"
if [[ ! -f "$stamp" ]]; then
  echo "install-apps-browser: npm install ${packages[*]}" >&2
  mkdir -p "$prefix"
  [[ -f "$prefix/package.json" ]] || printf '{"name":"mcpcxx-apps-test","private":true}\n' >"$prefix/package.json"
  (cd "$prefix" && npm install --no-audit --no-fund --loglevel=error --save-exact "${packages[@]}" >&2)
  touch "$stamp"
fi
echo "export MCPCXX_APPS_NODE_MODULES=$prefix/node_modules"
echo "export MCPCXX_CHROMIUM=$(command -v chromium)"
