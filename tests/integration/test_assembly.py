"""Context assembly honours each granted dimension exactly (real SQLite, sqlite-vec, Kuzu, embedder)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from capabilities.context import TwoLevelContext
from memory.assembly import AssembledContext, ContextRequest, pack
from memory.graph.entity_vectors import EntityVectors
from memory.recall.embedder import Embedder, get_embedder
from memory.store import MemoryStore
from memory.tokens import estimate_tokens

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def seeded(storage: MemoryStore) -> tuple[MemoryStore, int]:
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    for i in range(6):
        storage.turns.add(uid, "t", "user" if i % 2 == 0 else "assistant", f"turn {i}")
    facts = [
        "The user's sister Ana lives in Porto.",
        "The user is allergic to peanuts.",
        "The user works at Acme Robotics as an engineer.",
        "The user's favourite food is grilled sardines.",
    ]
    rows = [storage.memories.add(uid, "fact", f) for f in facts]
    ana = storage.entities.upsert_entity(uid, "Ana", "Person", summary="the user's sister")
    porto = storage.entities.upsert_entity(uid, "Porto", "Location", summary="a city in Portugal")
    portugal = storage.entities.upsert_entity(uid, "Portugal", "Location")
    assert ana.id and porto.id and portugal.id and rows[0].id
    storage.entities.add_relation(uid, ana.id, "LIVES_IN", porto.id, source_memory_id=rows[0].id)
    storage.entities.add_relation(uid, porto.id, "LOCATED_IN", portugal.id)
    return storage, uid


def _req(**kw: float) -> ContextRequest:
    base = {"context_turns": 10, "vector_limit": 5, "similarity_threshold": 0.5, "triple_depth": 1}
    return ContextRequest(**{**base, **kw})  # pyright: ignore[reportArgumentType]


def test_assembly_context_turns_exact(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    ctx = storage.assembler.assemble(uid, "t", "hello", _req(context_turns=3))
    assert [t.content for t in ctx.history] == ["turn 3", "turn 4", "turn 5"]


def test_assembly_vector_limit_zero_retrieves_no_memories(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    ctx = storage.assembler.assemble(uid, "t", "Where does my sister Ana live?", _req(vector_limit=0, triple_depth=0))
    assert ctx.hits == [] and ctx.loaded == []


def test_assembly_vector_limit_and_threshold_honoured(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    one = storage.assembler.assemble(uid, "t", "Where does my sister live?", _req(vector_limit=1, triple_depth=0))
    assert len(one.hits) == 1 and "Porto" in one.hits[0].memory.content
    strict = storage.assembler.assemble(uid, "t", "Where does my sister live?", _req(similarity_threshold=0.99))
    assert all(h.relevance >= 0.99 for h in strict.hits)


def test_assembly_triple_depth_zero_has_no_graph(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    ctx = storage.assembler.assemble(uid, "t", "Tell me about Ana", _req(triple_depth=0))
    assert ctx.entities == {} and not ctx.subgraph.edges
    assert not any(i.kind in ("entity", "relation") for i in ctx.loaded)


def test_assembly_triple_depth_reaches_further_hops(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    one = storage.assembler.assemble(uid, "t", "Tell me about Ana", _req(triple_depth=1, vector_limit=0))
    two = storage.assembler.assemble(uid, "t", "Tell me about Ana", _req(triple_depth=2, vector_limit=0))
    names_one = {e.name for e in one.entities.values()}
    names_two = {e.name for e in two.entities.values()}
    assert names_one == {"Ana", "Porto"} and names_two == {"Ana", "Porto", "Portugal"}
    block = TwoLevelContext.from_assembled(two).block()
    assert "Ana LIVES_IN Porto" in block and block.startswith("<recalled_context>")


def test_assembly_other_user_sees_nothing(seeded: tuple[MemoryStore, int]) -> None:
    storage, _ = seeded
    ben = storage.accounts.create("ben", "battery-staple").id
    assert ben is not None
    ctx = storage.assembler.assemble(ben, "t", "Where does Ana live? peanuts Porto", _req(triple_depth=3))
    assert ctx.history == [] and ctx.hits == [] and ctx.entities == {}


def test_assembly_pack_uses_summaries_then_skips_under_budget(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    ctx = storage.assembler.assemble(uid, "t", "sister Porto peanuts Acme sardines", _req(vector_limit=4))
    loaded, skipped = pack(ctx.loaded + ctx.skipped, budget_tokens=20)
    assert loaded and skipped and all(i.reason == "token budget" for i in skipped)
    telemetry = ctx.telemetry()
    assert set(telemetry) >= {"loaded", "skipped", "skipped_total", "coverage", "context_tokens", "timings_ms"}


def test_assembly_domain_filter_keeps_only_those_graphs(seeded: tuple[MemoryStore, int]) -> None:
    storage, uid = seeded
    whitby = storage.entities.upsert_entity(uid, "Whitby", "Location", domain="doc:1")
    ana = storage.entities.find_by_name(uid, "Ana", fuzzy=False)[0]
    assert whitby.id and ana.id
    storage.entities.add_relation(uid, ana.id, "VISITED", whitby.id)
    everything = storage.assembler.assemble(uid, "t", "Tell me about Ana", _req(triple_depth=1, vector_limit=0))
    personal = storage.assembler.assemble(
        uid, "t", "Tell me about Ana", ContextRequest(10, 0, 0.5, 1, domains=["personal"])
    )
    assert "Whitby" in {e.name for e in everything.entities.values()}
    assert {e.name for e in personal.entities.values()} == {"Ana", "Porto"}


def _exchange(storage: MemoryStore) -> tuple[int, list[int]]:
    """One thread of four of the person's turns, the second the one a question about the shelter finds."""
    uid = storage.accounts.create("ben", "correct-horse").id
    assert uid is not None
    said = [
        "Work has been busy with the product launch.",
        "We adopted a puppy from the shelter on Elm Street.",
        "She is a beagle and we named her Biscuit.",
        "Tomorrow I am driving to my parents for the weekend.",
    ]
    rows = [storage.memories.add(uid, "turn", s, thread_id="chat-1") for s in said]
    return uid, [r.id for r in rows if r.id is not None]


