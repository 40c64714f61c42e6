"""The engine's metrics in a ``prometheus_client`` registry (the ``mcpcxx[prometheus]`` extra).

For applications that already expose ``prometheus_client`` metrics (``start_http_server``,
``make_asgi_app``, a Django or Flask exporter): the engine's counters, histograms and gauges then
appear on that endpoint next to the application's own, with the names and labels
docs/observability.md lists. Nothing is copied or counted per request: the engine counts in its
own sharded counters, and the collector reads them once per scrape (one ``metrics_text()`` call,
parsed by ``prometheus_client``'s own text parser).

    from prometheus_client import start_http_server
    from mcpcxx.observability.prometheus import register

    register(server)          # into prometheus_client.REGISTRY
    start_http_server(9464)

Thread-safety: ``collect`` may run on any thread, concurrently with requests being served.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpcxx._api.server import Server

_INSTALL = "the Prometheus bridge needs prometheus_client: pip install 'mcpcxx[prometheus]'"


def _parser() -> Any:
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    return text_string_to_metric_families


class MetricsCollector:
    """A ``prometheus_client`` collector yielding every metric of `server`'s engine."""

    def __init__(self, server: Server) -> None:
        self._server = server
        self._families = _parser()  # fail at construction, not at the first scrape

    def collect(self) -> Iterator[Any]:
        """The engine's metric families as they are now (called by the registry per scrape)."""
        yield from self._families(self._server.metrics_text())

    def describe(self) -> list[Any]:
        """The families' names, so a registry refuses a second server's duplicate names."""
        return list(self.collect())


def register(server: Server, registry: Any = None) -> MetricsCollector:
    """Adds `server`'s metrics to `registry` (default ``prometheus_client.REGISTRY``).

    Returns the collector (``registry.unregister(collector)`` removes it again). ValueError from
    ``prometheus_client`` when the registry already holds metrics of the same names, e.g. a second
    server registered into the same registry: give each its own ``CollectorRegistry``.
    """
    collector = MetricsCollector(server)
    if registry is None:
        try:
            from prometheus_client import REGISTRY
        except ImportError as e:
            raise ImportError(_INSTALL) from e
        registry = REGISTRY
    registry.register(collector)
    return collector
