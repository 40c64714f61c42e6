"""The report of bench/peers: the markdown section of docs/benchmarks.md and the SVG chart."""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import statistics
import subprocess

from servers import KINDS, PINS, ROOT, Peer, Samples

DASH = "\u2013"  # an empty table cell


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
        if p.stdio is None:  # an HTTP-only variant
            continue
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

    floor, cpp, py = find("floor"), find("mcpcxx, C++ tool (example"), find("mcpcxx, Python")
    cpp_inline = find("mcpcxx, C++ tool, inline")
    py_inline = find("mcpcxx, Python tool, inline")
    rmcp, sdk = find(f"rmcp {PINS['rmcp']} (stdio_pipes"), find("official Python SDK")
    out = [
        f"- mcpcxx C++ tool / floor, stdio echo: sequential {ratio(cpp, floor, 'echo_1')}, "
        f"32 in flight {ratio(cpp, floor, 'echo_32')}; with inline tools: sequential "
        f"{ratio(cpp_inline, floor, 'echo_1')}, "
        f"32 in flight {ratio(cpp_inline, floor, 'echo_32')}.",
        f"- mcpcxx Python tool / official Python SDK, stdio echo sequential: "
        f"{ratio(py, sdk, 'echo_1')} (inline tools {ratio(py_inline, sdk, 'echo_1')}); "
        f"mcpcxx Python tool / rmcp `stdio_pipes()`, 32 in flight: {ratio(py, rmcp, 'echo_32')} "
        f"(inline tools {ratio(py_inline, rmcp, 'echo_32')}).",
    ]
    for who in (cpp, cpp_inline, py, py_inline):
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
    if max(loads) <= 1.5 * (os.cpu_count() or 1):
        # The measured client and the server's threads are runnable at once, so the benchmark
        # alone loads the machine about to its CPU count.
        return (
            "The load stayed under 1.5 times the CPU count, which the benchmark's own client and"
            " server threads reach by themselves."
        )
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
the 2025-11-25 handshake; its calls/s come from the C++ driver `bench/stdio_load.cpp`, each timed
run in a fresh server process after {args.warmup:,} untimed calls (a Python client bounded a
sequential run at about 12,000 calls/s, the floor's included); HTTP is keep-alive, one request
in flight per connection (bench/http_load/load.cpp), echo only; "{DASH}" = not supported or
failed (see below). The TypeScript SDK 1.x speaks up to 2025-11-25 only (its v2 packages serve
2026-07-28; not measured here); the Go SDK serves 2026-07-28 from a `Stateless: true` handler,
its session handler rejects that revision.

{tables(all_peers, res)}
Ratios from this run:

{ratios(all_peers, res)}
![peer benchmark chart](peers-benchmark.svg)

Failures and gaps in this run:

{failures}
"""
