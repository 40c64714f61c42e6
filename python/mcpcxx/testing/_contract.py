"""The error contract: run the founding document's failure cases against a server."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from mcpcxx._protocol.errors import ToolError
from mcpcxx.testing._client import LEGACY, MODERN, Client, Message, text_of

if TYPE_CHECKING:
    from mcpcxx._api.server import Server

CaseSpec = str | tuple[str, dict[str, Any]] | None
"""A tool name, or (tool name, arguments); None lets the checker register a probe tool."""

_REFERENCE = re.compile(r"\bERR-[0-9A-Za-z]+")
_TRACEBACK = ("Traceback (most recent call last)", 'File "')


@dataclass
class Deviation:
    """One way the server's wire behaviour differs from the contract."""

    case: str
    era: str
    problem: str
    request: Message
    response: Message | None

    def __str__(self) -> str:
        return (
            f"[{self.case} @ {self.era}] {self.problem}\n"
            f"  sent:     {json.dumps(self.request, ensure_ascii=False)}\n"
            f"  received: {json.dumps(self.response, ensure_ascii=False)}"
        )


class _Check:
    def __init__(self, case: str, era: str, request: Message, response: Message | None) -> None:
        self.case, self.era, self.request, self.response = case, era, request, response
        self.found: list[Deviation] = []

    def fail(self, problem: str) -> None:
        self.found.append(Deviation(self.case, self.era, problem, self.request, self.response))

    def tool_error_result(self, category: str | None) -> dict[str, Any] | None:
        """Checks the common shape of an isError result; returns the result when present."""
        r = self.response or {}
        if "error" in r:
            self.fail(f"expected a result with isError:true, got JSON-RPC error {r['error']}")
            return None
        result = r.get("result")
        if not isinstance(result, dict):
            self.fail("expected a result object")
            return None
        if result.get("isError") is not True:
            self.fail("expected isError:true")
        if not text_of(r).strip():
            self.fail("expected a non-empty text content block the model can act on")
        if any(t in text_of(r) for t in _TRACEBACK):
            self.fail("the text contains a traceback; tracebacks belong in the server log")
        details = (result.get("_meta") or {}).get("mcpcxx/error")
        if not isinstance(details, dict):
            self.fail('expected machine-readable details in result _meta["mcpcxx/error"]')
        elif category is not None and details.get("category") != category:
            self.fail(f"expected category {category!r}, got {details.get('category')!r}")
        return result


@contextmanager
def _probes(server: Server, needed: set[str], tag: str) -> Iterator[dict[str, str]]:
    """Registers a probe tool for each needed case; removes them afterwards."""
    from pydantic import BaseModel, Field

    class ProbeOutput(BaseModel):
        count: int

    names: dict[str, str] = {}
    makers: dict[str, Callable[..., Any]] = {}

    def tool_error() -> str:
        raise ToolError.compose(
            "Probe lookup",
            resource=f"probe item {tag}",
            reason="it was not found",
            next_step="List the probe items first",
            retry_guidance="Do not retry unchanged",
            category="not_found",
            resource_id=tag,
        )

    def crashing() -> str:
        raise RuntimeError(f"secret-internal-detail-{tag}")

    def output_mismatch() -> ProbeOutput:
        return {"count": f"not-a-number-{tag}"}  # type: ignore[return-value]

    def invalid_arguments(count: Annotated[int, Field(ge=1)]) -> str:
        return str(count)

    makers.update(
        tool_error=tool_error,
        crashing=crashing,
        output_mismatch=output_mismatch,
        invalid_arguments=invalid_arguments,
    )
    try:
        for case in sorted(needed):
            names[case] = f"mcpcxx_probe_{case}_{tag}"
            server.add_tool(makers[case], name=names[case], annotations={"readOnlyHint": True})
        yield names
    finally:
        for name in names.values():
            server.remove_tool(name)


def _invalid_arguments_for(schema: dict[str, Any], tag: str) -> dict[str, Any] | None:
    """Arguments violating `schema`: a wrong type for a typed property, else a missing one."""
    props = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    base = {}
    for name, sub in props.items():
        t = sub.get("type") if isinstance(sub, dict) else None
        if t in ("integer", "number", "boolean", "array", "object"):
            base[name] = f"not-a-{t}-{tag}"
            return base
    if required:
        return {}
    return None


def _tool_schemas(client: Client) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    cursor = None
    while True:
        r = client.list_tools(cursor)
        result = r.get("result") or {}
        for t in result.get("tools", []):
            out[t["name"]] = t
        cursor = result.get("nextCursor")
        if not cursor:
            return out


def _split(spec: CaseSpec) -> tuple[str | None, dict[str, Any] | None]:
    if spec is None:
        return None, None
    if isinstance(spec, str):
        return spec, None
    return spec[0], spec[1]


def _run_era(
    server: Server, era: str, cases: dict[str, tuple[str, dict[str, Any] | None]], tag: str
) -> list[Deviation]:
    client = Client(server, protocol_version=era)
    found: list[Deviation] = []
    try:
        tools = _tool_schemas(client)
        for case, (name, args) in cases.items():
            found += _run_case(client, era, case, name, args, tools, tag, server)
    finally:
        client.close()
    return found


