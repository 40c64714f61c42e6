#!/usr/bin/env bash
# Fails when a JSON-RPC error object or an HTTP error body is composed outside the situation
# table (cpp/src/wire). Every error text must come from a table row: other layers name the row
# (mcpcxx::wire::situation) and pass arguments. Prints each offending site as file:line.
#
# Usage: scripts/check-wire-text.sh [repo-root]      exit 0 clean, 1 offending sites, 2 usage
set -euo pipefail

root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

# Self-test (every run): a planted tree whose only hits are two error objects built by hand under
# the opt-out comment must fail with exactly those two sites; the opt-out on a log line passes.
if [[ -z "${MCPCXX_WIRE_TEXT_SELF_TEST:-}" ]]; then
  planted="$(mktemp -d)"
  trap 'rm -rf "$planted"' EXIT
  mkdir -p "$planted/cpp/src/engine"
  cat >"$planted/cpp/src/engine/planted.cpp" <<'PLANTED'
  e.code = r.error.value("code", error_code::internal_error);  // wire-text: not wire (stored)
  json j = {{"code", e.code}, {"message", e.message}};  // wire-text: not wire (a copy)
  line.integer("code", o.error.code);  // wire-text: not wire (a log member)
PLANTED
  out="$(MCPCXX_WIRE_TEXT_SELF_TEST=1 bash "${BASH_SOURCE[0]}" "$planted" 2>&1)" && {
    echo "check-wire-text self-test FAILED: the planted error objects passed" >&2
    exit 1
  }
  if [[ "$(grep -c '^cpp/src/engine/planted.cpp:' <<<"$out")" != 2 ]] ||
    ! grep -q '^cpp/src/engine/planted.cpp:1:.*opt-out is refused' <<<"$out" ||
    ! grep -q '^cpp/src/engine/planted.cpp:2:.*opt-out is refused' <<<"$out"; then
    printf 'check-wire-text self-test FAILED: expected lines 1 and 2 refused, got:\n%s\n' "$out" >&2
    exit 1
  fi
fi
cd "$root" || exit 2

# Where production code lives; the table itself and tests are allowed to spell texts out, and so
# is the codec's serializer (jsonrpc/serialize.cpp): it writes an error object it is handed, never
# composes one. A line may opt out with a trailing comment "wire-text: not wire" when its text
# provably never reaches a client (say why next to it), except a line that builds an error object
# (constructs or declares an error_object, assigns its code or message, or spells a {"code",
# "message"} pair): the opt-out is refused there. python/mcpcxx/testing/ plays the MCP client: the
# error responses it composes answer a server's request (elicitation, sampling, roots) on the
# client's behalf and travel to the server, never to a client.
scan_dirs=(cpp/src cpp/include python/bindings python/mcpcxx)
allowed='^(cpp/src/wire/|cpp/include/mcpcxx/error_codes\.hpp|cpp/src/jsonrpc/serialize\.cpp|python/mcpcxx/testing/)'

mapfile -t files < <(
  for d in "${scan_dirs[@]}"; do
    [[ -d "$d" ]] && find "$d" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.py' \)
  done | grep -Ev "$allowed" | sort
)

found=0
report() {  # file line reason text
  printf '%s:%s: %s\n    %s\n' "$1" "$2" "$3" "$(sed -e 's/^[[:space:]]*//' <<<"$4")"
  found=$((found + 1))
}

# One pattern per way of composing an error by hand. Comment lines are skipped.
patterns=(
  '(^|[^_[:alnum:]])error_object[[:space:]]*[{(]|builds a jsonrpc::error_object directly'
  'serialize_error\([^;]*,[[:space:]]*\{|serializes an inline error object'
  '[{(][[:space:]]*"code"[[:space:]]*[,:]|composes a {"code": ...} error body'
  '\{[[:space:]]*"error"[[:space:]]*,|composes an error member by hand'
  '["'"'"']error["'"'"'][[:space:]]*:[[:space:]]*\{|composes an error member by hand'
  '"(Parse error|Invalid request|Invalid params|Method not found|Internal error|Unknown tool|Unknown prompt|Resource not found|Header mismatch|Service unavailable|Bad Request|Not found|Forbidden|Unauthorized|Not acceptable|Unsupported media type|Method not allowed|Conflict|Request timeout|Request body too large|Request header fields too large|Malformed HTTP request|Truncated request|Session not found|Session not initialized|Message exceeds|Message is|Message nests|Batch is)[:; ]|spells out an error text that belongs to a table row'
  '(^|[^_[:alnum:]])(error_response|plain_error|rpc_error|error_body|fail_request)[[:space:]]*\(|calls a hand-written error-body helper'
  'wire::invalid_params[[:space:]]*\(|passes free text as invalid params (use a row of its own)'
  'CPP:(^|[^0-9.])-32[0-7][0-9][0-9]([^0-9]|$)|uses a numeric JSON-RPC code instead of a named constant'
)

# A line that builds an error object, where the opt-out comment does not count.
builds_error='error_object[[:space:]]*[{(]|error_object[[:space:]]+[_[:alnum:]]+[[:space:]]*[;={]|[.>](code|message)[[:space:]]*=([^=]|$)|"code".*"message"|"message".*"code"'

# The code of a line without its trailing // comment (a "//" after ':' as in a URL is kept).
strip_comment() { sed -E 's@(^|[[:space:]])//.*$@@' <<<"$1"; }

for f in "${files[@]}"; do
  for entry in "${patterns[@]}"; do
    re="${entry%%|*}"
    re_rest="${entry#*|}"
    # An entry is "regex|reason"; the regex itself may contain '|', so split at the last one.
    reason="${entry##*|}"
    re="${entry%|*}"
    : "$re_rest"
    if [[ "$re" == CPP:* ]]; then
      [[ "$f" == *.py ]] && continue
      re="${re#CPP:}"
    fi
    while IFS= read -r hit; do
      [[ -z "$hit" ]] && continue
      line="${hit%%:*}"
      text="${hit#*:}"
      [[ "$text" =~ ^[[:space:]]*(//|#|\*|///) ]] && continue
      why="$reason"
      if [[ "$text" == *"wire-text: not wire"* ]]; then
        grep -qE -- "$builds_error" <<<"$(strip_comment "$text")" || continue
        why="$reason (the opt-out is refused on a line that builds an error object)"
      fi
      [[ "$text" =~ ^[[:space:]]*struct[[:space:]]+error_object ]] && continue
      if [[ "$f" != *.py ]]; then
        grep -qE -- "$re" <<<"$(strip_comment "$text")" || continue
      fi
      report "$f" "$line" "$why" "$text"
    done < <(grep -nE -- "$re" "$f" || true)
  done
done

if ((found > 0)); then
  echo "check-wire-text: $found site(s) compose error text outside cpp/src/wire;" \
    "report a mcpcxx::wire::situation row instead (docs/error-model.md)." >&2
  exit 1
fi
echo "check-wire-text: no error text composed outside cpp/src/wire"
