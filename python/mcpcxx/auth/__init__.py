"""OAuth 2.1 resource-server auth for mcpcxx servers over HTTP.

    from mcpcxx.auth import BearerAuth, JWTVerifier
    verifier = JWTVerifier(jwks_url="https://auth.example.com/.well-known/jwks.json",
                           issuer="https://auth.example.com", audience="https://mcp.example.com/mcp")
    server.run("http", auth=BearerAuth(verifier, scopes_supported=["issues:read"]))

JWTVerifier and IntrospectionVerifier need the `mcpcxx[auth]` extra (PyJWT with cryptography);
BearerAuth, Principal and the errors do not. See docs/auth.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpcxx.auth._errors import (
    AuthError,
    InsufficientScopeError,
    InvalidTokenError,
    VerifierUnavailableError,
)
from mcpcxx.auth._hook import BearerAuth, TokenVerifier
from mcpcxx.auth._principal import Principal
from mcpcxx.auth._rules import PrincipalRule, require_claims, require_roles

if TYPE_CHECKING:
    from mcpcxx.auth._introspection import IntrospectionVerifier
    from mcpcxx.auth._jwt import JWTVerifier

__all__ = [
    "AuthError",
    "BearerAuth",
    "InsufficientScopeError",
    "IntrospectionVerifier",
    "InvalidTokenError",
    "JWTVerifier",
    "Principal",
    "PrincipalRule",
    "TokenVerifier",
    "VerifierUnavailableError",
    "require_claims",
    "require_roles",
]


def __getattr__(name: str) -> Any:
    # The ready-made verifiers import PyJWT: only when used, with a hint when it is missing.
    if name in ("JWTVerifier", "IntrospectionVerifier"):
        try:
            import importlib

            module = "_jwt" if name == "JWTVerifier" else "_introspection"
            found = getattr(importlib.import_module(f"mcpcxx.auth.{module}"), name)
        except ImportError as e:
            raise ImportError(
                f"mcpcxx.auth.{name} needs PyJWT with cryptography: pip install 'mcpcxx[auth]'"
            ) from e
        return found
    raise AttributeError(f"module 'mcpcxx.auth' has no attribute {name!r}")
