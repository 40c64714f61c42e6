"""The asyncio event loop a Server owns for `async def` handlers, on a daemon thread.

A watchdog thread notices when a handler blocks the loop (a `time.sleep` or blocking I/O inside an
`async def`): after BLOCKED_AFTER seconds without the loop running it reports the handler whose
code is on the loop thread's stack, once per episode, and again when the loop runs again.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from types import CodeType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from mcpcxx._core import RequestContext


BLOCKED_AFTER = 0.3
"""Seconds the loop may go without running before the watchdog reports the blocking handler."""

EXIT_JOIN_SECONDS = 2.0
"""How long the interpreter's exit waits for the loop to finish the callback it is running."""

Report = Callable[[str, dict[str, Any]], None]
"""report(event, fields): writes one line to the server log (warning for a block, info after)."""


def _stop_before_finalizing(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Stop the loop and wait for its thread at interpreter exit, before it finalizes.

    A daemon thread that takes the GIL back during finalization is ended with pthread_exit, and
    ending it inside the C++ completion of an async tool (which gives the GIL up while it answers)
    aborts the process. atexit handlers run after every non-daemon thread has ended (a server
    serving on one is done) and before finalization, so the callback in progress returns first.
    """

    def stop() -> None:
        with contextlib.suppress(RuntimeError):  # already closed
            loop.call_soon_threadsafe(loop.stop)
        thread.join(EXIT_JOIN_SECONDS)

    atexit.register(stop)


class LoopThread:
    """The server's event loop, started on first use.

    run() blocks the calling thread (GIL released) until done; start() schedules and returns.
    """

    def __init__(self, name: str, report: Report | None = None) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._report = report
        self._handlers: dict[CodeType, str] = {}
        self._watchdog: _Watchdog | None = None
        self.blocked_count = 0
        """How many times a handler blocked the loop for longer than BLOCKED_AFTER."""

    def name_handler(self, code: CodeType, name: str) -> None:
        """Names the handler whose code object is `code` in the watchdog's reports."""
        self._handlers[code] = name

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
                self._watchdog = _Watchdog(self, loop, thread)
                _stop_before_finalizing(loop, thread)
            return self._loop

    def start(
        self,
        coro: Coroutine[Any, Any, Any],
        ctx: RequestContext,
        finished: Callable[[Any], None],
        name: str,
    ) -> None:
        """Run `coro` as a task named `name` on the loop without waiting.

        `finished(task)` runs on the loop when it ends. Cancelling `ctx` cancels the task (or
        keeps it from starting).
        """
        loop = self._ensure()
        if threading.current_thread() is self._thread:
            # A handler called back into the server from the loop thread and waits for the
            # answer there: this coroutine gets a private loop on a helper thread.
            _start_on_private_loop(coro, ctx, finished, name)
            return
        box: dict[str, Any] = {}

        def cancel_on_loop() -> None:
            box["cancelled"] = True
            task = box.get("task")
            if task is not None:
                task.cancel()

        def cancel() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nothing runs on it
                loop.call_soon_threadsafe(cancel_on_loop)

        def begin() -> None:
            task = loop.create_task(coro, name=name)
            box["task"] = task
            if box.get("cancelled"):
                task.cancel()  # answered before it started: it ends at its first step
            task.add_done_callback(finished)

        ctx.on_cancel(cancel)
        try:
            loop.call_soon_threadsafe(begin)
        except RuntimeError:  # closed between _ensure and now: answer as failed, never hang
            coro.close()
            finished(_Failed(RuntimeError("the server's event loop is closed")))

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

    def blocked(self, seconds: float, handler: str, ended: bool) -> None:
        """The watchdog's report: the loop did not run for `seconds` while `handler` held it."""
        if not ended:
            self.blocked_count += 1
        if self._report is None:
            return
        fields: dict[str, Any] = {"handler": handler, "blocked_ms": round(seconds * 1000)}
        if ended:
            self._report("event_loop_unblocked", fields)
            return
        fields["note"] = (
            "an async def handler blocks the event loop (time.sleep or blocking I/O in a "
            "coroutine): every other async handler waits; use await asyncio.sleep, an async "
            "client, or a plain def tool, which runs on a worker thread"
        )
        self._report("event_loop_blocked", fields)

    def handler_on_stack(self, thread: threading.Thread) -> str:
        """The registered handler whose code is on `thread`'s stack, innermost first."""
        frame = sys._current_frames().get(thread.ident or -1)
        while frame is not None:
            name = self._handlers.get(frame.f_code)
            if name is not None:
                return name
            frame = frame.f_back
        return "(not an mcpcxx handler)"

    def close(self) -> None:
        """Stop the loop and join its thread (idempotent)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
            watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.stop()
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


def _start_on_private_loop(
    coro: Coroutine[Any, Any, Any],
    ctx: RequestContext,
    finished: Callable[[Any], None],
    name: str,
) -> None:
    import asyncio

    loop = asyncio.new_event_loop()
    task = loop.create_task(coro, name=name)

    def cancel() -> None:
        with contextlib.suppress(RuntimeError):  # the loop may already have finished
            loop.call_soon_threadsafe(task.cancel)

    def main() -> None:
        try:
            with contextlib.suppress(BaseException):  # the task holds the outcome
                loop.run_until_complete(task)
        finally:
            loop.close()
        finished(task)

    ctx.on_cancel(cancel)
    threading.Thread(target=main, name="mcpcxx-asyncio-nested", daemon=True).start()


class _Failed:
    """Stands in for a task that never ran: result() raises `error`."""

    def __init__(self, error: BaseException) -> None:
        self._error = error

    def result(self) -> Any:
        raise self._error


class _Watchdog:
    """Posts a heartbeat to the loop every INTERVAL s and reports when it stops arriving."""

    INTERVAL = 0.1

    def __init__(
        self, owner: LoopThread, loop: asyncio.AbstractEventLoop, thread: threading.Thread
    ) -> None:
        self._owner, self._loop, self._loop_thread = owner, loop, thread
        self._last_beat = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name=f"{thread.name}-watchdog", daemon=True
        )
        self._thread.start()

    def _beat(self) -> None:
        self._last_beat = time.monotonic()

    def _watch(self) -> None:
        blocked: str | None = None
        since = 0.0
        while not self._stop.wait(self.INTERVAL):
            try:
                self._loop.call_soon_threadsafe(self._beat)
            except RuntimeError:  # the loop closed
                return
            quiet = time.monotonic() - self._last_beat
            if blocked is None and quiet > BLOCKED_AFTER:
                blocked, since = self._owner.handler_on_stack(self._loop_thread), self._last_beat
                self._owner.blocked(quiet, blocked, ended=False)
            elif blocked is not None and quiet <= BLOCKED_AFTER:
                self._owner.blocked(self._last_beat - since, blocked, ended=True)
                blocked = None

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=1)
