"""The graph side of memory formation: entities and relations credited per memory, and supersession.

Every write is credited to the memory that states it (`entity_sources`, `relation_sources`),
which is what makes a rerun safe (a credit already there means "done") and what lets
`EntityStore.forget_source_memory` remove the edges that came only from a forgotten memory.

Supersession applies to functional predicates (memory.formation.patterns.FUNCTIONAL_PREDICATES): the
subject's current relation to another object ends when the new statement was made
(`valid_to` = the turn's time) and the active facts behind it become `superseded`, with
`superseded_by` the new fact. A retried older turn formed after a newer one cannot undo it:
its relation is recorded as history that ended when the newer one began.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, Engine, text
from sqlmodel import Session, col, select

from memory.formation.patterns import USER, USER_ALIASES, Triple, is_functional
from memory.graph.entities import Namesake
from memory.graph.names import name_key, roles_agree
from memory.models import EntityRow, MemoryRow, RelationRow
from memory.tokens import query_terms

if TYPE_CHECKING:
    from memory.formation.plan import Stores


def _credited(engine: Engine, sql: str, params: dict[str, Any]) -> bool:
    with engine.connect() as conn:
        return conn.execute(text(sql), params).first() is not None


def entity(
    stores: Stores,
    user_id: int,
    name: str,
    kind: str,
    memory_id: int,
    role: str | None = None,
    seen: dict[str, int] | None = None,
    employer: str | None = None,
) -> EntityRow:
    """The entity for `name`, credited once to `memory_id` (a rerun finds the credit and stops).

    `role` ("sister") becomes an alias, so "my sister" in a later question finds the person. Which
    entity a name means is decided here, by rule (`_chosen`): a role the person gives picks the one it
    fits, and a role no namesake can also hold makes a new entity, kept apart from them ("my colleague
    Ana" after "my sister Ana": two Anas), as does a new role said with another employer than the
    namesake's ("my friend Ana works at Initech" after "my colleague Ana works at Globex"). `seen`
    holds who each name meant earlier in the same turn; `employer`, where the same turn says it works.
    """
    sql = "SELECT 1 FROM entity_sources WHERE entity_id = :e AND memory_id = :m"
    candidates = stores.entities.find_by_name(user_id, name, fuzzy=True, limit=5)
    for row in candidates:
        if row.id is not None and _credited(stores.engine, sql, {"e": row.id, "m": memory_id}):
            return _seen(seen, name, row)
    if name == USER:
        return stores.entities.upsert_entity(
            user_id, name, kind, aliases=list(USER_ALIASES), source_memory_id=memory_id
        )
    aliases = [role] if role else []
    same = [n for n in stores.entities.namesakes(user_id, name) if _fits(n.entity, kind)]
    upsert = partial(stores.entities.upsert_entity, user_id, source_memory_id=memory_id)
    if same:
        chosen = _chosen(same, role, (seen or {}).get(name_key(name)), employer)
        if chosen is not None:
            return _seen(seen, name, upsert(name, kind, aliases=aliases, into=chosen.id))
        row = upsert(name, kind, aliases=aliases, distinct=True)
        assert row.id is not None
        for other in same:  # every namesake is someone else to the person
            stores.entities.keep_apart(user_id, row.id, other.id, _why_apart(role, employer, other))
        return _seen(seen, name, row)
    near = _near(name, kind, candidates)
    if near is not None:
        return _seen(seen, name, upsert(near.name, kind, aliases=[name, *aliases], into=near.id))
    # Nothing of this name: a new entity, never one a role word leads to ("my sister Bea" is not
    # the sister Ana because both are called "sister").
    return _seen(seen, name, upsert(name, kind, aliases=aliases, distinct=True))


def _fits(row: EntityRow, kind: str) -> bool:
    return row.type == kind or "Concept" in (row.type, kind)


def _seen(seen: dict[str, int] | None, name: str, row: EntityRow) -> EntityRow:
    if seen is not None and row.id is not None:
        seen[name_key(name)] = row.id
    return row


def _chosen(
    same: list[Namesake], role: str | None, earlier: int | None, employer: str | None = None
) -> Namesake | None:
    """Which of the entities of a name this mention is; None: none of them (a new one).

    With a role: the one already that role, else one that can also be it (a friend may be a
    colleague), else one with no role yet; none when each is someone the role excludes, or works
    elsewhere than the `employer` this mention gives (a new role and another job: someone else; the
    same role and another job is a move, superseded as usual). Without a role: the one the same turn
    named before, else the most recently mentioned: a person talking about "Ana" means the Ana of
    the moment (the answer path says which when asked about her).
    """
    if role is not None:
        fits = [n for n in same if role in n.roles or not _works_elsewhere(n, employer)]
        pools = (
            [n for n in fits if role in n.roles],
            [n for n in fits if any(roles_agree(role, r) for r in n.roles)],
            [n for n in fits if not n.roles],
        )
        return next((pool[0] for pool in pools if pool), None)
    named = [n for n in same if n.id == earlier]
    return (named or sorted(same, key=lambda n: n.entity.updated_at, reverse=True))[0]


def _works_elsewhere(n: Namesake, employer: str | None) -> bool:
    """Whether a namesake works now somewhere, and not at `employer`."""
    return employer is not None and bool(n.employers) and name_key(employer) not in {name_key(e) for e in n.employers}


def _why_apart(role: str | None, employer: str | None, other: Namesake) -> str:
    """ "friend at Initech, not colleague at Globex" (what the record of two says)."""
    ours = f"{role} at {employer}" if employer else str(role)
    theirs = " or ".join(other.roles) or "someone"
    return f"{ours}, not {theirs} at {' or '.join(other.employers)}" if other.employers else f"{ours}, not {theirs}"


def _near(name: str, kind: str, candidates: list[EntityRow]) -> EntityRow | None:
    """The one known entity this name shortens ("Ana" of "Ana Lima"), same or guessed type; else None."""
    key = name_key(name)
    fits = [
        r
        for r in candidates
        if r.name != USER
        and key != name_key(r.name)
        and any(name_key(n).split()[:1] == [key] for n in (r.name, *r.aliases))
        and (r.type == kind or "Concept" in (r.type, kind))
    ]
    return fits[0] if len(fits) == 1 else None


def link(
    stores: Stores,
    user_id: int,
    triple: Triple,
    memory_id: int,
    turn_id: int | None,
    when: datetime,
    seen: dict[str, int] | None = None,
    employers: Mapping[str, str] | None = None,
) -> tuple[int, list[int]]:
    """Add one relation (once per memory) and supersede what it contradicts.

    Args:
        triple: canonical names, predicate and types (memory.formation.patterns).
        memory_id: the memory that states it (credited; `forget_source_memory` follows it).
        turn_id: the turn it was said in, if any.
        when: when it was said: the new relation's `valid_from`, the old one's `valid_to`.
        seen: who each name meant earlier in the turn (`entity`).
        employers: where the turn says each name works, by name key (`entity`'s `employer`).

    Returns:
        (relation id, memories retired by the supersession).
    """
    subject = entity(stores, user_id, triple.subject, triple.subject_type, memory_id, seen=seen)
    is_role = triple.subject == USER and triple.predicate.startswith("HAS_")
    role = triple.predicate.removeprefix("HAS_").replace("_", " ").lower() if is_role else None
    employer = (employers or {}).get(name_key(triple.object)) if role else None
    obj = entity(stores, user_id, triple.object, triple.object_type, memory_id, role, seen, employer)
    assert subject.id is not None and obj.id is not None
    sql = (
        "SELECT r.id FROM relation_sources s JOIN relations r ON r.id = s.relation_id WHERE r.user_id = :u "
        "AND r.subject_id = :s AND r.predicate = :p AND r.object_id = :o AND s.memory_id = :m"
    )
    params = {"u": user_id, "s": subject.id, "p": triple.predicate, "o": obj.id, "m": memory_id}
    with stores.engine.connect() as conn:
        known = conn.execute(text(sql), params).scalar()
    if known is None:
        known = stores.entities.add_relation(
            user_id, subject.id, triple.predicate, obj.id,
            source_turn_id=turn_id, source_memory_id=memory_id, valid_from=when,
        ).id  # fmt: skip
    assert known is not None
    if not is_functional(triple.predicate):
        return known, []
    return known, _supersede(stores, user_id, when, known, memory_id)


def _supersede(stores: Stores, user_id: int, when: datetime, relation_id: int, memory_id: int) -> list[int]:
    """End the subject's other current objects of this functional predicate; a newer one ends ours instead."""
    ours = next(r for r in _current(stores, user_id, relation_id) if r.id == relation_id)
    retired: list[int] = []
    for other in _current(stores, user_id, relation_id):
        if other.id == relation_id or other.object_id == ours.object_id or other.id is None:
            continue
        other_from = _utc(other.valid_from or other.created_at)
        if other_from <= _utc(when):  # said later than the old one: it wins
            stores.entities.supersede_relation(user_id, other.id, valid_to=when)
            retired += _retire_facts(stores, user_id, other.id, memory_id, when)
        else:  # a newer statement was formed first (out-of-order retry): ours is history already
            stores.entities.supersede_relation(user_id, relation_id, valid_to=other_from)
            if other.source_memory_id:
                retired += _retire_facts(stores, user_id, relation_id, other.source_memory_id, other_from)
    return retired


def _current(stores: Stores, user_id: int, relation_id: int) -> list[RelationRow]:
    with stores.engine.connect() as conn:
        subject, predicate = conn.execute(
            text("SELECT subject_id, predicate FROM relations WHERE id = :r"), {"r": relation_id}
        ).one()
    return list(stores.entities.current_relations(user_id, subject, predicate))


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _retire_facts(stores: Stores, user_id: int, relation_id: int, by_memory: int, when: datetime) -> list[int]:
    """Mark the active facts behind a superseded relation, and the turns that said them, superseded.

    The turn goes too: "my sister moved to Porto" recalled verbatim would contradict the
    current view. It stays in the episodic log and in the history (status superseded).
    What else the turn said stays in recall as a new fact, its remainder: "my sister Jules lives in
    Hamilton, her birthday is 14 March" after "Jules moved to Tauranga" leaves "Jules — her birthday is
    14 March." (retiring the whole turn lost the birthday; keeping it active made "where does she
    live?" weigh the old place against the new).
    """
    sql = "SELECT memory_id FROM relation_sources WHERE relation_id = :r AND memory_id NOT IN (0, :m)"
    ends = (
        "SELECT s.name, s.aliases, r.predicate, o.name FROM relations r JOIN entities s ON s.id = r.subject_id "
        "JOIN entities o ON o.id = r.object_id WHERE r.id = :r"
    )
    with stores.engine.connect() as conn:
        sources = [int(r[0]) for r in conn.execute(text(sql), {"r": relation_id, "m": by_memory})]
        # Typed as JSON, the column reads as a list on both dialects (SQLite holds text, PostgreSQL json).
        subject, aliases, predicate, obj = conn.execute(text(ends).columns(aliases=JSON), {"r": relation_id}).one()
    said = " ".join([str(subject), *(aliases or []), str(predicate).replace("_", " ")])
    with Session(stores.engine) as s:
        query = select(MemoryRow).where(
            MemoryRow.user_id == user_id, col(MemoryRow.id).in_(sources),
            MemoryRow.kind == "fact", MemoryRow.status == "active",
        )  # fmt: skip
        rows = list(s.exec(query))
        turns = [r.source_turn_id for r in rows if r.source_turn_id is not None]
        saying = select(MemoryRow).where(
            MemoryRow.user_id == user_id, col(MemoryRow.source_turn_id).in_(turns),
            MemoryRow.kind == "turn", MemoryRow.status == "active",
        )  # fmt: skip
        rows += list(s.exec(saying))
        for row in rows:
            row.status, row.superseded_by, row.valid_to = "superseded", by_memory, when
            s.add(row)
        s.commit()
        told = [r for r in rows if r.kind == "turn"] or rows  # the person's own words when there are some
        rests = [(r.model_copy(), rest) for r in told
                 if (rest := remainder(r.content, said, str(obj), str(subject), str(predicate)))]  # fmt: skip
        retired = [r.id for r in rows if r.id is not None]
    for row, rest in rests:
        _keep(stores, user_id, row, rest)
    return retired


def _keep(stores: Stores, user_id: int, row: MemoryRow, rest: str) -> None:
    """Store a retired memory's remainder once (a rerun after a crash finds it and stops)."""
    with Session(stores.engine) as s:
        known = s.exec(select(MemoryRow.id).where(
            MemoryRow.user_id == user_id, MemoryRow.source_turn_id == row.source_turn_id,
            MemoryRow.content == rest, MemoryRow.status == "active",
        )).first()  # fmt: skip
    if known is None:
        stores.memories.add(
            user_id, "fact", rest, created_at=row.created_at, thread_id=row.thread_id,
            source_turn_id=row.source_turn_id, meta={"remainder_of": row.id},
        )  # fmt: skip


_CLAUSE = re.compile(r"[.!?;:]+\s+|,\s+|\s+(?:and|but|so|while|because)\s+|\s+[-–—]+\s+", re.IGNORECASE)
_CHANGE_WORDS = frozenset(  # as `remainder` compares words: without a plural s
    w.removesuffix("s") for w in query_terms("actually now back moved move moving anymore longer user")
)
_PRONOUN_LEAD = re.compile(r"^(?:she|he|they|her|his|their|its|it|who|whose)\b", re.IGNORECASE)
_PLACED = re.compile(r"\b(?:in|at|near|from|to)\s+(?:the\s+)?\w", re.IGNORECASE)
_WHERE = frozenset({"LIVES_IN", "WORKS_AT", "STUDIES_AT", "BORN_IN"})


def remainder(content: str, known: str, ended: str, subject: str = USER, predicate: str = "") -> str:
    """What `content` says besides the relation that ended, in its own words; "" when nothing is left.

    A clause is kept when it says something (not only `known`: the subject's names, the predicate's
    words, words of change; two words or a number) and nothing that could be the old value: not the
    old object, and for a where-predicate no "in/at/to …" at all (the extracted object may be the
    wrong one: "I live in Leipzig, in a flat in the Südvorstadt" ended as Leipzig). A remainder that
    says "her" leads with who she is.

    "My sister Ana moved to Porto last spring" leaves nothing; "My sister Jules lives in Hamilton, her
    birthday is 14 March" leaves "Jules — her birthday is 14 March."
    """
    def plain(text: str) -> set[str]:
        return {w.removesuffix("s") for w in query_terms(text)}

    gone, said = plain(ended), plain(known) | _CHANGE_WORDS

    def telling(clause: str) -> bool:  # "who is 34", "her birthday is 14 March"; not "love it"
        new = plain(clause) - said
        return len(new) >= 2 or any(w.isdigit() for w in new)

    def stale(clause: str) -> bool:
        return bool(plain(clause) & gone or (predicate in _WHERE and _PLACED.search(clause)))

    kept = [c.strip(" .!?,;:") for c in _CLAUSE.split(content.strip())]
    kept = [c for c in kept if c and telling(c) and not stale(c)]
    if not kept:
        return ""
    rest = ", ".join(kept) + "."
    if subject != USER and _PRONOUN_LEAD.match(rest) and not plain(subject) & plain(rest):
        rest = f"{subject} — {rest[0].lower()}{rest[1:]}"
    return rest


def user_roles(engine: Engine, user_id: int) -> dict[str, str]:
    """What each person is to the user, by name key and first-name key: {"ana": "sister"}.

    A name two people share (the sister Ana and the colleague Ana) has no entry: a fact about
    "Ana" alone must not be stored as the sister's.
    """
    sql = (
        "SELECT e.id, e.name, r.predicate FROM relations r JOIN entities u ON u.id = r.subject_id "
        "JOIN entities e ON e.id = r.object_id WHERE r.user_id = :u AND u.user_id = :u AND u.name = :user "
        "AND e.status = 'active' AND r.predicate LIKE 'HAS\\_%' ESCAPE '\\' AND r.valid_to IS NULL ORDER BY r.id"
    )
    roles: dict[str, str] = {}
    whose: dict[str, set[int]] = {}
    with engine.connect() as conn:
        for entity_id, name, predicate in conn.execute(text(sql), {"u": user_id, "user": USER}):
            role = str(predicate).removeprefix("HAS_").replace("_", " ").lower()
            key = name_key(str(name))
            for k in dict.fromkeys((key, key.split()[0])):
                roles.setdefault(k, role)
                whose.setdefault(k, set()).add(int(entity_id))
    return {k: role for k, role in roles.items() if len(whose[k]) == 1}