def test_assembly_shows_a_turn_with_the_turns_beside_it(storage: MemoryStore) -> None:
    """Issue 14: a turn out of its exchange loses its meaning (the puppy's name is in the next turn),
    so a loaded turn memory is shown with the turns said next to it while the budget allows: lines of
    that memory, not memories of their own, and counted in the context's tokens. The ranked turn just
    before it comes first, then the one after, then (second ring) the one after that."""
    uid, ids = _exchange(storage)
    ask = ContextRequest(0, 1, 0.0, 0, budget_tokens=400)
    ctx = storage.assembler.assemble(uid, "another-chat", "Which shelter did we adopt the puppy from?", ask)
    [item] = ctx.loaded
    assert item.ref == f"m{ids[1]}" and item.around == (ids[0], ids[2], ids[3])
    assert item.full.splitlines()[1:] == [
        "  before: Work has been busy with the product launch.",
        "  after: She is a beagle and we named her Biscuit.",
        "  after that: Tomorrow I am driving to my parents for the weekend.",
    ]
    block = TwoLevelContext.from_assembled(ctx).block()
    assert f"- [m{ids[1]}] " in block and "  after: She is a beagle" in block
    telemetry = ctx.telemetry()
    assert telemetry["neighbour_lines"] == 3 and telemetry["loaded"][0]["around"] == [f"m{ids[i]}" for i in (0, 2, 3)]
    assert telemetry["context_tokens"] == item.cost("full") and len(ctx.loaded) == 1  # still one memory
    # The ranked turns shown as its lines are still hits (the policy path's notes); the second ring's is not.
    assert ctx.hits[0].memory.id == ids[1] and {h.memory.id for h in ctx.hits[1:]} == {ids[0], ids[2]}


