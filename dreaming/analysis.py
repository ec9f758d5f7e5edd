"""Usage analysis: what the agent asked for since the last dream, and what the limits cost it.

Pure functions over `UsageRow`s (no database), so they are tested on synthetic logs.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from capabilities.resources import Dimension, GrantStatus, Number
from memory.models import UsageRow


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) by nearest rank, or None for no values."""
    data = sorted(values)
    if not data:
        return None
    rank = max(1, math.ceil(q / 100 * len(data)))
    return data[min(rank, len(data)) - 1]


@dataclass(frozen=True)
class ClampedTurn:
    """One turn whose request for a dimension was pulled into range: the evidence a proposal links to."""

    usage_id: int
    user_id: int
    thread_id: str
    turn_id: int | None
    requested: Number
    provided: Number
    followed_by_signal: str | None
    excerpt: str


@dataclass
class DimensionStats:
    """How one dimension was used in the window."""

    dimension: Dimension
    turns: int = 0
    requested: Counter[Number] = field(default_factory=Counter[Number])
    at_max: list[ClampedTurn] = field(default_factory=list[ClampedTurn])
    at_min: list[ClampedTurn] = field(default_factory=list[ClampedTurn])
    unclamped_turns: int = 0
    unclamped_followups: int = 0

    def clamped(self, bound: str) -> list[ClampedTurn]:
        """The turns clamped at one bound ("max" or "min")."""
        return self.at_max if bound == "max" else self.at_min

    def followup_rate_clamped(self, bound: str) -> float | None:
        """Share of the turns clamped at `bound` that the user followed with a missing-context signal."""
        turns = self.clamped(bound)
        return sum(1 for t in turns if t.followed_by_signal) / len(turns) if turns else None

    @property
    def followup_rate_unclamped(self) -> float | None:
        """The same share for turns that got what they asked (the baseline to compare with)."""
        return self.unclamped_followups / self.unclamped_turns if self.unclamped_turns else None


@dataclass
class UsageAnalysis:
    """The whole window: per-dimension stats plus latency and memory percentiles."""

    rows: int
    threads: int
    dimensions: dict[Dimension, DimensionStats]
    percentiles: dict[str, dict[str, float | None]]
    peak_rss_mb: float | None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (stored in the run and shown by `reverie dream proposals`)."""
        dims = {
            d.name: {
                "turns": s.turns,
                "hit_max": len(s.at_max),
                "hit_min": len(s.at_min),
                "requested": {str(k): v for k, v in sorted(s.requested.items())},
                "followup_rate_at_max": s.followup_rate_clamped("max"),
                "followup_rate_unclamped": s.followup_rate_unclamped,
            }
            for d, s in self.dimensions.items()
        }
        return {"rows": self.rows, "threads": self.threads, "dimensions": dims, "percentiles": self.percentiles}


def _grants(row: UsageRow) -> dict[str, Any]:
    try:
        data = json.loads(row.request or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _observe(stats: DimensionStats, row: UsageRow, grant: dict[str, Any]) -> None:
    requested, provided, status = grant.get("requested"), grant.get("provided"), grant.get("status")
    if not isinstance(provided, int | float):
        return
    stats.turns += 1
    if isinstance(requested, int | float) and not isinstance(requested, bool):
        stats.requested[requested] += 1
    if status in (GrantStatus.CLAMPED_TO_MAX, GrantStatus.CLAMPED_TO_MIN) and isinstance(requested, int | float):
        assert row.id is not None
        turn = ClampedTurn(
            row.id, row.user_id, row.thread_id, row.turn_id, requested, provided,
            row.followed_by_signal, row.message_excerpt,
        )  # fmt: skip
        stats.clamped("max" if status == GrantStatus.CLAMPED_TO_MAX else "min").append(turn)
    else:
        stats.unclamped_turns += 1
        stats.unclamped_followups += 1 if row.followed_by_signal else 0


def _spread(values: list[float]) -> dict[str, float | None]:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": max(values, default=None)}


def analyze(rows: Sequence[UsageRow]) -> UsageAnalysis:
    """Per dimension: hits at the max and min, requested values, follow-ups after clamped vs other
    turns; overall: retrieval/request/generation latency and RSS percentiles."""
    stats = {d: DimensionStats(d) for d in Dimension}
    for row in rows:
        grants = _grants(row)
        for dim in Dimension:
            grant = grants.get(dim.name)
            if isinstance(grant, dict):
                _observe(stats[dim], row, grant)
    series: dict[str, list[float]] = {"retrieval_ms": [], "request_ms": [], "generation_ms": [], "rss_mb": []}
    for row in rows:
        for name, values in series.items():
            value = getattr(row, name)
            if value is not None:
                values.append(float(value))
    return UsageAnalysis(
        rows=len(rows),
        threads=len({(r.user_id, r.thread_id) for r in rows}),
        dimensions=stats,
        percentiles={name: _spread(values) for name, values in series.items()},
        peak_rss_mb=max(series["rss_mb"], default=None),
    )
