"""Read-only Cypher for the graph projection, and the plain values its answers become.

This module builds queries and parses rows but never imports `kuzu`: it runs them through
any `Runner` (memory/graph.py provides the Kuzu one), so another engine is an adapter change.
Every query is parameterized, and every node on every pattern is filtered by `user_id`, so a
caller passing another user's ids gets nothing back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

Direction = Literal["incoming", "outgoing", "both"]
MAX_DEPTH = 3


class Runner(Protocol):
    """Something that runs one parameterized read query and returns all rows."""

    def read(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        """Run `cypher` with `params`; rows as lists of values."""
        ...


@dataclass(frozen=True)
class GraphNode:
    """An entity as the projection holds it."""

    id: int
    user_id: int
    name: str
    type: str
    domain: str


@dataclass(frozen=True)
class GraphEdge:
    """A relation as the projection holds it; `current` is `valid_to IS NULL` in SQLite."""

    relation_id: int
    subject_id: int
    predicate: str
    object_id: int
    weight: float
    current: bool = True


@dataclass(frozen=True)
class Subgraph:
    """Nodes and the edges between them. For a path, both are in path order."""

    nodes: tuple[GraphNode, ...] = ()
    edges: tuple[GraphEdge, ...] = ()

    @property
    def node_ids(self) -> set[int]:
        """The ids of the nodes."""
        return {n.id for n in self.nodes}


@dataclass(frozen=True)
class SharedNeighbour:
    """Another entity linked to the same neighbours as the one asked about."""

    node: GraphNode
    shared: int
    via: tuple[int, ...]


_NODE = "n.id, n.user_id, n.name, n.type, n.domain"
# `$all OR r.current` lets one query text serve both "current only" and "with history".
_EDGE_OK = "($history OR r.current)"


def _node(row: list[Any]) -> GraphNode:
    return GraphNode(id=row[0], user_id=row[1], name=row[2], type=row[3], domain=row[4])


def _edge(row: list[Any]) -> GraphEdge:
    return GraphEdge(
        relation_id=row[0],
        subject_id=row[1],
        predicate=row[2],
        object_id=row[3],
        weight=row[4],
        current=row[5],
    )


def nodes(run: Runner, user_id: int, ids: list[int]) -> list[GraphNode]:
    """This user's nodes among `ids`, by id."""
    rows = run.read(
        f"MATCH (n:Entity) WHERE n.id IN $ids AND n.user_id = $u RETURN {_NODE} ORDER BY n.id",
        {"ids": ids, "u": user_id},
    )
    return [_node(r) for r in rows]


def expand(run: Runner, user_id: int, seeds: list[int], depth: int, history: bool = False) -> Subgraph:
    """Seeds plus every node within `depth` hops (either direction), and the edges walked.

    An edge is returned when it leaves a node closer than `depth`, i.e. exactly the edges some
    walk of at most `depth` hops uses. Seeds appear once, whatever cycles lead back to them.
    """
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 0..{MAX_DEPTH}, got {depth}")
    seed_nodes = nodes(run, user_id, sorted(set(seeds)))
    seed_ids = [n.id for n in seed_nodes]
    if depth == 0 or not seed_ids:
        return Subgraph(nodes=tuple(seed_nodes))
    # SHORTEST is a BFS per (seed, node) pair: it gives distances without enumerating every
    # trail, and the explicit NOT IN drops seeds that a cycle reaches again.
    rows = run.read(
        "MATCH (s:Entity)-[e:REL* SHORTEST 1.." + str(depth) + " (r, n | WHERE n.user_id = $u AND "
        f"{_EDGE_OK})]-(n:Entity) WHERE s.id IN $seeds AND s.user_id = $u AND n.user_id = $u "
        f"AND NOT n.id IN $seeds RETURN {_NODE}, min(length(e)) ORDER BY n.id",
        {"seeds": seed_ids, "u": user_id, "history": history},
    )
    reached = [_node(r) for r in rows]
    inner = seed_ids + [n.id for r, n in zip(rows, reached, strict=True) if r[5] < depth]
    every = seed_ids + [n.id for n in reached]
    # Anchored on the inner nodes' primary keys (each direction once), then filtered here:
    # a whole-table scan with two IN lists took 45-165 ms on 30k edges, this 5-15 ms.
    ret = "RETURN r.relation_id, a.id AS s, r.predicate, b.id AS o, r.weight, r.current"
    rows = run.read(
        f"MATCH (a:Entity)-[r:REL]->(b:Entity) WHERE a.id IN $inner AND b.user_id = $u AND {_EDGE_OK} {ret} "
        f"UNION ALL MATCH (a:Entity)-[r:REL]->(b:Entity) WHERE b.id IN $inner AND a.user_id = $u "
        f"AND {_EDGE_OK} {ret}",
        {"inner": inner, "u": user_id, "history": history},
    )
    members = set(every)
    edges = {r[0]: _edge(r) for r in rows if r[1] in members and r[3] in members}
    return Subgraph(nodes=tuple(seed_nodes + reached), edges=tuple(edges[k] for k in sorted(edges)))


