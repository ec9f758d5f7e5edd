"""The graph on PostgreSQL: the Kuzu projection's traversals, asked of `entities` and `relations`
themselves with recursive SQL.

Kuzu admits one process per file, and a PostgreSQL installation may serve several, so there the
tables that are the system of record are the graph as well: nothing is projected, the graph's
writes do nothing and it is never stale. Each answer is the one memory/graph/cypher.py gives on
the same rows, in the same order (tests/integration/test_graph.py asks both); the one exception is
which of several equally short paths `shortest_path` picks (Kuzu's choice is arbitrary too).

As in the projection, a node is an active entity of the user and an edge a relation of the user
between two of them. PostgreSQL only: each step of a walk is a LATERAL subquery, which SQLite lacks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, text

from memory.db.engine import in_clause
from memory.graph.cypher import MAX_DEPTH, Direction, GraphEdge, GraphNode, SharedNeighbour, Subgraph

_NODE = "n.id, n.user_id, n.name, n.type, n.domain"
_ACTIVE = "{0}.user_id = :u AND {0}.status = 'active'"
_EDGE = "id AS rid, subject_id AS s, predicate AS p, object_id AS o, weight AS w, valid_to IS NULL AS cur"


def _links(at: str, alias: str) -> str:
    """The relations of node `at`, each with the node at its other end (`b`) and whether `at` is
    its subject (`fwd`). A walk joins it LATERAL, so each step looks up only the relations of the
    nodes it stands on (ix_relations_subject, ix_relations_object): joined as a plain view, the
    planner hashed all of the user's relations at every step (88 ms for one hop at 30k relations)."""
    mine = "user_id = :u AND (:h OR valid_to IS NULL)"
    return (
        f"(SELECT object_id AS b, 1 AS fwd, {_EDGE} FROM relations WHERE {mine} AND subject_id = {at} "
        f"UNION ALL SELECT subject_id, 0, {_EDGE} FROM relations WHERE {mine} AND object_id = {at}) {alias}"
    )


_PAIR = f"l.rid, l.s, l.p, l.o, l.w, l.cur, {_NODE}"  # an edge and the node at its other end
_DIRECTIONS = {"outgoing": " AND l.fwd = 1", "incoming": " AND l.fwd = 0", "both": ""}

# The walk from the seeds as (node, hops) pairs, UNION so that a cycle adds nothing new; then
# each edge leaving a node nearer than the depth, with the node at its other end.
_EXPAND = f"""WITH RECURSIVE walk(id, hops) AS (
    SELECT id, 0 FROM entities WHERE {_ACTIVE.format("entities")}{{seeds}}
    UNION
    SELECT n.id, walk.hops + 1 FROM walk CROSS JOIN LATERAL {_links("walk.id", "l")}
    JOIN entities n ON n.id = l.b WHERE walk.hops < :d - 1 AND {_ACTIVE.format("n")}
)
SELECT {_PAIR} FROM (SELECT DISTINCT id FROM walk) near CROSS JOIN LATERAL {_links("near.id", "l")}
JOIN entities n ON n.id = l.b WHERE {_ACTIVE.format("n")}"""

# Distances from a (at most max hops), then back from b one hop nearer to a at a time: every
# shortest path, as ids from b to a; the smallest is kept.
_PATH = f"""WITH RECURSIVE walk(id, hops) AS (
    SELECT CAST(:a AS BIGINT), 0
    UNION
    SELECT n.id, walk.hops + 1 FROM walk CROSS JOIN LATERAL {_links("walk.id", "l")}
    JOIN entities n ON n.id = l.b WHERE walk.hops < :max AND {_ACTIVE.format("n")}
),
dist(id, d) AS (SELECT id, min(hops) FROM walk GROUP BY id),
back(id, d, nodes, rels) AS (
    SELECT id, d, ARRAY[id], CAST(ARRAY[] AS BIGINT[]) FROM dist WHERE id = :b
    UNION ALL
    SELECT dist.id, dist.d, back.nodes || dist.id, back.rels || CAST(l.rid AS BIGINT)
    FROM back CROSS JOIN LATERAL {_links("back.id", "l")} JOIN dist ON dist.id = l.b AND dist.d = back.d - 1
)
SELECT nodes, rels FROM back WHERE d = 0 ORDER BY nodes LIMIT 1"""

