"""A small mcpcxx demo server: one tool per wire shape.

Run it with `python examples/python/demo_server.py` (stdio) or inspect it with
`python -m mcpcxx inspect --error-demo -- python examples/python/demo_server.py`.
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import BaseModel, Field

from mcpcxx import Context, Server, ToolError

server = Server(
    "mcpcxx-demo",
    "0.1.0",
    title="mcpcxx demo",
    instructions="Tools that show each error path of the MCP wire.",
    expose_exception_details="--expose-details" in sys.argv,
)


@server.tool(annotations={"read_only_hint": True})
def echo(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: Any text.
    """
    return text


@server.tool(annotations={"read_only_hint": True})
def get_issue(key: Annotated[str, Field(pattern=r"^[A-Z]+-\d+$")]) -> str:
    """Look up an issue by key; only ENG-1 exists.

    Args:
        key: An issue key such as ENG-1.
    """
    if key != "ENG-1":
        raise ToolError.compose(
            "Issue lookup",
            resource=f"issue {key}",
            reason="it was not found",
            next_step="Verify the issue key or list recent issues first",
            retry_guidance="Do not retry unchanged",
            category="not_found",
            resource_id=key,
        )
    return "ENG-1: Crash on start (open)"


@server.tool
def crash(reason: str = "boom") -> str:
    """Fail with an unexpected exception (its text stays in the server log)."""
    raise RuntimeError(f"database password rejected: {reason}")


class Stats(BaseModel):
    """Word statistics."""

    words: int
    characters: int


@server.tool(annotations={"read_only_hint": True})
def stats(text: str) -> Stats:
    """Count words and characters (declares an outputSchema).

    Args:
        text: The text to measure.
    """
    return Stats(words=len(text.split()), characters=len(text))


@server.tool
def broken_stats(text: str) -> Stats:
    """Return a value that breaks its own outputSchema (a server bug, reported as isError)."""
    return {"words": "many"}  # type: ignore[return-value]


@server.tool
async def slow_count(n: Annotated[int, Field(ge=1, le=100)], ctx: Context) -> int:
    """Count to n, reporting progress; cancellable.

    Args:
        n: Where to stop.
    """
    import asyncio

    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"counted {i}")
        await asyncio.sleep(0.01)
    return n


@server.tool
def noisy(text: str) -> str:
    """print() and a raw write to fd 1: the engine keeps both off the wire."""
    import os

    print("this stray print goes to stderr, not the MCP stream")
    os.write(1, b"a raw write to fd 1 goes to stderr too\n")
    return text


if __name__ == "__main__":
    sys.exit(server.run())
