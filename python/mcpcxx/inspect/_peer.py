"""What the inspector's stdio and HTTP peers share: the error, commentary and request framing."""

from __future__ import annotations

import itertools
import json
from typing import Any, TextIO

from mcpcxx import _core
from mcpcxx._protocol import envelope as _envelope

CLIENT_INFO = {"name": "mcpcxx-inspect", "version": _core.__version__}


class InspectError(Exception):
    """The server misbehaved at the transport level (died, silent, or not JSON)."""


class Peer:
    """A server the inspector talks to; subclasses move the frames."""

    def __init__(self, out: TextIO, timeout: float, version: str) -> None:
        self.out, self.timeout, self.version = out, timeout, version
        self.ids = itertools.count(1)

    def note(self, text: str) -> None:
        """Print a commentary line (prefixed with #)."""
        print(f"# {text}", file=self.out, flush=True)

    def next_request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """A request with a fresh id, carrying the 2026-07-28 envelope when that is the era."""
        if self.version == _envelope.MODERN:
            params = _envelope.with_envelope(
                params, protocol_version=self.version, client_info=CLIENT_INFO, capabilities={}
            )
        return _envelope.request(next(self.ids), method, params)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request; print frames until its response arrives, and return that response."""
        raise NotImplementedError

    def notify(self, method: str) -> None:
        """Send a notification without params."""
        raise NotImplementedError

    def close(self) -> int:
        """End the conversation; the server's exit code (0 for HTTP)."""
        raise NotImplementedError


def dumps(body: dict[str, Any]) -> str:
    """A frame as the inspector prints and sends it."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))
