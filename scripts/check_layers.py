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

# (the layer's sources, a place it may include from, places it must not reach). A place is a
# folder of cpp/src (its first header is probed) or a public header.
PROBES = [
    (
        "errors/*.cpp",
        "mcpcxx/errors.hpp",
        ["jsonrpc", "core", "engine", "mcpcxx/context.hpp", "mcpcxx/server.hpp"],
    ),
    ("wire/*.cpp", "mcpcxx/errors.hpp", ["jsonrpc", "core", "mcpcxx/server.hpp"]),
    ("jsonrpc/*.cpp", "mcpcxx/errors.hpp", ["core", "mcpcxx/server.hpp"]),
    ("schema/*.cpp", "mcpcxx/json.hpp", ["core", "jsonrpc", "mcpcxx/errors.hpp"]),
    ("state/*.cpp", "mcpcxx/json.hpp", ["core", "jsonrpc", "wire", "mcpcxx/server.hpp"]),
    # The Redis client sees nothing of the engine (nor any public header).
    (
        "redis/*.cpp",
        "redis",
        [
            "errors",
            "core",
            "store",
            "engine",
            "transport/http",
            "mcpcxx/json.hpp",
            "mcpcxx/server.hpp",
        ],
    ),
    # The engine's layers: the core sees no feature, a feature no later one, and only the
    # engine (the assembly) sees them all.
    ("observability/*.cpp", "mcpcxx/server.hpp", ["registry", "core", "tasks", "engine"]),
    ("registry/*.cpp", "schema", ["observability", "core", "methods", "tasks", "engine"]),
    ("core/*.cpp", "registry", ["methods", "tasks", "listen", "asking", "store", "engine"]),
    ("methods/*.cpp", "core", ["tasks", "listen", "asking", "engine"]),
    ("tasks/*.cpp", "methods", ["listen", "asking", "store", "engine"]),
    ("listen/*.cpp", "tasks", ["asking", "engine"]),
    ("asking/*.cpp", "core", ["methods", "tasks", "listen", "engine"]),
    ("skills/*.cpp", "core", ["methods", "tasks", "listen", "asking", "engine"]),
    ("middleware/*.cpp", "methods", ["tasks", "listen", "asking", "store", "engine"]),
    # The Redis stores: the core's seams on the Redis client; no feature, no engine, no transport.
    (
        "store/*.cpp",
        "redis",
        ["methods", "tasks", "listen", "asking", "engine", "transport/http", "mcpcxx/http.hpp"],
    ),
    ("engine/*.cpp", "listen", ["transport/stdio_*", "transport/http", "mcpcxx/http.hpp"]),
    # The MCP Apps helpers use the public API only.
    ("apps/*.cpp", "mcpcxx/server.hpp", ["registry", "core", "engine", "mcpcxx/http.hpp"]),
    ("transport/stdio_*.cpp", "engine", ["transport/http", "mcpcxx/http.hpp"]),
    ("transport/http/*.cpp", "engine", ["transport/stdio_*", "mcpcxx/stdio.hpp"]),
    (
        "../../python/bindings/*.cpp",
        "mcpcxx/server.hpp",
        ["core", "engine", "transport/http", "jsonrpc"],
    ),
]
ENGINE_LAYERS = [
    "observability",
    "registry",
    "core",
    "methods",
    "tasks",
    "listen",
    "asking",
    "skills",
    "middleware",
    "engine",
    "apps",
]
LOW_LAYERS = [
    "errors",
    "wire",
    "jsonrpc",
    "schema",
    "state",
    "redis",
    "model",
    "store",
    *ENGINE_LAYERS,
]
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


def header_of(place: str) -> str:
    """The include spelling of a place: a public header as is, else a header of the folder."""
    if place.startswith("mcpcxx/"):
        return place
    pattern = f"{place}.hpp" if place.endswith("*") else f"{place}/*.hpp"
    found = sorted(SRC.glob(pattern))
    return str(found[0].relative_to(SRC)) if found else ""


def main() -> int:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else "build/ci")
    db = json.loads((build / "compile_commands.json").read_text())
    by_file = {str(Path(e["file"]).resolve()): e for e in db}
    failures = []
    probed = 0
    for sources, allowed, forbidden in PROBES:
        entries = [
            by_file[str(p.resolve())]
            for p in sorted(SRC.glob(sources))
            if str(p.resolve()) in by_file
        ]
        if not entries:
            # The wire layer may not exist yet; the bindings only in a Python-enabled build.
            if not sources.startswith(("../", "wire/")):
                failures.append(f"{sources}: no source of this layer in {build}")
            continue
        probed += 1
        header = header_of(allowed)
        ok, err = probe_compiles(entries[0], header)
        if not ok:
            failures.append(f"{sources}: may include {header} but the probe failed: {err[-300:]}")
        for place in forbidden:
            header = header_of(place)
            if header and probe_compiles(entries[0], header)[0]:
                failures.append(f"{sources}: reached {header} of a higher layer; the rule leaks")
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
    print(f"check-layers: {probed} layers probed, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
