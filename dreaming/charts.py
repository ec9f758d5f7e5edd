"""The dream report's charts as SVG images: no plotting library (none resident on a 2 GB box), text a
browser draws crisply, a few kilobytes each.

- `requested_chart`: for one proposal, how often each value was requested, with the current limit
  and the proposed value marked.
- `usage_chart`: per day of the usage log, the p95 turn time and the peak RSS (app and model),
  against the memory budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from html import escape

from capabilities.resources import Dimension, format_number
from dreaming.analysis import percentile, turn_ms
from memory.dreams import loads
from memory.models import ProposalRow, UsageRow

W, H, PAD = 560, 220, 44
_STYLE = "font-family:sans-serif;font-size:12px"
_BAR, _LIMIT, _NEW, _AXIS, _LINE2 = "#7c8cf8", "#e0a030", "#40b070", "#888888", "#d0605e"


def _svg(body: list[str], title: str) -> bytes:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
            f'style="{_STYLE}"><rect width="{W}" height="{H}" fill="white"/>'
            f'<text x="{PAD}" y="18" font-weight="bold">{escape(title)}</text>')  # fmt: skip
    return (head + "".join(body) + "</svg>").encode()


def requested_chart(row: ProposalRow) -> bytes:
    """Bars of the requested values of one proposal's dimension, the limit and the proposal marked."""
    dim = Dimension[row.dimension]
    counts = {float(k): int(v) for k, v in loads(row.evidence).get("requested", {}).items()}
    values = sorted({*counts, row.current_value, row.proposed_value})
    top = max(counts.values(), default=1)
    step = (W - 2 * PAD) / max(len(values), 1)
    base = H - 36
    body = [f'<line x1="{PAD}" y1="{base}" x2="{W - PAD}" y2="{base}" stroke="{_AXIS}"/>']
    for i, value in enumerate(values):
        x = PAD + i * step
        n = counts.get(value, 0)
        height = (base - 40) * n / top
        colour = _LIMIT if value == row.current_value else _NEW if value == row.proposed_value else _BAR
        shown = format_number(int(value) if dim.value.kind is int else value)
        mark = " (limit)" if value == row.current_value else " (proposed)" if value == row.proposed_value else ""
        body += [
            f'<rect x="{x + step * 0.15:.1f}" y="{base - height:.1f}" width="{step * 0.7:.1f}" height="{height:.1f}" '
            f'fill="{colour}"/>',
            f'<text x="{x + step / 2:.1f}" y="{base - height - 4:.1f}" text-anchor="middle">{n}</text>',
            f'<text x="{x + step / 2:.1f}" y="{base + 16}" text-anchor="middle">{escape(shown + mark)}</text>',
        ]  # fmt: skip
    title = f"{dim.label.capitalize()}: values requested (turns), limit and proposal"
    return _svg(body, title)


def usage_chart(rows: Sequence[UsageRow], memory_limit_mb: float) -> bytes | None:
    """Per day: p95 turn time (bars, seconds) and peak RSS (line, MB) against the budget; None
    without two days of usage."""
    times: dict[date, list[float]] = defaultdict(list)
    peaks: dict[date, float] = {}
    for r in rows:
        day = r.created_at.date()
        times[day].append((turn_ms(r) or 0.0) / 1000)
        if r.rss_mb is not None:
            peaks[day] = max(peaks.get(day, 0.0), r.rss_mb)
    days = sorted(times)[-28:]
    if len(days) < 2:
        return None
    p95 = [percentile(times[d], 95) or 0.0 for d in days]
    top_s = max(max(p95), 0.1)
    base, span = H - 36, H - 76
    step = (W - 2 * PAD) / len(days)

    def y_mb(mb: float) -> float:
        return base - span * min(mb, memory_limit_mb) / memory_limit_mb

    body = [f'<line x1="{PAD}" y1="{base}" x2="{W - PAD}" y2="{base}" stroke="{_AXIS}"/>',
            f'<line x1="{PAD}" y1="{y_mb(memory_limit_mb):.1f}" x2="{W - PAD}" y2="{y_mb(memory_limit_mb):.1f}" '
            f'stroke="{_LINE2}" stroke-dasharray="4 3"/>',
            f'<text x="{W - PAD}" y="{y_mb(memory_limit_mb) - 4:.1f}" text-anchor="end" fill="{_LINE2}">'
            f'budget {memory_limit_mb:.0f} MB</text>']  # fmt: skip
    points = []
    for i, day in enumerate(days):
        x = PAD + i * step
        height = 0.8 * span * p95[i] / top_s  # (below the budget line: another scale)
        body.append(f'<rect x="{x + step * 0.2:.1f}" y="{base - height:.1f}" width="{step * 0.6:.1f}" '
                    f'height="{height:.1f}" fill="{_BAR}"><title>{p95[i]:.1f} s</title></rect>')  # fmt: skip
        if day in peaks:
            points.append(f"{x + step / 2:.1f},{y_mb(peaks[day]):.1f}")
        if i in (0, len(days) - 1) or len(days) <= 8:
            body.append(f'<text x="{x + step / 2:.1f}" y="{base + 16}" text-anchor="middle">{day:%d %b}</text>')
    if points:
        body.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{_LINE2}" stroke-width="2"/>')
    peak = max(peaks.values(), default=0.0)
    title = f"Per day: p95 reply time (bars, highest {top_s:.1f} s) and peak memory (line, highest {peak:.0f} MB)"
    return _svg(body, title)
