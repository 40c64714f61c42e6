"""Runtime: what a Server's components, Context and adapters need of it, and nothing else.

A Server creates one Runtime and hands it to everything that runs on its behalf: the tool,
resource, prompt and completion wrappers, every request's Context, the ASGI app, the metrics and
tracing adapters and the testing client. They use the engine handle, the event loop, the tracing
switch and the lifespan through it, never through the Server's own attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpcxx._runtime.lifespan import Lifespan
from mcpcxx._runtime.loop import LoopThread

if TYPE_CHECKING:
    from mcpcxx._core import Server as CoreServer
    from mcpcxx._runtime.lifespan import LifespanFunction


class Runtime:
    """The engine (`core`), the asyncio `loop`, the `tracing` switch and the `lifespan` of a Server.

    `server` is the object handlers see as ctx.server and the lifespan function receives.
    """

    def __init__(
        self, core: CoreServer, server: Any, name: str, lifespan: LifespanFunction | None
    ) -> None:
        self.core = core
        """The C++ engine (mcpcxx._core.Server): registries, sessions, metrics."""
        self.server = server
        self.name = name
        self.loop = LoopThread(name, self.write_log)
        """The event loop `async def` handlers run on."""
        self.lifespan = Lifespan(lifespan, server, name, self.loop)
        self.tracing = False
        """True once enable_tracing() attached a tracer: handlers then run in their request span."""

    def write_log(self, event: str, fields: dict[str, Any]) -> None:
        """One server-log line (a warning for event_loop_blocked, info otherwise)."""
        level = "warning" if event == "event_loop_blocked" else "info"
        self.core.write_log(level, event, fields)

    def enable_tracing(self, tracer_provider: Any = None) -> None:
        """Attach an OpenTelemetry tracer to the engine; ImportError without opentelemetry-api."""
        from mcpcxx.observability import _otel

        if not _otel.available():
            raise ImportError("enable_tracing needs opentelemetry-api: pip install 'mcpcxx[otel]'")
        _otel.attach(self.core, tracer_provider)
        self.tracing = True

    def close(self) -> None:
        """Stop the event loop (the engine stops when its handle is freed)."""
        self.loop.close()