def _call(client: Client, name: str, args: dict[str, Any] | None) -> tuple[Message, Message]:
    request: Message = {"method": "tools/call", "params": {"name": name, "arguments": args or {}}}
    return request, client.call_tool(name, args or {})


def _run_case(
    client: Client,
    era: str,
    case: str,
    name: str,
    args: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]],
    tag: str,
    server: Server,
) -> list[Deviation]:
    if case == "unknown_tool":
        request, response = _call(client, name, {})
        check = _Check(case, era, request, response)
        error = response.get("error")
        if not isinstance(error, dict) or error.get("code") != -32602:
            check.fail("an unknown tool must get JSON-RPC error -32602, not a result")
        elif name not in str(error.get("message", "")):
            check.fail("the error message should name the unknown tool")
        return check.found
    if name not in tools:
        check = _Check(case, era, {"tool": name}, None)
        check.fail(f"tool {name!r} is not listed by tools/list")
        return check.found
    if case == "invalid_arguments" and args is None:
        args = _invalid_arguments_for(tools[name].get("inputSchema") or {}, tag)
        if args is None:
            check = _Check(case, era, {"tool": name}, None)
            check.fail("cannot build invalid arguments: the tool's inputSchema accepts anything")
            return check.found
    request, response = _call(client, name, args)
    check = _Check(case, era, request, response)
    _expect(check, case, name, args, tools, tag, server)
    return check.found


def _expect(
    check: _Check,
    case: str,
    name: str,
    args: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]],
    tag: str,
    server: Server,
) -> None:
    text = text_of(check.response or {})
    probe = name.startswith("mcpcxx_probe_")
    result = (check.response or {}).get("result") or {}
    reached = ((result.get("_meta") or {}).get("mcpcxx/error") or {}).get("category")
    if case != "invalid_arguments" and reached == "invalid_arguments":
        check.fail(
            "the call never reached the tool (its arguments were invalid); "
            "pass the case as (name, arguments)"
        )
        return
    if case == "invalid_arguments":
        check.tool_error_result("invalid_arguments")
        for value in (args or {}).values():
            if isinstance(value, str) and value in text:
                check.fail("the text echoes the invalid value; never echo argument values")
    elif case == "tool_error":
        check.tool_error_result(None)
        if probe and not text.startswith("Probe lookup failed: probe item"):
            check.fail("the ToolError message must reach the wire exactly as raised")
    elif case == "unexpected_exception":
        result = check.tool_error_result("internal")
        if result is not None and not _REFERENCE.search(text):
            check.fail("expected a reference id (ERR-...) tying the text to the server log")
        secret = f"secret-internal-detail-{tag}"
        if probe and not server.expose_exception_details and secret in text:
            check.fail("the exception text leaked although expose_exception_details is off")
        if probe and server.expose_exception_details and secret not in text:
            check.fail("expose_exception_details is on, but the exception text is missing")
    elif case == "output_mismatch":
        if not tools[name].get("outputSchema"):
            check.fail("the tool declares no outputSchema, so nothing can mismatch")
        result = check.tool_error_result("internal")
        if result is not None and "structuredContent" in result:
            check.fail("a result that broke its outputSchema must not carry structuredContent")


def check_error_contract(
    server: Server,
    *,
    tool_error: CaseSpec = None,
    unexpected_exception: CaseSpec = None,
    output_mismatch: CaseSpec = None,
    invalid_arguments: CaseSpec = None,
    unknown_tool: str | None = None,
    eras: Sequence[str] = (MODERN, LEGACY),
    probe: bool = True,
) -> list[Deviation]:
    """Run the error contract against `server` in each era; returns every deviation found.

    Cases: an unknown tool (JSON-RPC -32602), invalid arguments, a ToolError, an unexpected
    exception and an output-schema mismatch (each an isError result with the right category,
    text and no leaked internals). Name your own tools for the cases as `name` or
    `(name, arguments)`; for cases left as None the checker registers a probe tool for the
    duration (probe=False skips those cases instead).
    """
    tag = secrets.token_hex(4)
    given = {
        "invalid_arguments": _split(invalid_arguments),
        "tool_error": _split(tool_error),
        "unexpected_exception": _split(unexpected_exception),
        "output_mismatch": _split(output_mismatch),
    }
    probe_case = {"unexpected_exception": "crashing"}
    needed = {probe_case.get(c, c) for c, (n, _) in given.items() if n is None} if probe else set()
    found: list[Deviation] = []
    with _probes(server, needed, tag) as probes:
        cases: dict[str, tuple[str, dict[str, Any] | None]] = {
            "unknown_tool": (unknown_tool or f"no_such_tool_{tag}", None)
        }
        for case, (name, args) in given.items():
            if name is None:
                if not probe:
                    continue
                name = probes[probe_case.get(case, case)]
                if case == "invalid_arguments":
                    args = {"count": f"not-a-number-{tag}"}
            cases[case] = (name, args)
        for era in eras:
            found += _run_era(server, era, cases, tag)
    return found


def assert_error_contract(server: Server, **cases: Any) -> None:
    """Pytest helper: fail with every deviation listed (arguments as check_error_contract)."""
    deviations = check_error_contract(server, **cases)
    if deviations:
        listing = "\n".join(str(d) for d in deviations)
        raise AssertionError(f"{len(deviations)} error-contract deviation(s):\n{listing}")
