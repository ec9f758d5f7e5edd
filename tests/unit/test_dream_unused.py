"""Asking for more than is used, per kind of message (dreaming.unused, dreaming.policy) on synthetic
usage rows: what each turn loaded (telemetry, with scores and tokens) and what its answer cited."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from capabilities.request_policy import adjustments, plan_request
from capabilities.resources import Limits
from dreaming.policy import build_policy_proposals, kind_stats
from dreaming.unused import depth_use, memories_use, unused_stats
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
    use = memories_use(row(1, ["m2", "e4"]))
    assert use is not None and (use.loaded, use.needed, use.outside, use.saved_tokens) == (10, False, False, 80)
    assert use.spare, "6 memories would have held the 2nd"
    assert memories_use(row(2, None)) is None, "a turn from before m017"
    deep = memories_use(row(3, ["m1", "m7"]))
    assert deep is not None and deep.needed and not deep.spare, "the 7th of 10 was used"
    outside = memories_use(row(4, ["m1", "m42"]))
    assert outside is not None and outside.outside and not outside.spare, "it needed a memory it had not loaded"
    assert not memories_use(row(5, ["m1"], followed=True)).spare, "the person said it missed something"  # type: ignore[union-attr]


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


RELATIONAL = "policy:relational — relations between things: graph hops"


def graph_row(i: int, cited: str, *, followed: bool = False) -> UsageRow:
    """A turn granted TRIPLE_DEPTH 2 that loaded a named entity (e1), one a hop out (e2) and three two
    hops out (e3-e5, 20 tokens each), and whose answer cited `cited`."""
    reasons = {"e1": "named in the question", "e2": "1 hop out, relevance 0.50", "r7": "link of a named entity",
               **{f"e{k}": "2 hops out, relevance 0.30" for k in (3, 4, 5)}}  # fmt: skip
    telemetry = {"loaded": [{"ref": ref, "score": 0.5, "tokens": 20, "reason": why} for ref, why in reasons.items()]}
    return UsageRow(id=i, user_id=1, thread_id=f"t{i}", turn_id=i, created_at=NOW, reason=RELATIONAL,
                    request=json.dumps({"TRIPLE_DEPTH": {"provided": 2}, "VECTOR_LIMIT": {"provided": 8}}),
                    telemetry=json.dumps(telemetry), used=json.dumps([cited]), message_excerpt=f"How is Ana ({i})?",
                    followed_by_signal="explicit_reference" if followed else None)  # fmt: skip


def test_a_turn_s_deepest_hop_is_read_from_the_reasons_of_what_it_loaded() -> None:
    use = depth_use(graph_row(1, "e2"))
    assert use is not None and (use.loaded, use.needed, use.outside, use.saved_tokens) == (3, False, False, 60)
    assert use.spare, "depth 1 keeps e2 and the link of the named entity"
    assert not depth_use(graph_row(2, "e4")).spare, "the answer used the second hop"  # type: ignore[union-attr]
    assert not depth_use(graph_row(3, "e99")).spare, "it needed an entity it had not loaded"  # type: ignore[union-attr]


def test_a_kind_that_leaves_its_deepest_hop_unused_gets_a_proposal_for_less_depth() -> None:
    rows = [graph_row(i, "e1" if i % 2 else "e2") for i in range(12)]
    made, _ = build_policy_proposals(_NoDreams(), kind_stats(rows), [], unused_stats(rows),
                                     deep=unused_stats(rows, "depth"))  # fmt: skip
    assert [(p.dimension, p.proposed_value) for p in made] == [("policy:relational", -2.0)]
    assert "12 of 12 such turns would have lost nothing their answer used with 1 hop less" in made[0].rationale
    assert made[0].rationale.endswith("ask for less depth on questions about how people and things are connected "
                                      "(1 hop less between related facts).")  # fmt: skip
    used = [graph_row(i, "e3" if i % 2 else "e1") for i in range(12)]  # half the answers cite the second hop
    made, findings = build_policy_proposals(_NoDreams(), kind_stats(used), [], unused_stats(used),
                                            deep=unused_stats(used, "depth"))  # fmt: skip
    assert made == [] and any("6 of 12 such turns would have lost nothing" in f for f in findings)


def test_an_approved_adjustment_to_less_depth_asks_one_hop_less() -> None:
    change = LimitOverrideRow(id=6, dimension="policy:relational", default_value=-2.0, proposal_id=9, created_at=NOW)
    limits = Limits.from_values()
    before = plan_request("How is Ana connected to Porto?", [], limits)
    after = plan_request("How is Ana connected to Porto?", [], limits, adjustments([change]))
    assert after.triple_depth == before.triple_depth - 1 and after.vector_limit == before.vector_limit
    assert "asking for less depth (change #6 approved 2026-03-01)" in (after.reason or "")
