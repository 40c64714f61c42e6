"""FastMCP serving wait(ms) for bench/waiting (run with bench/waiting/.venv/bin/python).

Usage: python fastmcp_server.py def|async stdio | def|async http PORT
"""

from __future__ import annotations

import sys

from fastmcp import FastMCP
from waiting_tools import register


def build(kind: str) -> FastMCP:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (waiting_tools.py)."""
    server = FastMCP("bench-waiting-fastmcp")
    register(server.tool, kind)
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
