"""Trials that end: an approved change is watched by the dreams that follow it, and reverted when it hurts.

Each dream compares the usage since the change (the trial window) with as long a window before
it, on what the change could make worse:

- memory: the peak RSS of the trial window reaching BREACH_SHARE of the memory budget;
- speed: the p95 turn time (request + retrieval + generation) more than SLOWER times the
  window before's, with at least MIN_TURNS turns on each side;
- answers: missing-context signals after the trial's turns more often than before, by the same
  one-sided Fisher test that made the proposal (`dreaming.analysis.Harm`);
- answer quality: replies said at low confidence (the answer path's calibrated confidence, kept
  with each query; an "I don't know" is one) more often than before, by the same test.

An adjustment of the request policy (`policy:<kind>`, `dreaming.policy`) changes only the turns of
its kind, so it is judged on those turns alone: the rest would dilute what it did.

Any of these reverts the change at once, with every one found and its figures as the reason (the
person sees it in `/dreams` and the morning summary, the agent in its next context). A trial that runs its course
without one is kept, and the dreams stop watching it. Pure over rows, so it is tested on
synthetic logs; `dreaming.dream` applies the verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from capabilities.request_policy import asking, kind_of, more_of
from capabilities.resources import Dimension, format_number
from dreaming.analysis import Harm, percentile, turn_ms
from dreaming.consolidation import aware
from memory.models import LimitOverrideRow, UsageRow

BREACH_SHARE = 0.9
SLOWER = 1.5
MIN_TURNS = 5


@dataclass(frozen=True)
class Verdict:
    """What a dream decides about one change on trial, and the sentence that says why."""

    override_id: int
    action: Literal["revert", "keep", "continue"]
    reason: str


def _what(override: LimitOverrideRow) -> str:
    if (kind := kind_of(override.dimension)) is not None:
        return f"#{override.id} ({asking(kind, more_of(override.default_value))}, proposal #{override.proposal_id})"
    dim = Dimension[override.dimension]
    bound, value = next(
        ((b, v) for b, v in (("max", override.max_value), ("min", override.min_value),
                             ("default", override.default_value)) if v is not None),
        ("max", 0.0),
    )  # fmt: skip
    shown = format_number(int(value) if dim.value.kind is int else value)
    return f"#{override.id} ({dim.label}: {dim.env_name(bound)} {shown}, proposal #{override.proposal_id})"  # pyright: ignore[reportArgumentType]


def judge(
    override: LimitOverrideRow, rows: Sequence[UsageRow], memory_limit_mb: float, now: datetime,
    confidence: Mapping[int, str] | None = None,
) -> Verdict:  # fmt: skip
    """The verdict on one change on trial from the usage rows around it (any window that covers both),
    and `confidence`: how sure each user turn's answer was, by turn id (the queries' record)."""
    assert override.id is not None
    if (kind := kind_of(override.dimension)) is not None:
        rows = [r for r in rows if kind_of(r.reason) == kind]
    start = aware(override.created_at)
    trial = [r for r in rows if aware(r.created_at) >= start]
    before = [r for r in rows if start - (now - start) <= aware(r.created_at) < start]
    peak = max((r.rss_mb for r in trial if r.rss_mb is not None), default=None)
    times = [t for r in trial if (t := turn_ms(r)) is not None]
    times_before = [t for r in before if (t := turn_ms(r)) is not None]
    p95, p95_before = percentile(times, 95), percentile(times_before, 95)
    unsure = Harm(*_unsure(trial, confidence or {}), *_unsure(before, confidence or {}))
    worse = [
        *_memory(peak, memory_limit_mb),
        *_slower(times, times_before, p95, p95_before),
        *_missed(trial, before),
        *([f"more replies were unsure or did not know during its trial ({_said(unsure)})"] if unsure.shown else []),
    ]
    what = _what(override)
    if worse:
        return Verdict(override.id, "revert", f"Reverted {what}: " + "; ".join(worse) + ".")
    figures = f"{len(trial)} turns, peak {peak or 0:.0f} MB, p95 {(p95 or 0) / 1000:.1f} s; {_said(unsure)}"
    if override.trial_until is not None and now >= aware(override.trial_until):
        return Verdict(override.id, "keep", f"Kept {what}: its trial ended with no regression ({figures}).")
    return Verdict(override.id, "continue", f"Trial of {what} goes on, nothing worse so far ({figures}).")


def _memory(peak: float | None, memory_limit_mb: float) -> list[str]:
    if peak is None or peak < BREACH_SHARE * memory_limit_mb:
        return []
    return [f"the peak memory during its trial, {peak:.0f} MB, reached {peak / memory_limit_mb:.0%} "
            f"of the {memory_limit_mb:.0f} MB budget"]  # fmt: skip


def _slower(times: Sequence[float], before: Sequence[float], p95: float | None, p95_before: float | None) -> list[str]:
    if (len(times) < MIN_TURNS or len(before) < MIN_TURNS or p95 is None or not p95_before
            or p95 <= SLOWER * p95_before):  # fmt: skip
        return []
    return [f"replies got slower during its trial (p95 {p95 / 1000:.1f} s against {p95_before / 1000:.1f} s "
            "the week before)"]  # fmt: skip


def _missed(trial: Sequence[UsageRow], before: Sequence[UsageRow]) -> list[str]:
    harm = Harm(len(trial), sum(1 for r in trial if r.followed_by_signal),
                len(before), sum(1 for r in before if r.followed_by_signal))  # fmt: skip
    if not harm.shown:
        return []
    return [f"more answers missed context during its trial than before "
            f"({harm.sentence('turns of the trial', 'turns before it')})"]  # fmt: skip


def _unsure(rows: Sequence[UsageRow], confidence: Mapping[int, str]) -> tuple[int, int]:
    """How many of these turns' answers are known, and how many of them were low confidence (an
    "I don't know" is said at low confidence)."""
    said = [confidence[r.turn_id] for r in rows if r.turn_id is not None and r.turn_id in confidence]
    return len(said), sum(1 for c in said if c == "low")


def _said(unsure: Harm) -> str:
    """The answer-quality figures in plain words."""
    if not unsure.clamped and not unsure.others:
        return "no replies with a recorded confidence"
    told = f"replies I was unsure of or could not answer: {unsure.clamped_signals} of {unsure.clamped} during the trial"
    p = f"; Fisher one-sided p = {unsure.p:.3f}" if unsure.clamped and unsure.others else ""
    return f"{told}, against {unsure.other_signals} of {unsure.others} before{p}"
