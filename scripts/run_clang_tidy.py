"""Runs clang-tidy (.clang-tidy) over the given sources in parallel, with a result cache.

Usage: python3 scripts/run_clang_tidy.py [-j N] [--like FILE=REF]... [--command FILE=CMD]...
                                         BUILD_DIR BASELINE FILE...

A file's compile command comes from BUILD_DIR/compile_commands.json. A source no CMake target of
that tree builds gets one with --like FILE=REF (REF's command, for a file built the same way in a
tree we do not configure here, e.g. the fuzz harnesses or the consumer test) or --command
FILE=CMD (the compiler line a script uses, e.g. bench/http_load/run.sh).

A file's result is cached under $MCPCXX_TIDY_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/
mcpcxx-clang-tidy), keyed by the clang-tidy version, the .clang-tidy files that apply to it and the
file's preprocessed text (without line markers, so the same source in another checkout hits): an
unchanged file is not analysed twice on one machine, and a CI machine with a warm home directory
runs only what changed. Failed clang-tidy runs are never cached.

With --group N, files of one CMake target built with the same compiler line are analysed N at a
time, as one translation unit that includes them (the way CMake's unity build compiles them): the headers they
share (nlohmann/json, the standard library, GoogleTest) are parsed and matched once per group
instead of once per file, which is most of clang-tidy's time. A finding still names the file and
line it is in; the filter that reports findings in included files covers every source folder.
The sources must not collide when combined (no two files of a target define the same name in an
anonymous namespace); the unity build of CI checks the same thing.

Findings are compared with BASELINE (one `path: [check] message` a line; kept empty: fix a
finding instead of listing it): a finding not in the baseline fails the run, and so does a
baseline line that no longer occurs (delete it).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FINDING = re.compile(
    r"^(?P<path>[^:\s]+):\d+:\d+: (?:warning|error): (?P<msg>.*) \[(?P<check>[^\]]+)\]$"
)


def compiler_args(entry: dict[str, str]) -> list[str]:
    """The entry's compiler line without its output, dependency-file and source arguments."""
    out, skip = [], False
    for a in shlex.split(entry["command"]):
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("ccache", "-c", "-MD", "-MMD", entry["file"]):
            out.append(a)
    return out


def preprocess(entry: dict[str, str]) -> bytes:
    """The translation unit after preprocessing, which decides what clang-tidy sees."""
    r = subprocess.run(
        [*compiler_args(entry), "-E", "-P", entry["file"]],
        cwd=entry["directory"],
        capture_output=True,
        check=False,
    )
    return r.stdout + r.stderr


def findings_of(text: str) -> list[str]:
    """`path: [check] message` for each diagnostic, paths relative to the repository."""
    out = []
    for line in text.splitlines():
        m = FINDING.match(line.strip())
        if m:
            path = os.path.relpath(m["path"], ROOT)
            out.append(f"{path}: [{m['check'].replace(',-warnings-as-errors', '')}] {m['msg']}")
    return out


# Every folder with sources: in a group, each source is an included file, so its findings pass
# through the header filter; the folders' own .clang-tidy files differ only in this filter.
GROUP_FILTER = "(cpp/include|cpp/src|tests|bench|examples|python/bindings)/.*"


def tidy(build: Path, entry: dict[str, str], salt: bytes, cache: Path) -> list[str]:
    """Findings for one file or group, from the cache or from a clang-tidy run."""
    key = hashlib.sha256(salt + preprocess(entry)).hexdigest()
    hit = cache / key
    if hit.is_file():
        return list(json.loads(hit.read_text()))
    cmd = ["clang-tidy", "--quiet", entry["file"]]
    if entry.get("group"):
        # The group file includes .cpp files on purpose.
        cmd += [
            f"--config-file={ROOT / '.clang-tidy'}",
            f"--header-filter={GROUP_FILTER}",
            "--checks=-bugprone-suspicious-include",
        ]
    if entry.get("synthetic") or entry.get("group"):
        cmd += ["--", *compiler_args(entry)[1:]]
    else:
        cmd[1:1] = ["-p", str(build)]
    r = subprocess.run(cmd, cwd=entry["directory"], capture_output=True, text=True, check=False)
    found = findings_of(r.stdout + r.stderr)
    if r.returncode != 0 and not found:
        where = os.path.relpath(entry["file"], ROOT)
        return [f"{where}: [clang-tidy] failed: {r.stderr[-500:]}"]
    tmp = hit.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(found))
    tmp.replace(hit)  # atomic, so a concurrent run never reads half a result
    return found


