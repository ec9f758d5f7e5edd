"""The graph: traversal answers on both engines (the Kuzu projection beside SQLite, recursive SQL on
PostgreSQL), and the projection's own rules: rebuild from SQLite, locking, the one-Database rule."""

from __future__ import annotations

import itertools
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from memory.graph.backend import GraphBackend
from memory.graph.cypher import Direction, Subgraph
from memory.graph.entities import EntityStore
from memory.graph.kuzu_graph import Graph, GraphCorruptError, GraphNode
from memory.graph.sql_graph import SqlGraph
from memory.models import EntityRow
from tests.integration.conftest import make_pg_engine

REPO = Path(__file__).resolve().parents[2]
WAYS: tuple[Direction, ...] = ("outgoing", "incoming", "both")


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[Graph]:
    graph = Graph.open(tmp_path / "graph")
    yield graph
    graph.close()


def add(store: EntityStore, name: str, type_: str = "person", user_id: int = 1) -> int:
    row: EntityRow = store.upsert_entity(user_id, name, type_)
    assert row.id is not None
    return row.id


@pytest.fixture
def store(both_graphs: EntityStore) -> EntityStore:
    return both_graphs


def _chain(store: EntityStore) -> tuple[EntityStore, dict[str, int]]:
    """S -> A -> B -> C -> D, plus A -> S (a cycle back to the seed) and X -> A (incoming to A)."""
    ids = {n: add(store, n) for n in "SABCDX"}
    for subj, obj in ("SA", "AB", "BC", "CD", "AS", "XA"):
        store.add_relation(1, ids[subj], "knows", ids[obj])
    return store, ids


@pytest.fixture
def chain(store: EntityStore) -> tuple[EntityStore, dict[str, int]]:
    """`_chain` on each engine in turn."""
    return _chain(store)


@pytest.fixture
def kuzu_chain(engine: Engine, graph: Graph) -> tuple[EntityStore, dict[str, int]]:
    """`_chain` on the Kuzu projection only (for the projection's own rules)."""
    return _chain(EntityStore(engine, graph))


def names(ids: dict[str, int], found: set[int]) -> str:
    return "".join(sorted(n for n, i in ids.items() if i in found))


def test_expand_returns_exact_nodes_per_depth(chain: tuple[EntityStore, dict[str, int]]) -> None:
    store, ids = chain
    expected = {0: "S", 1: "AS", 2: "ABSX", 3: "ABCSX"}
    for depth, want in expected.items():
        sub = store.expand(1, [ids["S"]], depth)
        assert names(ids, sub.node_ids) == want, depth
        assert len(sub.nodes) == len(sub.node_ids), "a node came back twice"
    assert store.expand(1, [ids["S"]], 0).edges == ()
    edges = {(e.subject_id, e.object_id) for e in store.expand(1, [ids["S"]], 1).edges}
    assert edges == {(ids["S"], ids["A"]), (ids["A"], ids["S"])}
    assert len(store.expand(1, [ids["S"]], 3).edges) == 5  # all but C -> D


def test_expand_from_several_seeds_lists_each_once(chain: tuple[EntityStore, dict[str, int]]) -> None:
    store, ids = chain
    sub = store.expand(1, [ids["S"], ids["D"], ids["S"]], 1)
    assert [n.id for n in sub.nodes][:2] == sorted([ids["S"], ids["D"]])
    assert names(ids, sub.node_ids) == "ACDS" and len(sub.nodes) == 4


def test_relationships_filters_by_direction(chain: tuple[EntityStore, dict[str, int]]) -> None:
    store, ids = chain
    out = store.relationships(1, ids["A"], "outgoing")
    inc = store.relationships(1, ids["A"], "incoming")
    both = store.relationships(1, ids["A"], "both")
    assert {(e.subject_id, e.object_id) for e in out.edges} == {(ids["A"], ids["B"]), (ids["A"], ids["S"])}
    assert {e.subject_id for e in inc.edges} == {ids["S"], ids["X"]}
    assert len(both.edges) == 4 and names(ids, both.node_ids) == "ABSX"
    assert both.nodes[0].id == ids["A"]


def test_shortest_path_follows_relations_either_way(chain: tuple[EntityStore, dict[str, int]]) -> None:
    store, ids = chain
    path = store.shortest_path(1, ids["X"], ids["D"])
    assert path is not None
    assert [n.id for n in path.nodes] == [ids[c] for c in "XABCD"]
    assert (path.edges[0].subject_id, path.edges[0].object_id) == (ids["X"], ids["A"])
    assert store.shortest_path(1, ids["X"], ids["D"], max_hops=3) is None
    lonely = add(store, "Lonely")
    assert store.shortest_path(1, ids["S"], lonely) is None


