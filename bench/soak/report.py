"""Soak statistics and their presentation: latency histogram, RSS slope, Markdown, SVG."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

BEGIN = "<!-- soak:begin -->"
END = "<!-- soak:end -->"

# Latency buckets grow by 2 %: percentiles are exact to that resolution at any duration.
_BUCKET_BASE = math.log(1.02)


class Histogram:
    """Latencies in log buckets (constant memory however long the soak runs)."""

    def __init__(self) -> None:
        self.count = 0
        self._buckets: dict[int, int] = {}

    def add(self, seconds: float) -> None:
        self.count += 1
        key = int(math.log(max(seconds, 1e-7)) / _BUCKET_BASE)
        self._buckets[key] = self._buckets.get(key, 0) + 1

    def percentile(self, p: float) -> float:
        """The p-th percentile in seconds (upper edge of its bucket); 0 when empty."""
        if self.count == 0:
            return 0.0
        rank = p / 100.0 * self.count
        seen = 0
        for key in sorted(self._buckets):
            seen += self._buckets[key]
            if seen >= rank:
                return math.exp((key + 1) * _BUCKET_BASE)
        return math.exp((max(self._buckets) + 1) * _BUCKET_BASE)


@dataclass
class StreamStats:
    """One client stream (a transport, an era, a server): counts and latencies."""

    label: str
    latency: Histogram = field(default_factory=Histogram)
    failures: int = 0
    first_failure: str = ""
    per_op: dict[str, int] = field(default_factory=dict)


@dataclass
class RssSeries:
    """One server process's resident set size sampled over the run."""

    label: str
    times: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)


def slope_mib_per_hour(times: list[float], values: list[float]) -> float:
    """Least-squares slope of values over times, scaled to MiB per hour."""
    n = len(times)
    if n < 2:
        return 0.0
    mt = sum(times) / n
    mv = sum(values) / n
    var = sum((t - mt) ** 2 for t in times)
    if var == 0:
        return 0.0
    cov = sum((t - mt) * (v - mv) for t, v in zip(times, values, strict=True))
    return cov / var * 3600.0


@dataclass
class RssVerdict:
    """RSS after warm-up: its range, fitted slope and whether it counts as flat."""

    start: float
    end: float
    peak: float
    slope: float
    flat: bool


def rss_verdict(series: RssSeries, warmup: float) -> RssVerdict:
    """Judges the samples after `warmup` seconds: flat when the fitted growth over that window
    stays under 1 MiB or 2 % of the RSS, whichever is larger."""
    pairs = [(t, v) for t, v in zip(series.times, series.rss_mib, strict=True) if t >= warmup]
    if len(pairs) < 2:
        pairs = list(zip(series.times, series.rss_mib, strict=True))
    times = [t for t, _ in pairs]
    values = [v for _, v in pairs]
    slope = slope_mib_per_hour(times, values)
    window = (times[-1] - times[0]) / 3600.0 if times else 0.0
    tolerance = max(1.0, 0.02 * max(values, default=0.0))
    return RssVerdict(
        start=values[0] if values else 0.0,
        end=values[-1] if values else 0.0,
        peak=max(values, default=0.0),
        slope=slope,
        flat=abs(slope * window) < tolerance,
    )


