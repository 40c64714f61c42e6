"""Runs clang-tidy (.clang-tidy) over the given sources in parallel, with a result cache.

Usage: python3 scripts/run_clang_tidy.py BUILD_DIR BASELINE FILE...

A file's result is cached under $MCPCXX_TIDY_CACHE (default ~/.cache/mcpcxx-clang-tidy), keyed by
the clang-tidy version, .clang-tidy and the file's preprocessed text (without line markers, so
the same source in another checkout hits), so an unchanged file is not analysed twice on one
machine. Findings are compared with BASELINE (one `path: [check] message` a
line, the debt known when the check was extended, each to be fixed by its owner): a finding not in
the baseline fails the run, and so does a baseline line that no longer occurs (delete it).
"""

from __future__ import annotations

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


def preprocess(entry: dict[str, str]) -> bytes:
    """The translation unit after preprocessing, which decides what clang-tidy sees."""
    args = [a for a in shlex.split(entry["command"]) if a != "ccache"]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    r = subprocess.run([*out, "-E", "-P"], cwd=entry["directory"], capture_output=True, check=False)
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


def tidy(build: Path, entry: dict[str, str], salt: bytes, cache: Path) -> list[str]:
    """Findings for one file, from the cache or from a clang-tidy run."""
    key = hashlib.sha256(salt + preprocess(entry)).hexdigest()
    hit = cache / key
    if hit.is_file():
        return json.loads(hit.read_text())
    r = subprocess.run(
        ["clang-tidy", "-p", str(build), "--quiet", entry["file"]],
        capture_output=True,
        text=True,
        check=False,
    )
    found = findings_of(r.stdout + r.stderr)
    if r.returncode != 0 and not found:
        found = [f"{os.path.relpath(entry['file'], ROOT)}: [clang-tidy] failed: {r.stderr[-500:]}"]
    hit.write_text(json.dumps(found))
    return found


def main() -> int:
    build, baseline_path, files = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    db = {
        str(Path(e["file"]).resolve()): e
        for e in json.loads((build / "compile_commands.json").read_text())
    }
    missing = [f for f in files if str(Path(f).resolve()) not in db]
    if missing:
        print(f"clang-tidy: not in {build}/compile_commands.json: {missing}", file=sys.stderr)
        return 1
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
    salt = version + (ROOT / ".clang-tidy").read_bytes()
    cache = Path(os.environ.get("MCPCXX_TIDY_CACHE", Path.home() / ".cache" / "mcpcxx-clang-tidy"))
    cache.mkdir(parents=True, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(
        int(os.environ.get("MCPCXX_JOBS", os.cpu_count() or 2))
    ) as pool:
        results = pool.map(lambda f: tidy(build, db[str(Path(f).resolve())], salt, cache), files)
        found = {line for lines in results for line in lines}
    baseline = {
        line.strip()
        for line in baseline_path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    new = sorted(found - baseline)
    gone = sorted(baseline - found)
    for line in new:
        print(f"clang-tidy: NEW {line}", file=sys.stderr)
    for line in gone:
        print(f"clang-tidy: FIXED, delete from {baseline_path}: {line}", file=sys.stderr)
    print(
        f"clang-tidy: {len(files)} files, {len(found)} findings ({len(found & baseline)} in the baseline)"
    )
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