_SHARED = f"""SELECT {_NODE}, count(DISTINCT m.b), array_agg(DISTINCT m.b)
FROM entities a CROSS JOIN LATERAL {_links("a.id", "m")} JOIN entities mid ON mid.id = m.b
CROSS JOIN LATERAL {_links("m.b", "l")} JOIN entities n ON n.id = l.b
WHERE a.id = :id AND {_ACTIVE.format("a")} AND {_ACTIVE.format("mid")} AND {_ACTIVE.format("n")}
AND m.b <> a.id AND l.b <> a.id AND l.b <> m.b
GROUP BY {_NODE} ORDER BY 6 DESC, n.id LIMIT :limit"""


def _node(row: Sequence[Any]) -> GraphNode:
    return GraphNode(id=int(row[0]), user_id=int(row[1]), name=row[2], type=row[3], domain=row[4])


def _pair(row: Sequence[Any]) -> tuple[GraphEdge, GraphNode]:
    edge = GraphEdge(int(row[0]), int(row[1]), row[2], int(row[3]), float(row[4]), bool(row[5]))
    return edge, _node(row[6:])


def _nodes(conn: Connection, user_id: int, ids: Sequence[int]) -> list[GraphNode]:
    params: dict[str, Any] = {"u": user_id}
    where = f"{_ACTIVE.format('n')}{in_clause('n.id', sorted(set(ids)), params)}"
    return [_node(r) for r in conn.execute(text(f"SELECT {_NODE} FROM entities n WHERE {where} ORDER BY n.id"), params)]


def _edges(conn: Connection, user_id: int, relation_ids: list[int]) -> dict[int, GraphEdge]:
    params: dict[str, Any] = {"u": user_id}
    sql = "SELECT id, subject_id, predicate, object_id, weight, valid_to IS NULL FROM relations WHERE user_id = :u"
    rows = conn.execute(text(sql + in_clause("id", relation_ids, params)), params)
    return {int(r[0]): GraphEdge(int(r[0]), int(r[1]), r[2], int(r[3]), float(r[4]), bool(r[5])) for r in rows}


def _subgraph(first: list[GraphNode], pairs: list[tuple[GraphEdge, GraphNode]]) -> Subgraph:
    """`first`, then the other ends of `pairs` by id, and the edges by relation id (each once)."""
    ids = {n.id for n in first}
    others = {node.id: node for _, node in pairs if node.id not in ids}
    edges = {edge.relation_id: edge for edge, _ in pairs}
    return Subgraph(
        nodes=tuple(first + [others[i] for i in sorted(others)]),
        edges=tuple(edges[k] for k in sorted(edges)),
    )


