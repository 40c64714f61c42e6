"""The asyncio event loop a Server owns for `async def` handlers, on a daemon thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from mcpcxx._core import RequestContext


class LoopThread:
    """Starts its loop on first use; run() blocks the calling thread (GIL released) until done."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                import asyncio

                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name=f"mcpcxx-asyncio-{self._name}", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, Any], ctx: RequestContext | None) -> Any:
        """Run `coro` on the loop and return its result; cancellation of `ctx` cancels it."""
        import asyncio

        loop = self._ensure()
        if threading.current_thread() is self._thread:
            # A handler called back into the server from the loop thread: the loop is busy
            # waiting for us, so this nested coroutine gets a private loop on a helper thread.
            return _run_on_private_loop(coro, ctx)
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        if ctx is not None:
            ctx.on_cancel(future.cancel)
        return future.result()

    def close(self) -> None:
        """Stop the loop and join its thread (idempotent)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join(timeout=5)
        if not thread.is_alive():
            loop.close()


def _run_on_private_loop(coro: Coroutine[Any, Any, Any], ctx: RequestContext | None) -> Any:
    import asyncio

    box: dict[str, Any] = {}
    ready = threading.Event()

    def main() -> None:
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(coro)
            box["loop"], box["task"] = loop, task
            ready.set()
            box["result"] = loop.run_until_complete(task)
        except BaseException as e:
            box["error"] = e
        finally:
            ready.set()
            loop.close()

    helper = threading.Thread(target=main, name="mcpcxx-asyncio-nested", daemon=True)
    helper.start()
    ready.wait()
    if ctx is not None and "task" in box:

        def cancel() -> None:
            with contextlib.suppress(RuntimeError):  # the loop may already have finished
                box["loop"].call_soon_threadsafe(box["task"].cancel)

        ctx.on_cancel(cancel)
    helper.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
