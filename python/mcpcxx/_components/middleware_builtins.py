"""The built-in middleware (docs/middleware.md): the engine's own, configured from Python.

`RateLimit` keeps token buckets where the server keeps shared state (memory, or Redis across
replicas); `SizeLimit` withholds results over a size; `Audit` writes one line per call of a tool
that may write; `Authorize` refuses what its predicate denies. Pass one to
`Server.add_middleware` like any `Middleware`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpcxx._components.middleware import Middleware, Request

RateKey = Literal["principal", "tool", "principal_and_tool"]


class BuiltinMiddleware(Middleware):
    """A middleware the engine runs itself (its hooks are C++)."""

    _kind = ""

    def _options(self) -> dict[str, Any]:
        raise NotImplementedError

    def _callable(self) -> Callable[..., Any] | None:
        return None

    def register_with(self, core: Any, methods: list[str], tools: list[str]) -> None:
        """Adds the engine's built-in to `core` (Server.add_middleware calls it)."""
        options = {**self._options(), "methods": methods, "tools": tools}
        core.add_builtin_middleware(self._kind, options, self._callable())


def _request_fn(fn: Callable[[Request], Any]) -> Callable[[dict[str, Any]], Any]:
    return lambda d: fn(Request.from_engine(d))


@dataclass
class RateLimit(BuiltinMiddleware):
    """A token bucket per caller, tool, both, or a key `key(request)` computes ("" exempts).

    A refused tools/call is a tool error (category rate_limited, retryAfterSeconds, row T14);
    other methods get row P59.
    """

    burst: float = 10
    per_second: float = 1
    per: RateKey = "principal_and_tool"
    key: Callable[[Request], str] | None = None
    description: str = ""
    name: str = "rate_limit"
    methods: Sequence[str] = ("tools/call",)
    tools: Sequence[str] = ()
    _kind = "rate_limit"

    def _options(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "burst": float(self.burst),
            "per_second": float(self.per_second),
            "per": self.per,
            "description": self.description,
        }

    def _callable(self) -> Callable[..., Any] | None:
        return None if self.key is None else _request_fn(self.key)


@dataclass
class SizeLimit(BuiltinMiddleware):
    """Withholds a result over `max_bytes` (rows T15/T15w on tools/call, P60 otherwise)."""

    max_bytes: int = 1 << 20
    ask_less: str = ""
    methods: Sequence[str] = ("tools/call", "resources/read", "prompts/get")
    tools: Sequence[str] = ()
    _kind = "size_limit"

    def _options(self) -> dict[str, Any]:
        if self.max_bytes <= 0:
            raise ValueError("SizeLimit max_bytes must be above 0")
        return {"max_bytes": self.max_bytes, "ask_less": self.ask_less}


@dataclass
class Audit(BuiltinMiddleware):
    """Calls `sink(line)` once per answered call of a tool that may write (see docs)."""

    sink: Callable[[dict[str, Any]], None]
    read_only_too: bool = False
    tools: Sequence[str] = ()
    methods: Sequence[str] = field(default=("tools/call",), init=False)
    _kind = "audit"

    def _options(self) -> dict[str, Any]:
        return {"read_only_too": self.read_only_too}

    def _callable(self) -> Callable[..., Any] | None:
        return self.sink


@dataclass
class Authorize(BuiltinMiddleware):
    """Refuses a request when `deny(request)` returns a reason (row P58); None lets it run."""

    deny: Callable[[Request], str | None]
    name: str = "authorize"
    methods: Sequence[str] = ()
    tools: Sequence[str] = ()
    _kind = "authorize"

    def _options(self) -> dict[str, Any]:
        return {"name": self.name}

    def _callable(self) -> Callable[..., Any] | None:
        return _request_fn(self.deny)
