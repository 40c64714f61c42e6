"""mcpcxx Python-tool server for bench/peers, the same tools as the peers.

echo(text) returns the text; fail(text) always ends in a tool error (isError: true), the mcpcxx
way (a raised ToolError). Usage: python server.py stdio | http PORT
MCPCXX_PEER_INLINE=1 serves HTTP with inline_dispatch (every handler runs on the I/O thread);
MCPCXX_PEER_INLINE_TOOLS=1 declares both tools inline_dispatch (either transport).
"""

import os
import sys

from mcpcxx import Server, ToolError

server = Server("peer-mcpcxx-python")
INLINE_TOOLS = os.environ.get("MCPCXX_PEER_INLINE_TOOLS") == "1"


@server.tool(inline_dispatch=INLINE_TOOLS)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(inline_dispatch=INLINE_TOOLS)
def fail(text: str) -> str:
    """Always fail with a tool error."""
    raise ToolError(
        f"fail: refused {text!r}; this tool always fails, do not retry",
        category="invalid_arguments",
        retryable=False,
    )


def main() -> int:
    if sys.argv[1:2] == ["stdio"]:
        return server.run("stdio")
    if sys.argv[1:2] == ["http"] and len(sys.argv) == 3:
        inline = os.environ.get("MCPCXX_PEER_INLINE") == "1"
        return server.run("http", port=int(sys.argv[2]), inline_dispatch=inline)
    sys.exit("usage: server.py stdio | http PORT")


if __name__ == "__main__":
    sys.exit(main())