def test_assembly_a_ranked_turn_beside_a_chosen_one_gives_its_place(storage: MemoryStore) -> None:
    """A ranked turn said next to a chosen memory is shown as that memory's line, and the memory's
    place goes to the next one ranked: two memories granted hold two exchanges, not one twice."""
    uid, ids = _exchange(storage)
    other = storage.memories.add(uid, "turn", "The shelter gave us a puppy starter kit.", thread_id="chat-2")
    question = "Which shelter did we adopt the puppy from?"
    ask = ContextRequest(0, 2, 0.0, 0, budget_tokens=400)
    ctx = storage.assembler.assemble(uid, "another-chat", question, ask)
    assert {i.ref for i in ctx.loaded} == {f"m{ids[1]}", f"m{other.id}"}
    assert ids[0] in next(i for i in ctx.loaded if i.ref == f"m{ids[1]}").around
    # When the budget, not the count, is the limit, no place is freed: the better-ranked turn keeps it.
    tight = storage.assembler.assemble(uid, "another-chat", question, ContextRequest(0, 2, 0.0, 0, budget_tokens=70))
    assert len(tight.hits) == 2 and other.id not in {h.memory.id for h in tight.hits}
    storage.assembler.surround = False  # without lines, each ranked memory takes a place
    alone = storage.assembler.assemble(uid, "another-chat", question, ask)
    assert f"m{other.id}" not in {i.ref for i in alone.loaded} and len(alone.loaded) == 2


def test_assembly_a_turn_in_the_history_takes_no_place(storage: MemoryStore) -> None:
    """A memory of a turn the history already shows is not recalled twice, nor does it keep a granted
    place empty: the place goes to the next memory ranked."""
    uid = storage.accounts.create("ben", "correct-horse").id
    assert uid is not None
    told = storage.turns.add(uid, "chat-1", "user", "We adopted a puppy from the shelter on Elm Street.")
    storage.memories.add(uid, "turn", told.content, thread_id="chat-1", source_turn_id=told.id)
    other = storage.memories.add(uid, "turn", "The shelter gave us a puppy starter kit.", thread_id="chat-2")
    ctx = storage.assembler.assemble(uid, "chat-1", "Which shelter did we adopt the puppy from?", _req(vector_limit=1))
    assert [t.id for t in ctx.history] == [told.id] and [i.ref for i in ctx.loaded] == [f"m{other.id}"]


def test_assembly_neighbour_lines_only_with_budget_left(storage: MemoryStore) -> None:
    """The chosen memories are packed first; a neighbour already loaded is not shown twice, and none
    is shown when the budget has no room for it."""
    uid, _ = _exchange(storage)
    question = "Which shelter did we adopt the puppy from?"
    two = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 2, 0.0, 0, budget_tokens=400))
    shown = [m for i in two.loaded for m in i.around]
    assert {int(i.ref[1:]) for i in two.loaded}.isdisjoint(shown) and len(shown) == len(set(shown))
    tight = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=40))
    assert len(tight.loaded) == 1 and tight.loaded[0].around == () and "\n" not in tight.loaded[0].full


def test_assembly_a_neighbouring_line_spends_its_tokens_on_what_was_said(storage: MemoryStore) -> None:
    """Twenty-third session: a line's label is a word or two ("  after: …"), not a phrase ("  said
    just after: …", ~2.5 tokens more a line): LoCoMo shows ~7 lines a question, so the labels were
    ~4 % of the 1,024-token budget, and a cheaper label leaves room for one more line (R@1024t
    82.1 → 82.4). The same budget shows the exchange whole."""
    uid, ids = _exchange(storage)
    question = "Which shelter did we adopt the puppy from?"
    ctx = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=400))
    [item] = ctx.loaded
    rows = storage.memories.by_ids(uid, [ids[0], ids[2], ids[3]])
    said = [rows[m].content for m in (ids[0], ids[2], ids[3])]  # just before, just after, after that
    lines = item.full.splitlines()[1:]
    assert len(lines) == 3 and all(line.endswith(text) for line, text in zip(lines, said, strict=True))
    assert all(len(line) - len(text) <= len("  after that: ") for line, text in zip(lines, said, strict=True))


