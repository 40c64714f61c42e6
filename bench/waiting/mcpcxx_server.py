"""mcpcxx (Python API) serving wait(ms) for bench/waiting, in the default configuration.

Usage: python mcpcxx_server.py def|async stdio | def|async http
(http binds port 0 and prints its URL on stderr, as server.run("http") does.)
"""

from __future__ import annotations

import sys

from waiting_tools import register

from mcpcxx import Server


def build(kind: str) -> Server:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (waiting_tools.py)."""
    server = Server("bench-waiting-mcpcxx")
    register(server.tool, kind)
    return server


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("def", "async"):
        sys.exit("usage: mcpcxx_server.py def|async stdio|http")
    server = build(sys.argv[1])
    if sys.argv[2] == "stdio":
        return server.run("stdio")
    return server.run("http", port=0)


if __name__ == "__main__":
    sys.exit(main())
