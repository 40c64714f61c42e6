"""IntrospectionVerifier: opaque access tokens checked by RFC 7662 token introspection.

Client authentication, `active`, exp/aud/iss and scopes, with a short cache so a burst of
requests with one token costs one round trip.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from typing import Any

from mcpcxx.auth._errors import InvalidTokenError, VerifierUnavailableError
from mcpcxx.auth._jwt import scopes_of
from mcpcxx.auth._principal import Principal


class IntrospectionVerifier:
    """A TokenVerifier asking `endpoint` (RFC 7662) about each token.

    client_id / client_secret: this resource server's credentials at the authorization server
    (HTTP Basic, RFC 7662 section 2.1). audience: this resource's URI; when set, the response's
    `aud` must contain it. issuer: when set, the response's `iss` must equal it (and it is the
    authorization server BearerAuth lists). cache_ttl: seconds an answer is reused (never past
    the token's exp; default 30). Token cache keys are SHA-256 digests, never the token.
    """

    def __init__(
        self,
        *,
        endpoint: str,
        client_id: str,
        client_secret: str,
        audience: str | None = None,
        issuer: str | None = None,
        cache_ttl: float = 30.0,
        max_cache_entries: int = 10000,
        timeout: float = 5.0,
        leeway: float = 30.0,
    ) -> None:
        if not endpoint.startswith(("https://", "http://")):
            raise ValueError(f"endpoint must be an http(s) URL, got {endpoint!r}")
        self.endpoint = endpoint
        self.audience = audience
        self.issuer = issuer
        self._auth = "Basic " + base64.b64encode(
            f"{urllib.parse.quote(client_id)}:{urllib.parse.quote(client_secret)}".encode()
        ).decode("ascii")
        self._ttl = cache_ttl
        self._max = max_cache_entries
        self._timeout = timeout
        self._leeway = leeway
        self._lock = threading.Lock()
        self._cache: OrderedDict[bytes, tuple[float, Principal | str]] = OrderedDict()
        self.requests = 0
        """Introspection requests sent (tests check the cache)."""

    def __call__(self, token: str) -> Principal:
        """The Principal of an active token; InvalidTokenError or VerifierUnavailableError."""
        digest = hashlib.sha256(token.encode()).digest()
        now = time.time()
        cached = self._cached(digest, now)
        if cached is None:
            cached = self._judge(self._introspect(token), now)
            self._remember(digest, cached, now)
        if isinstance(cached, str):
            raise InvalidTokenError(cached)
        return cached

    def _cached(self, digest: bytes, now: float) -> Principal | str | None:
        with self._lock:
            entry = self._cache.get(digest)
            if entry is None or entry[0] <= now:
                return None
            return entry[1]

    def _remember(self, digest: bytes, answer: Principal | str, now: float) -> None:
        until = now + self._ttl
        if isinstance(answer, Principal) and answer.expires_at is not None:
            until = min(until, answer.expires_at)
        with self._lock:
            self._cache[digest] = (until, answer)
            self._cache.move_to_end(digest)
            while len(self._cache) > self._max:
                self._cache.popitem(last=False)

    def _introspect(self, token: str) -> dict[str, Any]:
        body = urllib.parse.urlencode({"token": token, "token_type_hint": "access_token"})
        request = urllib.request.Request(
            self.endpoint,
            data=body.encode(),
            headers={
                "Authorization": self._auth,
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
        )
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                data = json.loads(response.read(1024 * 1024))
        except urllib.error.HTTPError as e:
            raise VerifierUnavailableError(
                f"introspection {self.endpoint}: HTTP {e.code}"
            ) from None
        except (OSError, ValueError) as e:
            raise VerifierUnavailableError(f"introspection {self.endpoint}: {e}") from None
        if not isinstance(data, dict):
            raise VerifierUnavailableError(f"introspection {self.endpoint}: not a JSON object")
        return data

    def _judge(self, data: dict[str, Any], now: float) -> Principal | str:
        """The Principal, or the reason (error_description) the token is refused."""
        if data.get("active") is not True:
            return "The access token is not active"
        exp = data.get("exp")
        if isinstance(exp, (int, float)) and exp + self._leeway <= now:
            return "The access token expired"
        nbf = data.get("nbf")
        if isinstance(nbf, (int, float)) and nbf - self._leeway > now:
            return "The access token is not valid yet"
        if self.issuer is not None and data.get("iss") != self.issuer:
            return "The access token was issued by an untrusted issuer"
        if self.audience is not None and not _has_audience(data.get("aud"), self.audience):
            return "The access token was not issued for this resource"
        sub = data.get("sub")
        if not isinstance(sub, str) or not sub:
            return "The access token has no subject"
        client_id = data.get("client_id")
        return Principal(
            sub,
            scopes_of(data.get("scope")),
            data,
            client_id if isinstance(client_id, str) else None,
            float(exp) if isinstance(exp, (int, float)) else None,
        )


def _has_audience(aud: Any, audience: str) -> bool:
    if isinstance(aud, str):
        return aud == audience
    return isinstance(aud, list) and audience in aud
