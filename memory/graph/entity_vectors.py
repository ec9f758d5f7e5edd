"""Entity embeddings: the name and summary of each entity as a vector, for relevance to a question.

Context assembly scores graph nodes by how close their name + summary are to the question
(memory/attention.py), and SEARCH_ENTITIES ranks a user's entities the same way. Both use the
embedder that embeds memories, so "close" means the same thing for a note and an entity.

Vectors are kept in memory (least recently used dropped first) and in `entity_vectors`, keyed by
entity id and a hash of the embedder's name and the text embedded: an entity whose name or summary
changes, or a store re-indexed with another model, is embedded again; a renamed one never answers
with its old meaning. A row is written the first time its vector is made, so each entity is embedded
once, not once per process and again whenever the memory cache lost it: a depth-3 context reaches
~800 entities of a 1,000-entity graph (~2 s to embed on one core), and a process serving many people
cycles through more than the cache holds (docs/benchmarks.md, "Seventeenth session").
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from memory.db.engine import ids_clause
from memory.graph.names import normalize_type
from memory.models import EntityRow
from memory.recall.embedder import Embedder

log = logging.getLogger(__name__)

CAPACITY = 8192
"""Vectors kept (least recently used dropped first): 8,192 × 384 float32 ≈ 12.6 MB."""
SEARCH_POOL = 2000
"""SEARCH_ENTITIES ranks at most this many of the user's entities, the most mentioned first."""
EMBED_PER_SEARCH = 256
"""At most this many not-yet-embedded entities are embedded by one search (~1 s on one core):
a 10k-entity graph is covered over a few searches instead of stalling one turn for a minute."""


def m020_entity_vectors(conn: Connection) -> None:
    """Each entity's vector as last embedded, with the hash of the model and text it was made from."""
    conn.execute(
        text(
            "CREATE TABLE entity_vectors (entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE, "
            "digest TEXT NOT NULL, vector BLOB NOT NULL)"
        )
    )


def entity_text(row: EntityRow) -> str:
    """What an entity means, as embedded: its name, then its summary."""
    summary = (row.summary or "").strip()
    return f"{row.name}: {summary}" if summary else row.name


@dataclass(frozen=True)
class EntityMatch:
    """An entity and the cosine of its name + summary to a query."""

    entity: EntityRow
    relevance: float


class EntityVectors:
    """Per-process cache of entity vectors, and semantic search over a user's entities."""

    def __init__(self, engine: Engine, embedder: Embedder, capacity: int = CAPACITY) -> None:
        self._engine = engine
        self._embedder = embedder
        self._capacity = capacity
        self._cache: OrderedDict[int, tuple[str, np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def embed_query(self, text: str) -> np.ndarray:
        """A question's vector (unit length)."""
        return self._embedder.embed_one(text)

    def vectors(self, rows: Sequence[EntityRow], embed_at_most: int | None = None) -> dict[int, np.ndarray]:
        """Each entity's vector, embedding the missing ones in one batch (at most `embed_at_most`,
        in the order given; the rest are left out of the result)."""
        found: dict[int, np.ndarray] = {}
        missing: list[tuple[int, str, str]] = []
        with self._lock:
            for row in rows:
                if row.id is None:
                    continue
                text_ = entity_text(row)
                digest = hashlib.blake2b(f"{self._embedder.name}\n{text_}".encode(), digest_size=8).hexdigest()
                cached = self._cache.get(row.id)
                if cached is not None and cached[0] == digest:
                    self._cache.move_to_end(row.id)
                    found[row.id] = cached[1]
                else:
                    missing.append((row.id, digest, text_))
        stored = self._stored(missing)
        missing = [m for m in missing if m[0] not in stored]
        missing = missing if embed_at_most is None else missing[:embed_at_most]
        made = dict(zip([m[0] for m in missing], self._embedder.embed([t for _, _, t in missing]), strict=True))
        if made:
            self._store([(eid, digest, made[eid]) for eid, digest, _ in missing])
        with self._lock:
            for eid, digest, _ in missing:
                self._cache[eid] = (digest, made[eid])
            for eid, (digest, vec) in stored.items():
                self._cache[eid] = (digest, vec)
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        return found | {eid: v for eid, (_, v) in stored.items()} | made

    def _stored(self, wanted: Sequence[tuple[int, str, str]]) -> dict[int, tuple[str, np.ndarray]]:
        """The stored vectors of these (entity id, digest, text) still made from the same model and text."""
        if not wanted:
            return {}
        digests = {eid: digest for eid, digest, _ in wanted}
        params: dict[str, Any] = {}
        where = ids_clause(self._engine, "entity_id", list(digests), params).removeprefix(" AND ")
        sql = f"SELECT entity_id, digest, vector FROM entity_vectors WHERE {where}"
        with self._engine.connect() as conn:
            rows = conn.execute(text(sql), params).all()
        return {
            int(eid): (digest, np.frombuffer(bytes(blob), dtype=np.float32))
            for eid, digest, blob in rows
            if digests.get(int(eid)) == digest
        }

    def _store(self, made: Sequence[tuple[int, str, np.ndarray]]) -> None:
        """Keep these vectors for the next process or the next time the memory cache lost them. A
        cache: one that cannot be written now (an entity deleted meanwhile, the file busy past its
        wait) is made again next time."""
        sql = (
            "INSERT INTO entity_vectors (entity_id, digest, vector) VALUES (:e, :d, :v) "
            "ON CONFLICT (entity_id) DO UPDATE SET digest = excluded.digest, vector = excluded.vector"
        )
        rows = [{"e": eid, "d": digest, "v": np.asarray(vec, dtype=np.float32).tobytes()} for eid, digest, vec in made]
        try:
            with self._engine.begin() as conn:
                conn.execute(text(sql), rows)
        except (IntegrityError, OperationalError) as exc:
            log.info("entity vectors not stored this time: %s", exc)

    def relevance(self, rows: Sequence[EntityRow], query: np.ndarray) -> dict[int, float]:
        """Cosine of each entity's name + summary to the query vector, floored at 0."""
        vecs = self.vectors(rows)
        if not vecs:
            return {}
        ids = list(vecs)
        cos = np.stack([vecs[i] for i in ids]) @ query
        return {i: max(0.0, float(c)) for i, c in zip(ids, cos, strict=True)}

    def search(
        self, user_id: int, query: str, limit: int = 5, type: str | None = None, min_relevance: float = 0.0
    ) -> list[EntityMatch]:
        """The user's active entities closest in meaning to `query`, best first.

        Args:
            user_id: whose entities.
            query: a phrase or question ("the Dutch professor").
            limit: at most this many.
            type: only entities of this type ("Person").
            min_relevance: leave out those whose cosine is below this.
        """
        stmt = select(EntityRow).where(EntityRow.user_id == user_id, EntityRow.status == "active")
        if type is not None:
            stmt = stmt.where(EntityRow.type == normalize_type(type))
        stmt = stmt.order_by(col(EntityRow.mention_count).desc(), col(EntityRow.id)).limit(SEARCH_POOL)
        with Session(self._engine) as s:
            rows = list(s.exec(stmt))
        if not rows or not query.strip():
            return []
        vecs = self.vectors(rows, embed_at_most=EMBED_PER_SEARCH)
        qvec = self.embed_query(query)
        scored = [EntityMatch(r, float(vecs[r.id] @ qvec)) for r in rows if r.id is not None and r.id in vecs]
        scored = [m for m in scored if m.relevance >= min_relevance]
        return sorted(scored, key=lambda m: (-m.relevance, m.entity.id or 0))[:limit]
