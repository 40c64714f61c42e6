"""Import time and RSS after import: `import mcpcxx` beside `import mcp` (the official SDK).

Each figure is the median of N fresh interpreter processes. Run with the interpreter whose
site-packages hold both packages, e.g. the test venv:

    build/venv-test/bin/python bench/import_compare.py --runs 15

Targets for mcpcxx: under 100 ms and under 30 MiB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = """
import time, sys
t0 = time.perf_counter()
{stmt}
elapsed = time.perf_counter() - t0
rss_kib = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("VmRSS:"):
            rss_kib = int(line.split()[1])
print(elapsed * 1000.0, rss_kib / 1024.0)
"""

CASES = {
    "python (baseline)": "pass",
    "import mcpcxx": "import mcpcxx",
    "mcpcxx + one tool": (
        "import mcpcxx\n"
        "s = mcpcxx.Server('bench')\n"
        "@s.tool\n"
        "def echo(text: str) -> str:\n"
        "    return text"
    ),
    "import mcp": "import mcp",
    "mcp MCPServer + one tool": (
        "from mcp.server import MCPServer\n"
        "s = MCPServer('bench')\n"
        "@s.tool()\n"
        "def echo(text: str) -> str:\n"
        "    return text"
    ),
}


def measure(stmt: str, runs: int) -> tuple[float, float] | None:
    """Median (milliseconds, MiB) over `runs` fresh processes, or None when it fails."""
    times, rss = [], []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", PROBE.format(stmt=stmt)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            return None
        ms, mib = proc.stdout.split()
        times.append(float(ms))
        rss.append(float(mib))
    return statistics.median(times), statistics.median(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    results = {name: measure(stmt, args.runs) for name, stmt in CASES.items()}
    if args.json:
        out = {k: None if v is None else {"ms": v[0], "rss_mib": v[1]} for k, v in results.items()}
        print(json.dumps({"runs": args.runs, "python": sys.version.split()[0], "results": out}))
        return 0
    print(f"median of {args.runs} fresh processes, Python {sys.version.split()[0]}")
    print(f"{'case':<28}{'import ms':>12}{'RSS MiB':>10}")
    for name, value in results.items():
        if value is None:
            print(f"{name:<28}{'(not installed)':>22}")
        else:
            print(f"{name:<28}{value[0]:>12.1f}{value[1]:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
