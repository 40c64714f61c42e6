"""The tool every bench/waiting server serves: wait(ms), as a `def` or as an `async def`.

One definition for mcpcxx, the official Python SDK and FastMCP, whose `tool(name=...)` decorators
take the same functions, so that the servers differ only in the framework.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

KINDS = ("def", "async")


def wait_def(ms: int) -> str:
    """Sleep ms milliseconds on the calling thread."""
    time.sleep(ms / 1000)
    return "waited"


async def wait_async(ms: int) -> str:
    """Sleep ms milliseconds without holding a thread."""
    await asyncio.sleep(ms / 1000)
    return "waited"


def register(tool: Callable[..., Any], kind: str) -> None:
    """Registers wait(ms) of `kind` ("def" or "async") through a framework's tool decorator."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    tool(name="wait")(wait_def if kind == "def" else wait_async)
