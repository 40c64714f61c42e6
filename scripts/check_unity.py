"""Finds names that two sources of one target both define in an anonymous namespace.

Usage: python3 scripts/check_unity.py BUILD_DIR...

CI compiles with CMAKE_UNITY_BUILD (scripts/test-all.sh): CMake joins up to eight sources of a
target into one translation unit, so their anonymous namespaces become one. Two definitions of
one name there are either a compile error or, worse, an overload that now wins where the file's
own helper was meant (a test helper with a default argument, a constant of the same name). This
check reads every batch CMake wrote (BUILD_DIR/**/Unity/unity_*_cxx.cxx) and fails when a name is
defined at the top level of the anonymous namespaces of two sources of one target (of any two
batches, since a new source moves the others between batches). Rename one of them, or share it.

The sources are clang-formatted, so a top-level declaration starts in column 0; the names are
those of functions, variables, types and aliases declared on such a line (not macros, namespace
aliases, or GoogleTest's PrintTo, which exists to be overloaded).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^#include "(?P<path>[^"]+)"')
OPEN_ANON = re.compile(r"^namespace\s*\{")
OPEN_NAMED = re.compile(r"^namespace\s+[\w:]+\s*\{")
CLOSE = re.compile(r"^\}")
TYPE = re.compile(r"^(?:template\s*<[^>]*>\s*)?(?:struct|class|enum(?:\s+class)?|union)\s+(\w+)")
ALIAS = re.compile(r"^using\s+(\w+)\s*=")
# The identifier right before the first "(" or "=" or "[" or "{" of the line.
DECL = re.compile(r"^[^(=\[{;]*?\b(\w+)\s*(?:\(|=|\[|\{)")
SKIP = ("#", "//", "/*", "*", "}", "template", "TEST", "using namespace", "static_assert", "extern",
        "namespace ")
# GoogleTest's printer hook is meant to be overloaded, one per type.
OVERLOADED = {"PrintTo"}


# A raw string literal R"delim( ... )delim" (embedded Lua scripts, SQL): not C++ declarations.
RAW_STRING = re.compile(r'R"(?P<delim>[^()\\ ]{0,16})\((?:.|\n)*?\)(?P=delim)"')


def without_raw_strings(text: str) -> str:
    """`text` with each raw string literal's body dropped (its line breaks kept)."""
    return RAW_STRING.sub(lambda m: 'R""' + "\n" * m.group(0).count("\n"), text)


def anonymous_names(source: Path) -> set[str]:
    """Names declared at the top level of `source`'s anonymous namespaces."""
    names: set[str] = set()
    stack: list[bool] = []  # one entry per open namespace: True for an anonymous one
    for line in without_raw_strings(source.read_text(errors="replace")).splitlines():
        if OPEN_ANON.match(line):
            stack.append(True)
            continue
        if OPEN_NAMED.match(line):
            stack.append(False)
            continue
        if CLOSE.match(line) and "namespace" in line and stack:
            stack.pop()
            continue
        if not stack or not stack[-1] or not line or line[0].isspace():
            continue
        if line.startswith(SKIP) and not line.startswith("template <"):
            continue
        m = TYPE.match(line) or ALIAS.match(line) or DECL.match(line)
        if m and line[: m.start(1)].endswith("::"):
            continue  # a member of a class defined out of line: qualified, so it cannot clash
        if m and m.group(1) not in OVERLOADED and not m.group(1).isupper():
            names.add(m.group(1))
    return names


def targets(build: Path) -> list[tuple[Path, list[Path]]]:
    """Every target under `build` that CMake batches, with the sources of all its batches.

    The whole target, not each batch: scripts/run_clang_tidy.py --group batches the same sources
    differently, and a source added to a target moves the others between batches.
    """
    out: dict[Path, list[Path]] = {}
    for unit in sorted(build.glob("**/Unity/unity_*_cxx.cxx")):
        for line in unit.read_text().splitlines():
            m = INCLUDE.match(line)
            if m:
                out.setdefault(unit.parent.parent, []).append(Path(m["path"]))
    return sorted(out.items())


def main() -> int:
    """Non-zero when some batch has a name defined by two of its sources."""
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems, checked = [], 0
    for build in map(Path, sys.argv[1:]):
        for target, members in targets(build):
            checked += 1
            owner: dict[str, Path] = {}
            for source in members:
                for name in sorted(anonymous_names(source)):
                    if name in owner:
                        problems.append(f"{name}: {owner[name]} and {source} ({target.name})")
                    else:
                        owner[name] = source
    for p in problems:
        print(f"check_unity: defined twice in one target: {p}", file=sys.stderr)
    if checked == 0:
        print("check_unity: no unity batches found (configure with -DCMAKE_UNITY_BUILD=ON)", file=sys.stderr)
        return 1
    print(f"check_unity: {checked} targets, {len(problems)} names defined twice")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
