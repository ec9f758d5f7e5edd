"""SQLite side of the knowledge graph: schema, lookup keys, provenance, and the set-based edits.

Functions here take an open `Connection` inside the caller's transaction and return plain
ids, so memory/graph/entities.py can apply the same change to the Kuzu projection afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sqlalchemy import Connection, text
from sqlmodel import Session, col, select

from memory.db.engine import in_clause
from memory.graph.names import DEFAULT_TYPE, name_key
from memory.models import EntityRow, RelationRow, utcnow

NO_MEMORY = 0  # memory ids start at 1; 0 files contributions from turns, documents and edits
FUZZY_RATIO = 0.8


@dataclass(frozen=True)
class ForgetResult:
    """What `forget_source_memory` changed: deleted relations/entities, relations that lost weight."""

    relation_ids: tuple[int, ...] = ()
    entity_ids: tuple[int, ...] = ()
    reweighted_ids: tuple[int, ...] = field(default=(), repr=False)


def new_entity(user_id: int, name: str, type_: str, domain: str) -> EntityRow:
    """A fresh, unsaved entity row with no mentions yet (`absorb` adds the first)."""
    now = utcnow()
    return EntityRow.model_validate(
        {
            "user_id": user_id,
            "name": name,
            "type": type_,
            "aliases": [],
            "domain": domain,
            "mention_count": 0,
            "created_at": now,
            "updated_at": now,
        }
    )


def pick(rows: Sequence[EntityRow], type_: str) -> EntityRow | None:
    """The dedupe target among same-key rows: same type first; a "Concept" on either side was a
    guess, so it matches any type. Rows arrive most-mentioned first."""
    for row in rows:
        if row.type == type_:
            return row
    return next((r for r in rows if DEFAULT_TYPE in (r.type, type_)), None)


def absorb(row: EntityRow, names: Sequence[str], summary: str | None, type_: str, mentions: int) -> None:
    """Fold another mention (or a merged entity) into `row`: new aliases, the longer summary, a
    concrete type in place of "Concept", and the mentions."""
    known = {name_key(n) for n in [row.name, *row.aliases]}
    # Reassign, never append: SQLAlchemy only sees a JSON column change on assignment.
    row.aliases = [*row.aliases, *dict.fromkeys(n for n in names if name_key(n) not in known)]
    # Longer is the proxy for "more informative": summaries get regenerated from more context.
    if summary and (not row.summary or len(summary.strip()) > len(row.summary.strip())):
        row.summary = summary
    row.type = type_ if row.type == DEFAULT_TYPE else row.type
    row.mention_count += mentions
    row.updated_at = utcnow()


def live_relation(s: Session, user_id: int, subject_id: int, predicate: str, object_id: int) -> RelationRow | None:
    """The oldest current relation with exactly this triple, if any."""
    query = select(RelationRow).where(
        RelationRow.user_id == user_id,
        RelationRow.subject_id == subject_id,
        RelationRow.predicate == predicate,
        RelationRow.object_id == object_id,
        col(RelationRow.valid_to).is_(None),
    )
    return s.exec(query.order_by(col(RelationRow.id))).first()


def credit(conn: Connection, table: str, item_id: int, memory_id: int | None, amount: float) -> None:
    """Record that `memory_id` (None: no memory) contributed `amount` to an entity or relation."""
    column = {"entity_sources": "entity_id", "relation_sources": "relation_id"}[table]
    conn.execute(
        text(
            f"INSERT INTO {table} ({column}, memory_id, amount) VALUES (:i, :m, :a) "
            # (the table named: PostgreSQL finds a bare `amount` ambiguous beside `excluded`)
            f"ON CONFLICT ({column}, memory_id) DO UPDATE SET amount = {table}.amount + excluded.amount"
        ),
        {"i": item_id, "m": memory_id or NO_MEMORY, "a": amount},
    )


def add_keys(conn: Connection, user_id: int, entity_id: int, names: Iterable[str]) -> None:
    """Index the dedupe keys of an entity's name and aliases."""
    for key in {name_key(n) for n in names} - {""}:
        conn.execute(
            # (ON CONFLICT DO NOTHING rather than INSERT OR IGNORE: the same words on PostgreSQL)
            text("INSERT INTO entity_keys (entity_id, user_id, key) VALUES (:e, :u, :k) ON CONFLICT DO NOTHING"),
            {"e": entity_id, "u": user_id, "k": key},
        )


