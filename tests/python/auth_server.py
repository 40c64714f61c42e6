"""An mcpcxx server requiring JWT bearer tokens, for tests/python/test_auth*.py.

python server.py --jwks URL --issuer ISS --audience AUD [--legacy]: prints its URL on stderr
(the engine's log line). Tokens starting with "boom" make the verifier raise with the token in
its message (the log must still never show it).
"""

from __future__ import annotations

import argparse
import sys

import mcpcxx
from mcpcxx.auth import BearerAuth, JWTVerifier, Principal


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jwks", required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    jwt_verifier = JWTVerifier(
        jwks_url=args.jwks, issuer=args.issuer, audience=args.audience, min_refetch_interval=0
    )

    def verifier(token: str) -> Principal:
        if token.startswith("boom"):
            raise RuntimeError(f"verifier crashed on {token}")
        return jwt_verifier(token)

    server = mcpcxx.Server(
        "auth-test", "1.0.0", log_writer=lambda line: print(line, file=sys.stderr, flush=True)
    )

    @server.tool
    def whoami(ctx: mcpcxx.Context) -> dict[str, object]:
        """Who the access token speaks for."""
        p = ctx.principal
        assert p is not None
        return {"subject": p.subject, "scopes": sorted(p.scopes), "client": p.client_id}

    @server.tool(scopes=["issues:write"])
    def close_issue(key: str) -> str:
        """Close an issue (needs issues:write)."""
        return f"closed {key}"

    auth = BearerAuth(
        verifier,
        authorization_servers=[args.issuer],
        resource=args.audience,
        scopes_supported=["issues:read", "issues:write"],
    )
    return server.run("http", port=args.port, auth=auth)


if __name__ == "__main__":
    sys.exit(main())
