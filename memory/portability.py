"""A user's control over their memories: export and import as JSON, edit, forget everywhere.

Export writes every memory (all statuses, with dates and supersede links), entity and
relation of one user, with per-memory provenance; ids appear only as local references
(`ref`), so an import into any user remaps them and export → import → export gives the same
content modulo ids. Import re-embeds the text (vectors are derived data) and skips what is
already there (same memory text, kind and date; same entity name, type and domain; same
relation and start), so importing a file twice adds nothing. Two entities of one name (the sister
Ana and the colleague Ana) are matched in order, each to its own, and `apart` (optional, so older
files still import) carries that they are two. Turn ids do not travel: turns belong to the
episodic log of the installation that recorded them.

Forgetting a memory deletes its row, vector and FTS entry, and the entities and relations that
only it supported (memory.graph.entities forget rule); forgetting a `turn` memory also forgets the
facts formed from that turn, so nothing said there survives under another form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Engine, text
from sqlmodel import Session, col, select

from memory.formation.graph_writes import link
from memory.formation.patterns import extract_patterns
from memory.formation.plan import Stores, is_instruction
from memory.graph import records as rec
from memory.graph.names import name_key
from memory.models import EntityRow, MemoryRow, RelationRow
from memory.recall.vectors import MemoryNotFound, NewMemory

FORMAT = "reverie-memories/1"
_MEMORY_FIELDS = ("kind", "content", "thread_id", "status")
_ENTITY_FIELDS = ("name", "type", "aliases", "summary", "mention_count", "domain", "status")


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _when(raw: str | None) -> datetime | None:
    return datetime.fromisoformat(raw) if raw else None


def _sources(conn: Any, table: str, column: str, item_id: int) -> list[list[Any]]:
    sql = f"SELECT memory_id, amount FROM {table} WHERE {column} = :i ORDER BY memory_id"
    return [[int(m), float(a)] for m, a in conn.execute(text(sql), {"i": item_id})]


class _Readable(Protocol):
    engine: Engine


def export_user(stores: _Readable, user_id: int) -> dict[str, Any]:
    """Everything one user remembers, as a JSON-ready dict (format `FORMAT`); it reads SQLite only."""
    with Session(stores.engine) as s:
        memories = list(s.exec(select(MemoryRow).where(MemoryRow.user_id == user_id).order_by(col(MemoryRow.id))))
        entities = list(s.exec(select(EntityRow).where(EntityRow.user_id == user_id).order_by(col(EntityRow.id))))
        relations = list(
            s.exec(select(RelationRow).where(RelationRow.user_id == user_id).order_by(col(RelationRow.id)))
        )
        conn = s.connection()
        doc: dict[str, Any] = {"format": FORMAT, "memories": [], "entities": [], "relations": []}
        for m in memories:
            item = {"ref": m.id, **{f: getattr(m, f) for f in _MEMORY_FIELDS}, "superseded_by": m.superseded_by}
            item |= {"created_at": _iso(m.created_at), "valid_from": _iso(m.valid_from), "valid_to": _iso(m.valid_to)}
            doc["memories"].append(item | {"meta": json.loads(m.meta) if m.meta else None})
        for e in entities:
            item = {"ref": e.id, **{f: getattr(e, f) for f in _ENTITY_FIELDS}, "merged_into": e.merged_into}
            item |= {"created_at": _iso(e.created_at), "updated_at": _iso(e.updated_at)}
            doc["entities"].append(item | {"sources": _sources(conn, "entity_sources", "entity_id", e.id or 0)})
        doc["apart"] = [[a, b] for a, b in sorted(rec.apart_pairs(conn, user_id))]
        for r in relations:
            item = {"ref": r.id, "subject": r.subject_id, "predicate": r.predicate, "object": r.object_id}
            item |= {"weight": r.weight, "source_memory": r.source_memory_id, "created_at": _iso(r.created_at)}
            item |= {"valid_from": _iso(r.valid_from), "valid_to": _iso(r.valid_to)}
            doc["relations"].append(item | {"sources": _sources(conn, "relation_sources", "relation_id", r.id or 0)})
    return doc


@dataclass(frozen=True)
class ImportReport:
    """How many of each were added (the rest were already there)."""

    memories: int = 0
    entities: int = 0
    relations: int = 0


def import_user(stores: Stores, user_id: int, doc: dict[str, Any]) -> ImportReport:
    """Add an exported document's memories, entities and relations to a user (see module docstring).

    Raises:
        ValueError: the document is not in `FORMAT`.
    """
    if doc.get("format") != FORMAT:
        raise ValueError(f"not a Reverie memory export (expected format {FORMAT!r})")
    mem_ids, added = _import_memories(stores, user_id, doc["memories"])
    with Session(stores.engine) as s:
        ent_ids, new_entities = _import_entities(s, user_id, doc["entities"], mem_ids)
        new_relations = _import_relations(s, user_id, doc["relations"], mem_ids, ent_ids)
        for a, b in doc.get("apart", []):
            if {a, b} <= ent_ids.keys() and ent_ids[a] != ent_ids[b]:
                rec.keep_apart(s.connection(), user_id, ent_ids[a], ent_ids[b], "imported")
        s.commit()
    stores.entities.rebuild(user_id)
    return ImportReport(added, new_entities, new_relations)


def _import_memories(stores: Stores, user_id: int, items: list[dict[str, Any]]) -> tuple[dict[int, int], int]:
    """Store the memories in one transaction, then their statuses and links; returns (ref → id, added)."""
    have: dict[tuple[str, str, datetime | None], int | None] = {}
    with Session(stores.engine) as s:
        for r in s.exec(select(MemoryRow).where(MemoryRow.user_id == user_id)):
            have[(r.kind, r.content, r.created_at)] = r.id
    mapping: dict[int, int] = {}
    todo = [i for i in items if (i["kind"], i["content"], _when(i["created_at"])) not in have]
    for item in items:
        found = have.get((item["kind"], item["content"], _when(item["created_at"])))
        if found is not None:
            mapping[item["ref"]] = found
    new = [NewMemory(i["kind"], i["content"], _when(i["created_at"]), i["thread_id"], meta=i["meta"]) for i in todo]
    rows = stores.memories.add_many(user_id, new) if new else []
    mapping |= {i["ref"]: r.id for i, r in zip(todo, rows, strict=True) if r.id is not None}
    with Session(stores.engine) as s:
        for item, row in zip(todo, rows, strict=True):
            row.status, row.superseded_by = item["status"], mapping.get(item["superseded_by"] or 0)
            row.valid_from, row.valid_to = _when(item["valid_from"]), _when(item["valid_to"])
            s.add(row)
        s.commit()
    return mapping, len(rows)


def _credit(s: Session, table: str, item_id: int, sources: list[list[Any]], mem_ids: dict[int, int]) -> None:
    for memory_ref, amount in sources:
        rec.credit(s.connection(), table, item_id, mem_ids.get(int(memory_ref)), float(amount))


def _import_entities(
    s: Session, user_id: int, items: list[dict[str, Any]], mem_ids: dict[int, int]
) -> tuple[dict[int, int], int]:
    mapping: dict[int, int] = {}
    added = 0
    for item in items:
        same = select(EntityRow).where(EntityRow.user_id == user_id, EntityRow.type == item["type"])
        same = same.where(EntityRow.domain == item["domain"], EntityRow.status == item["status"])
        taken = set(mapping.values())  # the second Ana of the file is the second Ana here, not the first again
        found = next(
            (e for e in s.exec(same.order_by(col(EntityRow.id)))
             if name_key(e.name) == name_key(item["name"]) and e.id not in taken),
            None,
        )  # fmt: skip
        if found is None:
            fields = {f: item[f] for f in _ENTITY_FIELDS} | {"user_id": user_id}
            found = EntityRow.model_validate(
                fields | {"created_at": _when(item["created_at"]), "updated_at": _when(item["updated_at"])}
            )
            s.add(found)
            s.flush()
            assert found.id is not None
            rec.add_keys(s.connection(), user_id, found.id, [found.name, *found.aliases])
            _credit(s, "entity_sources", found.id, item["sources"], mem_ids)
            added += 1
        mapping[item["ref"]] = found.id or 0
    for item in items:  # merged entities point at survivors that may come later in the file
        if item["merged_into"] is not None and (row := s.get(EntityRow, mapping[item["ref"]])) is not None:
            row.merged_into = mapping.get(item["merged_into"])
            s.add(row)
    return mapping, added


def _import_relations(
    s: Session, user_id: int, items: list[dict[str, Any]], mem_ids: dict[int, int], ent_ids: dict[int, int]
) -> int:
    added = 0
    for item in items:
        subject, obj, start = ent_ids[item["subject"]], ent_ids[item["object"]], _when(item["valid_from"])
        same = select(RelationRow).where(
            RelationRow.user_id == user_id, RelationRow.subject_id == subject,
            RelationRow.predicate == item["predicate"], RelationRow.object_id == obj,
        )  # fmt: skip
        if any(r.valid_from == start for r in s.exec(same)):
            continue
        row = RelationRow.model_validate(
            {"user_id": user_id, "subject_id": subject, "predicate": item["predicate"], "object_id": obj}
            | {"weight": item["weight"], "source_memory_id": mem_ids.get(item["source_memory"] or 0)}
            | {"valid_from": start, "valid_to": _when(item["valid_to"]), "created_at": _when(item["created_at"])}
        )
        s.add(row)
        s.flush()
        _credit(s, "relation_sources", row.id or 0, item["sources"], mem_ids)
        added += 1
    return added


@dataclass(frozen=True)
class Forgotten:
    """What forgetting removed."""

    memory_ids: tuple[int, ...]
    relation_ids: tuple[int, ...]
    entity_ids: tuple[int, ...]


def forget_memory(stores: Stores, user_id: int, memory_id: int) -> Forgotten:
    """Delete a memory everywhere (row, vector, FTS, graph edges only it supported).

    Raises:
        MemoryNotFound: not one of this user's memories.
    """
    row = stores.memories.get(user_id, memory_id)
    if row is None:
        raise MemoryNotFound(f"memory {memory_id} not found")
    targets = [memory_id]
    if row.kind == "turn" and row.source_turn_id is not None:
        with Session(stores.engine) as s:
            query = select(MemoryRow.id).where(
                MemoryRow.user_id == user_id, MemoryRow.source_turn_id == row.source_turn_id, MemoryRow.kind == "fact"
            )
            targets += [i for i in s.exec(query) if i is not None]
    relations: list[int] = []
    entities: list[int] = []
    for target in targets:
        result = stores.entities.forget_source_memory(user_id, target)
        relations += result.relation_ids
        entities += result.entity_ids
        stores.memories.delete(user_id, target)
    return Forgotten(tuple(targets), tuple(relations), tuple(entities))


def edit_memory(stores: Stores, user_id: int, memory_id: int, content: str) -> MemoryRow:
    """Replace a memory's text (re-embedded); a fact's graph edges are re-derived from the new text.

    Text that gives the assistant orders is stored quoted, as at formation.

    Raises:
        MemoryNotFound: not one of this user's memories.
        ValueError: the new text is empty.
    """
    content = " ".join(content.split())
    if not content:
        raise ValueError("a memory cannot be empty; forget it instead")
    if is_instruction(content):
        content = f'User said: "{content}"'
    row = stores.memories.update_content(user_id, memory_id, content)
    if row.kind == "fact" and row.id is not None:
        stores.entities.forget_source_memory(user_id, row.id)
        when = row.valid_from or row.created_at
        for triple in extract_patterns(content).triples if not is_instruction(content) else ():
            link(stores, user_id, triple, row.id, row.source_turn_id, when)
    return row
