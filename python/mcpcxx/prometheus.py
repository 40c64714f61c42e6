"""Deprecated: ``mcpcxx.prometheus`` moved to ``mcpcxx.observability.prometheus``."""

from __future__ import annotations

from mcpcxx._api.moved import warn_moved
from mcpcxx.observability.prometheus import MetricsCollector, register

warn_moved(__name__, "mcpcxx.observability.prometheus")

__all__ = ["MetricsCollector", "register"]
