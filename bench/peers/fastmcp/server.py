"""fastmcp peer for bench/peers.

echo(text) returns the text; fail(text) always ends in a tool error (isError: true) the fastmcp
way (a raised ToolError). Usage: python server.py stdio | http PORT
"""

import sys

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

server = FastMCP("peer-fastmcp")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def fail(text: str) -> str:
    """Always fail with a tool error."""
    raise ToolError(f"fail: refused {text!r}; this tool always fails, do not retry")


def main() -> None:
    if sys.argv[1:2] == ["stdio"]:
        server.run(transport="stdio", show_banner=False)
    elif sys.argv[1:2] == ["http"] and len(sys.argv) == 3:
        server.run(
            transport="http",
            show_banner=False,
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response=True,
            log_level="warning",
        )
    else:
        sys.exit("usage: server.py stdio | http PORT")


if __name__ == "__main__":
    main()
