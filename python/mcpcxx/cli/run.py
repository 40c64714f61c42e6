"""`mcpcxx run TARGET`: load a module or file, find its Server, and serve it (stdio or HTTP)."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Any

from mcpcxx.cli._target import (
    LoadError,
    UsageError,
    add_env_flags,
    apply_env,
    env_from_flags,
    find_server,
)

DESCRIPTION = "Run a server over stdio (the default) or Streamable HTTP."
EPILOG = """TARGET is PATH.py or MODULE, optionally with :OBJECT naming the Server; without :OBJECT
the module must define exactly one mcpcxx.Server at its top level.

examples:
  mcpcxx run server.py
  mcpcxx run server.py:app --http 127.0.0.1:8000 --env API_KEY=secret
  mcpcxx run mypkg.server --http :9000 --option max_sessions=100
"""


def build_parser(prog: str = "mcpcxx run") -> argparse.ArgumentParser:
    """The argument parser of `mcpcxx run`."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="TARGET", help="PATH.py[:OBJECT] or MODULE[:OBJECT]")
    parser.add_argument(
        "--http", metavar="HOST:PORT", help="serve Streamable HTTP here instead of stdio"
    )
    parser.add_argument("--path", help="HTTP endpoint path (default /mcp)")
    parser.add_argument(
        "--drain-grace",
        type=float,
        metavar="SECONDS",
        help="on SIGTERM/SIGINT, how long in-flight requests may finish (default 5)",
    )
    parser.add_argument(
        "--no-legacy",
        action="store_true",
        help="HTTP: refuse initialize-era (legacy) sessions, serve 2026-07-28 only",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="HTTP: a Host header value to accept (repeatable; default: local names only)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="HTTP: an Origin to accept (repeatable)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of Server.run (VALUE is JSON, else a string; repeatable)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only load TARGET and find its Server, then exit 0 (nothing is served)",
    )
    add_env_flags(parser)
    return parser


def parse_http(text: str) -> tuple[str, int]:
    """HOST:PORT (also [IPv6]:PORT, :PORT or PORT) as (host, port); host defaults to 127.0.0.1."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = "", text
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"--http {text}: the port must be a number, e.g. 127.0.0.1:8000") from None
    if not 0 <= port <= 65535:
        raise UsageError(f"--http {text}: the port must be between 0 and 65535")
    return host or "127.0.0.1", port


def _option_value(item: str) -> tuple[str, Any]:
    key, sep, text = item.partition("=")
    if not sep or not key:
        raise UsageError(f"--option {item!r} is not KEY=VALUE")
    try:
        return key, json.loads(text)
    except ValueError:
        return key, text


def run_options(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The transport and keyword options for Server.run that the flags give."""
    options: dict[str, Any] = dict(_option_value(item) for item in args.option)
    if args.http is None:
        http_only = [f for f in ("path", "allowed_host", "allowed_origin") if getattr(args, f)]
        if args.no_legacy:
            http_only.append("no_legacy")
        if http_only:
            flags = ", ".join("--" + f.replace("_", "-") for f in http_only)
            raise UsageError(f"{flags} only apply with --http HOST:PORT")
        if args.drain_grace is not None:
            options["drain_grace_seconds"] = args.drain_grace
        return "stdio", options
    options["host"], options["port"] = parse_http(args.http)
    flag_options = {
        "path": args.path,
        "drain_grace": args.drain_grace,
        "allowed_hosts": args.allowed_host,
        "allowed_origins": args.allowed_origin,
        "legacy": False if args.no_legacy else None,
    }
    options.update({k: v for k, v in flag_options.items() if v is not None})
    return "http", options


def load_reporting(target: str, command: str) -> tuple[Any, int]:
    """(the Server, 0), or (None, exit code) after printing why it failed to stderr.

    The exit code is 2 when TARGET names nothing usable, 1 when its code raised.
    """
    try:
        return find_server(target), 0
    except LoadError as e:
        print(f"{command}: {e}", file=sys.stderr)
        return None, 2
    except Exception:
        print(f"{command}: importing {target} raised an exception:", file=sys.stderr)
        traceback.print_exc()
        return None, 1


def main(argv: list[str]) -> int:
    """Entry point of `mcpcxx run`; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        transport, options = run_options(args)
        apply_env(env_from_flags(args))
    except UsageError as e:
        print(f"mcpcxx run: {e}", file=sys.stderr)
        return 2
    server, failed = load_reporting(args.target, "mcpcxx run")
    if server is None:
        return failed
    if args.check:
        print(f"mcpcxx run: {args.target}: {server!r} loads", file=sys.stderr)
        return 0
    try:
        code: int = server.run(transport, **options)
    except (TypeError, ValueError) as e:
        print(f"mcpcxx run: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        if transport != "http":
            raise
        # The engine's own words (e.g. "bind: Address already in use") with where it happened.
        print(f"mcpcxx run: serving HTTP on {args.http} failed: {e}", file=sys.stderr)
        return 1
    return code
