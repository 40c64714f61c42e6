"""The refusals a token verifier raises (each maps to one HTTP answer)."""

from __future__ import annotations

from collections.abc import Iterable


class AuthError(Exception):
    """Base of the verifier refusals.

    The message becomes the challenge's error_description: keep it short, never the token.
    """


class InvalidTokenError(AuthError):
    """The token is malformed, expired, revoked, or not issued for this resource.

    Answered 401 with `WWW-Authenticate: Bearer error="invalid_token"` (row H19).
    """

    def __init__(self, description: str = "The access token is invalid") -> None:
        super().__init__(description)
        self.description = description


class InsufficientScopeError(AuthError):
    """The token is valid but lacks `required` scopes.

    Answered 403 with `error="insufficient_scope", scope="..."` (row H20).
    """

    def __init__(self, required: Iterable[str], description: str = "Insufficient scope") -> None:
        super().__init__(description)
        self.required = list(required)
        self.description = description


class VerifierUnavailableError(AuthError):
    """The token cannot be checked now (key set or introspection endpoint unreachable).

    Answered 503 with Retry-After (row H43); the message goes to the server log only.
    """
