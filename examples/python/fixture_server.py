"""The Python twin of examples/cpp/example_server.cpp, served over stdio.

Same tools, resources, prompt and completion as the C++ example server, with the same names,
schemas, descriptions, annotations, behaviour, error texts and timeouts, written only with the
public mcpcxx API. Every golden transcript in tests/golden runs against both servers and must get
the same replies (tests/cpp/golden and tests/python/test_golden_stdio.py).

Environment, as for the C++ server:
    MCPCXX_EXPOSE_DETAILS=1   add the exception text to internal-error results
    MCPCXX_EXAMPLE_MINIMAL=1  offer tools only (capability gating, -32601)
    MCPCXX_MAX_MESSAGE_BYTES  the message size limit (default 4 MiB)
    MCPCXX_MAX_BATCH_REPLY_BYTES  the 2025-03-26 batch reply limit (default 16 MiB)
    MCPCXX_DRAIN_GRACE_MS     stdio: how long SIGTERM/SIGINT lets in-flight calls finish (5000)
    MCPCXX_MAX_WORKERS        the most worker threads (Server(max_workers=); also the base, so a
                              transcript can keep calls queued)
    MCPCXX_EXAMPLE_ASKING=1   add the tools and the prompt that ask the client (elicit, elicit_url,
                              url_elicitation_required, sample, list_roots; prompt greet)
    MCPCXX_CLIENT_REQUEST_TIMEOUT_MS  how long an ask waits for the client (default 300000)
    MCPCXX_EXAMPLE_LISTEN=1   add the tools that change the server (touch, grow, shrink), so a
                              subscriptions/listen stream has something to report
    MCPCXX_MAX_LISTENERS      the open subscriptions/listen stream limit (default 10000)
    MCPCXX_MAX_LISTEN_URIS    the resourceSubscriptions limit of one listen (default 1000)
    MCPCXX_EXAMPLE_CONVERT=1  add schedule, whose arguments its own check (a pydantic model
                              validator) refuses after the schema accepted them (row T1)
    MCPCXX_EXAMPLE_SCOPED=1   add close_issue, a tool needing the issues:write scope (also added
                              with MCPCXX_HTTP_AUTH=1)
    MCPCXX_EXAMPLE_HTTP_PORT  serve Streamable HTTP on 127.0.0.1:PORT (path /mcp) until SIGTERM
    MCPCXX_EXAMPLE_HTTP_LEGACY=0  HTTP serves 2026-07-28 only
    MCPCXX_MAX_BODY_BYTES     the HTTP body limit (default 4 MiB)
    MCPCXX_HTTP_MAX_SESSIONS  the legacy-session limit (default 10000)
    MCPCXX_HTTP_HEADER_TIMEOUT_MS  how long the request head may take (default 10000)
    MCPCXX_HTTP_METRICS=1     serve the Prometheus exposition at GET /metrics
The C++ server also reads MCPCXX_REQUEST_STATE_TTL_S (a 2026-07-28 requestState's life in
seconds, row P35; Server() has no such option yet, so request_state_expired.txtar names the C++
fixture alone). Both read MCPCXX_HTTP_AUTH=1: bearer auth with a fixed token check ("good" and
"other" are two principals, "good-refreshed" is good's user with a later token and more scope,
"narrow" lacks issues:write, "crash" makes the verifier raise).

Run: python examples/python/fixture_server.py (mcpcxx must be importable).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING, Annotated

from pydantic import Field
from typing_extensions import TypedDict

from mcpcxx import (
    Completion,
    CompletionRequest,
    Context,
    ProtocolError,
    ResourceNotFound,
    Server,
    ToolError,
    ToolResult,
    UrlElicitationRequiredError,
)

if TYPE_CHECKING:
    from mcpcxx.auth import Principal


# The outputSchema of add and broken_add (no docstring: pydantic would make it a "description").
class Sum(TypedDict):
    sum: int


def add_tools(server: Server) -> None:
    """echo, lookup_issue and explode: success, a tool error and an unexpected exception."""

    @server.tool(title="Echo", annotations={"read_only_hint": True})
    def echo(text: Annotated[str, Field(max_length=1000)]) -> str:
        """Returns the given text unchanged."""
        return text

    @server.tool(annotations={"read_only_hint": True})
    def lookup_issue(key: Annotated[str, Field(pattern=r"^[A-Z]+-[0-9]+$")]) -> str:
        """Looks up an issue by key, e.g. ENG-1."""
        if key == "ENG-1":
            return "ENG-1: Fix the login page"
        raise ToolError.compose(
            "Issue lookup",
            resource=f"issue {key}",
            reason="it was not found",
            next_step="Verify the issue key or list recent issues first",
            retry_guidance="Do not retry unchanged",
            category="not_found",
            retryable=False,
            resource_id=key,
        )

    @server.tool
    def explode() -> str:
        """Always fails with an unexpected internal exception (for testing)."""
        raise RuntimeError("database password=hunter2 rejected at db.internal:5432")


def add_contract_tools(server: Server) -> None:
    """Tools with an outputSchema (one breaking it), a deadline, progress and logging."""

    @server.tool(annotations={"read_only_hint": True})
    def add(a: int, b: int) -> Sum:
        """Adds two integers."""
        return {"sum": a + b}

    @server.tool
    def broken_add(a: int, b: int) -> Sum:
        """Adds two integers but returns a string (a bug)."""
        return {"sum": "three"}  # type: ignore[typeddict-item]  # the bug the fixture shows

    @server.tool(timeout=0.2)
    def slow_write(ctx: Context, ms: int = 1000) -> str:
        """Writes slowly; times out after 200 ms."""
        for _ in range(ms // 10):
            if ctx.cancelled:
                break
            time.sleep(0.01)
        return "cancelled" if ctx.cancelled else "written"

    @server.tool
    def count_down(ctx: Context, steps: Annotated[int, Field(ge=1, le=50)] = 3) -> str:
        """Reports progress and log messages, then returns."""
        for i in range(1, steps + 1):
            if ctx.cancelled:
                break
            ctx.report_progress(i, steps, f"step {i}")
            ctx.log("info", f"step {i}", logger="count_down")
        return "done"


def add_lifecycle_tools(server: Server) -> None:
    """Cancellation, a client capability requirement, a protocol error and a typed error."""

    @server.tool(annotations={"read_only_hint": True})
    def sleep(ctx: Context, ms: Annotated[int, Field(ge=0, le=60000)] = 100) -> str:
        """Sleeps for ms milliseconds unless cancelled."""
        ctx.report_progress(0, ms)  # with a progressToken: an SSE stream over HTTP (as in C++)
        until = time.monotonic() + ms / 1000
        while not ctx.cancelled and time.monotonic() < until:
            time.sleep(0.005)
        return "cancelled" if ctx.cancelled else "slept"

    @server.tool
    def ask_user(ctx: Context) -> str:
        """Needs the client's elicitation capability."""
        ctx.require_client_capability("elicitation")
        return "the client can elicit"

    @server.tool
    def quota() -> str:
        """Fails with an application-defined protocol error."""
        raise ProtocolError(
            -31001, "Daily quota exhausted; retry after midnight UTC", {"retryAfterSeconds": 3600}
        )

    # A typed error raised inside a tool keeps its category: not_found, never internal (issue 8).
    @server.tool(annotations={"read_only_hint": True})
    def read_memo(uri: str) -> str:
        """Reads a memo by URI; only memo://readme exists."""
        if uri != "memo://readme":
            raise ResourceNotFound(uri)
        return "Read me."


