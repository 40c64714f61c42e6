"""Deprecated: the inspector's peers moved to ``mcpcxx.inspect``."""

from __future__ import annotations

from mcpcxx._api.moved import warn_moved
from mcpcxx.inspect import CLIENT_INFO, InspectError, Peer, dumps

warn_moved(__name__, "mcpcxx.inspect")

__all__ = ["CLIENT_INFO", "InspectError", "Peer", "dumps"]
