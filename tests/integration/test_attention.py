"""Attention and telemetry on real stores: relevance against centrality, and a reason for every
kind of skip (real SQLite, sqlite-vec, Kuzu and the bundled embedder)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from capabilities.context import TwoLevelContext
from capabilities.evidence import Evidence
from capabilities.report import context_lines
from capabilities.request_policy import MORE_MEMORIES, second_look
from memory.assembly import AssembledContext, ContextRequest, Skip
from memory.attention import GRAPH_WEIGHTS, NO_DOMAIN, RELEVANCE, STRUCTURE, Weights, domain_shares
from memory.store import MemoryStore

pytestmark = pytest.mark.both_backends
QUESTION = "What instrument does Ana play?"


@pytest.fixture
def band(storage: MemoryStore) -> tuple[MemoryStore, int]:
    """Ana plays the violin (a leaf) and works at Acme, the hub of five freight things: the central
    node at depth 2 is off-topic."""
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    ents = storage.entities
    ana = ents.upsert_entity(uid, "Ana", "Person", summary="the user's sister")
    violin = ents.upsert_entity(uid, "Violin", "Concept", summary="the string instrument Ana plays")
    acme = ents.upsert_entity(uid, "Acme Logistics", "Organization", summary="a freight company")
    assert ana.id and violin.id and acme.id
    ents.add_relation(uid, ana.id, "PLAYS", violin.id)
    ents.add_relation(uid, ana.id, "WORKS_AT", acme.id)
    for name in ("Forklift", "Pallet", "Truck", "Invoice", "Depot"):
        thing = ents.upsert_entity(uid, name, "Concept")
        assert thing.id
        ents.add_relation(uid, acme.id, "USES", thing.id)
    return storage, uid


def _item(ctx: AssembledContext, name: str) -> tuple[float, Skip | None, str]:
    found = [i for i in ctx.loaded + ctx.skipped if i.kind == "entity" and i.summary == name]
    assert found, name
    return found[0].score, found[0].skip, found[0].reason


def _ask(storage: MemoryStore, uid: int, weights: Weights, **kw: object) -> AssembledContext:
    storage.assembler.weights = weights
    req = ContextRequest(**{"context_turns": 0, "vector_limit": 0, "similarity_threshold": 0.5,  # pyright: ignore[reportArgumentType]
                            "triple_depth": 2, **kw})  # fmt: skip
    return storage.assembler.assemble(uid, "t", QUESTION, req)


def test_attention_relevance_beats_centrality_when_the_hub_is_off_topic(band: tuple[MemoryStore, int]) -> None:
    storage, uid = band
    before = _ask(storage, uid, STRUCTURE)
    assert _item(before, "Acme Logistics")[0] > _item(before, "Violin")[0]  # centrality alone: the hub first
    weighted = _ask(storage, uid, RELEVANCE)
    assert _item(weighted, "Violin")[0] > _item(weighted, "Acme Logistics")[0]
    shipped = _ask(storage, uid, GRAPH_WEIGHTS)
    _, skip, reason = _item(shipped, "Acme Logistics")
    assert skip is Skip.RELEVANCE and reason.startswith("relevance 0.0") and "below the cut 0.1" in reason
    assert "Violin" in {i.summary for i in shipped.loaded}
    assert all("Acme" not in i.full for i in shipped.loaded if i.kind == "relation")
    assert _item(shipped, "Violin")[2] == "1 hop out, relevance 0.81"
    assert _item(shipped, "Ana")[2] == "named in the question"


def test_telemetry_each_skip_kind_has_its_reason(band: tuple[MemoryStore, int]) -> None:
    storage, uid = band
    ents = storage.entities
    ana = ents.find_by_name(uid, "Ana", fuzzy=False)[0]
    lisbon = ents.upsert_entity(uid, "Lisbon", "Location")
    whitby = ents.upsert_entity(uid, "Whitby", "Location", domain="doc:1")
    assert ana.id and lisbon.id and whitby.id
    old = ents.add_relation(uid, ana.id, "LIVES_IN", lisbon.id)
    assert old.id
    ents.supersede_relation(uid, old.id)
    ents.add_relation(uid, ana.id, "VISITED", whitby.id)

    shallow = _ask(storage, uid, GRAPH_WEIGHTS, triple_depth=1, domains=["personal"])
    reasons = {(i.summary, i.skip): i.reason for i in shallow.skipped}
    assert reasons[("Forklift", Skip.DEPTH)] == "2 hops out, past TRIPLE_DEPTH 1"
    assert reasons[("Whitby", Skip.FOCUS)] == "outside the focus (doc:1)"
    assert reasons[("Ana LIVES_IN Lisbon", Skip.SUPERSEDED)] == "superseded, no longer true"
    assert reasons[("Acme Logistics", Skip.RELEVANCE)].endswith("below the cut 0.1")
    tight = _ask(storage, uid, GRAPH_WEIGHTS, budget_tokens=12)
    assert any(i.skip is Skip.BUDGET and i.reason == "token budget" for i in tight.skipped)

    telemetry = shallow.telemetry()
    assert telemetry["depth"] == 1 and telemetry["depth_reached"] == 1
    assert set(telemetry["skipped_by_kind"]) == {"depth", "focus", "superseded", "relevance"}
    assert all(entry["reason"] for entry in telemetry["loaded"])
    assert telemetry["best_unloaded"] and all(e["kind"] != "superseded" for e in telemetry["best_unloaded"])
    said = " | ".join(telemetry["recommendations"])
    assert "ask TRIPLE_DEPTH 2 for" in said and "set /focus all to include Whitby" in said
    block = TwoLevelContext.from_assembled(shallow).block()  # the block the model is sent
    assert "Related but not loaded (EXPAND_ENTITY can load an entity): " in block
    assert "(2 hops out, past TRIPLE_DEPTH 1)" in block and "Recommendation: ask TRIPLE_DEPTH 2 for" in block


def test_attention_domain_term_ranks_the_questions_domain_first(storage: MemoryStore) -> None:
    """A question about the novel names its Mina, Lucy and Whitby and the person's sister Lucy too:
    the sister's city, one hop out like the novel's Carfax and as central, ranks below it."""
    uid = storage.accounts.create("reader", "correct-horse").id
    assert uid is not None
    ents = storage.entities

    def add(name: str, kind: str, domain: str = "personal") -> int:
        row = ents.upsert_entity(uid, name, kind, domain=domain, distinct=True)
        assert row.id is not None
        return row.id

    sister, leeds = add("Lucy", "Person"), add("Leeds", "Location")
    lucy, mina = add("Lucy", "Person", "doc:1"), add("Mina", "Person", "doc:1")
    whitby, carfax = add("Whitby", "Location", "doc:1"), add("Carfax", "Location", "doc:1")
    for a, p, b in ((sister, "LIVES_IN", leeds), (sister, "CROSS_DOMAIN", lucy), (lucy, "VISITED", whitby),
                    (mina, "KNOWS", lucy), (mina, "VISITED", carfax)):  # fmt: skip
        ents.add_relation(uid, a, p, b)
    req, question = ContextRequest(0, 0, 0.5, 2), "Did Mina meet Lucy at Whitby?"
    storage.assembler.weights = NO_DOMAIN
    before = storage.assembler.assemble(uid, "t", question, req)
    assert _item(before, "Leeds")[0] == pytest.approx(_item(before, "Carfax")[0], abs=1e-3)
    storage.assembler.weights = GRAPH_WEIGHTS
    ranked = storage.assembler.assemble(uid, "t", question, req)
    # named: three of the novel's, one of the person's; the person's domain lacks 2/3 of the question
    assert _item(ranked, "Carfax")[0] == pytest.approx(_item(before, "Carfax")[0], abs=1e-3)
    assert _item(ranked, "Leeds")[0] == pytest.approx(_item(before, "Leeds")[0] - 0.1 * 2 / 3, abs=1e-3)
    assert _item(ranked, "Leeds")[2].endswith(", another domain (personal)")
    assert "another domain" not in _item(ranked, "Carfax")[2]
    storage.assembler.weights = replace(GRAPH_WEIGHTS, domain=0.0)  # without the term: as before it
    assert _item(storage.assembler.assemble(uid, "t", question, req), "Leeds")[0] == pytest.approx(
        _item(before, "Leeds")[0], abs=1e-3
    )


def test_attention_domain_shares_the_largest_is_whole() -> None:
    assert domain_shares(["doc:1", "personal", "doc:1"], ["doc:1"]) == {"doc:1": 1.0, "personal": 1 / 3}
    assert domain_shares([], []) == {}


def test_telemetry_a_memory_past_the_limit_is_named_and_the_second_look_asks_for_more(storage: MemoryStore) -> None:
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    for said in ("Ana plays the violin in an orchestra.", "Ana practises the violin every evening."):
        storage.memories.add(uid, "turn", said)
    req = ContextRequest(0, 1, 0.5, 0)
    ctx = storage.assembler.assemble(uid, "t", QUESTION, req)
    assert len(ctx.hits) == 1
    past = [i for i in ctx.skipped if i.skip is Skip.LIMIT]
    assert len(past) == 1 and past[0].reason == "past VECTOR_SEARCH_LIMIT 1" and past[0].kind == "turn"
    assert ctx.recommendations()[0].startswith("ask VECTOR_SEARCH_LIMIT above 1 for more memories like “(")
    assert "1 past VECTOR_SEARCH_LIMIT" in " ".join(context_lines(ctx.telemetry()))
    weak = Evidence("unknown", (), "low", "no remembered note mentions instrument")
    step = second_look(ctx, req, weak, max_depth=3, max_memories=15)
    assert step is not None and step.request.vector_limit == 1 + MORE_MEMORIES and step.request.triple_depth == 0
    assert step.said.endswith("(the evidence was weak: no remembered note mentions instrument)")
    assert second_look(ctx, req, weak, max_depth=3, max_memories=1) is None  # the range allows no more
    sure = Evidence("answer", (), "high", "covers 2/2 key words")
    assert second_look(ctx, req, sure, max_depth=3, max_memories=15) is None
    wider = storage.assembler.assemble(uid, "t", QUESTION, step.request)
    assert len(wider.hits) == 2 and not [i for i in wider.skipped if i.skip is Skip.LIMIT]