def add_variant_tools(server: Server) -> None:
    """Read-only twins of the failing tools (T3, T4, T5 are worded differently) and T6."""

    @server.tool(annotations={"read_only_hint": True})
    def explode_read_only() -> str:
        """A read-only tool that fails with an unexpected exception."""
        raise RuntimeError("cache key secret-42 missing")

    @server.tool(annotations={"read_only_hint": True})
    def broken_add_read_only(a: int, b: int) -> Sum:
        """A read-only add that returns a string (a bug)."""
        return {"sum": "three"}  # type: ignore[typeddict-item]  # the bug the fixture shows

    @server.tool(timeout=0.2, annotations={"read_only_hint": True})
    def slow_read(ctx: Context, ms: int = 1000) -> str:
        """Reads slowly; times out after 200 ms."""
        for _ in range(ms // 10):
            if ctx.cancelled:
                break
            time.sleep(0.01)
        return "cancelled" if ctx.cancelled else "read"

    @server.tool(annotations={"read_only_hint": True})
    def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        """Routes by region; over HTTP the region travels as Mcp-Param-Region."""
        return f"routed to {region}"

    @server.tool
    def own_error() -> ToolResult:
        """Returns its own isError result."""
        return ToolResult(content=["I failed my own way"], is_error=True)


def add_other_primitives(server: Server) -> None:
    """Two resources (one crashing), a template, a prompt and completion."""

    @server.resource("memo://broken", name="broken", mime_type="text/plain")
    def broken() -> str:
        raise RuntimeError("disk /var/secret unreadable")

    @server.resource("memo://locked", name="locked", mime_type="text/plain")
    def locked() -> str:
        raise ToolError(
            "Memo read failed: memo://locked is locked by another workflow. Retry after that "
            "workflow finishes; nothing was read.",
            category="conflict",
            retryable=True,
            resource="memo://locked",
        )

    @server.resource("memo://readme", name="readme", mime_type="text/plain")
    def readme() -> str:
        return "Read me."

    @server.resource("issue://{key}", name="issue", mime_type="text/plain")
    def issue(key: str) -> str:
        if key != "ENG-1":
            raise ResourceNotFound(f"issue://{key}")
        return "ENG-1: Fix the login page"

    @server.prompt
    def summarize(text: str) -> str:
        """Summarize a text."""
        return f"Summarize: {text}"

    @server.completion
    def complete(request: CompletionRequest) -> Completion:
        values = [v for v in ("alpha", "beta", "gamma") if v.startswith(request.value)]
        return Completion(values, total=len(values))


# The form the elicit tool asks for, and the one the greet prompt asks for.
TITLE_FORM = {
    "type": "object",
    "properties": {"title": {"type": "string", "title": "Title"}},
    "required": ["title"],
}
NAME_FORM = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"}},
    "required": ["name"],
}
LOGIN_URL = "https://example.invalid/login"
LOGIN_MESSAGE = "Sign in to the tracker to link your account"


