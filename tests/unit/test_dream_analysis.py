"""Usage analysis, candidate values, crash risk and reminder timing on synthetic data (no database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from capabilities.resources import Dimension, Limits, ResourceRequest, clamp
from dreaming.analysis import analyze, fisher_greater, percentile
from dreaming.proposals import candidates
from dreaming.simulation import crash_risk
from memory.models import UsageRow
from memory.reminders import PastDue, ReminderError, due_time

LIMITS = Limits.from_values()
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def row(i: int, thread: str, turns: int | None, *, followed: bool = False, rss: float = 400.0) -> UsageRow:
    """A usage row as app/chat.py writes it: the Provision's as_dict() form."""
    provision = clamp(ResourceRequest(context_turns=turns, reason="test"), LIMITS)
    return UsageRow.model_validate(
        {
            "id": i, "user_id": 1, "thread_id": thread, "turn_id": 100 + i, "created_at": NOW,
            "message_excerpt": f"message {i}", "request": json.dumps(provision.as_dict()),
            "clamped": json.dumps([g.dimension.name for g in provision.clamped]),
            "retrieval_ms": float(i), "rss_mb": rss, "followed_by_signal": "explicit_reference" if followed else None,
        }
    )  # fmt: skip


def test_dream_analysis_counts_clamps_distribution_and_followups() -> None:
    rows = [row(i, f"t{i % 4}", 30, followed=i < 3) for i in range(1, 6)]  # 5 clamped at max, 2 followed
    rows += [row(i, f"t{i}", 10, followed=i == 6) for i in range(6, 11)]  # 5 as requested, 1 followed
    rows += [row(11, "t9", None)]  # defaulted: no requested value
    result = analyze(rows)
    stats = result.dimensions[Dimension.CONTEXT_TURNS]
    assert (len(stats.at_max), len(stats.at_min), stats.turns) == (5, 0, 11)
    assert dict(stats.requested) == {30: 5, 10: 5}
    assert stats.followup_rate_clamped("max") == pytest.approx(2 / 5)
    assert stats.followup_rate_unclamped == pytest.approx(1 / 6)
    assert result.threads == len({r.thread_id for r in rows})
    assert result.percentiles["retrieval_ms"] == {"p50": 6.0, "p95": 11.0, "max": 11.0}
    assert result.peak_rss_mb == 400.0
    assert result.dimensions[Dimension.VECTOR_LIMIT].at_max == []


def test_dream_analysis_empty_log_has_no_evidence() -> None:
    result = analyze([])
    assert result.rows == 0 and result.peak_rss_mb is None
    assert all(not s.at_max and not s.at_min for s in result.dimensions.values())


def test_dream_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([5, 1, 3], 50) == 3
    assert percentile(list(range(1, 101)), 95) == 95


def test_dream_candidates_cover_most_requests_and_offer_a_half_step() -> None:
    rows = [row(i, "t", v) for i, v in enumerate([25, 25, 30, 30, 40], start=1)]
    turns = analyze(rows).dimensions[Dimension.CONTEXT_TURNS].at_max
    main, half = candidates(Dimension.CONTEXT_TURNS, "max", 20, turns)
    assert (main.value, main.covers) == (30, 4)
    assert (half.value, half.covers) == (25, 2)


def test_dream_candidates_respect_the_dimension_ceiling() -> None:
    provision = clamp(ResourceRequest(triple_depth=5), LIMITS)  # (9 would be past the ceiling: a failure)
    assert provision.grant(Dimension.TRIPLE_DEPTH).provided == 3
    rows = [row(i, "t", None) for i in range(1, 4)]
    for r in rows:
        r.request = json.dumps(provision.as_dict())
    turns = analyze(rows).dimensions[Dimension.TRIPLE_DEPTH].at_max
    assert [c.value for c in candidates(Dimension.TRIPLE_DEPTH, "max", 3, turns)] == [5, 4]
    assert candidates(Dimension.TRIPLE_DEPTH, "max", 5, turns) == []


@pytest.mark.parametrize(("peak", "risk"), [(1000, "LOW"), (1433, "LOW"), (1434, "MEDIUM"), (1844, "HIGH")])
def test_dream_crash_risk_against_the_memory_limit(peak: float, risk: str) -> None:
    assert crash_risk(peak, 2048) == risk


