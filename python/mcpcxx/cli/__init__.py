"""The `mcpcxx` command line (also `python -m mcpcxx`): run, dev, install and inspect.

Each command is a module of this package with a ``main(argv) -> int``; this dispatcher only picks
one. docs/cli.md describes them.
"""

from __future__ import annotations

import importlib
import sys

from mcpcxx import _core

# name -> (module that implements it, one-line summary)
COMMANDS = {
    "run": ("mcpcxx.cli.run", "run a server over stdio or --http HOST:PORT"),
    "dev": ("mcpcxx.cli.dev", "run a server behind a stdio proxy that restarts it on edits"),
    "install": ("mcpcxx.cli.install", "add a server to a host's config (Claude, Cursor, VS Code)"),
    "inspect": ("mcpcxx.inspect", "drive a server and print every raw frame"),
}


def usage() -> str:
    """The top-level help text: every command with its summary."""
    lines = [
        "usage: mcpcxx COMMAND [ARGS...]   (also: python -m mcpcxx COMMAND ...)",
        "",
        "commands:",
        *(f"  {name:<9} {summary}" for name, (_, summary) in COMMANDS.items()),
        "",
        "`mcpcxx COMMAND --help` describes a command; docs/cli.md has the details.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command; returns the process exit code."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(usage(), end="")
        return 0 if args else 2
    if args[0] == "--version":
        print(f"mcpcxx {_core.__version__}")
        return 0
    entry = COMMANDS.get(args[0])
    if entry is None:
        print(f"mcpcxx: unknown command {args[0]!r}\n\n{usage()}", end="", file=sys.stderr)
        return 2
    module = importlib.import_module(entry[0])
    code: int = module.main(args[1:])
    return code