def ids_by_key(conn: Connection, user_id: int, keys: Iterable[str], domain: str | None) -> list[int]:
    """Active entities of this user whose name or an alias has one of `keys`, most mentioned first."""
    found = {i: m for matches in ids_by_keys(conn, user_id, keys, domain).values() for i, m in matches}
    return sorted(found, key=lambda i: (-found[i], i))


def ids_by_keys(
    conn: Connection, user_id: int, keys: Iterable[str], domain: str | None
) -> dict[str, list[tuple[int, int]]]:
    """Per key, the (id, mention count) of this user's active entities it names, most mentioned first."""
    wanted = sorted(set(keys) - {""})
    if not wanted:
        return {}
    params: dict[str, Any] = {"u": user_id, "d": domain}
    rows = conn.execute(
        text(
            "SELECT k.key, e.id, e.mention_count FROM entity_keys k JOIN entities e ON e.id = k.entity_id "
            f"WHERE k.user_id = :u{in_clause('k.key', wanted, params)} AND e.user_id = :u AND e.status = 'active' "
            "AND (:d IS NULL OR e.domain = :d) ORDER BY e.mention_count DESC, e.id"
        ),
        params,
    )
    found: dict[str, list[tuple[int, int]]] = {}
    for key, entity_id, mentions in rows:
        found.setdefault(key, []).append((int(entity_id), int(mentions)))
    return found


def fuzzy_ids(conn: Connection, user_id: int, name: str, domain: str | None) -> list[int]:
    """Active entities whose key starts with, or is ≥ 0.8 similar to, `name`'s key; best first."""
    key = name_key(name)
    if len(key) < 2:
        return []
    rows = conn.execute(
        text(
            "SELECT k.entity_id, k.key, e.mention_count FROM entity_keys k JOIN entities e "
            "ON e.id = k.entity_id WHERE k.user_id = :u AND e.user_id = :u AND e.status = 'active' "
            "AND (:d IS NULL OR e.domain = :d)"
        ),
        {"u": user_id, "d": domain},
    )
    best: dict[int, tuple[float, int]] = {}
    matcher = SequenceMatcher(b=key, autojunk=False)
    for entity_id, candidate, mentions in rows:
        matcher.set_seq1(candidate)
        # The quick upper bounds skip the exact ratio for almost every candidate.
        if candidate.startswith(key):
            score = 1.0
        elif matcher.real_quick_ratio() >= FUZZY_RATIO and matcher.quick_ratio() >= FUZZY_RATIO:
            score = matcher.ratio()
            if score < FUZZY_RATIO:
                continue
        else:
            continue
        best[entity_id] = max(best.get(entity_id, (0.0, 0)), (score, mentions))
    return sorted(best, key=lambda i: (-best[i][0], -best[i][1], i))


def forget(conn: Connection, user_id: int, memory_id: int) -> ForgetResult:
    """Apply the forget rule of memory/graph/entities.py for one memory of one user."""
    params = {"u": user_id, "m": memory_id}
    dead_rels, reweighted, ends = _forget_relations(conn, params)
    mentions = conn.execute(
        text(
            "SELECT s.entity_id, s.amount FROM entity_sources s JOIN entities e ON e.id = s.entity_id "
            "WHERE e.user_id = :u AND s.memory_id = :m"
        ),
        params,
    ).all()
    for entity_id, amount in mentions:
        conn.execute(
            text("DELETE FROM entity_sources WHERE entity_id = :e AND memory_id = :m"),
            {"e": entity_id, "m": memory_id},
        )
        conn.execute(
            # (CASE, not SQLite's two-argument max(), which PostgreSQL calls GREATEST)
            text("UPDATE entities SET mention_count = CASE WHEN mention_count > :a THEN mention_count - :a ELSE 0 END "
                 "WHERE id = :e"),
            {"a": int(amount), "e": entity_id},
        )
    # An endpoint of a deleted relation may have lost its last support earlier, to another memory.
    candidates = sorted({e for e, _ in mentions} | ends)
    dead_ents = [e for e in candidates if _delete_if_unsupported(conn, e)]
    return ForgetResult(tuple(dead_rels), tuple(dead_ents), tuple(reweighted))


