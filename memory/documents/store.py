"""Ingested documents: their rows, staged extraction results, the final graph write, and removal.

Each document is its own graph domain, `doc:<id>`. Ingestion stages what it extracts per chunk
in `document_chunks` (one transaction per batch, with the `chunks_done`/`relations_done`
watermarks), so a killed ingestion resumes where it stopped. Entities and relations are only
written at the end, all in one SQLite transaction together with the CROSS_DOMAIN fusion edges
and the 'done' status: a kill never leaves half a graph. The Kuzu projection follows (a rebuild
of the user's projection; the start-up sync repairs it if the process died in between).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, text
from sqlmodel import Session, col, select

from memory.documents.chunking import Chunk
from memory.graph import records as rec
from memory.graph.entities import EntityStore
from memory.models import DocumentChunkRow, DocumentRow, RelationRow, utcnow

CROSS_DOMAIN = "CROSS_DOMAIN"

_DDL = """
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size_bytes INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'ingesting' CHECK (status IN ('ingesting', 'done', 'failed')),
    extractor TEXT NOT NULL DEFAULT '',
    chunks_total INTEGER NOT NULL DEFAULT 0,
    chunks_done INTEGER NOT NULL DEFAULT 0,
    relations_done INTEGER NOT NULL DEFAULT 0,
    entities INTEGER NOT NULL DEFAULT 0,
    relations INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    UNIQUE (user_id, content_hash)
);
CREATE TABLE document_chunks (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    memory_id INTEGER NOT NULL,
    start INTEGER NOT NULL,
    fresh_from INTEGER NOT NULL DEFAULT 0,
    mentions TEXT NOT NULL DEFAULT '[]',
    triples TEXT,
    PRIMARY KEY (document_id, seq)
)
"""


def m008_documents(conn: Connection) -> None:
    """Documents and their chunks' staged extraction results (issue 7)."""
    for statement in _DDL.split(";"):
        if statement.strip():
            conn.execute(text(statement))


def domain_of(document_id: int) -> str:
    """The graph domain of a document's entities."""
    return f"doc:{document_id}"


@dataclass
class CoreEntity:
    """A selected entity of a document, ready to write; `by_seq` counts mentions per chunk."""

    name: str
    type: str
    summary: str
    mentions: int
    score: float
    aliases: list[str] = field(default_factory=list)
    by_seq: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CoreRelation:
    """A relation between two core entities (by name) with its weight per chunk."""

    subject: str
    predicate: str
    object: str
    by_seq: dict[int, float]

    @property
    def weight(self) -> float:
        """Total weight over the document."""
        return sum(self.by_seq.values())


