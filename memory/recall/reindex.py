"""Which embedder built a store's vectors: recorded at first start, checked at every start, rebuilt on demand.

`meta` holds the embedding model's name and dimension. A store opened with another embedder is
refused (`EmbeddingIndexMismatch`): vectors of two models are not comparable, and a silent mix
would make recall quietly wrong. `reverie reindex` (`rebuild_index`) re-embeds every memory
with the configured embedder; when the dimension changes (MiniLM's 384 to an Ollama model's
768, say), `memory_vec` is created anew at the new dimension first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, text

from memory.db.engine import StorageError, in_clause
from memory.recall.embedder import Embedder, EmbeddingIndexMismatch
from memory.recall.hybrid import blob
from memory.recall.sketches import sketch


def vector_table_sql(dim: int) -> str:
    """The `memory_vec` table for `dim`-dimensional cosine vectors, partitioned by user."""
    # kind/status/document_id are vec0 metadata columns so a KNN filters before taking k
    # (post-filtering could return fewer than `limit`); document_id 0 stands for "none".
    return f"""CREATE VIRTUAL TABLE memory_vec USING vec0(
        memory_id INTEGER PRIMARY KEY, user_id INTEGER PARTITION KEY,
        embedding float[{int(dim)}] distance_metric=cosine,
        kind TEXT, status TEXT, document_id INTEGER)"""


def vector_dim(conn: Connection) -> int:
    """The dimension `memory_vec` was created with (384 unless a reindex changed it)."""
    if conn.dialect.name == "postgresql":
        from memory.recall import pg_index  # (imports this module's neighbours: load it on use)

        return pg_index.vector_dim(conn)
    sql = conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'memory_vec'")).scalar_one()
    found = re.search(r"float\[(\d+)\]", str(sql))
    if found is None:
        raise ValueError(f"memory_vec has no float[] column: {sql}")
    return int(found.group(1))


def check_index_meta(engine: Engine, embedder: Embedder) -> None:
    """Record the embedding model in `meta` on first start; refuse a different one later.

    On first start the vector table takes the embedder's dimension (it is still empty then).

    Raises:
        EmbeddingIndexMismatch: the stored vectors were built with another model or dimension.
    """
    want = {"embedding_model": embedder.name, "embedding_dim": str(embedder.dim)}
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")).all()
        have = {str(k): str(v) for k, v in rows}
        if not have:
            if not _has_memories(conn):
                _ensure_dim(conn, embedder.dim)
            if vector_dim(conn) == embedder.dim:  # vectors stored before meta existed are taken as they are
                _record(conn, embedder)
                return
    if have != want:
        raise EmbeddingIndexMismatch(
            f"the memory index was built with {have.get('embedding_model', 'an unrecorded model')} "
            f"(dim {have.get('embedding_dim', '?')}) but this install embeds with {embedder.name} "
            f"(dim {embedder.dim}). Set the embedder back (REVERIE_EMBEDDING_BACKEND, REVERIE_OLLAMA_EMBEDDING_MODEL), "
            "or re-embed every memory with it: `reverie reindex` (the text is kept)."
        )


def rebuild_index(
    engine: Engine, embedder: Embedder, batch: int = 256, progress: Callable[[int, int], None] | None = None
) -> int:
    """Re-embed every memory with `embedder` and record it in `meta`; returns how many.

    The fix for `EmbeddingIndexMismatch`. A batch's vectors are rewritten in one transaction and
    `meta` changes only after the last batch, so an interrupted rebuild is still refused at the
    next start-up and can simply be run again. `progress(done, total)` is called after each batch.
    """
    if engine.dialect.name == "postgresql":
        raise StorageError("`reverie reindex` does not run on PostgreSQL yet (docs/postgres.md)")
    with engine.begin() as conn:
        ids = [int(r[0]) for r in conn.execute(text("SELECT id FROM memories ORDER BY id"))]
        _ensure_dim(conn, embedder.dim)
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        rows_of: dict[str, Any] = {}
        vectors_of: dict[str, Any] = {}
        with engine.begin() as conn:
            rows = conn.execute(
                text(
                    "SELECT id, user_id, kind, status, coalesce(document_id, 0), content FROM memories "
                    f"WHERE {in_clause('id', chunk, rows_of).removeprefix(' AND ')}"
                ),
                rows_of,
            ).all()
            vectors = embedder.embed([str(r[5]) for r in rows])
            in_chunk = in_clause("memory_id", chunk, vectors_of).removeprefix(" AND ")
            conn.execute(text(f"DELETE FROM memory_vec WHERE {in_chunk}"), vectors_of)
            for (mid, uid, kind, status, doc, _), vec, bits in zip(rows, vectors, sketch(vectors), strict=True):
                conn.execute(
                    text(
                        "INSERT INTO memory_vec (memory_id, user_id, embedding, kind, status, document_id) "
                        "VALUES (:id, :u, :e, :k, :s, :d)"
                    ),
                    {"id": mid, "u": uid, "e": blob(vec), "k": kind, "s": status, "d": doc},
                )
                conn.execute(text("UPDATE memories SET sketch = :s WHERE id = :id"), {"s": bits.tobytes(), "id": mid})
        if progress is not None:
            progress(min(start + batch, len(ids)), len(ids))
    with engine.begin() as conn:
        _record(conn, embedder)
    return len(ids)


def _has_memories(conn: Connection) -> bool:
    return conn.execute(text("SELECT 1 FROM memories LIMIT 1")).first() is not None


def _ensure_dim(conn: Connection, dim: int) -> None:
    """`memory_vec` at `dim` dimensions: created anew (empty) when it has another."""
    if conn.dialect.name == "postgresql" and vector_dim(conn) != dim:
        from memory.recall import pg_index

        pg_index.set_vector_dim(conn, dim)
    elif vector_dim(conn) != dim:
        conn.execute(text("DROP TABLE memory_vec"))
        conn.execute(text(vector_table_sql(dim)))


def _record(conn: Connection, embedder: Embedder) -> None:
    for key, value in (("embedding_model", embedder.name), ("embedding_dim", str(embedder.dim))):
        # (not INSERT OR REPLACE: this says the same on SQLite and on PostgreSQL)
        upsert = "INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        conn.execute(text(upsert), {"k": key, "v": value})
