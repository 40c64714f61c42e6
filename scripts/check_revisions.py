#!/usr/bin/env python3
"""Fails when a protocol revision string is written in C++ outside the revisions table.

Every revision (its era and its features) lives in one table, cpp/src/wire/revisions.hpp; code
asks it (`wire::has(revision, feature)`, `wire::is_modern_version`, ...) instead of comparing
revision strings, so a new revision is one new row there. This check reads the C++ sources of
the library and the bindings (cpp/src, cpp/include, python/bindings; tests and golden transcripts
are not scanned), drops comments, and reports every string literal that is exactly a date
(YYYY-MM-DD): a known revision ("2025-11-25", ...) or any other date, which can only be a
revision compared by hand. Dates inside longer texts (error messages that name a revision) are
not revision literals and pass.

Usage: check_revisions.py [--root DIR] [--self-test]
Exit status 0 when clean, 1 with one line per finding (file:line: literal).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("cpp/src", "cpp/include", "python/bindings")
TABLE = "cpp/src/wire/revisions.hpp"
SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".ipp"}
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# A literal: optional encoding prefix, then a raw string R"delim(...)delim" or an ordinary one.
LITERAL = re.compile(
    r'(?:u8|u|U|L)?R"(?P<delim>[^(\s]{0,16})\((?P<raw>.*?)\)(?P=delim)"'
    r'|(?:u8|u|U|L)?"(?P<text>(?:[^"\\\n]|\\.)*)"'
    r"|'(?:[^'\\\n]|\\.)+'",
    re.S,
)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def code_without_comments(source: str) -> str:
    """The source with every comment blanked (newlines kept), string literals left intact."""
    out: list[str] = []
    pos = 0
    while pos < len(source):
        lit = LITERAL.search(source, pos)
        com = COMMENT.search(source, pos)
        if com is not None and (lit is None or com.start() < lit.start()):
            out.append(source[pos : com.start()])
            out.append(re.sub(r"[^\n]", " ", com.group(0)))
            pos = com.end()
        elif lit is not None:
            out.append(source[pos : lit.end()])
            pos = lit.end()
        else:
            out.append(source[pos:])
            break
    return "".join(out)


def findings_in(path: Path, label: str) -> list[str]:
    """One 'label:line: literal' entry per string literal of `path` that is exactly a date."""
    code = code_without_comments(path.read_text(encoding="utf-8", errors="replace"))
    found = []
    for m in LITERAL.finditer(code):
        content = m.group("raw") if m.group("raw") is not None else m.group("text")
        if content is not None and DATE.fullmatch(content):
            line = code.count("\n", 0, m.start()) + 1
            found.append(f"{label}:{line}: {m.group(0)}")
    return found


def scan(root: Path) -> list[str]:
    """Every finding under the scanned folders of `root`, the table excepted."""
    found: list[str] = []
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix in SUFFIXES and path.is_file() and rel != TABLE:
                found.extend(findings_in(path, rel))
    return found


PLANTED = """\
// a comment may name 2025-11-25 and "2025-11-25"
/* so may a block comment: "2026-07-28" */
const char* text = "needs protocol 2025-11-25 or later";
const char* quoted = " (a string such as \\"2025-11-25\\")";
bool a(std::string_view v) { return v == "2025-11-25"; }
bool b(std::string_view v) { return v >= std::string_view("2099-01-01"); }
bool c(std::string_view v) { return v == R"(2024-11-05)"; }
"""


def self_test() -> int:
    """Plants comparisons in a scratch tree and checks exactly they are reported."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "cpp/src/engine").mkdir(parents=True)
        (root / "cpp/src/wire").mkdir(parents=True)
        (root / "cpp/src/engine/planted.cpp").write_text(PLANTED)
        (root / TABLE).write_text('constexpr revision k[] = {{"2025-11-25"}};\n')
        got = scan(root)
    want = [
        'cpp/src/engine/planted.cpp:5: "2025-11-25"',
        'cpp/src/engine/planted.cpp:6: "2099-01-01"',
        'cpp/src/engine/planted.cpp:7: R"(2024-11-05)"',
    ]
    if got != want:
        print("check_revisions self-test FAILED\n  want: %s\n  got:  %s" % (want, got))
        return 1
    print("check_revisions self-test: the planted comparisons are caught, comments and texts pass")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = scan(args.root)
    for f in found:
        print(f)
    if found:
        print(
            f"{len(found)} revision literal(s) outside {TABLE}: ask the revisions table "
            "(wire::has(revision, feature), wire::is_modern_version, ...) instead",
            file=sys.stderr,
        )
        return 1
    print(f"check_revisions: no revision literal outside {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
