"""Shared helpers for the formation tests: dated turns, a queue drain, a store snapshot, and counts of
the vector and full-text index entries on either backend."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session

from memory.formation.patterns import PatternExtractor
from memory.formation.plan import FormationResult, Stores
from memory.formation.queue import FormationQueue, run_pending
from memory.models import TurnRow
from memory.store import MemoryStore


def user(storage: MemoryStore, name: str) -> int:
    account = storage.accounts.create(name, "correct horse battery")
    assert account.id is not None
    return account.id


def say(storage: MemoryStore, user_id: int, thread: str, message: str, when: datetime) -> TurnRow:
    """Store a user turn as if said at `when`, and queue it for formation."""
    turn = storage.turns.add(user_id, thread, "user", message)
    with Session(storage.engine) as s:
        row = s.get(TurnRow, turn.id)
        assert row is not None
        row.created_at = when
        s.add(row)
        s.commit()
        s.refresh(row)
    assert row.id is not None
    FormationQueue(storage.engine).enqueue(user_id, row.id)
    return row


def form(stores: Stores) -> list[FormationResult]:
    """Drain the queue with the pattern extractor."""
    return run_pending(stores, PatternExtractor(), 100)


def snapshot(storage: MemoryStore, user_id: int) -> dict[str, Any]:
    """Everything formation writes for one user, without ids (to compare two runs)."""
    queries = {
        "memories": "SELECT kind, content, status, created_at, valid_from, valid_to, thread_id, "
        "(superseded_by IS NOT NULL) FROM memories WHERE user_id = :u ORDER BY content, kind",
        "entities": "SELECT name, type, aliases, mention_count, status FROM entities WHERE user_id = :u ORDER BY name",
        "relations": "SELECT s.name, r.predicate, o.name, r.weight, r.valid_from, r.valid_to FROM relations r "
        "JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id WHERE r.user_id = :u "
        "ORDER BY s.name, r.predicate, o.name",
        "entity_sources": "SELECT e.name, m.content, es.amount FROM entity_sources es JOIN entities e "
        "ON e.id = es.entity_id JOIN memories m ON m.id = es.memory_id WHERE e.user_id = :u ORDER BY 1, 2",
        "relation_sources": "SELECT r.predicate, m.content, rs.amount FROM relation_sources rs JOIN relations r "
        "ON r.id = rs.relation_id JOIN memories m ON m.id = rs.memory_id WHERE r.user_id = :u ORDER BY 1, 2",
    }
    with storage.engine.connect() as conn:
        found = {k: [tuple(r) for r in conn.execute(text(q), {"u": user_id})] for k, q in queries.items()}
    return {**found, "vectors": vectors(storage.engine, user_id=user_id)}


def vectors(engine: Engine, *, user_id: int | None = None, memory_id: int | None = None) -> int:
    """How many stored vectors (of one user, or one memory): vec0 rows on SQLite, filled columns on PostgreSQL."""
    pg = engine.dialect.name == "postgresql"
    sql = "SELECT count(*) FROM " + ("memories WHERE embedding IS NOT NULL" if pg else "memory_vec WHERE 1 = 1")
    sql += "" if user_id is None else " AND user_id = :u"
    sql += "" if memory_id is None else (" AND id = :m" if pg else " AND memory_id = :m")
    with engine.connect() as conn:
        return int(conn.execute(text(sql), {"u": user_id, "m": memory_id}).scalar_one())


def lexical(engine: Engine, memory_id: int, word: str) -> int:
    """Whether the full-text index finds one memory by one (plain) word: FTS5 on SQLite, a tsvector on PostgreSQL."""
    if engine.dialect.name == "postgresql":
        sql = "SELECT count(*) FROM memories WHERE lexemes @@ to_tsquery('reverie', :w) AND id = :m"
    else:
        sql = "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH :w AND rowid = :m"
    with engine.connect() as conn:
        return int(conn.execute(text(sql), {"w": word.lower(), "m": memory_id}).scalar_one())
