"""JWTVerifier: access tokens as signed JWTs (RFC 9068 style) checked against a JWKS URL.

Signature (PyJWT with `cryptography`: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA), issuer,
audience (this resource, RFC 8707), exp/nbf/iat with a small leeway. No hand-written crypto.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jwt

from mcpcxx.auth._errors import InvalidTokenError
from mcpcxx.auth._jwks import JWKSCache
from mcpcxx.auth._principal import Principal

_ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}
_ASYMMETRIC |= {"EdDSA"}

# PyJWT's exception -> the error_description the client sees (never the token).
_REASONS: list[tuple[type[Exception], str]] = [
    (jwt.ExpiredSignatureError, "The access token expired"),
    (jwt.ImmatureSignatureError, "The access token is not valid yet"),
    (jwt.InvalidAudienceError, "The access token was not issued for this resource"),
    (jwt.InvalidIssuerError, "The access token was issued by an untrusted issuer"),
    (jwt.InvalidSignatureError, "The access token's signature does not verify"),
    (jwt.MissingRequiredClaimError, "The access token lacks a required claim"),
    (jwt.InvalidAlgorithmError, "The access token's algorithm is not accepted"),
    (jwt.DecodeError, "The access token is not a well-formed JWT"),
]


class JWTVerifier:
    """A TokenVerifier for JWT access tokens signed by the keys at `jwks_url`.

    issuer: the exact `iss` expected (also listed as the authorization server).
    audience: this resource's canonical URI; the token's `aud` must contain it.
    algorithms: accepted `alg` values (asymmetric only; default RS256 and ES256).
    leeway: seconds of clock skew allowed on exp/nbf/iat (default 30).
    jwks_ttl: seconds a fetched key set is used before refetching (default 300).
    min_refetch_interval: at most one fetch per this many seconds, however many unknown key
    ids arrive (default 30): a flood of forged kids cannot hammer the key server.
    scope_claim: where scopes are read: a space-separated str (`scope`) or a list (`scp`).
    """

    def __init__(
        self,
        *,
        jwks_url: str,
        issuer: str,
        audience: str,
        algorithms: Iterable[str] = ("RS256", "ES256"),
        leeway: float = 30.0,
        jwks_ttl: float = 300.0,
        min_refetch_interval: float = 30.0,
        timeout: float = 5.0,
        scope_claim: str = "scope",
    ) -> None:
        if not issuer or not audience:
            raise ValueError("JWTVerifier needs issuer= and audience= (this resource's URI)")
        algs = list(algorithms)
        bad = [a for a in algs if a not in _ASYMMETRIC]
        if not algs or bad:
            raise ValueError(f"algorithms must be asymmetric JWS algorithms, got {bad or algs}")
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algs
        self.leeway = leeway
        self.scope_claim = scope_claim
        self.keys = JWKSCache(
            jwks_url, ttl=jwks_ttl, min_refetch_interval=min_refetch_interval, timeout=timeout
        )

    def __call__(self, token: str) -> Principal:
        """The Principal of a valid token; InvalidTokenError (or VerifierUnavailableError)."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError:
            raise InvalidTokenError("The access token is not a well-formed JWT") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise InvalidTokenError("The access token's algorithm is not accepted")
        kid = header.get("kid")
        key = self.keys.key(kid if isinstance(kid, str) else None)
        if key.alg is not None and key.alg != alg:
            raise InvalidTokenError("The access token's algorithm does not match its key")
        claims = self._decode(token, key.jwk, alg)
        return self._principal(claims)

    def _decode(self, token: str, key: jwt.PyJWK, alg: str) -> dict[str, Any]:
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.InvalidTokenError as e:
            for kind, reason in _REASONS:
                if isinstance(e, kind):
                    raise InvalidTokenError(reason) from None
            raise InvalidTokenError("The access token is invalid") from None
        return claims

    def _principal(self, claims: dict[str, Any]) -> Principal:
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise InvalidTokenError("The access token has no subject")
        client_id = claims.get("client_id", claims.get("azp"))
        exp = claims.get("exp")
        return Principal(
            sub,
            scopes_of(claims.get(self.scope_claim)),
            claims,
            client_id if isinstance(client_id, str) else None,
            float(exp) if isinstance(exp, (int, float)) else None,
        )


def scopes_of(value: Any) -> frozenset[str]:
    """Scopes from a claim: a space-separated str (RFC 8693 `scope`) or a list of str (`scp`)."""
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(s for s in value if isinstance(s, str) and s)
    return frozenset()
