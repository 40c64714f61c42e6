"""Tools that wait (issue 26): concurrent calls of a tool that sleeps 0.5 s, side by side.

Servers: mcpcxx's Python API (default configuration), the official Python SDK (mcp, MCPServer),
FastMCP (from bench/waiting/.venv when installed there), and mcpcxx's C++ example server, whose
`sleep` tool blocks its thread. The tool waits 0.5 s as a `def` (time.sleep) and as an `async def`
(await asyncio.sleep); the C++ tool is blocking like a `def`.

stdio: a fresh server per timed run; the 2025-11-25 handshake, then N tools/call requests written
at once; the time from the write to the N-th reply. HTTP: a fresh server per timed run;
min(64, N) keep-alive connections, one request in flight on each, N calls in all; mcpcxx gets
stateless 2026-07-28 requests, the Python peers a legacy session (initialize, then
Mcp-Session-Id on every request). Every reply is checked.

Memory: the server's peak RSS is reset right after the handshake (writing 5 to
/proc/PID/clear_refs), the RSS read then is the base, and VmHWM after the N-th reply is the peak;
RSS per waiting call = (peak - base) / N. A sampler thread also reads VmRSS every 2 ms, in case
the kernel refuses the reset.

Usage: python3 bench/waiting/run.py [--repeats 5] [--ms 500] [--only stdio|http] [--write]
(--write replaces the waiting-tools section of docs/benchmarks.md.)
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import http.client
import itertools
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DOC = REPO / "docs" / "benchmarks.md"
BEGIN = "<!-- waiting-tools:begin -->"
END = "<!-- waiting-tools:end -->"
TITLE = "## Tools that wait (issue 26)"
NEXT_SECTION = "## Peer benchmark: mcpcxx beside the official MCP SDKs"
CPP_SERVER = REPO / "build" / "ci" / "tests" / "fixtures" / "cpp" / "mcpcxx_example_server"
VENV_PYTHON = HERE / ".venv" / "bin" / "python"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
MODERN_META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
MAX_CONNECTIONS = 64
RUN_TIMEOUT = 90.0
DASH = "\u2013"  # an empty cell of the table


# ---------------------------------------------------------------------------------------------
# Servers


@dataclass(frozen=True)
class Peer:
    """One server under test: how to start it for a tool kind and transport."""

    key: str
    label: str
    kinds: tuple[str, ...]  # "def", "async" (Python peers) or "blocking" (the C++ tool)
    python: str | None = None  # interpreter for a Python script
    script: str | None = None
    modern_http: bool = False  # 2026-07-28 stateless requests over HTTP (else a legacy session)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def picks_own_port(self) -> bool:
        """mcpcxx's Python servers bind port 0 and print their URL on stderr."""
        return self.key in ("mcpcxx", "mcpcxx-mw")

    @property
    def tool(self) -> str:
        return "sleep" if self.key == "cpp" else "wait"

    def argv(self, kind: str, transport: str, port: int | None) -> list[str]:
        if self.key == "cpp":
            return [str(CPP_SERVER)]
        assert self.python is not None
        assert self.script is not None
        args = [self.python, str(HERE / self.script), kind, transport]
        if transport == "http" and not self.picks_own_port:
            args.append(str(port))
        return args

    def child_env(self, transport: str, port: int | None) -> dict[str, str]:
        env = {**os.environ, **self.env}
        if self.key == "cpp" and transport == "http":
            env["MCPCXX_EXAMPLE_HTTP_PORT"] = str(port)
        return env


