"""Principal: who a verified access token speaks for, as handlers see it (ctx.principal)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class Principal:
    """The identity a verifier accepted: never the token itself.

    `scopes` are what per-tool `scopes=[...]` are checked against; `claims` are the token's
    claims (or the introspection response) for the handler's own decisions.
    """

    subject: str
    scopes: frozenset[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    client_id: str | None = None
    expires_at: float | None = None
    """Expiry as a Unix time (the token's exp), when known."""

    def __post_init__(self) -> None:
        if not isinstance(self.subject, str) or not self.subject:
            raise ValueError("Principal needs a non-empty str subject")
        scopes: Any = self.scopes
        if isinstance(scopes, str):
            raise TypeError("Principal scopes must be a collection of str, not one str")
        object.__setattr__(self, "scopes", frozenset(scopes))
        object.__setattr__(self, "claims", MappingProxyType(dict(self.claims)))

    def has_scopes(self, *scopes: str) -> bool:
        """True when every one of `scopes` is granted."""
        return all(s in self.scopes for s in scopes)

    def to_json(self) -> dict[str, Any]:
        """The engine's principal object (request_context::principal() in C++)."""
        out: dict[str, Any] = {
            "sub": self.subject,
            "scopes": sorted(self.scopes),
            "claims": dict(self.claims),
        }
        if self.client_id is not None:
            out["client_id"] = self.client_id
        if self.expires_at is not None:
            out["exp"] = self.expires_at
        return out

    @classmethod
    def from_json(cls, data: Any) -> Principal | None:
        """The Principal of an engine principal object; None for null or a foreign shape."""
        if not isinstance(data, dict) or not isinstance(data.get("sub"), str) or not data["sub"]:
            return None
        scopes = data.get("scopes")
        claims = data.get("claims")
        exp = data.get("exp")
        client_id = data.get("client_id")
        return cls(
            data["sub"],
            frozenset(s for s in scopes if isinstance(s, str))
            if isinstance(scopes, list)
            else frozenset(),
            claims if isinstance(claims, dict) else {},
            client_id if isinstance(client_id, str) else None,
            float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None,
        )
