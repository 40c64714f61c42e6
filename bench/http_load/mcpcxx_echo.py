"""The same echo tool on the mcpcxx Python API, served by the C++ HTTP transport.

Usage: python mcpcxx_echo.py PORT [--inline-tools]   (run by bench/http_load/run.sh)

--inline-tools declares the three tools inline_dispatch=True (quick, never blocking): their calls
run on the I/O thread that read them instead of the worker pool.
"""

import sys

from mcpcxx import Server, ToolError

server = Server("mcpcxx-py-echo", "0.1.0")
quick = "--inline-tools" in sys.argv[2:]


@server.tool(inline_dispatch=quick)
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


@server.tool(inline_dispatch=quick)
def echo_fail(text: str) -> str:
    """Fails as a tool (bench/http_load --case tool_error)."""
    raise ToolError(f"echo_fail failed for {text}: it always fails. Do not retry.")


@server.tool(inline_dispatch=quick)
def echo_explode() -> str:
    """Fails unexpectedly (bench/http_load --case unexpected)."""
    raise RuntimeError("internal detail that must not reach the client")


if __name__ == "__main__":
    raise SystemExit(server.run("http", port=int(sys.argv[1])))
