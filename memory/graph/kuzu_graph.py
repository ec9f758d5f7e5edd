"""The Kuzu adapter: the only module that imports `kuzu` (ruff TID251 enforces it).

The graph is a projection of SQLite's `entities` and `relations`; it can be deleted and
rebuilt at any time, so every failure here costs a rebuild, never data.

Kuzu 0.11.3 traps this module exists to contain (STACK-NOTES):
- Two `Database` objects on the same path in one process silently lost committed rows, so
  `Graph.open` keeps a registry keyed by resolved path and hands out the same object.
- A second process cannot open the file at all (not even read-only), so no process keeps it open:
  each opens it per operation and waits its turn (`Graph`), and gives up with `GraphLockedError`.
- A second concurrent writer fails at once instead of waiting, so writes take a lock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import kuzu

from memory.graph import cypher as q
from memory.graph.cypher import Direction, GraphEdge, GraphNode, SharedNeighbour, Subgraph

__all__ = [
    "Graph",
    "GraphCorruptError",
    "GraphEdge",
    "GraphError",
    "GraphLockedError",
    "GraphNode",
    "SharedNeighbour",
    "Subgraph",
]

log = logging.getLogger(__name__)

DB_FILE = "graph.kuzu"
GRAPH_WAIT_S = 30.0
"""How long an operation waits for another process to finish with the graph before giving up."""
LOCK_POLL_S = 0.05
WAIT_NOTICE_S = 1.0  # a wait longer than this is said once (a CLI command shows it on stderr)
# Kuzu's default buffer pool is 80% of RAM; on a 2 GB box that would starve everything else.
DEFAULT_BUFFER_POOL = 64 * 1024 * 1024

_SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS Entity(id INT64 PRIMARY KEY, user_id INT64, name STRING, "
    "type STRING, domain STRING)",
    "CREATE REL TABLE IF NOT EXISTS REL(FROM Entity TO Entity, relation_id INT64, predicate STRING, "
    "weight DOUBLE, current BOOLEAN)",
)
_COPY_NODES = "COPY Entity FROM (UNWIND $rows AS r RETURN r.id, r.user_id, r.name, r.type, r.domain)"
_COPY_EDGES = "COPY REL FROM (UNWIND $rows AS r RETURN r.s, r.o, r.rid, r.p, r.w, r.c)"


class GraphError(RuntimeError):
    """The graph cannot be used as it is; the message names the fix."""


class GraphLockedError(GraphError):
    """Another process holds the graph file."""


class GraphCorruptError(GraphError):
    """The graph file cannot be read; it is a projection, so moving it aside and rebuilding loses nothing."""


def _open_error(directory: Path, exc: RuntimeError, waited_s: float) -> GraphError:
    if "lock" in str(exc).lower():
        return GraphLockedError(
            f"another process has kept {directory} open for over {waited_s:g} s (Reverie's own processes take "
            f"turns in milliseconds; a long `reverie graph rebuild`, or a program that is not Reverie?). Try "
            f"again when it is done ({exc})"
        )
    return GraphCorruptError(
        f"the graph in {directory} cannot be opened ({exc}). It is rebuilt from SQLite, so nothing is "
        f"lost: move {directory} aside, then run `reverie graph rebuild`."
    )


def _node_row(n: GraphNode) -> dict[str, Any]:
    return {"id": n.id, "user_id": n.user_id, "name": n.name, "type": n.type, "domain": n.domain}


def _edge_row(e: GraphEdge) -> dict[str, Any]:
    return {
        "s": e.subject_id,
        "o": e.object_id,
        "rid": e.relation_id,
        "p": e.predicate,
        "w": e.weight,
        "c": e.current,
    }


class Graph:
    """One Kuzu database directory, open only while an operation of this process uses it.

    Kuzu admits one process per file, and Reverie runs two kinds at once (the app, and a CLI command
    or `reverie chat` beside it), so neither keeps the file: each operation opens the database (about
    5 ms) and the last one in flight closes it; `hold()` keeps it open across many (a formation job,
    a rebuild). An operation that finds another process using the file waits its turn for up to
    `wait_s` seconds, then raises GraphLockedError. Writes are serialized by a lock, reads run on
    their own connections.
    """

    _registry: ClassVar[dict[Path, Graph]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, directory: Path, buffer_pool_size: int, wait_s: float) -> None:
        """Use `Graph.open`; building a Graph directly would bypass the one-Database registry."""
        self.directory = directory
        self.wait_s = wait_s
        self._buffer_pool_size = buffer_pool_size
        self._state = threading.Lock()  # guards _db and _holds
        self._write_lock = threading.Lock()
        self._db: kuzu.Database | None = None
        self._holds = 0
        self._users = 1
        self._closed = False

    @classmethod
    def open(
        cls, directory: Path, buffer_pool_size: int = DEFAULT_BUFFER_POOL, wait_s: float | None = None
    ) -> Graph:
        """The graph stored in `directory` (created if missing), shared by every caller in this process.

        Each `open` must be paired with one `close`. The file is opened once here (to create the
        schema and to name a corrupt file at once), then only while in use.

        Raises:
            GraphLockedError: another process used the graph for longer than `wait_s`
                (default GRAPH_WAIT_S).
            GraphCorruptError: the file is not a readable Kuzu database.
        """
        key = directory.resolve()
        with cls._registry_lock:
            graph = cls._registry.get(key)
            if graph is not None:
                graph._users += 1
                return graph
            key.mkdir(parents=True, exist_ok=True)
            graph = cls(key, buffer_pool_size, GRAPH_WAIT_S if wait_s is None else wait_s)
            with graph.hold() as db:
                conn = kuzu.Connection(db)
                try:
                    for statement in _SCHEMA:
                        conn.execute(statement)
                except RuntimeError as exc:
                    raise _open_error(key, exc, graph.wait_s) from exc
                finally:
                    conn.close()
            cls._registry[key] = graph
            return graph

    @contextmanager
    def hold(self) -> Iterator[kuzu.Database]:
        """The database, kept open until the outermost `hold` of this process ends.

        Raises:
            GraphError: the graph was closed. GraphLockedError, GraphCorruptError: see `open`.
        """
        with self._state:
            self._check_open()
            if self._db is None:
                self._db = self._open_database()
            self._holds += 1
            db = self._db
        try:
            yield db
        finally:
            with self._state:
                self._holds -= 1
                if self._holds == 0 and self._db is not None:
                    self._db.close()  # another process may take its turn now
                    self._db = None

    def _open_database(self) -> kuzu.Database:
        started = time.monotonic()
        told = False
        while True:
            try:
                return kuzu.Database(str(self.directory / DB_FILE), buffer_pool_size=self._buffer_pool_size)
            except RuntimeError as exc:
                error = _open_error(self.directory, exc, self.wait_s)
                waited = time.monotonic() - started
                if not isinstance(error, GraphLockedError) or waited >= self.wait_s:
                    raise error from exc
            if waited > WAIT_NOTICE_S and not told:
                log.warning("waiting for another Reverie process to finish with the knowledge graph…")
                told = True
            time.sleep(LOCK_POLL_S)

    def close(self) -> None:
        """Release this caller's handle; after the last one the graph refuses operations (an
        operation still in flight keeps the file until it ends)."""
        with self._registry_lock:
            if self._closed:
                return
            self._users -= 1
            if self._users > 0:
                return
            self._registry.pop(self.directory, None)
            with self._state:
                self._closed = True

    # -- reading ------------------------------------------------------------------------------

    def read(self, cypher: str, params: dict[str, Any]) -> list[list[Any]]:
        """Run one parameterized read query on a fresh connection (cheap: ~30 µs)."""
        with self.hold() as db:
            conn = kuzu.Connection(db)
            try:
                result = conn.execute(cypher, params)
                assert not isinstance(result, list), "one statement per call"
                return [list(row) for row in result.get_all()]
            except RuntimeError as exc:
                raise GraphError(f"graph query failed in {self.directory}: {exc}") from exc
            finally:
                conn.close()

    def _check_open(self) -> None:
        if self._closed:
            raise GraphError(f"the graph in {self.directory} is closed")

    def count(self, user_id: int | None = None) -> tuple[int, int]:
        """(nodes, edges) in the projection, for one user or all."""
        where = "" if user_id is None else "WHERE a.user_id = $u"
        params: dict[str, Any] = {} if user_id is None else {"u": user_id}
        with self.hold():
            nodes = self.read(f"MATCH (a:Entity) {where} RETURN count(a)", params)[0][0]
            edges = self.read(f"MATCH (a:Entity)-[r:REL]->(:Entity) {where} RETURN count(r)", params)[0][0]
        return int(nodes), int(edges)

    def expand(self, user_id: int, seed_ids: Sequence[int], depth: int, history: bool = False) -> Subgraph:
        """Seeds plus all nodes within `depth` (0-3) hops; only current edges unless `history`."""
        with self.hold():
            return q.expand(self, user_id, list(seed_ids), depth, history)

    def relationships(
        self, user_id: int, entity_id: int, direction: Direction = "both", history: bool = False
    ) -> Subgraph:
        """The entity, its neighbours in `direction`, and the edges to them."""
        with self.hold():
            return q.relationships(self, user_id, entity_id, direction, history)

    def shortest_path(self, user_id: int, a_id: int, b_id: int, max_hops: int = 4) -> Subgraph | None:
        """One shortest path over current edges ignoring direction, or None."""
        with self.hold():
            return q.shortest_path(self, user_id, a_id, b_id, max_hops)

    def shared_neighbours(self, user_id: int, entity_id: int, limit: int = 10) -> list[SharedNeighbour]:
        """Entities linked to the same neighbours as `entity_id`, most shared first."""
        with self.hold():
            return q.shared_neighbours(self, user_id, entity_id, limit)

    # -- writing ------------------------------------------------------------------------------

    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        with self._write_lock, self.hold() as db:
            conn = kuzu.Connection(db)
            try:
                conn.execute(cypher, params)
            except RuntimeError as exc:
                raise GraphError(f"graph write failed in {self.directory}: {exc}") from exc
            finally:
                conn.close()

    def upsert_node(self, node: GraphNode) -> None:
        """Create or update one node."""
        self._write(
            "MERGE (n:Entity {id: $id}) SET n.user_id = $user_id, n.name = $name, n.type = $type, n.domain = $domain",
            _node_row(node),
        )

    def add_edge(self, edge: GraphEdge) -> None:
        """Create one edge; both nodes must exist."""
        self._write(
            "MATCH (a:Entity {id: $s}), (b:Entity {id: $o}) CREATE (a)-[:REL {relation_id: $rid, "
            "predicate: $p, weight: $w, current: $c}]->(b)",
            _edge_row(edge),
        )

    def update_edge(self, edge: GraphEdge) -> None:
        """Set the weight and current flag of an existing edge (matched by subject and relation id)."""
        self._write(
            "MATCH (a:Entity {id: $s})-[r:REL]->(:Entity) WHERE r.relation_id = $rid SET r.weight = $w, r.current = $c",
            {"s": edge.subject_id, "rid": edge.relation_id, "w": edge.weight, "c": edge.current},
        )

    def delete_edges(self, relation_ids: Sequence[int]) -> None:
        """Delete edges by relation id."""
        if relation_ids:
            self._write("MATCH ()-[r:REL]->() WHERE r.relation_id IN $ids DELETE r", {"ids": list(relation_ids)})

    def delete_nodes(self, ids: Sequence[int]) -> None:
        """Delete nodes and every edge touching them."""
        if ids:
            self._write("MATCH (n:Entity) WHERE n.id IN $ids DETACH DELETE n", {"ids": list(ids)})

    def replace(self, user_id: int | None, nodes: Sequence[GraphNode], edges: Sequence[GraphEdge]) -> None:
        """Replace one user's projection (or everyone's, for None) by bulk COPY.

        `COPY ... FROM (UNWIND $rows ...)` keeps the bulk load parameterized and loads 30k
        edges in ~1.6 s, where edge-by-edge MATCH/CREATE took ~1.1 ms each (STACK-NOTES).
        """
        with self._write_lock, self.hold() as db:
            conn = kuzu.Connection(db)
            try:
                if user_id is None:
                    conn.execute("MATCH (n:Entity) DETACH DELETE n")
                else:
                    conn.execute("MATCH (n:Entity) WHERE n.user_id = $u DETACH DELETE n", {"u": user_id})
                if nodes:
                    conn.execute(_COPY_NODES, {"rows": [_node_row(n) for n in nodes]})
                if edges:
                    conn.execute(_COPY_EDGES, {"rows": [_edge_row(e) for e in edges]})
            except RuntimeError as exc:
                raise GraphError(f"graph rebuild failed in {self.directory}: {exc}") from exc
            finally:
                conn.close()
