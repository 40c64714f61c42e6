#!/usr/bin/env python3
"""Every repository path and CMake target the docs name must exist (scripts/lint.sh runs this).

Reads README.md and docs/*.md (or the Markdown files given) and fails, naming file:line and what
to do, for:

- a repository path that does not exist: in `code` (inline or fenced) a token whose first folder is
  one of the repository's own (cpp/, docs/, scripts/, tests/, ...), or any token with a "/" and a
  source extension (`engine/exchange.hpp`, `mcpcxx/version.hpp`), which may be relative to the
  repository, cpp/src, cpp/include, cpp or python; and a Markdown link target, relative to the
  file that links it. Globs (`tests/golden/*.txtar`) must match something; a placeholder
  (`<build>`, `<name>`) stands for one path component. A file configure_file() writes
  (`mcpcxx/version.hpp`) and an output the repository's .gitignore ignores
  (`bench/results/http.jsonl`) count as existing;
- a build-tree path (`build/<dir>/examples/cpp/mcpcxx_demo_server`): its source folder must exist
  and, when it names an mcpcxx target, that folder's CMakeLists.txt must define the target;
- a CMake target that no CMakeLists.txt or *.cmake file defines: a `mcpcxx_*` name anywhere
  (unless it is a Prometheus metric the engine renders, a string literal in cpp/src), a name after
  `--target`, and a `mcpcxx::*` name in a cmake code block, in a table whose first column is
  headed "Target", or in `code` on a line that speaks of a target;
- a README code block announced by `<!-- snippet: path -->` that differs from that file.

Targets are read from the CMake files without configuring a build: add_library, add_executable,
pybind11_add_module, add_custom_target, ALIAS names, mcpcxx_layer(<name>) (mcpcxx_<name> and
mcpcxx::<name>), with set(), foreach() over literal lists and file(GLOB) folded in.

Usage: check_docs_paths.py [--root DIR] [FILE.md ...]   exit 0: all exist; 1: something is missing.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# The repository's own top-level folders and files: a token starting with one is a path.
TOP_LEVEL = ("cpp", "docs", "scripts", "tests", "examples", "bench", "python", "cmake", ".ci")
ROOT_FILES = ("README.md", "CHANGELOG.md", "CMakeLists.txt", "pyproject.toml")
# Where a relative path such as `engine/exchange.hpp` or `mcpcxx/_tools.py` may start.
BASES = ("", "cpp/src", "cpp/include", "cpp", "python")
SOURCE_EXT = re.compile(
    r"\.(cpp|hpp|h|c|py|pyi|sh|md|cmake|txt|txtar|json|yml|yaml|toml|mjs|js|svg|supp|dict|in)$"
)
TARGET_NAME = re.compile(r"(?<![\w./-])mcpcxx_[a-z0-9_]+(?![\w])(?!\.[A-Za-z])")
NAMESPACED_TARGET = re.compile(r"(?<![\w:])mcpcxx::[a-z0-9_]+(?![\w:(])")
DEFINING_COMMANDS = ("add_library", "add_executable", "add_custom_target", "pybind11_add_module")
BUILTIN_TARGETS = {"all", "clean", "help", "install", "test", "edit_cache", "rebuild_cache"}


@dataclass
class Problem:
    """One reference that does not exist."""

    where: str
    message: str


@dataclass
class Targets:
    """CMake targets and, when known, the source folder that defines each."""

    folder: dict[str, str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    # The build-tree files configure_file() writes, as their trailing paths (mcpcxx/version.hpp).
    generated: set[str] = field(default_factory=set)

    def add(self, name: str, folder: str) -> None:
        """Records `name`, defined in `folder`; a name still holding a ${variable} is dropped."""
        if "${" in name or not name:
            return
        self.names.add(name)
        self.folder.setdefault(name, folder)


# ---------------------------------------------------------------- CMake targets, without a build


def cmake_commands(text: str) -> list[tuple[str, list[str]]]:
    """The commands of a CMake file as (lower-case name, arguments), comments removed."""
    text = re.sub(r"#\[(=*)\[.*?\]\1\]", " ", text, flags=re.S)
    text = re.sub(r'#[^\n"]*(?=\n|$)', " ", text)
    out = []
    for m in re.finditer(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
            i += 1
        body = text[m.end() : i - 1]
        args = [a.strip('"') for a in re.findall(r'"[^"]*"|[^\s()]+', body)]
        out.append((m.group(1).lower(), args))
    return out


def expand(value: str, env: dict[str, str]) -> str:
    """`value` with the ${variables} `env` knows substituted (nested ones too)."""
    for _ in range(5):
        new = re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), m.group(0)), value)
        if new == value:
            break
        value = new
    return value


def targets_of(cmake_file: Path, root: Path, into: Targets) -> None:
    """Adds the targets one CMake file defines; folds in set(), foreach() and file(GLOB)."""
    folder = cmake_file.parent.relative_to(root).as_posix()
    folder = "" if folder == "." else folder
    base_env = {
        "CMAKE_CURRENT_SOURCE_DIR": str(cmake_file.parent),
        "PROJECT_SOURCE_DIR": str(root),
        "CMAKE_SOURCE_DIR": str(root),
    }
    commands = cmake_commands(cmake_file.read_text(encoding="utf-8", errors="replace"))

    def run(cmds: list[tuple[str, list[str]]], env: dict[str, str]) -> None:
        i = 0
        while i < len(cmds):
            name, args = cmds[i]
            args = [expand(a, env) for a in args]
            if name == "foreach" and args:
                depth, j = 1, i + 1
                while j < len(cmds) and depth:
                    depth += {"foreach": 1, "endforeach": -1}.get(cmds[j][0], 0)
                    j += 1
                items = [a for a in args[1:] if a not in ("IN", "ITEMS", "LISTS")]
                if args[1:2] == ["IN"] and "LISTS" in args:
                    items = [x for a in items for x in env.get(a, "").split(";") if x]
                items = [x for a in items for x in a.split(";") if x]
                for item in items:
                    run(cmds[i + 1 : j - 1], {**env, args[0]: item})
                i = j
                continue
            if name == "set" and len(args) >= 2:
                env[args[0]] = ";".join(a for a in args[1:] if a not in ("CACHE", "PARENT_SCOPE"))
            elif name == "file" and args[:1] in (["GLOB"], ["GLOB_RECURSE"]) and len(args) > 1:
                flags = ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "true", "false")
                patterns = [a for a in args[2:] if a not in flags]
                found = sorted(x for p in patterns for x in glob.glob(p))
                env[args[1]] = ";".join(found)
            elif name == "get_filename_component" and len(args) >= 3:
                path = Path(args[1])
                env[args[0]] = {"NAME": path.name, "NAME_WE": path.name.split(".")[0]}.get(
                    args[2], args[1]
                )
            elif name in DEFINING_COMMANDS:
                if args:
                    into.add(args[0], folder)
                    if len(args) >= 3 and args[1] == "ALIAS":
                        into.add(args[0], into.folder.get(args[2], folder))
            elif name == "configure_file" and len(args) >= 2:
                into.generated.add(re.sub(r"^.*\}/", "", args[1]))
            elif name == "mcpcxx_layer" and args:
                into.add(f"mcpcxx_{args[0]}", folder)
                into.add(f"mcpcxx::{args[0]}", folder)
            i += 1

    run(commands, dict(base_env))


def cmake_targets(root: Path) -> Targets:
    """The targets of every CMakeLists.txt and *.cmake of the repository (build trees skipped)."""
    found = Targets()
    for folder, dirs, names in os.walk(root):
        at_top = Path(folder) == root
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in ("node_modules", "__pycache__")
            and not (at_top and d.startswith("build"))
        )
        for name in sorted(names):
            if name == "CMakeLists.txt" or name.endswith(".cmake"):
                targets_of(Path(folder) / name, root, found)
    return found


def metric_names(root: Path) -> set[str]:
    """The mcpcxx_* string literals of the engine's sources (Prometheus metric names)."""
    names: set[str] = set()
    for f in (root / "cpp" / "src").rglob("*.[ch]pp"):
        names.update(re.findall(r'"(mcpcxx_[a-z0-9_]+)', f.read_text(errors="replace")))
    return names


