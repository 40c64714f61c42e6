"""Validates golden replies against the official MCP JSON Schema of their revision (jsonschema).

The Python mirror of tests/cpp/golden/mcp_schema.cpp: the schemas are read in place from
$MCPCXX_SHARED_DIR/data/mcp-schema/REV/schema.json (default: the directory `shared` beside the
source tree, as CMake's MCPCXX_SHARED_DIR), never copied into the repository.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

SOURCE_DIR = Path(os.environ.get("MCPCXX_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SHARED_DIR = Path(os.environ.get("MCPCXX_SHARED_DIR", SOURCE_DIR.parent / "shared"))
SCHEMA_DIR = SHARED_DIR / "data" / "mcp-schema"
# The C++ example server every test that spawns it uses: $MCPCXX_EXAMPLE_SERVER, else the dev build.
CPP_EXAMPLE_SERVER = Path(
    os.environ.get(
        "MCPCXX_EXAMPLE_SERVER",
        SOURCE_DIR / "build" / "dev" / "tests" / "fixtures" / "cpp" / "mcpcxx_example_server",
    )
)

RESULT_DEFS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "server/discover": "DiscoverResult",
    "logging/setLevel": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
}
NOTIFICATION_DEFS = {
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
    "notifications/cancelled": "CancelledNotification",
}
# Requests the server sends the client (lockstep transcripts).
SERVER_REQUEST_DEFS = {
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
    "roots/list": "ListRootsRequest",
}
MODERN = "2026-07-28"
MODERN_META = "io.modelcontextprotocol/protocolVersion"


def available() -> str:
    """ "" when the schemas can be read, otherwise why not."""
    if (SCHEMA_DIR / MODERN / "schema.json").is_file():
        return ""
    return f"no MCP schemas under {SCHEMA_DIR} (set MCPCXX_SHARED_DIR)"


def _draft07(rev: str) -> bool:
    return rev < "2025-11-25"


def schema_revision(revision: str) -> str:
    """The revision whose schema file exists for `revision` (2024-11-05 maps to 2025-03-26)."""
    return "2025-03-26" if revision == "2024-11-05" else revision


@cache
def _document(rev: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SCHEMA_DIR / rev / "schema.json").read_text())
    return doc


@cache
def _validator(rev: str, definition: str) -> Any:
    doc = dict(_document(rev))
    defs = "definitions" if _draft07(rev) else "$defs"
    if definition not in doc[defs]:
        return None
    doc["$ref"] = f"#/{defs}/{definition}"
    cls = jsonschema.validators.validator_for(doc)
    return cls(doc)


def _validate(rev: str, definition: str, value: Any) -> str:
    validator = _validator(rev, definition)
    if validator is None:
        return f"schema {rev} has no definition {definition}; "
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return ""
    detail = "; ".join(f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5])
    return f"{definition} ({rev}): {detail}; "


def check(revision: str, method: str, message: Any) -> str:
    """ "" when `message` (a reply to `method`, or a notification) conforms to `revision`."""
    rev = schema_revision(revision)
    if isinstance(message, list):
        return "".join(check(revision, "", m) for m in message)  # batch members: envelopes only
    if "error" in message:
        # JSON-RPC 2.0 requires "id": null when the id could not be read; the MCP schemas type id
        # as a RequestId, so such replies are checked with the null id left out
        # (docs/error-model.md records this deviation).
        checked = {k: v for k, v in message.items() if not (k == "id" and v is None)}
        if rev in ("2025-03-26", "2025-06-18") and "id" not in checked:
            checked["id"] = 0  # these revisions require an id
        return _validate(rev, "JSONRPCError" if _draft07(rev) else "JSONRPCErrorResponse", checked)
    if "method" in message and "id" in message:
        envelope = _validate(rev, "JSONRPCRequest", message)
        request = SERVER_REQUEST_DEFS.get(message["method"])
        if request is None:
            return f"{envelope}not a server request: {json.dumps(message)}; "
        return envelope + _validate(rev, request, message)
    if "method" in message:
        definition = NOTIFICATION_DEFS.get(message["method"], "JSONRPCNotification")
        return _validate(rev, definition, message)
    out = _validate(rev, "JSONRPCResponse" if _draft07(rev) else "JSONRPCResultResponse", message)
    definition = RESULT_DEFS.get(method, "")
    if definition == "DiscoverResult" and rev != MODERN:
        definition = ""
    result = message.get("result")
    if isinstance(result, dict) and result.get("resultType") == "input_required":
        definition = "InputRequiredResult"  # 2026-07-28: the questions instead of the result
    if method == "tools/call" and isinstance(result, dict) and "task" in result:
        definition = "CreateTaskResult"  # 2025-11-25: the call became a task
    if isinstance(result, dict) and result.get("resultType") == "task":
        definition = ""  # 2026-07-28: the tasks extension's result, not in the core schema
    if definition and "result" in message:
        out += _validate(rev, definition, message["result"])
    return out


def _client_requests(client: list[bytes]) -> tuple[dict[str, tuple[str, bool]], bool]:
    """id (as JSON) -> (method, modern) for every request the client sent; any modern request."""
    requests: dict[str, tuple[str, bool]] = {}
    any_modern = False
    for raw in client:
        try:
            m = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(m, dict) or "id" not in m or not isinstance(m.get("method"), str):
            continue
        params = m.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        modern = isinstance(meta, dict) and MODERN_META in meta and m["method"] != "initialize"
        any_modern = any_modern or modern
        requests[json.dumps(m["id"])] = (m["method"], modern)
    return requests, any_modern


def _negotiated(replies: list[Any]) -> str:
    for r in replies:
        result = r.get("result") if isinstance(r, dict) else None
        if isinstance(result, dict) and "protocolVersion" in result and "serverInfo" in result:
            return str(result["protocolVersion"])
    return ""


def check_transcript(client: list[bytes], replies: list[Any]) -> list[str]:
    """Every schema violation among `replies`, each revision picked as the C++ runner does."""
    requests, any_modern = _client_requests(client)
    legacy = _negotiated(replies)
    problems = []
    for r in replies:
        method, modern = "", not legacy and any_modern
        # A server-to-client request carries the server's own id: no client request to look up.
        if isinstance(r, dict) and r.get("id") is not None and "method" not in r:
            method, modern = requests.get(json.dumps(r["id"]), (method, modern))
        rev = MODERN if modern else (legacy or "2025-11-25")
        found = check(rev, method, r)
        if found:
            problems.append(f"{found}in {json.dumps(r)[:300]}")
    return problems
