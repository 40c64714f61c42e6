"""The inspector: ``python -m mcpcxx inspect`` drives a server and prints every raw frame.

Its peers are usable from scripts too (examples/issue_tracker/client.py): ``StdioPeer`` runs a
server command and speaks newline-delimited JSON-RPC to it, printing what goes each way;
``InspectError`` is what a misbehaving server raises; ``dumps`` is the frame encoding. The
protocol revisions (``MODERN``, ``LEGACY``) and the 2026-07-28 envelope key the client
capabilities go under (``CLIENT_CAPABILITIES_KEY``) come with them. ``--url`` uses an HTTP peer
(mcpcxx.inspect._http), loaded only then.
"""

from __future__ import annotations

from mcpcxx._protocol.envelope import CLIENT_CAPABILITIES_KEY, LEGACY, MODERN
from mcpcxx.inspect._peer import CLIENT_INFO, InspectError, Peer, dumps
from mcpcxx.inspect._stdio import StdioPeer, main

__all__ = [
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO",
    "LEGACY",
    "MODERN",
    "InspectError",
    "Peer",
    "StdioPeer",
    "dumps",
    "main",
]
