"""Copy an embedded installation (the SQLite file) into PostgreSQL: `reverie migrate-to URL`.

Every table the two backends share is copied row for row, ids kept, in an order where a row's
parents are always there first, so the foreign keys hold after every batch. A batch and the
note of how far its table got (`migrate_to_progress`, on the target) commit in one transaction:
a copy stopped anywhere (Ctrl-C, kill -9, a lost connection) resumes after the last batch that
committed, and no row is copied twice. Rows travel by `COPY … FROM STDIN`. Memories take their
vector from sqlite-vec's `memory_vec` into the pgvector column (its HNSW index is built once they
are all in); their lexemes are made by the target's trigger. A self-reference
(`memories.superseded_by`, `entities.merged_into`) may point at a later row, so it is set once its
table is complete. The identity sequences then start after the largest copied id.

SQLite's own machinery is not copied: the FTS5 and vec0 tables (the target keeps the same in its
columns), the sign-sketch counters (`memory_generations`), `_migrations` (the target has its own)
and `sqlite_sequence`. The Kuzu graph is not needed: on PostgreSQL the graph is asked of the
`entities` and `relations` tables themselves. `verify` then compares the two: every table's count,
and recall — each user's own sentences asked of both, the same hits in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psutil
from sqlalchemy import Connection, Engine, bindparam, text

from memory.db.engine import StorageError
from memory.db.postgres import copy_rows
from memory.recall.hybrid import MemoryHit
from memory.recall.pg_index import CREATE_HNSW, literal, set_vector_dim, vector_dim
from memory.recall.vectors import MemoryIndex

# Parents before children: each table's foreign keys point only at tables above it.
TABLES: tuple[str, ...] = (
    "accounts", "users", "threads", "steps", "elements", "feedbacks", "turns", "documents", "memories",
    "document_chunks", "entities", "entity_vectors", "entity_keys", "entity_sources", "entity_apart", "relations",
    "relation_sources", "usage_log", "queries", "formation_jobs", "dream_runs", "proposals",
    "proposal_decisions", "limit_overrides", "dream_changes", "dream_merges", "dream_seen", "reminders",
    "meta", "leases",
)  # fmt: skip
# Not copied (with the shadow tables of the last two): the target has its own or needs none.
SQLITE_ONLY = ("_migrations", "sqlite_sequence", "memory_generations", "memory_fts", "memory_vec")
LATER: dict[str, tuple[str, ...]] = {"memories": ("superseded_by",), "entities": ("merged_into",)}
BATCH = 2000
TIE = 0.01  # relevance apart by less than this is a near-tie: either memory answers as well
Progress = Callable[[str, int, int], None]  # table, rows copied so far, rows in the table


@dataclass
class Verification:
    """What `verify` found: rows per table on each side, and recall asked of both."""

    counts: dict[str, tuple[int, int]] = field(default_factory=dict[str, tuple[int, int]])
    questions: int = 0
    same_answers: int = 0  # the same memories in the same order
    tied_answers: int = 0  # others only where relevance ties (near-identical memories), every rank as relevant
    differing: list[str] = field(default_factory=list[str])

    @property
    def counts_match(self) -> bool:
        """Whether every table has as many rows on PostgreSQL as in the file."""
        return all(a == b for a, b in self.counts.values())


def _start(src: Engine, dst: Engine, source: str) -> dict[str, tuple[int, bool]]:
    """The progress so far (table -> last copied rowid, done); refuses a target with other data."""
    with dst.begin() as conn:
        conn.execute(
            text(
                "CREATE TABLE IF NOT EXISTS migrate_to_progress (name TEXT PRIMARY KEY, source TEXT NOT NULL, "
                "last_rowid BIGINT NOT NULL, done BOOLEAN NOT NULL DEFAULT FALSE)"
            )
        )
        rows = conn.execute(text("SELECT name, source, last_rowid, done FROM migrate_to_progress")).all()
        if any(r[1] != source for r in rows):
            raise StorageError(f"the target holds a copy of {rows[0][1]}, not of {source}: use an empty database")
        if not rows and any(conn.execute(text(f"SELECT 1 FROM {t} LIMIT 1")).first() for t in ("accounts", "memories")):
            raise StorageError("the target database already holds an installation: migrate-to copies into an empty one")
        if not rows:
            _match_dimension(src, conn)
    return {str(r[0]): (int(r[2]), bool(r[3])) for r in rows}


def _match_dimension(src: Engine, conn: Connection) -> None:
    with src.connect() as sconn:
        dim = sconn.execute(text("SELECT value FROM meta WHERE key = 'embedding_dim'")).scalar()
    if dim is not None and int(dim) != vector_dim(conn):
        set_vector_dim(conn, int(dim))  # (another embedder's vectors: the target is still empty)


def copy_installation(
    src: Engine, dst: Engine, source: str, progress: Progress | None = None, batch: int = BATCH
) -> dict[str, int]:
    """Copy every shared table from the SQLite engine `src` to the PostgreSQL engine `dst`, resuming a
    copy of the same `source` that stopped; `batch` rows commit together.

    Returns:
        Rows copied per table by this call (0 for a table an earlier run finished).

    Raises:
        StorageError: the target holds other data, or a copy of another source.
    """
    done_before = _start(src, dst, source)
    copied: dict[str, int] = {}
    for table in TABLES:
        last, done = done_before.get(table, (0, False))
        copied[table] = 0 if done else _copy_table(src, dst, table, (source, last, batch), progress)
    _restart_sequences(dst)
    return copied


def _columns(src: Engine, dst: Engine, table: str) -> tuple[list[str], set[str]]:
    """The columns both sides have, and which of them are booleans on PostgreSQL (SQLite says 0/1)."""
    with src.connect() as conn:
        mine = [str(r[1]) for r in conn.execute(text(f'PRAGMA table_info("{table}")'))]
    types = "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = :t"
    with dst.connect() as conn:
        theirs = {str(c): str(t) for c, t in conn.execute(text(types), {"t": table})}
    return [c for c in mine if c in theirs], {c for c in mine if theirs.get(c) == "boolean"}


def _copy_table(
    src: Engine, dst: Engine, table: str, where: tuple[str, int, int], progress: Progress | None
) -> int:
    source, last, batch = where
    cols, booleans = _columns(src, dst, table)
    later = LATER.get(table, ())
    if table == "memories" and last == 0:
        with dst.begin() as conn:  # built once at the end (_finish): faster than a row at a time
            conn.execute(text("DROP INDEX IF EXISTS ix_memories_embedding"))
    select = text(f'SELECT rowid, {_quoted(cols)} FROM "{table}" WHERE rowid > :r ORDER BY rowid LIMIT :n')
    with src.connect() as conn:
        total = int(conn.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one())
    copied = 0
    while True:
        with src.connect() as conn:
            rows = conn.execute(select, {"r": last, "n": batch}).all()
            values = [_row(cols, r[1:], booleans, later) for r in rows]
            if table == "memories":  # each with its vector, from sqlite-vec's table
                found = _vectors(conn, [int(r[cols.index("id") + 1]) for r in rows])
                values = [[*v, found.get(int(r[cols.index("id") + 1]))] for v, r in zip(values, rows, strict=True)]
        if not rows:
            break
        last = int(rows[-1][0])
        with dst.begin() as conn:
            if table == "meta":  # the target's own rows (the embedder it was opened with) give way
                drop = text("DELETE FROM meta WHERE key IN :keys").bindparams(bindparam("keys", expanding=True))
                conn.execute(drop, {"keys": [v[cols.index("key")] for v in values]})
            copy_rows(conn, table, [*cols, "embedding"] if table == "memories" else cols, values)
            _note(conn, table, source, last, done=False)
        copied += len(rows)
        if progress is not None:
            progress(table, copied, total)
    _finish(src, dst, table, source, last, later)
    return copied


def _quoted(cols: Sequence[str]) -> str:
    return ", ".join(f'"{c}"' for c in cols)  # Chainlit's camelCase columns, and "end", "start"


def _row(cols: Sequence[str], row: Sequence[Any], booleans: set[str], later: Sequence[str]) -> list[Any]:
    out: list[Any] = []
    for col, value in zip(cols, row, strict=True):
        if col in later:
            value = None  # set once the table is complete (it may point at a later row)
        elif col in booleans and value is not None:
            value = bool(value)
        out.append(value)
    return out


def _vectors(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    if not ids:
        return {}
    marks = ", ".join(str(int(i)) for i in ids)  # ints from the file's own ids: safe to write in
    found = conn.execute(text(f"SELECT memory_id, embedding FROM memory_vec WHERE memory_id IN ({marks})"))
    return {int(m): literal(np.frombuffer(bytes(e), dtype=np.float32)) for m, e in found}


def _finish(src: Engine, dst: Engine, table: str, source: str, last: int, later: Sequence[str]) -> None:
    """Set the table's self-references (idempotent) and mark it done, in one transaction."""
    with dst.begin() as conn:
        for col in later:
            with src.connect() as sconn:
                pairs = sconn.execute(text(f"SELECT id, {col} FROM {table} WHERE {col} IS NOT NULL")).all()
            if pairs:
                conn.execute(text(f"UPDATE {table} SET {col} = :v WHERE id = :i"), [{"v": v, "i": i} for i, v in pairs])
        if table == "memories":
            conn.execute(text(f"SET LOCAL maintenance_work_mem = '{hnsw_build_mb(last, vector_dim(conn))}MB'"))
            conn.execute(text(CREATE_HNSW))
        _note(conn, table, source, last, done=True)


