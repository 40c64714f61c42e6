"""Test keys, signed tokens and a loopback JWKS / introspection server (a tiny http.server)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

try:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
except ImportError:  # pragma: no cover - CI installs them (scripts/requirements-dev.txt)
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("mcpcxx[auth] (PyJWT with cryptography) is not installed", allow_module_level=True)

ISSUER = "https://auth.example.test"
AUDIENCE = "https://mcp.example.test/mcp"


class SigningKey:
    """A private key with its kid and JWS algorithm."""

    def __init__(self, kid: str, alg: str) -> None:
        self.kid, self.alg = kid, alg
        if alg == "RS256":
            self.private: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            algo: Any = jwt.algorithms.RSAAlgorithm
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())
            algo = jwt.algorithms.ECAlgorithm
        self.jwk = {**json.loads(algo.to_jwk(self.private.public_key())), "kid": kid, "use": "sig"}

    def token(self, **overrides: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": "alice",
            "exp": now + 300,
            "iat": now,
            "scope": "issues:read",
            "client_id": "test-client",
        }
        claims.update(overrides)
        claims = {k: v for k, v in claims.items() if v is not None}
        return self.signed(claims, self.alg)

    def signed(self, claims: dict[str, Any], alg: str) -> str:
        """`claims` signed with this key under `alg` (which may not be the key's own)."""
        return jwt.encode(claims, self.private, algorithm=alg, headers={"kid": self.kid})


def tampered(token: str) -> str:
    """`token` with one claim changed and the original signature kept."""
    head, payload, sig = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "mallory"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{head}.{forged}.{sig}"


class LoopbackServer:
    """Serves GET /jwks (the current key set) and POST /introspect (an answer function)."""

    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.jwks_hits = 0
        self.introspect: Callable[[dict[str, str], str], tuple[int, Any]] = lambda f, a: (
            200,
            {"active": False},
        )
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.jwks_hits += 1
                self._reply(200, {"keys": list(outer.keys)})

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", "0"))
                from urllib.parse import parse_qsl

                form = dict(parse_qsl(self.rfile.read(size).decode()))
                status, body = outer.introspect(form, self.headers.get("Authorization", ""))
                self._reply(status, body)

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
