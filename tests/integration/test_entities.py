"""EntityStore on a real SQLite file and a real Kuzu directory, and on PostgreSQL with its recursive-SQL
graph: records, dedupe, history, forget."""

from __future__ import annotations

import pytest

from memory.graph.entities import EntityNotFound, EntityStore


@pytest.fixture
def store(both_graphs: EntityStore) -> EntityStore:
    return both_graphs


def test_upsert_entity_dedupes_exact_casefold_and_alias(store: EntityStore) -> None:
    ana = store.upsert_entity(1, "Ana Lima", "person", aliases=["Ana"], summary="sister")
    again = store.upsert_entity(1, "  ana   LIMA ", "PER")
    by_alias = store.upsert_entity(1, "ana", "human", aliases=["Nana"], summary="my older sister")
    assert ana.id == again.id == by_alias.id
    assert by_alias.mention_count == 3
    assert by_alias.aliases == ["Ana", "Nana"]
    assert by_alias.summary == "my older sister"
    assert by_alias.type == "Person"


def test_upsert_entity_keeps_domains_and_incompatible_types_apart(store: EntityStore) -> None:
    personal = store.upsert_entity(1, "Paris", "city")
    doc = store.upsert_entity(1, "Paris", "city", domain="doc:7")
    person = store.upsert_entity(1, "Paris", "person")
    concept = store.upsert_entity(1, "paris", "whatever")
    assert len({personal.id, doc.id, person.id}) == 3
    assert concept.id in (personal.id, person.id)


def test_upsert_entity_upgrades_concept_type(store: EntityStore) -> None:
    first = store.upsert_entity(1, "Acme", "thing")
    second = store.upsert_entity(1, "Acme", "company")
    assert first.id == second.id and second.type == "Organization"


def test_upsert_entity_rejects_empty_name(store: EntityStore) -> None:
    with pytest.raises(ValueError):
        store.upsert_entity(1, " ... ", "person")


def test_find_by_name_returns_every_same_named_entity(store: EntityStore) -> None:
    sister = store.upsert_entity(1, "Ana", "person", summary="sister")
    colleague = store.upsert_entity(1, "Ana", "person", summary="colleague", distinct=True)
    store.upsert_entity(1, "Anabela", "person")
    store.upsert_entity(1, "Bob", "person")
    exact = store.find_by_name(1, "ana", fuzzy=False)
    assert {e.id for e in exact} == {sister.id, colleague.id}
    fuzzy = store.find_by_name(1, "Ana")
    assert [e.name for e in fuzzy][2:] == ["Anabela"]
    assert [e.name for e in store.find_by_name(1, "Bobb")] == ["Bob"]


def test_by_type_and_types_count_active_entities(store: EntityStore) -> None:
    store.upsert_entity(1, "Ana", "person")
    store.upsert_entity(1, "Rui", "people")
    store.upsert_entity(1, "Lisbon", "GPE")
    assert store.types(1) == {"Person": 2, "Location": 1}
    assert [e.name for e in store.by_type(1, "human", limit=5)] == ["Ana", "Rui"]


def test_add_relation_increments_weight_of_identical_live_triple(store: EntityStore) -> None:
    ana = store.upsert_entity(1, "Ana", "person")
    lisbon = store.upsert_entity(1, "Lisbon", "city")
    assert ana.id and lisbon.id
    first = store.add_relation(1, ana.id, "lives in", lisbon.id)
    second = store.add_relation(1, ana.id, "LIVES_IN", lisbon.id, weight=0.5)
    assert first.id == second.id and second.weight == 1.5
    assert [r.predicate for r in store.current_relations(1, ana.id)] == ["LIVES_IN"]


def test_supersede_relation_keeps_history(store: EntityStore) -> None:
    ana, lisbon, porto = (
        store.upsert_entity(1, n, "city" if n != "Ana" else "person") for n in ("Ana", "Lisbon", "Porto")
    )
    assert ana.id and lisbon.id and porto.id
    old = store.add_relation(1, ana.id, "lives_in", lisbon.id)
    assert old.id
    ended = store.supersede_relation(1, old.id)
    new = store.add_relation(1, ana.id, "lives_in", porto.id)
    assert ended.valid_to is not None
    assert [r.id for r in store.current_relations(1, ana.id, "lives in")] == [new.id]
    again = store.add_relation(1, ana.id, "lives_in", lisbon.id)
    assert again.id != old.id
    assert store.expand(1, [ana.id], 1).node_ids == {ana.id, porto.id, lisbon.id}
    history = store.expand(1, [ana.id], 1, history=True)
    assert {e.relation_id for e in history.edges} == {old.id, new.id, again.id}


