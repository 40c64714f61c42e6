"""Command line: `python -m mcpcxx run server.py[:obj]` and `python -m mcpcxx inspect -- CMD`."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

USAGE = """usage: python -m mcpcxx run PATH.py[:OBJECT] | MODULE[:OBJECT]
       python -m mcpcxx inspect [--call TOOL --args JSON] [--error-demo] [--legacy] -- CMD...
       python -m mcpcxx inspect [--call TOOL --args JSON] [--legacy] --url http://HOST:PORT/mcp
"""


class LoadError(Exception):
    """The server to run could not be found or loaded."""


def _load_module(target: str) -> ModuleType:
    if target.endswith(".py") or os.sep in target:
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            raise LoadError(f"no such file: {target}")
        sys.path.insert(0, os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise LoadError(f"cannot load {target} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        raise LoadError(f"cannot import {target!r}: {e}") from None


def find_server(target: str) -> Any:
    """The Server named by PATH.py[:OBJECT] or MODULE[:OBJECT] (OBJECT found when unique)."""
    from mcpcxx._api.server import Server

    location, _, attr = target.rpartition(":") if ":" in target else (target, "", "")
    module = _load_module(location)
    if attr:
        obj = getattr(module, attr, None)
        if not isinstance(obj, Server):
            raise LoadError(f"{location} has no mcpcxx.Server named {attr!r}")
        return obj
    found = [(k, v) for k, v in vars(module).items() if isinstance(v, Server)]
    if len(found) != 1:
        names = ", ".join(k for k, _ in found) or "none"
        raise LoadError(f"{location} defines {len(found)} Servers ({names}); name one as :OBJECT")
    return found[0][1]


def main(argv: list[str] | None = None) -> int:
    """Dispatch the sub-commands; returns the process exit code."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "inspect":
        from mcpcxx.inspect import main as inspect_main

        return inspect_main(rest)
    if command == "run":
        if len(rest) != 1:
            print(USAGE, end="", file=sys.stderr)
            return 2
        try:
            server = find_server(rest[0])
        except LoadError as e:
            print(f"mcpcxx run: {e}", file=sys.stderr)
            return 2
        code: int = server.run()
        return code
    print(f"mcpcxx: unknown command {command!r}\n{USAGE}", end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
