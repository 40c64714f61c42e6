"""Middleware around MCP requests (docs/middleware.md): the base class and what its hooks see."""

from __future__ import annotations

from mcpcxx._components.middleware import Middleware, Refusal, Reply, Request

__all__ = ["Middleware", "Refusal", "Reply", "Request"]