def discover_peers(only: set[str] | None) -> tuple[list[Peer], list[str]]:
    """The peers this machine can run, and a reason for each one skipped."""
    peers: list[Peer] = []
    skipped: list[str] = []
    pypath = os.environ.get("PYTHONPATH", "")
    # A PYTHONPATH given (a staged or installed package with its _core) comes before the source
    # tree, whose mcpcxx has no compiled _core.
    mcpcxx_path = (pypath + os.pathsep if pypath else "") + str(REPO / "python")
    candidates = [
        Peer(
            "mcpcxx",
            "mcpcxx (Python)",
            ("def", "async"),
            sys.executable,
            "mcpcxx_server.py",
            modern_http=True,
            env={"PYTHONPATH": mcpcxx_path},
        ),
        Peer(
            "mcpcxx-mw",
            "mcpcxx (Python) + 4 middleware",
            ("def", "async"),
            sys.executable,
            "mcpcxx_server.py",
            modern_http=True,
            env={"PYTHONPATH": mcpcxx_path, "MCPCXX_BENCH_MIDDLEWARE": "1"},
        ),
        Peer("sdk", "official Python SDK", ("def", "async"), sys.executable, "sdk_server.py"),
        Peer("fastmcp", "FastMCP", ("def", "async"), str(VENV_PYTHON), "fastmcp_server.py"),
        Peer("cpp", "mcpcxx (C++ example server)", ("blocking",), modern_http=True),
    ]
    probes = {
        "mcpcxx": (
            [sys.executable, "-c", "import mcpcxx._core"],
            {"PYTHONPATH": mcpcxx_path},
        ),
        "mcpcxx-mw": (
            [sys.executable, "-c", "import mcpcxx.middleware"],
            {"PYTHONPATH": mcpcxx_path},
        ),
        "sdk": ([sys.executable, "-c", "import uvicorn; from mcp.server import MCPServer"], {}),
        "fastmcp": ([str(VENV_PYTHON), "-c", "import fastmcp"], {}),
    }
    for peer in candidates:
        if only is not None and peer.key not in only:
            continue
        if peer.key == "cpp":
            if not os.access(CPP_SERVER, os.X_OK):
                skipped.append(f"{peer.label}: {CPP_SERVER.relative_to(REPO)} is not built")
                continue
        else:
            argv, extra = probes[peer.key]
            if peer.key == "fastmcp" and not VENV_PYTHON.exists():
                skipped.append(
                    f"{peer.label}: no bench/waiting/.venv (python3 -m venv bench/waiting/.venv && "
                    "bench/waiting/.venv/bin/pip install fastmcp)"
                )
                continue
            probe = subprocess.run(
                argv, env={**os.environ, **extra}, capture_output=True, text=True, check=False
            )
            if probe.returncode != 0:
                last = (probe.stderr.strip().splitlines() or ["?"])[-1]
                skipped.append(f"{peer.label}: import failed ({last})")
                continue
        peers.append(peer)
    return peers, skipped


def package_version(python: str, dist: str) -> str:
    """The installed version of a distribution in the given interpreter, or '?'."""
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return out.stdout.strip() or "?"


# ---------------------------------------------------------------------------------------------
# Memory of the server process


def status_kib(pid: int, key: str) -> int:
    """A VmRSS/VmHWM-style field of /proc/PID/status in KiB (0 when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return 0
    return 0


class RssProbe:
    """Peak RSS of a process from a base point on: clear_refs reset plus a 2 ms VmRSS sampler."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.reset_ok = False
        self.base = 0
        self.sampled_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def start(self) -> None:
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
            self.reset_ok = True
        except OSError:
            self.reset_ok = False
        self.base = status_kib(self.pid, "VmRSS")
        self.sampled_peak = self.base
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.sampled_peak = max(self.sampled_peak, status_kib(self.pid, "VmRSS"))

    def stop(self) -> int:
        """The peak RSS in KiB since start()."""
        peak = status_kib(self.pid, "VmHWM") if self.reset_ok else 0
        self._stop.set()
        self._thread.join()
        return max(peak, self.sampled_peak, status_kib(self.pid, "VmRSS"))


# ---------------------------------------------------------------------------------------------
# One timed run


@dataclass
class Outcome:
    """One timed run: seconds until the N-th reply, RSS growth, or why it failed."""

    seconds: float = 0.0
    rss_base_kib: int = 0
    rss_peak_kib: int = 0
    error: str | None = None


def call_message(peer: Peer, rid: int, ms: int, modern: bool) -> dict[str, Any]:
    args = {"ms": ms}
    params: dict[str, Any] = {"name": peer.tool, "arguments": args}
    if modern:
        params["_meta"] = MODERN_META
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def check_reply(peer: Peer, msg: Any) -> str | None:
    """None for a successful tools/call result of the wait tool, else what is wrong."""
    if not isinstance(msg, dict) or "result" not in msg:
        return f"not a result: {str(msg)[:200]}"
    result = msg["result"]
    if result.get("isError"):
        return f"tool error: {str(result)[:200]}"
    want = "slept" if peer.key == "cpp" else "waited"
    texts = [c.get("text") for c in result.get("content", []) if isinstance(c, dict)]
    if want not in texts:
        return f"unexpected content: {str(result)[:200]}"
    return None


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "bench-waiting", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(msg: dict[str, Any]) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode() + b"\n"