def markdown(
    header: str,
    streams: list[StreamStats],
    series: list[RssSeries],
    duration: float,
    warmup: float,
    svg_name: str,
) -> str:
    """The soak section of docs/benchmarks.md (without the markers)."""
    lines = [header, ""]
    lines += [
        "| stream | calls | calls/s | p50 ms | p99 ms | wrong replies |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in streams:
        rate = s.latency.count / duration if duration else 0.0
        lines.append(
            f"| {s.label} | {s.latency.count:,} | {rate:,.0f} | "
            f"{s.latency.percentile(50) * 1e3:.3f} | {s.latency.percentile(99) * 1e3:.3f} | "
            f"{s.failures} |"
        )
    lines += [
        "",
        f"RSS of each server process after the {warmup:.0f} s warm-up (sampled every second; "
        "slope by least squares; flat = fitted growth over the window under max(1 MiB, 2 %)):",
        "",
        "| server process | RSS at warm-up end MiB | RSS at end MiB | peak MiB | slope MiB/h "
        "| flat |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in series:
        v = rss_verdict(r, warmup)
        lines.append(
            f"| {r.label} | {v.start:.1f} | {v.end:.1f} | {v.peak:.1f} | {v.slope:+.2f} | "
            f"{'yes' if v.flat else '**no**'} |"
        )
    lines += ["", f"![RSS and throughput over time]({svg_name})", ""]
    return "\n".join(lines)


def write_section(doc: Path, body: str) -> None:
    """Replaces the text between the soak markers of `doc` (appending the markers if absent)."""
    text = doc.read_text() if doc.exists() else ""
    if BEGIN not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n{BEGIN}\n{END}\n"
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    text = pattern.sub(lambda _: f"{BEGIN}\n{body}\n{END}", text, count=1)
    doc.write_text(text)


_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def svg(series: list[RssSeries], duration: float, warmup: float) -> str:
    """Two panels over time: RSS (MiB) of each server process, and its calls/s."""
    width, panel, left, top = 760, 220, 64, 30
    height = top + 2 * panel + 90
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    rates = [_rates(r) for r in series]
    rss_max = max((max(r.rss_mib, default=0.0) for r in series), default=1.0) * 1.15 or 1.0
    rate_max = max((max(x, default=0.0) for x in rates), default=1.0) * 1.15 or 1.0
    plot_w = width - left - 20
    panels = (
        ("RSS (MiB)", rss_max, [r.rss_mib for r in series], top),
        ("calls/s", rate_max, rates, top + panel + 30),
    )
    for title, vmax, values, y0 in panels:
        parts += _axes(title, vmax, duration, warmup, left, y0, plot_w, panel - 30)
        for i, (r, vals) in enumerate(zip(series, values, strict=True)):
            pts = _points(r.times, vals, duration, vmax, left, y0, plot_w, panel - 30)
            parts.append(
                f'<polyline fill="none" stroke="{_COLORS[i % len(_COLORS)]}" '
                f'stroke-width="1.5" points="{pts}"/>'
            )
    legend_y = top + 2 * panel + 25
    for i, r in enumerate(series):
        x = left + (i % 3) * 230
        y = legend_y + (i // 3) * 16
        parts.append(
            f'<rect x="{x}" y="{y - 9}" width="12" height="3" fill="{_COLORS[i % len(_COLORS)]}"/>'
            f'<text x="{x + 16}" y="{y}">{_escape(r.label)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _rates(r: RssSeries) -> list[float]:
    out = [0.0]
    for i in range(1, len(r.times)):
        dt = r.times[i] - r.times[i - 1]
        out.append((r.calls[i] - r.calls[i - 1]) / dt if dt > 0 else 0.0)
    return out


def _points(
    times: list[float],
    vals: list[float],
    duration: float,
    vmax: float,
    left: int,
    y0: int,
    w: int,
    h: int,
) -> str:
    step = max(1, len(times) // 600)  # at most ~600 points per line, however long the run
    pts = []
    for i in range(0, len(times), step):
        x = left + w * min(times[i] / duration, 1.0) if duration else left
        y = y0 + h - h * (vals[i] / vmax)
        pts.append(f"{x:.1f},{y:.1f}")
    return " ".join(pts)


def _axes(
    title: str,
    vmax: float,
    duration: float,
    warmup: float,
    left: int,
    y0: int,
    w: int,
    h: int,
) -> list[str]:
    out = [
        f'<text x="{left}" y="{y0 - 8}" font-weight="bold">{title}</text>',
        f'<line x1="{left}" y1="{y0 + h}" x2="{left + w}" y2="{y0 + h}" stroke="black"/>',
        f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{y0 + h}" stroke="black"/>',
    ]
    for k in range(5):
        v = vmax * k / 4
        y = y0 + h - h * k / 4
        label = f"{v:,.1f}" if vmax < 100 else f"{v:,.0f}"
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + w}" y2="{y:.1f}" stroke="#eee"/>')
    for k in range(6):
        t = duration * k / 5
        x = left + w * k / 5
        out.append(f'<text x="{x:.1f}" y="{y0 + h + 14}" text-anchor="middle">{t:,.0f} s</text>')
    if duration:
        wx = left + w * min(warmup / duration, 1.0)
        out.append(
            f'<line x1="{wx:.1f}" y1="{y0}" x2="{wx:.1f}" y2="{y0 + h}" stroke="#999" '
            f'stroke-dasharray="4 3"/><text x="{wx + 4:.1f}" y="{y0 + 10}" fill="#666">'
            "warm-up end</text>"
        )
    return out


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
