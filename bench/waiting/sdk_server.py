"""The official Python SDK (mcp 2.3, MCPServer) serving wait(ms) for bench/waiting.

Usage: python sdk_server.py def|async stdio | def|async http PORT
"""

from __future__ import annotations

import sys

from mcp.server import MCPServer
from waiting_tools import register


def build(kind: str) -> MCPServer:
    """A server whose one tool, wait(ms), sleeps ms milliseconds (waiting_tools.py)."""
    server = MCPServer("bench-waiting-python-sdk", log_level="WARNING")
    register(server.tool, kind)
    return server


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("def", "async"):
        sys.exit("usage: sdk_server.py def|async stdio | def|async http PORT")
    server = build(sys.argv[1])
    if sys.argv[2] == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
