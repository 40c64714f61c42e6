"""Observability: the Prometheus exposition (promtool, a real Prometheus scrape, the ASGI route),
OpenTelemetry spans (SDK in-memory exporter), the request log schema of docs/observability.md and
the Grafana dashboard's PromQL against the exported metric names."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

import mcpcxx
from asgi_driver import AsgiResponse, asgi_request
from mcpcxx.asgi import MetricsApp
from mcpcxx.testing import MODERN, Client

ROOT = pathlib.Path(__file__).parents[2]
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
IN_CI = bool(os.environ.get("CI") or os.environ.get("MCPCXX_CI"))


def need_binary(name: str) -> str:
    """The path of `name`; in CI its absence fails, elsewhere it skips with the reason."""
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"{name} is required in CI (Debian package prometheus, scripts/setup.sh)")
        pytest.skip(f"{name} not installed (apt-get install prometheus)")
    return path


def add_tools(server: mcpcxx.Server) -> None:
    @server.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    @server.tool()
    def lookup(item: int) -> str:
        """Look an item up."""
        raise mcpcxx.ToolError(
            f"Lookup failed: item {item} was not found. List items first.",
            category="not_found",
        )

    @server.tool()
    def explode() -> str:
        """Fail unexpectedly."""
        raise RuntimeError("secret detail")


def exercise(server: mcpcxx.Server) -> None:
    with Client(server, protocol_version=MODERN) as c:
        c.call_tool("echo", {"text": "hi"})
        c.call_tool("lookup", {"item": 4})
        c.call_tool("explode")
        c.call_tool("no_such_tool_from_a_client")


@pytest.fixture
def served() -> Iterator[mcpcxx.Server]:
    srv = mcpcxx.Server("obs", "1.0.0", workers=2)
    add_tools(srv)
    yield srv
    srv.close()


def test_metrics_text_separates_outcomes_and_bounds_labels(served: mcpcxx.Server) -> None:
    exercise(served)
    text = served.metrics_text()
    assert (
        'mcpcxx_requests_total{method="tools/call",tool="echo",outcome="ok",category="ok"} 1'
        in text
    )
    assert 'tool="lookup",outcome="tool_error",category="not_found"} 1' in text
    assert 'tool="explode",outcome="tool_error",category="internal"} 1' in text
    assert 'mcpcxx_unexpected_exceptions_total{method="tools/call",tool="explode"} 1' in text
    assert 'tool="_unknown",outcome="protocol_error",category="protocol"} 1' in text
    assert "no_such_tool_from_a_client" not in text


def test_promtool_accepts_the_exposition(served: mcpcxx.Server) -> None:
    promtool = need_binary("promtool")
    exercise(served)
    run = subprocess.run(
        [promtool, "check", "metrics"],
        input=served.metrics_text(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def asgi_get(app: MetricsApp, method: str = "GET", origin: bytes | None = None) -> AsgiResponse:
    headers = [(b"host", b"localhost:8000")]
    if origin is not None:
        headers.append((b"origin", origin))
    return asyncio.run(asgi_request(app, method, "/metrics", headers=headers))


def test_asgi_metrics_route(served: mcpcxx.Server) -> None:
    exercise(served)
    app = MetricsApp(served)
    resp = asgi_get(app)
    assert resp.status == 200
    assert b"mcpcxx_requests_total" in resp.body
    assert asgi_get(app, "POST").status == 405
    assert asgi_get(app, origin=b"http://evil.example.com").status == 403
    with pytest.raises(TypeError, match="unknown MetricsApp option"):
        MetricsApp(served, path="/x")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout} s")


SERVER_SCRIPT = """
import sys
import mcpcxx
server = mcpcxx.Server("scraped", "1.0.0")

@server.tool()
def echo(text: str) -> str:
    \"\"\"Echo.\"\"\"
    return text

