"""Asking for more than is used, per kind of message (dreaming.unused, dreaming.policy) on synthetic
usage rows: what each turn loaded (telemetry, with scores and tokens) and what its answer cited."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from capabilities.request_policy import adjustments, plan_request
from capabilities.resources import Limits
from dreaming.policy import build_policy_proposals, kind_stats
from dreaming.unused import unused_stats, use_of
from memory.models import LimitOverrideRow, UsageRow

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PERSONAL = "policy:personal — a question about you"


def row(
    i: int, used: list[str] | None, loaded: int = 10, *, reason: str = PERSONAL, followed: bool = False
) -> UsageRow:
    """A turn granted 10 memories that loaded `loaded` of them, m1… (m1 scored best), each 20 tokens, and
    cited `used`."""
    granted = json.dumps({"VECTOR_LIMIT": {"provided": max(loaded, 2)}})
    telemetry = {"loaded": [{"ref": f"m{k}", "score": 1 - k / 100, "tokens": 20} for k in range(loaded, 0, -1)]}
    return UsageRow(id=i, user_id=1, thread_id=f"t{i}", turn_id=i, created_at=NOW, request=granted, reason=reason,
                    telemetry=json.dumps(telemetry), used=None if used is None else json.dumps(used),
                    message_excerpt=f"Where does my sister live ({i})?",
                    followed_by_signal="explicit_reference" if followed else None)  # fmt: skip


def test_a_turn_s_use_is_ranked_by_score_and_unrecorded_turns_count_for_nothing() -> None:
    use = use_of(row(1, ["m2", "e4"]))
    assert use is not None and (use.asked, use.loaded, use.deepest, use.outside, use.saved_tokens) == (
        10, 10, 2, False, 80)  # fmt: skip
    assert use.spare, "6 memories would have held the 2nd"
    assert use_of(row(2, None)) is None, "a turn from before m017"
    deep = use_of(row(3, ["m1", "m7"]))
    assert deep is not None and deep.deepest == 7 and not deep.spare, "the 7th of 10 was used"
    outside = use_of(row(4, ["m1", "m42"]))
    assert outside is not None and outside.outside and not outside.spare, "it needed a memory it had not loaded"
    assert not use_of(row(5, ["m1"], followed=True)).spare, "the person said it missed something"  # type: ignore[union-attr]


def test_a_kind_that_leaves_what_it_loads_unused_gets_a_proposal_to_ask_for_less() -> None:
    rows = [row(i, ["m1"] if i % 3 else ["m2"]) for i in range(12)]
    rows += [row(100 + i, [], loaded=2, reason="policy:general — little memory") for i in range(12)]
    stats, unused = kind_stats(rows), unused_stats(rows)
    assert unused["personal"].shown and not unused["general"].shown, "2 loaded: nothing to take away"
    made, findings = build_policy_proposals(_NoDreams(), stats, [], unused)
    assert [(p.dimension, p.proposed_value) for p in made] == [("policy:personal", -1.0)]
    assert made[0].rationale.startswith(
        "Questions about you asked for more context than they used: 12 of 12 such turns would have lost nothing "
        "their answer used with 4 fewer memories (they loaded about 10; sign test p = 0.000), and what those 4 "
        "fewer leave out came to 80 tokens a turn, loaded for nothing"
    )
    assert made[0].rationale.endswith("Proposed: ask for less on questions about you (4 fewer memories).")
    assert any(f.startswith("General chat: 0 of 12 such turns would have lost nothing") for f in findings)


def test_a_kind_whose_answers_use_the_larger_context_gets_no_proposal() -> None:
    rows = [row(i, ["m1", "m9"] if i % 2 else ["m1"]) for i in range(20)]  # half the answers needed the 9th memory
    made, findings = build_policy_proposals(_NoDreams(), kind_stats(rows), [], unused_stats(rows))
    assert made == []
    assert "Questions about you: 10 of 20 such turns would have lost nothing" in " ".join(findings)
    assert findings[-1].endswith("Not enough to ask for less, so no change.")


def test_an_approved_adjustment_downwards_asks_for_fewer_memories() -> None:
    change = LimitOverrideRow(id=5, dimension="policy:personal", default_value=-1.0, proposal_id=9, created_at=NOW)
    limits = Limits.from_values()
    before = plan_request("Where does my sister live?", [], limits)
    after = plan_request("Where does my sister live?", [], limits, adjustments([change]))
    assert after.vector_limit == before.vector_limit - 4 and after.context_turns == before.context_turns
    assert "asking for less (change #5 approved 2026-03-01)" in (after.reason or "")


class _NoDreams:
    """No proposal was ever rejected (the one DreamStore read `build_policy_proposals` makes)."""

    def latest(self, dimension: str, bound: str, status: str) -> None:
        return None
