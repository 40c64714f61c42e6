"""The built-in middleware (docs/middleware.md): the engine's own, configured from Python.

`RateLimit` keeps token buckets where the server keeps shared state (memory, or Redis across
replicas); `SizeLimit` withholds results over a size; `Audit` writes one line per call of a tool
that may write; `Authorize` refuses what its predicate denies; `ResponseCache` answers repeated
reads from a cache in the same store. Pass one to `Server.add_middleware` like any `Middleware`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
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


CacheScope = Literal["private", "public"]


@dataclass
class ResponseCache(BuiltinMiddleware):
    """Answers repeated reads from a cache for `ttl` seconds (or a timedelta).

    It caches calls of read-only tools, resources/read, and prompts/get when named (see
    docs/middleware.md "Response cache"). `scope="private"` keeps an entry per caller,
    `"public"` one for every caller. `vary(request)` adds to the key (e.g. a tenant claim).
    Tools that may write and error replies are never cached; entries go on
    `notify_resource_updated(uri)` and on list changes. `clock` (for tests) returns monotonic
    seconds the memory store expires entries by.
    """

    ttl: float | timedelta
    scope: CacheScope = "private"
    vary: Callable[[Request], str] | None = None
    max_entries: int = 10000
    max_bytes: int = 64 << 20
    clock: Callable[[], float] | None = None
    name: str = "response_cache"
    methods: Sequence[str] = ("tools/call", "resources/read")
    tools: Sequence[str] = ()
    _kind = "response_cache"

    def _options(self) -> dict[str, Any]:
        seconds = self.ttl.total_seconds() if isinstance(self.ttl, timedelta) else self.ttl
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
            raise ValueError(
                f"ResponseCache ttl must be a number of seconds above 0 or a timedelta, "
                f"got {self.ttl!r}"
            )
        if self.scope not in ("private", "public"):
            raise ValueError(
                f"ResponseCache scope must be 'private' (an entry per caller) or 'public' "
                f"(one for every caller), got {self.scope!r}"
            )
        if self.max_entries < 1 or self.max_bytes < 1:
            raise ValueError("ResponseCache max_entries and max_bytes must be above 0")
        ttl_ms = max(1, math.ceil(seconds * 1000))
        return {
            "name": self.name,
            "ttl_ms": ttl_ms,
            "scope": self.scope,
            "max_entries": self.max_entries,
            "max_bytes": self.max_bytes,
            "clock": self.clock,
        }

    def _callable(self) -> Callable[..., Any] | None:
        return None if self.vary is None else _request_fn(self.vary)