def read_message(out: IO[bytes], want_id: int | None = None) -> Any:
    """The next JSON-RPC message with an id (the given one when set); None at end of stream."""
    while True:
        raw = out.readline()
        if not raw:
            return None
        raw = raw.strip()
        if not raw:
            continue
        msg = json.loads(raw)
        if "id" in msg and (want_id is None or msg["id"] == want_id):
            return msg


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_stdio(peer: Peer, kind: str, n: int, ms: int, log: IO[bytes]) -> Outcome:
    proc = subprocess.Popen(
        peer.argv(kind, "stdio", None),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        env=peer.child_env("stdio", None),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    outcome = Outcome()
    watchdog = threading.Timer(RUN_TIMEOUT, proc.kill)
    watchdog.start()
    try:
        stdin.write(line(INITIALIZE))
        stdin.flush()
        if read_message(stdout, 0) is None:
            return Outcome(error="no initialize reply")
        stdin.write(line(INITIALIZED))
        stdin.flush()
        probe = RssProbe(proc.pid)
        probe.start()
        batch = b"".join(line(call_message(peer, i + 1, ms, False)) for i in range(n))

        def write_all() -> None:
            with contextlib.suppress(BrokenPipeError):
                stdin.write(batch)
                stdin.flush()

        t0 = time.perf_counter()
        writer = threading.Thread(target=write_all, daemon=True)
        writer.start()
        seen: set[int] = set()
        while len(seen) < n:
            msg = read_message(stdout)
            if msg is None:
                outcome.error = f"stream ended after {len(seen)} of {n} replies"
                break
            problem = check_reply(peer, msg)
            if problem is not None and outcome.error is None:
                outcome.error = problem
            seen.add(int(msg["id"]))
        outcome.seconds = time.perf_counter() - t0
        outcome.rss_base_kib = probe.base
        outcome.rss_peak_kib = probe.stop()
        writer.join(timeout=5)
    except (OSError, ValueError) as e:
        outcome.error = f"{type(e).__name__}: {e}"
    finally:
        watchdog.cancel()
        with contextlib.suppress(OSError):
            stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            stop_process(proc)
    return outcome


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port} after {timeout:.0f} s")


def read_url(stderr: IO[bytes], log: IO[bytes], timeout_at: float) -> str:
    """The URL mcpcxx's server.run("http") prints on stderr; the rest of stderr goes to log."""
    marker = b"http://127.0.0.1:"
    url = ""
    for raw in iter(stderr.readline, b""):
        log.write(raw)
        at = raw.find(marker)
        if at >= 0:
            url = raw[at:].split()[0].decode().rstrip(".,;\"'")
            break
        if time.monotonic() > timeout_at:
            break
    if not url:
        raise RuntimeError("the server did not print its URL")

    def drain() -> None:
        for rest in iter(stderr.readline, b""):
            log.write(rest)

    threading.Thread(target=drain, daemon=True).start()
    return url


def decode_body(body: bytes, content_type: str) -> Any:
    """A JSON body, or the JSON-RPC response in a text/event-stream body."""
    if content_type.startswith("text/event-stream"):
        found: Any = None
        for raw in body.decode().splitlines():
            if raw.startswith("data:"):
                data = raw[5:].strip()
                if data:
                    msg = json.loads(data)
                    if "id" in msg:
                        found = msg
        return found
    return json.loads(body) if body else None


class Connection:
    """One keep-alive HTTP/1.1 connection posting JSON-RPC to /mcp."""

    def __init__(self, port: int, path: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=RUN_TIMEOUT)
        self.path = path

    def post(self, msg: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, str]:
        body = json.dumps(msg, separators=(",", ":")).encode()
        hdrs = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        self.conn.request("POST", self.path, body, hdrs)
        resp = self.conn.getresponse()
        data = resp.read()
        ctype = resp.getheader("Content-Type", "") or ""
        session = resp.getheader("Mcp-Session-Id", "") or ""
        return resp.status, decode_body(data, ctype), session


