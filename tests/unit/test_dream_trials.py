"""Trials that end (dreaming.trials) on synthetic usage around one approved change: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dreaming.trials import judge
from memory.models import LimitOverrideRow, UsageRow

APPROVED = datetime(2026, 3, 1, tzinfo=UTC)
CHANGE = LimitOverrideRow(id=3, dimension="CONTEXT_TURNS", max_value=30, proposal_id=7, created_at=APPROVED,
                          trial_until=APPROVED + timedelta(days=7))  # fmt: skip


def _rows(days: float, n: int, *, rss: float = 400, ms: float = 2000, signals: int = 0) -> list[UsageRow]:
    """`n` turns spread over the day `days` from the approval (negative: before it)."""
    return [
        UsageRow(id=i, user_id=1, thread_id="t", created_at=APPROVED + timedelta(days=days, hours=i % 20), request="{}",
                 rss_mb=rss, generation_ms=ms, followed_by_signal="repeated_question" if i < signals else None)
        for i in range(n)
    ]  # fmt: skip


def test_a_trial_that_breaches_the_memory_budget_is_reverted() -> None:
    verdict = judge(CHANGE, _rows(-2, 10) + _rows(1, 10, rss=1900), 2048, APPROVED + timedelta(days=2))
    assert verdict.action == "revert" and "1900 MB" in verdict.reason and "93% of the 2048 MB budget" in verdict.reason
    assert verdict.reason.startswith("Reverted #3 (recent messages read: MAX_EPISODIC_CONTEXT_TURNS 30, proposal #7)")


def test_a_trial_that_slows_replies_or_misses_more_is_reverted() -> None:
    slow = judge(CHANGE, _rows(-1, 10) + _rows(1, 10, ms=5000), 2048, APPROVED + timedelta(days=2))
    assert slow.action == "revert" and "p95 5.0 s against 2.0 s" in slow.reason
    worse = judge(CHANGE, _rows(-1, 20, signals=1) + _rows(1, 20, signals=9), 2048, APPROVED + timedelta(days=2))
    assert worse.action == "revert" and "9 of 20 turns of the trial" in worse.reason


def test_a_trial_goes_on_then_is_kept_when_nothing_got_worse() -> None:
    rows = _rows(-3, 10, signals=2) + _rows(1, 10, rss=500, ms=2100, signals=1)
    assert judge(CHANGE, rows, 2048, APPROVED + timedelta(days=3)).action == "continue"
    kept = judge(CHANGE, rows, 2048, APPROVED + timedelta(days=8))
    assert kept.action == "keep" and kept.reason.startswith("Kept #3") and "10 turns, peak 500 MB" in kept.reason


ASK_MORE = LimitOverrideRow(id=4, dimension="policy:personal", default_value=1, proposal_id=8, created_at=APPROVED,
                            trial_until=APPROVED + timedelta(days=7))  # fmt: skip


def _of(kind: str, days: float, signals: int) -> list[UsageRow]:
    """20 turns the policy planned for `kind`, `days` from the approval."""
    rows = _rows(days, 20, signals=signals)
    for r in rows:
        r.reason = f"policy:{kind} — why"
    return rows


def test_a_policy_adjustment_is_judged_on_its_own_kind_of_turns() -> None:
    now = APPROVED + timedelta(days=2)
    others_worse = _of("general", -1, 0) + _of("ack", 1, 15)
    mine = _of("personal", -1, 2) + _of("personal", 1, 1)
    assert judge(CHANGE, others_worse + mine, 2048, now).action == "revert", "all turns: 16 of 40 against 2 of 40"
    assert judge(ASK_MORE, others_worse + mine, 2048, now).action == "continue", "other kinds' misses are not its doing"
    verdict = judge(ASK_MORE, _of("personal", -1, 1) + _of("personal", 1, 12), 2048, now)
    assert verdict.action == "revert"
    assert verdict.reason.startswith("Reverted #4 (asking for more on questions about you, proposal #8): more answers")


def _answered(days: float, n: int, low: int, first_turn: int) -> tuple[list[UsageRow], dict[int, str]]:
    """`n` turns `days` from the approval whose first `low` answers were said at low confidence."""
    rows = _rows(days, n)
    for i, r in enumerate(rows):
        r.turn_id = first_turn + i
    return rows, {first_turn + i: "low" if i < low else "high" for i in range(n)}


def test_a_trial_whose_replies_turn_unsure_is_reverted_and_the_figures_are_said() -> None:
    now = APPROVED + timedelta(days=2)
    before, sure_before = _answered(-1, 20, 2, 100)
    during, sure_during = _answered(1, 20, 11, 200)
    verdict = judge(CHANGE, before + during, 2048, now, sure_before | sure_during)
    assert verdict.action == "revert"
    assert "more replies were unsure or did not know during its trial" in verdict.reason
    assert "replies I was unsure of or could not answer: 11 of 20 during the trial, against 2 of 20 before" in (
        verdict.reason
    )
    assert judge(CHANGE, before + during, 2048, now).action == "continue", "no confidence recorded: no such signal"
    steady, sure_steady = _answered(1, 20, 3, 200)
    kept = judge(CHANGE, before + steady, 2048, now, sure_before | sure_steady)
    assert kept.action == "continue" and "3 of 20 during the trial, against 2 of 20 before" in kept.reason
