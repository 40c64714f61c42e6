"""A JWKS (RFC 7517 key set) fetched from a URL and cached.

TTL, refetch on an unknown key id (key rotation) at most once per min_refetch_interval, stale
keys kept when a refetch fails.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

import jwt

from mcpcxx.auth._errors import InvalidTokenError, VerifierUnavailableError

_log = logging.getLogger("mcpcxx.auth")


@dataclass(frozen=True)
class SigningKey:
    """One key of the set, with the algorithm its JWK declares (None: any of the key's type)."""

    jwk: jwt.PyJWK
    alg: str | None


class JWKSCache:
    """Thread-safe: key() may be called from several threads; one fetch runs at a time."""

    def __init__(
        self, url: str, *, ttl: float, min_refetch_interval: float, timeout: float
    ) -> None:
        if not url.startswith(("https://", "http://")):
            raise ValueError(f"jwks_url must be an http(s) URL, got {url!r}")
        self.url = url
        self._ttl = ttl
        self._min_interval = min_refetch_interval
        self._timeout = timeout
        self._lock = threading.Lock()
        self._keys: dict[str | None, SigningKey] = {}
        self._fetched_at = float("-inf")
        self._attempted_at = float("-inf")
        self.fetches = 0
        """How many times the key set was requested (tests check the refetch bound)."""

    def key(self, kid: str | None) -> SigningKey:
        """The key `kid` names (None: the only key of a one-key set)."""
        with self._lock:
            now = time.monotonic()
            stale = now - self._fetched_at >= self._ttl
            unknown = self._lookup(kid) is None
            if (stale or unknown) and now - self._attempted_at >= self._min_interval:
                self._refresh(now, have_keys=bool(self._keys))
            found = self._lookup(kid)
        if found is None:
            raise InvalidTokenError("The access token's signing key is unknown")
        return found

    def _lookup(self, kid: str | None) -> SigningKey | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    def _refresh(self, now: float, *, have_keys: bool) -> None:
        self._attempted_at = now
        self.fetches += 1
        try:
            self._keys = _parse(self._download())
            self._fetched_at = now
        except (OSError, ValueError, jwt.PyJWKSetError) as e:
            if not have_keys:
                raise VerifierUnavailableError(f"JWKS {self.url} unavailable: {e}") from None
            # Keep the stale keys: a key server hiccup must not lock every user out.
            _log.warning("JWKS %s refresh failed, keeping cached keys: %s", self.url, e)

    def _download(self) -> Any:
        request = urllib.request.Request(self.url, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:
            if response.status != 200:
                raise ValueError(f"HTTP {response.status}")
            return json.loads(response.read(1024 * 1024))


def _parse(document: Any) -> dict[str | None, SigningKey]:
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise ValueError("not a JWK Set (no 'keys' array)")
    keys: dict[str | None, SigningKey] = {}
    for data in document["keys"]:
        if not isinstance(data, dict) or data.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK.from_dict(data)
        except (jwt.PyJWKError, jwt.InvalidKeyError):
            continue  # a key type or curve this server cannot use: skip it, keep the rest
        alg = data.get("alg")
        keys[key.key_id] = SigningKey(key, alg if isinstance(alg, str) else None)
    if not keys:
        raise ValueError("the JWK Set has no usable signing key")
    return keys
