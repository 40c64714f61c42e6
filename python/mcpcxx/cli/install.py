"""`mcpcxx install HOST TARGET`: add the server to a host's MCP config (docs/cli.md lists where).

The entry starts the server with this interpreter: `python -m mcpcxx run /abs/path.py[:OBJECT]`,
with the --env/--env-file variables. Claude Code is configured through its own `claude mcp`
command unless --config names a file in its project format (.mcp.json).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from mcpcxx.cli._config_file import ConfigError, install_entry
from mcpcxx.cli._target import (
    UsageError,
    absolute_target,
    add_env_flags,
    apply_env,
    env_from_flags,
)
from mcpcxx.cli.run import load_reporting


def _config_home() -> str:
    return os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")


def _app_data(*parts: str) -> str:
    """A per-user application file: Application Support on macOS, %APPDATA% on Windows, XDG."""
    if sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Application Support")
    elif sys.platform == "win32":
        base = os.environ.get("APPDATA") or os.path.join(
            os.path.expanduser("~"), "AppData", "Roaming"
        )
    else:
        base = _config_home()
    return os.path.join(base, *parts)


@dataclass(frozen=True)
class Host:
    """A host application: its title, the JSON key its servers live under, where its file is."""

    title: str
    key: str
    typed: bool  # entries carry "type": "stdio" (VS Code's format)

    def default_path(self, name: str) -> str | None:
        """This platform's documented user-level config file (None: no file is written)."""
        if name == "claude-desktop":
            return _app_data("Claude", "claude_desktop_config.json")
        if name == "cursor":
            return os.path.join(os.path.expanduser("~"), ".cursor", "mcp.json")
        if name == "vscode":
            return _app_data("Code", "User", "mcp.json")
        return None


HOSTS = {
    "claude-desktop": Host("Claude Desktop", "mcpServers", typed=False),
    "claude-code": Host("Claude Code", "mcpServers", typed=False),
    "cursor": Host("Cursor", "mcpServers", typed=False),
    "vscode": Host("VS Code", "servers", typed=True),
    "mcp-json": Host("an mcp.json file", "mcpServers", typed=False),
}

EPILOG = """where each host's file is (docs/cli.md has the details):
  claude-desktop  macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
                  Windows %APPDATA%\\Claude\\claude_desktop_config.json,
                  Linux $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (~/.config)
  claude-code     `claude mcp add-json` (--scope local|user|project); without the claude
                  command, only with --config PATH (a project .mcp.json)
  cursor          ~/.cursor/mcp.json (a project's own: --config .cursor/mcp.json)
  vscode          the user profile's mcp.json: macOS ~/Library/Application Support/Code/User,
                  Windows %APPDATA%\\Code\\User, Linux ~/.config/Code/User
                  (a workspace's own: --config .vscode/mcp.json)
  mcp-json        prints {"mcpServers": {...}} to stdout, or adds it to --config PATH
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `mcpcxx install`."""
    parser = argparse.ArgumentParser(
        prog="mcpcxx install",
        description="Add a server to an MCP host's configuration, started with this interpreter.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("host", choices=list(HOSTS), metavar="HOST", help=", ".join(HOSTS))
    parser.add_argument("target", metavar="TARGET", help="PATH.py[:OBJECT] or MODULE[:OBJECT]")
    parser.add_argument("--name", help="the entry's name (default: the Server's name)")
    parser.add_argument("--config", metavar="PATH", help="write this file instead of the default")
    parser.add_argument(
        "--force", action="store_true", help="replace an existing entry of the same name"
    )
    parser.add_argument(
        "--scope",
        choices=("local", "user", "project"),
        help="claude-code without --config: the scope `claude mcp` stores it in (default local)",
    )
    add_env_flags(parser)
    return parser


def server_entry(host: Host, target: str, env: dict[str, str]) -> dict[str, Any]:
    """The config entry that starts the server with this interpreter."""
    entry: dict[str, Any] = {"type": "stdio"} if host.typed else {}
    entry["command"] = sys.executable
    entry["args"] = ["-m", "mcpcxx", "run", absolute_target(target)]
    if env:
        entry["env"] = dict(env)
    return entry


def entry_name(args: argparse.Namespace, env: dict[str, str]) -> tuple[str | None, int]:
    """(--name or the name of the Server TARGET defines, 0), or (None, exit code) on failure."""
    apply_env(env)  # the module may read its configuration while it is imported
    server, failed = load_reporting(args.target, "mcpcxx install")
    if server is None:
        return None, failed
    name = args.name if args.name is not None else str(server.name)
    if not name.strip():
        raise UsageError("the entry name is empty; pass --name NAME")
    return name, 0


def _claude(claude: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [claude, "mcp", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def install_with_claude(name: str, entry: dict[str, Any], args: argparse.Namespace) -> str:
    """Add the entry through `claude mcp add-json`; returns where it went."""
    claude = shutil.which("claude")
    if claude is None:
        raise ConfigError(
            "the `claude` command is not on PATH. Claude Code keeps its servers in ~/.claude.json, "
            "which it manages itself through `claude mcp`; install Claude Code, or write a "
            "project's shared config with --config PATH/TO/PROJECT/.mcp.json"
        )
    scope = args.scope or "local"
    if _claude(claude, "get", name).returncode == 0:
        if not args.force:
            raise ConfigError(
                f"Claude Code already has a server named {name!r} (`claude mcp get {name}`); "
                "pass --force to replace it, or --name to add this one under another name"
            )
        _claude(claude, "remove", name, "--scope", scope)
    done = _claude(claude, "add-json", name, json.dumps(entry), "--scope", scope)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip()
        raise ConfigError(f"`claude mcp add-json` failed (exit {done.returncode}): {detail}")
    return f"Claude Code ({scope} scope, through `claude mcp`)"


def install(args: argparse.Namespace, name: str, env: dict[str, str]) -> int:
    """Write the entry where the host and flags say; returns the exit code."""
    host = HOSTS[args.host]
    entry = server_entry(host, args.target, env)
    if args.host == "claude-code" and not args.config:
        where = install_with_claude(name, entry, args)
        print(f"mcpcxx install: added {name!r} to {where}; restart Claude Code to load it")
        return 0
    path = args.config or host.default_path(args.host)
    if path is None:  # mcp-json without --config: print the document
        print(json.dumps({host.key: {name: entry}}, indent=2, ensure_ascii=False))
        return 0
    replaced = install_entry(path, host.key, name, entry, args.force)
    verb = "replaced" if replaced else "added"
    print(
        f"mcpcxx install: {verb} {name!r} in {path} ({host.title}); restart it to load the server"
    )
    return 0


def main(argv: list[str]) -> int:
    """Entry point of `mcpcxx install`; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.scope is not None and (args.host != "claude-code" or args.config):
            raise UsageError("--scope only applies to claude-code without --config")
        env = env_from_flags(args)
        name, failed = entry_name(args, env)
        if name is None:
            return failed
        return install(args, name, env)
    except UsageError as e:
        print(f"mcpcxx install: {e}", file=sys.stderr)
        return 2
    except ConfigError as e:
        print(f"mcpcxx install: {e}", file=sys.stderr)
        return 1
