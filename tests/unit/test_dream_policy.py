"""Under-asking per kind of message (dreaming.policy) on synthetic usage rows: no database."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.policy import kind_stats
from memory.models import UsageRow

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def row(i: int, reason: str, *, followed: bool = False) -> UsageRow:
    return UsageRow(id=i, user_id=1, thread_id="t", created_at=NOW, request="{}", reason=reason,
                    followed_by_signal="explicit_reference" if followed else None)  # fmt: skip


def test_kind_stats_compare_each_kind_with_the_other_kinds() -> None:
    rows = [row(i, "policy:personal — a question about you", followed=i < 4) for i in range(5)]
    rows += [row(10 + i, "policy:general — general chat", followed=i == 0) for i in range(20)]
    rows += [row(40 + i, "deep", followed=True) for i in range(5)]  # the model's own reasons: no kind, no evidence
    stats = kind_stats(rows)
    assert set(stats) == {"personal", "general"}
    personal, general = stats["personal"].harm, stats["general"].harm
    assert (personal.clamped, personal.clamped_signals, personal.others, personal.other_signals) == (5, 4, 20, 1)
    assert personal.shown and personal.p < 0.01
    assert not general.shown
    assert stats["personal"].sentence().startswith(
        "4 of 5 such turns were followed by a sign of missing context, against 1 of 20 turns of other kinds"
    )


def test_kind_stats_need_the_same_minimums_as_the_limits() -> None:
    rows = [row(1, "policy:personal — x", followed=True), row(2, "policy:personal — x", followed=True)]
    rows += [row(10 + i, "policy:general — y") for i in range(30)]
    assert not kind_stats(rows)["personal"].harm.shown, "two turns are fewer than MIN_CLAMPED"
    assert kind_stats([]) == {}
