"""The graph's interface: what memory/graph/entities.py asks of a graph, whichever engine answers.

Two engines implement it. The embedded default is the Kuzu projection (memory/graph/kuzu_graph.py),
kept in step with the `entities` and `relations` tables by memory/graph/projection.py. On
PostgreSQL the tables answer themselves with recursive SQL (memory/graph/sql_graph.py), so there
the writes are no-ops. Both give the same answers in the same order (tests/integration/test_graph.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from memory.graph.cypher import Direction, GraphEdge, GraphNode, SharedNeighbour, Subgraph


class GraphBackend(Protocol):
    """Traversals over one installation's graph, and the writes that keep a projection in step."""

    def hold(self) -> AbstractContextManager[object]:
        """Keep the graph open across many operations (a formation job, a rebuild)."""
        ...

    def close(self) -> None:
        """Release this caller's handle."""
        ...

    def count(self, user_id: int | None = None) -> tuple[int, int]:
        """(nodes, edges), for one user or all."""
        ...

    def expand(self, user_id: int, seed_ids: Sequence[int], depth: int, history: bool = False) -> Subgraph:
        """Seeds plus all nodes within `depth` (0-3) hops; only current edges unless `history`."""
        ...

    def relationships(
        self, user_id: int, entity_id: int, direction: Direction = "both", history: bool = False
    ) -> Subgraph:
        """The entity, its neighbours in `direction`, and the edges to them."""
        ...

    def shortest_path(self, user_id: int, a_id: int, b_id: int, max_hops: int = 4) -> Subgraph | None:
        """One shortest path over current edges ignoring direction, or None."""
        ...

    def shared_neighbours(self, user_id: int, entity_id: int, limit: int = 10) -> list[SharedNeighbour]:
        """Entities linked to the same neighbours as `entity_id`, most shared first."""
        ...

    def upsert_node(self, node: GraphNode) -> None:
        """Create or update one node."""
        ...

    def add_edge(self, edge: GraphEdge) -> None:
        """Create one edge; both nodes must exist."""
        ...

    def update_edge(self, edge: GraphEdge) -> None:
        """Set the weight and current flag of an existing edge."""
        ...

    def delete_edges(self, relation_ids: Sequence[int]) -> None:
        """Delete edges by relation id."""
        ...

    def delete_nodes(self, ids: Sequence[int]) -> None:
        """Delete nodes and every edge touching them."""
        ...

    def replace(self, user_id: int | None, nodes: Sequence[GraphNode], edges: Sequence[GraphEdge]) -> None:
        """Replace one user's graph (or everyone's, for None) by these nodes and edges."""
        ...
