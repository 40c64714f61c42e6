"""What every command shares: finding the Server a target names, and the --env/--env-file flags."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any


class LoadError(Exception):
    """The server to run could not be found or loaded (the message says why and what to do)."""


class UsageError(Exception):
    """A flag's value is wrong (the message names the flag)."""


def split_target(target: str) -> tuple[str, str]:
    """PATH.py[:OBJECT] or MODULE[:OBJECT] as (location, object name or "")."""
    location, sep, attr = target.rpartition(":")
    # "C:\\srv.py" is a Windows path, not a target with an object named "\\srv.py".
    if not sep or (len(location) == 1 and attr[:1] in ("\\", "/")):
        return target, ""
    if not location:
        raise LoadError(f"{target!r} names no file or module before ':'")
    return location, attr


def is_file_target(location: str) -> bool:
    """Whether a target's location is a file path (else it is an importable module name)."""
    return location.endswith(".py") or os.sep in location or "/" in location


def _load_file(location: str) -> ModuleType:
    path = os.path.abspath(location)
    if not os.path.isfile(path):
        raise LoadError(f"no such file: {location}")
    sys.path.insert(0, os.path.dirname(path))
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot load {location} as a Python module (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise LoadError(f"{location} has a syntax error at line {e.lineno}: {e.msg}") from None
    return module


def load_module(location: str) -> ModuleType:
    """Import a file path or a module name; LoadError when it does not exist."""
    if is_file_target(location):
        return _load_file(location)
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as e:
        if e.name and location.startswith(e.name):
            raise LoadError(
                f"cannot import {location!r}: no module named {e.name!r} (give a path to a .py "
                "file, or run from the directory that holds the module)"
            ) from None
        raise


def find_server(target: str) -> Any:
    """The mcpcxx.Server named by PATH.py[:OBJECT] or MODULE[:OBJECT].

    Without OBJECT the module must hold exactly one Server at its top level.
    """
    from mcpcxx._api.server import Server

    location, attr = split_target(target)
    module = load_module(location)
    if attr:
        obj = getattr(module, attr, None)
        if not isinstance(obj, Server):
            what = "nothing has that name" if obj is None else f"it is a {type(obj).__name__}"
            raise LoadError(f"{location} has no mcpcxx.Server named {attr!r} ({what})")
        return obj
    found = [k for k, v in vars(module).items() if isinstance(v, Server)]
    if len(found) == 1:
        return getattr(module, found[0])
    if not found:
        raise LoadError(
            f"{location} has no mcpcxx.Server at its top level; create one there "
            "(server = mcpcxx.Server('name')), or name it as PATH:OBJECT"
        )
    raise LoadError(
        f"{location} defines {len(found)} Servers ({', '.join(found)}); name the one to use as "
        f"{location}:{found[0]}"
    )


def absolute_target(target: str) -> str:
    """The target with its file path made absolute (a module name is kept as given)."""
    location, attr = split_target(target)
    if is_file_target(location):
        location = os.path.abspath(location)
    return f"{location}:{attr}" if attr else location


def add_env_flags(parser: argparse.ArgumentParser) -> None:
    """Add --env KEY=VALUE (repeatable) and --env-file PATH to a command's parser."""
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an environment variable for the server (repeatable; wins over --env-file)",
    )
    parser.add_argument(
        "--env-file", metavar="PATH", help="read KEY=VALUE lines (# comments) from this file"
    )


def _env_pair(text: str, where: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    key = key.strip()
    if key.startswith("export "):
        key = key[len("export ") :].strip()
    if not sep or not key or any(c.isspace() for c in key):
        raise UsageError(f"{where}: {text!r} is not KEY=VALUE")
    value = value.strip() if where != "--env" else value
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return key, value


def read_env_file(path: str) -> dict[str, str]:
    """The KEY=VALUE lines of an env file (blank lines, # comments and `export ` allowed)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UsageError(f"--env-file {path}: {e.strerror}") from None
    env: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = _env_pair(line, f"--env-file {path} line {number}")
            env[key] = value
    return env


def env_from_flags(args: argparse.Namespace) -> dict[str, str]:
    """The variables --env-file and --env give, in that order (so --env wins)."""
    env = read_env_file(args.env_file) if args.env_file else {}
    for item in args.env:
        key, value = _env_pair(item, "--env")
        env[key] = value
    return env


def apply_env(env: Mapping[str, str]) -> None:
    """Set these variables in this process (before the server's module is imported)."""
    os.environ.update(env)