# ---------------------------------------------------------------- paths


def exists(root: Path, rel: str) -> bool:
    """True when `rel` (maybe a glob or with <placeholders>) names something in the tree."""
    rel = re.sub(r"<[^<>/]+>", "*", rel).rstrip("/")
    rel = re.sub(r"(/\.\.\.|/…)$", "", rel)
    if not rel:
        return True
    if any(c in rel for c in "*?["):
        return bool(glob.glob(str(root / rel)))
    return (root / rel).exists()


def clean_token(tok: str) -> str:
    """A code token without quotes, punctuation, `VAR=`/`--flag=` prefixes, anchors and :line."""
    tok = tok.strip("`'\"()[]{},;")
    tok = tok.rstrip(".:")
    if "=" in tok:  # --cpp=build/..., MCPCXX_EXAMPLE_SERVER=build/...
        tok = tok.rsplit("=", 1)[1]
    tok = re.sub(r"#.*$", "", tok)  # an anchor
    tok = re.sub(r":\d+(-\d+)?$", "", tok)  # file:line
    return tok.removeprefix("./")


def is_repo_path(tok: str) -> bool:
    """True when `tok` starts with one of the repository's own folders or is a root file."""
    first = tok.split("/", 1)[0]
    return (first in TOP_LEVEL and "/" in tok) or tok in ROOT_FILES