def add_asking_tools(server: Server) -> None:
    """Tools and a prompt that ask the client (MCPCXX_EXAMPLE_ASKING=1 only, as in C++)."""

    @server.tool
    def elicit(ctx: Context) -> str:
        """Asks the user for the title of a new issue (form elicitation)."""
        answer = ctx.elicit_sync("Title for the new issue?", TITLE_FORM)
        if not answer.accepted or answer.content is None:
            return f"the user chose {answer.action}"
        return f"created issue: {answer.content['title']}"

    @server.tool
    def elicit_url(ctx: Context) -> str:
        """Asks the user to sign in at a URL (URL elicitation)."""
        answer = ctx.elicit_url_sync(LOGIN_MESSAGE, LOGIN_URL, "login-1")
        return f"the user chose {answer.action}"

    @server.tool
    def url_elicitation_required() -> str:
        """Cannot go on until the user signs in at a URL."""
        raise UrlElicitationRequiredError(
            [{"elicitationId": "login-1", "url": LOGIN_URL, "message": LOGIN_MESSAGE}]
        )

    @server.tool
    def sample(ctx: Context) -> str:
        """Asks the client's model to say hello (sampling)."""
        return f"the model said: {ctx.sample_sync('Say hello', max_tokens=16).text}"

    @server.tool
    def list_roots(ctx: Context) -> str:
        """Lists the client's roots."""
        uris = ", ".join(root.uri for root in ctx.list_roots_sync())
        return f"roots: {uris or 'none'}"

    @server.prompt
    def greet(ctx: Context, greeting: str) -> str:
        """Greets someone the user names."""
        answer = ctx.elicit_sync("Whom should the greeting address?", NAME_FORM)
        who = f", {answer.content['name']}" if answer.accepted and answer.content else ""
        return f"{greeting}{who}!"