def test_shared_neighbours_ranks_by_shared_count(store: EntityStore) -> None:
    ids = {n: add(store, n) for n in ("Ana", "Rui", "Eva", "Lisbon", "Acme", "Tom")}
    for a, b in (("Ana", "Lisbon"), ("Ana", "Acme"), ("Rui", "Lisbon"), ("Rui", "Acme"), ("Eva", "Acme")):
        store.add_relation(1, ids[a], "linked to", ids[b])
    shared = store.shared_neighbours(1, ids["Ana"], limit=5)
    assert [(s.node.name, s.shared) for s in shared] == [("Rui", 2), ("Eva", 1)]
    assert shared[0].via == tuple(sorted([ids["Lisbon"], ids["Acme"]]))
    assert store.shared_neighbours(1, ids["Tom"], 5) == []


def _random_graph(engine: Engine) -> None:
    """The same rows on any backend: user 1's 74 active entities (1 a hub) and 6 merged ones, 220
    relations among the active (a fifth superseded, self-loops and repeats allowed), user 2's 20 and 40."""
    rng, when = random.Random(18), "2026-01-01 00:00:00"
    people = [{"i": i, "u": 1 if i <= 80 else 2, "s": "merged" if 75 <= i <= 80 else "active"} for i in range(1, 101)]
    pairs = [(1, rng.randint(1, 74)) for _ in range(20)]
    pairs += [(rng.randint(1, 74), rng.randint(1, 74)) for _ in range(200)]
    pairs += [(rng.randint(81, 100), rng.randint(81, 100)) for _ in range(40)]
    relations = [
        {"i": n, "u": 1 if s <= 80 else 2, "s": s, "o": o, "p": f"P{n % 3}", "w": n / 10,
         "to": when if rng.random() < 0.2 else None}
        for n, (s, o) in enumerate(pairs, start=1)
    ]  # fmt: skip
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO entities (id, user_id, name, type, domain, status, created_at, updated_at) "
                f"VALUES (:i, :u, 'e' || CAST(:i AS TEXT), 'Concept', 'personal', :s, '{when}', '{when}')"
            ),
            people,
        )
        conn.execute(
            text(
                "INSERT INTO relations (id, user_id, subject_id, predicate, object_id, weight, valid_to, created_at) "
                f"VALUES (:i, :u, :s, :p, :o, :w, :to, '{when}')"
            ),
            relations,
        )


def _a_path(path: Subgraph | None, a: int, b: int) -> int | None:
    """The hop count of a path from a to b, checking that each edge joins its two nodes and is current."""
    if path is None:
        return None
    ids = [n.id for n in path.nodes]
    assert ids[0] == a and ids[-1] == b and len(ids) == len(path.edges) + 1
    for edge, (x, y) in zip(path.edges, itertools.pairwise(ids), strict=True):
        assert {edge.subject_id, edge.object_id} == {x, y} and edge.current
    return len(path.edges)


def _answers(graph: GraphBackend) -> list[object]:
    """Every question the app asks of a graph, over `_random_graph`'s rows (shortest paths as hop counts:
    which of equally short paths comes back is each engine's own choice)."""
    found: list[object] = [graph.count(), graph.count(1)]
    with graph.hold():
        for seeds in ([1], [5], [5, 9, 30], [9, 5, 9], [75], [81], [5, 81], [999]):
            found += [graph.expand(1, seeds, d, h) for d, h in itertools.product(range(4), (False, True))]
        for i in (*range(1, 101, 4), 75, 81):
            found += [graph.relationships(1, i, way, h) for way, h in itertools.product(WAYS, (False, True))]
            found.append(graph.shared_neighbours(1, i, 5))
        for a, b, hops in itertools.product((2, 7, 40, 76, 90), (3, 33, 60, 74, 81), (1, 2, 4)):
            found.append(_a_path(graph.shortest_path(1, a, b, hops), a, b))
    return found


def test_recursive_sql_answers_as_the_kuzu_projection(engine: Engine, graph: Graph, pg_url: str) -> None:
    """Same rows, same questions: the projection beside SQLite, recursive SQL on PostgreSQL."""
    pg = make_pg_engine(pg_url)
    try:
        for db in (engine, pg):
            _random_graph(db)
        assert EntityStore(engine, graph).rebuild() == (94, 260)
        kuzu = _answers(graph)
        assert any(isinstance(a, Subgraph) and len(a.nodes) > 20 for a in kuzu)  # the walks go somewhere
        assert _answers(SqlGraph(pg)) == kuzu
    finally:
        pg.dispose()


def test_rebuild_reproduces_answers_after_deleting_the_graph(
    tmp_path: Path, kuzu_chain: tuple[EntityStore, dict[str, int]], engine: Engine, graph: Graph
) -> None:
    store, ids = kuzu_chain
    before = [store.expand(1, [ids["S"]], d) for d in range(4)], store.shortest_path(1, ids["X"], ids["D"])
    graph.close()
    shutil.rmtree(tmp_path / "graph")
    fresh = Graph.open(tmp_path / "graph")
    try:
        store2 = EntityStore(engine, fresh)
        assert store2.sync_graph() is True
        after = [store2.expand(1, [ids["S"]], d) for d in range(4)], store2.shortest_path(1, ids["X"], ids["D"])
        assert after == before
        assert store2.sync_graph() is False
    finally:
        fresh.close()
    Graph.open(tmp_path / "graph")  # the fixture's close() balances this open