sys.exit(server.run("http", port=int(sys.argv[1]), metrics=True))
"""


def test_a_real_prometheus_scrapes_the_http_server(tmp_path: pathlib.Path) -> None:
    prometheus = need_binary("prometheus")
    mcp_port, prom_port = free_port(), free_port()
    script = tmp_path / "server.py"
    script.write_text(SERVER_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    server = subprocess.Popen([sys.executable, str(script), str(mcp_port)], env=env)
    prom = None
    try:
        wait_http(f"http://127.0.0.1:{mcp_port}/metrics")
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n"
            "scrape_configs:\n  - job_name: mcpcxx\n    metrics_path: /metrics\n"
            f"    static_configs:\n      - targets: ['127.0.0.1:{mcp_port}']\n"
        )
        prom = subprocess.Popen(
            [
                prometheus,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'data'}",
                f"--web.listen-address=127.0.0.1:{prom_port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        query = f"http://127.0.0.1:{prom_port}/api/v1/query?query=mcpcxx_sessions_open"
        deadline = time.monotonic() + 90
        result: list[Any] = []
        while time.monotonic() < deadline and not result:
            try:
                answer = json.loads(urllib.request.urlopen(query, timeout=2).read())
                result = answer["data"]["result"]
            except OSError:
                pass
            time.sleep(0.5)
        assert result, "Prometheus never stored a sample of mcpcxx_sessions_open"
        assert result[0]["metric"]["job"] == "mcpcxx"
        up = f"http://127.0.0.1:{prom_port}/api/v1/query?query=up"
        assert (
            json.loads(urllib.request.urlopen(up, timeout=5).read())["data"]["result"][0]["value"][
                1
            ]
            == "1"
        )
    finally:
        for p in (prom, server):
            if p is not None:
                p.terminate()
                p.wait(30)


def test_spans_follow_the_mcp_conventions_and_handlers_nest(served: mcpcxx.Server) -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("handler")

    @served.tool()
    def nested() -> str:
        """Start a child span."""
        with tracer.start_as_current_span("inner work"):
            return "ok"

    @served.tool()
    async def nested_async() -> str:
        """Start a child span from a coroutine."""
        with tracer.start_as_current_span("inner async work"):
            return "ok"

    served.enable_tracing(provider)
    meta = {"traceparent": TRACEPARENT, "tracestate": "rojo=1"}
    with Client(served, protocol_version=MODERN) as c:
        c.request("tools/call", {"name": "nested", "arguments": {}, "_meta": meta})
        c.request("tools/call", {"name": "nested_async", "arguments": {}})
        c.request("tools/call", {"name": "lookup", "arguments": {"item": 1}})
        c.request("tools/call", {"name": "unknown_one", "arguments": {}})
    spans = {s.name: s for s in exporter.get_finished_spans()}
    request = spans["tools/call nested"]
    assert request.kind == trace.SpanKind.SERVER
    assert format(request.context.trace_id, "032x") == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert request.parent is not None and format(request.parent.span_id, "016x") == (
        "00f067aa0ba902b7"
    )
    attrs = dict(request.attributes or {})
    assert attrs["mcp.method.name"] == "tools/call"
    assert attrs["gen_ai.tool.name"] == "nested"
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["jsonrpc.request.id"]
    assert "error.type" not in attrs
    inner = spans["inner work"]
    assert inner.parent is not None and inner.parent.span_id == request.context.span_id
    inner_async = spans["inner async work"]
    assert inner_async.parent is not None
    assert inner_async.parent.span_id == spans["tools/call nested_async"].context.span_id
    tool_failure = dict(spans["tools/call lookup"].attributes or {})
    assert tool_failure["error.type"] == "tool_error"
    assert tool_failure["mcpcxx.error.category"] == "not_found"
    assert "rpc.response.status_code" not in tool_failure
    protocol = dict(spans["tools/call unknown_one"].attributes or {})
    assert protocol["error.type"] == "-32602"
    assert protocol["rpc.response.status_code"] == "-32602"
    assert protocol["mcpcxx.outcome"] == "protocol_error"


def schema_from_docs() -> dict[str, Any]:
    doc = (ROOT / "docs" / "observability.md").read_text()
    block = doc.split("<!-- request-log-schema -->", 1)[1]
    match = re.search(r"```json\n(.*?)\n```", block, re.S)
    assert match, "docs/observability.md lost its request log schema block"
    schema: dict[str, Any] = json.loads(match.group(1))
    return schema


def test_request_log_lines_match_the_documented_schema() -> None:
    lines: list[str] = []
    srv = mcpcxx.Server("logged", "1.0.0", log_writer=lines.append)
    add_tools(srv)
    try:
        with Client(srv, protocol_version=MODERN) as c:
            c.request(
                "tools/call",
                {"name": "echo", "arguments": {"text": "x"}, "_meta": {"traceparent": TRACEPARENT}},
            )
            c.call_tool("lookup", {"item": 4})
            c.call_tool("explode")
            c.call_tool("nope")
    finally:
        srv.close()
    requests = [json.loads(line) for line in lines if '"event":"request"' in line]
    assert len(requests) == 4
    schema = schema_from_docs()
    for line in requests:
        jsonschema.validate(line, schema)
    assert requests[0]["traceId"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert requests[2]["reference"].startswith("ERR-")
    assert {r["outcome"] for r in requests} == {"ok", "tool_error", "protocol_error"}


def test_log_level_drops_lower_lines() -> None:
    lines: list[str] = []
    srv = mcpcxx.Server("quiet", "1.0.0", log_writer=lines.append, log_level="warning")
    add_tools(srv)
    try:
        with Client(srv, protocol_version=MODERN) as c:
            c.call_tool("echo", {"text": "x"})
            c.call_tool("lookup", {"item": 4})
    finally:
        srv.close()
    levels = [json.loads(line)["level"] for line in lines]
    assert levels == ["warning"]
    with pytest.raises(TypeError, match="log_threshold"):
        mcpcxx.Server("bad", log_level="loud")


PROMQL_NAME = re.compile(r"\b(mcpcxx_[a-z_]+)\b")


def test_grafana_dashboard_only_uses_exported_metrics(served: mcpcxx.Server) -> None:
    exercise(served)
    text = served.metrics_text()
    families = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    exported = set(families)
    for name, kind in families.items():
        if kind == "histogram":
            exported |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
    dashboard = json.loads((ROOT / "docs" / "grafana" / "mcpcxx.json").read_text())
    used: set[str] = set()
    titles = []
    for panel in dashboard["panels"]:
        titles.append(panel["title"])
        for target in panel["targets"]:
            used |= set(PROMQL_NAME.findall(target["expr"]))
    for variable in dashboard["templating"]["list"]:
        used |= set(PROMQL_NAME.findall(str(variable.get("query", ""))))
    assert used, "the dashboard queries no mcpcxx metric"
    assert used <= exported, f"not exported: {sorted(used - exported)}"
    # The founding rule: separate panels for protocol errors, tool errors by category and
    # unexpected exceptions.
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert any('outcome="protocol_error"' in e for e in exprs)
    assert any('outcome="tool_error"' in e and "by (category)" in e for e in exprs)
    assert any("mcpcxx_unexpected_exceptions_total" in e for e in exprs)
