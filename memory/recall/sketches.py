"""Sign sketches: a coarse, in-process prefilter for dense recall.

Why: brute-force KNN in sqlite-vec cost 37 ms at 100k memories of one user (float, k = 100),
and its cost grows with k (its bit KNN: 2 ms at k = 10, 9 ms at k = 100). A sketch keeps one
bit per dimension (the sign; 48 bytes), and the Hamming distance of a query's sketch to every
memory's is ~2 ms at 100k in numpy, whatever the pool size. Recall then takes the exact cosine of
the pool's few hundred survivors from `memory_vec` by primary key (a few µs each), so ranking
and `SIMILARITY_THRESHOLD` still see exact cosines. The pool size is measured in
docs/benchmarks.md ("Sign-sketch prefilter").

Consistency: the sketch is a column of `memories`, written in the same transaction as the row
and its vector, so SQLite stays the system of record and this class only caches one user's
active sketches. Triggers count, per user, inserted rows and any other change in
`memory_generations`; every lookup reads that row first. Only inserts since the cache was
filled: the new rows (higher ids) are appended. Anything else (a delete, an edit, a status
change): the user's sketches are reloaded. A row changed between the two reads is at worst
loaded early, and the exact rescoring reads `memories` again, so a stale id is dropped there.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy import Connection, Engine, text

SKETCH_BYTES = 48  # MiniLM's 384 dimensions, one bit each (another embedder: dim/8, padded to 8-byte words)
_KINDS = ("turn", "fact", "chunk", "summary")  # memories.kind's CHECK; a code per kind

_DDL = [
    "ALTER TABLE memories ADD COLUMN sketch BLOB",
    # No foreign key: deleting an account cascades to its memories, whose delete trigger
    # must still be able to count the change.
    """CREATE TABLE memory_generations (
        user_id INTEGER PRIMARY KEY,
        inserts INTEGER NOT NULL DEFAULT 0,
        changes INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TRIGGER memories_gen_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memory_generations (user_id, inserts) VALUES (new.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET inserts = inserts + 1; END""",
    """CREATE TRIGGER memories_gen_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memory_generations (user_id, changes) VALUES (old.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET changes = changes + 1; END""",
    """CREATE TRIGGER memories_gen_au AFTER UPDATE OF user_id, kind, status, document_id, sketch ON memories BEGIN
        INSERT INTO memory_generations (user_id, changes) VALUES (new.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET changes = changes + 1; END""",
]


def sketch(vectors: np.ndarray) -> np.ndarray:
    """The sign sketches of unit vectors: `(n, d)` floats -> `(n, ceil(d / 64) * 8)` uint8 bits
    (`(n, 48)` for MiniLM), zero-padded to whole 64-bit words for the Hamming distance."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=-1, bitorder="little")
    pad = -bits.shape[-1] % 8
    return np.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)]) if pad else bits


def m009_sketches(conn: Connection) -> None:
    """A sign sketch per memory (backfilled from its vector) and the per-user change counters."""
    conn.execute(text(_DDL[0]))
    rows = conn.execute(text("SELECT m.id, v.embedding FROM memories m JOIN memory_vec v ON v.memory_id = m.id"))
    batch: list[tuple[int, bytes]] = []
    for row in rows:
        batch.append((int(row[0]), bytes(row[1])))
        if len(batch) == 2000:
            _store(conn, batch)
            batch = []
    _store(conn, batch)
    for statement in _DDL[1:]:
        conn.execute(text(statement))


def _store(conn: Connection, batch: list[tuple[int, bytes]]) -> None:
    if not batch:
        return
    vectors = np.frombuffer(b"".join(e for _, e in batch), dtype=np.float32).reshape(len(batch), -1)
    bits = sketch(vectors)
    conn.execute(
        text("UPDATE memories SET sketch = :s WHERE id = :id"),
        [{"s": bits[i].tobytes(), "id": mid} for i, (mid, _) in enumerate(batch)],
    )


@dataclass(frozen=True)
class _Cached:
    """One user's active sketches as of `generation` (inserts, changes)."""

    generation: tuple[int, int]
    ids: np.ndarray  # int64, ascending
    bits: np.ndarray  # (n, 6) uint64
    kinds: np.ndarray  # uint8 codes into _KINDS
    documents: np.ndarray  # int64, 0 for none

    def extended(self, generation: tuple[int, int], more: _Cached) -> _Cached:
        if not len(self.ids) or not len(more.ids):  # an empty side may not know the sketch width
            return replace(more if len(more.ids) else self, generation=generation)
        return _Cached(
            generation,
            np.concatenate([self.ids, more.ids]),
            np.concatenate([self.bits, more.bits]),
            np.concatenate([self.kinds, more.kinds]),
            np.concatenate([self.documents, more.documents]),
        )


class SketchIndex:
    """The sign sketches of each user's active memories, kept in step with SQLite."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._users: dict[int, _Cached] = {}

    def nearest(
        self,
        user_id: int,
        qvec: np.ndarray,
        n: int,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
    ) -> list[int]:
        """Ids of the `n` active memories whose sketches are nearest the query's, nearest first."""
        cached = self._current(user_id)
        keep = np.ones(len(cached.ids), dtype=bool)
        if kinds is not None:
            keep &= np.isin(cached.kinds, [_KINDS.index(k) for k in kinds if k in _KINDS])
        if document_ids is not None:
            keep &= np.isin(cached.documents, [d for d in document_ids if d])
        rows = np.flatnonzero(keep) if kinds is not None or document_ids is not None else None
        bits = cached.bits if rows is None else cached.bits[rows]
        if n <= 0 or not len(bits):
            return []
        q = sketch(qvec[None, :]).view(np.uint64)
        distance = np.bitwise_count(bits ^ q).sum(axis=1, dtype=np.int32)
        if n < len(distance):
            top = np.argpartition(distance, n)[:n]
            top = top[np.argsort(distance[top], kind="stable")]
        else:
            top = np.argsort(distance, kind="stable")
        picked = top if rows is None else rows[top]
        return [int(i) for i in cached.ids[picked]]

    def _current(self, user_id: int) -> _Cached:
        with self._lock, self._engine.connect() as conn:
            row = conn.execute(
                text("SELECT inserts, changes FROM memory_generations WHERE user_id = :u"), {"u": user_id}
            ).first()
            generation = (int(row[0]), int(row[1])) if row else (0, 0)
            cached = self._users.get(user_id)
            if cached is not None and cached.generation == generation:
                return cached
            if cached is not None and cached.generation[1] == generation[1]:
                after = int(cached.ids[-1]) if len(cached.ids) else 0
                cached = cached.extended(generation, _load(conn, user_id, generation, after))
            else:
                cached = _load(conn, user_id, generation, 0)
            self._users[user_id] = cached
            return cached


def _load(conn: Connection, user_id: int, generation: tuple[int, int], after_id: int) -> _Cached:
    """This user's active sketches with id > after_id, by id."""
    # A delta walks the rowid range: the unary `+` keeps SQLite from scanning the user's whole
    # (user_id, status, kind) index for a handful of new rows.
    where = "id > :after AND +user_id = :u AND +status = 'active'" if after_id else "user_id = :u AND status = 'active'"
    where += " AND sketch IS NOT NULL"  # only a memory with no vector at all (never written so) lacks one
    rows = conn.execute(
        text(f"SELECT id, kind, coalesce(document_id, 0), sketch FROM memories WHERE {where} ORDER BY id"),
        {"u": user_id, "after": after_id},
    ).all()
    width = len(rows[0][3]) // 8 if rows else SKETCH_BYTES // 8  # one embedder per store (checked at start-up)
    bits = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.uint64).reshape(len(rows), width)
    return _Cached(
        generation,
        np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        bits,
        np.fromiter((_KINDS.index(r[1]) for r in rows), dtype=np.uint8, count=len(rows)),
        np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows)),
    )
