"""Per-round capability offers and schemas, built from a two-level context (no model, no store)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.llm import grammar_schema
from capabilities.context import ContextDelta, EntityDetail, EntitySummary, MemoryNote, RelationFact, TwoLevelContext
from capabilities.info import CAPABILITIES, build_round

TYPES = {"Person": 2, "Location": 1}


def context() -> TwoLevelContext:
    ctx = TwoLevelContext()
    ctx.merge(
        ContextDelta(
            memories=[MemoryNote(3, "Ana, my sister, lives in Porto.")],
            summaries=[
                EntitySummary(4, "Ana", "Person", "my sister"),
                EntitySummary(7, "Ana", "Person", "colleague"),
                EntitySummary(9, "Porto", "Location", "city"),
            ],
            relations=[RelationFact(1, 4, "LIVES_IN", 9, "Ana LIVES_IN Porto")],
        )
    )
    return ctx


def test_info_capabilities_are_declared_with_one_sentence_descriptions() -> None:
    assert len(CAPABILITIES) == 10
    for cap in CAPABILITIES:
        assert cap.description.endswith(".") and cap.description.count(".") == 1
        assert cap.description[0].isupper() and not cap.description.startswith(("This", "The "))


def test_info_round_offers_everything_when_context_is_rich() -> None:
    rnd = build_round(context(), TYPES)
    assert set(rnd.offered) == {c.name for c in CAPABILITIES}
    assert '"e4"' in rnd.menu() and '"Person"' in rnd.menu()


def test_info_round_schema_carries_the_allowed_ids_and_types_as_enums() -> None:
    schema = grammar_schema(build_round(context(), TYPES).output)
    defs = schema["$defs"]
    assert defs["ExpandableId"]["enum"] == ["e4", "e7", "e9"]
    assert defs["EntityId"]["enum"] == ["e4", "e7", "e9"]
    assert defs["EntityType"]["enum"] == ["Person", "Location"]
    assert defs["SourceRef"]["enum"] == ["m3", "e4", "e7", "e9", "r1"]
    request = schema["properties"]["result"]["anyOf"][1]["properties"]["data"]
    branches = {b["properties"]["capability"]["const"]: b["properties"]["args"]["$ref"] for b in request["anyOf"]}
    assert branches["FIND_PATH"] == "#/$defs/FindPathArgs"  # each capability is paired with its own args
    shared = defs["FindSharedConnectionsArgs"]["properties"]
    assert shared["first_id"]["$ref"] == shared["second_id"]["$ref"] == "#/$defs/EntityId"  # ids in context only
    kind = defs["SearchEntitiesArgs"]["properties"]["type"]["anyOf"]
    assert {"$ref": "#/$defs/EntityType"} in kind and {"type": "null"} in kind
    assert all(b["additionalProperties"] is False for b in request["anyOf"])
    assert defs["GetRelationshipsArgs"]["properties"]["direction"]["enum"] == ["incoming", "outgoing", "both"]


def test_info_round_expanded_entities_are_no_longer_expandable() -> None:
    ctx = context()
    new = ctx.merge(ContextDelta(details=[EntityDetail(EntitySummary(4, "Ana", "Person", "my sister"))]))
    assert new == ["e4+"] and ctx.expanded_ids == [4] and ctx.expandable_ids == [7, 9]
    schema = grammar_schema(build_round(ctx, TYPES).output)
    assert schema["$defs"]["ExpandableId"]["enum"] == ["e7", "e9"]
    assert schema["$defs"]["EntityId"]["enum"] == ["e4", "e7", "e9"]


def test_info_round_absent_capabilities_when_nothing_to_offer() -> None:
    empty = build_round(TwoLevelContext(), {})
    assert empty.offered == ("SEARCH_MEMORIES",)
    one = TwoLevelContext()
    one.merge(ContextDelta(summaries=[EntitySummary(4, "Ana", "Person")]))
    offered = build_round(one, TYPES).offered
    assert "EXPAND_ENTITY" in offered and "EXPAND_ENTITIES" not in offered and "FIND_PATH" not in offered
    no_rel = build_round(context(), TYPES, include_relationships=False).offered
    assert "GET_RELATIONSHIPS" not in no_rel and "FIND_PATH" not in no_rel


def test_info_round_answer_only_when_requests_are_spent() -> None:
    rnd = build_round(context(), TYPES, allow_requests=False)
    assert rnd.request is None and rnd.offered == () and rnd.output is rnd.answer


def test_info_round_request_model_accepts_only_ids_in_context() -> None:
    rnd = build_round(context(), TYPES)
    assert rnd.request is not None
    raw = {"capability": "FIND_PATH", "args": {"from_id": "e4", "to_id": "e9", "max_hops": 2}, "reason": "r"}
    ok = rnd.validated(rnd.request.model_validate(raw))
    assert ok.args == {"from_id": "e4", "to_id": "e9", "max_hops": 2}
    with pytest.raises(ValidationError, match=r"entity_id: Input should be 'e4', 'e7' or 'e9'"):
        rnd.request.model_validate({"capability": "EXPAND_ENTITY", "args": {"entity_id": "e5"}, "reason": ""})
    with pytest.raises(ValidationError, match="reason"):
        rnd.request.model_validate({"capability": "LIST_ENTITY_TYPES", "args": {}, "reason": "x" * 101})


def test_info_context_block_stats_and_ambiguity() -> None:
    ctx = context()
    assert ctx.ambiguous == {"ana": (4, 7)}
    block = ctx.block()
    assert block.startswith("<recalled_context>") and block.endswith("</recalled_context>")
    assert '"ana": [e4] Ana (Person): my sister | [e7] Ana (Person): colleague' in block
    stats = ctx.stats()
    assert (stats.entities, stats.expanded, stats.relationships, stats.memories) == (3, 0, 1, 1)
    assert stats.tokens > 0
    assert ctx.merge(ContextDelta(memories=[MemoryNote(3, "dup")], notes=["types: Person (2)"])) == []
    assert ctx.memories[3].text == "Ana, my sister, lives in Porto." and "types: Person (2)" in ctx.block()
    assert "(nothing recalled)" in TwoLevelContext().block()
