"""mcpcxx Python-tool server for bench/peers, the same tools as the peers.

echo(text) returns the text; fail(text) always ends in a tool error (isError: true), the mcpcxx
way (a raised ToolError). Usage: python server.py stdio | http PORT
MCPCXX_PEER_INLINE=1 serves HTTP with inline_dispatch (the tools run on the I/O thread).
"""

import os
import sys

from mcpcxx import Server, ToolError

server = Server("peer-mcpcxx-python")


@server.tool
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool
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
