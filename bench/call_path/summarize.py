#!/usr/bin/env python3
"""List the mcpcxx sources with executed lines in a coverage run (scripts/call_path_files.sh).

Runs gcov on every .gcda file under the library's object folder (the probe's own object is not
in it), merges the line counts of all translation units per source file (an inline function of a
header executed from two .cpp files counts once per line), and prints:

  * every cpp/src/**/*.cpp with at least one executed line, with its number of executed lines
    (distinct source lines whose count is above zero), then their total;
  * the same for the headers of cpp/src and cpp/include (and the generated version.hpp);
  * one line counting the third-party and system headers (nlohmann_json, the standard library)
    that ran, which are not listed.

Paths are resolved with realpath, so a header reached through the build tree's layer include
roots (symbolic links into cpp/src) is reported under its cpp/src path.
"""

import argparse
import json
import os
import subprocess
import sys


def gcov_json(gcov: str, gcda: str) -> dict:
    """Return the JSON intermediate format gcov writes for one .gcda file, parsed."""
    proc = subprocess.run(
        [gcov, "--json-format", "--stdout", gcda],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(gcda),
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"summarize.py: {gcov} failed on {gcda}:\n{proc.stderr}")
    # gcov complains on stderr about a missing notes file but still exits 0: treat it as fatal.
    if "cannot open" in proc.stderr:
        sys.exit(f"summarize.py: {gcov} could not read the data of {gcda}:\n{proc.stderr}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        sys.exit(f"summarize.py: {gcov} printed no JSON for {gcda}: {e}")


def main() -> None:
    """Print the executed sources of the library's coverage data."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--objects",
        required=True,
        help="folder holding the library's object, .gcno and .gcda files",
    )
    ap.add_argument("--src-root", required=True, help="the measured mcpcxx source tree")
    ap.add_argument("--generated", help="folder of generated headers (reported as such)")
    ap.add_argument("--gcov", default="gcov")
    ap.add_argument(
        "--allow-empty",
        action="store_true",
        help="no executed .cpp file is a result, not an error (the --idle run)",
    )
    args = ap.parse_args()

    src_root = os.path.realpath(args.src_root)
    src_dir = os.path.join(src_root, "cpp", "src") + os.sep
    include_dir = os.path.join(src_root, "cpp", "include") + os.sep
    generated = os.path.realpath(args.generated) + os.sep if args.generated else None

    gcdas = []
    for folder, _, names in os.walk(args.objects):
        gcdas.extend(os.path.join(folder, n) for n in names if n.endswith(".gcda"))
    if not gcdas:
        sys.exit(f"summarize.py: no .gcda file under {args.objects}: the probe dumped nothing")

    executed = {}  # realpath -> set of executed line numbers
    seen_sources = 0
    for gcda in sorted(gcdas):
        data = gcov_json(args.gcov, gcda)
        cwd = data.get("current_working_directory", os.path.dirname(gcda))
        for f in data.get("files", []):
            path = os.path.realpath(os.path.join(cwd, f["file"]))
            seen_sources += 1
            lines = {ln["line_number"] for ln in f.get("lines", []) if ln.get("count", 0) > 0}
            if lines:
                executed.setdefault(path, set()).update(lines)
    if seen_sources == 0:
        sys.exit(
            "summarize.py: gcov reported no source file at all; were the objects built "
            "with --coverage by the same gcc as this gcov?"
        )

    cpp, headers, others = [], [], []
    for path, lines in executed.items():
        if path.startswith(src_dir) and path.endswith(".cpp"):
            cpp.append((os.path.relpath(path, src_root), len(lines)))
        elif path.startswith((src_dir, include_dir)):
            headers.append((os.path.relpath(path, src_root), len(lines)))
        elif generated and path.startswith(generated):
            headers.append(("(generated) " + os.path.relpath(path, generated), len(lines)))
        else:
            others.append(path)
    cpp.sort()
    headers.sort()

    width = max([len(p) for p, _ in cpp + headers] + [10])
    print(
        f"# .cpp files of cpp/src with executed lines during the measured call "
        f"(source tree {src_root})"
    )
    for path, n in cpp:
        print(f"{path:<{width}} {n:>5}")
    print(f"# total: {len(cpp)} .cpp files, {sum(n for _, n in cpp)} executed lines")
    print(
        "# headers of cpp/src and cpp/include with executed lines (their inline code, from any "
        "library .cpp)"
    )
    for path, n in headers:
        print(f"{path:<{width}} {n:>5}")
    print(f"# total: {len(headers)} headers, {sum(n for _, n in headers)} executed lines")
    print(
        f"# not listed: {len(others)} third-party and system headers with executed lines "
        "(nlohmann_json, asio, the standard library)"
    )
    if not cpp and not args.allow_empty:
        sys.exit(
            "summarize.py: no cpp/src .cpp file executed a line: the measurement is empty "
            "(was the call made between __gcov_reset and __gcov_dump?)"
        )


if __name__ == "__main__":
    main()