class SqlGraph:
    """The graph interface (memory/graph/backend.py) over the tables on `engine`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine


    @contextmanager
    def hold(self) -> Iterator[None]:
        """Nothing to keep open: every query takes a pooled connection."""
        yield

    def close(self) -> None:
        """Nothing to release: the engine belongs to the store."""

    def count(self, user_id: int | None = None) -> tuple[int, int]:
        """(active entities, relations), for one user or all."""
        sql = (
            "SELECT (SELECT count(*) FROM entities WHERE status = 'active' AND (:u IS NULL OR user_id = :u)), "
            "(SELECT count(*) FROM relations WHERE :u IS NULL OR user_id = :u)"
        )
        with self._engine.connect() as conn:
            nodes, edges = conn.execute(text(sql), {"u": user_id}).one()
        return int(nodes), int(edges)

    def nodes(self, user_id: int, ids: Sequence[int]) -> list[GraphNode]:
        """This user's active entities among `ids`, by id."""
        with self._engine.connect() as conn:
            return _nodes(conn, user_id, ids)

    def expand(self, user_id: int, seed_ids: Sequence[int], depth: int, history: bool = False) -> Subgraph:
        """Seeds plus all nodes within `depth` (0-3) hops; only current edges unless `history`."""
        if not 0 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be 0..{MAX_DEPTH}, got {depth}")
        with self._engine.connect() as conn:  # one connection per question: each checkout costs a ping
            seeds = _nodes(conn, user_id, seed_ids)
            if not seeds or depth == 0:
                return Subgraph(nodes=tuple(seeds))
            params: dict[str, Any] = {"u": user_id, "h": history, "d": depth}
            sql = _EXPAND.format(seeds=in_clause("id", [n.id for n in seeds], params))
            return _subgraph(seeds, [_pair(r) for r in conn.execute(text(sql), params)])

    def relationships(
        self, user_id: int, entity_id: int, direction: Direction = "both", history: bool = False
    ) -> Subgraph:
        """The entity, its neighbours in `direction`, and the edges to them."""
        sql = (
            f"SELECT {_PAIR} FROM {_links(':e', 'l')} JOIN entities n ON n.id = l.b "
            f"WHERE {_ACTIVE.format('n')}{_DIRECTIONS[direction]}"
        )
        with self._engine.connect() as conn:
            me = _nodes(conn, user_id, [entity_id])
            rows = conn.execute(text(sql), {"u": user_id, "h": history, "e": entity_id}) if me else []
            return _subgraph(me, [_pair(r) for r in rows])

    def shortest_path(self, user_id: int, a_id: int, b_id: int, max_hops: int = 4) -> Subgraph | None:
        """One shortest path over current edges ignoring direction (the smallest ids of equals), or None."""
        if not 1 <= max_hops <= 8:
            raise ValueError(f"max_hops must be 1..8, got {max_hops}")
        with self._engine.connect() as conn:
            ends = _nodes(conn, user_id, [a_id, b_id])
            if len(ends) != len({a_id, b_id}):
                return None
            if a_id == b_id:
                return Subgraph(nodes=tuple(ends))
            found = conn.execute(text(_PATH), {"u": user_id, "h": False, "a": a_id, "b": b_id, "max": max_hops}).first()
            if found is None:
                return None
            path, rels = [int(i) for i in reversed(found[0])], [int(i) for i in reversed(found[1])]
            by_id = {n.id: n for n in _nodes(conn, user_id, path)}
            edges = _edges(conn, user_id, rels)
        return Subgraph(nodes=tuple(by_id[i] for i in path), edges=tuple(edges[r] for r in rels))

    def shared_neighbours(self, user_id: int, entity_id: int, limit: int = 10) -> list[SharedNeighbour]:
        """Entities sharing current neighbours with `entity_id`, most shared first."""
        with self._engine.connect() as conn:
            rows = conn.execute(text(_SHARED), {"u": user_id, "h": False, "id": entity_id, "limit": limit}).all()
        return [SharedNeighbour(node=_node(r), shared=int(r[5]), via=tuple(sorted(int(i) for i in r[6]))) for r in rows]

    # -- writing: the tables are the graph, so there is nothing to keep in step ----------------

    def upsert_node(self, node: GraphNode) -> None:
        """Nothing to do: the entity row is the node."""

    def add_edge(self, edge: GraphEdge) -> None:
        """Nothing to do: the relation row is the edge."""

    def update_edge(self, edge: GraphEdge) -> None:
        """Nothing to do: the relation row is the edge."""

    def delete_edges(self, relation_ids: Sequence[int]) -> None:
        """Nothing to do: deleting the relation rows deleted the edges."""

    def delete_nodes(self, ids: Sequence[int]) -> None:
        """Nothing to do: deleting the entity rows deleted the nodes."""

    def replace(self, user_id: int | None, nodes: Sequence[GraphNode], edges: Sequence[GraphEdge]) -> None:
        """Nothing to do: there is no copy to rebuild."""
