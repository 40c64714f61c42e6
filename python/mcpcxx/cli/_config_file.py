"""A host's JSON config file: read it strictly, add one server entry, write it back atomically.

Nothing is written unless the whole update is valid: a file that is not a JSON object is refused
and left byte-for-byte as it was. Other entries and unknown keys keep their content and order.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from typing import Any

# A new config file may hold secrets (--env values): only its owner may read it.
NEW_FILE_MODE = 0o600


class ConfigError(Exception):
    """The config file cannot be updated safely (the message says why; nothing was written)."""


def read_config(path: str) -> dict[str, Any]:
    """The file's top-level object ({} when the file is absent or holds only whitespace)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(
            f"{path} is not UTF-8 text; fix or move it (nothing was changed)"
        ) from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); fix it or "
            "move it away, then run this again (nothing was changed)"
        ) from None
    if not isinstance(document, dict):
        raise ConfigError(
            f"{path} holds a JSON {type(document).__name__}, not an object; fix it or move it "
            "away (nothing was changed)"
        )
    return document


def add_entry(
    document: dict[str, Any], key: str, name: str, entry: dict[str, Any], force: bool, path: str
) -> bool:
    """Put `entry` at document[key][name]; True when it replaced one (only with force)."""
    section = document.setdefault(key, {})
    if not isinstance(section, dict):
        raise ConfigError(
            f'{path}: "{key}" is a JSON {type(section).__name__}, not an object of servers; fix '
            "it (nothing was changed)"
        )
    replaced = name in section
    if replaced and not force:
        raise ConfigError(
            f"{path} already has a server named {name!r}; pass --force to replace it, or "
            "--name to add this one under another name (nothing was changed)"
        )
    section[name] = entry  # a replaced entry keeps its place among the others
    return replaced


def write_atomically(path: str, document: dict[str, Any]) -> None:
    """Write the document through a temporary file in the same directory and os.replace.

    A symlinked config is updated where it points. The file keeps its permissions (a new one gets
    NEW_FILE_MODE); missing parent directories are created.
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    try:
        os.makedirs(folder, exist_ok=True)
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    except OSError as e:
        raise ConfigError(f"cannot prepare {folder}: {e.strerror}") from None
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise ConfigError(f"cannot write {path}: {e.strerror} (nothing was changed)") from None


def install_entry(path: str, key: str, name: str, entry: dict[str, Any], force: bool) -> bool:
    """Read, update and atomically rewrite one config file; True when an entry was replaced."""
    document = read_config(path)
    replaced = add_entry(document, key, name, entry, force, path)
    write_atomically(path, document)
    return replaced