def add_listen_tools(server: Server) -> None:
    """Tools that change the server while it serves (listen_*.txtar)."""

    @server.tool
    def touch(uri: str) -> str:
        """Tells clients watching a resource URI that it changed."""
        server.notify_resource_updated(uri)
        return f"Notified the watchers of {uri}"

    @server.tool
    def grow(name: str) -> str:
        """Adds a tool with the given name."""

        def made() -> str:
            return f"I am {name}"

        server.add_tool(made, name=name)
        return f"Added the tool {name}"

    @server.tool
    def shrink(name: str) -> str:
        """Removes the tool with the given name."""
        if server.remove_tool(name):
            return f"Removed the tool {name}"
        return f"There is no tool {name}"


def add_context_tools(server: Server) -> None:
    """The request-context fixtures (MCPCXX_EXAMPLE_CONTEXT=1 only, as in C++)."""
    server.add_extension("com.example/trace", {"sampling": "head"})

    @server.tool
    def context_probe(ctx: Context) -> str:
        """Shows what the handler sees of its request: _meta, the client's com.example/trace settings and the X-Probe-* HTTP headers."""  # noqa: E501
        headers = ctx.headers
        shown = None
        if headers is not None:
            credentials = ("authorization", "cookie")
            shown = {
                k: v for k, v in headers.items() if k.startswith("x-probe-") or k in credentials
            }
        facts = {
            "meta": ctx.request_meta,
            "trace": ctx.client_extension("com.example/trace"),
            "headers": shown,
        }
        return json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @server.tool(ttl_ms=1500, cache_scope="private")
    def cached_probe() -> str:
        """A tool whose listing a client may reuse for 1.5 s, per user."""
        return "cached"


def _worker_bounds() -> dict[str, int]:
    """MCPCXX_MAX_WORKERS: that many worker threads, no more (queued calls in stop transcripts)."""
    limit = os.environ.get("MCPCXX_MAX_WORKERS")
    return {} if limit is None else {"workers": int(limit), "max_workers": int(limit)}


def add_conversion_tools(server: Server) -> None:
    """A tool pydantic converts after the engine validated it (MCPCXX_EXAMPLE_CONVERT=1, as C++)."""
    from pydantic import BaseModel, model_validator

    class Window(BaseModel):
        start: int
        end: int

        @model_validator(mode="after")
        def ordered(self) -> Window:
            if self.end < self.start:
                raise ValueError("end must not be before start")
            return self

    @server.tool
    def schedule(window: Window) -> str:
        """Schedules a window of hours."""
        return f"scheduled {window.start}-{window.end}"


