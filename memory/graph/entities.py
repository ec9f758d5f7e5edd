"""The knowledge graph's system of record (SQLite) and the facade that keeps Kuzu in step.

Every write lands in SQLite first, in one transaction, then in the Kuzu projection. If the
projection write fails the SQLite record stays, `meta.graph_stale` is set, and the next
`sync_graph()` (start-up) or graph query rebuilds the projection from SQLite.

Provenance and the forget rule. `entity_sources` and `relation_sources` record, per memory
id, how many mentions (entities) or how much weight (relations) that memory contributed;
contributions not tied to a memory are recorded under memory id 0. `forget_source_memory(M)`:
1. drops M's contributions, subtracting them from `mention_count` and `weight`;
2. deletes relations left with no contribution at all (they came only from M), history included;
3. deletes entities left with no contribution and no relation (any, current or superseded).
Anything also supported by another memory, a turn, a document or a manual edit survives.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session, col, func, select

from memory.db.engine import ids_clause
from memory.graph import records as rec
from memory.graph.backend import GraphBackend
from memory.graph.cypher import Direction, SharedNeighbour, Subgraph
from memory.graph.kuzu_graph import GraphError
from memory.graph.names import USER, clean_name, name_key, normalize_predicate, normalize_type
from memory.graph.projection import Projection, edge_of, node_of
from memory.graph.records import ForgetResult
from memory.graph.schema import m003_entities, m014_entity_apart
from memory.models import EntityRow, RelationRow, utcnow
from memory.turns import storable_text

__all__ = [
    "EntityNotFound",
    "EntityStore",
    "ForgetResult",
    "Namesake",
    "Subgraph",
    "m003_entities",
    "m014_entity_apart",
]

_FUNCTIONAL_HAS = ("HAS_NAME", "HAS_AGE", "HAS_JOB_TITLE")  # said of the user, not who someone is to them


@dataclass(frozen=True, eq=False)  # one per entity per lookup: compared by identity
class Namesake:
    """One of the entities a name calls, with what tells it from the others: who it is to the
    person ("sister", from the person's current HAS_SISTER relation to it) and where it works."""

    entity: EntityRow
    roles: tuple[str, ...] = ()
    employers: tuple[str, ...] = ()

    @property
    def id(self) -> int:
        """The entity's id."""
        return self.entity.id or 0


class EntityNotFound(LookupError):
    """No active entity or relation with that id belongs to this user."""


class EntityStore:
    """Entities and relations per user: SQLite records plus the Kuzu projection of them (on
    PostgreSQL, `graph` is memory/graph/sql_graph.py's, which asks the records themselves).

    Every method takes `user_id` and only reads or changes that user's rows: another user's
    ids behave exactly like ids that do not exist.

    Entity dedupe is by `name_key` over name and aliases, within user and domain, and only
    across compatible types (same type, or one side "Concept"). A match gains a mention, the
    new aliases, the longer summary, and a concrete type in place of "Concept".
    """

    def __init__(self, engine: Engine, graph: GraphBackend) -> None:
        self._engine = engine
        self._projection = Projection(engine, graph)

    @property
    def graph_stale(self) -> bool:
        """Whether the projection missed a write and will be rebuilt before the next graph query."""
        return self._projection.stale

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Many writes in one turn at the graph (memory/graph/kuzu_graph.py), not one turn each. When the graph
        cannot be had, SQLite still takes every write and each flags the projection stale as usual."""
        with ExitStack() as held:
            with suppress(GraphError):
                held.enter_context(self._projection.graph.hold())
            yield

    def rebuild(self, user_id: int | None = None) -> tuple[int, int]:
        """Regenerate the graph projection from SQLite; returns (nodes, edges)."""
        return self._projection.rebuild(user_id)

    def sync_graph(self) -> bool:
        """Start-up check: rebuild if the graph is flagged stale or out of step; True if rebuilt."""
        return self._projection.sync()

    # -- entities -----------------------------------------------------------------------------

    def upsert_entity(
        self,
        user_id: int,
        name: str,
        type: str,
        *,
        summary: str | None = None,
        aliases: Sequence[str] = (),
        domain: str = "personal",
        source_memory_id: int | None = None,
        distinct: bool = False,
        into: int | None = None,
    ) -> EntityRow:
        """Record a mention of an entity, reusing the one with the same name or alias (see class).

        Args:
            distinct: create a new entity even if the name matches (this "Ana" is another one).
            into: the entity this mention is of, when the caller resolved it (formation does, by role).
            source_memory_id: the memory this mention came from (for `forget_source_memory`).

        Raises:
            ValueError: the name is empty after cleaning.
        """
        name, summary = storable_text(name), storable_text(summary) if summary is not None else None
        aliases = [storable_text(a) for a in aliases]
        clean, kind = clean_name(name), normalize_type(type)
        if not name_key(clean):
            raise ValueError(f"an entity needs a name, got {name!r}")
        names = [clean, *(a for a in map(clean_name, aliases) if name_key(a))]
        with Session(self._engine) as s:
            conn = s.connection()
            ids = [] if distinct else rec.ids_by_key(conn, user_id, map(name_key, names), domain)
            ids = [into] if into is not None else ids
            row = rec.pick([r for i in ids if (r := s.get(EntityRow, i)) and r.user_id == user_id], kind)
            row = row or rec.new_entity(user_id, clean, kind, domain)
            rec.absorb(row, names, summary, kind, mentions=1)
            s.add(row)
            s.flush()
            assert row.id is not None
            rec.add_keys(conn, user_id, row.id, names)
            rec.credit(conn, "entity_sources", row.id, source_memory_id, 1)
            s.commit()
            s.refresh(row)
        self._projection.apply(partial(self._projection.graph.upsert_node, node_of(row)))
        return row

    def get(self, user_id: int, entity_id: int) -> EntityRow | None:
        """One of this user's entities (merged ones included, see `merged_into`), or None."""
        with Session(self._engine) as s:
            row = s.get(EntityRow, entity_id)
        return row if row is not None and row.user_id == user_id else None

    def get_many(self, user_id: int, ids: Sequence[int]) -> dict[int, EntityRow]:
        """This user's entities among `ids`, keyed by id (others' ids are silently absent)."""
        if not ids:
            return {}
        # By primary key alone, the user checked here (SQLite may walk the user's index instead).
        params: dict[str, Any] = {}
        by_key = text(ids_clause(self._engine, "entities.id", ids, params).removeprefix(" AND ")).bindparams(**params)
        with Session(self._engine) as s:
            rows = s.exec(select(EntityRow).where(by_key))
            return {r.id: r for r in rows if r.id is not None and r.user_id == user_id}

    def named(self, user_id: int, names: Sequence[str], per_name: int = 5) -> list[int]:
        """Active entities each name calls exactly (name or alias), in the order of `names`,
        the most mentioned first within a name; one query for all of them."""
        keys = [name_key(clean_name(storable_text(n))) for n in names]
        with self._engine.connect() as conn:
            found = rec.ids_by_keys(conn, user_id, keys, None)
        return list(dict.fromkeys(i for key in keys for i, _ in found.get(key, [])[:per_name]))

    def _active(self, user_id: int, entity_id: int) -> EntityRow:
        row = self.get(user_id, entity_id)
        if row is None or row.status != "active":
            raise EntityNotFound(f"no active entity {entity_id} for this user")
        return row

    def find_by_name(
        self, user_id: int, name: str, fuzzy: bool = True, limit: int = 5, domain: str | None = None
    ) -> list[EntityRow]:
        """Active entities called `name`: every exact name/alias match first (two "Ana"s both come
        back), then, if `fuzzy`, names it prefixes or resembles (difflib ratio ≥ 0.8)."""
        name = storable_text(name)
        with self._engine.connect() as conn:
            limit, ids = max(limit, 0), rec.ids_by_key(conn, user_id, [name_key(clean_name(name))], domain)
            if fuzzy and len(ids) < limit:
                ids += [i for i in rec.fuzzy_ids(conn, user_id, name, domain) if i not in ids]
        with Session(self._engine) as s:
            by_id = {r.id: r for r in s.exec(select(EntityRow).where(col(EntityRow.id).in_(ids[:limit])))}
        return [by_id[i] for i in ids[:limit]]

    def active(self, user_id: int) -> list[EntityRow]:
        """Every active entity of this user, in no particular order."""
        with Session(self._engine) as s:
            return list(s.exec(select(EntityRow).where(EntityRow.user_id == user_id, EntityRow.status == "active")))

    def by_type(self, user_id: int, type: str, limit: int = 50) -> list[EntityRow]:
        """Active entities of a (normalized) type, most mentioned first."""
        query = select(EntityRow).where(
            EntityRow.user_id == user_id, EntityRow.status == "active", EntityRow.type == normalize_type(type)
        )
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(EntityRow.mention_count).desc(), col(EntityRow.id)).limit(limit)))

    def types(self, user_id: int) -> dict[str, int]:
        """How many active entities this user has of each type."""
        query = (
            select(EntityRow.type, func.count())
            .where(EntityRow.user_id == user_id, EntityRow.status == "active")
            .group_by(col(EntityRow.type))
        )
        with Session(self._engine) as s:
            return {t: n for t, n in s.exec(query)}

    # -- relations ----------------------------------------------------------------------------

    def add_relation(
        self,
        user_id: int,
        subject_id: int,
        predicate: str,
        object_id: int,
        *,
        weight: float = 1.0,
        source_turn_id: int | None = None,
        source_memory_id: int | None = None,
        document_id: int | None = None,
        valid_from: datetime | None = None,
    ) -> RelationRow:
        """Record (subject, PREDICATE, object); an identical current triple gains `weight` instead.

        Raises:
            EntityNotFound: either end is not an active entity of this user.
        """
        self._active(user_id, subject_id)
        self._active(user_id, object_id)
        pred = normalize_predicate(predicate)
        ids = {"user_id": user_id, "subject_id": subject_id, "object_id": object_id, "document_id": document_id}
        sources = {"source_turn_id": source_turn_id, "source_memory_id": source_memory_id}
        dates = {"valid_from": valid_from or utcnow(), "created_at": utcnow()}
        with Session(self._engine) as s:
            row = rec.live_relation(s, user_id, subject_id, pred, object_id)
            is_new = row is None
            row = row or RelationRow.model_validate({**ids, **sources, **dates, "predicate": pred, "weight": 0.0})
            row.weight += weight
            s.add(row)
            s.flush()
            assert row.id is not None
            rec.credit(s.connection(), "relation_sources", row.id, source_memory_id, weight)
            s.commit()
            s.refresh(row)
        graph = self._projection.graph
        self._projection.apply(partial(graph.add_edge if is_new else graph.update_edge, edge_of(row)))
        return row

    def supersede_relation(self, user_id: int, relation_id: int, valid_to: datetime | None = None) -> RelationRow:
        """End a relation's validity (default now); the row stays as history.

        Raises:
            EntityNotFound: no such relation for this user.
        """
        with Session(self._engine) as s:
            row = s.get(RelationRow, relation_id)
            if row is None or row.user_id != user_id:
                raise EntityNotFound(f"no relation {relation_id} for this user")
            row.valid_to = valid_to or utcnow()
            s.add(row)
            s.commit()
            s.refresh(row)
        self._projection.apply(partial(self._projection.graph.update_edge, edge_of(row)))
        return row

    def current_relations(self, user_id: int, subject_id: int, predicate: str | None = None) -> list[RelationRow]:
        """The subject's relations still valid (`valid_to IS NULL`), optionally of one predicate."""
        query = select(RelationRow).where(
            RelationRow.user_id == user_id,
            RelationRow.subject_id == subject_id,
            col(RelationRow.valid_to).is_(None),
        )
        if predicate is not None:
            query = query.where(RelationRow.predicate == normalize_predicate(predicate))
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(RelationRow.id))))

    def links(self, user_id: int, entity_id: int) -> list[RelationRow]:
        """The entity's current relations, either end (what a split chooses from), oldest first."""
        query = select(RelationRow).where(
            RelationRow.user_id == user_id,
            col(RelationRow.valid_to).is_(None),
            (RelationRow.subject_id == entity_id) | (RelationRow.object_id == entity_id),
        )
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(RelationRow.id))))

    def source_memories(self, user_id: int, entity_id: int) -> list[int]:
        """The memories that mention the entity (its provenance), oldest first."""
        if self.get(user_id, entity_id) is None:
            return []
        sql = "SELECT memory_id FROM entity_sources WHERE entity_id = :e AND memory_id != 0 ORDER BY memory_id"
        with self._engine.connect() as conn:
            return [int(r[0]) for r in conn.execute(text(sql), {"e": entity_id})]

    # -- removal and merging ------------------------------------------------------------------

    def forget_source_memory(self, user_id: int, memory_id: int) -> ForgetResult:
        """Remove what only `memory_id` supported (the rule is in this module's docstring)."""
        with self._engine.begin() as conn:
            result = rec.forget(conn, user_id, memory_id)
        with Session(self._engine) as s:
            changed = [edge_of(r) for i in result.reweighted_ids if (r := s.get(RelationRow, i))]
        graph = self._projection.graph
        self._projection.apply(
            partial(graph.delete_edges, list(result.relation_ids)),
            *(partial(graph.update_edge, e) for e in changed),
            partial(graph.delete_nodes, list(result.entity_ids)),
        )
        return result

    def merge(self, user_id: int, keep_id: int, drop_id: int) -> EntityRow:
        """Fold `drop_id` into `keep_id`: relations, aliases, mentions, provenance; drop is marked merged.

        Raises:
            EntityNotFound: either is not an active entity of this user.
            ValueError: they are the same entity.
        """
        keep, drop = self._active(user_id, keep_id), self._active(user_id, drop_id)
        if keep_id == drop_id:
            raise ValueError("cannot merge an entity into itself")
        with Session(self._engine) as s:
            _, moved = rec.move_entity(s.connection(), user_id, keep_id, drop_id)
            rec.move_apart(s.connection(), user_id, keep_id, drop_id)
            rec.absorb(keep, [drop.name, *drop.aliases], drop.summary, drop.type, drop.mention_count)
            drop.updated_at = utcnow()
            drop.status, drop.merged_into = "merged", keep_id
            s.add_all([keep, drop])
            s.commit()
            s.refresh(keep)
            edges = [edge_of(r) for i in moved if (r := s.get(RelationRow, i))]
        graph = self._projection.graph
        self._projection.apply(
            partial(graph.delete_nodes, [drop_id]),
            partial(graph.upsert_node, node_of(keep)),
            *(partial(graph.add_edge, e) for e in edges),
        )
        return keep

    def split(
        self,
        user_id: int,
        entity_id: int,
        *,
        relation_ids: Sequence[int] = (),
        aliases: Sequence[str] = (),
        memory_ids: Sequence[int] = (),
        name: str | None = None,
    ) -> EntityRow:
        """Take another person (or thing) out of one entity: the chosen relations, aliases and source
        memories (and the mentions of the memories behind those relations) go to a new entity of the
        same name (or `name`), type and domain, and the two are kept apart. `merge` undoes it.

        Raises:
            EntityNotFound: no such active entity for this user.
            ValueError: nothing chosen, or a relation or alias that is not the entity's.
        """
        old = self._active(user_id, entity_id)
        moving = {name_key(a) for a in aliases}
        if not (relation_ids or moving or memory_ids):
            raise ValueError("choose the relations, aliases or memories that belong to the other one")
        if missing := moving - {name_key(a) for a in old.aliases}:
            raise ValueError(f"not an alias of {old.name}: {', '.join(sorted(missing))}")
        with Session(self._engine) as s:
            conn, old = s.connection(), s.get(EntityRow, entity_id)
            assert old is not None and old.id is not None
            new = rec.new_entity(user_id, clean_name(storable_text(name or old.name)), old.type, old.domain)
            new.aliases = [a for a in old.aliases if name_key(a) in moving]
            old.aliases = [a for a in old.aliases if name_key(a) not in moving]
            s.add(new)
            s.flush()
            assert new.id is not None
            moved = rec.split_entity(conn, user_id, old.id, new.id, relation_ids, memory_ids)
            if len(moved) < len(set(relation_ids)):
                raise ValueError(f"not all of relations {sorted(set(relation_ids))} are {old.name}'s")
            rec.drop_keys(conn, old.id, moving - {name_key(old.name)})
            rec.add_keys(conn, user_id, new.id, [new.name, *new.aliases])
            new.mention_count = max(rec.credited_mentions(conn, new.id), 1)
            old.mention_count = max(old.mention_count - new.mention_count, 1)
            old.updated_at = utcnow()
            rec.keep_apart(conn, user_id, old.id, new.id, "split by the person")
            s.add_all([old, new])
            s.commit()
            s.refresh(old)
            s.refresh(new)
            edges = [edge_of(r) for i in moved if (r := s.get(RelationRow, i))]
        graph = self._projection.graph
        self._projection.apply(
            partial(graph.delete_edges, moved),
            partial(graph.upsert_node, node_of(old)),
            partial(graph.upsert_node, node_of(new)),
            *(partial(graph.add_edge, e) for e in edges),
        )
        return new

    def keep_apart(self, user_id: int, a_id: int, b_id: int, reason: str) -> None:
        """Record that two same-named entities are two (nothing but the person's merge joins them).

        Raises:
            EntityNotFound: either is not an active entity of this user.
        """
        self._active(user_id, a_id)
        self._active(user_id, b_id)
        with self._engine.begin() as conn:
            rec.keep_apart(conn, user_id, a_id, b_id, reason)

    def sources(self, user_id: int) -> set[int]:
        """The ids of the memories any of this user's active entities was drawn from."""
        sql = ("SELECT DISTINCT s.memory_id FROM entity_sources s JOIN entities e ON e.id = s.entity_id "
               "WHERE e.user_id = :u AND e.status = 'active'")  # fmt: skip
        with self._engine.connect() as conn:
            return {int(m) for (m,) in conn.execute(text(sql), {"u": user_id})}

    def apart(self, user_id: int) -> set[tuple[int, int]]:
        """The (lower id, higher id) pairs of this user's entities known to be two."""
        with self._engine.connect() as conn:
            return rec.apart_pairs(conn, user_id)

    def namesakes(self, user_id: int, name: str, domain: str | None = "personal") -> list[Namesake]:
        """The active entities a name calls (by name or alias; never the person themself), oldest
        first, each with who it is to the person and where it works: what tells two "Ana"s apart."""
        key = name_key(clean_name(storable_text(name)))
        with self._engine.connect() as conn:
            ids = sorted(rec.ids_by_key(conn, user_id, [key], domain))
            told = rec.roles_and_employers(conn, user_id, ids, USER, _FUNCTIONAL_HAS)
        rows = self.get_many(user_id, ids)
        return [
            Namesake(rows[i], tuple(dict.fromkeys(told[i][0])), tuple(dict.fromkeys(told[i][1])))
            for i in ids
            if i in rows and rows[i].name != USER
        ]

    def delete_domain(self, user_id: int, domain: str) -> int:
        """Delete every entity of a domain (e.g. 'doc:7') with its relations; returns how many."""
        with self._engine.begin() as conn:
            sql = text("DELETE FROM entities WHERE user_id = :u AND domain = :d RETURNING id")
            ids = [r[0] for r in conn.execute(sql, {"u": user_id, "d": domain})]
        self._projection.apply(partial(self._projection.graph.delete_nodes, ids))
        return len(ids)

    # -- graph queries (the projection answers; on PostgreSQL, recursive SQL) ------------------

    def expand(self, user_id: int, seed_ids: Sequence[int], depth: int = 1, *, history: bool = False) -> Subgraph:
        """Seeds plus everything within `depth` (0-3) hops; current relations only unless `history`."""
        return self._projection.fresh().expand(user_id, seed_ids, depth, history)

    def relationships(self, user_id: int, entity_id: int, direction: Direction = "both") -> Subgraph:
        """The entity, its current neighbours in `direction`, and the relations to them."""
        return self._projection.fresh().relationships(user_id, entity_id, direction)

    def shortest_path(self, user_id: int, a_id: int, b_id: int, max_hops: int = 4) -> Subgraph | None:
        """A shortest chain of current relations between two entities (any direction), or None."""
        return self._projection.fresh().shortest_path(user_id, a_id, b_id, max_hops)

    def shared_neighbours(self, user_id: int, entity_id: int, limit: int = 10) -> list[SharedNeighbour]:
        """Entities linked to the same neighbours as `entity_id`, most shared first."""
        return self._projection.fresh().shared_neighbours(user_id, entity_id, limit)
