#!/usr/bin/env python3
"""Server memory under the abusive clients of issue 10 (a measurement, not a timed test).

For each client below a fresh C++ example server is started (build/dev, or --server) and its
VmRSS is read from /proc/PID/status before the client starts, sampled every 20 ms while it runs
(the peak of the samples, and VmHWM, the kernel's high-water mark), and read again after the
client is done and the server had a moment to settle:

  idle-connections  1,024 HTTP connections that never send a byte (held 3 s); a new client must
                    still be served meanwhile
  stdio-no-reader   a stdio client that sends 20,000 tools/call (echo of 1,000 bytes: 22 MB of
                    replies, over the 16 MiB outbound bound) and reads nothing for 3 s, then
                    reads every reply
  batch-4mb         one 2025-03-26 batch of about 4 MB over HTTP: 1,000 echo calls of 4,000 bytes
                    (the largest batch within max_batch_members), reply streamed as SSE events
  batch-too-many    one 2025-03-26 batch of about 4 MB with 36,000 members (refused whole, P28)
  reply-10mb-paused a 10 MB reply to a client that pauses reading for 5 s, then reads it all
                    (the example server has no tool with a 10 MB result, so the reply is a ping
                    whose 10 MB string id is echoed: the request is 10 MB too and the id is held
                    in several copies while it is served, which dominates the peak; body and
                    message limits raised to 16 MiB for this run only)

Prints a Markdown table (figures in MiB) and, with --json, the raw numbers.
Usage: python3 bench/memory/memory.py [--server PATH] [--only NAME ...] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import resource
import select
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_SERVER = ROOT / "build" / "dev" / "tests" / "fixtures" / "cpp" / "mcpcxx_example_server"
ACCEPT = "application/json, text/event-stream"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def status_kib(pid: int, key: str) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


@dataclass
class Figures:
    name: str
    before: int = 0
    peak: int = 0
    hwm: int = 0
    after: int = 0
    notes: list[str] = field(default_factory=list)


class Sampler:
    """Samples VmRSS of `pid` every 20 ms in a thread; keeps the peak."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                self.peak = max(self.peak, status_kib(self.pid, "VmRSS"))
            time.sleep(0.02)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(
    binary: pathlib.Path, env: dict[str, str] | None = None
) -> Iterator[tuple[int, int]]:
    port = free_port()
    full_env = dict(os.environ, MCPCXX_EXAMPLE_HTTP_PORT=str(port), **(env or {}))
    proc = subprocess.Popen([str(binary)], env=full_env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield proc.pid, port
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def http_request(
    port: int, body: bytes, headers: dict[str, str], timeout: float = 60
) -> tuple[int, dict[str, str], bytes]:
    """One POST on a fresh connection; returns status, lower-cased headers, the whole body."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request(
        "POST",
        "/mcp",
        body=body,
        headers={"Content-Type": "application/json", "Accept": ACCEPT, **headers},
    )
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data


def legacy_session(port: int, version: str) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "memory", "version": "1"},
        },
    }
    status, headers, _ = http_request(port, json.dumps(init).encode(), {})
    assert status == 200, status
    h = {"Mcp-Session-Id": headers["mcp-session-id"], "MCP-Protocol-Version": version}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert http_request(port, json.dumps(note).encode(), h)[0] == 202
    return h


def echo_call(i: int, text: str) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}},
    }


def measure(name: str, pid: int, client: Callable[[Figures], None], settle: float = 1.0) -> Figures:
    f = Figures(name)
    time.sleep(0.3)
    f.before = status_kib(pid, "VmRSS")
    with Sampler(pid) as s:
        client(f)
        time.sleep(settle)
    f.peak = s.peak
    f.hwm = status_kib(pid, "VmHWM")
    f.after = status_kib(pid, "VmRSS")
    return f


def idle_connections(binary: pathlib.Path) -> Figures:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4096)), hard))
    with http_server(binary) as (pid, port):

        def client(f: Figures) -> None:
            socks = []
            for _ in range(1024):
                socks.append(socket.create_connection(("127.0.0.1", port)))
            time.sleep(3)
            f.peak = status_kib(pid, "VmRSS")
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            f.notes.append(f"server held {fds} descriptors")
            call = echo_call(1, "still served")
            call["params"]["_meta"] = MODERN_META  # type: ignore[index]
            modern = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
            status, _, _ = http_request(
                port, json.dumps(call).encode(), {**modern, "Mcp-Name": "echo"}, timeout=15
            )
            f.notes.append(f"a new client during the flood got {status}")
            for s in socks:
                s.close()

        return measure("1,024 idle HTTP connections", pid, client)


def stdio_no_reader(binary: pathlib.Path) -> Figures:
    proc = subprocess.Popen(
        [str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:

        def client(f: Figures) -> None:
            assert proc.stdin is not None
            assert proc.stdout is not None
            call = echo_call(0, "x" * 1000)
            call["params"]["_meta"] = MODERN_META  # type: ignore[index]
            line = (json.dumps(call) + "\n").encode()
            sent = [0]

            def writer() -> None:
                assert proc.stdin is not None
                with contextlib.suppress(BrokenPipeError):
                    for i in range(20_000):
                        proc.stdin.write(line.replace(b'"id": 0', f'"id": {i + 1}'.encode()))
                        sent[0] += 1
                    proc.stdin.flush()

            t = threading.Thread(target=writer, daemon=True)
            t.start()
            time.sleep(3)  # the client reads nothing meanwhile
            f.notes.append(f"{sent[0]:,} calls written before the reader started")
            got = results = 0
            while got < 20_000 and (reply := proc.stdout.readline()):
                got += 1
                results += b'"result"' in reply
            t.join(30)
            f.notes.append(f"{got:,} replies read, {results:,} of them results")

        time.sleep(0.3)
        return measure("stdio client not reading, 20,000 calls", proc.pid, client)
    finally:
        proc.stdin.close()
        proc.wait(timeout=15)


def batch(
    binary: pathlib.Path, members: int, id_bytes: int, text_bytes: int, label: str
) -> Figures:
    """One batch of `members` echo calls; each member's string id (echoed in its reply) is padded
    to `id_bytes` so the reply is as large as the request."""
    with http_server(binary) as (pid, port):
        headers = legacy_session(port, "2025-03-26")

        def client(f: Figures) -> None:
            calls = []
            for i in range(members):
                call = echo_call(0, "x" * text_bytes)
                call["id"] = f"{i:06d}" + "i" * max(0, id_bytes - 6)
                calls.append(call)
            body = json.dumps(calls).encode()
            status, h, data = http_request(port, body, headers)
            f.notes.append(
                f"request {len(body) / 2**20:.1f} MiB, {status} {h.get('content-type')}, "
                f"reply {len(data) / 2**20:.2f} MiB"
            )

        return measure(label, pid, client)


def reply_10mb_paused(binary: pathlib.Path) -> Figures:
    env = {"MCPCXX_MAX_BODY_BYTES": str(16 << 20), "MCPCXX_MAX_MESSAGE_BYTES": str(16 << 20)}
    with http_server(binary, env) as (pid, port):
        headers = legacy_session(port, "2025-11-25")

        def client(f: Figures) -> None:
            body = json.dumps({"jsonrpc": "2.0", "id": "i" * (10 << 20), "method": "ping"}).encode()
            head = (
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + f"Accept: {ACCEPT}\r\n"
                + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                + f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            s.sendall(head + body)
            select.select([s], [], [], 30)  # the reply started: from here nothing is read
            at_start = status_kib(pid, "VmRSS")
            time.sleep(5)  # paused reader
            at_end = status_kib(pid, "VmRSS")
            f.notes.append(
                f"RSS {mib(at_start)} MiB as the reply started, {mib(at_end)} MiB after 5 s paused"
            )
            s.settimeout(30)
            got = 0
            while got < len(body):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                got += len(chunk)
            s.close()
            f.notes.append(f"{got / 2**20:.1f} MiB read after the pause")

        return measure("10 MB reply, reader paused 5 s", pid, client)


SCENARIOS: dict[str, Callable[[pathlib.Path], Figures]] = {
    "idle-connections": idle_connections,
    "stdio-no-reader": stdio_no_reader,
    "batch-4mb": lambda b: batch(b, 1000, 2900, 1000, "2025-03-26 batch, 4 MB, 1,000 members"),
    "batch-too-many": lambda b: batch(b, 36_000, 6, 1, "2025-03-26 batch, 4 MB, 36,000 members"),
    "reply-10mb-paused": reply_10mb_paused,
}


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--server", type=pathlib.Path, default=DEFAULT_SERVER)
    ap.add_argument("--only", nargs="*", choices=sorted(SCENARIOS))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = [SCENARIOS[n](args.server) for n in (args.only or SCENARIOS)]
    print("| Client | RSS before | RSS peak (sampled) | VmHWM | RSS after | Notes |")
    print("|---|---|---|---|---|---|")
    for r in results:
        cells = [r.name, mib(r.before), mib(max(r.peak, r.before)), mib(r.hwm), mib(r.after)]
        print("| " + " | ".join([*cells, "; ".join(r.notes)]) + " |")
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=2))


if __name__ == "__main__":
    main()
