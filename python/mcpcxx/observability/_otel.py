"""OpenTelemetry spans for every request, through opentelemetry-api (``pip install mcpcxx[otel]``).

``server.enable_tracing()`` attaches a tracer to the engine: one SERVER span per request, named
``"{mcp.method.name} {target}"`` with the attributes of the OpenTelemetry semantic conventions
for MCP; the W3C parent comes from ``params._meta`` (traceparent/tracestate), else from the HTTP
headers. While a Python handler runs, the request span is the current span, so the handler's
own spans become its children.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpcxx._core import Server as CoreServer

_ATTR_OF_TARGET = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}


def available() -> bool:
    """True when opentelemetry-api can be imported."""
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError:
        return False
    return True


def attach(core: CoreServer, tracer_provider: Any = None) -> None:
    """Attach a tracer from `tracer_provider` (default: the global one) to the engine `core`."""
    from opentelemetry import trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    tracer = trace.get_tracer("mcpcxx", tracer_provider=tracer_provider)
    propagator = TraceContextTextMapPropagator()

    def start(info: dict[str, Any]) -> Any:
        carrier: dict[str, str] = {}
        if "trace_id" in info:
            flags = int(info["trace_flags"])
            carrier["traceparent"] = f"00-{info['trace_id']}-{info['parent_span_id']}-{flags:02x}"
            if info["tracestate"]:
                carrier["tracestate"] = info["tracestate"]
        parent = propagator.extract(carrier) if carrier else None
        attributes: dict[str, str] = {
            "mcp.method.name": info["method"],
            "jsonrpc.request.id": info["request_id"],
        }
        target_attr = _ATTR_OF_TARGET.get(info["method"])
        if target_attr and info["target"]:
            attributes[target_attr] = info["target"]
            if info["method"] == "tools/call":
                attributes["gen_ai.operation.name"] = "execute_tool"
        if info["session_id"]:
            attributes["mcp.session.id"] = info["session_id"]
        if info["protocol_version"]:
            attributes["mcp.protocol.version"] = info["protocol_version"]
        return tracer.start_span(
            info["name"], context=parent, kind=SpanKind.SERVER, attributes=attributes
        )

    def end(span: Any, info: dict[str, Any]) -> None:
        span.set_attribute("mcpcxx.outcome", info["outcome"])
        span.set_attribute("mcpcxx.error.category", info["category"])
        if "rpc_code" in info:
            span.set_attribute("rpc.response.status_code", str(info["rpc_code"]))
        if info["reference"]:
            span.set_attribute("mcpcxx.error.reference", info["reference"])
        if info["error_type"]:
            span.set_attribute("error.type", info["error_type"])
            span.set_status(Status(StatusCode.ERROR, info["category"]))
        span.end()

    core.set_tracer(start, end)


@contextlib.contextmanager
def current(span: Any) -> Iterator[None]:
    """Make `span` the current span (a no-op for None); it is not ended on exit."""
    if span is None:
        yield
        return
    from opentelemetry import trace

    with trace.use_span(span, end_on_exit=False):
        yield


async def in_span(awaitable: Awaitable[Any], span: Any) -> Any:
    """Await `awaitable` with `span` current (coroutines run on the server's loop thread)."""
    with current(span):
        return await awaitable