def build() -> Server:
    """The fixture server, configured from the environment like the C++ one."""
    server = Server(
        "mcpcxx-example",
        "0.1.0",
        title="mcpcxx example server",
        description="Demonstrates both error paths",
        website_url="https://example.invalid/mcpcxx",
        instructions="Use echo to test; lookup_issue fails for unknown keys.",
        expose_exception_details=os.environ.get("MCPCXX_EXPOSE_DETAILS") == "1",
        max_message_bytes=int(os.environ.get("MCPCXX_MAX_MESSAGE_BYTES", 4 * 1024 * 1024)),
        max_batch_reply_bytes=int(os.environ.get("MCPCXX_MAX_BATCH_REPLY_BYTES", 16 * 1024 * 1024)),
        client_request_timeout=int(os.environ.get("MCPCXX_CLIENT_REQUEST_TIMEOUT_MS", 300000))
        / 1000,
        max_listeners=int(os.environ.get("MCPCXX_MAX_LISTENERS", 10000)),
        max_listen_uris=int(os.environ.get("MCPCXX_MAX_LISTEN_URIS", 1000)),
        **_worker_bounds(),
    )
    add_tools(server)
    add_contract_tools(server)
    add_lifecycle_tools(server)
    add_variant_tools(server)
    if os.environ.get("MCPCXX_EXAMPLE_MINIMAL") != "1":
        add_other_primitives(server)
    if os.environ.get("MCPCXX_EXAMPLE_ASKING") == "1":
        add_asking_tools(server)
    if os.environ.get("MCPCXX_EXAMPLE_LISTEN") == "1":
        add_listen_tools(server)
    if os.environ.get("MCPCXX_EXAMPLE_CONTEXT") == "1":
        add_context_tools(server)
    if os.environ.get("MCPCXX_EXAMPLE_CONVERT") == "1":
        add_conversion_tools(server)
    if "1" in (os.environ.get("MCPCXX_HTTP_AUTH"), os.environ.get("MCPCXX_EXAMPLE_SCOPED")):
        add_scoped_tool(server)
    return server


def add_scoped_tool(server: Server) -> None:
    """With MCPCXX_HTTP_AUTH=1 or MCPCXX_EXAMPLE_SCOPED=1: a tool needing issues:write."""

    @server.tool(scopes=["issues:write"])
    def close_issue(key: str, ctx: Context) -> str:
        """Close an issue (needs the issues:write scope)."""
        return f"closed {key} as {ctx.principal.subject if ctx.principal else ''}"


def golden_verifier(token: str) -> Principal | None:
    """The C++ fixture's golden_auth() token check, as a Python token verifier."""
    from mcpcxx.auth import InsufficientScopeError, Principal, VerifierUnavailableError

    if token == "good":
        return Principal("golden", {"issues:read"})
    if token == "good-refreshed":
        return Principal(
            "golden", {"issues:read", "issues:write"}, {"jti": "refreshed"}, None, 4102444800.0
        )
    if token == "writer":
        return Principal("writer", {"issues:read", "issues:write"})
    if token == "other":
        return Principal("other")
    if token == "narrow":
        raise InsufficientScopeError(["issues:write"])
    if token == "down":
        raise VerifierUnavailableError("jwks auth.internal:7000 down")
    if token == "crash":
        raise RuntimeError("token store unreachable at auth.internal:7000")
    return None


def http_options(port: int) -> dict[str, object]:
    """run("http") options from the environment, the same settings the C++ fixture reads."""
    env = os.environ
    auth = None
    if env.get("MCPCXX_HTTP_AUTH") == "1":
        from mcpcxx.auth import BearerAuth

        auth = BearerAuth(
            golden_verifier,
            authorization_servers=["https://auth.example.invalid"],
            scopes_supported=["issues:read", "issues:write"],
        )
    return {
        "auth": auth,
        "host": "127.0.0.1",
        "port": port,
        "legacy": env.get("MCPCXX_EXAMPLE_HTTP_LEGACY") != "0",
        "max_body_bytes": int(env.get("MCPCXX_MAX_BODY_BYTES", 4 * 1024 * 1024)),
        "max_sessions": int(env.get("MCPCXX_HTTP_MAX_SESSIONS", 10000)),
        "header_timeout": int(env.get("MCPCXX_HTTP_HEADER_TIMEOUT_MS", 10000)) / 1000,
        "metrics": env.get("MCPCXX_HTTP_METRICS") == "1",
    }


if __name__ == "__main__":
    port = os.environ.get("MCPCXX_EXAMPLE_HTTP_PORT")
    if port is not None:
        sys.exit(build().run("http", **http_options(int(port))))
    grace_ms = int(os.environ.get("MCPCXX_DRAIN_GRACE_MS", 5000))
    sys.exit(build().run(drain_grace_seconds=grace_ms / 1000))
