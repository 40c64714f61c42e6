"""Deprecated: the inspector moved to ``mcpcxx.inspect``."""

from __future__ import annotations

from mcpcxx._api.moved import warn_moved
from mcpcxx.inspect import StdioPeer, main

warn_moved(__name__, "mcpcxx.inspect")

__all__ = ["StdioPeer", "main"]