def _forget_relations(conn: Connection, params: dict[str, int]) -> tuple[list[int], list[int], set[int]]:
    """Drop memory `:m`'s share of `:u`'s relations: (deleted ids, reweighted ids, deleted ends)."""
    rows = conn.execute(
        text(
            "SELECT s.relation_id, s.amount, r.subject_id, r.object_id FROM relation_sources s "
            "JOIN relations r ON r.id = s.relation_id WHERE r.user_id = :u AND s.memory_id = :m"
        ),
        params,
    ).all()
    conn.execute(
        text(
            "DELETE FROM relation_sources WHERE memory_id = :m AND relation_id IN "
            "(SELECT id FROM relations WHERE user_id = :u)"
        ),
        params,
    )
    dead, reweighted, ends = [], [], set()
    for rel_id, amount, subject_id, object_id in rows:
        if conn.execute(text("SELECT 1 FROM relation_sources WHERE relation_id = :r"), {"r": rel_id}).first():
            conn.execute(text("UPDATE relations SET weight = weight - :a WHERE id = :r"), {"a": amount, "r": rel_id})
            reweighted.append(rel_id)
        else:
            conn.execute(text("DELETE FROM relations WHERE id = :r"), {"r": rel_id})
            dead.append(rel_id)
            ends |= {subject_id, object_id}
    return dead, reweighted, ends


def _delete_if_unsupported(conn: Connection, entity_id: int) -> bool:
    params = {"e": entity_id}
    supported = conn.execute(
        text(
            "SELECT 1 FROM entity_sources WHERE entity_id = :e UNION ALL "
            "SELECT 1 FROM relations WHERE subject_id = :e OR object_id = :e LIMIT 1"
        ),
        params,
    ).first()
    if supported:
        return False
    conn.execute(text("DELETE FROM entities WHERE id = :e"), params)
    return True


def move_entity(conn: Connection, user_id: int, keep_id: int, drop_id: int) -> tuple[list[int], list[int]]:
    """Point `drop_id`'s relations, keys and provenance at `keep_id`.

    Relations between the two would become self-loops saying "X relates to X"; they are deleted.

    Returns:
        (deleted relation ids, moved relation ids).
    """
    p = {"u": user_id, "k": keep_id, "d": drop_id}
    between = conn.execute(
        text(
            "DELETE FROM relations WHERE user_id = :u AND ((subject_id = :k AND object_id = :d) OR "
            "(subject_id = :d AND object_id = :k) OR (subject_id = :d AND object_id = :d)) RETURNING id"
        ),
        p,
    ).all()
    moved = conn.execute(
        text("SELECT id FROM relations WHERE user_id = :u AND (subject_id = :d OR object_id = :d)"), p
    ).all()
    conn.execute(text("UPDATE relations SET subject_id = :k WHERE user_id = :u AND subject_id = :d"), p)
    conn.execute(text("UPDATE relations SET object_id = :k WHERE user_id = :u AND object_id = :d"), p)
    _move_keys_and_sources(conn, p)
    return [r[0] for r in between], [r[0] for r in moved]


def _move_keys_and_sources(conn: Connection, p: dict[str, int]) -> None:
    conn.execute(
        text(
            "INSERT INTO entity_keys (entity_id, user_id, key) "
            "SELECT :k, user_id, key FROM entity_keys WHERE entity_id = :d ON CONFLICT DO NOTHING"
        ),
        p,
    )
    conn.execute(text("DELETE FROM entity_keys WHERE entity_id = :d"), p)
    # `WHERE true` resolves SQLite's INSERT ... SELECT ... ON CONFLICT parsing ambiguity.
    conn.execute(
        text(
            "INSERT INTO entity_sources (entity_id, memory_id, amount) SELECT :k, memory_id, amount "
            "FROM entity_sources WHERE entity_id = :d AND true ON CONFLICT (entity_id, memory_id) "
            "DO UPDATE SET amount = entity_sources.amount + excluded.amount"
        ),
        p,
    )
    conn.execute(text("DELETE FROM entity_sources WHERE entity_id = :d"), p)


def roles_and_employers(
    conn: Connection, user_id: int, ids: Sequence[int], user_name: str, not_roles: Sequence[str]
) -> dict[int, tuple[list[str], list[str]]]:
    """Per entity, who it is to the person (current HAS_* relations from the entity `user_name`,
    as words: HAS_BEST_FRIEND → "best friend") and where it works now (WORKS_AT objects' names)."""
    found: dict[int, tuple[list[str], list[str]]] = {i: ([], []) for i in ids}
    if not ids:
        return found
    params: dict[str, Any] = {"u": user_id, "user": user_name}
    rows = conn.execute(
        text(
            "SELECT r.object_id, r.predicate, NULL FROM relations r JOIN entities s ON s.id = r.subject_id "
            "WHERE r.user_id = :u AND r.valid_to IS NULL AND s.name = :user AND r.predicate LIKE 'HAS\\_%' "
            f"ESCAPE '\\'{in_clause('r.object_id', list(ids), params)} UNION ALL "
            "SELECT r.subject_id, r.predicate, o.name FROM relations r JOIN entities o ON o.id = r.object_id "
            f"WHERE r.user_id = :u AND r.valid_to IS NULL AND r.predicate = 'WORKS_AT'"
            f"{in_clause('r.subject_id', list(ids), params)} ORDER BY 1"
        ),
        params,
    )
    for entity_id, predicate, employer in rows:
        roles, employers = found[int(entity_id)]
        if employer is not None:
            employers.append(str(employer))
        elif predicate not in not_roles:
            roles.append(str(predicate).removeprefix("HAS_").replace("_", " ").lower())
    return found


