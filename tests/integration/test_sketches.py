"""The sign-sketch prefilter on real SQLite files with the real embedder: it never goes stale."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Engine, text

from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.hybrid import HybridSearch
from memory.recall.sketches import SKETCH_BYTES, SketchIndex, sketch
from memory.recall.vectors import MemoryIndex, NewMemory
from tests.integration.conftest import make_engine

FACTS = [
    "My sister Anna works as a nurse at the children's hospital.",
    "I adopted a golden retriever puppy called Biscuit in March.",
    "We went hiking in the Dolomites last summer.",
    "My favourite dish is mushroom risotto.",
    "I am allergic to peanuts and carry an epipen.",
]


def test_sketch_is_the_sign_of_each_dimension() -> None:
    v = np.zeros((1, 384), dtype=np.float32)
    v[0, [0, 9, 383]] = [0.5, 0.1, 0.2]
    v[0, 1] = -0.7
    bits = sketch(v)
    assert bits.shape == (1, SKETCH_BYTES)
    assert bits[0, 0] == 0b1 and bits[0, 1] == 0b10 and bits[0, 47] == 0b1000_0000
    # Another embedder's width is padded to whole 64-bit words (300 dims: 38 bytes of bits, 40 stored).
    odd = sketch(np.ones((2, 300), dtype=np.float32))
    assert odd.shape == (2, 40) and odd[0, 37] == 0b1111 and not odd[:, 38:].any()


def test_sketches_are_stored_with_every_memory(engine: Engine, embedder: Embedder) -> None:
    index = MemoryIndex(engine, embedder)
    row = index.add(1, "fact", FACTS[0])
    edited = index.update_content(1, row.id or 0, FACTS[1])
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT sketch FROM memories WHERE id = :i"), {"i": row.id}).scalar_one()
    assert stored == sketch(embedder.embed_one(edited.content)[None, :])[0].tobytes()


def test_nearest_follows_inserts_edits_status_changes_and_deletes(engine: Engine, embedder: Embedder) -> None:
    index, sketches = MemoryIndex(engine, embedder), SketchIndex(engine)
    rows = index.add_many(1, [NewMemory("fact", f) for f in FACTS[:3]])
    peanut = embedder.embed_one("Which food allergy do I have?")
    assert len(sketches.nearest(1, peanut, 10)) == 3
    added = index.add(1, "fact", FACTS[4])  # insert only: appended to the cached sketches
    assert sketches.nearest(1, peanut, 1) == [added.id]
    index.update_content(1, added.id or 0, "We painted the kitchen yellow.")  # edit: reloaded
    assert sketches.nearest(1, peanut, 1) != [added.id]
    index.set_status(1, rows[0].id or 0, "superseded")
    assert rows[0].id not in sketches.nearest(1, peanut, 10)
    index.delete(1, rows[1].id or 0)
    assert sorted(sketches.nearest(1, peanut, 10)) == sorted([rows[2].id, added.id])


def test_nearest_is_per_user_and_filters_kind_and_document(engine: Engine, embedder: Embedder) -> None:
    index, sketches = MemoryIndex(engine, embedder), SketchIndex(engine)
    mine = index.add_many(
        1, [NewMemory("fact", FACTS[0]), NewMemory("turn", FACTS[1]), NewMemory("chunk", FACTS[2], document_id=7)]
    )
    index.add_many(2, [NewMemory("fact", f) for f in FACTS])
    q = embedder.embed_one("anything")
    assert sorted(sketches.nearest(1, q, 50)) == sorted(r.id for r in mine)
    assert sketches.nearest(1, q, 50, kinds=["turn"]) == [mine[1].id]
    assert sketches.nearest(1, q, 50, document_ids=[7]) == [mine[2].id]
    assert sketches.nearest(1, q, 50, kinds=["summary"]) == []
    assert sketches.nearest(3, q, 50) == []


def test_a_write_through_another_connection_is_seen(tmp_path: Path, embedder: Embedder) -> None:
    """Another process (the CLI, a second engine) writes: the next search sees it, no restart."""
    app, other = make_engine(tmp_path / "r.db"), make_engine(tmp_path / "r.db")
    search = HybridSearch(app, embedder)
    first = MemoryIndex(app, embedder).add(1, "fact", FACTS[0])
    q = embedder.embed_one("Which food allergy do I have?")
    assert list(search.dense(1, q, 5)) == [first.id]
    second = MemoryIndex(other, embedder).add(1, "fact", FACTS[4])
    assert list(search.dense(1, q, 5)) == [second.id, first.id]
    MemoryIndex(other, embedder).delete(1, second.id or 0)
    assert list(search.dense(1, q, 5)) == [first.id]


def test_dense_is_exact_when_the_pool_covers_the_store(engine: Engine, embedder: Embedder) -> None:
    index = MemoryIndex(engine, embedder)
    rows = index.add_many(1, [NewMemory("fact", f) for f in FACTS])
    q = embedder.embed_one("my dog")
    vectors = embedder.embed(FACTS)
    want = sorted(zip((r.id for r in rows), (vectors @ q).tolist(), strict=True), key=lambda kv: -kv[1])
    got = HybridSearch(engine, embedder).dense(1, q, 3)
    assert list(got) == [m for m, _ in want[:3]]
    assert list(got.values()) == pytest.approx([c for _, c in want[:3]], abs=1e-5)


def test_m009_backfills_the_sketches_of_existing_memories(tmp_path: Path, embedder: Embedder) -> None:
    eng = open_engine(tmp_path / "old.db")
    migrate(eng, [m for m in MIGRATIONS if m[0] < "m009"])
    vector = embedder.embed_one(FACTS[2])
    with eng.begin() as conn:
        conn.execute(text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (1, 'u', '-', 'now')"))
        conn.execute(
            text(
                "INSERT INTO memories (id, user_id, kind, content, created_at, content_hash) "
                "VALUES (5, 1, 'fact', :c, '2024-01-01', 'h')"
            ),
            {"c": FACTS[2]},
        )
        conn.execute(
            text(
                "INSERT INTO memory_vec (memory_id, user_id, embedding, kind, status, document_id) "
                "VALUES (5, 1, :e, 'fact', 'active', 0)"
            ),
            {"e": vector.tobytes()},
        )
    assert migrate(eng, MIGRATIONS)[0] == "m009_sketches"
    with eng.connect() as conn:
        stored = conn.execute(text("SELECT sketch FROM memories WHERE id = 5")).scalar_one()
    assert stored == sketch(vector[None, :])[0].tobytes()
    assert SketchIndex(eng).nearest(1, vector, 3) == [5]


class CountingEmbedder(Embedder):
    """The real embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return get_embedder().embed(texts)


def test_prepare_embeds_the_message_once_for_the_search_after_it(engine: Engine) -> None:
    counting = CountingEmbedder()
    index = MemoryIndex(engine, counting)
    index.add(1, "fact", FACTS[4])
    question = "Am I allergic to peanuts?"
    index.prepare(question)
    assert counting.texts[-1] == question
    before = len(counting.texts)
    hits = index.search(1, question, limit=3, threshold=0.5)
    assert len(counting.texts) == before  # the prepared vector was used
    assert [h.memory.content for h in hits] == [FACTS[4]]
