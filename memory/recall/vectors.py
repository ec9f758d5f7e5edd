"""Semantic memories: rows in `memories`, vectors in `memory_vec` (vec0), text in `memory_fts` (FTS5).

One id ties the three together. Triggers (from `m002_memories`) keep the FTS index and the vector
table's filter columns in step with the rows and delete a row's vector with it, so a cascade from
`accounts` or a plain DELETE never leaves an orphan. Every query is filtered by user; the KNN
uses the vec0 partition key (`user_id = ?`), so one user's search never scans another's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Literal, get_args

import numpy as np
from sqlalchemy import Connection, Engine, text
from sqlmodel import Session, col, select

from memory.db.engine import in_clause
from memory.models import MemoryRow, utcnow
from memory.recall import dates
from memory.recall import hybrid as recall
from memory.recall.embedder import Embedder
from memory.recall.reindex import vector_table_sql
from memory.recall.sketches import sketch
from memory.turns import storable_text

Kind = Literal["turn", "fact", "chunk", "summary"]
Status = Literal["active", "superseded", "archived"]
KINDS: tuple[str, ...] = get_args(Kind)
TITLE_CHARS = 120  # a document's first line longer than this is prose, not its title

_DDL = [
    """CREATE TABLE memories (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('turn', 'fact', 'chunk', 'summary')),
        content TEXT NOT NULL,
        created_at DATETIME NOT NULL,
        thread_id TEXT,
        source_turn_id INTEGER REFERENCES turns(id) ON DELETE SET NULL,
        document_id INTEGER,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
        superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
        valid_from DATETIME,
        valid_to DATETIME,
        content_hash TEXT NOT NULL,
        meta TEXT
    )""",
    "CREATE INDEX ix_memories_user_status_kind ON memories (user_id, status, kind)",
    "CREATE INDEX ix_memories_user_hash ON memories (user_id, content_hash)",
    "CREATE INDEX ix_memories_user_thread ON memories (user_id, thread_id, id)",
    "{vector_table}",  # placeholder: m002 creates memory_vec with vector_table_sql(384)
    """CREATE VIRTUAL TABLE memory_fts USING fts5(
        content, content='memories', content_rowid='id', tokenize='porter unicode61')""",
    """CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memory_fts (rowid, content) VALUES (new.id, new.content); END""",
    """CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.id, old.content);
        DELETE FROM memory_vec WHERE memory_id = old.id; END""",
    """CREATE TRIGGER memories_au_content AFTER UPDATE OF content ON memories BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO memory_fts (rowid, content) VALUES (new.id, new.content); END""",
    """CREATE TRIGGER memories_au_status AFTER UPDATE OF status ON memories BEGIN
        UPDATE memory_vec SET status = new.status WHERE memory_id = new.id; END""",
]


TABLE_DDL = _DDL[:4]  # the table and its indexes, which PostgreSQL's m002 shares (memory/recall/pg_index.py)


def m002_memories(conn: Connection) -> None:
    """Semantic memories, their 384-d cosine vectors (partitioned by user) and FTS5 index.
    (Another embedder's dimension is set at first start or by `reverie reindex`: memory/recall/reindex.py.)"""
    for statement in _DDL:
        conn.execute(text(vector_table_sql(384) if statement == "{vector_table}" else statement))


def m015_memories_by_date(conn: Connection) -> None:
    """An index on each user's memories by the time they were said: a dated question adds the
    memories of its days as candidates (`HybridSearch.dated`), which otherwise scanned every active
    memory of the user (36 ms at 50k)."""
    conn.execute(text("CREATE INDEX ix_memories_user_created ON memories (user_id, created_at)"))


def m019_lexeme_counts(conn: Connection) -> None:
    """Each word's number of memories, for BM25's IDF: FTS5's index already holds it on SQLite, so
    nothing to do here (PostgreSQL's variant makes a table of it: memory/recall/pg_index.py)."""


class MemoryNotFound(LookupError):
    """No memory with that id belongs to that user."""


@dataclass(frozen=True)
class NewMemory:
    """One memory to store with `MemoryIndex.add_many`."""

    kind: Kind
    content: str
    created_at: datetime | None = None
    thread_id: str | None = None
    source_turn_id: int | None = None
    document_id: int | None = None
    meta: dict[str, Any] | None = None


def _dated(item: NewMemory) -> NewMemory:
    """The memory with the days its relative words point at ("yesterday", "last week") resolved
    against the day it was said, in `meta["dates"]` (memory/recall/dates.py); recall lifts it for
    a question about those days. A memory without such words is unchanged."""
    said = (item.created_at or utcnow()).date()
    spans = dates.resolved_spans(item.content, said)
    if not spans:
        return item
    return replace(item, meta=(item.meta or {}) | {"dates": dates.encode(spans)})


def content_hash(content: str) -> str:
    """Hash of the text with case and whitespace normalised (exact-duplicate detection)."""
    return hashlib.sha256(" ".join(content.lower().split()).encode()).hexdigest()


class MemoryIndex:
    """Store, embed, find and retire one installation's semantic memories, always per user.

    On PostgreSQL the subclass `pg_index.PgMemoryIndex` changes the retrievers (`search_class`)
    and where vectors are written (`_write_vectors`, `_rewrite_vector`); nothing else.
    """

    search_class: type[recall.HybridSearch] = recall.HybridSearch

    def __init__(self, engine: Engine, embedder: Embedder) -> None:
        self._engine = engine
        self._embedder = embedder
        self._search = self.search_class(engine, embedder)

    def add(
        self,
        user_id: int,
        kind: Kind,
        content: str,
        *,
        created_at: datetime | None = None,
        thread_id: str | None = None,
        source_turn_id: int | None = None,
        document_id: int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> MemoryRow:
        """Store and embed one memory; `created_at` is when it happened (default: now)."""
        item = NewMemory(kind, content, created_at, thread_id, source_turn_id, document_id, meta)
        return self.add_many(user_id, [item])[0]

    def add_many(self, user_id: int, items: Sequence[NewMemory]) -> list[MemoryRow]:
        """Store and embed many memories in one transaction: all are stored, or none.

        Raises:
            ValueError: an unknown kind or empty content (nothing is stored).
        """
        items = [_dated(replace(item, content=storable_text(item.content))) for item in items]
        for item in items:
            if item.kind not in KINDS or not item.content.strip():
                raise ValueError(f"a memory needs a kind in {KINDS} and non-empty content: {item!r}")
        vectors = self._embedder.embed([i.content for i in items])
        rows = [self._row(user_id, item, bits.tobytes()) for item, bits in zip(items, sketch(vectors), strict=True)]
        with Session(self._engine) as session:
            session.add_all(rows)
            session.flush()
            self._write_vectors(session.connection(), user_id, rows, vectors)
            session.commit()
            for row in rows:
                session.refresh(row)
        return rows

    def _write_vectors(self, conn: Connection, user_id: int, rows: Sequence[MemoryRow], vectors: np.ndarray) -> None:
        conn.execute(
            text(
                "INSERT INTO memory_vec (memory_id, user_id, embedding, kind, status, document_id) "
                "VALUES (:id, :u, :e, :k, 'active', :d)"
            ),
            [
                {"id": r.id, "u": user_id, "e": recall.blob(v), "k": r.kind, "d": r.document_id or 0}
                for r, v in zip(rows, vectors, strict=True)
            ],
        )

    def _rewrite_vector(self, conn: Connection, memory_id: int, vector: np.ndarray) -> None:
        conn.execute(
            text("UPDATE memory_vec SET embedding = :e WHERE memory_id = :id"),
            {"e": recall.blob(vector), "id": memory_id},
        )

    @staticmethod
    def _row(user_id: int, item: NewMemory, bits: bytes) -> MemoryRow:
        fields = {k: getattr(item, k) for k in ("kind", "content", "thread_id", "source_turn_id", "document_id")}
        fields |= {"user_id": user_id, "created_at": item.created_at or utcnow(), "sketch": bits}
        fields["content_hash"] = content_hash(item.content)
        fields["meta"] = json.dumps(item.meta) if item.meta is not None else None
        return MemoryRow.model_validate(fields)

    def get(self, user_id: int, memory_id: int) -> MemoryRow | None:
        """One memory of this user's, or None."""
        with Session(self._engine) as session:
            row = session.get(MemoryRow, memory_id)
        return row if row is not None and row.user_id == user_id else None

    def list(
        self,
        user_id: int,
        kinds: Sequence[str] | None = None,
        status: Status | None = "active",
        limit: int = 100,
        offset: int = 0,
    ) -> list[MemoryRow]:
        """This user's memories, newest first; `status=None` lists every status."""
        query = select(MemoryRow).where(MemoryRow.user_id == user_id)
        if kinds is not None:
            query = query.where(col(MemoryRow.kind).in_(list(kinds)))
        if status is not None:
            query = query.where(MemoryRow.status == status)
        query = query.order_by(col(MemoryRow.id).desc()).offset(offset).limit(limit)
        with Session(self._engine) as session:
            return list(session.exec(query))

    def by_ids(self, user_id: int, ids: Sequence[int]) -> dict[int, MemoryRow]:
        """This user's memories among `ids`, keyed by id (others' ids are silently absent)."""
        if not ids:
            return {}
        # By primary key alone, user checked here: with `user_id = ?` in SQL, SQLite may walk the
        # user's whole index instead (7 ms against 0.1 ms for 50 ids at 100k memories).
        query = select(MemoryRow).where(col(MemoryRow.id).in_(list(ids)))
        with Session(self._engine) as session:
            return {r.id: r for r in session.exec(query) if r.id is not None and r.user_id == user_id}

    def next_chunks(self, user_id: int, ids: Sequence[int]) -> dict[int, MemoryRow]:
        """The active chunk of the same document stored just after each of these chunks (documents
        are stored in reading order), keyed by the chunk it follows; a document's last has none."""
        if not ids:
            return {}
        params: dict[str, Any] = {"u": user_id}
        sql = (
            "SELECT m.id, (SELECT MIN(n.id) FROM memories n WHERE n.user_id = m.user_id AND n.document_id = "
            "m.document_id AND n.kind = 'chunk' AND n.status = 'active' AND n.id > m.id) FROM memories m "
            f"WHERE m.user_id = :u AND m.kind = 'chunk'{in_clause('m.id', ids, params)}"
        )
        with self._engine.connect() as conn:
            after = {int(m): int(n) for m, n in conn.execute(text(sql), params).all() if n is not None}
        rows = self.by_ids(user_id, sorted(set(after.values())))
        return {m: rows[n] for m, n in after.items() if n in rows}

    def previous_turn(self, user_id: int, memory: MemoryRow) -> MemoryRow | None:
        """The active turn memory said just before this one in its thread ("Biscuit's our beagle"
        before "We got her from a rescue"), or None."""
        return self._neighbour_turn(user_id, memory, before=True)

    def next_turn(self, user_id: int, memory: MemoryRow) -> MemoryRow | None:
        """The active turn memory said just after this one in its thread, or None."""
        return self._neighbour_turn(user_id, memory, before=False)

    def turns_around(self, user_id: int, ids: Sequence[int]) -> dict[int, tuple[MemoryRow | None, MemoryRow | None]]:
        """The active turn said just before and just after each of these turn memories in its thread
        (None where there is none), in two queries whatever the number of ids."""
        near = self._search.conversation.neighbours(user_id, ids)
        rows = self.by_ids(user_id, sorted({n for ns in near.values() for n in ns}))
        return {
            m: (next((rows.get(n) for n in ns if n < m), None), next((rows.get(n) for n in ns if n > m), None))
            for m, ns in near.items()
        }

    def document_title(self, user_id: int, document_id: int) -> str:
        """A document's title: the first line of its first chunk when it is short ("# Live Performance
        Agreement — The Marigold Hotel"), else "". Every chunk is about it, though only the first says it."""
        query = (
            select(MemoryRow)
            .where(MemoryRow.user_id == user_id, MemoryRow.document_id == document_id, MemoryRow.kind == "chunk")
            .order_by(col(MemoryRow.id))
            .limit(1)
        )
        with Session(self._engine) as session:
            first = session.exec(query).first()
        line = next((ln.strip() for ln in first.content.splitlines() if ln.strip()), "") if first else ""
        return line.lstrip("#").strip(" *") if len(line) <= TITLE_CHARS else ""

    def _neighbour_turn(self, user_id: int, memory: MemoryRow, before: bool) -> MemoryRow | None:
        if memory.thread_id is None or memory.id is None:
            return None
        side = col(MemoryRow.id) < memory.id if before else col(MemoryRow.id) > memory.id
        query = (
            select(MemoryRow)
            .where(MemoryRow.user_id == user_id, MemoryRow.thread_id == memory.thread_id)
            .where(MemoryRow.kind == "turn", MemoryRow.status == "active", side)
            .order_by(col(MemoryRow.id).desc() if before else col(MemoryRow.id))
            .limit(1)
        )
        with Session(self._engine) as session:
            return session.exec(query).first()

    def update_content(self, user_id: int, memory_id: int, content: str) -> MemoryRow:
        """Replace a memory's text and re-embed it (FTS follows through a trigger).

        Raises:
            MemoryNotFound: the id is not one of this user's memories.
        """
        vector = self._embedder.embed_one(content)
        with Session(self._engine) as session:
            row = self._owned(session, user_id, memory_id)
            row.content, row.content_hash = content, content_hash(content)
            row.sketch = sketch(vector[None, :])[0].tobytes()
            session.add(row)
            session.flush()
            self._rewrite_vector(session.connection(), memory_id, vector)
            session.commit()
            session.refresh(row)
        return row

    def set_status(self, user_id: int, memory_id: int, status: Status) -> MemoryRow:
        """Mark a memory active, superseded or archived (only active ones are searched).

        Raises:
            MemoryNotFound: the id is not one of this user's memories.
        """
        with Session(self._engine) as session:
            row = self._owned(session, user_id, memory_id)
            row.status = status
            session.add(row)
            session.commit()
            session.refresh(row)
        return row

    def supersede(self, user_id: int, old_id: int, new_id: int) -> MemoryRow:
        """Retire `old_id` in favour of `new_id`: status superseded, valid_to now, superseded_by.

        Raises:
            MemoryNotFound: either id is not one of this user's memories.
        """
        with Session(self._engine) as session:
            self._owned(session, user_id, new_id)
            old = self._owned(session, user_id, old_id)
            old.status, old.valid_to, old.superseded_by = "superseded", utcnow(), new_id
            session.add(old)
            session.commit()
            session.refresh(old)
        return old

    def delete(self, user_id: int, memory_id: int) -> bool:
        """Delete a memory with its vector and FTS entry (triggers, same transaction)."""
        with self._engine.begin() as conn:
            gone = conn.execute(
                text("DELETE FROM memories WHERE id = :id AND user_id = :u"), {"id": memory_id, "u": user_id}
            )
        return gone.rowcount > 0

    @staticmethod
    def _owned(session: Session, user_id: int, memory_id: int) -> MemoryRow:
        row = session.get(MemoryRow, memory_id)
        if row is None or row.user_id != user_id:
            raise MemoryNotFound(f"memory {memory_id} not found for user {user_id}")
        return row

    def find_duplicate(self, user_id: int, content: str, min_similarity: float = 0.95) -> MemoryRow | None:
        """An active memory with the same text (hash), else the nearest one at cosine >= min_similarity."""
        digest = content_hash(content)
        query = select(MemoryRow).where(
            MemoryRow.user_id == user_id, MemoryRow.content_hash == digest, MemoryRow.status == "active"
        )
        with Session(self._engine) as session:
            exact = session.exec(query.limit(1)).first()
        if exact is not None:
            return exact
        nearest = self._search.dense(user_id, self._embedder.embed_one(content), 1)
        for mid, cos in nearest.items():
            if cos >= min_similarity:
                return self.get(user_id, mid)
        return None

    def _holds(self, user_id: int, kinds: Sequence[str]) -> bool:
        """Whether the user has an active memory of one of these kinds: context assembly looks for
        document chunks on every graph-mode turn, and a search finding none of a person who never
        uploaded a document cost a whole hybrid recall (~10-20 ms at 10,000 memories)."""
        params: dict[str, Any] = {"u": user_id}
        of_kinds = in_clause("kind", kinds, params)
        sql = f"SELECT 1 FROM memories WHERE user_id = :u AND status = 'active'{of_kinds} LIMIT 1"
        with self._engine.connect() as conn:
            return conn.execute(text(sql), params).first() is not None

    def prepare(self, query: str) -> None:
        """Embed `query` ahead of a `search` for it (the chat does this while the model plans the
        turn's context, so the ~10 ms embedding is off the assembly's path); thread-safe."""
        query = storable_text(query)
        if query.strip():
            self._search.query_vector(query)

    def query_vector(self, query: str) -> np.ndarray:
        """The vector `search` uses for `query` (kept from the last search or `prepare`: entity
        relevance in assembly reads the same one instead of embedding the message again)."""
        return self._search.query_vector(storable_text(query))

    def search(
        self,
        user_id: int,
        query: str,
        limit: int = recall.DEFAULT_VECTOR_LIMIT,
        threshold: float = recall.DEFAULT_SIMILARITY_THRESHOLD,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
        *,
        today: date | None = None,
    ) -> list[recall.MemoryHit]:
        """Active memories relevant to `query`, best first: the one ranking every caller uses (the
        chat's assembly, SEARCH_MEMORIES, the policy path's rounds, the LoCoMo server), hybrid
        recall re-ranked by dates and the conversation's structure (memory/recall/hybrid.py).

        Args:
            user_id: whose memories.
            query: the text to recall for.
            limit: at most this many hits; 0 returns [] without embedding anything.
            threshold: floor on calibrated relevance (0..1; the app clamps it to 0.5-0.9).
            kinds: only these kinds (e.g. ["fact"]); document_ids: only these documents' chunks.
            today: the day the query is asked, for "last year" or "yesterday" in it (default: today).
        """
        query = storable_text(query)
        if limit <= 0 or not query.strip() or (kinds is not None and not self._holds(user_id, kinds)):
            return []
        scored = self._search.ranked(user_id, query, kinds, document_ids, today)
        kept = [s for s in scored if s[1] >= threshold][:limit]
        rows = self.by_ids(user_id, [s[0] for s in kept])
        return [recall.MemoryHit(rows[m], rel, cos, lex) for m, rel, cos, lex in kept if m in rows]