def keep_apart(conn: Connection, user_id: int, a_id: int, b_id: int, reason: str) -> None:
    """Record that two entities are two (idempotent; the lower id first)."""
    a, b = sorted((a_id, b_id))
    conn.execute(
        text(
            "INSERT INTO entity_apart (user_id, a_id, b_id, reason, created_at) "
            "VALUES (:u, :a, :b, :r, :t) ON CONFLICT DO NOTHING"  # (not SQLite's INSERT OR IGNORE: PostgreSQL too)
        ),
        {"u": user_id, "a": a, "b": b, "r": reason, "t": utcnow().isoformat(sep=" ")},
    )


def apart_pairs(conn: Connection, user_id: int) -> set[tuple[int, int]]:
    """The (lower id, higher id) pairs this user's entities are kept apart by."""
    rows = conn.execute(text("SELECT a_id, b_id FROM entity_apart WHERE user_id = :u"), {"u": user_id})
    return {(int(a), int(b)) for a, b in rows}


def split_entity(
    conn: Connection, user_id: int, old_id: int, new_id: int, relation_ids: Sequence[int], memory_ids: Sequence[int]
) -> list[int]:
    """Point the chosen relations of `old_id` at `new_id`, and move the mentions credited to the chosen
    memories and to the memories behind those relations; returns the moved relation ids."""
    p: dict[str, Any] = {"u": user_id, "o": old_id}
    where = f"user_id = :u AND (subject_id = :o OR object_id = :o){in_clause('id', list(relation_ids), p)}"
    moved = [int(r[0]) for r in conn.execute(text(f"SELECT id FROM relations WHERE {where}"), p)]
    for end in ("subject_id", "object_id"):
        q: dict[str, Any] = {"o": old_id, "n": new_id}
        conn.execute(text(f"UPDATE relations SET {end} = :n WHERE {end} = :o{in_clause('id', moved, q)}"), q)
    q = {}
    sql = f"SELECT DISTINCT memory_id FROM relation_sources WHERE memory_id != 0{in_clause('relation_id', moved, q)}"
    memories = sorted({*memory_ids, *(int(r[0]) for r in conn.execute(text(sql), q))})
    m: dict[str, Any] = {"o": old_id, "n": new_id}
    sources = f"entity_id = :o{in_clause('memory_id', memories, m)}"
    conn.execute(text(f"INSERT INTO entity_sources (entity_id, memory_id, amount) SELECT :n, memory_id, amount "
                      f"FROM entity_sources WHERE {sources}"), m)  # fmt: skip
    conn.execute(text(f"DELETE FROM entity_sources WHERE {sources}"), m)
    return moved


def move_apart(conn: Connection, user_id: int, keep_id: int, drop_id: int) -> None:
    """On a merge: the two are one now, and what `drop_id` was kept apart from, `keep_id` is."""
    p = {"u": user_id, "d": drop_id}
    others = conn.execute(
        text("DELETE FROM entity_apart WHERE user_id = :u AND (a_id = :d OR b_id = :d) RETURNING a_id, b_id, reason"), p
    ).all()
    for a, b, reason in others:
        other = int(b) if int(a) == drop_id else int(a)
        if other != keep_id:
            keep_apart(conn, user_id, keep_id, other, str(reason))


def drop_keys(conn: Connection, entity_id: int, keys: Iterable[str]) -> None:
    """Un-index some of an entity's names (an alias moved to another entity)."""
    for key in keys:
        conn.execute(text("DELETE FROM entity_keys WHERE entity_id = :e AND key = :k"), {"e": entity_id, "k": key})


def credited_mentions(conn: Connection, entity_id: int) -> int:
    """How many mentions an entity's provenance records."""
    sql = "SELECT coalesce(sum(amount), 0) FROM entity_sources WHERE entity_id = :e"
    return int(conn.execute(text(sql), {"e": entity_id}).scalar() or 0)