@dataclass
class Checker:
    """Checks the references of Markdown files against one repository."""

    root: Path
    targets: Targets
    metrics: set[str]
    problems: list[Problem] = field(default_factory=list)

    def report(self, where: str, message: str) -> None:
        """Records a problem once."""
        problem = Problem(where, message)
        if problem not in self.problems:
            self.problems.append(problem)

    def check_path(self, where: str, tok: str) -> None:
        """Checks a code token that may be a path (anything else is ignored)."""
        if "://" in tok or tok.startswith(("/", "~", "$", "-", "../")):
            return
        if tok.startswith("build/"):
            self.check_build_path(where, tok)
            return
        if is_repo_path(tok):
            if not exists(self.root, tok) and not self.is_output(tok):
                self.report(
                    where,
                    f"`{tok}` does not exist: fix the path (was it moved or renamed?) "
                    "or drop the reference",
                )
            return
        if "/" in tok and SOURCE_EXT.search(tok) and not tok.startswith("."):
            if self.is_output(tok):
                return
            if not any(exists(self.root, f"{b}/{tok}" if b else tok) for b in BASES):
                self.report(
                    where,
                    f"`{tok}` does not exist under the repository, cpp/src, cpp/include, cpp or "
                    "python: write the path from the repository root, fix it, or drop it",
                )

    def is_output(self, tok: str) -> bool:
        """A file the build writes (configure_file) or one .gitignore ignores (a tool's output)."""
        if any(tok == g or tok.endswith("/" + g) for g in self.targets.generated):
            return True
        if any(c in tok for c in "*?[<"):
            return False
        # A path that does not exist yet cannot show git it is a folder, and a pattern such as
        # ".build/" matches folders only: ask for the folder form too.
        return any(
            subprocess.run(
                ["git", "-C", str(self.root), "check-ignore", "-q", "--no-index", candidate],
                capture_output=True,
                check=False,
            ).returncode
            == 0
            for candidate in (tok, tok.rstrip("/") + "/")
        )

    def check_build_path(self, where: str, tok: str) -> None:
        """build/<dir>/<folder>/<target>: the folder must exist and build that target."""
        parts = tok.split("/")
        rest = "/".join(parts[2:])  # build/<dir>/<source-relative path>
        if not rest or rest.split("/", 1)[0] not in (*TOP_LEVEL, "") or "/" not in rest:
            if len(parts) == 3 and TARGET_NAME.fullmatch(parts[2]):
                self.check_target(where, parts[2], in_folder="")
            return
        folder, name = rest.rsplit("/", 1)
        if not exists(self.root, folder):
            self.report(
                where, f"`{tok}`: no source folder `{folder}` builds into it: fix the build path"
            )
            return
        if TARGET_NAME.fullmatch(name) or name == "_core":
            self.check_target(where, name, in_folder=folder)

    def check_target(self, where: str, name: str, in_folder: str | None = None) -> None:
        """`name` must be a CMake target (or a metric); built in `in_folder` when given."""
        if name in BUILTIN_TARGETS or name.startswith("-"):
            return
        if name not in self.targets.names:
            if name in self.metrics:
                return
            self.report(
                where,
                f"CMake target `{name}` is not defined by any CMakeLists.txt or *.cmake: use the "
                "target's current name or drop the reference",
            )
            return
        defined_in = self.targets.folder.get(name)
        if in_folder is not None and defined_in is not None and defined_in != in_folder:
            self.report(
                where,
                f"`{name}` is built in `{defined_in}`, not `{in_folder}`: write "
                f"build/<dir>/{defined_in}/{name}".replace("//", "/"),
            )

    def check_file(self, md: Path) -> None:
        """Checks every reference of one Markdown file."""
        rel = md.relative_to(self.root).as_posix() if md.is_relative_to(self.root) else str(md)
        lines = md.read_text(encoding="utf-8").splitlines()
        fence: str | None = None  # the info string of the open fenced block
        fence_start = 0
        snippet: tuple[str, int] | None = None  # (path, line) of a pending snippet marker
        block: list[str] = []
        table_target_column = False
        for n, line in enumerate(lines, 1):
            where = f"{rel}:{n}"
            stripped = line.strip()
            m = re.match(r"^(```+|~~~+)\s*(\S*)", stripped)
            if m:
                if fence is None:
                    fence, fence_start, block = m.group(2).lower(), n, []
                    continue
                if snippet is not None:
                    self.check_snippet(f"{rel}:{fence_start}", snippet[0], block)
                    snippet = None
                fence = None
                continue
            if fence is not None:
                block.append(line)
                self.check_code(where, line, cmake=fence == "cmake", target_line=False)
                continue
            s = re.match(r"^<!--\s*snippet:\s*(\S+)\s*-->$", stripped)
            if s:
                snippet = (s.group(1), n)
                if not (self.root / s.group(1)).is_file():
                    self.report(where, f"snippet file `{s.group(1)}` does not exist")
                continue
            if stripped.startswith("|"):
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                if n == 1 or not lines[n - 2].strip().startswith("|"):
                    table_target_column = cells[0].lower() in ("target", "targets")
            else:
                table_target_column = False
            for link in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                self.check_link(where, md, link)
            target_line = bool(re.search(r"\btargets?\b", line, re.I))
            for span in re.findall(r"`([^`]+)`", line):
                first_cell = table_target_column and stripped.startswith(f"| `{span}`")
                self.check_code(where, span, cmake=first_cell, target_line=target_line)
            outside = re.sub(r"`[^`]+`", " ", line)
            for name in TARGET_NAME.findall(outside):
                self.check_target(where, name)
        if snippet is not None:
            self.report(f"{rel}:{snippet[1]}", "a snippet marker must precede a fenced code block")

    def check_link(self, where: str, md: Path, link: str) -> None:
        """A relative link target must exist (relative to the linking file)."""
        if re.match(r"^[a-z][a-z0-9+.-]*:", link) or link.startswith("#"):
            return
        target = link.split("#", 1)[0]
        if not target:
            return
        resolved = (md.parent / target).resolve()
        if not resolved.exists():
            self.report(where, f"link target `{link}` does not exist: fix the link or drop it")

    def check_code(self, where: str, code: str, cmake: bool, target_line: bool) -> None:
        """Checks the tokens of an inline code span or a code block line."""
        tokens = code.split()
        skip = 0
        for i, raw in enumerate(tokens):
            if skip:
                skip -= 1
                continue
            if raw == "--target":
                for name in tokens[i + 1 :]:
                    if name.startswith("-") or name in ("&&", "||", ";", "|", "\\"):
                        break
                    self.check_target(where, clean_token(name))
                    skip += 1
                continue
            tok = clean_token(raw)
            if not tok:
                continue
            namespaced = NAMESPACED_TARGET.fullmatch(tok) and (cmake or target_line)
            if TARGET_NAME.fullmatch(tok) or namespaced:
                self.check_target(where, tok)
            else:
                self.check_path(where, tok)

    def check_snippet(self, where: str, path: str, block: list[str]) -> None:
        """A code block announced by `<!-- snippet: path -->` must equal that file."""
        f = self.root / path
        if not f.is_file():
            return
        want = f.read_text(encoding="utf-8").rstrip("\n").splitlines()
        if block != want:
            self.report(
                where,
                f"this code block differs from `{path}`: make them identical (the file is "
                "compiled and run in CI; copy it into the block)",
            )


def main(argv: list[str] | None = None) -> int:
    """Checks the files; prints one line per problem to stderr; 0 when there is none."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    files = [f.resolve() for f in args.files] or [
        root / "README.md",
        *sorted((root / "docs").glob("*.md")),
    ]
    checker = Checker(root, cmake_targets(root), metric_names(root))
    for f in files:
        checker.check_file(f)
    for p in checker.problems:
        print(f"{p.where}: {p.message}", file=sys.stderr)
    if checker.problems:
        print(
            f"check_docs_paths: {len(checker.problems)} reference(s) to missing paths or targets "
            f"in {len(files)} file(s)",
            file=sys.stderr,
        )
        return 1
    print(f"check_docs_paths: every path and CMake target named in {len(files)} file(s) exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