def test_failed_graph_write_keeps_sqlite_and_marks_stale(tmp_path: Path, engine: Engine) -> None:
    graph = Graph.open(tmp_path / "g")
    store = EntityStore(engine, graph)
    ana = add(store, "Ana")
    graph.close()
    rui = add(store, "Rui")  # the projection is closed: SQLite must still take the write
    store.add_relation(1, ana, "knows", rui)
    assert store.graph_stale and store.get(1, rui) is not None
    reopened = Graph.open(tmp_path / "g")
    try:
        restarted = EntityStore(engine, reopened)
        assert restarted.graph_stale
        assert restarted.sync_graph() is True and not restarted.graph_stale
        assert restarted.expand(1, [ana], 1).node_ids == {ana, rui}
    finally:
        reopened.close()


def test_graph_open_same_path_returns_same_database(tmp_path: Path) -> None:
    first = Graph.open(tmp_path / "g")
    second = Graph.open(tmp_path / "x" / ".." / "g")
    try:
        assert second is first
    finally:
        second.close()
    first.upsert_node(GraphNode(1, 1, "still open", "Person", "personal"))
    assert first.count() == (1, 0)
    first.close()


TAKE_A_TURN = """
import sys
from pathlib import Path
from memory.graph.kuzu_graph import Graph, GraphNode
g = Graph.open(Path(sys.argv[1]), wait_s=float(sys.argv[2]))
g.upsert_node(GraphNode(99, 1, "from the other process", "Person", "personal"))
print(g.count(1))
g.close()
"""


def _other_process(graph: Graph, wait_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", TAKE_A_TURN, str(graph.directory), str(wait_s)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_two_processes_take_turns_with_the_graph(
    kuzu_chain: tuple[EntityStore, dict[str, int]], graph: Graph
) -> None:
    """Kuzu admits one process per file: neither keeps it, so both read and write while both are open."""
    store, ids = kuzu_chain
    proc = _other_process(graph, 30)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "(7, 6)"  # it saw this process's writes and added its own
    assert graph.count() == (7, 6)  # …which this process sees on its next turn
    assert names(ids, store.expand(1, [ids["S"]], 1).node_ids) == "AS"


def test_a_held_graph_makes_the_other_process_wait_then_name_the_holder(graph: Graph) -> None:
    with graph.hold():
        proc = _other_process(graph, 0.5)
    assert proc.returncode != 0
    assert "GraphLockedError" in proc.stderr and "has kept" in proc.stderr
    assert "Try again when it is done" in proc.stderr
    assert graph.count() == (0, 0)  # nothing of the other process's landed; this one goes on


def test_graph_open_corrupt_file_names_the_fix(tmp_path: Path) -> None:
    directory = tmp_path / "bad"
    directory.mkdir()
    (directory / "graph.kuzu").write_bytes(b"not a kuzu file" * 100)
    with pytest.raises(GraphCorruptError, match="reverie graph rebuild"):
        Graph.open(directory)
    Graph.open(tmp_path / "other").close()  # a failed open must not poison the registry


def test_graph_latency_on_10k_entities_30k_relations(engine: Engine, graph: Graph) -> None:
    """Measure (print, don't assert): rebuild, expand 1-3 hops from 5 seeds, shortest path."""
    n, m, rng = 10_000, 30_000, random.Random(7)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO entities (id, user_id, name, type, domain, created_at, updated_at) "
                "VALUES (:i, 1, :n, 'Concept', 'personal', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
            ),
            [{"i": i, "n": f"e{i}"} for i in range(1, n + 1)],
        )
        conn.execute(
            text(
                "INSERT INTO relations (user_id, subject_id, predicate, object_id, weight, created_at) "
                "VALUES (1, :s, 'LINKED_TO', :o, 1.0, '2026-01-01 00:00:00')"
            ),
            [{"s": rng.randint(1, n), "o": rng.randint(1, n)} for _ in range(m)],
        )
    store = EntityStore(engine, graph)
    started = time.perf_counter()
    assert store.rebuild() == (n, m)
    report = [f"rebuild {n} nodes/{m} edges: {time.perf_counter() - started:.2f} s"]
    seeds = rng.sample(range(1, n + 1), 5)
    for depth in (1, 2, 3):
        times, size = [], 0
        for _ in range(5):
            t = time.perf_counter()
            size = len(store.expand(1, seeds, depth).nodes)
            times.append(time.perf_counter() - t)
        report.append(f"expand depth {depth} from 5 seeds: {min(times) * 1e3:.1f} ms ({size} nodes)")
    times = []
    for a, b in zip(seeds, reversed(seeds), strict=True):
        t = time.perf_counter()
        store.shortest_path(1, a, b, max_hops=6)
        times.append(time.perf_counter() - t)
    report.append(f"shortest path (5 pairs, <=6 hops): median {sorted(times)[2] * 1e3:.1f} ms")
    print("\n" + "\n".join(report))
    assert graph.count() == (n, m)
