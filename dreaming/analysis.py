"""Usage analysis: what the agent asked for since the last dream, and what the limits cost it.

Pure functions over `UsageRow`s (no database), so they are tested on synthetic logs.

A limit is shown to hurt only by what the person did next: turns whose request was clamped are
followed by a missing-context signal (a re-ask, "as I said", "you forgot") clearly more often than
the turns that got what they asked (Fisher's exact test, one-sided). Asking past a limit is not
need by itself: a small model asks for the maximum, or for a threshold of 1.0, on every turn.
Such requests are counted as model failures and never as evidence: a value outside the
dimension's meaningful domain, or the very same request on every turn of several conversations.
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

MIN_CLAMPED = 3  # clamped turns at a bound before a comparison means anything
MIN_SIGNALS = 2  # of which at least this many were followed by a missing-context signal
SIGNIFICANCE = 0.05  # one-sided Fisher p: this unlikely by chance, or no proposal
DEGENERATE_TURNS = 8  # the same whole request on this many turns (in two threads or more) is no choice


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


def fisher_greater(hits: int, n: int, other_hits: int, other_n: int) -> float:
    """One-sided Fisher exact p: the chance of `hits` or more of `n` when the two groups share one
    rate (the hypergeometric tail). 1.0 when a group is empty."""
    if n == 0 or other_n == 0:
        return 1.0
    total, signals = n + other_n, hits + other_hits
    tail = sum(math.comb(signals, x) * math.comb(total - signals, n - x) for x in range(hits, min(signals, n) + 1))
    return tail / math.comb(total, n)


@dataclass(frozen=True)
class Harm:
    """Clamped turns at a bound against the turns that got what they asked: how often each was
    followed by a missing-context signal, and how unlikely that difference is by chance."""

    clamped: int
    clamped_signals: int
    others: int
    other_signals: int

    @property
    def p(self) -> float:
        return fisher_greater(self.clamped_signals, self.clamped, self.other_signals, self.others)

    @property
    def shown(self) -> bool:
        """Enough clamped turns, enough signals after them, more often than otherwise, and significant."""
        return (self.clamped >= MIN_CLAMPED and self.clamped_signals >= MIN_SIGNALS
                and self.clamped_signals * max(self.others, 1) > self.other_signals * self.clamped
                and self.p <= SIGNIFICANCE)  # fmt: skip

    def sentence(self, these: str = "clamped turns", others: str = "turns that got what they asked") -> str:
        """The counts in words: "3 of 4 … against 1 of 30 … (Fisher one-sided p = 0.002)"."""
        said = f"{self.clamped_signals} of {self.clamped} {these} were followed by a sign of missing context"
        if not self.others:
            return f"{said}, and there are no {others} to compare with"
        return f"{said}, against {self.other_signals} of {self.others} {others} (Fisher one-sided p = {self.p:.3f})"


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
    failures: int = 0  # requests outside the meaningful domain ("similarity 1.0"): the model's, not need

    def harm(self, bound: str) -> Harm:
        """The follow-up comparison for one bound (see the module docstring)."""
        turns = self.clamped(bound)
        signals = sum(1 for t in turns if t.followed_by_signal)
        return Harm(len(turns), signals, self.unclamped_turns, self.unclamped_followups)

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
    degenerate: str = ""  # the one request every turn made, when the model asked the same regardless

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
                "model_failures": s.failures,
                "p_at_max": round(s.harm("max").p, 4),
            }
            for d, s in self.dimensions.items()
        }
        return {"rows": self.rows, "threads": self.threads, "dimensions": dims, "percentiles": self.percentiles,
                "degenerate": self.degenerate}  # fmt: skip


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
        if not stats.dimension.meaningful(requested):
            stats.failures += 1  # a failure of the model's, neither need nor a baseline turn
            return
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


def turn_ms(row: UsageRow) -> float | None:
    """A turn's own time: request + retrieval + generation (None when none was recorded)."""
    parts = [p for p in (row.request_ms, row.retrieval_ms, row.generation_ms) if p is not None]
    return sum(parts) if parts else None


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
        degenerate=_degenerate(rows),
    )


def _degenerate(rows: Sequence[UsageRow]) -> str:
    """The request, in words, when every turn of several conversations asked exactly it; else ""."""
    asked = [_asked(r) for r in rows]
    threads = {(r.user_id, r.thread_id) for r in rows}
    if len(rows) < DEGENERATE_TURNS or len(threads) < 2 or len(set(asked)) != 1:
        return ""
    said = [f"{Dimension[name].label} {value}" for name, value in asked[0] if value is not None]
    return ", ".join(said)


def _asked(row: UsageRow) -> tuple[tuple[str, Any], ...]:
    grants = _grants(row)
    return tuple((d.name, g.get("requested")) for d in Dimension if isinstance(g := grants.get(d.name), dict))
