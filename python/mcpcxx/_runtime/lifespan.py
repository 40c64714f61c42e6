"""A Server's lifespan: an async context manager entered when serving starts, exited at the end.

Server(lifespan=fn): fn(server) returns an async context manager (typically an
@contextlib.asynccontextmanager function); what it yields is ctx.lifespan_context in every
handler. run("stdio"), run("http"), the ASGI app's lifespan events and mcpcxx.testing.Client each
hold the lifespan while they serve; it starts with the first holder and stops with the last.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpcxx._protocol.errors import LifespanError

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from mcpcxx._runtime.loop import LoopThread

LifespanFunction = Callable[[Any], "AbstractAsyncContextManager[Any]"]
"""fn(server) -> an async context manager; what it yields is ctx.lifespan_context."""


class Lifespan:
    """A Server's lifespan, reference-counted by the serving paths holding it.

    `fn` was checked by ServerOptions (a callable or None); `server` is what it is called with.

    The first acquire() enters the context manager, the last release() exits it; both run it on
    the server's event loop, blocking the caller.
    """

    def __init__(
        self, fn: LifespanFunction | None, server: Any, name: str, loop: LoopThread
    ) -> None:
        self._fn, self._server, self._name, self._loop = fn, server, name, loop
        self._lock = threading.Lock()
        self._holders = 0
        self._manager: AbstractAsyncContextManager[Any] | None = None
        self._value: Any = None

    @property
    def configured(self) -> bool:
        """True when the Server was given a lifespan."""
        return self._fn is not None

    @property
    def running(self) -> bool:
        """True between the first acquire() and the last release()."""
        return self._holders > 0

    @property
    def value(self) -> Any:
        """What the lifespan yielded; None without a lifespan. RuntimeError when not running."""
        if self._fn is None:
            return None
        if self._holders == 0:
            raise RuntimeError(
                f"server {self._name!r}: its lifespan is not running; serve through "
                "run(), the ASGI app (with lifespan events) or mcpcxx.testing.Client"
            )
        return self._value

    def acquire(self) -> None:
        """Start the lifespan unless it runs already; LifespanError when its startup fails."""
        if self._fn is None:
            return
        with self._lock:
            if self._holders == 0:
                self._value = self._enter(self._fn)
            self._holders += 1

    def release(self, error: BaseException | None = None) -> None:
        """Stop the lifespan when this was its last holder; `error` is what ended serving."""
        if self._fn is None:
            return
        with self._lock:
            if self._holders == 0:
                return
            self._holders -= 1
            if self._holders > 0:
                return
            manager, self._manager, self._value = self._manager, None, None
        if manager is not None:
            exc_info = (type(error), error, error.__traceback__) if error else (None, None, None)
            self._loop.run(manager.__aexit__(*exc_info), None)

    def _enter(self, fn: LifespanFunction) -> Any:
        name = self._name
        try:
            manager = fn(self._server)
        except Exception as e:
            raise LifespanError(
                f"server {name!r} cannot start: its lifespan function raised "
                f"{type(e).__name__}: {e}"
            ) from e
        if not (hasattr(manager, "__aenter__") and hasattr(manager, "__aexit__")):
            raise LifespanError(
                f"server {name!r} cannot start: lifespan returned a {type(manager).__name__}, "
                "not an async context manager (decorate it with @contextlib.asynccontextmanager)"
            )
        try:
            value = self._loop.run(manager.__aenter__(), None)
        except Exception as e:
            raise LifespanError(
                f"server {name!r} cannot start: its lifespan raised {type(e).__name__}: {e}"
            ) from e
        self._manager = manager
        return value
