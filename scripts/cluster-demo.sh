#!/usr/bin/env bash
# Scale-out demo (issue 31): three replicas of the issue tracker example
# (examples/issue_tracker/server.py --http, all on one SQLite file) behind nginx (round robin, no
# affinity, tests/cluster/nginx.conf.in) on one private Redis (MCPCXX_STORE_URL, one shared
# MCPCXX_REQUEST_STATE_KEY). Scripted clients (scripts/cluster_demo_client.py) go through both
# eras printing which replica served each request, and one replica is SIGKILLed in the middle.
# Everything runs in a temporary folder on free loopback ports and is stopped on exit (also on
# failure or Ctrl-C). Sets up what is missing first, like scripts/demo.sh;
# MCPCXX_DEMO_PYTHON=/path/to/python skips the package install and uses that interpreter.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
if [[ -n "${MCPCXX_DEMO_PYTHON:-}" ]]; then
  py="$MCPCXX_DEMO_PYTHON"
else
  venv=build/venv-demo
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check .
  py="$root/$venv/bin/python"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mcpcxx-cluster-demo.XXXXXX")"
pids=()
clients_ran=0
cleanup() {
  local code=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ $code -ne 0 && $clients_ran -eq 0 ]]; then  # a start-up failure: show why
    for log in "$work"/*.log; do
      [[ -f "$log" ]] && { echo "---- $(basename "$log") (last lines) ----"; tail -n 15 "$log"; }
    done
  fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() {  # wait_for WHAT COMMAND...: up to 20 s
  local what=$1
  shift
  for _ in $(seq 200); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "cluster-demo: $what did not start" >&2
  return 1
}

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
  --dir "$work" --logfile "$work/redis.log" &
pids+=($!)
wait_for "redis-server" redis-cli -p "$redis_port" ping

export MCPCXX_STORE_URL="redis://127.0.0.1:$redis_port/0"
MCPCXX_REQUEST_STATE_KEY="$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')"
export MCPCXX_REQUEST_STATE_KEY
export ISSUE_TRACKER_DB="$work/issue_tracker.db"
declare -A replica_pid replica_port
for name in r1 r2 r3; do
  # In a quiet subshell: bash would print a "Killed" line for the replica killed on purpose.
  ( "$py" examples/issue_tracker/server.py --http 0 >"$work/replica-$name.log" 2>&1 &
    echo $! >"$work/replica-$name.pid"
    wait $! ) 2>/dev/null &
done
servers="" names=""
for name in r1 r2 r3; do
  wait_for "replica $name" grep -q "serving MCP over HTTP" "$work/replica-$name.log"
  replica_pid[$name]="$(cat "$work/replica-$name.pid")"
  pids+=("${replica_pid[$name]}")
  port="$(sed -n 's|.*serving MCP over HTTP at http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$work/replica-$name.log")"
  replica_port[$name]=$port
  servers+="    server 127.0.0.1:$port max_fails=1 fail_timeout=10s;\n"
  names+="    \"~:$port\$\" $name;\n"
done

nginx_port="$(free_port)"
user=""
[[ $(id -u) -eq 0 ]] && user="user root;"
sed -e "s|@DIR@|$work|g" -e "s|@PORT@|$nginx_port|g" -e "s|@USER@|$user|" \
  -e "s|@SERVERS@|${servers%\\n}|" -e "s|@REPLICA_MAP@|${names%\\n}|" \
  tests/cluster/nginx.conf.in >"$work/nginx.conf"
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" &
pids+=($!)
wait_for "nginx" bash -c "exec 3<>/dev/tcp/127.0.0.1/$nginx_port"

url="http://127.0.0.1:$nginx_port/mcp"
echo "Redis      127.0.0.1:$redis_port (MCPCXX_STORE_URL), no persistence"
for name in r1 r2 r3; do
  echo "replica $name 127.0.0.1:${replica_port[$name]} pid ${replica_pid[$name]}: examples/issue_tracker/server.py --http"
done
echo "nginx      $url (round robin; X-Replica names the replica that served a response)"
echo "SQLite     $ISSUE_TRACKER_DB (shared by the three replicas)"
clients_ran=1
"$py" scripts/cluster_demo_client.py --url "$url" --kill "r2=${replica_pid[r2]}"
