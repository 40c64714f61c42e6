"""mcpcxx (Python API) serving wait(ms) for bench/waiting, in the default configuration.

Usage: python mcpcxx_server.py def|async stdio | def|async http
(http binds port 0 and prints its URL on stderr, as server.run("http") does.)
"""

from __future__ import annotations

import asyncio
import sys
import time

from mcpcxx import Server


def build(kind: str) -> Server:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (time.sleep or asyncio.sleep)."""
    server = Server("bench-waiting-mcpcxx")
    if kind == "def":

        @server.tool(name="wait")
        def wait_def(ms: int) -> str:
            """Sleep ms milliseconds on the calling thread."""
            time.sleep(ms / 1000)
            return "waited"

    else:

        @server.tool(name="wait")
        async def wait_async(ms: int) -> str:
            """Sleep ms milliseconds without holding a thread."""
            await asyncio.sleep(ms / 1000)
            return "waited"

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
