"""Middleware around MCP requests (docs/middleware.md): the base class and what its hooks see."""

from __future__ import annotations

from mcpcxx._components.middleware import Middleware, Notification, Refusal, Reply, Request
from mcpcxx._components.middleware_builtins import (
    Audit,
    Authorize,
    RateLimit,
    ResponseCache,
    SizeLimit,
)

__all__ = [
    "Audit",
    "Authorize",
    "Middleware",
    "Notification",
    "RateLimit",
    "Refusal",
    "Reply",
    "Request",
    "ResponseCache",
    "SizeLimit",
]
