"""MemoryIndex with the real embedder on both backends: a SQLite file with sqlite-vec and FTS5, and
PostgreSQL with pgvector and full-text search (memory/recall/pg_index.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text

from memory.recall.embedder import Embedder
from memory.recall.pg_index import PgMemoryIndex
from memory.recall.vectors import MemoryIndex, MemoryNotFound, NewMemory

FACTS = [
    "My sister Anna works as a nurse at the children's hospital.",
    "I adopted a golden retriever puppy called Biscuit in March.",
    "We went hiking in the Dolomites last summer.",
    "My favourite dish is mushroom risotto.",
]


@pytest.fixture
def engine(both_engines: Engine) -> Engine:
    """Every test here runs on SQLite, then on PostgreSQL."""
    return both_engines


def _index(engine: Engine, embedder: Embedder) -> MemoryIndex:
    return PgMemoryIndex(engine, embedder) if engine.dialect.name == "postgresql" else MemoryIndex(engine, embedder)


@pytest.fixture
def index(engine: Engine, embedder: Embedder) -> MemoryIndex:
    idx = _index(engine, embedder)
    idx.add_many(1, [NewMemory("fact", f) for f in FACTS])
    return idx


def _count(engine: Engine, sql: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(sql)).scalar_one())


def _vectors(engine: Engine, memory_id: int | None = None) -> int:
    """How many stored vectors (of one memory): vec0 rows on SQLite, filled columns on PostgreSQL."""
    if engine.dialect.name == "postgresql":
        one = f" AND id = {int(memory_id)}" if memory_id is not None else ""
        return _count(engine, f"SELECT count(*) FROM memories WHERE embedding IS NOT NULL{one}")
    one = f" WHERE memory_id = {int(memory_id)}" if memory_id is not None else ""
    return _count(engine, f"SELECT count(*) FROM memory_vec{one}")


def _lexical(engine: Engine, word: str) -> int:
    """How many memories the full-text index finds for one (plain, lower-case) word."""
    if engine.dialect.name == "postgresql":
        return _count(engine, f"SELECT count(*) FROM memories WHERE lexemes @@ to_tsquery('reverie', '{word}')")
    return _count(engine, f"SELECT count(*) FROM memory_fts WHERE memory_fts MATCH '{word}'")


def test_memory_index_add_search_round_trip(index: MemoryIndex) -> None:
    hits = index.search(1, "Which puppy did I adopt?", limit=3, threshold=0.5)
    assert hits and "golden retriever" in hits[0].memory.content
    assert 0.0 <= hits[0].relevance <= 1.0
    assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)


def test_memory_index_add_sets_fields(index: MemoryIndex) -> None:
    row = index.add(1, "turn", "Hello there", thread_id="t1", meta={"a": 1})
    got = index.get(1, row.id or 0)
    assert got is not None and got.thread_id == "t1" and got.status == "active" and got.meta == '{"a": 1}'
    assert got.created_at.tzinfo is not None


def test_memory_index_limit_honoured(index: MemoryIndex) -> None:
    assert len(index.search(1, "my life", limit=2, threshold=0.0)) == 2
    assert index.search(1, "dog", limit=0, threshold=0.0) == []


def test_memory_index_threshold_honoured(index: MemoryIndex) -> None:
    assert len(index.search(1, "my life", limit=10, threshold=0.0)) == len(FACTS)
    hits = index.search(1, "Which car brand do I drive?", limit=10, threshold=0.7)
    assert hits == []
    strict = index.search(1, "puppy", limit=10, threshold=0.9)
    assert all(h.relevance >= 0.9 for h in strict)


def test_memory_index_limit_zero_computes_no_embedding(engine: Engine) -> None:
    class Refuses(Embedder):
        def embed(self, texts: list[str]):  # type: ignore[override]
            raise AssertionError("embedded although limit was 0")

    assert _index(engine, Refuses()).search(1, "anything", limit=0) == []


def test_memory_index_user_isolation(index: MemoryIndex) -> None:
    mine = index.list(1)
    assert index.search(2, "golden retriever puppy", limit=10, threshold=0.0) == []
    assert index.list(2) == []
    assert index.get(2, mine[0].id or 0) is None
    assert index.by_ids(2, [m.id or 0 for m in mine]) == {}
    assert index.find_duplicate(2, FACTS[0]) is None
    assert index.delete(2, mine[0].id or 0) is False
    with pytest.raises(MemoryNotFound):
        index.update_content(2, mine[0].id or 0, "stolen")
    with pytest.raises(MemoryNotFound):
        index.set_status(2, mine[0].id or 0, "archived")
    with pytest.raises(MemoryNotFound):
        index.supersede(2, mine[0].id or 0, mine[1].id or 0)
    assert len(index.list(1)) == len(FACTS)


def test_memory_index_supersede(index: MemoryIndex) -> None:
    old = index.search(1, "favourite dish", limit=1, threshold=0.5)[0].memory
    new = index.add(1, "fact", "My favourite dish is now pad thai.")
    retired = index.supersede(1, old.id or 0, new.id or 0)
    assert retired.status == "superseded" and retired.superseded_by == new.id and retired.valid_to is not None
    hits = index.search(1, "favourite dish", limit=5, threshold=0.0)
    assert old.id not in {h.memory.id for h in hits}
    assert new.id in {h.memory.id for h in hits}


def test_memory_index_delete_removes_row_vector_fts(index: MemoryIndex, engine: Engine) -> None:
    row = index.list(1)[0]
    assert index.delete(1, row.id or 0)
    assert index.get(1, row.id or 0) is None
    assert _vectors(engine, row.id) == 0
    assert _lexical(engine, "risotto") == 0
    assert _vectors(engine) == len(FACTS) - 1


def test_memory_index_update_content_reembeds(index: MemoryIndex, engine: Engine) -> None:
    row = index.list(1, kinds=["fact"])[-1]
    index.update_content(1, row.id or 0, "I drive a red Volvo estate.")
    hits = index.search(1, "What car do I drive?", limit=1, threshold=0.5)
    assert hits and hits[0].memory.id == row.id
    assert _lexical(engine, "volvo") == 1


def test_memory_index_add_many_is_atomic(index: MemoryIndex, engine: Engine) -> None:
    before = _count(engine, "SELECT count(*) FROM memories"), _vectors(engine)
    batch = [NewMemory("fact", "fine one"), NewMemory("fact", "fine two", source_turn_id=999_999)]
    with pytest.raises(Exception, match=r"(?i)FOREIGN KEY"):  # the second row violates a foreign key
        index.add_many(1, batch)
    after = _count(engine, "SELECT count(*) FROM memories"), _vectors(engine)
    assert after == before
    assert _lexical(engine, "fine") == 0


def test_memory_index_rejects_bad_kind(index: MemoryIndex) -> None:
    with pytest.raises(ValueError, match="kind"):
        index.add_many(1, [NewMemory("fact", "ok"), NewMemory("opinion", "bad")])  # type: ignore[arg-type]


def test_memory_index_find_duplicate(index: MemoryIndex) -> None:
    exact = index.find_duplicate(1, "  my favourite dish is MUSHROOM risotto. ")
    assert exact is not None and exact.content == FACTS[3]
    near = index.find_duplicate(1, "My favourite dish is mushroom risotto!", min_similarity=0.9)
    assert near is not None and near.id == exact.id
    assert index.find_duplicate(1, "I play the cello on Sundays.") is None


def test_memory_index_filters_kinds_and_documents(index: MemoryIndex) -> None:
    index.add(1, "chunk", "Chapter one: the lighthouse keeper's dog.", document_id=7)
    only_chunks = index.search(1, "dog", limit=10, threshold=0.0, kinds=["chunk"])
    assert [h.memory.kind for h in only_chunks] == ["chunk"]
    assert index.search(1, "dog", limit=10, threshold=0.0, document_ids=[8]) == []
    assert len(index.search(1, "dog", limit=10, threshold=0.0, document_ids=[7])) == 1