def test_forget_source_memory_removes_only_what_that_memory_supported(store: EntityStore) -> None:
    ana = store.upsert_entity(1, "Ana", "person", source_memory_id=10)
    rui = store.upsert_entity(1, "Rui", "person", source_memory_id=10)
    lisbon = store.upsert_entity(1, "Lisbon", "city", source_memory_id=10)
    store.upsert_entity(1, "Ana", "person", source_memory_id=11)
    assert ana.id and rui.id and lisbon.id
    only = store.add_relation(1, ana.id, "knows", rui.id, source_memory_id=10)
    shared = store.add_relation(1, ana.id, "lives in", lisbon.id, source_memory_id=10)
    store.add_relation(1, ana.id, "lives in", lisbon.id, weight=2.0, source_memory_id=11)
    result = store.forget_source_memory(1, 10)
    assert result.relation_ids == (only.id,)
    assert set(result.entity_ids) == {rui.id}
    kept = store.get(1, ana.id)
    assert kept is not None and kept.mention_count == 1
    assert [(r.id, r.weight) for r in store.current_relations(1, ana.id)] == [(shared.id, 2.0)]
    assert store.expand(1, [ana.id], 2).node_ids == {ana.id, lisbon.id}
    store.forget_source_memory(1, 11)
    assert store.get(1, ana.id) is None and store.get(1, lisbon.id) is None


def test_merge_moves_relations_and_marks_dropped(store: EntityStore) -> None:
    ana = store.upsert_entity(1, "Ana", "person")
    ana2 = store.upsert_entity(1, "Ana Lima", "person", summary="sister, lives in Porto")
    porto = store.upsert_entity(1, "Porto", "city")
    assert ana.id and ana2.id and porto.id
    store.add_relation(1, ana2.id, "lives in", porto.id)
    store.add_relation(1, ana.id, "same as", ana2.id)
    kept = store.merge(1, ana.id, ana2.id)
    dropped = store.get(1, ana2.id)
    assert dropped is not None and dropped.status == "merged" and dropped.merged_into == ana.id
    assert kept.aliases == ["Ana Lima"] and kept.mention_count == 2
    assert [(r.subject_id, r.object_id) for r in store.current_relations(1, ana.id)] == [(ana.id, porto.id)]
    assert store.expand(1, [ana.id], 1).node_ids == {ana.id, porto.id}
    assert [e.id for e in store.find_by_name(1, "ana lima")] == [ana.id]
    with pytest.raises(EntityNotFound):
        store.add_relation(1, ana2.id, "knows", porto.id)


def test_delete_domain_removes_entities_and_relations(store: EntityStore) -> None:
    ana = store.upsert_entity(1, "Ana", "person")
    doc = store.upsert_entity(1, "Acme", "company", domain="doc:3")
    assert ana.id and doc.id
    store.add_relation(1, ana.id, "works at", doc.id)
    assert store.delete_domain(1, "doc:3") == 1
    assert store.get(1, doc.id) is None and store.current_relations(1, ana.id) == []
    assert store.expand(1, [ana.id], 1).edges == ()


def test_entity_store_isolates_users_in_every_method(store: EntityStore) -> None:
    mine = store.upsert_entity(1, "Ana", "person")
    theirs = store.upsert_entity(2, "Ana", "person")
    other = store.upsert_entity(2, "Rui", "person")
    assert mine.id and theirs.id and other.id and mine.id != theirs.id
    rel = store.add_relation(2, theirs.id, "knows", other.id, source_memory_id=5)
    assert rel.id
    assert store.get(1, theirs.id) is None
    assert [e.id for e in store.find_by_name(1, "Ana")] == [mine.id]
    assert store.by_type(1, "person") == [mine] or [e.id for e in store.by_type(1, "person")] == [mine.id]
    assert store.types(1) == {"Person": 1}
    assert store.current_relations(1, theirs.id) == []
    assert store.expand(1, [theirs.id, other.id], 3).nodes == ()
    assert store.relationships(1, theirs.id, "both").nodes == ()
    assert store.shortest_path(1, theirs.id, other.id) is None
    assert store.shared_neighbours(1, theirs.id, 5) == []
    for call in (
        lambda: store.add_relation(1, mine.id or 0, "knows", other.id or 0),
        lambda: store.supersede_relation(1, rel.id or 0),
        lambda: store.merge(1, mine.id or 0, theirs.id or 0),
    ):
        with pytest.raises(EntityNotFound):
            call()
    assert store.forget_source_memory(1, 5).relation_ids == ()
    assert store.delete_domain(1, "personal") == 1
    assert store.get(2, theirs.id) is not None and store.current_relations(2, theirs.id) != []


def test_keep_apart_split_and_merge_record_the_pairs(store: EntityStore) -> None:
    """The `entity_apart` writes (recorded twice, moved by a merge) on both backends."""
    ana = store.upsert_entity(1, "Ana", "person", aliases=["my sister"])
    other = store.upsert_entity(1, "Ana", "person", distinct=True)
    rui = store.upsert_entity(1, "Rui", "person")
    assert ana.id and other.id and rui.id
    rel = store.add_relation(1, ana.id, "works at", rui.id)
    store.keep_apart(1, other.id, ana.id, "different roles")
    store.keep_apart(1, ana.id, other.id, "said again")  # idempotent
    assert store.apart(1) == {(ana.id, other.id)}
    new = store.split(1, ana.id, relation_ids=[rel.id or 0])
    assert new.id and store.apart(1) == {(ana.id, other.id), (ana.id, new.id)}
    assert [r.subject_id for r in store.links(1, rui.id)] == [new.id]
    store.merge(1, other.id, new.id)  # the merged one's pairs become the kept one's
    assert store.apart(1) == {(ana.id, other.id)}
