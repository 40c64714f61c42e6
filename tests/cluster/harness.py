"""Runs a cluster for the tests: a private redis-server, N replicas and nginx, all on free ports.

Cluster(folder).start() starts, in `folder`: redis-server (no persistence), N replicas of
cluster_server.py (each with MCPCXX_STORE_URL=redis://127.0.0.1:<port>/0 and one shared
MCPCXX_REQUEST_STATE_KEY), and nginx (round robin over them, nginx.conf.in). stop() ends all of
them (replicas with SIGTERM, then SIGKILL after a grace); the fixtures call it also when a test
failed. Every process writes its log into `folder`; logs() gives their tails for a failure report.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import os
import pathlib
import pwd
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
SERVER = HERE / "cluster_server.py"
NGINX_TEMPLATE = HERE / "nginx.conf.in"
REDIS_SERVER = os.environ.get("MCPCXX_REDIS_SERVER", "/usr/bin/redis-server")
NGINX = os.environ.get("MCPCXX_NGINX", "/usr/sbin/nginx")
SERVED = re.compile(r"serving MCP over HTTP at http://127\.0\.0\.1:(\d+)/mcp")
REPLICA_NAMES = ("r1", "r2", "r3")

REPORT: list[str] = []
"""Lines the tests record (counts, what failed and why); printed at the end of the run."""


def report(line: str) -> None:
    """Records a line for the run's summary (and prints it, for -s runs)."""
    REPORT.append(line)
    print(line)


def die_with_parent() -> None:
    """In a child before exec: SIGKILL when the test process dies, even without its teardown
    (prctl PR_SET_PDEATHSIG), so that no replica, nginx or Redis outlives a killed run."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def spawn(argv: list[str], **kw: Any) -> subprocess.Popen[bytes]:
    """Popen with stdin closed and die_with_parent()."""
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent, **kw)


def free_port() -> int:
    """A TCP port nobody listens on now (the caller retries if it is taken meanwhile)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(what: str, ready: Any, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    """Polls ready() until true; fails naming `what` if `proc` exits or `timeout` passes."""
    end = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} while starting")
        if time.monotonic() > end:
            raise RuntimeError(f"{what} did not become ready within {timeout} s")
        time.sleep(0.02)


def tail(path: pathlib.Path, lines: int = 40) -> str:
    """The last `lines` lines of a log file ("" when it does not exist)."""
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def stop_process(
    proc: subprocess.Popen[bytes], sig: int | None = signal.SIGTERM, grace: float = 15
) -> int:
    """Sends `sig` (None: already sent), waits up to `grace` s, then SIGKILL; the exit code."""
    if proc.poll() is None:
        if sig is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return int(proc.returncode)


class RedisError(Exception):
    """An error reply (-ERR ...) from Redis."""


class Resp:
    """A minimal RESP2 client: enough for PING, SCAN, TTL, DBSIZE and SHUTDOWN."""

    def __init__(self, port: int, timeout: float = 5) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")

    def __call__(self, *args: str | int | bytes) -> Any:
        """Sends one command and returns its decoded reply (bytes for bulk strings)."""
        parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        out = b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
        self.sock.sendall(out)
        return self._reply()

    def _reply(self) -> Any:
        line = self.file.readline()
        if not line:
            raise ConnectionError("redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RedisError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        raise RedisError(f"unexpected reply {line!r}")

    def close(self) -> None:
        """Closes the connection."""
        self.file.close()
        self.sock.close()


@dataclass
class Redis:
    """A private redis-server in `folder` on a free port (kept across restart())."""

    folder: pathlib.Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The store URL the replicas get."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Starts it (on the same port again after stop()); waits until it answers PING."""
        fixed = self.port != 0  # a restart keeps the port the replicas know
        for _ in range(1 if fixed else 5):
            self.port = self.port or free_port()
            argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1"]
            argv += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
            argv += ["--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")]
            self.proc = spawn(argv)
            try:
                wait_until("redis-server", self._answers, 10, self.proc)
                return
            except RuntimeError:
                if self.proc.poll() is None:
                    raise
                self.port = 0  # the port was taken meanwhile: another one
        raise RuntimeError("redis-server did not start:\n" + tail(self.folder / "redis.log"))

    def _answers(self) -> bool:
        try:
            return self.command("PING") == "PONG"
        except OSError:
            return False

    def command(self, *args: str | int) -> Any:
        """One command on a fresh connection."""
        conn = Resp(self.port)
        try:
            return conn(*args)
        finally:
            conn.close()

    def ttls(self) -> dict[str, int]:
        """Every key (SCAN) with its TTL in seconds (-1: none; keys gone meanwhile left out)."""
        conn = Resp(self.port)
        try:
            out: dict[str, int] = {}
            cursor = "0"
            while True:
                cursor_b, keys = conn("SCAN", cursor, "COUNT", 1000)
                for key in keys:
                    ttl = conn("TTL", key)
                    if ttl != -2:
                        out[key.decode(errors="replace")] = ttl
                cursor = cursor_b.decode()
                if cursor == "0":
                    return out
        finally:
            conn.close()

    def stop(self) -> None:
        """Stops it (SIGTERM; nothing is saved)."""
        if self.proc is not None:
            stop_process(self.proc, grace=10)
            self.proc = None