def test_dream_reminder_due_time_failsafe_and_agent_choice() -> None:
    assert due_time(NOW, 120) == (NOW + timedelta(minutes=120), "failsafe")
    assert due_time(NOW, 120, interval_minutes=15) == (NOW + timedelta(minutes=15), "agent_interval")
    at = NOW + timedelta(days=1)
    assert due_time(NOW, 120, due_at=at) == (at, "agent_time")
    with pytest.raises(PastDue):  # never moved to now: the person is asked for another time
        due_time(NOW, 120, due_at=NOW - timedelta(hours=1))
    with pytest.raises(PastDue):
        due_time(NOW, 120, due_at=NOW)
    with pytest.raises(ReminderError):
        due_time(NOW, 120, interval_minutes=0)


def _asked(i: int, thread: str, request: ResourceRequest, *, followed: bool = False) -> UsageRow:
    provision = clamp(request, LIMITS)
    return UsageRow.model_validate(
        {"id": i, "user_id": 1, "thread_id": thread, "created_at": NOW, "request": json.dumps(provision.as_dict()),
         "followed_by_signal": "repeated_question" if followed else None}
    )  # fmt: skip


def test_fisher_exact_one_sided() -> None:
    assert fisher_greater(4, 4, 0, 18) == pytest.approx(1 / 7315)  # C(22, 4): all four signals in the clamped
    assert fisher_greater(0, 4, 3, 18) == 1.0
    assert fisher_greater(1, 1, 0, 0) == 1.0  # no baseline, no evidence


def test_harm_needs_more_signals_after_clamped_turns_than_otherwise() -> None:
    greedy = ResourceRequest(context_turns=30, reason="deep")
    hurt = [_asked(i, f"t{i}", greedy, followed=i < 4) for i in range(5)]
    calm = [_asked(10 + i, f"u{i}", ResourceRequest(context_turns=5, reason="short")) for i in range(20)]
    harm = analyze(hurt + calm).dimensions[Dimension.CONTEXT_TURNS].harm("max")
    assert (harm.clamped, harm.clamped_signals, harm.others, harm.other_signals) == (5, 4, 20, 0) and harm.shown
    assert "4 of 5 clamped turns" in harm.sentence() and "against 0 of 20" in harm.sentence()
    noisy = [_asked(10 + i, f"u{i}", ResourceRequest(context_turns=5, reason="x"), followed=i < 12) for i in range(20)]
    assert not analyze(hurt + noisy).dimensions[Dimension.CONTEXT_TURNS].harm("max").shown  # 4/5 vs 12/20: chance
    always = [_asked(i, f"t{i}", greedy) for i in range(5)]
    assert not analyze(always + calm).dimensions[Dimension.CONTEXT_TURNS].harm("max").shown  # asked, lost nothing


def test_meaningless_and_degenerate_requests_are_model_failures() -> None:
    stuck = ResourceRequest(context_turns=1, vector_limit=1, similarity_threshold=1.0, triple_depth=1, reason="r")
    rows = [_asked(i, f"t{i % 3}", stuck, followed=i % 2 == 0) for i in range(9)]
    result = analyze(rows)
    threshold = result.dimensions[Dimension.SIMILARITY_THRESHOLD]
    assert threshold.failures == 9 and threshold.at_max == [] and threshold.unclamped_turns == 0
    assert result.degenerate.startswith("recent messages read 1, memories recalled 1")
    assert analyze(rows[:5]).degenerate == ""  # too few turns to say the model never chooses


def test_near_duplicates_share_their_content_words_and_a_correction_does_not() -> None:
    from dreaming.consolidation import near_duplicate_changes
    from memory.models import MemoryRow

    def memory(i: int, text: str, kind: str = "turn") -> MemoryRow:
        return MemoryRow(id=i, user_id=1, kind=kind, content=text, created_at=NOW, content_hash=str(i))

    rows = [memory(1, "My sister Ana lives in Lisbon."), memory(2, "my sister ana lives in lisbon btw"),
            memory(3, "Actually my sister Ana moved to Porto."), memory(4, "I don't eat olives or capers."),
            memory(5, "I eat olives or capers."), memory(6, "ok thanks!"), memory(7, "ok thanks"),
            memory(8, "My sister Ana lives in Lisbon", kind="fact")]  # fmt: skip
    assert [(c.memory_id, c.superseded_by) for c in near_duplicate_changes(1, rows)] == [(2, 1)]
