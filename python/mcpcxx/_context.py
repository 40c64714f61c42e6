"""Context: what a handler may know about and do for its request.

`Context` is the typed interface handlers annotate (a Protocol); `EngineContext` implements it
over the engine's per-request handle, so tests and other runtimes can pass their own.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from mcpcxx._errors import MissingClientCapabilityError, RequestCancelledError

if TYPE_CHECKING:
    import logging

    from mcpcxx._core import RequestContext
    from mcpcxx._server import Server

_LEVELS = {10: "debug", 20: "info", 30: "warning", 40: "error", 50: "critical"}


class Done:
    """A finished awaitable: `await ctx.report_progress(...)` and a plain call both work."""

    __slots__ = ("value",)

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        yield from ()  # a generator that finishes at once, with `value` as the result
        return self.value


def _client_logger(ctx: EngineContext, name: str) -> logging.Logger:
    import logging

    class ClientHandler(logging.Handler):
        """Forwards records to the engine (stderr always; the client when it asked)."""

        def emit(self, record: logging.LogRecord) -> None:
            level = _LEVELS.get(record.levelno) or ("debug" if record.levelno < 20 else "error")
            try:
                ctx.log(level, self.format(record), logger=record.name)
            except Exception:
                self.handleError(record)

    log = logging.Logger(name)
    log.addHandler(ClientHandler())
    log.propagate = False
    return log


@runtime_checkable
class Context(Protocol):
    """The request a handler serves: ids, client, progress, logging and cancellation.

    Declare a parameter annotated `Context` to receive it; it never appears in the schema. It is
    valid while the handler runs (and may be used from threads the handler starts meanwhile).
    Progress and logging calls work with and without `await`.
    """

    @property
    def request_id(self) -> int | str:
        """The JSON-RPC id of the request."""
        ...

    @property
    def protocol_version(self) -> str:
        """The protocol revision the request is served under, e.g. "2026-07-28"."""
        ...

    @property
    def modern(self) -> bool:
        """True under the stateless 2026-07-28 revision."""
        ...

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's self-reported Implementation object (never use it for security)."""
        ...

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """The capabilities the client declared for this request."""
        ...

    @property
    def server(self) -> Server | None:
        """The Server serving this request."""
        ...

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled, the deadline passed, or the server is stopping."""
        ...

    def raise_if_cancelled(self) -> None:
        """Raise RequestCancelledError when the request was cancelled (for sync loops)."""
        ...

    def require_client_capability(self, name: str) -> None:
        """Raise MissingClientCapabilityError unless the client declared capability `name`."""
        ...

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> Done:
        """Send notifications/progress (when the client sent a progressToken)."""
        ...

    def log(self, level: str, message: Any, *, logger: str | None = None) -> Done:
        """Log to stderr, and to the client when it asked for `level`."""
        ...

    def debug(self, message: Any) -> Done:
        """log("debug", message)."""
        ...

    def info(self, message: Any) -> Done:
        """log("info", message)."""
        ...

    def warning(self, message: Any) -> Done:
        """log("warning", message)."""
        ...

    def error(self, message: Any) -> Done:
        """log("error", message)."""
        ...

    @property
    def logger(self) -> logging.Logger:
        """A stdlib Logger whose records reach stderr and, when asked for, the client."""
        ...


class EngineContext:
    """Context over the engine's per-request handle (mcpcxx._core.RequestContext)."""

    __slots__ = ("_core", "_logger", "_server")

    def __init__(self, core: RequestContext, server: Server | None = None) -> None:
        self._core = core
        self._server = server
        self._logger: logging.Logger | None = None

    @property
    def request_id(self) -> int | str:
        """The JSON-RPC id of the request."""
        return self._core.request_id

    @property
    def protocol_version(self) -> str:
        """The protocol revision the request is served under, e.g. "2026-07-28"."""
        return self._core.protocol_version

    @property
    def modern(self) -> bool:
        """True under the stateless 2026-07-28 revision."""
        return self._core.modern

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's self-reported Implementation object (never use it for security)."""
        return cast("dict[str, Any] | None", self._core.client_info)

    @property
    def client_capabilities(self) -> dict[str, Any] | None:
        """The capabilities the client declared for this request."""
        return cast("dict[str, Any] | None", self._core.client_capabilities)

    @property
    def server(self) -> Server | None:
        """The Server serving this request."""
        return self._server

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled, the deadline passed, or the server is stopping."""
        return self._core.cancelled

    def raise_if_cancelled(self) -> None:
        """Raise RequestCancelledError when the request was cancelled (for sync tools' loops)."""
        if self._core.cancelled:
            raise RequestCancelledError(f"request {self._core.request_id!r} was cancelled")

    def require_client_capability(self, name: str) -> None:
        """Raise MissingClientCapability (-32021) unless the client declared capability `name`."""
        declared = self._core.client_capabilities
        if not isinstance(declared, dict) or name not in declared:
            raise MissingClientCapabilityError({name: {}})

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> Done:
        """Send notifications/progress (when the client sent a progressToken).

        Works with and without `await`. Raises ValueError when progress does not increase.
        """
        self._core.report_progress(float(progress), total, message)
        return Done()

    def log(self, level: str, message: Any, *, logger: str | None = None) -> Done:
        """Log to stderr, and to the client when it asked for `level`; await gives True if sent."""
        return Done(self._core.log(level, message, logger))

    def debug(self, message: Any) -> Done:
        """log("debug", message)."""
        return self.log("debug", message)

    def info(self, message: Any) -> Done:
        """log("info", message)."""
        return self.log("info", message)

    def warning(self, message: Any) -> Done:
        """log("warning", message)."""
        return self.log("warning", message)

    def error(self, message: Any) -> Done:
        """log("error", message)."""
        return self.log("error", message)

    @property
    def logger(self) -> logging.Logger:
        """A stdlib Logger whose records reach stderr and, when asked for, the client."""
        if self._logger is None:
            name = self._server.name if self._server is not None else "mcpcxx"
            self._logger = _client_logger(self, f"{name}.request")
        return self._logger