@dataclass
class Replica:
    """One replica process of the test server."""

    name: str
    log: pathlib.Path
    proc: subprocess.Popen[bytes]
    port: int = 0

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def read_port(self) -> bool:
        """Finds the port in the replica's log (it binds port 0); False until it is there."""
        m = SERVED.search(self.log.read_text(errors="replace")) if self.log.exists() else None
        if m:
            self.port = int(m.group(1))
        return m is not None


@dataclass
class Cluster:
    """Redis, `size` replicas of cluster_server.py and nginx, all started in `folder`."""

    folder: pathlib.Path
    size: int = 3
    env: dict[str, str] = field(default_factory=dict)
    redis: Redis = field(init=False)
    replicas: list[Replica] = field(default_factory=list)
    nginx: subprocess.Popen[bytes] | None = None
    port: int = 0
    state_key: str = field(
        default_factory=lambda: base64.b64encode(secrets.token_bytes(32)).decode()
    )

    def __post_init__(self) -> None:
        self.redis = Redis(self.folder)
        (self.folder / "markers").mkdir(exist_ok=True)

    @property
    def url(self) -> str:
        """The MCP endpoint behind nginx."""
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def access_log(self) -> pathlib.Path:
        """nginx's access log (format `mcp` in nginx.conf.in)."""
        return self.folder / "nginx-access.log"

    def start(self) -> Cluster:
        """Starts Redis, the replicas and nginx; stops what started if any of them fails."""
        try:
            self.redis.start()
            self.replicas = [self._start_replica(f"r{i + 1}") for i in range(self.size)]
            for r in self.replicas:
                wait_until(f"replica {r.name}", r.read_port, 30, r.proc)
            self._start_nginx()
        except BaseException:
            report = self.logs()
            self.stop()
            raise RuntimeError("the cluster did not start:\n" + report) from None
        return self

    def _start_replica(self, name: str) -> Replica:
        env = dict(os.environ)
        env.update(
            MCPCXX_STORE_URL=self.redis.url,
            MCPCXX_REQUEST_STATE_KEY=self.state_key,
            MCPCXX_CLUSTER_REPLICA=name,
            MCPCXX_CLUSTER_DIR=str(self.folder / "markers"),
            PYTHONUNBUFFERED="1",
        )
        env.update(self.env)
        log = self.folder / f"replica-{name}.log"
        with log.open("wb") as out:
            proc = spawn(
                [sys.executable, str(SERVER), "--port", "0"],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        return Replica(name, log, proc)

    def nginx_conf(self) -> str:
        """nginx.conf.in filled in for this cluster's folder, port and replicas."""
        servers = "\n".join(
            f"    server 127.0.0.1:{r.port} max_fails=1 fail_timeout=10s;" for r in self.replicas
        )
        names = "\n".join(f'    "~:{r.port}$" {r.name};' for r in self.replicas)
        user = f"user {pwd.getpwuid(0).pw_name};" if os.geteuid() == 0 else ""
        text = NGINX_TEMPLATE.read_text()
        for token, value in (
            ("@DIR@", str(self.folder)),
            ("@PORT@", str(self.port)),
            ("@USER@", user),
            ("@SERVERS@", servers),
            ("@REPLICA_MAP@", names),
        ):
            text = text.replace(token, value)
        return text

    def _start_nginx(self) -> None:
        conf = self.folder / "nginx.conf"
        for _ in range(5):
            self.port = free_port()
            conf.write_text(self.nginx_conf())
            argv = [NGINX, "-p", str(self.folder), "-c", str(conf)]
            argv += ["-e", str(self.folder / "nginx-error.log")]
            self.nginx = spawn(argv)
            try:
                wait_until("nginx", self._nginx_listens, 10, self.nginx)
                return
            except RuntimeError:
                if self.nginx.poll() is None or "in use" not in tail(
                    self.folder / "nginx-error.log", 2
                ):
                    raise
        raise RuntimeError("nginx did not start:\n" + tail(self.folder / "nginx-error.log"))

    def _nginx_listens(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def replica(self, name: str) -> Replica:
        """The replica called `name` ("r1")."""
        return next(r for r in self.replicas if r.name == name)

    def kill(self, name: str) -> float:
        """SIGKILL replica `name` (what a crash or an OOM kill does); reaps it and returns when
        it was dead (time.monotonic(): its sockets closed by then)."""
        r = self.replica(name)
        r.proc.kill()
        r.proc.wait(timeout=10)
        return time.monotonic()

    def stop(self) -> dict[str, int]:
        """Stops nginx, then the replicas (SIGTERM: they drain), then Redis; their exit codes."""
        codes = self.stop_serving()
        self.redis.stop()
        return codes

    def stop_serving(self) -> dict[str, int]:
        """Stops nginx, then the replicas (SIGTERM: they drain); their exit codes. Redis stays."""
        codes: dict[str, int] = {}
        if self.nginx is not None:
            codes["nginx"] = stop_process(self.nginx, signal.SIGQUIT, grace=10)
            self.nginx = None
        for r in self.replicas:
            if r.alive:
                r.proc.send_signal(signal.SIGTERM)
        for r in self.replicas:  # all drain at once; a second SIGTERM would cut a drain short
            codes[r.name] = stop_process(r.proc, None)
        return codes

    def logs(self) -> str:
        """The tail of every log in the folder, for a failure report."""
        names = ["redis.log", "nginx-error.log"] + [r.log.name for r in self.replicas]
        return "\n".join(f"---- {n} ----\n{tail(self.folder / n)}" for n in names)

    def served_by(self, request_id: str) -> list[tuple[str, str]]:
        """(upstream address, upstream status) pairs nginx logged for X-Request-Id `request_id`."""
        return [(e["upstream"], e["upstream_status"]) for e in self.access_entries(request_id)]

    def access_entries(self, request_id: str | None = None) -> list[dict[str, str]]:
        """nginx's access log as dicts (all entries, or those of one X-Request-Id)."""
        pattern = re.compile(r'(\S+) (\S+) (\S+) "([^"]*)" (\d+) "([^"]*)" "([^"]*)" (\S+)')
        out = []
        if not self.access_log.exists():
            return out
        for line in self.access_log.read_text().splitlines():
            m = pattern.match(line)
            if m and (request_id is None or m.group(2) == request_id):
                keys = ("time", "id", "method", "mcp_method", "status", "upstream")
                keys += ("upstream_status", "request_time")
                out.append(dict(zip(keys, m.groups(), strict=True)))
        return out

    def name_of(self, address: str) -> str:
        """The replica name of an upstream address "127.0.0.1:<port>" (the address otherwise)."""
        for r in self.replicas:
            if address.endswith(f":{r.port}"):
                return r.name
        return address


@contextlib.contextmanager
def running_cluster(folder: pathlib.Path, size: int = 3) -> Iterator[Cluster]:
    """A started Cluster, stopped at the end whatever happened."""
    cluster = Cluster(folder, size).start()
    try:
        yield cluster
    finally:
        cluster.stop()
