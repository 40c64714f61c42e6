"""mcpcxx.observability.prometheus: the engine's metrics in a prometheus_client registry."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import mcpcxx
from mcpcxx.observability.prometheus import MetricsCollector, register
from test_observability import add_tools, exercise


@pytest.fixture
def served() -> Iterator[mcpcxx.Server]:
    srv = mcpcxx.Server("bridge", "1.0.0", workers=2)
    add_tools(srv)
    yield srv
    srv.close()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_the_registry_exposes_exactly_the_engines_samples(served: mcpcxx.Server) -> None:
    registry = CollectorRegistry()
    register(served, registry)
    exercise(served)
    # Gauges move with load; on an idle server both reads see the same numbers.
    assert samples(generate_latest(registry).decode()) == samples(served.metrics_text())
    key = (
        "mcpcxx_requests_total",
        (
            ("category", "not_found"),
            ("method", "tools/call"),
            ("outcome", "tool_error"),
            ("tool", "lookup"),
        ),
    )
    assert samples(generate_latest(registry).decode())[key] == 1.0


def test_each_scrape_reads_the_counters_as_they_are_now(served: mcpcxx.Server) -> None:
    registry = CollectorRegistry()
    register(served, registry)
    key = (
        "mcpcxx_requests_total",
        (("category", "ok"), ("method", "tools/call"), ("outcome", "ok"), ("tool", "echo")),
    )
    assert key not in samples(generate_latest(registry).decode())
    exercise(served)
    assert samples(generate_latest(registry).decode())[key] == 1.0
    exercise(served)
    assert samples(generate_latest(registry).decode())[key] == 2.0


def test_histograms_and_types_survive_the_bridge(served: mcpcxx.Server) -> None:
    registry = CollectorRegistry()
    collector = register(served, registry)
    exercise(served)
    text = generate_latest(registry).decode()
    assert "# TYPE mcpcxx_request_duration_seconds histogram" in text
    assert "# TYPE mcpcxx_requests_total counter" in text
    assert (
        'mcpcxx_request_duration_seconds_bucket{le="+Inf",method="tools/call",tool="echo"}' in text
    )
    registry.unregister(collector)
    assert "mcpcxx_" not in generate_latest(registry).decode()


def test_two_servers_in_one_registry_is_a_clear_error(served: mcpcxx.Server) -> None:
    other = mcpcxx.Server("other", "1.0.0")
    try:
        registry = CollectorRegistry()
        register(served, registry)
        with pytest.raises(ValueError, match="Duplicated timeseries"):
            register(other, registry)
    finally:
        other.close()


def test_without_prometheus_client_the_error_says_what_to_install(served: mcpcxx.Server) -> None:
    code = (
        "import sys; sys.modules['prometheus_client'] = None; "
        "sys.modules['prometheus_client.parser'] = None\n"
        "import mcpcxx\nfrom mcpcxx.observability.prometheus import MetricsCollector\n"
        "try:\n    MetricsCollector(mcpcxx.Server('x', '1'))\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'mcpcxx[prometheus]'" in out.stdout, out.stderr
    assert isinstance(MetricsCollector(served), MetricsCollector)