def relationships(run: Runner, user_id: int, entity_id: int, direction: Direction, history: bool = False) -> Subgraph:
    """The entity, its neighbours in `direction`, and the edges to them."""
    arrows = {"outgoing": ["(a)-[r:REL]->(n)"], "incoming": ["(n)-[r:REL]->(a)"]}
    patterns = arrows.get(direction, arrows["outgoing"] + arrows["incoming"])
    edges: list[GraphEdge] = []
    neighbours: dict[int, GraphNode] = {}
    for pattern in patterns:
        outgoing = pattern.startswith("(a)")
        subj, obj = ("a", "n") if outgoing else ("n", "a")
        rows = run.read(
            f"MATCH {pattern} WHERE a.id = $id AND a.user_id = $u AND n.user_id = $u AND {_EDGE_OK} "
            f"RETURN {_NODE}, r.relation_id, {subj}.id AS s, r.predicate, {obj}.id AS o, r.weight, r.current",
            {"id": entity_id, "u": user_id, "history": history},
        )
        for row in rows:
            neighbours[row[0]] = _node(row)
            edges.append(_edge(row[5:]))
    if not edges:
        return Subgraph(nodes=tuple(nodes(run, user_id, [entity_id])))
    me = nodes(run, user_id, [entity_id])
    others = [n for i, n in sorted(neighbours.items()) if i != entity_id]
    edges.sort(key=lambda e: e.relation_id)
    return Subgraph(nodes=tuple(me + others), edges=tuple(dict.fromkeys(edges)))


def shortest_path(run: Runner, user_id: int, a_id: int, b_id: int, max_hops: int = 4) -> Subgraph | None:
    """One shortest path over current relations, ignoring direction; None if none within `max_hops`."""
    if not 1 <= max_hops <= 8:
        raise ValueError(f"max_hops must be 1..8, got {max_hops}")
    ends = nodes(run, user_id, sorted({a_id, b_id}))
    if len(ends) != len({a_id, b_id}):
        return None
    if a_id == b_id:
        return Subgraph(nodes=tuple(ends))
    rows = run.read(
        "MATCH p = (a:Entity)-[e:REL* SHORTEST 1.." + str(max_hops) + " (r, n | WHERE n.user_id = $u "
        "AND r.current)]-(b:Entity) WHERE a.id = $a AND b.id = $b AND a.user_id = $u AND b.user_id = $u "
        "RETURN nodes(p), rels(p) LIMIT 1",
        {"a": a_id, "b": b_id, "u": user_id},
    )
    if not rows:
        return None
    raw_nodes, raw_rels = rows[0]
    path = [GraphNode(n["id"], n["user_id"], n["name"], n["type"], n["domain"]) for n in raw_nodes]
    # Kuzu names a rel's ends by internal offsets, so map them back to entity ids.
    by_internal = {(n["_id"]["table"], n["_id"]["offset"]): n["id"] for n in raw_nodes}
    edges = [
        GraphEdge(
            relation_id=r["relation_id"],
            subject_id=by_internal[(r["_src"]["table"], r["_src"]["offset"])],
            predicate=r["predicate"],
            object_id=by_internal[(r["_dst"]["table"], r["_dst"]["offset"])],
            weight=r["weight"],
            current=r["current"],
        )
        for r in raw_rels
    ]
    return Subgraph(nodes=tuple(path), edges=tuple(edges))


def shared_neighbours(run: Runner, user_id: int, entity_id: int, limit: int = 10) -> list[SharedNeighbour]:
    """Entities sharing current neighbours with `entity_id`, most shared first."""
    rows = run.read(
        "MATCH (a:Entity)-[r1:REL]-(m:Entity)-[r2:REL]-(n:Entity) WHERE a.id = $id AND a.user_id = $u "
        "AND m.user_id = $u AND n.user_id = $u AND n.id <> a.id AND m.id <> a.id AND m.id <> n.id "
        "AND r1.current AND r2.current WITH n, collect(DISTINCT m.id) AS via "
        f"RETURN {_NODE}, size(via) AS shared, via ORDER BY shared DESC, n.id LIMIT $limit",
        {"id": entity_id, "u": user_id, "limit": limit},
    )
    return [SharedNeighbour(node=_node(r), shared=r[5], via=tuple(sorted(r[6]))) for r in rows]
