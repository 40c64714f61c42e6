"""Docstring parsing: the description and per-parameter text from Google or NumPy style."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Examples?|Notes?|Attributes|See Also|Warnings?|Warns|"
    r"References|Todo|Methods)\s*:\s*$",
    re.IGNORECASE,
)
_NUMPY_UNDERLINE = re.compile(r"^-{3,}\s*$")
_PARAM_SECTIONS = {
    "args",
    "arguments",
    "parameters",
    "params",
    "keyword args",
    "keyword arguments",
    "other parameters",
}
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w*)\s*(\([^)]*\))?\s*:\s*(?P<text>.*)$")
_NUMPY_ENTRY = re.compile(r"^(?P<names>\*{0,2}[A-Za-z_]\w*(\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(:.*)?$")


@dataclass
class ParsedDocstring:
    """The parts of a docstring that become schema text."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@dataclass
class _Section:
    name: str
    header: int
    body: int
    end: int
    numpy: bool


def _sections(lines: list[str]) -> list[_Section]:
    """Every Google ("Args:") or NumPy ("Parameters" + dashes) section header, in order."""
    found: list[_Section] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if _indent(line) != 0 or not stripped:
            continue
        if _GOOGLE_SECTION.match(stripped):
            found.append(_Section(stripped.rstrip(":").strip().lower(), i, i + 1, 0, False))
        elif i + 1 < len(lines) and _NUMPY_UNDERLINE.match(lines[i + 1].strip()):
            found.append(_Section(stripped.lower(), i, i + 2, 0, True))
    for n, section in enumerate(found):
        section.end = found[n + 1].header if n + 1 < len(found) else len(lines)
    return found


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _google_params(body: list[str]) -> dict[str, str]:
    content = [line for line in body if line.strip()]
    if not content:
        return {}
    base = min(_indent(line) for line in content)
    params: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if not line.strip():
            continue
        match = _GOOGLE_ENTRY.match(line.strip()) if _indent(line) == base else None
        if match:
            current = params.setdefault(match["name"], [])
            current.append(match["text"])
        elif current is not None and _indent(line) > base:
            current.append(line)
    return {k: _join(v) for k, v in params.items() if _join(v)}


def _numpy_params(body: list[str]) -> dict[str, str]:
    content = [line for line in body if line.strip()]
    if not content:
        return {}
    base = min(_indent(line) for line in content)
    params: dict[str, list[str]] = {}
    current: list[list[str]] = []
    for line in body:
        if not line.strip():
            continue
        match = _NUMPY_ENTRY.match(line.strip()) if _indent(line) == base else None
        if match:
            names = [n.strip().lstrip("*") for n in match["names"].split(",")]
            current = [params.setdefault(n, []) for n in names]
        elif _indent(line) > base:
            for target in current:
                target.append(line)
    return {k: _join(v) for k, v in params.items() if _join(v)}


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split `doc` into its free-text description and per-parameter descriptions."""
    if not doc:
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    sections = _sections(lines)
    first_header = sections[0].header if sections else len(lines)
    params: dict[str, str] = {}
    for section in sections:
        if section.name in _PARAM_SECTIONS:
            body = lines[section.body : section.end]
            params.update(_numpy_params(body) if section.numpy else _google_params(body))
    return ParsedDocstring("\n".join(lines[:first_header]).strip(), params)
