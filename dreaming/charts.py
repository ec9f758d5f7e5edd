"""The dream report's charts, as plain-data specs `dreaming.plot` draws as PNG (in a child process).

- `requested_spec`: for one proposal, how many turns requested each value, with the current limit
  and the proposed value marked.
- `usage_spec`: per day of the usage log, the p95 reply time and the peak RSS (app and model),
  against the memory budget.

Every text here is plain words: a dimension by its label, never its raw name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from typing import Any

from capabilities.resources import Dimension, format_number
from dreaming.analysis import percentile, turn_ms
from memory.dreams import loads
from memory.models import ProposalRow, UsageRow

DAYS_SHOWN = 28


def requested_spec(row: ProposalRow) -> dict[str, Any]:
    """Bars of the values one proposal's turns requested, the limit and the proposal marked."""
    dim = Dimension[row.dimension]
    counts = {float(k): int(v) for k, v in loads(row.evidence).get("requested", {}).items()}
    bars = []
    for value in sorted({*counts, row.current_value, row.proposed_value}):
        role = "limit" if value == row.current_value else "proposed" if value == row.proposed_value else "asked"
        shown = format_number(int(value) if dim.value.kind is int else value)
        bars.append([shown + {"limit": "\n(limit)", "proposed": "\n(proposed)", "asked": ""}[role],
                     counts.get(value, 0), role])  # fmt: skip
    return {"kind": "bars", "title": f"{dim.label.capitalize()}: how many turns asked for each value",
            "xlabel": f"value asked for ({dim.label})", "ylabel": "turns", "bars": bars}  # fmt: skip


def usage_spec(rows: Sequence[UsageRow], memory_limit_mb: float) -> dict[str, Any] | None:
    """Per day: p95 reply time and peak RSS against the budget; None without two days of usage."""
    times: dict[date, list[float]] = defaultdict(list)
    peaks: dict[date, float] = {}
    for r in rows:
        day = r.created_at.date()
        times[day].append((turn_ms(r) or 0.0) / 1000)
        if r.rss_mb is not None:
            peaks[day] = max(peaks.get(day, 0.0), r.rss_mb)
    days = sorted(times)[-DAYS_SHOWN:]
    if len(days) < 2:
        return None
    return {"kind": "days", "title": "Each day: how long replies took and how much memory was used",
            "days": [f"{d:%d %b}" for d in days], "seconds": [percentile(times[d], 95) or 0.0 for d in days],
            "mb": [peaks.get(d) for d in days], "budget_mb": memory_limit_mb}  # fmt: skip