def parse_args() -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("-j", type=int, default=int(os.environ.get("MCPCXX_JOBS", os.cpu_count() or 2)))
    p.add_argument("--like", action="append", default=[], metavar="FILE=REF")
    p.add_argument("--command", action="append", default=[], metavar="FILE=CMD")
    p.add_argument("--group", type=int, default=1, metavar="N")
    p.add_argument("build", type=Path)
    p.add_argument("baseline", type=Path)
    p.add_argument("files", nargs="+")
    return p.parse_args()


def key_of(path: str) -> str:
    """The compile database's key for a path: absolute, links resolved."""
    return str(Path(path).resolve())


def compile_db(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    """Every file's compile command: the build tree's, then the --like and --command ones."""
    db = {
        key_of(e["file"]): e for e in json.loads((args.build / "compile_commands.json").read_text())
    }
    for spec in args.like:
        file, ref = spec.split("=", 1)
        base = db[key_of(ref)]
        command = base["command"].replace(base["file"], key_of(file))
        db[key_of(file)] = {**base, "file": key_of(file), "command": command, "synthetic": "1"}
    for spec in args.command:
        file, cmd = spec.split("=", 1)
        db[key_of(file)] = {
            "directory": str(ROOT),
            "file": key_of(file),
            "command": f"{cmd} -c {shlex.quote(key_of(file))}",
            "synthetic": "1",
        }
    return db


def configs_of(file: str) -> bytes:
    """The .clang-tidy files that apply to `file` (the root's, then each folder's), concatenated."""
    path = Path(key_of(file))
    if not path.is_relative_to(ROOT):  # a group's file: the root's config (see GROUP_FILTER)
        return (ROOT / ".clang-tidy").read_bytes()
    folders = reversed(path.relative_to(ROOT).parents)
    configs = [ROOT / d / ".clang-tidy" for d in folders]
    return b"".join(c.read_bytes() for c in configs if c.is_file())


def family_of(entry: dict[str, str]) -> str:
    """What sources must share to be grouped: the CMake target and the compiler line.

    One target, because two programs each have a main() (and their own helpers); the target is
    the CMakeFiles/<target>.dir folder of the object file. A source with a borrowed or given
    command (--like, --command) is never grouped.
    """
    if entry.get("synthetic"):
        return "synthetic\0" + entry["file"]
    words = shlex.split(entry["command"])
    output = words[words.index("-o") + 1] if "-o" in words else entry["file"]
    target = next((p for p in Path(output).parts if p.endswith(".dir")), entry["file"])
    return "\0".join([target, shlex.join(compiler_args(entry)), entry["directory"]])


def units(args: argparse.Namespace, db: dict[str, dict[str, str]]) -> list[dict[str, str]]:
    """What clang-tidy runs on: each file alone, or (--group N) groups of N files with one line."""
    if args.group <= 1:
        return [db[key_of(f)] for f in args.files]
    families: dict[str, list[str]] = {}
    for f in sorted(args.files):
        families.setdefault(family_of(db[key_of(f)]), []).append(key_of(f))
    out_dir = args.build.resolve() / "tidy-groups"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for members in families.values():
        for i in range(0, len(members), args.group):
            chunk = members[i : i + args.group]
            if len(chunk) == 1:
                out.append(db[chunk[0]])
                continue
            text = "".join(f'#include "{m}"\n' for m in chunk)
            unit = out_dir / f"group-{hashlib.sha256(text.encode()).hexdigest()[:16]}.cpp"
            unit.write_text(text)
            base = db[chunk[0]]
            command = base["command"].replace(base["file"], str(unit))
            out.append({**base, "file": str(unit), "command": command, "group": "1"})
    return out


def cache_dir() -> Path:
    """Where results are cached (see the module docstring)."""
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("MCPCXX_TIDY_CACHE", Path(xdg) / "mcpcxx-clang-tidy"))


def main() -> int:
    """Runs clang-tidy over the files; non-zero on a finding not in the baseline."""
    args = parse_args()
    db = compile_db(args)
    missing = [f for f in args.files if key_of(f) not in db]
    if missing:
        print(
            f"clang-tidy: no compile command (pass --like or --command): {missing}", file=sys.stderr
        )
        return 1
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    todo = units(args, db)
    group_salt = GROUP_FILTER.encode() if args.group > 1 else b""
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        results = pool.map(
            lambda e: tidy(args.build, e, version + group_salt + configs_of(e["file"]), cache),
            todo,
        )
        found = {line for lines in results for line in lines}
    baseline = {
        line.strip()
        for line in args.baseline.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    new = sorted(found - baseline)
    gone = sorted(baseline - found)
    for line in new:
        print(f"clang-tidy: NEW {line}", file=sys.stderr)
    for line in gone:
        print(f"clang-tidy: FIXED, delete from {args.baseline}: {line}", file=sys.stderr)
    known = len(found & baseline)
    print(
        f"clang-tidy: {len(args.files)} files in {len(todo)} runs, {len(found)} findings"
        f" ({known} in the baseline)"
    )
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