class CountingEmbedder(Embedder):
    """The real embedder under another name if given, counting the texts it embeds."""

    def __init__(self, name: str = Embedder.name) -> None:
        super().__init__()
        self.name, self.texts = name, list[str]()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return get_embedder().embed(texts)


def _seen(ctx: AssembledContext) -> tuple[object, ...]:
    """Everything a context holds that the agent or the usage log reads: what loaded (text, level,
    score, why), what did not (and why), and the telemetry."""
    telemetry = {k: v for k, v in ctx.telemetry().items() if k != "timings_ms"}
    return (
        [(i.ref, i.level, i.full, i.summary, i.score, i.reason) for i in ctx.loaded],
        [(i.ref, i.skip, i.score, i.reason) for i in ctx.skipped],
        telemetry,
        ctx.related_shown,
    )


def test_assembly_entity_vectors_are_embedded_once_and_give_the_same_context(seeded: tuple[MemoryStore, int]) -> None:
    """Seventeenth session: an entity's vector is kept in the database, so another process (or this one
    once its memory cache lost it) reads it instead of embedding the name again (a depth-3 context on a
    1,000-entity graph embedded ~800 names, ~2 s, per request) and assembles exactly the same context.
    A changed summary or another embedding model embeds again."""
    storage, uid = seeded
    question, req = "Where does my sister Ana live?", _req(triple_depth=3)
    first = CountingEmbedder()
    storage.assembler.vectors = EntityVectors(storage.engine, first)
    before = storage.assembler.assemble(uid, "t", question, req, now=NOW)
    assert sorted(first.texts) == ["Ana: the user's sister", "Porto: a city in Portugal", "Portugal"]
    again = CountingEmbedder()  # a new process: nothing in memory
    storage.assembler.vectors = EntityVectors(storage.engine, again)
    after = storage.assembler.assemble(uid, "t", question, req, now=NOW)
    assert again.texts == [] and _seen(after) == _seen(before)
    storage.entities.upsert_entity(uid, "Porto", "Location", summary="the city by the Douro")
    storage.assembler.assemble(uid, "t", question, req, now=NOW)
    assert again.texts == ["Porto: the city by the Douro"]
    other = CountingEmbedder("another-model")
    storage.assembler.vectors = EntityVectors(storage.engine, other)
    storage.assembler.assemble(uid, "t", question, req, now=NOW)
    assert len(other.texts) == 3


# --- twenty-fourth session, locomo ---


def test_assembly_takes_memories_past_the_count_while_the_budget_has_room(storage: MemoryStore) -> None:
    """Issue 14: the evidence a question misses sits in another conversation, ranked just past the granted
    count, while the budget still has room. A request's `more_memories` lets the next ranked memories take
    places, in ranking order, before any neighbouring line, and says why; 0 keeps the count exact."""
    uid, ids = _exchange(storage)
    kit = storage.memories.add(uid, "turn", "The shelter gave us a puppy starter kit.", thread_id="chat-2")
    vet = storage.memories.add(uid, "turn", "The vet said our puppy from the shelter is healthy.", thread_id="chat-3")
    question = "Which shelter did we adopt the puppy from?"
    exact = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=600))
    assert len([i for i in exact.loaded if i.ref.startswith("m")]) == 1
    more = storage.assembler.assemble(
        uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=600, more_memories=2)
    )
    memories = {i.ref: i for i in more.loaded if i.ref.startswith("m")}
    assert set(memories) == {f"m{ids[1]}", f"m{kit.id}", f"m{vet.id}"}  # the granted one and two more
    assert memories[f"m{ids[1]}"].reason == "" and ids[0] in memories[f"m{ids[1]}"].around  # its lines still shown
    assert all(memories[f"m{m}"].reason.endswith("the budget had room") for m in (kit.id, vet.id))
    assert {h.memory.id for h in more.hits} >= {ids[1], kit.id, vet.id}  # the policy path's notes hold them
    # Never more than granted + more: one more only takes one.
    one = storage.assembler.assemble(
        uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=600, more_memories=1)
    )
    assert len([i for i in one.loaded if i.ref.startswith("m")]) == 2


