"""Server.add_skills and Server.reload_skills: the Skills extension (docs/skills.md).

The engine loads and serves the tree (cpp/src/skills); this module checks the Python arguments
and turns the engine's answers into Python values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from mcpcxx import _core

SymlinkPolicy = Literal["refuse", "follow_inside"]

_SIZE_OPTIONS = (
    "max_file_bytes",
    "max_skill_bytes",
    "max_skill_files",
    "max_total_bytes",
    "max_depth",
)


@dataclass(frozen=True)
class SkillsChanges:
    """What Server.reload_skills changed, by skill:// URI."""

    added: tuple[str, ...]
    """Files new in the tree."""
    removed: tuple[str, ...]
    """Files gone from the tree."""
    changed: tuple[str, ...]
    """Files whose bytes changed (a new digest; subscribers got resources/updated)."""
    skills: int
    """How many skills are served now."""

    def __bool__(self) -> bool:
        """True when some file was added, removed or changed."""
        return bool(self.added or self.removed or self.changed)


def skills_root(root: object) -> str:
    """`root` as a path string; TypeError, FileNotFoundError or NotADirectoryError otherwise."""
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(
            f"add_skills needs the skills directory as a str or path, not {type(root).__name__}"
        )
    path = os.fspath(root)
    if not isinstance(path, str) or not path:
        raise TypeError("add_skills needs a non-empty text path to the skills directory")
    if not os.path.exists(path):
        raise FileNotFoundError(f"add_skills: {path} does not exist; name the skills directory")
    if not os.path.isdir(path):
        raise NotADirectoryError(
            f"add_skills: {path} is not a directory; name the directory holding the skill "
            "directories"
        )
    return path


def skills_options(
    *,
    directory_read: bool,
    symlinks: SymlinkPolicy,
    include_hidden: bool,
    ttl_ms: int | None,
    cache_scope: str | None,
    sizes: dict[str, int | None],
) -> dict[str, Any]:
    """The options dict _core.Server.add_skills reads, checked."""
    for name, flag in (("directory_read", directory_read), ("include_hidden", include_hidden)):
        if not isinstance(flag, bool):
            raise TypeError(f"add_skills: {name} must be a bool, not {type(flag).__name__}")
    if symlinks not in ("refuse", "follow_inside"):
        raise ValueError(
            f'add_skills: symlinks must be "refuse" or "follow_inside", not {symlinks!r}'
        )
    options: dict[str, Any] = {
        "directory_read": directory_read,
        "symlinks": symlinks,
        "include_hidden": include_hidden,
    }
    for name in _SIZE_OPTIONS:
        value = sizes.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"add_skills: {name} must be a positive int, not {value!r}")
        options[name] = value
    if ttl_ms is not None:
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int):
            raise TypeError(f"add_skills: ttl_ms must be an int, not {type(ttl_ms).__name__}")
        options["ttl_ms"] = ttl_ms
    if cache_scope is not None:
        options["cache_scope"] = cache_scope
    return options


def add_skills(core: _core.Server, root: object, options: dict[str, Any]) -> None:
    """Loads and serves the tree; ValueError names the file and the problem."""
    core.add_skills(skills_root(root), options)


def reload_skills(core: _core.Server) -> SkillsChanges:
    """Re-reads the tree; ValueError (the old tree stays served) when it no longer loads."""
    changes = core.reload_skills()
    return SkillsChanges(
        added=tuple(changes["added"]),
        removed=tuple(changes["removed"]),
        changed=tuple(changes["changed"]),
        skills=int(changes["skills"]),
    )
