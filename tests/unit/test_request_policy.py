"""The model-free context request: different situations get different, in-range requests; it asks for more
only for a kind with an approved adjustment in force."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from capabilities.limits import apply_overrides
from capabilities.request_policy import (
    DECIDES,
    LESS_STEP,
    MORE_STEP,
    SHALLOWER_STEP,
    Adjustment,
    adjusted_grant,
    adjustments,
    kind_of,
    more_of,
    plan_request,
    room_for_more,
    second_look,
    shallower_of,
)
from capabilities.resources import Dimension, Limits, clamp
from capabilities.situation import read
from memory.models import LimitOverrideRow

LIMITS = Limits.from_values()


def test_plan_request_thanks_and_hobbies_differ() -> None:
    thanks = plan_request("thanks!", [], LIMITS)
    hobbies = plan_request("What are my hobbies?", [], LIMITS)
    assert thanks.vector_limit == 0 and thanks.triple_depth == 0
    assert hobbies.vector_limit == LIMITS[Dimension.VECTOR_LIMIT].max
    assert hobbies.similarity_threshold is not None and hobbies.similarity_threshold < 0.7


def test_plan_request_seed_situations() -> None:
    long_thread = ["step 1 failed", "try restarting", "still failing", "check the logs"] * 3
    deep = plan_request("and what about step 3?", long_thread, LIMITS)
    relational = plan_request("How is Ana connected to Porto?", [], LIMITS)
    assert deep.context_turns == LIMITS[Dimension.CONTEXT_TURNS].max and (deep.vector_limit or 0) <= 3
    assert (relational.triple_depth or 0) >= 2


def test_plan_request_is_never_clamped() -> None:
    narrow = Limits.from_values(
        max_vector_search_limit=4, default_vector_search_limit=3, min_similarity_threshold=0.65, max_triple_depth=1
    )
    for message in ("thanks!", "What are my hobbies?", "How is Ana connected to Porto?", "and then?"):
        provision = clamp(plan_request(message, ["earlier"], narrow), narrow)
        assert not provision.clamped and not provision.defaulted, message


APPROVED = datetime(2026, 3, 1, tzinfo=UTC)
ADJUSTED = LimitOverrideRow(id=4, dimension="policy:personal", default_value=1, proposal_id=9, created_at=APPROVED,
                            trial_until=APPROVED + timedelta(days=7))  # fmt: skip
WIDER = LimitOverrideRow(id=5, dimension="CONTEXT_TURNS", max_value=30, created_at=APPROVED)


def test_plan_request_asks_for_more_only_with_an_approved_adjustment() -> None:
    adjusted = adjustments([ADJUSTED, WIDER])
    assert adjusted == {"personal": Adjustment(True, "change #4 approved 2026-03-01, on trial until 2026-03-08")}
    before = plan_request("Where does my sister live?", [], LIMITS)
    after = plan_request("Where does my sister live?", [], LIMITS, adjusted)
    assert (before.context_turns, before.vector_limit, after.context_turns, after.vector_limit) == (3, 10, 7, 14)
    assert after.similarity_threshold == 0.5 < (before.similarity_threshold or 0), "0.55 - 0.1, fitted into 0.5..0.9"
    assert after.reason.endswith("; asking for more (change #4 approved 2026-03-01, on trial until 2026-03-08)")
    assert "asking for more" not in before.reason
    other = plan_request("How do I boil an egg?", [], LIMITS, adjusted)
    assert other == plan_request("How do I boil an egg?", [], LIMITS), "other kinds ask as before"


def test_a_policy_adjustment_changes_no_limit() -> None:
    assert apply_overrides(LIMITS, [ADJUSTED]) == LIMITS
    assert apply_overrides(LIMITS, [ADJUSTED, WIDER])[Dimension.CONTEXT_TURNS].max == 30


def test_kind_of_reads_reasons_and_change_names_it_wrote() -> None:
    assert kind_of("policy:personal — a question about you") == "personal"
    assert kind_of("policy:personal") == "personal"
    assert [kind_of(s) for s in ("a few words on why", "policy:nonsense", "CONTEXT_TURNS")] == [None, None, None]


def test_situation_reads_kinds() -> None:
    assert read("thanks!").kind == "ack"
    assert read("What's my cat's name?").kind == "personal"
    assert read("My sister just moved to Porto.").kind == "statement"
    assert read("How do I boil an egg?").kind == "general"
    assert read("summarise our conversation so far", ["a", "b"]).kind == "summary"
    assert read("What is my sister's dog called?").heads == ("sister", "dog")


def test_an_adjusted_grant_is_what_plan_request_asks_with_the_adjustment_in_force() -> None:
    """What the dream replays a policy proposal's turns at (`adjusted_grant`) is the request the kind
    makes once the adjustment is approved, for every direction (more, fewer memories, one hop less)."""
    long_thread = ["step 1 failed", "try restarting", "still failing", "check the logs"] * 3
    cases = [("What did I say about my sister?", []), ("thanks!", []), ("How is Ana connected to Porto?", []),
             ("and what about step 3?", long_thread)]  # fmt: skip
    for message, history in cases:
        kind = read(message, history).kind
        for value in (MORE_STEP, LESS_STEP, SHALLOWER_STEP):
            plain = plan_request(message, history, LIMITS)
            granted = {d: getattr(plain, d.value.field) for d in DECIDES}
            step = Adjustment(more_of(value), "#1", shallower_of(value))
            adjusted = plan_request(message, history, LIMITS, {kind: step})
            expected = {d: getattr(adjusted, d.value.field) for d in DECIDES}
            assert adjusted_grant(granted, LIMITS, value) == expected, (message, value)


# --- twenty-fourth session, locomo ---


def test_questions_about_you_may_take_memories_past_the_count_up_to_the_maximum() -> None:
    """Issue 14: a question about the person's life, or how its people and things connect, may take the
    next ranked memories while the budget has room, up to the active VECTOR_SEARCH_LIMIT maximum; a kind
    that asks for few memories on purpose takes none past its count. The granted count itself (what the
    labelled situations judge) does not change."""
    for message in ("Where did I go hiking last spring?", "How is Ana connected to Porto?"):
        request = plan_request(message, [], LIMITS)
        granted = int(clamp(request, LIMITS).fields()["vector_limit"])
        top = int(LIMITS[Dimension.VECTOR_LIMIT].max)
        assert granted < top and room_for_more(kind_of(request.reason), granted, LIMITS) == top - granted
    thread = ["step 1 failed", "try restarting", "still failing", "check the logs"]
    for message, history in (("thanks!", []), ("I moved to Lisbon last week.", []), ("and step 3?", thread)):
        request = plan_request(message, history, LIMITS)
        granted = int(clamp(request, LIMITS).fields()["vector_limit"])
        assert room_for_more(kind_of(request.reason), granted, LIMITS) == 0
    narrow = Limits.from_values({"MAX_VECTOR_SEARCH_LIMIT": 10})
    assert room_for_more("personal", 10, narrow) == 0  # never past the person's maximum
    assert room_for_more(None, 3, LIMITS) == 0


def test_the_second_look_never_takes_more_than_the_maximum_with_the_room() -> None:
    """The second look's larger count keeps the ceiling: granted + the budget's room stays at what it was."""
    from capabilities.evidence import Evidence
    from memory.assembly import AssembledContext, ContextItem, ContextRequest, Skip
    from memory.graph.cypher import Subgraph

    past = ContextItem("m9", "turn", "x", "x", 0.5).skipped(Skip.LIMIT, "past VECTOR_SEARCH_LIMIT 10")
    ctx = AssembledContext([], [], [past], [], {}, Subgraph(), vector_limit=10)
    req = ContextRequest(3, 10, 0.55, 1, more_memories=5)
    weak = Evidence("unknown", (), "low", "nothing answers")
    step = second_look(ctx, req, weak, max_depth=3, max_memories=15)
    assert step is not None and step.request.vector_limit == 15 and step.request.more_memories == 0