class DocumentStore:
    """Documents per user: staging during ingestion, the final graph write, listing and removal."""

    def __init__(self, engine: Engine, entities: EntityStore) -> None:
        self._engine = engine
        self._entities = entities

    # -- rows ---------------------------------------------------------------------------------

    def create(self, user_id: int, name: str, content_hash: str, size: int, chunks: int, extractor: str) -> DocumentRow:
        """A new document row in status 'ingesting'."""
        row = DocumentRow.model_validate(
            {
                "user_id": user_id,
                "name": name,
                "content_hash": content_hash,
                "size_bytes": size,
                "chunks_total": chunks,
                "extractor": extractor,
                "created_at": utcnow(),
            }
        )
        with Session(self._engine) as s:
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def get(self, user_id: int, document_id: int) -> DocumentRow | None:
        """One of this user's documents, or None."""
        with Session(self._engine) as s:
            row = s.get(DocumentRow, document_id)
        return row if row is not None and row.user_id == user_id else None

    def by_hash(self, user_id: int, content_hash: str) -> DocumentRow | None:
        """This user's document with this content hash, if any."""
        query = select(DocumentRow).where(DocumentRow.user_id == user_id, DocumentRow.content_hash == content_hash)
        with Session(self._engine) as s:
            return s.exec(query).first()

    def list(self, user_id: int) -> list[DocumentRow]:
        """This user's documents, newest first."""
        query = select(DocumentRow).where(DocumentRow.user_id == user_id).order_by(col(DocumentRow.id).desc())
        with Session(self._engine) as s:
            return list(s.exec(query))

    def set_status(self, document_id: int, status: str, error: str | None = None) -> None:
        """Mark a document ingesting or failed (with the error)."""
        with self._engine.begin() as conn:
            conn.execute(
                text("UPDATE documents SET status = :s, error = :e WHERE id = :id"),
                {"s": status, "e": error, "id": document_id},
            )

    # -- staging ------------------------------------------------------------------------------

    def purge_unstaged(self, user_id: int, document_id: int) -> int:
        """Delete chunk memories a killed run stored but never staged (they are re-made on resume)."""
        with self._engine.begin() as conn:
            gone = conn.execute(
                text(
                    "DELETE FROM memories WHERE user_id = :u AND document_id = :d AND id NOT IN "
                    "(SELECT memory_id FROM document_chunks WHERE document_id = :d)"
                ),
                {"u": user_id, "d": document_id},
            )
        return gone.rowcount

    def stage_chunks(self, document_id: int, rows: Sequence[DocumentChunkRow], chunks_done: int) -> None:
        """Record a batch of stored chunks and their mentions, and advance the watermark, atomically."""
        with Session(self._engine) as s:
            s.add_all(rows)
            s.get_one(DocumentRow, document_id).chunks_done = chunks_done
            s.commit()

    def stage_triples(self, document_id: int, triples: dict[int, str], relations_done: int) -> None:
        """Record a batch's relations (JSON per chunk seq) and advance the watermark, atomically."""
        with self._engine.begin() as conn:
            for seq, payload in triples.items():
                conn.execute(
                    text("UPDATE document_chunks SET triples = :t WHERE document_id = :d AND seq = :s"),
                    {"t": payload, "d": document_id, "s": seq},
                )
            conn.execute(
                text("UPDATE documents SET relations_done = :n WHERE id = :d"), {"n": relations_done, "d": document_id}
            )

    def staged(self, document_id: int, column: str) -> Iterator[tuple[int, str | None]]:
        """(seq, JSON) of `mentions` or `triples` for every staged chunk, in order."""
        sql = {"mentions": "mentions", "triples": "triples"}[column]
        with self._engine.connect() as conn:
            rows = conn.execute(
                text(f"SELECT seq, {sql} FROM document_chunks WHERE document_id = :d ORDER BY seq"),
                {"d": document_id},
            )
            yield from ((r[0], r[1]) for r in rows)

    def chunks(self, document_id: int, from_seq: int, limit: int) -> list[Chunk]:
        """Stored chunks `from_seq` onwards (at most `limit`), text read back from their memories."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT c.seq, c.start, m.content, c.fresh_from FROM document_chunks c "
                    "JOIN memories m ON m.id = c.memory_id WHERE c.document_id = :d AND c.seq >= :s "
                    "ORDER BY c.seq LIMIT :n"
                ),
                {"d": document_id, "s": from_seq, "n": limit},
            )
            return [Chunk(r[0], r[1], r[2], r[3]) for r in rows]

    # -- the final write ----------------------------------------------------------------------

    def commit_graph(
        self, user_id: int, document_id: int, entities: Sequence[CoreEntity], relations: Sequence[CoreRelation]
    ) -> tuple[int, int]:
        """Write the document's entities, relations and fusion edges and mark it done, atomically.

        Returns:
            (entities, relations) written, fusion edges included in relations.
        """
        domain = domain_of(document_id)
        with Session(self._engine) as s:
            conn = s.connection()
            memory_of = dict(
                conn.execute(
                    text("SELECT seq, memory_id FROM document_chunks WHERE document_id = :d"), {"d": document_id}
                ).all()
            )
            conn.execute(text("DELETE FROM entities WHERE user_id = :u AND domain = :d"), {"u": user_id, "d": domain})
            ids = {e.name: self._write_entity(s, user_id, domain, e, memory_of) for e in entities}
            for r in relations:
                _write_relation(
                    s, user_id, document_id, ids[r.subject], r.predicate, ids[r.object], r.by_seq, memory_of
                )
            fused = _fuse(s, user_id, domain, document_id)
            doc = s.get_one(DocumentRow, document_id)
            doc.status, doc.finished_at, doc.error = "done", utcnow(), None
            doc.entities, doc.relations = len(ids), len(relations) + fused
            s.commit()
        self._entities.rebuild(user_id)
        return len(ids), len(relations) + fused

    @staticmethod
    def _write_entity(s: Session, user_id: int, domain: str, e: CoreEntity, memory_of: dict[int, int]) -> int:
        row = rec.new_entity(user_id, e.name, e.type, domain)
        rec.absorb(row, [e.name, *e.aliases], e.summary, e.type, e.mentions)
        s.add(row)
        s.flush()
        assert row.id is not None
        rec.add_keys(s.connection(), user_id, row.id, [e.name, *e.aliases])
        for seq, n in e.by_seq.items():
            rec.credit(s.connection(), "entity_sources", row.id, memory_of.get(seq), n)
        return row.id

    def fuse(self, user_id: int) -> int:
        """Link every document entity to same-named entities in other domains (idempotent).

        Call after new personal entities appear (memory formation, a nightly job): ingestion
        only links to what existed when it ran. Returns how many new CROSS_DOMAIN edges.
        """
        with Session(self._engine) as s:
            docs = s.exec(select(DocumentRow.id).where(DocumentRow.user_id == user_id, DocumentRow.status == "done"))
            added = sum(_fuse(s, user_id, domain_of(d), d) for d in list(docs) if d is not None)
            s.commit()
        if added:
            self._entities.rebuild(user_id)
        return added

    def remove(self, user_id: int, document_id: int) -> bool:
        """Delete a document with its chunk memories, entities, relations and fusion edges.

        One SQLite transaction (relations and fusion edges go by cascade with their entities,
        vectors and FTS rows by trigger with their memories), then the graph projection.
        """
        with self._engine.begin() as conn:
            params = {"u": user_id, "d": document_id}
            found = conn.execute(text("SELECT 1 FROM documents WHERE id = :d AND user_id = :u"), params).first()
            if found is None:
                return False
            conn.execute(text("DELETE FROM relations WHERE user_id = :u AND document_id = :d"), params)
            conn.execute(
                text("DELETE FROM entities WHERE user_id = :u AND domain = :dom"),
                {"u": user_id, "dom": domain_of(document_id)},
            )
            conn.execute(text("DELETE FROM memories WHERE user_id = :u AND document_id = :d"), params)
            conn.execute(text("DELETE FROM document_chunks WHERE document_id = :d"), params)
            conn.execute(text("DELETE FROM documents WHERE id = :d"), params)
        self._entities.rebuild(user_id)
        return True


def _write_relation(
    s: Session,
    user_id: int,
    document_id: int,
    subject_id: int,
    predicate: str,
    object_id: int,
    by_seq: dict[int, float],
    memory_of: dict[int, int],
) -> None:
    # The chunk that supports it most is its source memory: the assembler seeds the graph
    # from the entities of relations whose source memory a vector search recalled.
    best = max(by_seq, key=lambda q: by_seq[q]) if by_seq else None
    row = RelationRow.model_validate(
        {
            "user_id": user_id,
            "subject_id": subject_id,
            "predicate": predicate,
            "object_id": object_id,
            "weight": sum(by_seq.values()) or 1.0,
            "document_id": document_id,
            "valid_from": utcnow(),
            "source_memory_id": memory_of.get(best) if best is not None else None,
            "created_at": utcnow(),
        }
    )
    s.add(row)
    s.flush()
    assert row.id is not None
    for seq, w in by_seq.items():
        rec.credit(s.connection(), "relation_sources", row.id, memory_of.get(seq), w)


def _fuse(s: Session, user_id: int, domain: str, document_id: int) -> int:
    """CROSS_DOMAIN edges from this domain's entities to same-key entities elsewhere (not merged)."""
    conn = s.connection()
    pairs = conn.execute(
        text(
            "SELECT DISTINCT a.entity_id, b.entity_id FROM entity_keys a "
            "JOIN entities ea ON ea.id = a.entity_id AND ea.domain = :dom AND ea.status = 'active' "
            "JOIN entity_keys b ON b.user_id = :u AND b.key = a.key "
            "JOIN entities eb ON eb.id = b.entity_id AND eb.domain != :dom AND eb.status = 'active' "
            "WHERE a.user_id = :u AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.user_id = :u "
            "AND r.predicate = :p AND r.valid_to IS NULL AND ((r.subject_id = a.entity_id AND "
            "r.object_id = b.entity_id) OR (r.subject_id = b.entity_id AND r.object_id = a.entity_id)))"
        ),
        {"u": user_id, "dom": domain, "p": CROSS_DOMAIN},
    ).all()
    for a, b in pairs:
        _write_relation(s, user_id, document_id, a, CROSS_DOMAIN, b, {}, {})
    return len(pairs)
