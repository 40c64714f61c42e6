"""The servers of bench/peers: their pinned versions, how each is built or installed, and how
each is started over stdio and over HTTP."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(HERE, ".build")
PINS = {
    "mcp": "2.3.0",
    "fastmcp": "4.2.3",
    "uvicorn": "0.55.0",
    "@modelcontextprotocol/sdk": "1.32.2",
    "go-sdk": "v1.8.0",
    "rmcp": "3.11.0",
}
LEGACY_VERSION = "2025-11-25"
ECHO_TEXT = "hello world"
KINDS = ("echo", "fail", "bad_args", "unknown")


@dataclass
class Peer:
    """One server under test: how to start it over stdio and over HTTP, and its tool names."""

    name: str
    stdio: list[str] | None
    http_legacy: list[str] | None = None  # {port} is replaced
    http_modern: list[str] | None = None
    env: dict[str, str] = field(default_factory=dict)
    http_env: dict[str, str] = field(default_factory=dict)  # added for HTTP; {port} is replaced
    fail_call: tuple[str, dict[str, Any]] = ("fail", {"text": ECHO_TEXT})


def sh(cmd: list[str], cwd: str = HERE, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, check=True, env={**os.environ, **(env or {})})


Samples = dict[str, dict[str, list[float]]]
"""Per server name, per measure key, one figure per repetition (or per spawn)."""


# ---------------------------------------------------------------- build / install


def venv(name: str, packages: list[str]) -> str:
    path = os.path.join(BUILD, name)
    py = os.path.join(path, "bin", "python")
    if not os.path.exists(py):
        sh([sys.executable, "-m", "venv", path])
    sh([py, "-m", "pip", "install", "-q", *packages])
    return py


def build_all(mcpcxx_build: str) -> dict[str, str]:
    """Builds or installs every peer; returns the paths the server commands need."""
    os.makedirs(BUILD, exist_ok=True)
    paths: dict[str, str] = {}
    paths["py_mcp"] = venv("venv-mcp", [f"mcp=={PINS['mcp']}", f"uvicorn=={PINS['uvicorn']}"])
    paths["py_fastmcp"] = venv("venv-fastmcp", [f"fastmcp=={PINS['fastmcp']}"])
    sh(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=os.path.join(HERE, "ts"))
    sh(
        ["go", "build", "-o", os.path.join(BUILD, "go", "peer-go"), "."],
        cwd=os.path.join(HERE, "go"),
    )
    rust_target = os.path.join(BUILD, "rust")
    sh(
        ["cargo", "build", "--release", "--locked", "-q"],
        cwd=os.path.join(HERE, "rust"),
        env={"CARGO_TARGET_DIR": rust_target},
    )
    paths["rmcp"] = os.path.join(rust_target, "release", "peer-rmcp")
    paths["go"] = os.path.join(BUILD, "go", "peer-go")
    flags = ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror"]
    os.makedirs(os.path.join(BUILD, "floor"), exist_ok=True)
    paths["floor"] = os.path.join(BUILD, "floor", "floor")
    sh(["g++", *flags, "-o", paths["floor"], os.path.join(HERE, "floor", "floor.cpp")])
    paths["load"] = os.path.join(BUILD, "http-load")
    sh(
        [
            "g++",
            "-std=c++20",
            "-O2",
            "-pthread",
            "-o",
            paths["load"],
            os.path.join(ROOT, "bench", "http_load", "load.cpp"),
        ]
    )
    paths["stdio_load"] = os.path.join(BUILD, "stdio-load")
    sh(
        [
            "g++",
            "-std=c++20",
            "-O2",
            "-o",
            paths["stdio_load"],
            os.path.join(ROOT, "bench", "stdio_load.cpp"),
        ]
    )
    sh(
        ["cmake", "--build", mcpcxx_build, "-j2", "--target", "mcpcxx_example_server", "_core"],
        cwd=ROOT,
    )
    paths["mcpcxx_cpp"] = os.path.join(
        mcpcxx_build, "tests", "fixtures", "cpp", "mcpcxx_example_server"
    )
    paths["mcpcxx_pkg"] = stage_mcpcxx_package(mcpcxx_build)
    return paths


def stage_mcpcxx_package(mcpcxx_build: str) -> str:
    """Links python/mcpcxx and the freshly built _core module into one importable package."""
    stage = os.path.join(BUILD, "mcpcxx-pkg")
    pkg = os.path.join(stage, "mcpcxx")
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(pkg)
    src = os.path.join(ROOT, "python", "mcpcxx")
    built = os.path.join(mcpcxx_build, "python", "bindings", "pkg", "mcpcxx")
    # The freshly built module first: a checkout may hold a developer's own _core link too.
    for d in (built, src):
        for name in os.listdir(d):
            if name != "__pycache__" and not os.path.lexists(os.path.join(pkg, name)):
                os.symlink(os.path.join(d, name), os.path.join(pkg, name))
    return stage


PATH_KEYS = ("py_mcp", "py_fastmcp", "rmcp", "go", "floor", "mcpcxx_cpp", "mcpcxx_pkg")


def peers(p: dict[str, str]) -> list[Peer]:
    py_sdk = [p["py_mcp"], os.path.join(HERE, "python_sdk", "server.py")]
    fast = [p["py_fastmcp"], os.path.join(HERE, "fastmcp", "server.py")]
    ts = ["node", os.path.join(HERE, "ts", "server.mjs")]
    mpy = [sys.executable, os.path.join(HERE, "mcpcxx_py", "server.py")]
    return [
        Peer("floor (nlohmann parse+dump loop)", [p["floor"]]),
        Peer(
            "mcpcxx, C++ tool (example server)",
            [p["mcpcxx_cpp"]],
            http_legacy=[p["mcpcxx_cpp"]],
            http_modern=[p["mcpcxx_cpp"]],
            http_env={"MCPCXX_EXAMPLE_HTTP_PORT": "{port}"},
            fail_call=("lookup_issue", {"key": "NOPE-1"}),
        ),
        Peer(
            "mcpcxx, C++ tool, inline tools",
            [p["mcpcxx_cpp"]],
            http_legacy=[p["mcpcxx_cpp"]],
            http_modern=[p["mcpcxx_cpp"]],
            # tool_spec::inline_dispatch on echo, lookup_issue and explode: those tools run on the
            # thread that read their call; everything else keeps the worker pool
            env={"MCPCXX_EXAMPLE_INLINE_TOOLS": "1"},
            http_env={"MCPCXX_EXAMPLE_HTTP_PORT": "{port}"},
            fail_call=("lookup_issue", {"key": "NOPE-1"}),
        ),
        Peer(
            "mcpcxx, Python tool",
            [*mpy, "stdio"],
            http_legacy=[*mpy, "http", "{port}"],
            http_modern=[*mpy, "http", "{port}"],
            env={"PYTHONPATH": p["mcpcxx_pkg"]},
        ),
        Peer(
            "mcpcxx, Python tool, inline tools",
            [*mpy, "stdio"],
            http_legacy=[*mpy, "http", "{port}"],
            http_modern=[*mpy, "http", "{port}"],
            # @server.tool(inline_dispatch=True) on echo and fail
            env={"PYTHONPATH": p["mcpcxx_pkg"], "MCPCXX_PEER_INLINE_TOOLS": "1"},
        ),
        Peer(
            f"rmcp {PINS['rmcp']} (stdio_pipes(); HTTP: axum)",
            [p["rmcp"], "stdio-pipes"],
            http_legacy=[p["rmcp"], "http", "{port}"],
            http_modern=[p["rmcp"], "http", "{port}"],
        ),
        Peer(f"rmcp {PINS['rmcp']} (stdio())", [p["rmcp"], "stdio"]),
        Peer(
            f"Go SDK {PINS['go-sdk']}",
            [p["go"], "stdio"],
            http_legacy=[p["go"], "http", "{port}"],
            http_modern=[p["go"], "http-stateless", "{port}"],
        ),
        Peer(
            f"TypeScript SDK {PINS['@modelcontextprotocol/sdk']}",
            [*ts, "stdio"],
            http_legacy=[*ts, "http", "{port}"],
        ),
        Peer(
            f"official Python SDK mcp {PINS['mcp']}",
            [*py_sdk, "stdio"],
            http_legacy=[*py_sdk, "http", "{port}"],
            http_modern=[*py_sdk, "http", "{port}"],
        ),
        Peer(
            f"fastmcp {PINS['fastmcp']}",
            [*fast, "stdio"],
            http_legacy=[*fast, "http", "{port}"],
            http_modern=[*fast, "http", "{port}"],
        ),
    ]
