"""mcpcxx (Python API) serving wait(ms) for bench/waiting, in the default configuration.

Usage: python mcpcxx_server.py def|async stdio | def|async http
(http binds port 0 and prints its URL on stderr, as server.run("http") does.)

With MCPCXX_BENCH_MIDDLEWARE=1 (peer "mcpcxx-mw" of run.py) the server also runs a middleware
chain on every call: a Python `after` hook (async, so it runs on the event loop), the audit
built-in (it audits wait, which is not read-only), a rate limit that never refuses (a burst far
above any run's calls) and the size limit, so the run measures what the chain costs a tool that
waits.
"""

from __future__ import annotations

import os
import sys

from waiting_tools import register

from mcpcxx import Server
from mcpcxx.middleware import Audit, Middleware, RateLimit, Reply, Request, SizeLimit


class CountReplies(Middleware):
    """A pass-through Python middleware: counts the replies in an async `after` hook."""

    def __init__(self) -> None:
        self.replies = 0

    async def after(self, request: Request, reply: Reply) -> None:
        self.replies += 1


def add_middleware(server: Server) -> None:
    """The chain of peer mcpcxx-mw: Python after, audit, rate limit, size limit."""
    audited: list[dict[str, object]] = []
    server.add_middleware(CountReplies())
    server.add_middleware(Audit(sink=audited.append))
    server.add_middleware(RateLimit(burst=1e9, per_second=1e9, per="tool"))
    server.add_middleware(SizeLimit(max_bytes=1 << 20))


def build(kind: str) -> Server:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (waiting_tools.py)."""
    server = Server("bench-waiting-mcpcxx")
    register(server.tool, kind)
    if os.environ.get("MCPCXX_BENCH_MIDDLEWARE") == "1":
        add_middleware(server)
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
