"""The clients of bench/peers: stdio throughput through the C++ driver, the stdio JSON-RPC client
(cold start, RSS), and the HTTP load run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from typing import Any

from servers import ECHO_TEXT, LEGACY_VERSION, Peer


def call_params(peer: Peer, kind: str) -> str:
    """The tools/call params of one kind of call, compact JSON."""
    args: dict[str, Any]
    if kind == "echo":
        name, args = "echo", {"text": ECHO_TEXT}
    elif kind == "fail":
        name, args = peer.fail_call
    elif kind == "bad_args":
        name, args = "echo", {"text": 5}
    else:
        name, args = "no_such_tool", {"text": ECHO_TEXT}
    return json.dumps({"name": name, "arguments": args}, separators=(",", ":"))


def request_template(peer: Peer, kind: str) -> bytes:
    """A tools/call line with the id left as %d."""
    params = call_params(peer, kind).replace("%", "%%")
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":' + params + "}\n").encode()


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


# What a reply to each kind must contain (one of `expect`) and must not (any of `reject`), as
# substrings, compact or with the space Python's json module puts after a colon.
REPLY_MARKERS: dict[str, tuple[list[str], list[str]]] = {
    "echo": ([json.dumps(ECHO_TEXT)], ['"isError":true', '"isError": true', '"error"']),
    "fail": (['"isError":true', '"isError": true'], []),
    "bad_args": (['"isError":true', '"isError": true'], []),
    "unknown": (['"error"', '"isError":true', '"isError": true'], []),
}


def driven_rate(
    stdio_load: str, peer: Peer, kind: str, in_flight: int, seconds: float, warmup: int
) -> float:
    """calls/s of one kind through bench/stdio_load.cpp, in a fresh server process.

    A C++ driver, so that its own round trip does not bound a sequential run (a Python client
    could not go past about 12,000 calls/s, the floor included). Raises RuntimeError when a reply
    is not what the kind must get, or the server fails.
    """
    assert peer.stdio is not None
    params = call_params(peer, kind)
    expect, reject = REPLY_MARKERS[kind]
    argv = [stdio_load, "--params", params, "--seconds", str(seconds), "--warmup", str(warmup)]
    argv += ["--window", str(in_flight)]
    for e in expect:
        argv += ["--expect", e]
    for r in reject:
        argv += ["--reject", r]
    out = subprocess.run(
        [*argv, "--", *peer.stdio],
        capture_output=True,
        text=True,
        env={**os.environ, **peer.env},
        timeout=seconds * 10 + 120,
    )
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
        raise RuntimeError(why[:200])
    return float(json.loads(out.stdout.strip().splitlines()[-1])["calls_per_s"])


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
