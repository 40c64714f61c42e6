"""Deprecated: the protocol revisions and envelope keys are in ``mcpcxx.inspect``."""

from __future__ import annotations

from mcpcxx._api.moved import warn_moved
from mcpcxx._protocol.envelope import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LEGACY,
    LOG_LEVEL_KEY,
    MODERN,
    PROTOCOL_VERSION_KEY,
    request,
    with_envelope,
)

warn_moved(__name__, "mcpcxx.inspect (LEGACY, MODERN, CLIENT_CAPABILITIES_KEY)")

__all__ = [
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "LEGACY",
    "LOG_LEVEL_KEY",
    "MODERN",
    "PROTOCOL_VERSION_KEY",
    "request",
    "with_envelope",
]
