"""Checks that the build enforces the layers (cpp/CMakeLists.txt, cmake/layers.cmake).

Usage: python3 scripts/check_layers.py BUILD_DIR   (a configured build with compile_commands.json)

1. For each layer, preprocesses a probe that includes a higher layer's header with that layer's own
   compile command; every probe must FAIL, and a probe of an allowed lower header must compile.
2. The layers below the transports and every public header include no asio, llhttp or pybind11
   (system headers are always reachable, so this part is a text check).
Exits non-zero and names each broken rule.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "cpp" / "src"

# (a source of the layer, a header it may include, headers it must not reach)
PROBES = [
    ("errors/errors.cpp", "mcpcxx/errors.hpp", ["jsonrpc/scan.hpp", "mcpcxx/server.hpp"]),
    ("jsonrpc/parse.cpp", "mcpcxx/errors.hpp", ["engine/era.hpp", "mcpcxx/server.hpp"]),
    ("schema/api.cpp", "mcpcxx/json.hpp", ["engine/era.hpp", "jsonrpc/scan.hpp"]),
    (
        "engine/era.cpp",
        "jsonrpc/scan.hpp",
        [
            "transport/stdio_fds.hpp",
            "transport/http/wire.hpp",
            "mcpcxx/http.hpp",
            "mcpcxx/stdio.hpp",
        ],
    ),
    ("transport/stdio_fds.cpp", "engine/era.hpp", ["transport/http/wire.hpp", "mcpcxx/http.hpp"]),
    ("transport/http/wire.cpp", "engine/era.hpp", ["transport/stdio_fds.hpp", "mcpcxx/stdio.hpp"]),
]
WIRE_PROBE = ("wire", "mcpcxx/errors.hpp", ["jsonrpc/scan.hpp", "engine/era.hpp"])
LOW_LAYERS = ["errors", "wire", "jsonrpc", "schema", "engine", "model"]
FOREIGN = re.compile(r'#\s*include\s*[<"](asio|llhttp|pybind11)')


def probe_compiles(entry: dict[str, str], header: str) -> tuple[bool, str]:
    """Preprocesses `#include "header"` beside the entry's source with the entry's flags."""
    source = Path(entry["file"])
    probe = source.parent / "layer_probe.cpp"
    args = shlex.split(entry["command"])
    args = [a for a in args if a != "ccache"]
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a == entry["file"]:
            continue
        out.append(a)
    probe.write_text(f'#include "{header}"\n')
    try:
        r = subprocess.run(
            [*out, "-E", "-o", "/dev/null", str(probe)],
            cwd=entry["directory"],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        probe.unlink()
    return r.returncode == 0, r.stderr.strip()


def main() -> int:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build/ci")
    db = json.loads((build / "compile_commands.json").read_text())
    by_file = {str(Path(e["file"]).resolve()): e for e in db}
    probes = list(PROBES)
    wire_sources = sorted((SRC / "wire").glob("*.cpp")) if (SRC / "wire").is_dir() else []
    if wire_sources:
        probes.append((str(wire_sources[0].relative_to(SRC)), *WIRE_PROBE[1:]))
    failures = []
    for rel, allowed, forbidden in probes:
        entry = by_file.get(str((SRC / rel).resolve()))
        if entry is None:
            failures.append(f"{rel}: not in {build}/compile_commands.json")
            continue
        ok, err = probe_compiles(entry, allowed)
        if not ok:
            failures.append(f"{rel}: may include {allowed} but the probe failed: {err[-300:]}")
        for header in forbidden:
            ok, _ = probe_compiles(entry, header)
            if ok:
                failures.append(
                    f"{rel}: reached higher-layer header {header}; the layer rule leaks"
                )
    for layer in LOW_LAYERS:
        for path in sorted((SRC / layer).rglob("*.[ch]pp")) if (SRC / layer).is_dir() else []:
            if FOREIGN.search(path.read_text()):
                failures.append(f"{path.relative_to(ROOT)}: includes asio/llhttp/pybind11")
    for path in sorted((ROOT / "cpp" / "include").rglob("*.hpp")):
        if FOREIGN.search(path.read_text()):
            failures.append(
                f"{path.relative_to(ROOT)}: a public header includes asio/llhttp/pybind11"
            )
    for f in failures:
        print(f"check-layers: {f}", file=sys.stderr)
    print(f"check-layers: {len(probes)} layers probed, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
