"""FastMCP serving wait(ms) for bench/waiting (run with bench/waiting/.venv/bin/python).

Usage: python fastmcp_server.py def|async stdio | def|async http PORT
"""

from __future__ import annotations

import asyncio
import sys
import time

from fastmcp import FastMCP


def build(kind: str) -> FastMCP:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (time.sleep or asyncio.sleep)."""
    server = FastMCP("bench-waiting-fastmcp")
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


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("def", "async"):
        sys.exit("usage: fastmcp_server.py def|async stdio | def|async http PORT")
    server = build(sys.argv[1])
    if sys.argv[2] == "stdio":
        server.run(transport="stdio", show_banner=False)
        return
    server.run(
        transport="http",
        show_banner=False,
        host="127.0.0.1",
        port=int(sys.argv[3]),
        json_response=True,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
