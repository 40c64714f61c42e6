"""Caching hints of one tool, resource or prompt (2026-07-28 `ttlMs`, `cacheScope`).

A primitive has no wire field for them: a list result carries the smallest `ttl_ms` and the most
private scope of everything it lists, `resources/read` those of the resource read. Unset hints
take the server's defaults (60000 ms, "public").
"""

from __future__ import annotations

from typing import Literal

CacheScope = Literal["public", "private"]


def cache_args(
    ttl_ms: int | None, cache_scope: str | None, what: str, ttl_name: str = "ttl_ms"
) -> tuple[int | None, str | None]:
    """The hints checked for the engine; TypeError/ValueError naming `what` when malformed."""
    if ttl_ms is not None:
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int):
            raise TypeError(f"{what}: {ttl_name} must be an int of milliseconds, not {ttl_ms!r}")
        if ttl_ms < 0:
            raise ValueError(
                f"{what}: {ttl_name} must be >= 0 (milliseconds a client may reuse the result), "
                f"got {ttl_ms}"
            )
    if cache_scope is not None and cache_scope not in ("public", "private"):
        raise ValueError(
            f'{what}: cache_scope must be "public" (no user data) or "private" (per user), '
            f"got {cache_scope!r}"
        )
    return ttl_ms, cache_scope
