"""Error paths over Streamable HTTP against success, in one run (issue 11).

    python3 bench/http_load/error_paths.py [--build build/dev] [--rounds 3] [--seconds 3]
                                           [--inline-tools]

Serves the C++ tools (tests/fixtures/cpp/conformance_server.cpp) and, when the mcpcxx package
imports, the Python tools (bench/http_load/mcpcxx_echo.py), and drives each with
bench/http_load/load.cpp: success (echo), a tool error, invalid arguments, an unexpected exception
and an unknown tool, in both eras with 1 and 64 keep-alive connections. Cases are interleaved within
every round and the rounds repeated; the table gives each error path's median calls/s divided by the
success median of the same server, era and connection count (the issue's target: at least 0.85),
with p50/p99. Every reply is checked (a wrong reply counts as an error and fails the run). With
--inline-tools both servers declare their tools inline_dispatch (they run on the I/O thread). Not
part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = ("ok", "tool_error", "invalid_args", "unexpected", "unknown_tool")
LOAD = ROOT / ".tools" / "mcpcxx-http-load"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"error_paths: nothing listens on port {port}")


def start(
    server: str, build: pathlib.Path, inline_tools: bool
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    if server == "C++ tool":
        cmd = [str(build / "tests/fixtures/cpp/mcpcxx_conformance_server"), "--port", str(port)]
        cmd += ["--io-threads", "1"] + (["--inline-bench-tools"] if inline_tools else [])
    else:
        cmd = [sys.executable, str(ROOT / "bench/http_load/mcpcxx_echo.py"), str(port)]
        cmd += ["--inline-tools"] if inline_tools else []
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return proc, port


def load(port: int, era: str, conns: int, case: str, seconds: float) -> dict[str, float]:
    out = subprocess.run(
        [
            *(str(LOAD), "--port", str(port), "--era", era, "--connections", str(conns)),
            *("--seconds", str(seconds), "--warmup", "0.5", "--case", case),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"error_paths: {case} {era} x{conns} failed: {out.stdout}{out.stderr}")
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("MCPCXX_BUILD_DIR", "build/dev"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--inline-tools", action="store_true")
    args = parser.parse_args()
    build = (ROOT / args.build).resolve()
    LOAD.parent.mkdir(exist_ok=True)
    subprocess.run(
        [
            *("g++", "-std=c++20", "-O2", "-pthread"),
            *(str(ROOT / "bench/http_load/load.cpp"), "-o", str(LOAD)),
        ],
        check=True,
    )
    servers = ["C++ tool"]
    probe = subprocess.run([sys.executable, "-c", "import mcpcxx"], capture_output=True)
    if probe.returncode == 0:
        servers.append("Python tool")
    runs: dict[tuple[str, str, int, str], list[dict[str, float]]] = {}
    for server in servers:
        proc, port = start(server, build, args.inline_tools)
        try:
            for _ in range(args.rounds):
                for era in ("legacy", "modern"):
                    for conns in (1, 64):
                        for case in CASES:
                            r = load(port, era, conns, case, args.seconds)
                            runs.setdefault((server, era, conns, case), []).append(r)
        finally:
            proc.terminate()
            proc.wait(10)
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    with open(results / "http_errors.jsonl", "w", encoding="utf-8") as f:
        for (server, _era, _conns, case), rs in runs.items():
            for r in rs:
                f.write(json.dumps({"server": server, "case": case, **r}) + "\n")
    print("| server | era | conns | case | calls/s (median) | ÷ success | p50 ms | p99 ms |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for (server, era, conns, case), rs in runs.items():
        rps = statistics.median(r["rps"] for r in rs)
        ok = statistics.median(r["rps"] for r in runs[(server, era, conns, "ok")])
        p50 = statistics.median(r["p50_ms"] for r in rs)
        p99 = statistics.median(r["p99_ms"] for r in rs)
        print(
            f"| {server} | {era} | {conns} | {case} | {rps:,.0f} | {rps / ok:.2f} | "
            f"{p50:.3f} | {p99:.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
