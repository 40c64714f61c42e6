"""The same echo tool on the mcpcxx Python API, served by the C++ HTTP transport.

Usage: python mcpcxx_echo.py PORT   (run by bench/http_load/run.sh)
"""

import sys

from mcpcxx import Server, ToolError

server = Server("mcpcxx-py-echo", "0.1.0")


@server.tool
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


@server.tool
def echo_fail(text: str) -> str:
    """Fails as a tool (bench/http_load --case tool_error)."""
    raise ToolError(f"echo_fail failed for {text}: it always fails. Do not retry.")


@server.tool
def echo_explode() -> str:
    """Fails unexpectedly (bench/http_load --case unexpected)."""
    raise RuntimeError("internal detail that must not reach the client")


if __name__ == "__main__":
    raise SystemExit(server.run("http", port=int(sys.argv[1])))
