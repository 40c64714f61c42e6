"""Cold start: milliseconds from spawn to the initialize response, median of --runs spawns.

    python3 bench/cold_start.py --cpp build/rel/tests/fixtures/cpp/mcpcxx_example_server --runs 21

Servers, interleaved within each round so machine load hits them alike:
  C++ example        tests/fixtures/cpp/example_server.cpp (the --cpp binary)
  Python echo        a one-tool mcpcxx server (the smallest Python server)
  Python fixture     tests/fixtures/python/fixture_server.py (13 tools, resources, prompts)
  python -c pass     the interpreter alone (spawn to exit), the floor of any Python server
  import mcpcxx      the interpreter plus `import mcpcxx` (spawn to exit)
  ... -S             the same without the site module (no site-packages .pth hooks: on a
                     machine whose site-packages runs heavy .pth files this shows how much of
                     the interpreter's start is theirs; PYTHONPATH still finds mcpcxx)
The stopwatch starts before fork/exec and stops when the initialize reply line arrives (or the
process exits, for the interpreter-only rows). Beside the wall-clock median, the child's CPU
time (user + system, to its exit) is reported: it moves far less with the load of a shared
machine. Children run with bytecode caching on (PYTHONDONTWRITEBYTECODE
removed), as after a pip install, and one untimed round warms the caches. Run with the
interpreter mcpcxx is importable from (PYTHONPATH). Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ECHO = """
import sys
from mcpcxx import Server
server = Server("bench")
@server.tool
def echo(text: str) -> str:
    return text
sys.exit(server.run())
"""
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"cold_start","version":"1"}}}\n'
)


def children_cpu_ms() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1000


CPU: dict[str, list[float]] = {}


def timed(name: str, run: Callable[[], float]) -> float:
    """Runs one measure and records the CPU time of its child under `name`."""
    before = children_cpu_ms()
    elapsed = run()
    CPU.setdefault(name, []).append(children_cpu_ms() - before)
    return elapsed


def until_initialized(command: list[str]) -> float:
    """Milliseconds from spawn to the first reply line."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    proc.stdin.close()
    proc.wait(timeout=10)
    if b'"result"' not in line:
        raise RuntimeError(f"{command[-1]}: no initialize result: {line[:200]!r}")
    return elapsed


def until_exit(command: list[str]) -> float:
    """Milliseconds from spawn to exit."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL, env=ENV)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--cpp", default=os.environ.get("MCPCXX_EXAMPLE_SERVER", ""))
    args = parser.parse_args()
    echo = os.path.join(tempfile.mkdtemp(prefix="mcpcxx-cold-"), "echo_server.py")
    with open(echo, "w") as f:
        f.write(ECHO)
    py = sys.executable
    measures: dict[str, Callable[[], float]] = {
        "Python echo (mcpcxx)": lambda: until_initialized([py, echo]),
        "Python fixture server": lambda: until_initialized(
            [py, os.path.join(ROOT, "tests", "fixtures", "python", "fixture_server.py")]
        ),
        "python -c pass": lambda: until_exit([py, "-c", "pass"]),
        "python -c 'import mcpcxx'": lambda: until_exit([py, "-c", "import mcpcxx"]),
        "Python echo, -S": lambda: until_initialized([py, "-S", echo]),
        "python -S -c pass": lambda: until_exit([py, "-S", "-c", "pass"]),
    }
    if args.cpp:
        measures = {"C++ example server": lambda: until_initialized([args.cpp]), **measures}
    times: dict[str, list[float]] = {name: [] for name in measures}
    for measure in measures.values():
        measure()  # untimed: writes the bytecode caches, warms the page cache
    for _ in range(args.runs):
        for name, measure in measures.items():
            times[name].append(timed(name, measure))
    print(f"spawn -> initialize response, ms, median of {args.runs} (min, max); child CPU ms")
    for name, t in times.items():
        cpu = statistics.median(CPU[name])
        print(f"{name:<28}{statistics.median(t):8.1f}   ({min(t):.1f}, {max(t):.1f})   {cpu:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
