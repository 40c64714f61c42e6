"""Observability adapters: Prometheus (``mcpcxx.observability.prometheus``) and OpenTelemetry.

``mcpcxx.observability.prometheus.register(server)`` puts the engine's metrics into a
``prometheus_client`` registry; ``server.enable_tracing()`` attaches the OpenTelemetry tracer
(``_otel``); ``mcpcxx.asgi.MetricsApp`` serves the metrics as an ASGI route (``_metrics_asgi``).
Nothing is imported here, so each adapter loads only when used (docs/observability.md).
"""
