"""Scale: one synthetic user with 1k/10k/100k memories, proportional turns, entities and edges.

    .venv/bin/python -m bench.scale [--tiers 1000,10000,100000] [--queries 40] [--plot docs/img/scale_latency.png]

Per tier: p50/p95 (wall and CPU) of `assembler.assemble` at the default and at the maximum
request, two baselines on the same queries in the same run (BM25-only retrieval; the default
request without the graph), ingestion rate, SQLite and Kuzu size on disk, `open_storage` start-up.
The real MiniLM embeds only ~20-45 texts/s on one core, so memories go through the real
`MemoryIndex.add_many` (rows, vec0, FTS5 triggers) with `PoolEmbedder` vectors (the real embedding
of the memory's topic sentence plus noise, cosine ≈ 0.85); queries are embedded for real, and the
real embedding rate is measured and reported beside the storage-only rate.
"""

from __future__ import annotations

import os

from memory.store import MemoryStore

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np
import psutil
from sqlalchemy import insert, text

from app.runtime import open_storage
from app.settings import Settings
from bench.machine import print_machine
from memory.assembly import ContextRequest
from memory.graph.names import name_key
from memory.models import EntityRow, RelationRow, TurnRow
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.hybrid import HybridSearch
from memory.recall.vectors import MemoryIndex, NewMemory

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


def queries(k: int, n: int, rng: random.Random) -> list[str]:
    """Questions naming a stored person, paraphrasing a stored topic."""
    picks = [(person(rng.randrange(max(100, n // 10))), rng.choice(ACTS).replace("is ", "are ", 1)) for _ in range(k)]
    return [f"What do you remember about {name}? I think they {act}." for name, act in picks]


def measure(store: MemoryStore, uid: int, qs: list[str]) -> dict[str, list[float]]:
    """Per-query wall and CPU ms (a shared box inflates wall time) of assembly, its parts and BM25."""
    bm25 = HybridSearch(store.engine, store.embedder)
    lat: dict[str, list[float]] = {}

    def timed(name: str, work: Callable[[], T]) -> T:
        w, c = time.perf_counter(), time.process_time()
        out = work()
        lat.setdefault(name, []).append((time.perf_counter() - w) * 1000)
        lat.setdefault(f"{name} cpu", []).append((time.process_time() - c) * 1000)
        return out

    for q in qs[:3]:  # warm caches (mmap pages, Kuzu buffer pool) so p50 is steady state
        store.assembler.assemble(uid, "t0", q, MAXIMUM)
    for i, q in enumerate(qs):
        # The chat embeds the message while the model plans the turn (app/chat.py): assembly finds it ready.
        timed("query embedding", partial(store.memories.prepare, q))
        for name, req in (("default", DEFAULT), ("maximum", MAXIMUM), ("no graph", NO_GRAPH)):
            ctx = timed(name, partial(store.assembler.assemble, uid, f"t{i}", q, req))
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


def run_tier(n: int, topics: np.ndarray, k: int, work: Path) -> Tier:
    """Build one tier from scratch in `work`, measure it, and delete it."""
    data = work / f"tier{n}"
    settings = Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    tier, rng = Tier(n), random.Random(n)
    store = open_storage(settings)
    uid = store.accounts.create("bench", "bench-password").id or 0
    tier.load_s, tier.graph_s = load(store, uid, n, topics, rng)
    store.close()
    start = time.perf_counter()
    store = open_storage(settings)
    tier.startup_ms = (time.perf_counter() - start) * 1000
    try:
        with store.engine.connect() as conn:
            for table in ("memories", "turns", "entities", "relations"):
                tier.counts[table] = conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
        tier.lat = measure(store, uid, queries(k, n, rng))
        tier.rss_mb = psutil.Process().memory_info().rss / 1024**2
    finally:
        store.close()
    tier.db_mb, tier.graph_mb = sum(_dir_mb(p) for p in data.glob("reverie.db*")), _dir_mb(settings.graph_dir)
    shutil.rmtree(data, ignore_errors=True)
    return tier


def real_embed_rate(sample: int) -> float:
    """Texts/s of the real MiniLM embedder on realistic memory texts (the end-to-end bottleneck)."""
    texts = [f"{topic_text(i, person(i))} (Porto, 2024-01-0{i % 9 + 1}, note {i})" for i in range(sample)]
    get_embedder().embed(texts[:8])
    start = time.perf_counter()
    get_embedder().embed(texts)
    return sample / (time.perf_counter() - start)


def report(tiers: list[Tier], embed_rate: float) -> None:
    """Print the results as markdown tables."""
    # fmt: off
    print("\n| memories | turns | entities | edges | load (add_many, pooled vectors) | graph COPY | SQLite | Kuzu "
          "| open_storage | bench RSS |\n|---|---|---|---|---|---|---|---|---|---|")
    for t in tiers:
        c = t.counts
        print(f"| {t.memories:,} | {c['turns']:,} | {c['entities']:,} | {c['relations']:,} | {t.load_s:.1f} s "
              f"({t.memories / t.load_s:,.0f}/s) | {t.graph_s:.2f} s | {t.db_mb:.1f} MB | {t.graph_mb:.1f} MB "
              f"| {t.startup_ms:.0f} ms | {t.rss_mb:.0f} MB |")
    print(f"\nReal MiniLM embedding on this core: {embed_rate:.0f} texts/s, so end-to-end ingestion with "
          f"embedding is ≈ {embed_rate:.0f} memories/s at every tier (embedding dominates).")
    for title, keys in (("wall ms, p50 / p95", MAIN), ("CPU ms, p50 / p95", [f"{k} cpu" for k in MAIN]),
                        ("default request, wall ms per stage, p50 / p95",
                         sorted(k for k in tiers[0].lat if k.startswith("stage"))),
                        ("parts on their own (query vector ready; expansion from the default's seeds), wall ms",
                         ["vector search", "graph depth 1", "graph depth 2", "graph depth 3"])):
        print(f"\n{title}\n\n| memories | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys))
        for t in tiers:
            print(f"| {t.memories:,} | " + " | ".join(f"{pct(t.lat[k], 50):.1f} / {pct(t.lat[k], 95):.1f}"
                                                     for k in keys) + " |")
    for key in ("default", "default cpu"):
        if len(tiers) >= 2:  # brute-force KNN and FTS grow linearly with the partition
            (n1, m1), (n2, m2) = [(t.memories, pct(t.lat[key], 50)) for t in tiers[-2:]]
            print(f"\nExtrapolated {key} p50 at 1,000,000 memories (linear from the last two tiers): "
                  f"{m2 + (m2 - m1) / (n2 - n1) * (1_000_000 - n2):.0f} ms")
    # fmt: on


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
    args = parser.parse_args()
    print_machine()
    embedder = get_embedder()
    topics = embedder.embed([topic_text(t, "someone") for t in range(len(ACTS) * len(FRAMES))])
    embed_rate = real_embed_rate(args.embed_sample)
    work = Path(tempfile.mkdtemp(prefix="reverie-scale-"))
    tiers = []
    for n in (int(x) for x in args.tiers.split(",")):
        t = time.perf_counter()
        tiers.append(run_tier(n, topics, args.queries, work))
        print(f"tier {n:,} done in {time.perf_counter() - t:.0f} s", flush=True)
    report(tiers, embed_rate)
    if args.plot:
        plot(tiers, args.plot)


if __name__ == "__main__":
    main()
