"""Each info capability against real stores (SQLite + sqlite-vec + Kuzu + the real embedder):
valid arguments are fulfilled; hallucinated ids and wrong enum values are rejected by the
round's validation, which holds no store at all — so nothing reaches the database."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import ValidationError

from capabilities.answer import NeedsMoreInfo
from capabilities.context import TwoLevelContext
from capabilities.info import InfoRequestInvalid, InfoStores, Round, build_round, fulfil
from memory.assembly import ContextRequest
from memory.store import MemoryStore

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)


@dataclass(frozen=True)
class World:
    """A user with two Anas (sister, colleague), Porto, Acme, and the memories they came from."""

    uid: int
    sister: int
    colleague: int
    porto: int
    acme: int
    bruno: int
    sister_memory: int


def seed(storage: MemoryStore) -> World:
    """Seed the world; every relation records the memory it was extracted from."""
    uid = storage.accounts.create("owner", "password-123").id or 0
    mem = storage.memories
    m_sister = mem.add(uid, "fact", "Ana, my sister, lives in Porto and loves sailing.").id
    m_work = mem.add(uid, "fact", "Ana from work leads the billing team at Acme.").id
    mem.add(uid, "fact", "Bruno is Ana's husband; they met in Lisbon.")
    ent = storage.entities
    sister = ent.upsert_entity(uid, "Ana", "Person", summary="my sister", source_memory_id=m_sister).id or 0
    colleague = ent.upsert_entity(
        uid, "Ana", "Person", summary="colleague, billing team lead", distinct=True, source_memory_id=m_work
    ).id
    porto = ent.upsert_entity(uid, "Porto", "Location", summary="city in Portugal").id or 0
    acme = ent.upsert_entity(uid, "Acme", "Organization", summary="where I work").id or 0
    bruno = ent.upsert_entity(uid, "Bruno", "Person", summary="Ana's husband").id or 0
    ent.add_relation(uid, sister, "LIVES_IN", porto, source_memory_id=m_sister)
    ent.add_relation(uid, colleague or 0, "WORKS_AT", acme, source_memory_id=m_work)
    ent.add_relation(uid, bruno, "MARRIED_TO", sister)
    return World(uid, sister, colleague or 0, porto, acme, bruno, m_sister or 0)


def initial_context(storage: MemoryStore, world: World, question: str) -> TwoLevelContext:
    request = ContextRequest(context_turns=5, vector_limit=5, similarity_threshold=0.5, triple_depth=1)
    assembled = storage.assembler.assemble(world.uid, "thread", question, request)
    return TwoLevelContext.from_assembled(assembled)


@pytest.fixture
def world(storage: MemoryStore) -> World:
    return seed(storage)


@pytest.fixture
def stores(storage: MemoryStore) -> InfoStores:
    return InfoStores(storage.entities, storage.memories)


def _round(storage: MemoryStore, world: World, ctx: TwoLevelContext) -> Round:
    return build_round(ctx, storage.entities.types(world.uid))


def _validated(rnd: Round, raw: dict[str, object]) -> NeedsMoreInfo:
    """What the answer loop does with the model's reply: the round's request model, then `validated`."""
    assert rnd.request is not None
    return rnd.validated(rnd.request.model_validate(raw))


def _run(storage: MemoryStore, world: World, ctx: TwoLevelContext, raw: dict[str, object]) -> str:
    request = _validated(_round(storage, world, ctx), raw)
    result = fulfil(request, InfoStores(storage.entities, storage.memories, storage.vectors), world.uid, ctx)
    ctx.merge(result.delta)
    return result.summary


def test_info_initial_context_keeps_both_anas_as_an_ambiguity(storage: MemoryStore, world: World) -> None:
    ctx = initial_context(storage, world, "Where does Ana live?")
    assert {world.sister, world.colleague} <= set(ctx.entity_ids)
    assert set(ctx.ambiguous["ana"]) == {world.sister, world.colleague}
    assert "my sister" in ctx.block() and "billing team lead" in ctx.block()
    assert ctx.expanded_ids == [] and ctx.expandable_ids == ctx.entity_ids


def test_info_search_memories_finds_and_merges(storage: MemoryStore, world: World) -> None:
    ctx = TwoLevelContext()
    summary = _run(storage, world, ctx, {"capability": "SEARCH_MEMORIES", "args": {"query": "sailing"}, "reason": ""})
    assert world.sister_memory in ctx.memories and f"m{world.sister_memory}" in summary


def test_info_get_entity_by_name_returns_all_candidates(storage: MemoryStore, world: World) -> None:
    ctx = TwoLevelContext()
    summary = _run(storage, world, ctx, {"capability": "GET_ENTITY_BY_NAME", "args": {"name": "ana"}, "reason": ""})
    assert set(ctx.ambiguous["ana"]) == {world.sister, world.colleague}
    assert "ambiguous" in summary
    fuzzy = TwoLevelContext()
    _run(storage, world, fuzzy, {"capability": "GET_ENTITY_BY_NAME", "args": {"name": "Brun"}, "reason": ""})
    assert world.bruno in fuzzy.summaries


def test_info_expand_entity_brings_full_detail(storage: MemoryStore, world: World) -> None:
    ctx = initial_context(storage, world, "Where does Ana live?")
    ref = f"e{world.sister}"
    _run(storage, world, ctx, {"capability": "EXPAND_ENTITY", "args": {"entity_id": ref}, "reason": ""})
    detail = ctx.details[world.sister]
    assert {r.predicate for r in detail.relations} == {"LIVES_IN", "MARRIED_TO"}
    assert [m.id for m in detail.memories] == [world.sister_memory]
    assert dict(detail.properties)["domain"] == "personal"
    assert world.sister not in ctx.expandable_ids and world.sister in ctx.expanded_ids
    assert f"source memory [m{world.sister_memory}]" in ctx.block()
    # Expanded once: the next round no longer offers it.
    again = _round(storage, world, ctx)
    with pytest.raises(ValidationError):
        _validated(again, {"capability": "EXPAND_ENTITY", "args": {"entity_id": ref}, "reason": ""})


def test_info_expand_entities_expands_several(storage: MemoryStore, world: World) -> None:
    ctx = initial_context(storage, world, "Where does Ana live?")
    refs = [f"e{world.sister}", f"e{world.colleague}"]
    _run(storage, world, ctx, {"capability": "EXPAND_ENTITIES", "args": {"entity_ids": refs}, "reason": ""})
    assert {world.sister, world.colleague} <= set(ctx.expanded_ids)


@pytest.mark.parametrize(("direction", "predicates"), [("outgoing", {"LIVES_IN"}), ("incoming", {"MARRIED_TO"})])
def test_info_get_relationships_by_direction(
    storage: MemoryStore, world: World, direction: str, predicates: set[str]
) -> None:
    ctx = initial_context(storage, world, "Where does Ana live?")
    args = {"entity_id": f"e{world.sister}", "direction": direction}
    _run(storage, world, ctx, {"capability": "GET_RELATIONSHIPS", "args": args, "reason": ""})
    touching = {r.predicate for r in ctx.relations.values() if world.sister in (r.subject_id, r.object_id)}
    assert predicates <= touching


def test_info_find_path_between_two_entities_in_context(storage: MemoryStore, world: World) -> None:
    ctx = initial_context(storage, world, "Does Bruno know Porto?")
    assert {world.bruno, world.porto} <= set(ctx.entity_ids)
    args = {"from_id": f"e{world.bruno}", "to_id": f"e{world.porto}", "max_hops": 3}
    summary = _run(storage, world, ctx, {"capability": "FIND_PATH", "args": args, "reason": ""})
    assert "MARRIED_TO" in summary and "LIVES_IN" in summary
    none = {"from_id": f"e{world.bruno}", "to_id": f"e{world.porto}", "max_hops": 1}
    assert "no connection" in _run(storage, world, ctx, {"capability": "FIND_PATH", "args": none, "reason": ""})


def test_info_list_entity_types_and_get_entities_by_type(storage: MemoryStore, world: World) -> None:
    ctx = TwoLevelContext()
    summary = _run(storage, world, ctx, {"capability": "LIST_ENTITY_TYPES", "args": {}, "reason": ""})
    assert "Person (3)" in summary and "Organization (1)" in summary
    _run(storage, world, ctx, {"capability": "GET_ENTITIES_BY_TYPE", "args": {"type": "Location"}, "reason": ""})
    assert list(ctx.summaries) == [world.porto]


@pytest.mark.parametrize(
    "raw",
    [
        {"capability": "EXPAND_ENTITY", "args": {"entity_id": "e999"}, "reason": "hallucinated id"},
        {"capability": "EXPAND_ENTITY", "args": {"entity_id": "999"}, "reason": "bare number"},
        {"capability": "EXPAND_ENTITIES", "args": {"entity_ids": ["e999"]}, "reason": ""},
        {"capability": "GET_RELATIONSHIPS", "args": {"entity_id": "e999", "direction": "both"}, "reason": ""},
        {"capability": "GET_RELATIONSHIPS", "args": {"entity_id": "e1", "direction": "sideways"}, "reason": ""},
        {"capability": "FIND_PATH", "args": {"from_id": "e1", "to_id": "e999", "max_hops": 2}, "reason": ""},
        {"capability": "FIND_PATH", "args": {"from_id": "e1", "to_id": "e2", "max_hops": 40}, "reason": ""},
        {"capability": "GET_ENTITIES_BY_TYPE", "args": {"type": "Spaceship"}, "reason": ""},
        {"capability": "GET_ENTITIES_BY_TYPE", "args": {"type": "Event"}, "reason": "a schema type nobody has"},
        {"capability": "SEARCH_MEMORIES", "args": {"query": ""}, "reason": ""},
        {"capability": "SEARCH_MEMORIES", "args": {"query": "x", "limit": 99}, "reason": "extra argument"},
        {"capability": "DELETE_EVERYTHING", "args": {}, "reason": "unknown capability"},
        {"capability": "FIND_SHARED_CONNECTIONS", "args": {"first_id": "e1", "second_id": "e999"}, "reason": "guessed"},
        {"capability": "FIND_SHARED_CONNECTIONS", "args": {"first_id": "e1"}, "reason": "one entity"},
        {"capability": "SEARCH_ENTITIES", "args": {"query": ""}, "reason": ""},
        {"capability": "SEARCH_ENTITIES", "args": {"query": "boats", "type": "Spaceship"}, "reason": ""},
        {"capability": "EXPAND_ENTITY", "args": {"name": "Ana"}, "reason": "args of another capability"},
    ],
)
def test_info_invalid_arguments_are_rejected_before_any_store_call(
    storage: MemoryStore, world: World, raw: dict[str, object]
) -> None:
    ctx = initial_context(storage, world, "Where does Ana live?")
    assert world.sister in ctx.entity_ids and 999 not in ctx.entity_ids
    rnd = _round(storage, world, ctx)  # a Round holds no store: validation cannot touch the database
    with pytest.raises(ValidationError):
        _validated(rnd, raw)


def test_info_entity_of_another_user_is_not_in_the_allowed_set(storage: MemoryStore, world: World) -> None:
    other = storage.accounts.create("stranger", "password-456").id or 0
    theirs = storage.entities.upsert_entity(other, "Ana", "Person", summary="someone else's Ana").id
    ctx = initial_context(storage, world, "Where does Ana live?")
    raw = {"capability": "EXPAND_ENTITY", "args": {"entity_id": f"e{theirs}"}, "reason": ""}
    with pytest.raises(ValidationError):
        _validated(_round(storage, world, ctx), raw)


def test_info_capabilities_absent_when_nothing_to_offer(storage: MemoryStore, world: World) -> None:
    empty_user = storage.accounts.create("newcomer", "password-789").id or 0
    bare = build_round(TwoLevelContext(), storage.entities.types(empty_user))
    assert bare.offered == ("SEARCH_MEMORIES",)
    ctx = initial_context(storage, world, "Where does Ana live?")
    for entity_id in ctx.entity_ids:
        _run(storage, world, ctx, {"capability": "EXPAND_ENTITY", "args": {"entity_id": f"e{entity_id}"}, "reason": ""})
    after = _round(storage, world, ctx)
    assert "EXPAND_ENTITY" not in after.offered and "EXPAND_ENTITIES" not in after.offered
    assert "GET_RELATIONSHIPS" in after.offered


def test_info_find_shared_connections_names_the_common_neighbours(storage: MemoryStore, world: World) -> None:
    storage.entities.add_relation(world.uid, world.bruno, "LIVES_IN", world.porto)
    oslo = storage.entities.upsert_entity(world.uid, "Oslo", "Location").id
    ctx = initial_context(storage, world, "Do Ana and Bruno live near each other, or near Oslo?")
    assert {world.sister, world.bruno} <= set(ctx.entity_ids)
    args = {"first_id": f"e{world.sister}", "second_id": f"e{world.bruno}"}
    summary = _run(storage, world, ctx, {"capability": "FIND_SHARED_CONNECTIONS", "args": args, "reason": ""})
    assert summary == f"Ana and Bruno are both linked to Porto [e{world.porto}]"
    assert world.porto in ctx.summaries and summary in ctx.block()
    apart = {"first_id": f"e{oslo}", "second_id": f"e{world.bruno}"}
    assert _run(storage, world, ctx, {"capability": "FIND_SHARED_CONNECTIONS", "args": apart, "reason": ""}) == (
        "Oslo and Bruno share no connection"
    )


def test_info_find_shared_connections_rejects_one_entity_twice(storage: MemoryStore, world: World) -> None:
    ctx = initial_context(storage, world, "Do Ana and Bruno live near each other?")
    same = {"first_id": f"e{world.bruno}", "second_id": f"e{world.bruno}"}
    request = _validated(
        _round(storage, world, ctx), {"capability": "FIND_SHARED_CONNECTIONS", "args": same, "reason": ""}
    )
    with pytest.raises(InfoRequestInvalid, match="two different entities"):
        fulfil(request, InfoStores(storage.entities, storage.memories, storage.vectors), world.uid, ctx)


def test_info_search_entities_by_meaning_and_type(storage: MemoryStore, world: World) -> None:
    ctx = TwoLevelContext()
    summary = _run(
        storage, world, ctx, {"capability": "SEARCH_ENTITIES", "args": {"query": "a Portuguese city"}, "reason": ""}
    )
    assert summary.split(": ", 1)[1].startswith(f"Porto [e{world.porto}]")
    people = TwoLevelContext()
    args = {"query": "Ana's husband", "type": "Person"}
    summary = _run(storage, world, people, {"capability": "SEARCH_ENTITIES", "args": args, "reason": ""})
    assert " Person entities: Bruno " in summary and world.porto not in people.summaries
    assert {s.type for s in people.summaries.values()} == {"Person"}
    nothing = _run(
        storage,
        world,
        TwoLevelContext(),
        {"capability": "SEARCH_ENTITIES", "args": {"query": "quantum chromodynamics lattice"}, "reason": ""},
    )
    assert nothing.startswith("no entities close to")


def test_info_search_entities_without_vectors_says_so(storage: MemoryStore, world: World) -> None:
    ctx = TwoLevelContext()
    request = _validated(
        _round(storage, world, ctx), {"capability": "SEARCH_ENTITIES", "args": {"query": "city"}, "reason": ""}
    )
    with pytest.raises(InfoRequestInvalid, match="not available"):
        fulfil(request, InfoStores(storage.entities, storage.memories), world.uid, ctx)
