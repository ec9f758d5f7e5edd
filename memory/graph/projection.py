"""Keeping the Kuzu projection in step with SQLite's entities and relations.

SQLite is the record; the graph is rebuilt from it whenever it may have missed a write. A
failed graph write sets `meta.graph_stale` (so the flag survives a crash) and the next
`sync()` at start-up, or the next graph query, rebuilds it in bulk. On PostgreSQL the graph is
the tables themselves (memory/graph/sql_graph.py): its writes do nothing, so it is never stale and
its counts are always the tables'.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, text

from memory.graph.backend import GraphBackend
from memory.graph.kuzu_graph import GraphEdge, GraphError, GraphNode
from memory.models import EntityRow, RelationRow

STALE_KEY = "graph_stale"


def node_of(row: EntityRow) -> GraphNode:
    """The projection of an entity row."""
    assert row.id is not None
    return GraphNode(id=row.id, user_id=row.user_id, name=row.name, type=row.type, domain=row.domain)


def edge_of(row: RelationRow) -> GraphEdge:
    """The projection of a relation row; current means `valid_to IS NULL`."""
    assert row.id is not None
    return GraphEdge(row.id, row.subject_id, row.predicate, row.object_id, row.weight, row.valid_to is None)


class Projection:
    """The graph plus the stale flag that says whether it can be trusted."""

    def __init__(self, engine: Engine, graph: GraphBackend) -> None:
        self._engine = engine
        self.graph = graph
        with engine.connect() as conn:
            flag = conn.execute(text("SELECT value FROM meta WHERE key = :k"), {"k": STALE_KEY}).first()
        self.stale = flag is not None and flag[0] == "1"

    def _set_stale(self, stale: bool) -> None:
        self.stale = stale
        with self._engine.begin() as conn:
            conn.execute(
                text("INSERT INTO meta (key, value) VALUES (:k, :v) ON CONFLICT (key) DO UPDATE SET value = :v"),
                {"k": STALE_KEY, "v": "1" if stale else "0"},
            )

    def apply(self, *writes: Callable[[], None]) -> None:
        """Run graph writes in order; on failure flag the graph stale and carry on.

        The SQLite transaction has already committed, so the caller's change is safe either way.
        """
        try:
            for write in writes:
                write()
        except GraphError:
            self._set_stale(True)

    def _rows(self, user_id: int | None) -> tuple[list[GraphNode], list[GraphEdge]]:
        # Plain columns, not ORM rows: a rebuild reads every row, and row objects cost 10x more.
        scope = {"u": user_id}
        with self._engine.connect() as conn:
            nodes = conn.execute(
                text(
                    "SELECT id, user_id, name, type, domain FROM entities "
                    "WHERE status = 'active' AND (:u IS NULL OR user_id = :u)"
                ),
                scope,
            )
            edges = conn.execute(
                text(
                    "SELECT id, subject_id, predicate, object_id, weight, valid_to IS NULL FROM relations "
                    "WHERE :u IS NULL OR user_id = :u"
                ),
                scope,
            )
            return [GraphNode(*r) for r in nodes], [GraphEdge(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in edges]

    def _counts(self) -> tuple[int, int]:
        """(active entities, relations) in the record: what a projection in step holds."""
        with self._engine.connect() as conn:
            row = conn.execute(
                text("SELECT (SELECT count(*) FROM entities WHERE status = 'active'), (SELECT count(*) FROM relations)")
            ).one()
        return int(row[0]), int(row[1])

    def rebuild(self, user_id: int | None = None) -> tuple[int, int]:
        """Regenerate the projection (one user's, or everyone's) from SQLite by bulk load.

        Returns:
            (nodes, edges) written.

        Raises:
            GraphError: the graph cannot be written; SQLite is untouched and the flag is set.
        """
        entities, relations = self._rows(user_id)
        try:
            self.graph.replace(user_id, entities, relations)
        except GraphError:
            self._set_stale(True)
            raise
        # Only a full rebuild clears the flag: the missed write may have been another user's.
        if user_id is None and self.stale:
            self._set_stale(False)
        return len(entities), len(relations)

    def sync(self) -> bool:
        """Rebuild when flagged stale or when the graph's counts differ from SQLite's (e.g. a new file).

        Returns:
            True if a rebuild ran.
        """
        try:
            in_step = not self.stale and self.graph.count() == self._counts()
        except GraphError:
            in_step = False
        if in_step:
            return False
        self.rebuild()
        return True

    def fresh(self) -> GraphBackend:
        """The graph, rebuilt first if a write was missed."""
        if self.stale:
            self.rebuild()
        return self.graph