def test_assembly_a_memory_past_the_count_only_with_room_for_its_text(storage: MemoryStore) -> None:
    """A memory past the granted count is taken only while its text fits what the better-ranked ones
    leave (the block stays within its budget), and not at all when the budget, not the count, is the limit;
    what is not taken stays named as past VECTOR_SEARCH_LIMIT."""
    uid, ids = _exchange(storage)
    kit = storage.memories.add(uid, "turn", "The shelter gave us a puppy starter kit.", thread_id="chat-2")
    question = "Which shelter did we adopt the puppy from?"
    taken = []
    for budget in range(60, 400, 10):
        ctx = storage.assembler.assemble(
            uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=budget, more_memories=1)
        )
        refs = {i.ref for i in ctx.loaded}
        block = TwoLevelContext.from_assembled(ctx).block()
        assert ctx.tokens <= budget and f"- [m{ids[1]}] " in block
        if f"m{kit.id}" in refs:
            taken.append(budget)
        else:
            assert any(i.skip is not None and i.ref == f"m{kit.id}" for i in ctx.skipped)
    assert taken and taken[0] > 60 and taken == list(range(taken[0], 400, 10))  # from some budget on, always


# --- twenty-fifth session, locomo ---


def test_assembly_a_block_of_memories_spends_its_frame_on_what_it_renders(storage: MemoryStore) -> None:
    """Twenty-fifth session: a block that holds memories only (no entity, so no entity section and no
    ambiguity section) reserves what its own delimiters and header cost (~13 tokens), not the 40 kept for
    every section: the budget it no longer holds back shows the exchange's lines. From the smallest budget
    that shows every line on, the block fills its budget but for a rounding, and never passes it."""
    uid, ids = _exchange(storage)
    question = "Which shelter did we adopt the puppy from?"
    whole = None
    for budget in range(40, 200, 2):
        ctx = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=budget))
        block = TwoLevelContext.from_assembled(ctx).block()
        assert estimate_tokens(block) <= budget
        if whole is None and [i.ref for i in ctx.loaded] == [f"m{ids[1]}"] and len(ctx.loaded[0].around) == 3:
            whole = budget
            assert budget - estimate_tokens(block) <= 8, block  # the frame the budget kept is the block's own
    assert whole is not None


def test_assembly_a_turn_says_its_date_and_other_kinds_say_what_they_are(storage: MemoryStore) -> None:
    """Twenty-fifth session: a turn (the person's own words, most of what is recalled) is shown with
    its date alone; a memory of another kind still says its kind (a distilled fact, a document's
    chunk), which the agent weighs differently. The pointer line offers EXPAND_ENTITY only when it
    names an entity (a memory past the count is not one)."""
    uid = storage.accounts.create("cy", "correct-horse").id
    assert uid is not None
    said = storage.memories.add(uid, "turn", "Our canoe trip on the lake got rained out.", thread_id="c1")
    fact = storage.memories.add(uid, "fact", "The user owns a red canoe.")
    for i in range(3):
        storage.memories.add(uid, "turn", f"The canoe needs new paddles, note {i}.", thread_id=f"c{i + 2}")
    question = "What happened on the canoe trip?"
    ctx = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 5, 0.0, 0, budget_tokens=400))
    texts = {i.ref: i.full for i in ctx.loaded}
    assert said.created_at and fact.created_at
    assert texts[f"m{said.id}"] == f"({said.created_at:%Y-%m-%d}) {said.content}"
    assert texts[f"m{fact.id}"] == f"({fact.created_at:%Y-%m-%d}, fact) {fact.content}"
    one = storage.assembler.assemble(uid, "x", question, ContextRequest(0, 1, 0.0, 0, budget_tokens=1024))
    block = TwoLevelContext.from_assembled(one).block()
    assert "Related but not loaded: " in block and "past VECTOR_SEARCH_LIMIT 1" in block
    assert "EXPAND_ENTITY" not in block
