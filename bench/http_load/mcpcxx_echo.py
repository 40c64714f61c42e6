"""The same echo tool on the mcpcxx Python API, served by the C++ HTTP transport.

Usage: python mcpcxx_echo.py PORT   (run by bench/http_load/run.sh)
"""

import sys

from mcpcxx import Server

server = Server("mcpcxx-py-echo", "0.1.0")


@server.tool
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


if __name__ == "__main__":
    raise SystemExit(server.run("http", port=int(sys.argv[1])))
