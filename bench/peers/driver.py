"""Peer benchmark: mcpcxx beside the official MCP SDKs, built and measured in one run.

Run through bench/peers/run.sh (it passes its arguments here). Steps: build or install every
peer at its pinned version (bench/peers/.build, not in git), then measure with the servers
interleaved inside each measure and the repetitions outermost, and write the median table into
docs/benchmarks.md between <!-- peers:begin --> and <!-- peers:end --> plus an SVG chart.

Measures (every reply is checked: the echoed text, or isError: true, or a JSON-RPC error):
- stdio, legacy handshake (2025-11-25): calls/s sequentially and with 32 in flight, for the echo
  tool (success), the failing tool (isError), invalid arguments and an unknown tool;
- cold start: spawn to the initialize response;
- RSS: VmRSS after --rss-calls echo calls with 32 in flight;
- Streamable HTTP: echo over keep-alive connections (1 and 64), legacy sessions and 2026-07-28,
  requests/s with p50/p99 latency, by bench/http_load/load.cpp (built here, unchanged).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
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
DASH = "\u2013"  # an empty table cell


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
    sh(
        ["cmake", "--build", mcpcxx_build, "-j2", "--target", "mcpcxx_example_server", "_core"],
        cwd=ROOT,
    )
    paths["mcpcxx_cpp"] = os.path.join(mcpcxx_build, "examples", "cpp", "mcpcxx_example_server")
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
    for d in (src, built):
        for name in os.listdir(d):
            if name != "__pycache__":
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
            "mcpcxx, Python tool",
            [*mpy, "stdio"],
            http_legacy=[*mpy, "http", "{port}"],
            http_modern=[*mpy, "http", "{port}"],
            env={"PYTHONPATH": p["mcpcxx_pkg"]},
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


# ---------------------------------------------------------------- stdio client


def request_template(peer: Peer, kind: str) -> bytes:
    """A tools/call line with the id left as %d."""
    args: dict[str, Any]
    if kind == "echo":
        name, args = "echo", {"text": ECHO_TEXT}
    elif kind == "fail":
        name, args = peer.fail_call
    elif kind == "bad_args":
        name, args = "echo", {"text": 5}
    else:
        name, args = "no_such_tool", {"text": ECHO_TEXT}
    params = json.dumps({"name": name, "arguments": args}, separators=(",", ":"))
    line = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":' + params.replace("%", "%%")
    return (line + "}\n").encode()


def reply_ok(kind: str, reply: dict[str, Any]) -> bool:
    """The reply is what this kind of call must get (any SDK's own way for the error kinds)."""
    result = reply.get("result")
    if kind == "echo":
        return (
            isinstance(result, dict)
            and not result.get("isError")
            and ECHO_TEXT in json.dumps(result)
        )
    if kind in ("fail", "bad_args"):
        return isinstance(result, dict) and result.get("isError") is True
    return "error" in reply or (isinstance(result, dict) and result.get("isError") is True)


class StdioServer:
    """A spawned server driven over pipes with newline-delimited JSON-RPC."""

    def __init__(self, peer: Peer) -> None:
        assert peer.stdio is not None
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(
            peer.stdio,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **peer.env},
        )
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.win = self.proc.stdin.fileno()
        self.rout = self.proc.stdout.fileno()
        self.buf = b""
        self.bad = 0

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.win, view) :]

    def lines(self) -> list[bytes]:
        """Blocks until at least one full line arrives; returns every complete line."""
        while b"\n" not in self.buf:
            chunk = os.read(self.rout, 1 << 16)
            if not chunk:
                raise RuntimeError("server closed stdout")
            self.buf += chunk
        *done, self.buf = self.buf.split(b"\n")
        return [ln for ln in done if ln.strip()]

    def handshake(self) -> float:
        """Legacy initialize + initialized; returns seconds from spawn to the initialize reply."""
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench-peers", "version": "1"},
            },
        }
        self.send((json.dumps(init) + "\n").encode())
        while True:
            for ln in self.lines():
                if json.loads(ln).get("id") == 0:
                    elapsed = time.perf_counter() - self.t_spawn
                    self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
                    return elapsed

    def run(
        self, template: bytes, kind: str, in_flight: int, seconds: float = 0, calls: int = 0
    ) -> float:
        """Keeps in_flight calls outstanding for `seconds` (or `calls`); returns calls/s."""
        sent = done = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        self.send(b"".join(template % (i + 1) for i in range(in_flight)))
        sent = in_flight
        stop = False
        while done < sent:
            out = []
            for ln in self.lines():
                reply = json.loads(ln)
                if "id" not in reply:
                    continue  # a notification (log message) some SDKs send
                done += 1
                if not reply_ok(kind, reply):
                    self.bad += 1
                if not stop:
                    stop = (calls > 0 and sent >= calls) or (
                        seconds > 0 and time.perf_counter() >= deadline
                    )
                if not stop:
                    sent += 1
                    out.append(template % sent)
            if out:
                self.send(b"".join(out))
        return done / (time.perf_counter() - t0)

    def rss_mib(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()  # type: ignore[union-attr]


# ---------------------------------------------------------------- HTTP


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def http_measure(peer: Peer, era: str, load: str, conns: int, seconds: float) -> dict[str, Any]:
    cmd = peer.http_legacy if era == "legacy" else peer.http_modern
    assert cmd is not None
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in cmd]
    extra = {**peer.env, **peer.http_env}
    env = {**os.environ, **{k: v.replace("{port}", str(port)) for k, v in extra.items()}}
    proc = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        if not wait_port(port, proc):
            return {"error": "server did not listen"}
        r = subprocess.run(
            [
                load,
                "--port",
                str(port),
                "--connections",
                str(conns),
                "--seconds",
                str(seconds),
                "--warmup",
                str(min(1.0, seconds / 2)),
                "--era",
                era,
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 60,
        )
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
        if not lines:
            return {"error": (r.stderr.strip().splitlines() or ["no output"])[-1][:120]}
        out: dict[str, Any] = json.loads(lines[-1])
        if out.get("errors"):
            out["error"] = f"{out['errors']} bad replies"
        elif not out.get("requests"):
            out["error"] = "no request completed within the timed window (handshakes too slow)"
        return out
    except subprocess.TimeoutExpired:
        return {"error": "load driver timed out"}
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Ends the server and anything it spawned (it leads its own process group)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


# ---------------------------------------------------------------- the run


Samples = dict[str, dict[str, list[float]]]


def add(res: Samples, peer: Peer, key: str, value: float) -> None:
    res.setdefault(peer.name, {}).setdefault(key, []).append(value)


def note(notes: dict[str, str], peer: Peer, what: str, why: str) -> None:
    key = f"{peer.name}: {what} (in at least one repetition)"
    if key not in notes:
        notes[key] = why
        print(f"   ! {key}: {why}", flush=True)


def stdio_round(peer: Peer, args: argparse.Namespace, res: Samples, notes: dict[str, str]) -> None:
    for _ in range(args.cold_spawns):
        s = StdioServer(peer)
        try:
            add(res, peer, "cold_ms", s.handshake() * 1000)
        finally:
            s.close()
    s = StdioServer(peer)
    try:
        add(res, peer, "cold_ms", s.handshake() * 1000)
        s.run(request_template(peer, "echo"), "echo", 32, calls=args.rss_calls)
        add(res, peer, "rss_mib", s.rss_mib())
        for kind in KINDS:
            for in_flight in (1, 32):
                bad_before = s.bad
                rate = s.run(request_template(peer, kind), kind, in_flight, seconds=args.duration)
                if s.bad > bad_before:
                    note(notes, peer, f"stdio {kind}", "unexpected replies (not counted)")
                else:
                    add(res, peer, f"{kind}_{in_flight}", rate)
    except (RuntimeError, OSError, ValueError) as e:
        note(notes, peer, "stdio", f"{type(e).__name__}: {e}")
    finally:
        s.close()


def http_round(
    peer: Peer, load: str, args: argparse.Namespace, res: Samples, notes: dict[str, str]
) -> None:
    for era in ("legacy", "modern"):
        if (peer.http_legacy if era == "legacy" else peer.http_modern) is None:
            continue
        for conns in (1, 64):
            out = http_measure(peer, era, load, conns, args.duration)
            if "error" in out:
                note(notes, peer, f"HTTP {era} {conns}", str(out["error"]))
                continue
            add(res, peer, f"http_{era}_{conns}", float(out["rps"]))
            add(res, peer, f"http_{era}_{conns}_p50", float(out["p50_ms"]))
            add(res, peer, f"http_{era}_{conns}_p99", float(out["p99_ms"]))


def measure(
    all_peers: list[Peer], load: str, args: argparse.Namespace
) -> tuple[Samples, dict[str, str], list[float]]:
    res: Samples = {}
    notes: dict[str, str] = {}
    loads: list[float] = []
    for rep in range(args.repeats):
        # Repetitions outermost, servers interleaved inside each measure, the order rotated.
        order = all_peers[rep % len(all_peers) :] + all_peers[: rep % len(all_peers)]
        loads.append(os.getloadavg()[0])
        for peer in order:
            print(f"rep {rep + 1}/{args.repeats} stdio {peer.name}", flush=True)
            stdio_round(peer, args, res, notes)
        loads.append(os.getloadavg()[0])
        for peer in order:
            if peer.http_legacy or peer.http_modern:
                print(f"rep {rep + 1}/{args.repeats} http {peer.name}", flush=True)
                http_round(peer, load, args, res, notes)
    loads.append(os.getloadavg()[0])
    return res, notes, loads


# ---------------------------------------------------------------- report


def med(res: Samples, peer: Peer, key: str) -> float | None:
    v = res.get(peer.name, {}).get(key)
    return statistics.median(v) if v else None


def num(v: float | None) -> str:
    if v is None:
        return DASH
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def worst_error_ratio(res: Samples, peer: Peer) -> str:
    ratios = []
    for n in (1, 32):
        ok = med(res, peer, f"echo_{n}")
        for kind in KINDS[1:]:
            e = med(res, peer, f"{kind}_{n}")
            if ok and e:
                ratios.append(e / ok)
    return f"{min(ratios):.2f}" if ratios else DASH


def machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for ln in f:
            if ln.startswith("model name"):
                model = ln.split(":", 1)[1].strip()
                break
    mem = 0
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // 1024

    def ver(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout
            return out.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"

    return (
        f"{model}, {os.cpu_count()} CPUs, {mem:,} MiB RAM, Linux {platform.release()}; "
        f"Python {platform.python_version()}, {ver(['node', '--version'])} (node), "
        f"{ver(['go', 'version'])}, {ver(['rustc', '--version'])}, {ver(['g++', '--version'])}"
    )


def tables(all_peers: list[Peer], res: Samples) -> str:
    head = (
        "| stdio, calls/s | echo seq | echo 32 | fail seq | fail 32 | bad args seq | bad args 32 "
        "| unknown tool seq | unknown tool 32 | worst error/echo | cold start ms | RSS MiB |\n"
        "|---|" + "---:|" * 11 + "\n"
    )
    rows = []
    for p in all_peers:
        cells = [num(med(res, p, f"{k}_{n}")) for k in KINDS for n in (1, 32)]
        cells += [
            worst_error_ratio(res, p),
            num(med(res, p, "cold_ms")),
            num(med(res, p, "rss_mib")),
        ]
        rows.append(f"| {p.name} | " + " | ".join(cells) + " |")
    http = (
        "| HTTP echo, req/s (p50 / p99 ms) | legacy, 1 conn | legacy, 64 conns "
        "| 2026-07-28, 1 conn | 2026-07-28, 64 conns |\n|---|---:|---:|---:|---:|\n"
    )
    hrows = []
    for p in all_peers:
        if not (p.http_legacy or p.http_modern):
            continue
        cells = []
        for era in ("legacy", "modern"):
            for c in (1, 64):
                k = f"http_{era}_{c}"
                rps = med(res, p, k)
                cells.append(
                    DASH
                    if rps is None
                    else f"{num(rps)} ({med(res, p, k + '_p50'):.2f} / "
                    f"{med(res, p, k + '_p99'):.2f})"
                )
        hrows.append(f"| {p.name} | " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n\n" + http + "\n".join(hrows) + "\n"


def ratios(all_peers: list[Peer], res: Samples) -> str:
    def find(prefix: str) -> Peer | None:
        return next((p for p in all_peers if p.name.startswith(prefix)), None)

    def ratio(a: Peer | None, b: Peer | None, key: str) -> str:
        x = med(res, a, key) if a else None
        y = med(res, b, key) if b else None
        return f"{x / y:.2f}" if x and y else DASH

    floor, cpp, py = find("floor"), find("mcpcxx, C++"), find("mcpcxx, Python")
    rmcp, sdk = find(f"rmcp {PINS['rmcp']} (stdio_pipes"), find("official Python SDK")
    out = [
        f"- mcpcxx C++ tool / floor, stdio echo: sequential {ratio(cpp, floor, 'echo_1')}, "
        f"32 in flight {ratio(cpp, floor, 'echo_32')}.",
        f"- mcpcxx Python tool / official Python SDK, stdio echo sequential: "
        f"{ratio(py, sdk, 'echo_1')}; mcpcxx Python tool / rmcp `stdio_pipes()`, 32 in flight: "
        f"{ratio(py, rmcp, 'echo_32')}.",
    ]
    for who in (cpp, py):
        if who is None:
            continue
        cells = ", ".join(
            f"{'legacy' if era == 'legacy' else '2026-07-28'} {c} conn: "
            f"{ratio(who, rmcp, f'http_{era}_{c}')}"
            for era in ("legacy", "modern")
            for c in (1, 64)
        )
        out.append(f"- {who.name} / rmcp over HTTP: {cells}.")
    return "\n".join(out) + "\n"


def svg_chart(all_peers: list[Peer], res: Samples) -> str:
    """Horizontal grouped bars on a log scale: stdio and HTTP calls/s per server."""
    series = [
        ("echo_1", "stdio echo, sequential", "#4e79a7"),
        ("echo_32", "stdio echo, 32 in flight", "#59a14f"),
        ("fail_32", "stdio tool error, 32 in flight", "#e15759"),
        ("http_legacy_64", "HTTP legacy, 64 conns", "#f28e2b"),
        ("http_modern_64", "HTTP 2026-07-28, 64 conns", "#b07aa1"),
    ]
    bar, gap, left, width, lo, hi = 9, 12, 300, 560, 1.0, 6.0  # log10 axis from 10 to 1e6
    group = bar * len(series) + gap
    top = 40
    height = top + group * len(all_peers) + 40 + 18 * len(series)

    def x(v: float) -> float:
        return left + (min(max(math.log10(v), lo), hi) - lo) / (hi - lo) * width

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 70}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="18" font-size="13" font-weight="bold">MCP servers, calls/s '
        "(log scale, medians; bench/peers)</text>",
    ]
    for e in range(int(lo), int(hi) + 1):
        gx = left + (e - lo) / (hi - lo) * width
        parts.append(
            f'<line x1="{gx:.1f}" y1="{top - 8}" x2="{gx:.1f}" y2="{top + group * len(all_peers)}" '
            'stroke="#ddd"/>'
        )
        parts.append(f'<text x="{gx:.1f}" y="{top - 11}" text-anchor="middle">{10**e:,}</text>')
    for i, p in enumerate(all_peers):
        y0 = top + i * group
        parts.append(
            f'<text x="{left - 6}" y="{y0 + group / 2:.1f}" text-anchor="end">'
            f"{p.name.replace('&', '&amp;')}</text>"
        )
        for j, (key, _, color) in enumerate(series):
            v = med(res, p, key)
            if not v:
                continue
            y = y0 + j * bar
            parts.append(
                f'<rect x="{left}" y="{y}" width="{x(v) - left:.1f}" '
                f'height="{bar - 1}" fill="{color}"/>'
            )
            parts.append(
                f'<text x="{x(v) + 3:.1f}" y="{y + bar - 1}" font-size="8">{num(v)}</text>'
            )
    ly = top + group * len(all_peers) + 20
    for j, (_, label, color) in enumerate(series):
        parts.append(f'<rect x="{left}" y="{ly + j * 18}" width="12" height="10" fill="{color}"/>')
        parts.append(f'<text x="{left + 18}" y="{ly + j * 18 + 9}">{label}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def read_text(path: str) -> str:
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_doc(section: str) -> None:
    path = os.path.join(ROOT, "docs", "benchmarks.md")
    begin, end = "<!-- peers:begin -->", "<!-- peers:end -->"
    text = read_text(path)
    block = f"{begin}\n{section}{end}"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def spread(res: Samples) -> float:
    """The largest max/min ratio between repetitions of one throughput figure."""
    worst = 1.0
    for figures in res.values():
        for key, v in figures.items():
            skip = key in ("cold_ms", "rss_mib") or key.endswith(("_p50", "_p99"))
            if len(v) > 1 and min(v) > 0 and not skip:
                worst = max(worst, max(v) / min(v))
    return worst


def load_warning(loads: list[float]) -> str:
    if max(loads) <= 0.8:
        return "The machine was idle during the run."
    text = (
        "**These figures were taken on a loaded machine** (other builds and test runs shared the "
        "CPUs), so absolute figures are low and noisy; compare ratios within this one run, not "
        "with other runs."
    )
    if max(loads) > 4 * (os.cpu_count() or 1):
        text += (
            " At a load this far above the CPU count a short window mostly measures the"
            " scheduler: a server's figure can move several times between repetitions, so read"
            " the table as proof that every peer builds, answers and is checked, and take"
            " rankings only from a run on an idle machine with a longer `--duration`."
        )
    return text


def report(
    all_peers: list[Peer],
    res: Samples,
    notes: dict[str, str],
    loads: list[float],
    args: argparse.Namespace,
    started: str,
) -> str:
    failures = "\n".join(f"- {k}: {v}" for k, v in notes.items()) or "- none"
    return f"""## Peer benchmark: mcpcxx beside the official MCP SDKs

Generated by `bench/peers/run.sh` (do not edit by hand; rerun it). Run started {started};
{args.repeats} repetitions (outermost), servers interleaved inside each measure, medians;
{args.duration:g} s per timed run; RSS read after {args.rss_calls:,} echo calls (32 in flight);
cold start = spawn to the initialize response, {args.cold_spawns + 1} spawns per repetition.

Machine: {machine()}. 1-minute load average during the run: {min(loads):.1f} to {max(loads):.1f}.
{load_warning(loads)} Largest max/min spread of one calls/s figure across the repetitions of
this run: {spread(res):.1f}x.

Pinned peers (installed from their registries by the script): official Python SDK
`mcp=={PINS["mcp"]}` (+ uvicorn {PINS["uvicorn"]}), `fastmcp=={PINS["fastmcp"]}`,
`@modelcontextprotocol/sdk@{PINS["@modelcontextprotocol/sdk"]}` (npm,
package-lock.json), `github.com/modelcontextprotocol/go-sdk {PINS["go-sdk"]}` (go.sum),
`rmcp ={PINS["rmcp"]}`
(Cargo.lock, `--release`). Each serves `echo(text)` and `fail(text)`, which always ends in
`isError: true` the SDK's own way; the mcpcxx C++ example server's tool error is `lookup_issue` with
an unknown key. "bad args" sends `echo` a number; "unknown tool" calls a tool that does not exist
(a JSON-RPC error or an isError result both count as answered). Every reply is checked. stdio uses
the 2025-11-25 handshake; HTTP is keep-alive, one request in flight per connection
(bench/http_load/load.cpp), echo only; "{DASH}" = not supported or failed (see below). The
TypeScript SDK 1.x speaks up to 2025-11-25 only (its v2 packages serve 2026-07-28; not measured
here); the Go SDK serves 2026-07-28 from a `Stateless: true` handler, its session handler
rejects that revision.

{tables(all_peers, res)}
Ratios from this run:

{ratios(all_peers, res)}
![peer benchmark chart](peers-benchmark.svg)

Failures and gaps in this run:

{failures}
"""


RUN_ARGS = ("duration", "repeats", "rss_calls", "cold_spawns")


def publish(all_peers: list[Peer], res: Samples, section: str, args: argparse.Namespace) -> None:
    print(section)
    if not args.no_write:
        write_doc(section)
        with open(os.path.join(ROOT, "docs", "peers-benchmark.svg"), "w", encoding="utf-8") as f:
            f.write(svg_chart(all_peers, res))


def rerender(args: argparse.Namespace) -> int:
    """Renders the section and chart of the last run again (after a change to the report code)."""
    with open(os.path.join(BUILD, "last-run.json"), encoding="utf-8") as f:
        record = json.load(f)
    for k, v in record.get("args", {}).items():
        setattr(args, k, v)
    res: Samples = record["samples"]
    all_peers = [p for p in peers(dict.fromkeys(PATH_KEYS, "")) if p.name in res]
    section = report(all_peers, res, record["notes"], record["loads"], args, record["started"])
    publish(all_peers, res, section, args)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--duration", type=float, default=1.0, help="seconds per timed run (default 1)")
    ap.add_argument("--repeats", type=int, default=3, help="repetitions, median taken (default 3)")
    ap.add_argument("--rss-calls", type=int, default=2000, help="echo calls before reading RSS")
    ap.add_argument(
        "--cold-spawns", type=int, default=1, help="extra spawns per rep for cold start"
    )
    ap.add_argument(
        "--mcpcxx-build",
        default=os.path.join(ROOT, "build", "dev"),
        help="configured mcpcxx build dir with -DMCPCXX_BUILD_PYTHON=ON (default build/dev)",
    )
    ap.add_argument(
        "--only", default="", help="comma-separated substrings: measure only these servers"
    )
    ap.add_argument("--no-write", action="store_true", help="print the section, do not edit docs/")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="render docs/ again from .build/last-run.json without building or measuring",
    )
    args = ap.parse_args()
    if args.report_only:
        return rerender(args)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    paths = build_all(args.mcpcxx_build)
    all_peers = peers(paths)
    if args.only:
        keep = [s.strip().lower() for s in args.only.split(",")]
        all_peers = [p for p in all_peers if any(k in p.name.lower() for k in keep)]
    res, notes, loads = measure(all_peers, paths["load"], args)
    section = report(all_peers, res, notes, loads, args, started)
    publish(all_peers, res, section, args)
    record = {
        "started": started,
        "loads": loads,
        "notes": notes,
        "samples": res,
        "args": {k: getattr(args, k) for k in RUN_ARGS},
    }
    with open(os.path.join(BUILD, "last-run.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