def run_http(peer: Peer, kind: str, n: int, ms: int, log: IO[bytes]) -> Outcome:
    port = 0 if peer.picks_own_port else free_port()
    proc = subprocess.Popen(
        peer.argv(kind, "http", port),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.PIPE if peer.picks_own_port else log,
        env=peer.child_env("http", port),
    )
    outcome = Outcome()
    try:
        if peer.picks_own_port:
            assert proc.stderr is not None
            url = read_url(proc.stderr, log, time.monotonic() + 30)
            port = int(url.split(":")[2].split("/")[0])
        else:
            wait_for_port(port, proc)
        conns = [Connection(port, "/mcp") for _ in range(min(MAX_CONNECTIONS, n))]
        for c in conns:
            c.conn.connect()
        if peer.modern_http:
            headers = {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call",
                "Mcp-Name": peer.tool,
            }
        else:
            status, reply, session = conns[0].post(INITIALIZE, {})
            if status != 200 or not isinstance(reply, dict) or "result" not in reply:
                raise RuntimeError(f"initialize: HTTP {status} {str(reply)[:200]}")
            headers = {"MCP-Protocol-Version": LEGACY}
            if session:
                headers["Mcp-Session-Id"] = session
            status, _, _ = conns[0].post(INITIALIZED, headers)
            if status not in (200, 202, 204):
                raise RuntimeError(f"notifications/initialized: HTTP {status}")
        probe = RssProbe(proc.pid)
        probe.start()
        ids: Iterator[int] = itertools.count(1)
        lock = threading.Lock()
        start = threading.Barrier(len(conns) + 1)
        errors: list[str] = []

        def drive(c: Connection) -> None:
            start.wait()
            while True:
                with lock:
                    rid = next(ids)
                if rid > n:
                    return
                try:
                    status, reply, _ = c.post(
                        call_message(peer, rid, ms, peer.modern_http), headers
                    )
                except (OSError, http.client.HTTPException, ValueError) as e:
                    errors.append(f"{type(e).__name__}: {e}")
                    return
                problem = None if status == 200 else f"HTTP {status}: {str(reply)[:200]}"
                problem = problem or check_reply(peer, reply)
                if problem is not None:
                    errors.append(problem)

        threads = [threading.Thread(target=drive, args=(c,), daemon=True) for c in conns]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        outcome.seconds = time.perf_counter() - t0
        outcome.rss_base_kib = probe.base
        outcome.rss_peak_kib = probe.stop()
        if errors:
            outcome.error = f"{len(errors)} failed calls, first: {errors[0]}"
        for c in conns:
            c.conn.close()
    except (OSError, RuntimeError, ValueError, http.client.HTTPException) as e:
        outcome.error = f"{type(e).__name__}: {e}"
    finally:
        stop_process(proc)
    return outcome


# ---------------------------------------------------------------------------------------------
# The whole measure


@dataclass(frozen=True)
class Row:
    """One table row: transport, calls, and the tool kind."""

    transport: str
    n: int
    kind: str  # "def", "async" or "blocking" (C++)


