"""What the scale-out benchmarks share: the cluster tests' harness and raw client
(tests/cluster/harness.py, tests/cluster/wire.py), replicas of bench_server.py, the C++ load driver
(bench/http_load/load.cpp) and small statistics.

Every process is started by harness.Cluster in a temporary folder on free loopback ports
(a private redis-server, N replicas, nginx) and stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "cluster"))

import harness  # noqa: E402
import wire  # noqa: E402

harness.SERVER = HERE / "bench_server.py"  # the tests' server plus a prompt and a quiet task


def endpoint(replica: harness.Replica) -> wire.Endpoint:
    """The MCP endpoint of one replica, without nginx."""
    return wire.Endpoint(f"http://127.0.0.1:{replica.port}/mcp", timeout=30)


class BenchCluster(harness.Cluster):
    """The tests' cluster, with nginx keeping a client connection open for any number of
    requests: nginx closes one after 1000 by default (keepalive_requests), which the load driver
    (one connection per simulated client, no reconnect) would count as a failure."""

    def nginx_conf(self) -> str:
        listen = "    listen 127.0.0.1:"
        return super().nginx_conf().replace(listen, "    keepalive_requests 1000000;\n" + listen)


@contextlib.contextmanager
def cluster(size: int, store: bool = True) -> Iterator[harness.Cluster]:
    """Redis, `size` replicas and nginx, started in a temporary folder and stopped at the end.
    Without `store` the replicas keep their state in memory (MCPCXX_STORE_URL empty); Redis and
    nginx still run, unused by them."""
    with tempfile.TemporaryDirectory(prefix="mcpcxx-bench-cluster-") as folder:
        c = BenchCluster(pathlib.Path(folder), size)
        if not store:
            c.env["MCPCXX_STORE_URL"] = ""
        c.start()
        try:
            yield c
        except BaseException:
            print(f"---- the cluster's logs ----\n{c.logs()}", file=sys.stderr)
            raise
        finally:
            c.stop()


def build_load_driver(out_dir: pathlib.Path) -> pathlib.Path:
    """Compiles bench/http_load/load.cpp (g++ -O2) into `out_dir` unless it is up to date."""
    source = ROOT / "bench" / "http_load" / "load.cpp"
    binary = out_dir / "mcpcxx-http-load"
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        out_dir.mkdir(parents=True, exist_ok=True)
        cmd = ["g++", "-std=c++20", "-O2", "-pthread", str(source), "-o", str(binary)]
        subprocess.run(cmd, check=True)
    return binary


def run_load(
    driver: pathlib.Path, port: int, era: str, connections: int, seconds: float, warmup: float
) -> dict[str, Any]:
    """One load run (keep-alive tools/call of echo; legacy: one session per connection): the
    driver's JSON line (requests, errors, rps, p50_ms, p90_ms, p99_ms)."""
    argv = [str(driver), "--port", str(port), "--era", era, "--connections", str(connections)]
    argv += ["--seconds", str(seconds), "--warmup", str(warmup)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + warmup + 60)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"load driver failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def percentiles(samples: list[float]) -> dict[str, float]:
    """n, p50 and p99 (nearest rank) of `samples`, in the samples' unit."""
    if not samples:
        return {"n": 0, "p50": float("nan"), "p99": float("nan")}
    s = sorted(samples)
    return {
        "n": len(s),
        "p50": statistics.median(s),
        "p99": s[min(len(s) - 1, int(0.99 * (len(s) - 1) + 0.5))],
    }