def hnsw_build_mb(rows: int, dim: int, ram_mb: int | None = None) -> int:
    """Memory for building the HNSW index over `rows` vectors in one go: each node is its vector plus
    its neighbour lists (~1 KB at pgvector's m = 16), with room to spare. A build that outgrows
    maintenance_work_mem (default 64 MB, ~40k vectors) goes on on disk, far slower; the memory is held
    only while the index is built. `rows` may be an upper bound (the source's last rowid).

    At most a quarter of this machine's memory (`ram_mb`, read when not given): the server is on
    loopback, beside the app, and a 2 GB box building a 1M index is better slow on disk than killed
    for memory (1M MiniLM vectors want 3.6 GB)."""
    ram_mb = ram_mb if ram_mb is not None else psutil.virtual_memory().total // 1024**2
    return max(512, min(rows * (4 * dim + 1024) * 3 // 2 // 1024**2, ram_mb // 4))


def _note(conn: Connection, table: str, source: str, last: int, *, done: bool) -> None:
    conn.execute(
        text(
            "INSERT INTO migrate_to_progress (name, source, last_rowid, done) VALUES (:n, :s, :r, :d) "
            "ON CONFLICT (name) DO UPDATE SET last_rowid = EXCLUDED.last_rowid, done = EXCLUDED.done"
        ),
        {"n": table, "s": source, "r": last, "d": done},
    )


def _restart_sequences(dst: Engine) -> None:
    """Each identity column continues after the largest id copied (the next row must not collide)."""
    identities = "SELECT table_name FROM information_schema.columns WHERE column_name = 'id' AND is_identity = 'YES'"
    with dst.begin() as conn:
        for (table,) in conn.execute(text(identities)).all():
            if table in TABLES:
                conn.execute(
                    text(f"SELECT setval(pg_get_serial_sequence(:t, 'id'), "
                         f"(SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"),
                    {"t": table},
                )  # fmt: skip


def verify(src: Engine, dst: Engine, ask: tuple[MemoryIndex, MemoryIndex], per_user: int = 10) -> Verification:
    """Compare the copy with the file: every table's rows, and recall on both (`ask`: the file's index
    and the server's, on the same embedder). Each user is asked `per_user` of their own memories,
    spread over their history. An answer is the same when the same memories come back in the same
    order; tied when it differs only among near-ties, every rank as relevant on both (within `TIE`):
    HNSW is approximate and the last digits of BM25 differ (docs/postgres.md), so of near-identical
    memories either backend may return another. Anything else differs, and is listed.
    """
    found = Verification()
    for table in TABLES:
        with src.connect() as a, dst.connect() as b:
            count = f"SELECT count(*) FROM {table}"
            found.counts[table] = (int(a.execute(text(count)).scalar_one()), int(b.execute(text(count)).scalar_one()))
    with src.connect() as conn:
        users = [int(r[0]) for r in conn.execute(text("SELECT id FROM accounts ORDER BY id"))]
        for user in users:
            said = conn.execute(
                text("SELECT content FROM memories WHERE user_id = :u AND status = 'active' ORDER BY id"), {"u": user}
            ).all()
            step = max(1, len(said) // per_user)
            for (question,) in said[::step][:per_user]:
                here, there = (idx.search(user, str(question), limit=5, threshold=0.0) for idx in ask)
                found.questions += 1
                if [h.memory.id for h in here] == [h.memory.id for h in there]:
                    found.same_answers += 1
                elif _tied(here, there):
                    found.tied_answers += 1
                else:
                    found.differing.append(f"user {user}: {str(question)[:60]!r}")
    return found


def _tied(here: Sequence[MemoryHit], there: Sequence[MemoryHit]) -> bool:
    if len(here) != len(there):
        return False
    return all(abs(a.relevance - b.relevance) < TIE for a, b in zip(here, there, strict=True))