@dataclass
class Cell:
    seconds: list[float] = field(default_factory=list)
    rss_per_call_kib: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def median_s(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def median_rss(self) -> float | None:
        return statistics.median(self.rss_per_call_kib) if self.rss_per_call_kib else None


def rows_for(transports: Sequence[str], ns: Sequence[int]) -> list[Row]:
    return [Row(t, n, k) for t in transports for n in ns for k in ("def", "async", "blocking")]


def measure(
    peers: Sequence[Peer], rows: Sequence[Row], repeats: int, ms: int, log: IO[bytes]
) -> dict[tuple[Row, str], Cell]:
    cells: dict[tuple[Row, str], Cell] = {}
    for rep in range(repeats):
        for row in rows:
            for peer in peers:
                if row.kind not in peer.kinds:
                    continue
                cell = cells.setdefault((row, peer.key), Cell())
                log.write(f"\n=== rep {rep + 1} {row} {peer.key}\n".encode())
                log.flush()
                runner = run_stdio if row.transport == "stdio" else run_http
                out = runner(peer, row.kind, row.n, ms, log)
                if out.error is not None:
                    cell.errors.append(out.error)
                    status = f"FAILED ({out.error})"
                else:
                    cell.seconds.append(out.seconds)
                    grow = max(0, out.rss_peak_kib - out.rss_base_kib)
                    cell.rss_per_call_kib.append(grow / row.n)
                    status = f"{out.seconds:6.3f} s, RSS {out.rss_base_kib / 1024:.1f} -> "
                    status += f"{out.rss_peak_kib / 1024:.1f} MiB"
                print(
                    f"rep {rep + 1}/{repeats} {row.transport:5} {row.n:4} {row.kind:8} "
                    f"{peer.key:8} {status}",
                    flush=True,
                )
    return cells


# ---------------------------------------------------------------------------------------------
# Report


def fmt_s(v: float | None) -> str:
    return DASH if v is None else f"{v:.2f}"


def fmt_kib(v: float | None) -> str:
    return DASH if v is None else f"{v:.1f}"


KIND_LABEL = {
    "def": "`def` (`time.sleep`)",
    "async": "`async def` (`asyncio.sleep`)",
    "blocking": "C++ tool that blocks (`sleep`)",
}


def reference(cells: dict[tuple[Row, str], Cell], row: Row) -> float | None:
    """The official SDK's median for the row (its `def` row for the C++ blocking tool)."""
    ref_row = Row(row.transport, row.n, "def") if row.kind == "blocking" else row
    cell = cells.get((ref_row, "sdk"))
    return cell.median_s() if cell else None


def table(peers: Sequence[Peer], rows: Sequence[Row], cells: dict[tuple[Row, str], Cell]) -> str:
    py_peers = [p for p in peers if p.key != "cpp"]
    head = ["transport", "calls", "tool"]
    head += [f"{p.label} s" for p in py_peers]
    head += ["mcpcxx / SDK", "floor s"]
    head += [f"RSS/call KiB {p.label}" for p in py_peers]
    out = ["| " + " | ".join(head) + " |", "|---|---:|---|" + "---:|" * (len(head) - 3)]
    for row in rows:
        mine = "cpp" if row.kind == "blocking" else "mcpcxx"
        if (row, mine) not in cells:
            continue
        cols = [
            "stdio" if row.transport == "stdio" else f"HTTP, {min(row.n, MAX_CONNECTIONS)} conns",
            str(row.n),
            KIND_LABEL[row.kind],
        ]
        for p in py_peers:
            key = mine if p.key == "mcpcxx" else p.key
            cell = cells.get((row, key))
            if row.kind == "blocking" and p.key != "mcpcxx":
                cols.append("")
                continue
            cols.append(fmt_s(cell.median_s()) if cell else DASH)
        mcp = cells[(row, mine)].median_s()
        ref = reference(cells, row)
        ratio = DASH if mcp is None or ref is None else f"{mcp / ref:.2f}"
        if row.kind == "blocking" and ratio != DASH:
            ratio += " (to SDK `def`)"
        cols.append(ratio)
        cols.append(fmt_s(floor_seconds(row)))
        for p in py_peers:
            key = mine if p.key == "mcpcxx" else p.key
            cell = cells.get((row, key))
            if row.kind == "blocking" and p.key != "mcpcxx":
                cols.append("")
                continue
            cols.append(fmt_kib(cell.median_rss()) if cell else DASH)
        out.append("| " + " | ".join(cols) + " |")
    return "\n".join(out)


WAIT_S = 0.5


def floor_seconds(row: Row) -> float:
    """The least time any server can take: one wait per call over stdio; over HTTP each
    connection carries ceil(N / connections) calls one after another."""
    if row.transport == "stdio":
        return WAIT_S
    conns = min(row.n, MAX_CONNECTIONS)
    return WAIT_S * -(-row.n // conns)


def misses(
    rows: Sequence[Row], cells: dict[tuple[Row, str], Cell], bound: float = 1.2
) -> list[str]:
    found = []
    for row in rows:
        mine = "cpp" if row.kind == "blocking" else "mcpcxx"
        cell = cells.get((row, mine))
        ref = reference(cells, row)
        if cell is None or ref is None or cell.median_s() is None:
            continue
        mcp = cell.median_s()
        assert mcp is not None
        if mcp > bound * ref:
            found.append(
                f"{row.transport}, {row.n} calls, {KIND_LABEL[row.kind]}: {mcp:.2f} s against the "
                f"SDK's {ref:.2f} s, {mcp / ref:.2f}x (target 1.2x, {mcp - bound * ref:.2f} s over)"
            )
    return found


def machine() -> str:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for raw in f:
            if raw.startswith("model name"):
                model = raw.split(":", 1)[1].strip()
                break
    nproc = len(os.sched_getaffinity(0))
    return f"nproc {nproc}, {model}, Linux {platform.release()}, Python {platform.python_version()}"


def section(
    *,
    command: str,
    started: str,
    repeats: int,
    peers: Sequence[Peer],
    skipped: Sequence[str],
    rows: Sequence[Row],
    cells: dict[tuple[Row, str], Cell],
    versions: dict[str, str],
    loads: tuple[float, float],
) -> str:
    failures = [
        f"{key}, {row.transport} {row.n} calls, {row.kind}: {len(c.errors)} of {repeats} runs "
        f"failed ({c.errors[0]})"
        for (row, key), c in cells.items()
        if c.errors
    ]
    missed = misses(rows, cells)
    def_256 = {t: cells.get((Row(t, 256, "def"), "mcpcxx")) for t in ("stdio", "http")}
    stdio_def = def_256["stdio"].median_s() if def_256["stdio"] else None
    sdk_def = reference(cells, Row("stdio", 256, "def"))
    lines = [
        TITLE,
        "",
        BEGIN,
        "Generated by `bench/waiting/run.py --write` (do not edit by hand; rerun it).",
        f"Run started {started}; {repeats} interleaved repetitions (each repetition runs every "
        "row, and inside a row every server in turn), medians; a fresh server process per timed "
        "run. "
        f"Load average (1 min) before and after: {loads[0]:.1f} / {loads[1]:.1f} (the machine "
        "is shared; a waiting tool's time is mostly sleep, so the load moves these figures less "
        "than throughput figures).",
        "",
        f"Machine: {machine()}.",
        "",
        f"Command: `{command}`",
        "",
        'Servers: mcpcxx\'s Python API in its default configuration (`Server("...")`, no options), '
        f"the official Python SDK `mcp=={versions.get('sdk', '?')}` (`MCPServer`; HTTP: "
        "`streamable_http_app(json_response=True)` under uvicorn "
        f"{versions.get('uvicorn', '?')}), FastMCP `fastmcp=={versions.get('fastmcp', '?')}` "
        "(in `bench/waiting/.venv`), and the C++ example server "
        "(`build/ci/tests/fixtures/cpp/mcpcxx_example_server`, whose `sleep` tool blocks its "
        'thread, polling for cancellation every 5 ms). The tool waits 0.5 s (`{"ms": 500}`). '
        "stdio: the 2025-11-25 handshake, then all N `tools/call` requests in one write; the "
        "time is from the write to the N-th reply. HTTP: min(64, N) keep-alive connections, one "
        "request in flight on each, N calls in all (so 256 calls take at least 4 rounds of 0.5 s "
        "on any server: the floor column); mcpcxx gets stateless 2026-07-28 requests "
        "(`Mcp-Method`, `Mcp-Name`, `_meta`), the Python peers a legacy session (initialize, then "
        "`Mcp-Session-Id`). Every reply is checked. RSS per waiting call = (peak RSS during the "
        "run - RSS right after the handshake) / N, in KiB; the peak is VmHWM after resetting it "
        "through `/proc/PID/clear_refs` at the base point. The C++ row's ratio is to the SDK's "
        "`def` row (both block a thread per call).",
        "",
        table(peers, rows, cells),
        "",
        "How mcpcxx runs them. An `async def` tool starts as a task on the server's one asyncio "
        "loop and answers through a completion the engine is handed, so a call that awaits "
        "holds no worker thread: N calls of `await asyncio.sleep(0.5)` are N tasks sleeping "
        "together on one thread, about 0.5 s whatever N is. A plain `def` tool (and a C++ "
        "handler) runs on the worker pool, which starts at max(2, cores) threads and starts "
        "another one whenever every worker is busy and work is queued, up to `max_workers` "
        "(`max_worker_threads` in C++), 64 by default (quick handlers never grow it; grown "
        "threads exit after 10 s idle). 256 calls of `time.sleep(0.5)` over "
        "stdio therefore run in ⌈256 / 64⌉ = 4 rounds: about 4 * 0.5 = 2.0 s, against the "
        "official SDK's anyio worker limit of 40 threads, ⌈256 / 40⌉ = 7 rounds = 3.5 s; at 32 "
        "calls both fit in one round (0.5 s). Before this change the pool stayed at max(2, "
        "cores) threads and an `async def` tool held a worker too, so on this 2-core machine "
        "both kinds ran two at a time: 32 calls took 8.0 s and 256 calls 64 s over stdio "
        "(issue 26).",
    ]
    if stdio_def is not None and sdk_def is not None:
        lines[-1] += (
            f" Measured: mcpcxx {stdio_def:.2f} s, the SDK {sdk_def:.2f} s for 256 `def` calls "
            "over stdio."
        )
    lines.append("")
    lines.append(
        "Memory: a waiting `async def` call costs mcpcxx a task and its request (a few KiB); a "
        "waiting `def` call or C++ call also holds a worker thread, whose touched stack and "
        "thread state count (its 8 MiB stack is reserved, not resident). The 32-call rows carry "
        "one-time growth (the first grown threads, allocator arenas, HTTP connection buffers) "
        "over fewer calls; the 256-call rows are nearer the cost of one more waiting call."
    )
    lines.append("")
    if missed:
        lines.append("Targets not met in this run (mcpcxx within 1.2x the official SDK):")
        lines.append("")
        lines += [f"- {m}" for m in missed]
        lines.append("")
        lines.append(
            "What would close them: a `def` tool's time is ⌈N / threads⌉ * 0.5 s plus the time "
            "to start the threads, so at 256 calls the bound decides it (64 threads: 2.0 s; "
            "raising `max_workers` to 256 makes it one round, as the SDK needs 7 rounds of its "
            "40 threads); an `async def` tool's floor is one 0.5 s wait plus the loop's cost per "
            "task; over HTTP each of the 64 connections carries ⌈N / 64⌉ calls one after "
            "another, the floor column."
        )
    else:
        lines.append(
            "Every row meets the target (mcpcxx within 1.2x the official Python SDK's time)."
        )
    lines.append("")
    gaps = [f"- skipped {s}" for s in skipped] + [f"- {f}" for f in failures]
    lines.append("Peers skipped and failed runs:")
    lines.append("")
    lines += gaps or ["- none"]
    lines += ["", END, ""]
    return "\n".join(lines)


def write_section(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN in doc and END in doc:
        start = doc.index(BEGIN)
        title_at = doc.rfind(TITLE, 0, start)
        start = title_at if title_at >= 0 else start
        end = doc.index(END) + len(END)
        while end < len(doc) and doc[end] == "\n":
            end += 1
        doc = doc[:start] + text + "\n" + doc[end:]
    else:
        at = doc.index(NEXT_SECTION)
        doc = doc[:at] + text + "\n" + doc[at:]
    DOC.write_text(doc, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ms", type=int, default=500, help="how long the tool waits")
    ap.add_argument("--calls", default="32,256", help="comma-separated N")
    ap.add_argument("--only", choices=("stdio", "http"), help="one transport")
    ap.add_argument("--peers", help="comma-separated subset of mcpcxx,mcpcxx-mw,sdk,fastmcp,cpp")
    ap.add_argument("--write", action="store_true", help="replace the docs/benchmarks.md section")
    args = ap.parse_args()
    if args.write and args.ms != 500:
        # The section's prose explains the figures for 0.5 s waits (rounds of 0.5 s, the floor).
        ap.error("--write publishes 0.5 s waits only: drop --ms, or drop --write to just print")
    global WAIT_S
    WAIT_S = args.ms / 1000
    only = set(args.peers.split(",")) if args.peers else None
    peers, skipped = discover_peers(only)
    for s in skipped:
        print(f"skipping {s}", flush=True)
    if not any(p.key == "mcpcxx" for p in peers):
        print("mcpcxx is not available; nothing to compare", file=sys.stderr)
        return 1
    versions = {"sdk": package_version(sys.executable, "mcp")}
    versions["uvicorn"] = package_version(sys.executable, "uvicorn")
    if any(p.key == "fastmcp" for p in peers):
        versions["fastmcp"] = package_version(str(VENV_PYTHON), "fastmcp")
    transports = [args.only] if args.only else ["stdio", "http"]
    ns = [int(x) for x in args.calls.split(",")]
    rows = rows_for(transports, ns)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    with tempfile.NamedTemporaryFile(
        "wb", prefix="bench-waiting-", suffix=".log", delete=False
    ) as log:
        print(f"server stderr goes to {log.name}", flush=True)
        cells = measure(peers, rows, args.repeats, args.ms, log)
    load1 = os.getloadavg()[0]
    print(f"measured in {time.monotonic() - t0:.0f} s", flush=True)
    argv = ["python3", "bench/waiting/run.py", *sys.argv[1:]]
    text = section(
        command=shlex.join(argv),
        started=started,
        repeats=args.repeats,
        peers=peers,
        skipped=skipped,
        rows=rows,
        cells=cells,
        versions=versions,
        loads=(load0, load1),
    )
    print()
    print(text)
    if args.write:
        write_section(text)
        print(f"wrote {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
