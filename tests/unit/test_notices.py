"""What the person is told when the request policy changed (capabilities.notices): plain words, no settings names."""

from __future__ import annotations

from datetime import UTC, datetime

from capabilities.notices import told
from memory.models import LimitOverrideRow

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_notices_say_a_policy_adjustment_and_its_end_in_plain_words() -> None:
    fewer = LimitOverrideRow(id=4, dimension="policy:personal", default_value=-1.0, proposal_id=9, created_at=NOW,
                             reason="it loads too much")  # fmt: skip
    assert told([], started=[fewer]) == (
        "From now on I ask for less (4 fewer memories) on questions about you, because proposal #9 was approved: "
        "it loads too much."
    )
    reason = "Reverted #5 (asking for more on questions about you, proposal #8): more answers missed context during "
    reason += "its trial than before."
    more = LimitOverrideRow(id=5, dimension="policy:personal", default_value=1.0, proposal_id=8, created_at=NOW,
                            revoked_at=NOW, ended_by="dream", end_reason=reason)  # fmt: skip
    said = told([], started=[more], ended=[more])
    assert said == (
        "Change #5 is undone: I no longer ask for more (+4 recent messages, +4 memories, match threshold 0.1 lower) "
        "on questions about you. The nightly dream ended it after watching its trial: more answers missed context "
        "during its trial than before."
    ), "ended before the person's next message: only its end is news"
    assert "policy:" not in said and "_" not in said
    assert told([]) == ""
