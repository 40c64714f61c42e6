"""The official Python SDK (pip mcp) serving the same echo tool over Streamable HTTP.

Usage: python pysdk_server.py PORT   (run by bench/http_load/run.sh)
"""

import sys

import uvicorn
from mcp.server import MCPServer

server = MCPServer("pysdk-echo")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


if __name__ == "__main__":
    port = int(sys.argv[1])
    app = server.streamable_http_app(json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
