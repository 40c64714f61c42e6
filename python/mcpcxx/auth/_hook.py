"""BearerAuth: the resource-server settings, and the hook the engine's HTTP transport calls.

The engine (C++) calls the hook on its I/O threads for every request to the MCP endpoint; the
hook runs the author's verifier (sync, or async on the server's asyncio loop) and turns its
answer or typed refusal into a verdict the engine maps to 200/401/403/503. The token is passed
to the verifier and nowhere else: never logged, never put in an error text.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Union

from mcpcxx.auth._errors import InsufficientScopeError, InvalidTokenError, VerifierUnavailableError
from mcpcxx.auth._principal import Principal

if TYPE_CHECKING:
    from mcpcxx._runtime.loop import LoopThread

TokenVerifier = Callable[[str], Union["Principal | None", Awaitable["Principal | None"]]]
"""A callable taking the bearer token and returning a Principal, or None / raising
InvalidTokenError to refuse it (sync or async)."""

Verdict = tuple[Any, ...]


class BearerAuth:
    """OAuth 2.1 resource-server settings for run("http", auth=...) and mcpcxx.asgi.MCPApp.

    verifier: TokenVerifier (e.g. JWTVerifier, IntrospectionVerifier, or your own function).
    authorization_servers: issuer URLs listed in the RFC 9728 metadata (at least one).
    resource: this server's canonical URI (tokens' audience); default: the verifier's audience
    when it has one, else http://HOST:PORT/PATH as bound (run("http") only).
    scopes_supported: advertised in the metadata and on 401 challenges.
    required_scopes: every request needs these (403 insufficient_scope otherwise).
    resource_metadata_url: where the metadata is served; default
    http://HOST:PORT/.well-known/oauth-protected-resource/PATH (run("http") only).
    identity_claims: claims that are part of a principal's identity besides its issuer, subject
    and client id (e.g. a tenant claim "tid"); tasks, requestStates and legacy sessions belong to
    that identity, so a refreshed token keeps them. Claims a refresh changes are refused.
    """

    def __init__(
        self,
        verifier: TokenVerifier,
        *,
        authorization_servers: Iterable[str] | None = None,
        resource: str | None = None,
        scopes_supported: Iterable[str] = (),
        required_scopes: Iterable[str] = (),
        resource_metadata_url: str | None = None,
        identity_claims: Iterable[str] = (),
    ) -> None:
        if not callable(verifier):
            raise TypeError("BearerAuth needs a callable verifier: verifier(token) -> Principal")
        servers = list(authorization_servers or ())
        issuer = getattr(verifier, "issuer", None)
        if not servers and isinstance(issuer, str):
            servers = [issuer]
        if not servers or not all(isinstance(s, str) and s for s in servers):
            raise ValueError(
                "BearerAuth needs authorization_servers=[issuer URL, ...] (the RFC 9728 metadata "
                "must name at least one)"
            )
        audience = getattr(verifier, "audience", None)
        self.verifier = verifier
        self.authorization_servers = servers
        self.resource = resource or (audience if isinstance(audience, str) else "")
        self.scopes_supported = _scope_list(scopes_supported, "scopes_supported")
        self.required_scopes = _scope_list(required_scopes, "required_scopes")
        self.resource_metadata_url = resource_metadata_url or ""
        self.identity_claims = _identity_claims(identity_claims)

    @classmethod
    def of(cls, auth: Any) -> BearerAuth:
        """`auth` as BearerAuth: itself, or a verifier that knows its issuer (JWTVerifier)."""
        if isinstance(auth, BearerAuth):
            return auth
        if callable(auth):
            return cls(auth)
        raise TypeError(f"auth must be a BearerAuth or a token verifier, not {type(auth).__name__}")

    def hook(self, loop: LoopThread) -> AuthHook:
        """The engine-facing hook; async verifiers run on `loop`."""
        return AuthHook(self, loop)


class AuthHook:
    """What the engine calls: verify(token, http_method, mcp_method, mcp_name) -> verdict."""

    def __init__(self, settings: BearerAuth, loop: LoopThread) -> None:
        self._verifier = settings.verifier
        self._required = settings.required_scopes
        self._loop = loop
        self.resource = settings.resource
        self.resource_metadata_url = settings.resource_metadata_url
        self.authorization_servers = settings.authorization_servers
        self.scopes_supported = settings.scopes_supported
        self.identity_claims = settings.identity_claims

    def verify(self, token: str, http_method: str, mcp_method: str, mcp_name: str) -> Verdict:
        """The verdict tuple for `token` (see python/bindings/bind_auth.cpp)."""
        try:
            principal = self._run(token)
        except InvalidTokenError as e:
            return ("invalid", e.description, [])
        except InsufficientScopeError as e:
            return ("insufficient", e.description, e.required)
        except VerifierUnavailableError as e:
            return ("unavailable", _redact(str(e) or type(e).__name__, token))
        except Exception as e:
            # A verifier bug: the engine answers 500 (row H26) and logs this under a reference.
            return ("error", _redact(f"token verifier raised {type(e).__name__}: {e}", token))
        if principal is None:
            return ("invalid", "The access token is invalid", [])
        if not isinstance(principal, Principal):
            return ("error", f"token verifier returned {type(principal).__name__}, not Principal")
        if principal.expires_at is not None and principal.expires_at <= time.time():
            return ("invalid", "The access token expired", [])
        missing = [s for s in self._required if s not in principal.scopes]
        if missing:
            return ("insufficient", "Insufficient scope", self._required)
        return ("allow", principal.to_json())

    def _run(self, token: str) -> Any:
        result = self._verifier(token)
        if inspect.isawaitable(result):
            return self._loop.run(_awaited(result), None)
        return result


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _redact(text: str, token: str) -> str:
    return text.replace(token, "[token]") if token else text


# The claims a token refresh or step-up changes; identity_claim_problem() in
# cpp/src/engine/principal.cpp refuses the same names.
_VOLATILE_CLAIMS = frozenset(
    {"iat", "exp", "nbf", "jti", "auth_time", "scope", "scp", "scopes", "claims"}
)


def _identity_claims(claims: Iterable[str]) -> list[str]:
    if isinstance(claims, str):
        raise TypeError("identity_claims must be a list of str, not one str")
    out = list(claims)
    for c in out:
        if not isinstance(c, str) or not c:
            raise ValueError(f"identity_claims: {c!r} is not a claim name (a non-empty str)")
        if c in _VOLATILE_CLAIMS:
            raise ValueError(
                f"identity_claims: {c!r} cannot be an identity claim: it changes when a token is "
                "refreshed or gains scopes, so the user would lose their tasks and requestStates; "
                "name a claim that stays the same for one user (a tenant id, for example)"
            )
    return out


def _scope_list(scopes: Iterable[str], what: str) -> list[str]:
    if isinstance(scopes, str):
        raise TypeError(f"{what} must be a list of str, not one str")
    out = list(scopes)
    for s in out:
        if not isinstance(s, str) or not s or any(c in s for c in ' "\\') or not s.isprintable():
            raise ValueError(f"{what}: {s!r} is not a scope token (visible ASCII, no spaces)")
    return out
